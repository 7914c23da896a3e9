/*
 * test_record.c - the runner's ledger step (src/runner/record.c): a write
 * that ran is one Agent Trace record in .orchestration/agent_trace.jsonl,
 * with the repository's revision, the session's intent and model and the
 * hashes of the lines written; what is not the ledger's business is not
 * recorded; and a ledger that cannot be written costs a warning and a
 * trace event, never the agent's answer.
 */
#include "stores.h"
#include "support.h"

#include "roz/digest.h"
#include "roz/ledger.h"
#include "roz/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SID "rec-1"
#define HEAD_SHA "0123456789abcdef0123456789abcdef01234567"

typedef struct world {
	char *home, *repo;
	roz_store *mem;
} world;

static const char *world_getenv(void *ud, const char *name)
{
	world *w = ud;

	if (strcmp(name, "ROZ_HOME") == 0 || strcmp(name, "HOME") == 0)
		return w->home;
	if (strcmp(name, "PATH") == 0)
		return "/nonexistent";
	return NULL;
}

static char *in_repo(world *w, const char *rel)
{
	return t_sprintf("%s/%s", w->repo, rel);
}

static void put(world *w, const char *rel, const char *text)
{
	char *p = in_repo(w, rel);

	t_write_file(p, text);
	free(p);
}

static int setup(void **state)
{
	world *w = calloc(1, sizeof *w);

	w->home = t_mkdtemp();
	w->repo = t_mkdtemp();
	put(w, ".git/HEAD", "ref: refs/heads/main\n");
	put(w, ".git/refs/heads/main", HEAD_SHA "\n");
	assert_int_equal(roz_store_memory_new(&w->mem), ROZ_OK);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	world *w = *state;

	roz_store_free(w->mem);
	t_rmtree(w->home);
	t_rmtree(w->repo);
	free(w->home);
	free(w->repo);
	free(w);
	return 0;
}

/* Run a hook with `fields` after session_id and cwd; its answer, and stderr in *err. */
static char *hook(world *w, const char *event, const char *fields, char **err)
{
	roz_runner_opts opts = {.getenv_fn = world_getenv, .env_ud = w, .store = w->mem, .version = "9.9.9"};
	roz_buf out = ROZ_BUF_INIT, e = ROZ_BUF_INIT;
	char *json = t_sprintf("{\"session_id\":\"" SID "\",\"cwd\":\"%s\",%s}", w->repo, fields);
	char *answer;

	assert_int_equal(roz_runner_hook(event, json, strlen(json), &out, &e, &opts), ROZ_OK);
	answer = t_sprintf("%s", roz_buf_cstr(&out));
	if (err)
		*err = t_sprintf("%s", roz_buf_cstr(&e));
	roz_buf_dispose(&out);
	roz_buf_dispose(&e);
	free(json);
	return answer;
}

static void expect_empty_answer(world *w, const char *event, const char *fields)
{
	char *err, *got = hook(w, event, fields, &err);

	if (strcmp(got, "{}\n") != 0)
		fail_msg("%s answered %s (stderr %s)", event, got, err);
	free(got);
	free(err);
}

/* A Write of `rel` with `content`, as PostToolUse reports it once the file holds it. */
static void wrote(world *w, const char *rel, const char *content)
{
	char *abs = in_repo(w, rel), *fields;

	put(w, rel, content);
	fields = t_sprintf("\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"%s\",\"content\":\"x\"},"
			   "\"tool_response\":{\"type\":\"create\"}",
			   abs);
	expect_empty_answer(w, "post-tool-use", fields);
	free(fields);
	free(abs);
}

/* The ledger's lines, parsed; *n of them. */
static roz_ledger_rec *ledger(world *w, size_t *n)
{
	char *p = in_repo(w, ROZ_LEDGER_FILE), *text = t_read_file(p, NULL), *line, *nl;
	roz_ledger_rec *recs = calloc(64, sizeof *recs);

	*n = 0;
	free(p);
	for (line = text; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl); /* every record ends its line */
		if (roz_ledger_line_parse(line, (size_t)(nl - line), &recs[*n]) != ROZ_OK)
			fail_msg("a ledger line does not parse: %.*s (%s)", (int)(nl - line), line, roz_error_last());
		(*n)++;
	}
	free(text);
	return recs;
}

static void free_ledger(roz_ledger_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		roz_ledger_rec_dispose(&recs[i]);
	free(recs);
}

static bool ledger_exists(world *w)
{
	char *p = in_repo(w, ROZ_LEDGER_FILE);
	bool there = access(p, F_OK) == 0;

	free(p);
	return there;
}

static void a_repository_without_orchestration_keeps_no_ledger(void **state)
{
	world *w = *state;
	roz_session *s = NULL;

	wrote(w, "src/a.c", "int a;\n");
	assert_false(ledger_exists(w));
	/* and no session was made for it */
	assert_int_equal(roz_store_get(w->mem, SID, &s), ROZ_ENOTFOUND);
}

static void a_write_without_intents_is_recorded_with_none(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;
	char want[ROZ_SHA256_HEX_SIZE];

	put(w, ".orchestration/CLAUDE.md", "- lessons\n");
	expect_empty_answer(w, "session-start", "\"source\":\"startup\",\"model\":\"claude-opus-4-5\"");
	wrote(w, "src/a.c", "one\ntwo\n");
	r = ledger(w, &n);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].revision, HEAD_SHA);
	assert_string_equal(r[0].session_id, SID);
	assert_null(r[0].intent_id);
	assert_string_equal(r[0].model_id, "anthropic/claude-opus-4-5");
	assert_int_equal(r[0].nfiles, 1);
	assert_string_equal(r[0].files[0].path, "src/a.c");
	assert_int_equal(r[0].files[0].ranges.n, 1);
	assert_int_equal(r[0].files[0].ranges.items[0].start_line, 1);
	assert_int_equal(r[0].files[0].ranges.items[0].end_line, 2);
	roz_digest_sha256_hex("one\ntwo", 7, want);
	assert_string_equal(r[0].files[0].ranges.items[0].hash, want);
	free_ledger(r, n);
}

static void a_governed_write_carries_the_intent_and_class(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;
	char *abs = in_repo(w, "src/a.c"), *fields;

	put(w, ".orchestration/active_intents.yaml",
	    "active_intents:\n  - id: INT-7\n    name: Seven\n    status: IN_PROGRESS\n    owned_scope: [\"src/**\"]\n");
	expect_empty_answer(w, "pre-tool-use", "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz intent select INT-7 --refactor\"}");
	wrote(w, "src/a.c", "a\nb\nc\n");
	/* an Edit: only the lines the new text landed on */
	put(w, "src/a.c", "a\nB1\nB2\nc\n");
	fields = t_sprintf("\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"%s\",\"old_string\":\"b\","
			   "\"new_string\":\"B1\\nB2\"}",
			   abs);
	expect_empty_answer(w, "post-tool-use", fields);
	r = ledger(w, &n);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].intent_id, "INT-7");
	assert_string_equal(r[0].mutation_class, "AST_REFACTOR");
	assert_int_equal(r[1].files[0].ranges.n, 1);
	assert_int_equal(r[1].files[0].ranges.items[0].start_line, 2);
	assert_int_equal(r[1].files[0].ranges.items[0].end_line, 3);
	free_ledger(r, n);
	free(fields);
	/*
	 * an Edit whose new text is also a person's line above: Claude Code's patch says where it landed
	 * (line 4), so the person's line 1 is not claimed
	 */
	put(w, "src/a.c", "c\na\nB1\nc\n");
	fields = t_sprintf("\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"%s\",\"old_string\":\"B2\","
			   "\"new_string\":\"c\"},\"tool_response\":{\"structuredPatch\":[{\"oldStart\":2,"
			   "\"oldLines\":3,\"newStart\":2,\"newLines\":3,\"lines\":[\" a\",\" B1\",\"-B2\",\"+c\"]}]}",
			   abs);
	expect_empty_answer(w, "post-tool-use", fields);
	r = ledger(w, &n);
	assert_int_equal(n, 3);
	assert_int_equal(r[2].files[0].ranges.n, 1);
	assert_int_equal(r[2].files[0].ranges.items[0].start_line, 4);
	assert_int_equal(r[2].files[0].ranges.items[0].end_line, 4);
	free_ledger(r, n);
	free(fields);
	free(abs);
}

static void bash_records_the_files_it_visibly_wrote(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;

	put(w, ".orchestration/.intentignore", "*.log\n");
	put(w, "src/b.c", "b\n");
	put(w, "out.log", "x\n");
	/* read-only lines are not writes */
	expect_empty_answer(w, "post-tool-use", "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"cat src/b.c\"}");
	assert_false(ledger_exists(w));
	expect_empty_answer(w, "post-tool-use",
			    "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo b > src/b.c && echo x > out.log "
			    "&& rm -f gone.c && echo y > /tmp/outside-the-repo\"}");
	r = ledger(w, &n);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].nfiles, 1); /* not the ignored log, the removed file or one outside */
	assert_string_equal(r[0].files[0].path, "src/b.c");
	free_ledger(r, n);
	/* a write under .orchestration/ is roz's own business */
	put(w, ".orchestration/notes.md", "x\n");
	{
		char *abs = in_repo(w, ".orchestration/notes.md"), *f;

		f = t_sprintf("\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"%s\"}", abs);
		expect_empty_answer(w, "post-tool-use", f);
		free(f);
		free(abs);
	}
	r = ledger(w, &n);
	assert_int_equal(n, 1);
	free_ledger(r, n);
}

static void a_torn_tail_is_left_behind_on_its_own_line(void **state)
{
	world *w = *state;
	char *p = in_repo(w, ROZ_LEDGER_FILE), *text;

	put(w, ROZ_LEDGER_FILE, "{\"version\":\"0.1\",\"id\":\"torn");
	wrote(w, "src/c.c", "c\n");
	text = t_read_file(p, NULL);
	/* the torn record stays as it was, and the new one starts a line of its own */
	assert_true(strncmp(text, "{\"version\":\"0.1\",\"id\":\"torn\n{\"version\":\"0.1.0\"", 46) == 0);
	assert_int_equal(text[strlen(text) - 1], '\n');
	free(text);
	free(p);
}

static void a_ledger_that_cannot_be_written_costs_a_warning(void **state)
{
	world *w = *state;
	char *p = in_repo(w, ROZ_LEDGER_FILE), *err, *got, *abs = in_repo(w, "src/d.c"), *f;
	roz_session *s = NULL;

	put(w, "src/d.c", "d\n");
	put(w, ".orchestration/CLAUDE.md", "- lessons\n");
	assert_int_equal(mkdir(p, 0700), 0); /* a directory where the ledger belongs */
	f = t_sprintf("\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"%s\"}", abs);
	got = hook(w, "post-tool-use", f, &err);
	assert_string_equal(got, "{}\n");
	if (!strstr(err, "roz: warning: post-tool-use: the change could not be recorded in " ROZ_LEDGER_FILE))
		fail_msg("stderr: %s", err);
	if (roz_store_get(w->mem, SID, &s) != ROZ_OK)
		fail_msg("no session: %s; stderr %s", roz_error_last(), err);
	{
		bool found = false;

		for (size_t i = 0; i < s->n_trace; i++)
			found = found || strstr(s->trace[i].json, "\"record_failed\"");
		assert_true(found);
	}
	roz_session_free(s);
	free(got);
	free(err);
	free(f);
	free(abs);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(a_repository_without_orchestration_keeps_no_ledger),
		T(a_write_without_intents_is_recorded_with_none),
		T(a_governed_write_carries_the_intent_and_class),
		T(bash_records_the_files_it_visibly_wrote),
		T(a_torn_tail_is_left_behind_on_its_own_line),
		T(a_ledger_that_cannot_be_written_costs_a_warning),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
