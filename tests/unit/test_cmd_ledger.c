/*
 * test_cmd_ledger.c - `roz ledger verify` through the real binary, in
 * throwaway repositories: what a person reads, the JSON a script reads,
 * GitHub annotations, the exit status with and without --strict, where
 * the ledger is looked for, paths that leave the repository, --since by
 * the ledger a revision held (after a rebase and a squash merge), renames
 * a person made with git, removals, acceptances and other tools' records,
 * and usage mistakes. Ledgers are written by hand.
 */
#include "support.h"

#include "roz/digest.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct repo {
	char *dir;   /* holds the repository and what lies outside it */
	char *root;  /* <dir>/repo, with a .git */
	char *ledger;
} repo;

static void repo_make(repo *r)
{
	char *git;

	r->dir = t_mkdtemp();
	r->root = t_sprintf("%s/repo", r->dir);
	git = t_sprintf("%s/.git/HEAD", r->root);
	t_write_file(git, "ref: refs/heads/main\n");
	r->ledger = t_sprintf("%s/.orchestration/agent_trace.jsonl", r->root);
	free(git);
}

static void repo_dispose(repo *r)
{
	t_rmtree(r->dir);
	free(r->dir);
	free(r->root);
	free(r->ledger);
}

static void repo_file(const repo *r, const char *path, const char *text)
{
	char *full = t_sprintf("%s/%s", r->root, path);

	t_write_file(full, text);
	free(full);
}

/* One record line for one range of `path` whose lines were `lines`. Caller frees. */
static char *rec(const char *id, const char *rev, const char *path, unsigned long start, unsigned long end,
		 const char *lines)
{
	char hex[ROZ_SHA256_HEX_SIZE];
	char *vcs = rev ? t_sprintf("\"vcs\":{\"type\":\"git\",\"revision\":\"%s\"},", rev) : t_sprintf("%s", "");
	char *line;

	roz_digest_sha256_hex(lines, strlen(lines), hex);
	line = t_sprintf("{\"version\":\"0.1\",\"id\":\"%s\",\"timestamp\":\"2026-01-01T00:00:00Z\",%s"
			 "\"tool\":{\"name\":\"roz\",\"version\":\"0.2.0\"},\"files\":[{\"path\":\"%s\","
			 "\"conversations\":[{\"url\":\"urn:claude-code:session:s1\",\"contributor\":{\"type\":\"ai\"},"
			 "\"ranges\":[{\"start_line\":%lu,\"end_line\":%lu,\"content_hash\":\"sha256:%s\"}]}]}],"
			 "\"metadata\":{\"roz\":{\"intent_id\":\"INT-001\",\"mutation_class\":\"INTENT_EVOLUTION\","
			 "\"session_id\":\"s1\",\"tool_name\":\"Write\"}}}\n",
			 id, vcs, path, start, end, hex);
	free(vcs);
	return line;
}

/* Write the ledger from record lines (each freed), NULL-terminated. */
static void write_ledger(const repo *r, ...)
{
	va_list ap;
	char *all = t_sprintf("%s", ""), *s;

	va_start(ap, r);
	while ((s = va_arg(ap, char *))) {
		char *next = t_sprintf("%s%s", all, s);

		free(all);
		free(s);
		all = next;
	}
	va_end(ap);
	t_write_file(r->ledger, all);
	free(all);
}

/* roz <args> run from `dir` (the repository's root when NULL). */
static t_run run_in(const repo *r, const char *dir, const char *const *argv)
{
	static const char *const env[] = {"NO_COLOR=1", NULL};
	char old[4096];
	t_run out;

	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(dir ? dir : r->root), 0);
	t_run_roz(&out, NULL, env, argv);
	assert_int_equal(chdir(old), 0);
	return out;
}

static void expect_out(const t_run *t, const char *needle)
{
	if (!strstr(t->out, needle))
		fail_msg("stdout lacks '%s':\n%s\nstderr:\n%s", needle, t->out, t->err);
}

static const char *const verify_argv[] = {"ledger", "verify", NULL};
static const char *const strict_argv[] = {"ledger", "verify", "--strict", NULL};
static const char *const json_argv[] = {"ledger", "verify", "--json", NULL};

static const char summary_intact[] = "1 range in 1 record: 1 intact, 0 moved, 0 edited, 0 missing, 0 unverifiable, "
				     "0 removed, 0 accepted, 0 superseded; 0 lines not records\n";

/* ---- tests ------------------------------------------------------------------- */

static void test_all_intact_passes_quietly(void **state)
{
	(void)state;
	repo r;
	t_run t;

	repo_make(&r);
	repo_file(&r, "src/a.c", "one\ntwo\n");
	write_ledger(&r, rec("0a1b2c3d-aaaa-4bbb-8ccc-000000000001", NULL, "src/a.c", 1, 2, "one\ntwo"), NULL);
	t = run_in(&r, NULL, verify_argv);
	assert_int_equal(t.status, 0);
	assert_string_equal(t.out, summary_intact);
	assert_string_equal(t.err, "");
	t_run_dispose(&t);
	repo_dispose(&r);
}

/* A ledger with one range in each state, and lines that are not records. */
static void write_mixed(const repo *r)
{
	char *torn = rec("r9", NULL, "src/a.c", 1, 1, "one");

	torn[20] = '\0';
	repo_file(r, "src/a.c", "header\none\ntwo\n");
	repo_file(r, "src/b.c", "int x;\n");
	write_ledger(r, rec("0a1b2c3d-aaaa-4bbb-8ccc-000000000001", NULL, "src/a.c", 1, 2, "one\ntwo"), /* moved */
		     rec("r2", NULL, "src/b.c", 1, 1, "int y;"),        /* edited, then superseded by r4 */
		     rec("r3", NULL, "src/gone.c", 1, 1, "lost"),       /* missing */
		     rec("r4", NULL, "src/b.c", 1, 1, "int x;"),        /* intact */
		     t_sprintf("this is not json\n"), torn, NULL);
}

static void test_each_state_for_people(void **state)
{
	(void)state;
	repo r;
	t_run t;

	repo_make(&r);
	write_mixed(&r);
	t = run_in(&r, NULL, verify_argv);
	/* lines that are not records: the ledger is damaged, which fails */
	assert_int_equal(t.status, 1);
	expect_out(&t, "moved     src/a.c:1-2 -> src/a.c:2-3  record 0a1b2c3d, intent INT-001\n");
	expect_out(&t, "missing   src/gone.c:1  record r3, intent INT-001\n");
	expect_out(&t, "not a record  .orchestration/agent_trace.jsonl:5: ");
	expect_out(&t, "not a record  .orchestration/agent_trace.jsonl:6: torn last line");
	expect_out(&t, "4 ranges in 4 records: 1 intact, 1 moved, 0 edited, 1 missing, 0 unverifiable, 0 removed, "
		       "0 accepted, 1 superseded; 2 lines not records (failed)\n");
	/* superseded and intact ranges are counted, not listed */
	assert_null(strstr(t.out, "record r2"));
	assert_null(strstr(t.out, "record r4"));
	assert_null(strstr(t.out, "\x1b["));
	t_run_dispose(&t);

	/* --all lists them too */
	{
		const char *all[] = {"ledger", "verify", "--all", NULL};

		t = run_in(&r, NULL, all);
		expect_out(&t, "superseded  src/b.c:1  record r2, intent INT-001\n");
		expect_out(&t, "intact    src/b.c:1  record r4, intent INT-001\n");
		t_run_dispose(&t);
	}
	repo_dispose(&r);
}

/* What fails the gate: a damaged ledger or an unreadable file; edited and missing only with --strict. */
static void test_exit_status_and_strict(void **state)
{
	(void)state;
	repo r;
	t_run t;

	repo_make(&r);
	repo_file(&r, "src/a.c", "one\nTWO by a person\nthree\n");
	write_ledger(&r, rec("r1", NULL, "src/a.c", 1, 3, "one\ntwo\nthree"), rec("r2", NULL, "src/gone.c", 1, 1, "x"),
		     NULL);
	t = run_in(&r, NULL, verify_argv);
	assert_int_equal(t.status, 0);
	expect_out(&t, "edited    src/a.c:1-3  edited by a person since record r1, intent INT-001\n");
	expect_out(&t, "missing   src/gone.c:1  record r2, intent INT-001\n");
	expect_out(&t, "2 ranges in 2 records: 0 intact, 0 moved, 1 edited, 1 missing, 0 unverifiable, 0 removed, "
		       "0 accepted, 0 superseded; 0 lines not records\n");
	assert_string_equal(t.err, "");
	t_run_dispose(&t);
	t = run_in(&r, NULL, strict_argv);
	assert_int_equal(t.status, 1);
	expect_out(&t, "0 lines not records (failed, --strict)\n");
	t_run_dispose(&t);

	/* only edited, then only missing: each fails under --strict on its own */
	write_ledger(&r, rec("r1", NULL, "src/a.c", 1, 3, "one\ntwo\nthree"), NULL);
	t = run_in(&r, NULL, strict_argv);
	assert_int_equal(t.status, 1);
	t_run_dispose(&t);
	write_ledger(&r, rec("r2", NULL, "src/gone.c", 1, 1, "x"), NULL);
	t = run_in(&r, NULL, strict_argv);
	assert_int_equal(t.status, 1);
	t_run_dispose(&t);

	/* a bad line fails without --strict */
	write_ledger(&r, rec("r3", NULL, "src/a.c", 1, 1, "one"), t_sprintf("{\"broken\n"), NULL);
	t = run_in(&r, NULL, verify_argv);
	assert_int_equal(t.status, 1);
	expect_out(&t, "1 intact");
	t_run_dispose(&t);

	/* a file that cannot be read fails without --strict */
	write_ledger(&r, rec("r4", NULL, "src", 1, 1, "one"), NULL);
	t = run_in(&r, NULL, verify_argv);
	assert_int_equal(t.status, 1);
	expect_out(&t, "missing   src:1  record r4, intent INT-001 (");
	expect_out(&t, "; 1 unreadable (failed)\n");
	t_run_dispose(&t);
	repo_dispose(&r);
}

static void test_json(void **state)
{
	(void)state;
	repo r;
	t_run t;
	cJSON *doc, *sum, *items, *bad, *moved;
	const char *all[] = {"ledger", "verify", "--format", "json", "--all", NULL};

	repo_make(&r);
	write_mixed(&r);
	t = run_in(&r, NULL, json_argv);
	assert_int_equal(t.status, 1);
	doc = cJSON_Parse(t.out);
	assert_non_null(doc);
	sum = cJSON_GetObjectItem(doc, "summary");
	items = cJSON_GetObjectItem(doc, "items");
	bad = cJSON_GetObjectItem(doc, "bad_lines");
	assert_int_equal(cJSON_GetObjectItem(sum, "ranges")->valueint, 4);
	assert_int_equal(cJSON_GetObjectItem(sum, "records")->valueint, 4);
	assert_int_equal(cJSON_GetObjectItem(sum, "intact")->valueint, 1);
	assert_int_equal(cJSON_GetObjectItem(sum, "moved")->valueint, 1);
	assert_int_equal(cJSON_GetObjectItem(sum, "edited")->valueint, 0);
	assert_int_equal(cJSON_GetObjectItem(sum, "missing")->valueint, 1);
	assert_int_equal(cJSON_GetObjectItem(sum, "removed")->valueint, 0);
	assert_int_equal(cJSON_GetObjectItem(sum, "accepted")->valueint, 0);
	assert_int_equal(cJSON_GetObjectItem(sum, "unverifiable")->valueint, 0);
	assert_int_equal(cJSON_GetObjectItem(sum, "superseded")->valueint, 1);
	assert_int_equal(cJSON_GetObjectItem(sum, "bad_lines")->valueint, 2);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(sum, "passed")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(sum, "strict")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(sum, "since")));
	/* by default only what is not intact or superseded */
	assert_int_equal(cJSON_GetArraySize(items), 2);
	moved = cJSON_GetObjectItem(cJSON_GetArrayItem(items, 0), "moved_to");
	assert_string_equal(cJSON_GetObjectItem(moved, "path")->valuestring, "src/a.c");
	assert_int_equal(cJSON_GetObjectItem(moved, "start_line")->valueint, 2);
	assert_int_equal(cJSON_GetObjectItem(moved, "end_line")->valueint, 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 0), "intent_id")->valuestring, "INT-001");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 0), "record_id")->valuestring,
			    "0a1b2c3d-aaaa-4bbb-8ccc-000000000001");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 1), "state")->valuestring, "missing");
	assert_int_equal(cJSON_GetArraySize(bad), 2);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(bad, 0), "line")->valueint, 5);
	cJSON_Delete(doc);
	t_run_dispose(&t);

	/* --all: every range, intact and superseded too, in ledger order */
	t = run_in(&r, NULL, all);
	assert_non_null(doc = cJSON_Parse(t.out));
	items = cJSON_GetObjectItem(doc, "items");
	assert_int_equal(cJSON_GetArraySize(items), 4);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 1), "state")->valuestring, "superseded");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 3), "state")->valuestring, "intact");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 3), "session_id")->valuestring, "s1");
	cJSON_Delete(doc);
	t_run_dispose(&t);
	repo_dispose(&r);
}

/* GitHub Actions workflow commands, one per reported range, escaped as GitHub documents. */
static void test_github_format(void **state)
{
	(void)state;
	const char *gh[] = {"ledger", "verify", "--format", "github", NULL};
	const char *gh_strict[] = {"ledger", "verify", "--format=github", "--strict", NULL};
	repo r;
	t_run t;

	repo_make(&r);
	repo_file(&r, "src/a,b:c.c", "new\none\n");
	repo_file(&r, "src/e.c", "changed\n");
	write_ledger(&r, rec("r1", NULL, "src/a,b:c.c", 1, 1, "one"), rec("r2", NULL, "src/e.c", 1, 1, "100%\nx"),
		     rec("r3", NULL, "src/gone.c", 2, 3, "a\nb"), t_sprintf("this is not json\n"), NULL);
	t = run_in(&r, NULL, gh);
	assert_int_equal(t.status, 1);
	assert_string_equal(
		t.out,
		"::notice file=src/a%2Cb%3Ac.c,line=1,endLine=1,title=roz ledger::moved to src/a,b:c.c:2-2, record r1 "
		"(intent INT-001)\n"
		"::warning file=src/e.c,line=1,endLine=1,title=roz ledger::edited by a person since record r2 "
		"(intent INT-001)\n"
		"::warning file=src/gone.c,line=2,endLine=3,title=roz ledger::the file is gone, with no record of its "
		"removal, record r3 (intent INT-001)\n"
		"::error file=.orchestration/agent_trace.jsonl,line=4,title=roz ledger::not a record: not an Agent "
		"Trace record: not JSON: 0: unexpected character\n"
		"3 ranges in 3 records: 0 intact, 1 moved, 1 edited, 1 missing, 0 unverifiable, 0 removed, 0 accepted, "
		"0 superseded; 1 line not records (failed)\n");
	t_run_dispose(&t);
	/* under --strict, edited and missing are errors; a message's "%" and line breaks are escaped */
	write_ledger(&r, rec("r2%\\n", NULL, "src/e.c", 1, 1, "x"), NULL);
	t = run_in(&r, NULL, gh_strict);
	assert_int_equal(t.status, 1);
	expect_out(&t, "::error file=src/e.c,line=1,endLine=1,title=roz ledger::edited by a person since record "
		       "r2%25%0A (intent INT-001)\n");
	t_run_dispose(&t);
	repo_dispose(&r);
}

/* The states a later record decides: removed, accepted; and another tool's ranges, unverifiable. */
static void test_removed_accepted_unverifiable(void **state)
{
	(void)state;
	repo r;
	t_run t;
	char hex[ROZ_SHA256_HEX_SIZE];

	repo_make(&r);
	repo_file(&r, "src/kept.c", "a person's now\n");
	repo_file(&r, "src/other.c", "whatever\n");
	roz_digest_sha256_hex("x", 1, hex);
	write_ledger(
		&r, rec("r1", NULL, "src/old.c", 1, 1, "x"), rec("r2", NULL, "src/kept.c", 1, 1, "x"),
		/* the agent removed src/old.c: recorded with metadata.roz.removed */
		t_sprintf("{\"version\":\"0.1.0\",\"id\":\"r3\",\"timestamp\":\"2026-01-02T00:00:00Z\",\"files\":[{\"path\":"
			  "\"src/old.c\",\"conversations\":[{\"contributor\":{\"type\":\"ai\"}}]}],\"metadata\":{\"roz\":"
			  "{\"intent_id\":\"INT-001\",\"session_id\":\"s1\",\"tool_name\":\"Bash\",\"removed\":"
			  "[\"src/old.c\"]}}}\n"),
		/* a person accepted src/kept.c as it is */
		t_sprintf("{\"version\":\"0.1.0\",\"id\":\"r4\",\"timestamp\":\"2026-01-03T00:00:00Z\",\"files\":[{\"path\":"
			  "\"src/kept.c\",\"conversations\":[{\"contributor\":{\"type\":\"human\"},\"ranges\":[{\"start_"
			  "line\":1,\"end_line\":1}]}]}],\"metadata\":{\"roz\":{\"action\":\"accept\",\"session_id\":"
			  "null,\"tool_name\":\"roz ledger accept\"}}}\n"),
		/* another tool: no content_hash, and an algorithm roz does not know */
		t_sprintf("{\"version\":\"0.1.0\",\"id\":\"t1\",\"timestamp\":\"2026-01-04T00:00:00Z\",\"tool\":{\"name\":"
			  "\"other\"},\"files\":[{\"path\":\"src/other.c\",\"conversations\":[{\"contributor\":{\"type\":"
			  "\"ai\"},\"ranges\":[{\"start_line\":1,\"end_line\":1},{\"start_line\":3,\"end_line\":4,"
			  "\"content_hash\":\"murmur3:9e1c2a\"}]}]}]}\n"),
		NULL);
	t = run_in(&r, NULL, verify_argv);
	assert_int_equal(t.status, 0);
	expect_out(&t, "unverifiable  src/other.c:1  record t1, intent none (no SHA-256 to check it by)\n");
	expect_out(&t, "unverifiable  src/other.c:3-4  record t1, intent none (no SHA-256 to check it by)\n");
	expect_out(&t, "4 ranges in 5 records: 0 intact, 0 moved, 0 edited, 0 missing, 2 unverifiable, 1 removed, "
		       "1 accepted, 0 superseded; 0 lines not records\n");
	/* removed and accepted are counted, not listed */
	assert_null(strstr(t.out, "record r1"));
	assert_null(strstr(t.out, "record r2"));
	t_run_dispose(&t);
	t = run_in(&r, NULL, strict_argv);
	assert_int_equal(t.status, 0);
	t_run_dispose(&t);
	(void)hex;
	repo_dispose(&r);
}

/* The repository is found from below its root; no ledger is a failure that says so. */
static void test_where_the_ledger_is(void **state)
{
	(void)state;
	repo r;
	t_run t;
	char *sub;

	repo_make(&r);
	repo_file(&r, "src/deep/a.c", "one\n");
	sub = t_sprintf("%s/src/deep", r.root);
	t = run_in(&r, sub, verify_argv);
	assert_int_equal(t.status, 1);
	assert_string_equal(t.out, "");
	assert_non_null(strstr(t.err, "no ledger at "));
	assert_non_null(strstr(t.err, "repo/.orchestration/agent_trace.jsonl: nothing has been recorded"));
	t_run_dispose(&t);

	write_ledger(&r, rec("r1", NULL, "src/deep/a.c", 1, 1, "one"), NULL);
	t = run_in(&r, sub, verify_argv);
	assert_int_equal(t.status, 0);
	expect_out(&t, "1 intact");
	t_run_dispose(&t);

	/* an empty ledger has nothing to fail */
	write_ledger(&r, NULL);
	t = run_in(&r, sub, verify_argv);
	assert_int_equal(t.status, 0);
	expect_out(&t, "0 ranges in 0 records");
	t_run_dispose(&t);
	free(sub);
	repo_dispose(&r);
}

/* Paths that leave the repository are not read: missing, with why, even when the file is there. */
static void test_paths_outside_are_not_read(void **state)
{
	(void)state;
	repo r;
	t_run t;
	char *outside, *abs_path;

	repo_make(&r);
	outside = t_sprintf("%s/secret.txt", r.dir);
	t_write_file(outside, "secret\n");
	abs_path = t_sprintf("%s", outside);
	write_ledger(&r, rec("r1", NULL, "../secret.txt", 1, 1, "secret"),
		     rec("r2", NULL, abs_path, 1, 1, "secret"), rec("r3", NULL, "src/../../secret.txt", 1, 1, "secret"),
		     NULL);
	t = run_in(&r, NULL, verify_argv);
	assert_int_equal(t.status, 1);
	expect_out(&t, "missing   ../secret.txt:1  record r1, intent INT-001 (not read: the path leaves the "
		       "repository (\"..\"))\n");
	expect_out(&t, "record r2, intent INT-001 (not read: an absolute path, outside the repository)\n");
	expect_out(&t, "3 ranges in 3 records: 0 intact, 0 moved, 0 edited, 3 missing");
	t_run_dispose(&t);
	free(outside);
	free(abs_path);
	repo_dispose(&r);
}

/* --since a revision git does not know: the records from the first made at it. */
static void test_since(void **state)
{
	(void)state;
	static const char rev[] = "0123456789abcdef0123456789abcdef01234567";
	const char *found[] = {"ledger", "verify", "--since", rev, NULL};
	const char *found_eq[] = {"ledger", "verify", "--json", "--since=0123456789abcdef0123456789abcdef01234567",
				  NULL};
	const char *unknown[] = {"ledger", "verify", "--since", "fedcba", NULL};
	repo r;
	t_run t;
	cJSON *doc;

	repo_make(&r);
	repo_file(&r, "a.c", "one\n");
	write_ledger(&r, rec("r1", "1111111111111111111111111111111111111111", "gone.c", 1, 1, "x"),
		     rec("r2", rev, "a.c", 1, 1, "one"), NULL);
	t = run_in(&r, NULL, verify_argv);
	assert_int_equal(t.status, 0);
	expect_out(&t, "missing   gone.c:1");
	t_run_dispose(&t);

	t = run_in(&r, NULL, found);
	assert_int_equal(t.status, 0);
	assert_null(strstr(t.out, "gone.c"));
	expect_out(&t, "Since 0123456789abcdef0123456789abcdef01234567: 1 range in 2 records: 1 intact");
	t_run_dispose(&t);

	t = run_in(&r, NULL, found_eq);
	assert_int_equal(t.status, 0);
	assert_non_null(doc = cJSON_Parse(t.out));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "summary"), "since")->valuestring, rev);
	cJSON_Delete(doc);
	t_run_dispose(&t);

	t = run_in(&r, NULL, unknown);
	assert_int_equal(t.status, 1);
	assert_string_equal(t.out, "");
	assert_non_null(strstr(t.err, "no record in "));
	assert_non_null(strstr(t.err, "was made at revision fedcba"));
	t_run_dispose(&t);
	repo_dispose(&r);
}

static void test_usage(void **state)
{
	(void)state;
	static const struct {
		const char *argv[5];
		const char *err;
	} cases[] = {
		{{"ledger", NULL}, "say what to do: verify"},
		{{"ledger", "check", NULL}, "unknown action 'check'"},
		{{"ledger", "verify", "--bogus", NULL}, "unexpected argument '--bogus'"},
		{{"ledger", "verify", "--since", NULL}, "--since needs a revision"},
		{{"ledger", "verify", "--since", "", NULL}, "--since needs a revision"},
		{{"ledger", "verify", "--format", NULL}, "--format needs human, json or github"},
		{{"ledger", "verify", "--format", "xml", NULL}, "unknown format 'xml'"},
	};
	const char *help[] = {"ledger", "--help", NULL};
	const char *verify_help[] = {"ledger", "verify", "-h", NULL};
	const char *top[] = {"--help", NULL};
	repo r;
	t_run t;

	repo_make(&r);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t = run_in(&r, NULL, cases[i].argv);
		assert_int_equal(t.status, 2);
		if (!strstr(t.err, cases[i].err) || !strstr(t.err, "Try 'roz ledger --help'."))
			fail_msg("case %zu: %s", i, t.err);
		t_run_dispose(&t);
	}
	t = run_in(&r, NULL, help);
	assert_int_equal(t.status, 0);
	expect_out(&t, "usage: roz ledger verify [--format human|json|github] [--json] [--all] [--strict]");
	expect_out(&t, "superseded");
	expect_out(&t, "--all        list every range, intact and superseded ones too");
	expect_out(&t, "Exit status: 0 nothing wrong");
	t_run_dispose(&t);
	t = run_in(&r, NULL, verify_help);
	assert_int_equal(t.status, 0);
	expect_out(&t, "usage: roz ledger verify");
	t_run_dispose(&t);
	t = run_in(&r, NULL, top);
	expect_out(&t, "  ledger    ");
	t_run_dispose(&t);
	repo_dispose(&r);
}

/* What a ledger quotes is shown safely: no terminal escape reaches the screen. */
static void test_paths_are_shown_safely(void **state)
{
	(void)state;
	repo r;
	t_run t;

	repo_make(&r);
	write_ledger(&r, rec("r1\\u001b[31m", NULL, "src/\\u001b]0;x\\u0007.c", 1, 1, "x"), NULL);
	t = run_in(&r, NULL, verify_argv);
	assert_int_equal(t.status, 0);
	assert_null(strstr(t.out, "\x1b"));
	assert_null(strstr(t.out, "\x07"));
	expect_out(&t, "missing   src/\\x1b]0;x\\x07.c:1  record r1\\x1b[3");
	t_run_dispose(&t);
	repo_dispose(&r);
}

/* ---- a team's git: branches that both recorded, merged and rebased -------------------- */

static void git_in(const char *dir, const char *cmd)
{
	char *c = t_sprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);

	if (system(c) != 0)
		fail_msg("in %s: `%s` failed", dir, cmd);
	free(c);
}

#define COMMIT "git -c user.email=t@e -c user.name=t commit -qm"

/* The agent writes `file` (`text`) in session `sid`: the file, then the PostToolUse that records it. */
static void agent_writes(const char *root, const char *const *env, const char *sid, const char *file, const char *text)
{
	static const char *const argv[] = {"hook", "post-tool-use", NULL};
	char *path = t_sprintf("%s/%s", root, file);
	char *in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"%s\",\"tool_name\":\"Write\","
			     "\"tool_input\":{\"file_path\":\"%s\",\"content\":\"%s\\n\"},"
			     "\"tool_response\":{\"type\":\"create\",\"filePath\":\"%s\"}}",
			     sid, root, path, text, path);
	char *content = t_sprintf("%s\n", text);
	t_run r;

	t_write_file(path, content);
	t_run_roz(&r, in, env, argv);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	free(content);
	free(in);
	free(path);
}

static size_t lines_of(const char *file)
{
	char *text = t_read_file(file, NULL);
	size_t n = 0;

	assert_non_null(text);
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

/*
 * Two branches each recorded a change; the ledger did not exist where they
 * parted. Merged, and rebased one onto the other, with nothing set up by
 * hand: no conflict on the ledger (roz wrote .orchestration/.gitattributes
 * beside its first record), both records kept, verify passes.
 */
static void test_branches_that_both_recorded_merge_and_rebase(void **state)
{
	char *dir = t_mkdtemp(), *home = t_sprintf("%s/home", dir), *root = t_sprintf("%s/repo", dir);
	char *e_home = t_sprintf("HOME=%s", home), *e_roz = t_sprintf("ROZ_HOME=%s", home);
	const char *env[] = {e_home, e_roz, "NO_COLOR=1", NULL};
	char *ledger = t_sprintf("%s/.orchestration/agent_trace.jsonl", root), *attrs, old[4096];
	t_run r;

	(void)state;
	git_in(dir, "mkdir home repo && cd repo && git init -q -b main && mkdir .orchestration && "
		    "echo keep > .orchestration/README && echo base > README && git add -A && " COMMIT " base");
	git_in(root, "git checkout -qb a");
	agent_writes(root, env, "sA", "a.txt", "alpha");
	git_in(root, "git add -A && " COMMIT " a && git checkout -q main && git checkout -qb b");
	agent_writes(root, env, "sB", "b.txt", "beta");
	git_in(root, "git add -A && " COMMIT " b && git checkout -qb c");
	/* roz's attributes, beside the ledger */
	attrs = t_sprintf("%s/.orchestration/.gitattributes", root);
	{
		char *text = t_read_file(attrs, NULL);

		assert_non_null(text);
		assert_non_null(strstr(text, "agent_trace.jsonl merge=union"));
		free(text);
	}
	/* merged: both records */
	git_in(root, "git checkout -q b && git -c user.email=t@e -c user.name=t merge -q --no-edit a");
	assert_int_equal(lines_of(ledger), 2);
	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(root), 0);
	{
		const char *argv[] = {"ledger", "verify", NULL};

		t_run_roz(&r, NULL, env, argv);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.out, "2 intact"));
		t_run_dispose(&r);
	}
	/* --since any revision git knows, or the start of a record's hash */
	{
		const char *by_branch[] = {"ledger", "verify", "--since", "main", NULL};
		const char *unknown[] = {"ledger", "verify", "--since", "0000000", NULL};
		char abbrev[16] = "";
		const char *by_abbrev[] = {"ledger", "verify", "--since", abbrev, NULL};
		FILE *p = popen("git rev-parse --short=7 main", "r");

		assert_non_null(p);
		assert_non_null(fgets(abbrev, sizeof abbrev, p));
		pclose(p);
		abbrev[strcspn(abbrev, "\n")] = '\0';
		t_run_roz(&r, NULL, env, by_branch);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.out, "2 intact"));
		t_run_dispose(&r);
		t_run_roz(&r, NULL, env, by_abbrev);
		assert_int_equal(r.status, 0);
		t_run_dispose(&r);
		t_run_roz(&r, NULL, env, unknown);
		assert_int_equal(r.status, 1);
		assert_non_null(strstr(r.err, "no record"));
		t_run_dispose(&r);
	}
	/* rebased: each replayed commit merges the ledger the same way */
	git_in(root, "git checkout -q c && git -c user.email=t@e -c user.name=t rebase -q a");
	assert_int_equal(lines_of(ledger), 2);
	{
		const char *argv[] = {"ledger", "verify", NULL};

		t_run_roz(&r, NULL, env, argv);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.out, "2 intact"));
		t_run_dispose(&r);
	}
	assert_int_equal(chdir(old), 0);
	t_rmtree(dir);
	free(attrs);
	free(ledger);
	free(e_home);
	free(e_roz);
	free(root);
	free(home);
	free(dir);
}

/* A person's own .orchestration/.gitattributes is left as it is. */
static void test_a_persons_attributes_are_left_alone(void **state)
{
	char *dir = t_mkdtemp(), *root = t_sprintf("%s/repo", dir), *home = t_sprintf("%s/home", dir);
	char *e_home = t_sprintf("HOME=%s", home), *e_roz = t_sprintf("ROZ_HOME=%s", home), *attrs, *text;
	const char *env[] = {e_home, e_roz, NULL};

	(void)state;
	git_in(dir, "mkdir home repo && cd repo && git init -q -b main && mkdir .orchestration && "
		    "echo '*.md text' > .orchestration/.gitattributes");
	agent_writes(root, env, "sA", "a.txt", "alpha");
	attrs = t_sprintf("%s/.orchestration/.gitattributes", root);
	text = t_read_file(attrs, NULL);
	assert_string_equal(text, "*.md text\n");
	free(text);
	free(attrs);
	t_rmtree(dir);
	free(e_home);
	free(e_roz);
	free(root);
	free(home);
	free(dir);
}

/* ---- renames and --since in a real git repository ----------------------------------- */

/* `git rev-parse <what>` in dir. Caller frees. */
static char *git_rev(const char *dir, const char *what)
{
	char *cmd = t_sprintf("git -C '%s' rev-parse %s", dir, what), buf[128] = "";
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	assert_non_null(fgets(buf, sizeof buf, p));
	pclose(p);
	free(cmd);
	buf[strcspn(buf, "\n")] = '\0';
	return t_sprintf("%s", buf);
}

/* Append a record line to the ledger file of the repository at root. */
static void append_record(const char *root, char *line)
{
	char *path = t_sprintf("%s/.orchestration/agent_trace.jsonl", root), *old = t_read_file(path, NULL);
	char *all = t_sprintf("%s%s", old ? old : "", line);

	t_write_file(path, all);
	free(all);
	free(old);
	free(path);
	free(line);
}

static t_run roz_at(const char *root, const char *const *argv)
{
	static const char *const env[] = {"NO_COLOR=1", NULL};
	char old[4096];
	t_run out;

	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(root), 0);
	t_run_roz(&out, NULL, env, argv);
	assert_int_equal(chdir(old), 0);
	return out;
}

/*
 * A person renames the agent's file with git: committed, then again staged
 * only. verify follows the renames (a -> b -> c) and finds the lines moved,
 * exit 0; a file gone with no rename stays missing.
 */
static void test_renames_by_a_person_are_followed(void **state)
{
	char *dir = t_mkdtemp(), *root = t_sprintf("%s/repo", dir), *head;
	t_run t;

	(void)state;
	git_in(dir, "mkdir repo && cd repo && git init -q -b main && mkdir -p .orchestration src && "
		    "echo base > README && git add -A && " COMMIT " base");
	head = git_rev(root, "HEAD");
	{
		char *path = t_sprintf("%s/src/a.c", root);

		t_write_file(path, "int a;\nint b;\n");
		free(path);
	}
	append_record(root, rec("r1", head, "src/a.c", 1, 2, "int a;\nint b;"));
	git_in(root, "git add -A && " COMMIT " agent && git mv src/a.c src/b.c && " COMMIT " renamed");
	{
		const char *argv[] = {"ledger", "verify", NULL};

		t = roz_at(root, argv);
		assert_int_equal(t.status, 0);
		expect_out(&t, "moved     src/a.c:1-2 -> src/b.c:1-2  record r1, intent INT-001\n");
		t_run_dispose(&t);
		/* staged only, on top: the chain a -> b -> c */
		git_in(root, "git mv src/b.c src/c.c");
		t = roz_at(root, argv);
		assert_int_equal(t.status, 0);
		expect_out(&t, "moved     src/a.c:1-2 -> src/c.c:1-2  record r1, intent INT-001\n");
		t_run_dispose(&t);
		/* and edited after the rename: the lines are nowhere */
		git_in(root, "printf 'int a;\\nint z;\\n' > src/c.c");
		t = roz_at(root, argv);
		assert_int_equal(t.status, 0);
		expect_out(&t, "edited    src/a.c:1-2  edited by a person since record r1");
		t_run_dispose(&t);
		/* gone, not renamed */
		git_in(root, "git rm -qf src/c.c");
		t = roz_at(root, argv);
		assert_int_equal(t.status, 0);
		expect_out(&t, "missing   src/a.c:1-2  record r1, intent INT-001\n");
		t_run_dispose(&t);
	}
	t_rmtree(dir);
	free(head);
	free(root);
	free(dir);
}

/*
 * --since REV checks the records REV's ledger did not hold: after a rebase
 * (the records' vcs.revision no longer on any branch) and after a squash
 * merge, by branch name and by abbreviated hash.
 */
static void test_since_survives_rebase_and_squash(void **state)
{
	char *dir = t_mkdtemp(), *root = t_sprintf("%s/repo", dir), *c1, *f1, *abbrev;
	t_run t;

	(void)state;
	git_in(dir, "mkdir repo && cd repo && git init -q -b main && mkdir -p .orchestration && "
		    "echo base > README && git add -A && " COMMIT " base");
	c1 = git_rev(root, "HEAD");
	git_in(root, "echo one > a.c");
	append_record(root, rec("r1", c1, "a.c", 1, 1, "one"));
	git_in(root, "git add -A && " COMMIT " r1 && git checkout -qb feature && echo f > f.txt && git add -A && "
		     COMMIT " f1");
	f1 = git_rev(root, "HEAD");
	git_in(root, "echo two > b.c");
	append_record(root, rec("r2", f1, "b.c", 1, 1, "two"));
	git_in(root, "git add -A && " COMMIT " r2 && git checkout -q main && echo o > other.txt && git add -A && "
		     COMMIT " other && git checkout -q feature && git -c user.email=t@e -c user.name=t rebase -q main");
	abbrev = git_rev(root, "--short=7 main");
	{
		const char *by_branch[] = {"ledger", "verify", "--since", "main", NULL};
		const char *by_abbrev[] = {"ledger", "verify", "--since", abbrev, NULL};
		const char *by_orphan[] = {"ledger", "verify", "--since", "HEAD~1", NULL};

		/* r2's revision f1 is no longer on any branch; main's ledger holds r1 only */
		t = roz_at(root, by_branch);
		assert_int_equal(t.status, 0);
		expect_out(&t, "Since main: 1 range in 2 records: 1 intact,");
		t_run_dispose(&t);
		t = roz_at(root, by_abbrev);
		assert_int_equal(t.status, 0);
		expect_out(&t, ": 1 range in 2 records: 1 intact,");
		t_run_dispose(&t);
		/* the commit before r2's (rebased f1) held no r2 either */
		t = roz_at(root, by_orphan);
		assert_int_equal(t.status, 0);
		expect_out(&t, "1 range in 2 records");
		t_run_dispose(&t);
	}
	/* squashed into main: since the main before it, r2 alone */
	git_in(root, "git checkout -q main && git merge -q --squash feature && " COMMIT " squashed");
	{
		const char *before[] = {"ledger", "verify", "--json", "--since", "main~1", NULL};
		const char *now[] = {"ledger", "verify", "--since", "main", NULL};
		cJSON *doc, *items;

		t = roz_at(root, before);
		assert_int_equal(t.status, 0);
		assert_non_null(doc = cJSON_Parse(t.out));
		assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "summary"), "ranges")->valueint, 1);
		items = cJSON_GetObjectItem(doc, "items");
		assert_int_equal(cJSON_GetArraySize(items), 0);
		cJSON_Delete(doc);
		t_run_dispose(&t);
		/* nothing since the tip */
		t = roz_at(root, now);
		assert_int_equal(t.status, 0);
		expect_out(&t, "Since main: 0 ranges in 2 records");
		t_run_dispose(&t);
	}
	/* a revision whose tree has no ledger: every record is since */
	{
		const char *first[] = {"ledger", "verify", "--since", c1, NULL};

		t = roz_at(root, first);
		assert_int_equal(t.status, 0);
		expect_out(&t, "2 ranges in 2 records: 2 intact");
		t_run_dispose(&t);
	}
	t_rmtree(dir);
	free(abbrev);
	free(c1);
	free(f1);
	free(root);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_intact_passes_quietly),
		cmocka_unit_test(test_each_state_for_people),
		cmocka_unit_test(test_exit_status_and_strict),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_github_format),
		cmocka_unit_test(test_removed_accepted_unverifiable),
		cmocka_unit_test(test_where_the_ledger_is),
		cmocka_unit_test(test_paths_outside_are_not_read),
		cmocka_unit_test(test_since),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_paths_are_shown_safely),
		cmocka_unit_test(test_branches_that_both_recorded_merge_and_rebase),
		cmocka_unit_test(test_a_persons_attributes_are_left_alone),
		cmocka_unit_test(test_renames_by_a_person_are_followed),
		cmocka_unit_test(test_since_survives_rebase_and_squash),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
