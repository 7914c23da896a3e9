/*
 * cmd_stats.c - `roz stats`: how each block template fares. For every
 * template, the review attempts it started and how they ended, with the
 * success rates drawn as bars so they compare at a glance.
 */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "roz/clock.h"
#include "roz/json.h"

#define BAR_COLUMNS 30

typedef struct tstat {
	char *id;
	char *shown; /* id as a terminal may show it (cli_safe), for the table */
	unsigned success, not_spawned, no_decision, bad_session_id, pending;
	unsigned long long blocks; /* blocks_needed summed over successes */
} tstat;

/* One gate pattern: how often it denied a call, and how often a detour was asked about after. */
typedef struct gstat {
	char *pattern;
	char *shown;
	unsigned blocked, detours;
} gstat;

typedef struct stats {
	tstat *t;
	size_t n, cap;
	gstat *g;
	size_t ng, capg;
	unsigned sessions, with_attempts, unreadable;
} stats;

static void help(void)
{
	printf("usage: roz stats [--days N] [--json]\n\n"
	       "Compare block templates: for the sessions started in the last N days\n"
	       "(default 30), how many review attempts each template led to a verdict\n"
	       "(success) or not (failure: no reviewer started, no verdict, wrong session\n"
	       "id), the average blocks a success took, and the success rate; then, per\n"
	       "gate, the calls it denied and the detours roz asked about while a denial\n"
	       "was pending (lines it could not read: a script, an interpreter, a wrapper).\n\n"
	       "Options:\n"
	       "      --days N  look back N days\n"
	       "      --json    one JSON document, for scripts\n"
	       "  -h, --help    show this help\n");
}

static tstat *template_stat(stats *st, const char *id)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->t[i].id, id) == 0)
			return &st->t[i];
	if (roz_alloc_array_reserve((void **)&st->t, &st->cap, sizeof(*st->t), st->n + 1) < 0)
		return NULL;
	memset(&st->t[st->n], 0, sizeof(*st->t));
	if (!(st->t[st->n].id = roz_strdup(id)))
		return NULL;
	return &st->t[st->n++];
}

static gstat *gate_stat(stats *st, const char *pattern)
{
	for (size_t i = 0; i < st->ng; i++)
		if (strcmp(st->g[i].pattern, pattern) == 0)
			return &st->g[i];
	if (roz_alloc_array_reserve((void **)&st->g, &st->capg, sizeof(*st->g), st->ng + 1) < 0)
		return NULL;
	memset(&st->g[st->ng], 0, sizeof(*st->g));
	if (!(st->g[st->ng].pattern = roz_strdup(pattern)))
		return NULL;
	return &st->g[st->ng++];
}

/* Gate denials and detours, from the session's trace (what compaction kept of it). */
static int gather_gates(const roz_session *s, stats *st)
{
	for (size_t i = 0; i < s->n_trace; i++) {
		roz_trace_event ev;
		const cJSON *pattern;
		bool blocked, detour;
		gstat *g = NULL;

		if (roz_session_trace_event_parse(&s->trace[i], &ev) < 0)
			continue;
		blocked = strcmp(ev.event_type, "gate_blocked") == 0;
		detour = strcmp(ev.event_type, "gate_detour") == 0;
		pattern = cJSON_GetObjectItemCaseSensitive(ev.payload, "pattern");
		if ((blocked || detour) && cJSON_IsString(pattern) &&
		    !(g = gate_stat(st, pattern->valuestring))) {
			roz_session_trace_event_dispose(&ev);
			return ROZ_ENOMEM;
		}
		if (g) {
			g->blocked += blocked;
			g->detours += detour;
		}
		roz_session_trace_event_dispose(&ev);
	}
	return ROZ_OK;
}

static int by_pattern(const void *a, const void *b)
{
	return strcmp(((const gstat *)a)->pattern, ((const gstat *)b)->pattern);
}

static unsigned failures(const tstat *t)
{
	return t->not_spawned + t->no_decision + t->bad_session_id;
}

/* Success rate over settled attempts; pending ones are not counted. */
static double rate(const tstat *t)
{
	unsigned settled = t->success + failures(t);

	return settled ? 100.0 * t->success / settled : 0.0;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const tstat *)a)->id, ((const tstat *)b)->id);
}

static int gather(const cli_entry *e, size_t n, roz_time since, stats *st)
{
	for (size_t i = 0; i < n; i++) {
		const roz_session *s = e[i].s;

		if (!s) {
			st->unreadable++;
			continue;
		}
		if (roz_time_before(s->created_at, since))
			continue;
		st->sessions++;
		if (gather_gates(s, st) < 0)
			return ROZ_ENOMEM;
		if (s->review.n_attempts)
			st->with_attempts++;
		for (size_t k = 0; k < s->review.n_attempts; k++) {
			const roz_attempt *a = &s->review.attempts[k];
			tstat *t = template_stat(st, a->template_id);

			if (!t)
				return ROZ_ENOMEM;
			switch (a->outcome) {
			case ROZ_OUTCOME_SUCCESS:
				t->success++;
				t->blocks += a->blocks_needed;
				break;
			case ROZ_OUTCOME_NOT_SPAWNED: t->not_spawned++; break;
			case ROZ_OUTCOME_NO_DECISION: t->no_decision++; break;
			case ROZ_OUTCOME_BAD_SESSION_ID: t->bad_session_id++; break;
			default: t->pending++;
			}
		}
	}
	if (st->n)
		qsort(st->t, st->n, sizeof(*st->t), by_id);
	if (st->ng)
		qsort(st->g, st->ng, sizeof(*st->g), by_pattern);
	return ROZ_OK;
}

static int print_json(const stats *st, long days)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_buf_addf(&b, "{\"days\":%ld,\"sessions\":%u,\"sessions_with_attempts\":%u,\"unreadable\":%u,"
			 "\"templates\":[", days, st->sessions, st->with_attempts, st->unreadable);
	for (size_t i = 0; i < st->n; i++) {
		const tstat *t = &st->t[i];

		roz_buf_adds(&b, i ? ",{\"template_id\":" : "{\"template_id\":");
		roz_json_add_string(&b, t->id);
		roz_buf_addf(&b, ",\"success\":%u,\"failure\":%u,\"pending\":%u,\"not_spawned\":%u,"
				 "\"no_decision\":%u,\"bad_session_id\":%u,\"average_blocks\":%.2f,"
				 "\"success_rate\":%.1f}",
			     t->success, failures(t), t->pending, t->not_spawned, t->no_decision,
			     t->bad_session_id, t->success ? (double)t->blocks / t->success : 0.0, rate(t));
	}
	/* only when a gate fired: the document is otherwise what it always was */
	roz_buf_adds(&b, st->ng ? "],\"gates\":[" : "]");
	for (size_t i = 0; i < st->ng; i++) {
		roz_buf_adds(&b, i ? ",{\"pattern\":" : "{\"pattern\":");
		roz_json_add_string(&b, st->g[i].pattern);
		roz_buf_addf(&b, ",\"blocked\":%u,\"detours\":%u}", st->g[i].blocked, st->g[i].detours);
	}
	roz_buf_adds(&b, st->ng ? "]}\n" : "}\n");
	return cli_emit(&b);
}

static void bar(double pct)
{
	int full = (int)(pct * BAR_COLUMNS / 100.0 + 0.5);

	printf("%s", cli_green());
	for (int i = 0; i < full; i++)
		fputs(cli_utf8() ? "\xe2\x96\x88" : "#", stdout);
	printf("%s%s", cli_reset(), cli_dim());
	for (int i = full; i < BAR_COLUMNS; i++)
		fputs(cli_utf8() ? "\xe2\x96\x91" : ".", stdout);
	printf("%s", cli_reset());
}

/* Per gate: the calls it denied, and the detours asked about while a denial was pending. */
static int print_gates(stats *st)
{
	size_t w = strlen("GATE");

	if (!st->ng)
		return ROZ_EXIT_OK;
	for (size_t i = 0; i < st->ng; i++) {
		if (!(st->g[i].shown = cli_safe(st->g[i].pattern, false))) {
			cli_error("out of memory");
			return ROZ_EXIT_FAILURE;
		}
		if (cli_width(st->g[i].shown) > w)
			w = cli_width(st->g[i].shown);
	}
	printf("\nGates (a detour: a line roz could not read, asked about while the gate's denial "
	       "was pending):\n\n%s", cli_bold());
	cli_pad(stdout, "GATE", w + 2);
	printf("%8s %8s%s\n", "DENIED", "DETOURS", cli_reset());
	for (size_t i = 0; i < st->ng; i++) {
		cli_pad(stdout, st->g[i].shown, w + 2);
		printf("%8u %8u\n", st->g[i].blocked, st->g[i].detours);
	}
	return ROZ_EXIT_OK;
}

static int print_table(stats *st, long days)
{
	size_t w = strlen("TEMPLATE");
	unsigned ns = 0, nd = 0, bad = 0, pend = 0;

	if (!st->n) {
		printf("No review attempts in the last %ld day%s (%u session%s looked at).\n", days,
		       days == 1 ? "" : "s", st->sessions, st->sessions == 1 ? "" : "s");
		return print_gates(st);
	}
	for (size_t i = 0; i < st->n; i++) {
		if (!(st->t[i].shown = cli_safe(st->t[i].id, false))) {
			cli_error("out of memory");
			return ROZ_EXIT_FAILURE;
		}
		if (cli_width(st->t[i].shown) > w)
			w = cli_width(st->t[i].shown);
	}
	printf("Review attempts by block template, last %ld day%s:\n\n", days, days == 1 ? "" : "s");
	printf("%s", cli_bold());
	cli_pad(stdout, "TEMPLATE", w + 2);
	printf("%8s %8s %8s %11s %8s%s\n", "SUCCESS", "FAILURE", "PENDING", "AVG BLOCKS", "RATE", cli_reset());
	for (size_t i = 0; i < st->n; i++) {
		const tstat *t = &st->t[i];

		cli_pad(stdout, t->shown, w + 2);
		printf("%8u %8u %8u %11.1f %7.1f%%\n", t->success, failures(t), t->pending,
		       t->success ? (double)t->blocks / t->success : 0.0, rate(t));
		ns += t->not_spawned;
		nd += t->no_decision;
		bad += t->bad_session_id;
		pend += t->pending;
	}
	printf("\nSuccess rate\n");
	for (size_t i = 0; i < st->n; i++) {
		printf("  ");
		cli_pad(stdout, st->t[i].shown, w + 1);
		bar(rate(&st->t[i]));
		printf(" %5.1f%%\n", rate(&st->t[i]));
	}
	if (ns + nd + bad) {
		printf("\nFailures: %u no reviewer started, %u no verdict, %u wrong session id\n", ns, nd, bad);
	}
	if (pend)
		printf("Pending: %u (not yet settled, not counted in the rate)\n", pend);
	printf("\n%u session%s looked at, %u with review attempts", st->sessions,
	       st->sessions == 1 ? "" : "s", st->with_attempts);
	if (st->unreadable)
		printf(", %u unreadable", st->unreadable);
	printf(".\n");
	return print_gates(st);
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{"days", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	long days = 30;
	bool json = false;
	roz_config config;
	roz_store *store = NULL;
	cli_entry *e = NULL;
	size_t n = 0;
	stats st;
	int c, status = ROZ_EXIT_FAILURE;

	memset(&st, 0, sizeof(st));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!cli_parse_count(optarg, 36500, &days))
				return cli_usage_error("stats", "--days needs a positive number, not '%s'", optarg);
			break;
		case 'j': json = true; break;
		case 'h': help(); return cli_finish_stdout(ROZ_EXIT_OK);
		case ':': return cli_usage_error("stats", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("stats", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return cli_usage_error("stats", "unexpected argument '%s'", argv[optind]);
	if (cli_load_config(&config) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	if (cli_open_store(&config, &store) != ROZ_EXIT_OK)
		goto out;
	if (cli_load_entries(store, &e, &n) < 0 ||
	    gather(e, n, roz_time_sub(roz_clock_now(), (uint64_t)days * 86400), &st) < 0) {
		cli_error("cannot read sessions: %s", roz_error_last());
		goto out;
	}
	status = ROZ_EXIT_OK;
	if (json)
		status = print_json(&st, days);
	else
		status = print_table(&st, days);
out:
	for (size_t i = 0; i < st.n; i++) {
		roz_free(st.t[i].id);
		roz_free(st.t[i].shown);
	}
	roz_free(st.t);
	for (size_t i = 0; i < st.ng; i++) {
		roz_free(st.g[i].pattern);
		roz_free(st.g[i].shown);
	}
	roz_free(st.g);
	cli_free_entries(e, n);
	roz_store_free(store);
	roz_config_dispose(&config);
	return cli_finish_stdout(status);
}
