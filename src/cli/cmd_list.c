/*
 * cmd_list.c - `roz list`: the sessions in the store, newest first, with
 * their review state and the first prompt that asked for a review.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "roz/json.h"
#include "trace_view.h"

#define DEFAULT_LIMIT 20
#define PROMPT_COLUMNS 50

static void help(void)
{
	printf("usage: roz list [-n|--limit N] [--json]\n\n"
	       "List recent sessions, newest first: id, when it started (local time), the\n"
	       "state of its review, and the first prompt that asked for one. Files that\n"
	       "cannot be read are listed after them.\n\n"
	       "Options:\n"
	       "  -n, --limit N  show at most N sessions (default %d)\n"
	       "      --json     one JSON document, for scripts\n"
	       "  -h, --help     show this help\n",
	       DEFAULT_LIMIT);
}

/* A positive count from the command line. */
bool cli_parse_count(const char *s, long max, long *out)
{
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return false;
	v = strtol(s, &end, 10);
	if (*end || v <= 0 || v > max)
		return false;
	*out = v;
	return true;
}

static int print_json(const roz_config *config, cli_entry *e, size_t n, long limit)
{
	roz_buf b = ROZ_BUF_INIT;
	char ts[ROZ_TIME_BUFSZ];
	long shown = 0;
	bool first = true;

	roz_buf_adds(&b, "{\"storage\":");
	roz_json_add_string(&b, config->storage_path);
	roz_buf_adds(&b, ",\"sessions\":[");
	for (size_t i = 0; i < n && shown < limit; i++) {
		const roz_session *s = e[i].s;

		if (!s)
			continue;
		roz_buf_adds(&b, first ? "{\"session_id\":" : ",{\"session_id\":");
		first = false;
		roz_json_add_string(&b, s->session_id);
		roz_buf_addf(&b, ",\"created_at\":\"%s\"", roz_time_format(s->created_at, ts));
		roz_buf_addf(&b, ",\"updated_at\":\"%s\"", roz_time_format(s->updated_at, ts));
		roz_buf_addf(&b, ",\"state\":\"%s\",\"override\":%s,\"first_prompt\":", cli_review_state(s),
			     cli_verdict_overridden(s) ? "true" : "false");
		if (s->review.n_prompts)
			roz_json_add_string(&b, s->review.prompts[0]);
		else
			roz_buf_adds(&b, "null");
		roz_buf_addf(&b, ",\"events\":%zu}", s->n_trace);
		shown++;
	}
	roz_buf_adds(&b, "],\"unreadable\":[");
	first = true;
	for (size_t i = 0; i < n; i++) {
		if (e[i].s)
			continue;
		roz_buf_adds(&b, first ? "{\"session_id\":" : ",{\"session_id\":");
		first = false;
		roz_json_add_string(&b, e[i].id);
		roz_buf_adds(&b, ",\"error\":");
		roz_json_add_string(&b, e[i].error ? e[i].error : "");
		roz_buf_addc(&b, '}');
	}
	roz_buf_adds(&b, "]}\n");
	return cli_emit(&b);
}

/* The REVIEW cell: the state, marked when a person's --override recorded the verdict. */
static const char *review_cell(const roz_session *s, char *buf, size_t size)
{
	if (!cli_verdict_overridden(s))
		return cli_review_state(s);
	snprintf(buf, size, "%s (override)", cli_review_state(s));
	return buf;
}

static void print_table(const roz_config *config, cli_entry *e, size_t n, long limit)
{
	size_t readable = 0, idw = strlen("SESSION"), rw = 10, shown = 0;
	char when[64], cell[48];

	for (size_t i = 0; i < n; i++)
		if (e[i].s) {
			readable++;
			if (shown++ < (size_t)limit && strlen(e[i].id) > idw)
				idw = strlen(e[i].id);
			if (shown <= (size_t)limit && strlen(review_cell(e[i].s, cell, sizeof(cell))) + 2 > rw)
				rw = strlen(cell) + 2;
		}
	if (!n) {
		printf("No sessions in ");
		cli_put_safe(stdout, config->storage_path, false);
		printf(".\n");
		return;
	}
	shown = 0;
	if (readable) {
		printf("%s", cli_bold());
		cli_pad(stdout, "SESSION", idw + 2);
		cli_pad(stdout, "STARTED", 18);
		cli_pad(stdout, "REVIEW", rw);
		printf("PROMPT%s\n", cli_reset());
	}
	for (size_t i = 0; i < n && shown < (size_t)limit; i++) {
		const roz_session *s = e[i].s;
		char *prompt;

		if (!s)
			continue;
		cli_local_date(s->created_at, when, sizeof(when));
		prompt = s->review.n_prompts ? cli_cut(s->review.prompts[0], PROMPT_COLUMNS) : NULL;
		cli_pad(stdout, s->session_id, idw + 2);
		cli_pad(stdout, when, 18);
		cli_pad(stdout, review_cell(s, cell, sizeof(cell)), rw);
		printf("%s%s%s\n", prompt ? "" : cli_dim(), prompt ? prompt : "-", prompt ? "" : cli_reset());
		roz_free(prompt);
		shown++;
	}
	for (size_t i = 0; i < n; i++)
		if (!e[i].s) {
			printf("%s%s: cannot be read: ", cli_red(), e[i].id);
			cli_put_safe(stdout, e[i].error ? e[i].error : "?", false);
			printf("%s\n", cli_reset());
		}
	if (readable > shown)
		printf("%s(%zu of %zu sessions shown; --limit to see more)%s\n", cli_dim(), shown, readable,
		       cli_reset());
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{"limit", required_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	long limit = DEFAULT_LIMIT;
	bool json = false;
	roz_config config;
	roz_store *store = NULL;
	cli_entry *e = NULL;
	size_t n = 0;
	int c, status = ROZ_EXIT_FAILURE;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!cli_parse_count(optarg, 1000000, &limit))
				return cli_usage_error("list", "--limit needs a positive number, not '%s'", optarg);
			break;
		case 'j': json = true; break;
		case 'h': help(); return cli_finish_stdout(ROZ_EXIT_OK);
		case ':': return cli_usage_error("list", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("list", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return cli_usage_error("list", "unexpected argument '%s'", argv[optind]);
	if (cli_load_config(&config) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	if (cli_open_store(&config, &store) != ROZ_EXIT_OK)
		goto out;
	if (cli_load_entries(store, &e, &n) < 0) {
		cli_error("cannot list sessions: %s", roz_error_last());
		goto out;
	}
	status = ROZ_EXIT_OK;
	if (json)
		status = print_json(&config, e, n, limit);
	else
		print_table(&config, e, n, limit);
out:
	cli_free_entries(e, n);
	roz_store_free(store);
	roz_config_dispose(&config);
	return cli_finish_stdout(status);
}
