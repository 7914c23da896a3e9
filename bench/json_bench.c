/*
 * json_bench.c - roz's JSON reader and writer against cJSON's parser and
 * printers, in one process, on the session files the hook benchmark builds
 * and on a hook's input. It measures what a hook pays to read or write a
 * document once; the hook benchmark (bench.c) measures whole hooks.
 *
 * Usage: roz_json_bench [--runs N] [--sample-us N] [--only TEXT] [--callgrind] NAME=FILE...
 *
 * Each FILE is a session file (bench/json_run.sh takes them from a kept run
 * of the hook benchmark); NAME labels its column. Every operation runs on
 * every file in rounds, in a new random order each round; a sample times as
 * many repetitions as fill --sample-us, and the table shows each median in
 * microseconds per operation; --only keeps the operations whose name
 * holds TEXT. With --callgrind each operation runs once
 * (after one unmeasured call) inside json_bench_measured, and under
 *   valgrind --tool=callgrind --toggle-collect=json_bench_measured
 * its instructions are dumped with the operation's name (json_run.sh reads
 * the dumps).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "roz/json.h"
#include "roz/session.h"
#include "roz/session_json.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_DUMP_STATS_AT(name) ((void)(name))
#endif

/* A hook's input as bench.c writes it for the gated `git push` call (386 bytes). */
static const char hook_input[] =
	"{\"session_id\":\"5d1c7e2a-9b3f-4c8e-a0d6-3e7f1b2c4a9d\",\"transcript_path\":\"/home/dev/"
	".claude/projects/-home-dev-project/5d1c7e2a-9b3f-4c8e-a0d6-3e7f1b2c4a9d.jsonl\",\"cwd\":"
	"\"/home/dev/project\",\"permission_mode\":\"default\",\"hook_event_name\":\"PreToolUse\","
	"\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git push origin main\",\"description\":"
	"\"Push the branch\"},\"tool_use_id\":\"toolu_0100000000000f4240\"}";

typedef struct doc {
	const char *name;
	char *text;
	size_t len;
	cJSON *tree; /* roz_json_parse's tree of text: numbers as raw nodes */
	roz_session *session;
} doc;

static void die(const char *what)
{
	fprintf(stderr, "json_bench: %s\n", what);
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* What an operation made, summed so the compiler cannot drop the work. */
static volatile size_t sink;

/* ---- the operations ---------------------------------------------------------------- */

static void op_scan(const doc *d)
{
	sink += roz_json_valid(d->text, d->len);
}

static void op_load(const doc *d)
{
	roz_session *s = NULL;

	if (roz_session_json_parse(d->text, d->len, &s) < 0)
		die("a session file does not load");
	sink += s->n_trace;
	roz_session_free(s);
}

static void op_roz_tree(const doc *d)
{
	cJSON *v = NULL;

	if (roz_json_parse(d->text, d->len, &v) < 0)
		die("roz_json_parse failed");
	sink += v->child != NULL;
	cJSON_Delete(v);
}

static void op_cjson_tree(const doc *d)
{
	cJSON *v = cJSON_ParseWithLength(d->text, d->len);

	if (!v)
		die("cJSON_ParseWithLength failed");
	sink += v->child != NULL;
	cJSON_Delete(v);
}

/*
 * What a session loader built on cJSON would do at the least: parse the
 * whole file, then print each trace event back to the text the session
 * keeps (numbers respelled, so not even the same bytes).
 */
static void op_cjson_load(const doc *d)
{
	cJSON *v = cJSON_ParseWithLength(d->text, d->len), *ev;

	if (!v)
		die("cJSON_ParseWithLength failed");
	cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(v, "trace")) {
		char *text = cJSON_PrintUnformatted(ev);

		if (!text)
			die("out of memory");
		sink += strlen(text);
		cJSON_free(text);
	}
	cJSON_Delete(v);
}

static void write_with(const doc *d, unsigned flags)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_json_add_value(&b, d->tree, flags);
	if (roz_buf_failed(&b))
		die("out of memory");
	sink += b.len;
	roz_buf_dispose(&b);
}

static void op_write_compact(const doc *d)
{
	write_with(d, ROZ_JSON_COMPACT);
}

static void op_write_sorted(const doc *d)
{
	write_with(d, ROZ_JSON_COMPACT | ROZ_JSON_SORTED);
}

static void op_write_indent(const doc *d)
{
	write_with(d, ROZ_JSON_INDENT);
}

static void op_write_tabs(const doc *d)
{
	write_with(d, ROZ_JSON_TABS);
}

static void op_cjson_unformatted(const doc *d)
{
	char *text = cJSON_PrintUnformatted(d->tree);

	if (!text)
		die("out of memory");
	sink += strlen(text);
	cJSON_free(text);
}

static void op_cjson_print(const doc *d)
{
	char *text = cJSON_Print(d->tree);

	if (!text)
		die("out of memory");
	sink += strlen(text);
	cJSON_free(text);
}

static void op_save(const doc *d)
{
	roz_buf b = ROZ_BUF_INIT;

	if (roz_session_json_write(d->session, &b) < 0)
		die("a session does not save");
	sink += b.len;
	roz_buf_dispose(&b);
}

typedef struct op {
	const char *name;
	void (*fn)(const doc *d);
	bool session_only; /* needs a session file, not any JSON */
} op;

static const op ops[] = {
	{"read: roz_json_valid (scanner)", op_scan, false},
	{"read: roz_session_json_parse (scanner, one pass)", op_load, true},
	{"read: roz_json_parse (tree)", op_roz_tree, false},
	{"read: cJSON_ParseWithLength (tree)", op_cjson_tree, false},
	{"read: cJSON_ParseWithLength + events to text", op_cjson_load, true},
	{"write: roz_session_json_write", op_save, true},
	{"write: compact", op_write_compact, false},
	{"write: compact, sorted (canonical)", op_write_sorted, false},
	{"write: indented", op_write_indent, false},
	{"write: tabbed", op_write_tabs, false},
	{"write: cJSON_PrintUnformatted", op_cjson_unformatted, false},
	{"write: cJSON_Print", op_cjson_print, false},
};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))

/* ---- running them ------------------------------------------------------------------ */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	roz_buf b = ROZ_BUF_INIT;
	char chunk[65536];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		roz_buf_add(&b, chunk, n);
	fclose(f);
	if (roz_buf_failed(&b))
		return NULL;
	return roz_buf_detach(&b, len);
}

static void doc_init(doc *d, const char *name, char *text, size_t len)
{
	d->name = name;
	d->text = text;
	d->len = len;
	if (roz_json_parse(text, len, &d->tree) < 0)
		die("not valid JSON");
	d->session = NULL;
	if (roz_session_json_parse(text, len, &d->session) < 0)
		d->session = NULL; /* not a session: the session operations are skipped */
}

static const char *only; /* --only */

static bool applies(const op *o, const doc *d)
{
	return (!o->session_only || d->session) && (!only || strstr(o->name, only));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rng = 88172645463325252u;

static size_t rand_below(size_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (size_t)(rng % n);
}

/* Under callgrind, what is counted is this call alone (--toggle-collect). */
__attribute__((noinline)) void json_bench_measured(const op *o, const doc *d);
__attribute__((noinline)) void json_bench_measured(const op *o, const doc *d)
{
	o->fn(d);
}

static void run_callgrind(const doc *docs, size_t n_docs)
{
#ifndef HAVE_CALLGRIND
	fprintf(stderr, "json_bench: built without valgrind/callgrind.h; counts will be one total\n");
#endif
	for (size_t i = 0; i < n_docs; i++) {
		for (size_t k = 0; k < N_OPS; k++) {
			char label[256];

			if (!applies(&ops[k], &docs[i]))
				continue;
			ops[k].fn(&docs[i]); /* warm: lazy binding, the allocator's first growth */
			json_bench_measured(&ops[k], &docs[i]);
			snprintf(label, sizeof(label), "%s|%s", docs[i].name, ops[k].name);
			CALLGRIND_DUMP_STATS_AT(label);
		}
	}
}

static void run_timed(const doc *docs, size_t n_docs, long runs, double sample_ns)
{
	size_t n_jobs = n_docs * N_OPS, order[N_OPS * 16];
	long reps[N_OPS * 16];
	double *samples = calloc(n_jobs * (size_t)runs, sizeof(double));

	if (!samples || n_docs > 16)
		die("out of memory");
	/* repetitions per sample: enough to fill sample_ns, found on a warm run */
	for (size_t j = 0; j < n_jobs; j++) {
		const op *o = &ops[j % N_OPS];
		const doc *d = &docs[j / N_OPS];
		double t;

		reps[j] = 0;
		if (!applies(o, d))
			continue;
		o->fn(d);
		t = now_ns();
		o->fn(d);
		t = now_ns() - t;
		reps[j] = t >= sample_ns ? 1 : (long)(sample_ns / (t > 1 ? t : 1)) + 1;
	}
	for (long r = 0; r < runs; r++) {
		for (size_t j = 0; j < n_jobs; j++)
			order[j] = j;
		for (size_t j = n_jobs; j > 1; j--) {
			size_t k = rand_below(j), tmp = order[j - 1];

			order[j - 1] = order[k];
			order[k] = tmp;
		}
		for (size_t x = 0; x < n_jobs; x++) {
			size_t j = order[x];
			const op *o = &ops[j % N_OPS];
			const doc *d = &docs[j / N_OPS];
			double t;

			if (!reps[j])
				continue;
			t = now_ns();
			for (long i = 0; i < reps[j]; i++)
				o->fn(d);
			samples[j * (size_t)runs + (size_t)r] = (now_ns() - t) / (double)reps[j];
		}
	}

	printf("median µs per operation, %ld samples of at least %.0f µs each\n\n", runs, sample_ns / 1e3);
	printf("| operation |");
	for (size_t i = 0; i < n_docs; i++)
		printf(" %s (%zu B) |", docs[i].name, docs[i].len);
	printf("\n|---|");
	for (size_t i = 0; i < n_docs; i++)
		printf("--:|");
	printf("\n");
	for (size_t k = 0; k < N_OPS; k++) {
		if (only && !strstr(ops[k].name, only))
			continue;
		printf("| %s |", ops[k].name);
		for (size_t i = 0; i < n_docs; i++) {
			size_t j = i * N_OPS + k;
			double *s = samples + j * (size_t)runs;

			if (!reps[j]) {
				printf(" – |");
				continue;
			}
			qsort(s, (size_t)runs, sizeof(double), cmp_double);
			printf(" %.1f |", s[runs / 2] / 1e3);
		}
		printf("\n");
	}
	free(samples);
}

int main(int argc, char **argv)
{
	doc docs[16];
	size_t n_docs = 0;
	long runs = 200;
	double sample_ns = 200e3;
	bool callgrind = false;

	roz_alloc_init(); /* cJSON allocates through roz_malloc, as in roz */
	for (int i = 1; i < argc; i++) {
		char *eq;

		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
			runs = strtol(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--sample-us") == 0 && i + 1 < argc) {
			sample_ns = strtod(argv[++i], NULL) * 1e3;
		} else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
			only = argv[++i];
		} else if (strcmp(argv[i], "--callgrind") == 0) {
			callgrind = true;
		} else if ((eq = strchr(argv[i], '=')) && n_docs < 15) {
			size_t len;
			char *text;

			*eq = '\0';
			text = read_file(eq + 1, &len);
			if (!text) {
				fprintf(stderr, "json_bench: cannot read '%s'\n", eq + 1);
				return 1;
			}
			doc_init(&docs[n_docs++], argv[i], text, len);
		} else {
			fprintf(stderr, "usage: roz_json_bench [--runs N] [--sample-us N] [--only TEXT] "
					"[--callgrind] NAME=FILE...\n");
			return 2;
		}
	}
	if (runs < 1)
		die("--runs must be at least 1");
	{
		char *text = roz_strdup(hook_input);

		if (!text)
			die("out of memory");
		doc_init(&docs[n_docs++], "hook input", text, strlen(text));
	}
	if (callgrind)
		run_callgrind(docs, n_docs);
	else
		run_timed(docs, n_docs, runs, sample_ns);
	for (size_t i = 0; i < n_docs; i++) {
		cJSON_Delete(docs[i].tree);
		roz_session_free(docs[i].session);
		roz_free(docs[i].text);
	}
	return 0;
}
