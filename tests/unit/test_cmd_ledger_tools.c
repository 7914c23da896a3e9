/*
 * test_cmd_ledger_tools.c - `roz ledger blame`, `roz ledger accept` and
 * `roz ledger compact` through the real binary, in throwaway repositories:
 * what a person reads, the JSON a script reads, exit statuses, paths
 * outside the repository, what lands in the ledger and the archive, and a
 * writer appending while the ledger is compacted. Ledgers are written by
 * hand, hashes computed here.
 */
#include "support.h"

#include "roz/append.h"
#include "roz/digest.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct repo {
	char *dir;   /* holds the repository and what lies outside it */
	char *root;  /* <dir>/repo, with a .git */
	char *ledger;
	char *home;  /* an empty home: no git identity of the caller's leaks in */
} repo;

static void repo_make(repo *r)
{
	char *git;

	r->dir = t_mkdtemp();
	r->root = t_sprintf("%s/repo", r->dir);
	r->home = t_sprintf("%s/home", r->dir);
	git = t_sprintf("%s/.git/HEAD", r->root);
	t_write_file(git, "ref: refs/heads/main\n");
	free(git);
	git = t_sprintf("%s/.keep", r->home);
	t_write_file(git, "");
	free(git);
	r->ledger = t_sprintf("%s/.orchestration/agent_trace.jsonl", r->root);
}

static void repo_dispose(repo *r)
{
	t_rmtree(r->dir);
	free(r->dir);
	free(r->root);
	free(r->ledger);
	free(r->home);
}

static void repo_file(const repo *r, const char *path, const char *text)
{
	char *full = t_sprintf("%s/%s", r->root, path);

	t_write_file(full, text);
	free(full);
}

static char *repo_read(const repo *r, const char *path)
{
	char *full = t_sprintf("%s/%s", r->root, path), *text = t_read_file(full, NULL);

	free(full);
	return text;
}

/* One record of one range of `path`, the range's lines `lines`, at time ts. Caller frees. */
static char *rec(const char *id, const char *ts, const char *path, unsigned long start, unsigned long end,
		 const char *lines)
{
	char hex[ROZ_SHA256_HEX_SIZE];

	roz_digest_sha256_hex(lines, strlen(lines), hex);
	return t_sprintf("{\"version\":\"0.1.0\",\"id\":\"%s\",\"timestamp\":\"%s\","
			 "\"tool\":{\"name\":\"roz\",\"version\":\"0.2.0\"},\"files\":[{\"path\":\"%s\","
			 "\"conversations\":[{\"url\":\"urn:claude-code:session:s1\",\"contributor\":{\"type\":\"ai\","
			 "\"model_id\":\"anthropic/claude-test\"},"
			 "\"ranges\":[{\"start_line\":%lu,\"end_line\":%lu,\"content_hash\":\"sha256:%s\"}]}]}],"
			 "\"metadata\":{\"roz\":{\"intent_id\":\"INT-001\",\"mutation_class\":\"INTENT_EVOLUTION\","
			 "\"session_id\":\"s1\",\"tool_name\":\"Edit\"}}}\n",
			 id, ts, path, start, end, hex);
}

/* Write the ledger from lines (each freed), NULL-terminated. */
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
	char *home = t_sprintf("HOME=%s", r->home);
	const char *const env[] = {"NO_COLOR=1", "TZ=UTC", "USER=tester", "GIT_CONFIG_NOSYSTEM=1", home, NULL};
	char old[4096];
	t_run out;

	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(dir ? dir : r->root), 0);
	t_run_roz(&out, NULL, env, argv);
	assert_int_equal(chdir(old), 0);
	free(home);
	return out;
}

static void expect_in(const char *what, const char *text, const char *needle)
{
	if (!text || !strstr(text, needle))
		fail_msg("%s lacks '%s':\n%s", what, needle, text ? text : "(nothing)");
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (const char *p = text; p && *p; p++)
		n += *p == '\n';
	return n;
}

#define ID_A "aaaaaaaa-0000-4000-8000-000000000001"
#define ID_B "bbbbbbbb-0000-4000-8000-000000000002"
#define ID_C "cccccccc-0000-4000-8000-000000000003"
#define ID_D "dddddddd-0000-4000-8000-000000000004"

/* ---- blame ------------------------------------------------------------------ */

static void test_blame_for_people(void **state)
{
	static const char *const argv[] = {"ledger", "blame", "src/a.c", NULL};
	repo r;
	t_run t;

	(void)state;
	repo_make(&r);
	repo_file(&r, "src/a.c", "one\ntwo\nthree\nfour\n");
	write_ledger(&r, rec(ID_A, "2026-10-01T10:00:00Z", "src/a.c", 1, 4, "one\ntwo\nthree\nfour"),
		     rec(ID_B, "2026-10-02T10:00:00Z", "src/a.c", 4, 4, "FOUR"),
		     rec(ID_C, "2026-10-03T10:00:00Z", "src/a.c", 2, 2, "two"), NULL);
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 0);
	assert_string_equal(t.err, "");
	/* a was taken over by b and c; c's line is where it was put, b's was changed since */
	expect_in("stdout", t.out, "-------- (not recorded) 1) one\n");
	expect_in("stdout", t.out, "cccccccc INT-001 2026-10-03 Edit anthropic/claude-test 2) two\n");
	expect_in("stdout", t.out, "-------- (not recorded) 3) three\n");
	expect_in("stdout", t.out, "bbbbbbbb INT-001 2026-10-02 Edit anthropic/claude-test (edited since) 4) four\n");
	assert_int_equal(count_lines(t.out), 4);
	t_run_dispose(&t);
	repo_dispose(&r);
}

static void test_blame_json_and_moved_lines(void **state)
{
	static const char *const argv[] = {"ledger", "blame", "--json", "a.c", NULL};
	repo r;
	t_run t;
	cJSON *doc, *lines, *l;
	char *sub;

	(void)state;
	repo_make(&r);
	repo_file(&r, "src/a.c", "new\nkept\n");
	write_ledger(&r, rec(ID_A, "2026-10-01T10:00:00Z", "src/a.c", 1, 1, "kept"), NULL);
	/* run from src/, FILE relative to it */
	sub = t_sprintf("%s/src", r.root);
	t = run_in(&r, sub, argv);
	assert_int_equal(t.status, 0);
	doc = cJSON_Parse(t.out);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "path")->valuestring, "src/a.c");
	lines = cJSON_GetObjectItem(doc, "lines");
	assert_int_equal(cJSON_GetArraySize(lines), 2);
	l = cJSON_GetArrayItem(lines, 0);
	assert_string_equal(cJSON_GetObjectItem(l, "state")->valuestring, "none");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(l, "record_id")));
	l = cJSON_GetArrayItem(lines, 1);
	assert_int_equal(cJSON_GetObjectItem(l, "line")->valueint, 2);
	assert_string_equal(cJSON_GetObjectItem(l, "state")->valuestring, "moved");
	assert_string_equal(cJSON_GetObjectItem(l, "record_id")->valuestring, ID_A);
	assert_string_equal(cJSON_GetObjectItem(l, "intent_id")->valuestring, "INT-001");
	assert_string_equal(cJSON_GetObjectItem(l, "session_id")->valuestring, "s1");
	assert_string_equal(cJSON_GetObjectItem(l, "model_id")->valuestring, "anthropic/claude-test");
	assert_string_equal(cJSON_GetObjectItem(l, "timestamp")->valuestring, "2026-10-01T10:00:00Z");
	assert_string_equal(cJSON_GetObjectItem(l, "tool_name")->valuestring, "Edit");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(l, "range"), "start_line")->valueint, 1);
	cJSON_Delete(doc);
	t_run_dispose(&t);
	free(sub);
	repo_dispose(&r);
}

static void test_blame_text_is_safe_for_the_terminal(void **state)
{
	static const char *const argv[] = {"ledger", "blame", "evil.txt", NULL};
	repo r;
	t_run t;

	(void)state;
	repo_make(&r);
	repo_file(&r, "evil.txt", "\x1b]0;owned\x07\xff\n\tindented\r\n");
	write_ledger(&r, rec(ID_A, "2026-10-01T10:00:00Z", "other.c", 1, 1, "x"), NULL);
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "(not recorded) 1) \\x1b]0;owned\\x07\\xff\n");
	/* a tab is shown as one, a CRLF ending as the end of the line */
	expect_in("stdout", t.out, "(not recorded) 2) \tindented\n");
	assert_null(strchr(t.out, '\x1b'));
	t_run_dispose(&t);
	repo_dispose(&r);
}

static void test_blame_refusals(void **state)
{
	static const char *const outside[] = {"ledger", "blame", "../outside.c", NULL};
	static const char *const absolute[] = {"ledger", "blame", "/etc/hostname", NULL};
	static const char *const missing[] = {"ledger", "blame", "nope.c", NULL};
	static const char *const noargs[] = {"ledger", "blame", NULL};
	static const char *const present[] = {"ledger", "blame", "a.c", NULL};
	repo r;
	t_run t;
	char *p;

	(void)state;
	repo_make(&r);
	p = t_sprintf("%s/outside.c", r.dir);
	t_write_file(p, "secret\n");
	free(p);
	repo_file(&r, "a.c", "x\n");
	t = run_in(&r, NULL, outside);
	assert_int_equal(t.status, 2);
	expect_in("stderr", t.err, "not a file inside the repository");
	assert_string_equal(t.out, "");
	t_run_dispose(&t);
	t = run_in(&r, NULL, absolute);
	assert_int_equal(t.status, 2);
	t_run_dispose(&t);
	t = run_in(&r, NULL, noargs);
	assert_int_equal(t.status, 2);
	t_run_dispose(&t);
	/* no ledger yet */
	t = run_in(&r, NULL, present);
	assert_int_equal(t.status, 1);
	expect_in("stderr", t.err, "no ledger at ");
	t_run_dispose(&t);
	write_ledger(&r, rec(ID_A, "2026-10-01T10:00:00Z", "a.c", 1, 1, "x"), NULL);
	t = run_in(&r, NULL, missing);
	assert_int_equal(t.status, 1);
	expect_in("stderr", t.err, "cannot read");
	t_run_dispose(&t);
	repo_dispose(&r);
}

/* ---- accept ----------------------------------------------------------------- */

static void test_accept_appends_one_record(void **state)
{
	static const char *const argv[] = {"ledger", "accept", "src/a.c", "--by", "ann@example.com", NULL};
	static const char *const blame[] = {"ledger", "blame", "src/a.c", NULL};
	repo r;
	t_run t;
	char *before, *after;
	cJSON *doc, *meta, *file, *range;

	(void)state;
	repo_make(&r);
	repo_file(&r, "src/a.c", "one\nTWO\nthree\n");
	write_ledger(&r, rec(ID_A, "2026-10-01T10:00:00Z", "src/a.c", 1, 2, "one\ntwo"), NULL);
	before = t_read_file(r.ledger, NULL);
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "accepted src/a.c (lines 1-3)\n");
	expect_in("stdout", t.out, "as ann@example.com, record ");
	t_run_dispose(&t);
	after = t_read_file(r.ledger, NULL);
	/* what was there is kept, one line added */
	assert_int_equal(strncmp(before, after, strlen(before)), 0);
	assert_int_equal(count_lines(after), count_lines(before) + 1);
	doc = cJSON_Parse(after + strlen(before));
	assert_non_null(doc);
	meta = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"), "roz");
	assert_string_equal(cJSON_GetObjectItem(meta, "action")->valuestring, "accept");
	assert_string_equal(cJSON_GetObjectItem(meta, "accepted_by")->valuestring, "ann@example.com");
	assert_int_equal(strlen(cJSON_GetObjectItem(doc, "id")->valuestring), 36);
	file = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "files"), 0);
	assert_string_equal(cJSON_GetObjectItem(file, "path")->valuestring, "src/a.c");
	range = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(file, "conversations"), 0),
						       "ranges"),
				   0);
	assert_int_equal(cJSON_GetObjectItem(range, "start_line")->valueint, 1);
	assert_int_equal(cJSON_GetObjectItem(range, "end_line")->valueint, 3);
	{
		char hex[ROZ_SHA256_HEX_SIZE], *want;

		roz_digest_sha256_hex("one\nTWO\nthree", 13, hex);
		want = t_sprintf("sha256:%s", hex);
		assert_string_equal(cJSON_GetObjectItem(range, "content_hash")->valuestring, want);
		free(want);
	}
	cJSON_Delete(doc);
	/* blame now names the person for every line */
	t = run_in(&r, NULL, blame);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "(accepted by ann@example.com) 2) TWO\n");
	assert_int_equal(count_lines(t.out), 3);
	t_run_dispose(&t);
	free(before);
	free(after);
	repo_dispose(&r);
}

static void test_accept_reported_by_verify(void **state)
{
	static const char *const argv[] = {"ledger", "accept", "src/a.c", NULL};
	static const char *const verify[] = {"ledger", "verify", "--json", NULL};
	repo r;
	t_run t;
	cJSON *doc, *item;
	char *last;

	(void)state;
	repo_make(&r);
	repo_file(&r, "src/a.c", "one\nTWO\n");
	write_ledger(&r, rec(ID_A, "2026-10-01T10:00:00Z", "src/a.c", 1, 2, "one\ntwo"), NULL);
	/* no --by and no git identity: the login name */
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "as tester, record ");
	t_run_dispose(&t);
	last = t_read_file(r.ledger, NULL);
	expect_in("ledger", last, "\"accepted_by\":\"tester\"");
	free(last);
	/* the agent's range a person changed since is theirs now: accepted, and verify passes */
	t = run_in(&r, NULL, verify);
	doc = cJSON_Parse(t.out);
	assert_non_null(doc);
	item = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "items"), 0);
	assert_string_equal(cJSON_GetObjectItem(item, "record_id")->valuestring, ID_A);
	assert_string_equal(cJSON_GetObjectItem(item, "state")->valuestring, "accepted");
	assert_int_equal(t.status, 0);
	cJSON_Delete(doc);
	t_run_dispose(&t);
	repo_dispose(&r);
}

static void test_accept_refusals(void **state)
{
	static const char *const unknown[] = {"ledger", "accept", "src/a.c", "src/never.c", NULL};
	static const char *const outside[] = {"ledger", "accept", "../x.c", NULL};
	static const char *const none[] = {"ledger", "accept", "--by", "ann", NULL};
	static const char *const gone[] = {"ledger", "accept", "src/a.c", NULL};
	repo r;
	t_run t;
	char *before, *after;

	(void)state;
	repo_make(&r);
	repo_file(&r, "src/a.c", "one\n");
	repo_file(&r, "src/never.c", "mine\n");
	write_ledger(&r, rec(ID_A, "2026-10-01T10:00:00Z", "src/a.c", 1, 1, "one"), NULL);
	before = t_read_file(r.ledger, NULL);
	/* a path no record names: said so, and nothing is written, not even for the other */
	t = run_in(&r, NULL, unknown);
	assert_int_equal(t.status, 1);
	expect_in("stderr", t.err, "names src/never.c; nothing was accepted");
	t_run_dispose(&t);
	t = run_in(&r, NULL, outside);
	assert_int_equal(t.status, 2);
	expect_in("stderr", t.err, "not a file inside the repository");
	t_run_dispose(&t);
	t = run_in(&r, NULL, none);
	assert_int_equal(t.status, 2);
	t_run_dispose(&t);
	after = t_read_file(r.ledger, NULL);
	assert_string_equal(before, after);
	free(after);
	/* a file that is gone is accepted as gone: no range */
	{
		char *a = t_at(r.root, "src/a.c");

		assert_int_equal(unlink(a), 0);
		free(a);
	}
	t = run_in(&r, NULL, gone);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "accepted src/a.c (gone)\n");
	t_run_dispose(&t);
	after = t_read_file(r.ledger, NULL);
	expect_in("ledger", after + strlen(before), "\"ranges\":[]");
	free(after);
	free(before);
	repo_dispose(&r);
}

/* ---- compact ---------------------------------------------------------------- */

/* The summary of `roz ledger verify --json`, as a cJSON object (caller deletes). */
static cJSON *verify_summary(const repo *r)
{
	static const char *const argv[] = {"ledger", "verify", "--json", NULL};
	t_run t = run_in(r, NULL, argv);
	cJSON *doc = cJSON_Parse(t.out), *sum;

	if (!doc)
		fail_msg("verify said: %s / %s", t.out, t.err);
	sum = cJSON_DetachItemFromObject(doc, "summary");
	cJSON_Delete(doc);
	t_run_dispose(&t);
	return sum;
}

/* How many lines of the archive hold `id`, over every month. */
static size_t archived(const repo *r, const char *id, size_t *lines)
{
	char *dir = t_sprintf("%s/.orchestration/archive", r->root);
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	*lines = 0;
	while (d && (e = readdir(d))) {
		char *p, *text;

		if (e->d_name[0] == '.')
			continue;
		p = t_sprintf("%s/%s", dir, e->d_name);
		text = t_read_file(p, NULL);
		*lines += count_lines(text);
		for (const char *q = text; q && (q = strstr(q, id)); q++)
			n++;
		free(text);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	return n;
}

static void write_mixed(const repo *r)
{
	repo_file(r, "src/a.c", "one\ntwo\nthree\n");
	repo_file(r, "src/b.c", "int x;\n");
	write_ledger(r, rec(ID_A, "2026-10-01T10:00:00Z", "src/a.c", 1, 3, "one\ntwo\nthree"), /* superseded by C */
		     rec(ID_B, "2026-10-02T10:00:00Z", "src/b.c", 1, 1, "int y;"),             /* changed */
		     t_sprintf("%s", "this line is not a record\n"),
		     rec(ID_C, "2026-11-03T10:00:00Z", "src/a.c", 2, 2, "two"),                /* intact */
		     rec(ID_D, "2026-11-04T10:00:00Z", "src/gone.c", 1, 1, "lost"),            /* missing */
		     rec("ffffffff-1", "2026-11-04T11:00:00Z", "src/a.c", 3, 3, "drei"),      /* superseded by E */
		     rec("eeeeeeee-1", "2026-11-05T10:00:00Z", "src/a.c", 3, 3, "three"),     /* intact */
		     NULL);
}

static void test_compact_keeps_what_verify_says(void **state)
{
	static const char *const argv[] = {"ledger", "compact", NULL};
	repo r;
	t_run t;
	cJSON *before, *after, *v;
	char *active;
	size_t lines;

	(void)state;
	repo_make(&r);
	write_mixed(&r);
	before = verify_summary(&r);
	assert_int_equal(cJSON_GetObjectItem(before, "superseded")->valueint, 2);
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "Moved 2 records of 6 to the archive:\n");
	expect_in("stdout", t.out, ".orchestration/archive/agent_trace-2026-10.jsonl  1 record\n");
	expect_in("stdout", t.out, ".orchestration/archive/agent_trace-2026-11.jsonl  1 record\n");
	t_run_dispose(&t);
	after = verify_summary(&r);
	/* everything verify says is the same, but for the superseded ranges that left */
	cJSON_ArrayForEach(v, before) {
		const cJSON *w = cJSON_GetObjectItem(after, v->string);

		assert_non_null(w);
		if (strcmp(v->string, "superseded") == 0 || strcmp(v->string, "records") == 0 ||
		    strcmp(v->string, "ranges") == 0)
			continue;
		if (!cJSON_Compare(v, w, true))
			fail_msg("verify's %s changed: %s -> %s", v->string, cJSON_PrintUnformatted(v),
				 cJSON_PrintUnformatted(w));
	}
	assert_int_equal(cJSON_GetObjectItem(after, "superseded")->valueint, 0);
	assert_int_equal(cJSON_GetObjectItem(after, "records")->valueint, 4);
	/* each moved record is in its month's archive once, and gone from the active file */
	assert_int_equal(archived(&r, ID_A, &lines), 1);
	assert_int_equal(archived(&r, "ffffffff-1", &lines), 1);
	assert_int_equal(lines, 2);
	active = t_read_file(r.ledger, NULL);
	assert_null(strstr(active, ID_A));
	assert_null(strstr(active, "ffffffff-1"));
	/* the line that is not a record stays where it was among the others */
	expect_in("ledger", active, "\"id\":\"" ID_B "\"");
	assert_true(strstr(active, ID_B) < strstr(active, "this line is not a record\n"));
	assert_true(strstr(active, "this line is not a record\n") < strstr(active, ID_C));
	assert_int_equal(count_lines(active), 5);
	free(active);
	{
		char *month = repo_read(&r, ".orchestration/archive/agent_trace-2026-10.jsonl");

		expect_in("archive", month, ID_A);
		free(month);
	}
	/* once more: nothing left to move, nothing rewritten */
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "Nothing to move");
	t_run_dispose(&t);
	cJSON_Delete(before);
	cJSON_Delete(after);
	repo_dispose(&r);
}

static void test_compact_dry_run_and_appending_to_the_archive(void **state)
{
	static const char *const dry[] = {"ledger", "compact", "--dry-run", NULL};
	static const char *const argv[] = {"ledger", "compact", NULL};
	repo r;
	t_run t;
	char *before, *after, *archive, *line;
	struct stat st;
	size_t lines;

	(void)state;
	repo_make(&r);
	write_mixed(&r);
	before = t_read_file(r.ledger, NULL);
	t = run_in(&r, NULL, dry);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "Would move 2 records of 6");
	expect_in("stdout", t.out, "Nothing was written (--dry-run).");
	t_run_dispose(&t);
	after = t_read_file(r.ledger, NULL);
	assert_string_equal(before, after);
	archive = t_sprintf("%s/.orchestration/archive", r.root);
	assert_int_not_equal(stat(archive, &st), 0);
	free(after);
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 0);
	t_run_dispose(&t);
	/* a later record takes C over: the next compaction appends to November's archive */
	line = rec("99999999-1", "2026-11-20T10:00:00Z", "src/a.c", 2, 2, "two");
	assert_int_equal(roz_append_line(r.ledger, line, strlen(line), 1000), ROZ_OK);
	free(line);
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 0);
	expect_in("stdout", t.out, "Moved 1 record of 5");
	t_run_dispose(&t);
	assert_int_equal(archived(&r, ID_C, &lines), 1);
	assert_int_equal(archived(&r, "ffffffff-1", &lines), 1);
	assert_int_equal(lines, 3);
	after = repo_read(&r, ".orchestration/archive/agent_trace-2026-11.jsonl");
	assert_int_equal(count_lines(after), 2);
	assert_true(strstr(after, "ffffffff-1") < strstr(after, ID_C));
	free(after);
	free(archive);
	free(before);
	repo_dispose(&r);
}

static void test_compact_refusals(void **state)
{
	static const char *const argv[] = {"ledger", "compact", NULL};
	static const char *const bad[] = {"ledger", "compact", "--now", NULL};
	repo r;
	t_run t;

	(void)state;
	repo_make(&r);
	t = run_in(&r, NULL, argv);
	assert_int_equal(t.status, 1);
	expect_in("stderr", t.err, "no ledger at ");
	t_run_dispose(&t);
	t = run_in(&r, NULL, bad);
	assert_int_equal(t.status, 2);
	t_run_dispose(&t);
	repo_dispose(&r);
}

/*
 * A writer appends records (each taking the one before it over, so every
 * compaction has something to move) while compactions run: every record
 * ends up exactly once, in the ledger or the archive.
 */
static void test_compact_racing_an_appender_loses_nothing(void **state)
{
	static const char *const argv[] = {"ledger", "compact", NULL};
	enum { APPENDS = 400 };
	repo r;
	pid_t pid;
	int status, runs = 0;
	char *active;
	size_t lines, total;

	(void)state;
	repo_make(&r);
	write_mixed(&r);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (int i = 0; i < APPENDS; i++) {
			char id[64], ts[64], *line;

			snprintf(id, sizeof id, "race-%04d", i);
			snprintf(ts, sizeof ts, "2026-12-01T%02d:%02d:%02dZ", i / 3600, i / 60 % 60, i % 60);
			line = rec(id, ts, "src/hot.c", 1, 1, "hot");
			if (roz_append_line(r.ledger, line, strlen(line), 20000) != ROZ_OK)
				_exit(1);
			free(line);
			/* about a second in all: several compactions run meanwhile */
			usleep(2500);
		}
		_exit(0);
	}
	for (;;) {
		t_run t = run_in(&r, NULL, argv);

		assert_int_equal(t.status, 0);
		t_run_dispose(&t);
		runs++;
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	active = t_read_file(r.ledger, NULL);
	(void)archived(&r, "race-", &lines);
	total = count_lines(active) + lines;
	/* 7 lines at the start (6 records, 1 that is not), and every append */
	if (total != 7 + APPENDS)
		fail_msg("%zu lines in the ledger and the archive after %d compactions, expected %d", total, runs,
			 7 + APPENDS);
	for (int i = 0; i < APPENDS; i++) {
		char id[64];
		size_t in_archive, in_active = 0;

		snprintf(id, sizeof id, "\"race-%04d\"", i);
		in_archive = archived(&r, id, &lines);
		for (const char *q = active; (q = strstr(q, id)); q++)
			in_active++;
		if (in_archive + in_active != 1)
			fail_msg("record %s is %zu times in the archive and %zu in the ledger", id, in_archive,
				 in_active);
	}
	/* the last one written still speaks for its line */
	expect_in("ledger", active, "\"race-0399\"");
	free(active);
	repo_dispose(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blame_for_people),
		cmocka_unit_test(test_blame_json_and_moved_lines),
		cmocka_unit_test(test_blame_text_is_safe_for_the_terminal),
		cmocka_unit_test(test_blame_refusals),
		cmocka_unit_test(test_accept_appends_one_record),
		cmocka_unit_test(test_accept_reported_by_verify),
		cmocka_unit_test(test_accept_refusals),
		cmocka_unit_test(test_compact_keeps_what_verify_says),
		cmocka_unit_test(test_compact_dry_run_and_appending_to_the_archive),
		cmocka_unit_test(test_compact_refusals),
		cmocka_unit_test(test_compact_racing_an_appender_loses_nothing),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
