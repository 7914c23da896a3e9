/*
 * test_record.c - the runner's ledger step (src/runner/record.c): a write
 * that ran is one Agent Trace record in .orchestration/agent_trace.jsonl,
 * with the repository's revision, the session's intent and model and the
 * hashes of the lines written; removals and renames recorded as what they
 * are, lines the agent rewrote as mixed, the model read from the
 * transcript when no hook names it, a submodule's file in the submodule's
 * own ledger; what is not the ledger's business is not recorded; and a
 * ledger that cannot be written costs a warning and a trace event, never
 * the agent's answer.
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

/* ---- removals, renames, rewrites, the model, nested repositories ------------------ */

static void sh(const char *dir, const char *cmd)
{
	char *c = t_sprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);

	if (system(c) != 0)
		fail_msg("in %s: `%s` failed", dir, cmd);
	free(c);
}

#define GIT "git -c user.email=t@e -c user.name=t -c commit.gpgsign=false -c init.defaultBranch=main"

/* The world's repository as git makes one, everything in it committed. */
static void real_git(world *w)
{
	char *dot_git = in_repo(w, ".git");

	t_rmtree(dot_git);
	free(dot_git);
	sh(w->repo, GIT " init -q && " GIT " add -A && " GIT " commit -qm base");
}

/* Without detection, a Bash line's append to a file git has claims the lines it added, not the file. */
static void a_bash_append_to_a_file_git_has_claims_its_lines(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;

	put(w, ".orchestration/README", "kept\n");
	put(w, "src/p.c", "a\nb\nc\n");
	real_git(w);
	/* what `echo d >> src/p.c && echo n > src/new.c` left */
	put(w, "src/p.c", "a\nb\nc\nd\n");
	put(w, "src/new.c", "n\n");
	expect_empty_answer(w, "post-tool-use",
			    "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo d >> src/p.c && echo n > src/new.c\"}");
	r = ledger(w, &n);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].nfiles, 2);
	assert_string_equal(r[0].files[0].path, "src/p.c");
	assert_int_equal(r[0].files[0].ranges.n, 1);
	assert_int_equal(r[0].files[0].ranges.items[0].start_line, 4);
	assert_int_equal(r[0].files[0].ranges.items[0].end_line, 4);
	/* a file git does not have is the line's whole */
	assert_string_equal(r[0].files[1].path, "src/new.c");
	assert_int_equal(r[0].files[1].ranges.n, 1);
	assert_int_equal(r[0].files[1].ranges.items[0].start_line, 1);
	assert_int_equal(r[0].files[1].ranges.items[0].end_line, 1);
	free_ledger(r, n);
}

/* The HEAD git names for the repository at `dir`. */
static char *head_of(const char *dir)
{
	char *c = t_sprintf("git -C '%s' rev-parse HEAD", dir), line[128] = "";
	FILE *p = popen(c, "r");

	assert_non_null(p);
	assert_non_null(fgets(line, sizeof line, p));
	pclose(p);
	free(c);
	line[strcspn(line, "\n")] = '\0';
	return t_sprintf("%s", line);
}

static void bash(world *w, const char *event, const char *command)
{
	char *f = t_sprintf("\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"%s\"}", command);

	expect_empty_answer(w, event, f);
	free(f);
}

static void detection_records_a_removal_and_a_rename_as_what_they_are(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;
	char want[ROZ_SHA256_HEX_SIZE];

	put(w, ".orchestration/active_intents.yaml",
	    "active_intents:\n  - id: INT-7\n    name: Seven\n    status: IN_PROGRESS\n    owned_scope: [\"src/**\"]\n");
	put(w, "src/old.c", "old\n");
	put(w, "src/was.c", "w1\nw2\n");
	real_git(w);
	bash(w, "pre-tool-use", "roz intent select INT-7");
	/* a script the line does not show the effects of: only detection sees them */
	bash(w, "pre-tool-use", "python3 tidy.py");
	sh(w->repo, "rm src/old.c && mv src/was.c src/now.c");
	bash(w, "post-tool-use", "python3 tidy.py");
	r = ledger(w, &n);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].tool_name, "Bash");
	assert_string_equal(r[0].intent_id, "INT-7");
	assert_int_equal(r[0].nfiles, 2);
	/* the renamed file under its new name, its whole content the call's, and where it came from */
	assert_string_equal(r[0].files[0].path, "src/now.c");
	assert_string_equal(r[0].files[0].from, "src/was.c");
	assert_false(r[0].files[0].removed);
	assert_int_equal(r[0].files[0].ranges.n, 1);
	assert_int_equal(r[0].files[0].ranges.items[0].start_line, 1);
	assert_int_equal(r[0].files[0].ranges.items[0].end_line, 2);
	roz_digest_sha256_hex("w1\nw2", 5, want);
	assert_string_equal(r[0].files[0].ranges.items[0].hash, want);
	/* the removed one, with nothing left to attribute */
	assert_string_equal(r[0].files[1].path, "src/old.c");
	assert_true(r[0].files[1].removed);
	assert_null(r[0].files[1].from);
	assert_int_equal(r[0].files[1].ranges.n, 0);
	free_ledger(r, n);
}

static void a_bash_removal_is_recorded_when_the_file_was_there(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;

	/* a ledger but no intents: no detection, only what the line says */
	put(w, ".orchestration/CLAUDE.md", "- lessons\n");
	put(w, "src/tracked.c", "t\n");
	put(w, "src/staged.c", "s\n");
	real_git(w);
	sh(w->repo, "git rm -q src/staged.c");
	put(w, "src/untracked.c", "u\n");
	sh(w->repo, "rm src/tracked.c src/untracked.c");
	bash(w, "post-tool-use", "rm -f src/tracked.c src/untracked.c src/never.c && git rm -q src/staged.c");
	r = ledger(w, &n);
	assert_int_equal(n, 1);
	/*
	 * what git had (in HEAD, or in the index) is gone: removed; a file git never had, or that never
	 * was, is not claimed
	 */
	assert_int_equal(r[0].nfiles, 2);
	assert_string_equal(r[0].files[0].path, "src/tracked.c");
	assert_true(r[0].files[0].removed);
	assert_string_equal(r[0].files[1].path, "src/staged.c");
	assert_true(r[0].files[1].removed);
	free_ledger(r, n);
	/* a file still there after `rm` (it failed) is neither removed nor written */
	put(w, "src/kept.c", "k\n");
	bash(w, "post-tool-use", "rm src/kept.c || true");
	r = ledger(w, &n);
	assert_int_equal(n, 1);
	free_ledger(r, n);
	/* `mv`: the file it made is written, the one it took away removed */
	sh(w->repo, GIT " add -A && " GIT " commit -qm more && mv src/kept.c src/moved.c");
	bash(w, "post-tool-use", "mv src/kept.c src/moved.c");
	r = ledger(w, &n);
	assert_int_equal(n, 2);
	assert_int_equal(r[1].nfiles, 2);
	assert_string_equal(r[1].files[0].path, "src/moved.c");
	assert_false(r[1].files[0].removed);
	assert_int_equal(r[1].files[0].ranges.n, 1);
	assert_string_equal(r[1].files[1].path, "src/kept.c");
	assert_true(r[1].files[1].removed);
	free_ledger(r, n);
}

/* An Edit of src/a.c whose Claude Code patch is `hunk_lines` (newStart 1), the file then holding `after`. */
static void edited(world *w, const char *after, unsigned long new_lines, const char *hunk_lines)
{
	char *abs = in_repo(w, "src/a.c"), *f;

	put(w, "src/a.c", after);
	f = t_sprintf("\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"%s\",\"old_string\":\"x\","
		      "\"new_string\":\"y\"},\"tool_response\":{\"structuredPatch\":[{\"oldStart\":1,\"oldLines\":3,"
		      "\"newStart\":1,\"newLines\":%lu,\"lines\":[%s]}]}",
		      abs, new_lines, hunk_lines);
	expect_empty_answer(w, "post-tool-use", f);
	free(f);
	free(abs);
}

static void an_edit_that_rewrites_a_line_is_mixed_one_that_inserts_is_the_agents(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;

	put(w, ".orchestration/CLAUDE.md", "- lessons\n");
	/* a person's line "b" replaced */
	edited(w, "a\nB\nc\n", 3, "\" a\",\"-b\",\"+B\",\" c\"");
	/* a line inserted between two that stay */
	edited(w, "a\nB\nnew\nc\n", 4, "\" a\",\" B\",\"+new\",\" c\"");
	r = ledger(w, &n);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].files[0].ranges.n, 1);
	assert_int_equal(r[0].files[0].ranges.items[0].start_line, 2);
	assert_int_equal(r[0].files[0].ranges.items[0].who, ROZ_LEDGER_WHO_MIXED);
	assert_int_equal(r[1].files[0].ranges.n, 1);
	assert_int_equal(r[1].files[0].ranges.items[0].start_line, 3);
	assert_int_equal(r[1].files[0].ranges.items[0].who, ROZ_LEDGER_WHO_AI);
	free_ledger(r, n);
	{
		char *p = in_repo(w, ROZ_LEDGER_FILE), *text = t_read_file(p, NULL);

		/* as the file holds it: the rewritten range names its own contributor */
		assert_non_null(strstr(text, "\"contributor\":{\"type\":\"mixed\"}}]"));
		free(text);
		free(p);
	}
}

static void the_model_is_read_from_the_transcript_once(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	roz_session *s = NULL;
	size_t n;
	char *tp = t_sprintf("%s/transcript.jsonl", w->home), *fields, *abs = in_repo(w, "src/m.c");
	FILE *f;

	put(w, ".orchestration/CLAUDE.md", "- lessons\n");
	/* `claude -p`: no model at SessionStart or in the hook input; the transcript names it */
	f = fopen(tp, "w");
	assert_non_null(f);
	fprintf(f, "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-old-1\"}}\n");
	for (int i = 0; i < 3000; i++) /* 300 KiB of the conversation after it: past the tail read */
		fprintf(f, "{\"type\":\"user\",\"message\":{\"content\":\"%090d\"}}\n", i);
	fprintf(f, "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-opus-4-5-20251101\",\"content\":[]}}\n");
	fprintf(f, "{\"type\":\"assistant\",\"message\":{\"model\":\"<synthetic>\"}}\n");
	fprintf(f, "{\"type\":\"user\",\"message\":{\"content\":\"model assistant\"}}\n");
	assert_int_equal(fclose(f), 0);
	put(w, "src/m.c", "m\n");
	fields = t_sprintf("\"transcript_path\":\"%s\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"%s\"},"
			   "\"tool_response\":{\"type\":\"create\"}",
			   tp, abs);
	expect_empty_answer(w, "post-tool-use", fields);
	/* remembered: a transcript that says otherwise later is not read again */
	t_write_file(tp, "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-other-9\"}}\n");
	expect_empty_answer(w, "post-tool-use", fields);
	r = ledger(w, &n);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].model_id, "anthropic/claude-opus-4-5-20251101");
	assert_string_equal(r[1].model_id, "anthropic/claude-opus-4-5-20251101");
	free_ledger(r, n);
	assert_int_equal(roz_store_get(w->mem, SID, &s), ROZ_OK);
	assert_string_equal(s->gov.model, "claude-opus-4-5-20251101");
	roz_session_free(s);
	free(fields);
	free(abs);
	free(tp);
}

static void a_transcript_that_is_not_a_file_names_no_model(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;
	char *fifo = t_sprintf("%s/fifo", w->home), *fields, *abs = in_repo(w, "src/m.c");

	put(w, ".orchestration/CLAUDE.md", "- lessons\n");
	assert_int_equal(mkfifo(fifo, 0600), 0); /* a FIFO with no writer: reading it must not wait */
	put(w, "src/m.c", "m\n");
	fields = t_sprintf("\"transcript_path\":\"%s\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"%s\"}",
			   fifo, abs);
	expect_empty_answer(w, "post-tool-use", fields);
	r = ledger(w, &n);
	assert_int_equal(n, 1);
	assert_null(r[0].model_id);
	free_ledger(r, n);
	free(fields);
	free(abs);
	free(fifo);
}

static void a_submodules_file_is_recorded_in_the_submodules_ledger(void **state)
{
	world *w = *state;
	roz_ledger_rec *r;
	size_t n;
	char *lib = t_sprintf("%s/lib-origin", w->home), *plain = t_sprintf("%s/plain-origin", w->home);
	char *sub_root = in_repo(w, "lib"), *sub_ledger = in_repo(w, "lib/" ROZ_LEDGER_FILE), *head, *cmd;

	put(w, ".orchestration/CLAUDE.md", "- lessons\n");
	put(w, "README", "super\n");
	real_git(w);
	/* one submodule keeps a ledger of its own, the other does not */
	cmd = t_sprintf("mkdir -p '%s/.orchestration' '%s' && echo keep > '%s/.orchestration/README' && echo p > '%s/p' && "
			"cd '%s' && " GIT " init -q && " GIT " add -A && " GIT " commit -qm lib && cd '%s' && " GIT
			" init -q && " GIT " add -A && " GIT " commit -qm plain",
			lib, plain, lib, plain, lib, plain);
	sh(w->home, cmd);
	free(cmd);
	cmd = t_sprintf(GIT " -c protocol.file.allow=always submodule add -q '%s' lib && " GIT
			" -c protocol.file.allow=always submodule add -q '%s' plain",
			lib, plain);
	sh(w->repo, cmd);
	free(cmd);
	head = head_of(sub_root);
	wrote(w, "lib/src/x.c", "x1\nx2\n");
	wrote(w, "plain/y.c", "y\n");
	wrote(w, "src/z.c", "z\n");
	/* the superproject's ledger: the file of the submodule that keeps no ledger (the superproject governs it), and its own */
	r = ledger(w, &n);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].files[0].path, "plain/y.c");
	assert_string_equal(r[1].files[0].path, "src/z.c");
	free_ledger(r, n);
	/* the submodule's: its file, relative to it, at its own revision */
	{
		char *text = t_read_file(sub_ledger, NULL), *nl;
		roz_ledger_rec rec;

		assert_non_null(text);
		nl = strchr(text, '\n');
		assert_non_null(nl);
		assert_string_equal(nl + 1, ""); /* one record */
		assert_int_equal(roz_ledger_line_parse(text, (size_t)(nl - text), &rec), ROZ_OK);
		assert_int_equal(rec.nfiles, 1);
		assert_string_equal(rec.files[0].path, "src/x.c");
		assert_int_equal(rec.files[0].ranges.n, 1);
		assert_int_equal(rec.files[0].ranges.items[0].end_line, 2);
		assert_string_equal(rec.revision, head);
		roz_ledger_rec_dispose(&rec);
		free(text);
	}
	free(head);
	free(sub_ledger);
	free(sub_root);
	free(plain);
	free(lib);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(a_repository_without_orchestration_keeps_no_ledger),
		T(a_write_without_intents_is_recorded_with_none),
		T(a_governed_write_carries_the_intent_and_class),
		T(bash_records_the_files_it_visibly_wrote),
		T(a_bash_append_to_a_file_git_has_claims_its_lines),
		T(a_torn_tail_is_left_behind_on_its_own_line),
		T(a_ledger_that_cannot_be_written_costs_a_warning),
		T(detection_records_a_removal_and_a_rename_as_what_they_are),
		T(a_bash_removal_is_recorded_when_the_file_was_there),
		T(an_edit_that_rewrites_a_line_is_mixed_one_that_inserts_is_the_agents),
		T(the_model_is_read_from_the_transcript_once),
		T(a_transcript_that_is_not_a_file_names_no_model),
		T(a_submodules_file_is_recorded_in_the_submodules_ledger),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
