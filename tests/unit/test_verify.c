/*
 * test_verify.c - roz ledger verify's engine on a table of files: each
 * state a range can be in, supersession, moved code found in its own file
 * and in others, lines that are not records, --since, and running out of
 * memory. Ledgers are written by hand in the Agent Trace form roz/ledger.h
 * describes, hashes computed here, so the tests need nothing of the writer.
 */
#include "support.h"

#include "roz/digest.h"
#include "roz/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a file system in a table ------------------------------------------ */

typedef struct tfile {
	const char *path;
	const char *text;  /* NULL: not there */
	int rc;            /* when not 0, reading fails with it */
} tfile;

typedef struct tfs {
	const tfile *files;
	size_t n;
	unsigned reads[16];
} tfs;

static int tfs_read(void *ud, const char *path, char **text, size_t *len)
{
	tfs *fs = ud;

	for (size_t i = 0; i < fs->n; i++) {
		if (strcmp(fs->files[i].path, path) != 0)
			continue;
		if (i < 16)
			fs->reads[i]++;
		if (fs->files[i].rc) {
			roz_error_set("permission denied");
			return fs->files[i].rc;
		}
		if (!fs->files[i].text)
			break;
		if (!(*text = roz_strdup(fs->files[i].text)))
			return ROZ_ENOMEM;
		*len = strlen(fs->files[i].text);
		return ROZ_OK;
	}
	return ROZ_ENOTFOUND;
}

/* "sha256:<hex>" of s, in a static buffer (one per call site at a time). */
static const char *h(const char *s, char buf[80])
{
	char hex[ROZ_SHA256_HEX_SIZE];

	roz_digest_sha256_hex(s, strlen(s), hex);
	snprintf(buf, 80, "sha256:%s", hex);
	return buf;
}

/*
 * One record line: id, revision (or NULL), intent (or NULL), then one file
 * with one range. Caller frees.
 */
static char *rec(const char *id, const char *rev, const char *intent, const char *path, unsigned long start,
		 unsigned long end, const char *hash)
{
	char *vcs = rev ? t_sprintf("\"vcs\":{\"type\":\"git\",\"revision\":\"%s\"},", rev) : t_sprintf("%s", "");
	char *it = intent ? t_sprintf("\"%s\"", intent) : t_sprintf("null");
	char *line = t_sprintf(
		"{\"version\":\"0.1\",\"id\":\"%s\",\"timestamp\":\"2026-01-01T00:00:00Z\",%s"
		"\"tool\":{\"name\":\"roz\",\"version\":\"0.2.0\"},"
		"\"files\":[{\"path\":\"%s\",\"conversations\":[{\"url\":\"urn:claude-code:session:s1\","
		"\"contributor\":{\"type\":\"ai\"},"
		"\"ranges\":[{\"start_line\":%lu,\"end_line\":%lu,\"content_hash\":\"%s\"}]}]}],"
		"\"metadata\":{\"roz\":{\"intent_id\":%s,\"mutation_class\":\"INTENT_EVOLUTION\","
		"\"session_id\":\"s1\",\"tool_name\":\"Edit\"}}}\n",
		id, vcs, path, start, end, hash, it);

	free(vcs);
	free(it);
	return line;
}

/* Lines joined into one ledger; frees them. NULL-terminated. Caller frees. */
static char *ledger(char *first, ...)
{
	va_list ap;
	size_t len = 0;
	char *out = t_sprintf("%s", "");

	va_start(ap, first);
	for (char *s = first; s; s = va_arg(ap, char *)) {
		out = realloc(out, len + strlen(s) + 1);
		assert_non_null(out);
		memcpy(out + len, s, strlen(s) + 1);
		len += strlen(s);
		free(s);
	}
	va_end(ap);
	return out;
}

static void run(const char *text, const char *since, tfs *fs, roz_verify_report *r)
{
	assert_int_equal(roz_verify_run(text, text ? strlen(text) : 0, since, tfs_read, fs, r), ROZ_OK);
	size_t sum = 0;
	for (size_t i = 0; i <= ROZ_VERIFY_SUPERSEDED; i++)
		sum += r->counts[i];
	assert_int_equal(sum, r->n);
}

static void expect(const roz_verify_report *r, size_t i, roz_verify_state st)
{
	assert_true(i < r->n);
	if (r->items[i].state != st)
		fail_msg("item %zu (%s:%lu-%lu): %s, expected %s", i, r->items[i].path, r->items[i].start_line,
			 r->items[i].end_line, roz_verify_state_name(r->items[i].state), roz_verify_state_name(st));
}

/* ---- each state ------------------------------------------------------- */

static void test_intact_changed_missing(void **state)
{
	(void)state;
	static const tfile files[] = {
		{"a.c", "one\ntwo\nthree\n", 0},
		{"b.c", "alpha\nbeta", 0},  /* no "\n" at the end: the last line counts */
		{"c.c", "a\r\nb\r\n", 0},   /* "\r" is part of its line */
		{"locked.c", "x\n", ROZ_EIO},
	};
	tfs fs = {files, 4, {0}};
	char b1[80], b2[80], b3[80], b4[80], b5[80], b6[80];
	char *text = ledger(rec("r1", NULL, "INT-1", "a.c", 2, 3, h("two\nthree", b1)),
			    rec("r2", NULL, NULL, "b.c", 1, 2, h("alpha\nbeta", b2)),
			    rec("r3", NULL, NULL, "c.c", 1, 2, h("a\r\nb\r", b3)),
			    rec("r4", NULL, NULL, "a.c", 1, 1, h("uno", b4)),
			    rec("r5", NULL, NULL, "gone.c", 1, 1, h("whatever", b5)),
			    rec("r6", NULL, NULL, "locked.c", 1, 1, h("x", b6)), NULL);
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	assert_int_equal(r.records, 6);
	assert_int_equal(r.n, 6);
	expect(&r, 0, ROZ_VERIFY_INTACT);
	expect(&r, 1, ROZ_VERIFY_INTACT);
	expect(&r, 2, ROZ_VERIFY_INTACT);
	expect(&r, 3, ROZ_VERIFY_CHANGED);
	expect(&r, 4, ROZ_VERIFY_MISSING);
	assert_null(r.items[4].why);
	expect(&r, 5, ROZ_VERIFY_MISSING);
	assert_non_null(r.items[5].why);
	assert_non_null(strstr(r.items[5].why, "permission denied"));
	assert_int_equal(r.counts[ROZ_VERIFY_INTACT], 3);
	assert_int_equal(r.counts[ROZ_VERIFY_CHANGED], 1);
	assert_int_equal(r.counts[ROZ_VERIFY_MISSING], 2);
	/* What the report says of a record. */
	assert_string_equal(r.items[0].record_id, "r1");
	assert_string_equal(r.items[0].intent_id, "INT-1");
	assert_null(r.items[1].intent_id);
	assert_string_equal(r.items[0].session_id, "s1");
	assert_string_equal(r.items[0].path, "a.c");
	assert_int_equal(r.items[0].line, 1);
	assert_int_equal(r.items[3].line, 4);
	assert_int_equal(r.items[0].start_line, 2);
	assert_int_equal(r.items[0].end_line, 3);
	/* a.c is named twice and read once */
	assert_int_equal(fs.reads[0], 1);
	roz_verify_report_dispose(&r);
	free(text);
}

/* A file cut short since: the range now ends past its last line. */
static void test_range_past_the_end_is_changed(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "one\n", 0}};
	tfs fs = {files, 1, {0}};
	char b1[80];
	char *text = ledger(rec("r1", NULL, NULL, "a.c", 1, 3, h("one\ntwo\nthree", b1)), NULL);
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	expect(&r, 0, ROZ_VERIFY_CHANGED);
	roz_verify_report_dispose(&r);
	free(text);
}

/* A content_hash that is not sha256 cannot be checked: changed, never intact. */
static void test_unknown_hash_is_changed(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "one\n", 0}};
	tfs fs = {files, 1, {0}};
	char *text = ledger(rec("r1", NULL, NULL, "a.c", 1, 1, "md5:0123"), NULL);
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	expect(&r, 0, ROZ_VERIFY_CHANGED);
	roz_verify_report_dispose(&r);
	free(text);
}

/* ---- moved -------------------------------------------------------------- */

static void test_moved_within_the_file(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "new\nlines\nabove\nint f(void)\n{\n}\n", 0}};
	tfs fs = {files, 1, {0}};
	char b1[80];
	char *text = ledger(rec("r1", NULL, NULL, "a.c", 1, 3, h("int f(void)\n{\n}", b1)), NULL);
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	expect(&r, 0, ROZ_VERIFY_MOVED);
	assert_string_equal(r.items[0].moved_path, "a.c");
	assert_int_equal(r.items[0].moved_start, 4);
	assert_int_equal(r.items[0].moved_end, 6);
	assert_int_equal(r.counts[ROZ_VERIFY_MOVED], 1);
	assert_int_equal(fs.reads[0], 1);
	roz_verify_report_dispose(&r);
	free(text);
}

static void test_moved_to_another_file(void **state)
{
	(void)state;
	static const tfile files[] = {
		{"a.c", "rewritten\n", 0},
		{"b.c", "x\ny\nz\nw\nint g;\nint h;\n", 0},
	};
	tfs fs = {files, 2, {0}};
	char b1[80], b2[80];
	char *text = ledger(rec("r1", NULL, NULL, "a.c", 1, 2, h("int g;\nint h;", b1)),
			    rec("r2", NULL, NULL, "b.c", 1, 1, h("x", b2)), NULL);
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	expect(&r, 0, ROZ_VERIFY_MOVED);
	assert_string_equal(r.items[0].moved_path, "b.c");
	assert_int_equal(r.items[0].moved_start, 5);
	assert_int_equal(r.items[0].moved_end, 6);
	expect(&r, 1, ROZ_VERIFY_INTACT);
	/* each file read once, for the check and the index together */
	assert_int_equal(fs.reads[0], 1);
	assert_int_equal(fs.reads[1], 1);
	roz_verify_report_dispose(&r);
	free(text);
}

/*
 * The same lines are in a file the ledger names first and lower in the
 * range's own file: its own file is reported. A file gone entirely whose
 * lines live on elsewhere is moved, not missing.
 */
static void test_moved_prefers_its_own_file(void **state)
{
	(void)state;
	static const tfile files[] = {
		{"first.c", "dup\ndup2\n", 0},
		{"own.c", "other\nstuff\ndup\ndup2\n", 0},
	};
	tfs fs = {files, 2, {0}};
	char b1[80], b2[80], b3[80];
	char *text = ledger(rec("r1", NULL, NULL, "first.c", 1, 1, h("dup", b1)),
			    rec("r2", NULL, NULL, "own.c", 1, 2, h("dup\ndup2", b2)),
			    rec("r3", NULL, NULL, "renamed.c", 1, 2, h("dup\ndup2", b3)), NULL);
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	expect(&r, 0, ROZ_VERIFY_INTACT);
	expect(&r, 1, ROZ_VERIFY_MOVED);
	assert_string_equal(r.items[1].moved_path, "own.c");
	assert_int_equal(r.items[1].moved_start, 3);
	expect(&r, 2, ROZ_VERIFY_MOVED);
	assert_string_equal(r.items[2].moved_path, "first.c"); /* the first file the ledger names */
	assert_int_equal(r.items[2].moved_start, 1);
	assert_int_equal(r.items[2].moved_end, 2);
	roz_verify_report_dispose(&r);
	free(text);
}

/* Ranges of several lengths, each found: one index per length. */
static void test_moved_of_several_lengths(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n", 0}};
	tfs fs = {files, 1, {0}};
	char b[4][80];
	char *text = ledger(rec("r1", NULL, NULL, "a.c", 1, 1, h("9", b[0])),
			    rec("r2", NULL, NULL, "a.c", 2, 3, h("6\n7", b[1])),
			    rec("r3", NULL, NULL, "a.c", 4, 6, h("0\n1\n2", b[2])),
			    rec("r4", NULL, NULL, "a.c", 7, 8, h("1\n9", b[3])), NULL);
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	expect(&r, 0, ROZ_VERIFY_MOVED);
	assert_int_equal(r.items[0].moved_start, 10);
	expect(&r, 1, ROZ_VERIFY_MOVED);
	assert_int_equal(r.items[1].moved_start, 7);
	assert_int_equal(r.items[1].moved_end, 8);
	expect(&r, 2, ROZ_VERIFY_MOVED);
	assert_int_equal(r.items[2].moved_start, 1);
	expect(&r, 3, ROZ_VERIFY_CHANGED);
	assert_null(r.items[3].moved_path);
	roz_verify_report_dispose(&r);
	free(text);
}

/* ---- supersession -------------------------------------------------------- */

static void test_later_records_supersede(void **state)
{
	(void)state;
	static const tfile files[] = {
		{"a.c", "l1\nl2\nl3\nl4\nl5\nl6\n", 0},
		{"b.c", "l1\nl2\nl3\n", 0},
	};
	tfs fs = {files, 2, {0}};
	char b[6][80];
	char *text = ledger(rec("r1", NULL, NULL, "a.c", 1, 3, h("old text", b[0])),  /* overlapped by r2 */
			    rec("r2", NULL, NULL, "a.c", 3, 4, h("l3\nl4", b[1])),
			    rec("r3", NULL, NULL, "a.c", 6, 6, h("l6", b[2])),        /* not overlapped */
			    rec("r4", NULL, NULL, "b.c", 3, 4, h("gone", b[3])),      /* another file */
			    rec("r5", NULL, NULL, "b.c", 1, 2, h("l1\nl2", b[4])),    /* touches none of r4 */
			    rec("r6", NULL, NULL, "a.c", 4, 5, h("l4\nl5", b[5])), NULL);  /* over r2 */
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	expect(&r, 0, ROZ_VERIFY_SUPERSEDED);
	expect(&r, 1, ROZ_VERIFY_SUPERSEDED);
	expect(&r, 2, ROZ_VERIFY_INTACT);
	expect(&r, 3, ROZ_VERIFY_CHANGED);
	expect(&r, 4, ROZ_VERIFY_INTACT);
	expect(&r, 5, ROZ_VERIFY_INTACT);
	assert_int_equal(r.counts[ROZ_VERIFY_SUPERSEDED], 2);
	assert_null(r.items[0].moved_path);
	roz_verify_report_dispose(&r);
	free(text);
}

/* Two ranges of one record never take each other's lines. */
/* The record line with its time set to 2026-01-01T00:00:<ss>Z (the same length: in place). */
static char *at_second(char *line, const char *ss)
{
	char *t = strstr(line, "2026-01-01T00:00:00Z");

	assert_non_null(t);
	memcpy(t + 17, ss, 2);
	return line;
}

/*
 * Two branches both changed line 2 and recorded it; git's union merge puts
 * the later change's line first. The records are read in the order of their
 * own times: the later one stands, the earlier is superseded, exit 0.
 */
static void test_records_are_read_in_time_order(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "one\nTWO\nthree\n", 0}};
	tfs fs = {files, 1, {0}};
	char b1[80], b2[80], b3[80];
	char *text = ledger(at_second(rec("later", NULL, NULL, "a.c", 2, 2, h("TWO", b1)), "05"),
			    at_second(rec("earlier", NULL, NULL, "a.c", 2, 2, h("two", b2)), "01"),
			    at_second(rec("other", NULL, NULL, "a.c", 3, 3, h("three", b3)), "03"), NULL);
	roz_verify_report r;

	run(text, NULL, &fs, &r);
	assert_int_equal(r.records, 3);
	assert_int_equal(r.counts[ROZ_VERIFY_CHANGED], 0);
	assert_int_equal(r.counts[ROZ_VERIFY_SUPERSEDED], 1);
	assert_int_equal(r.counts[ROZ_VERIFY_INTACT], 2);
	/* reported in the ledger's order, whatever order they were read in */
	assert_string_equal(r.items[0].record_id, "later");
	assert_string_equal(r.items[1].record_id, "earlier");
	assert_string_equal(r.items[2].record_id, "other");
	expect(&r, 0, ROZ_VERIFY_INTACT);
	expect(&r, 1, ROZ_VERIFY_SUPERSEDED);
	expect(&r, 2, ROZ_VERIFY_INTACT);
	roz_verify_report_dispose(&r);
	free(text);
}

static void test_a_record_does_not_supersede_itself(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "l1\nl2\nl3\n", 0}};
	tfs fs = {files, 1, {0}};
	char b1[80], b2[80];
	char *line = t_sprintf("{\"version\":\"0.1\",\"id\":\"r1\",\"files\":[{\"path\":\"a.c\",\"conversations\":"
			       "[{\"ranges\":[{\"start_line\":1,\"end_line\":2,\"content_hash\":\"%s\"},"
			       "{\"start_line\":2,\"end_line\":3,\"content_hash\":\"%s\"}]}]}]}\n",
			       h("l1\nl2", b1), h("l2\nl3", b2));
	roz_verify_report r;

	run(line, NULL, &fs, &r);
	assert_int_equal(r.n, 2);
	expect(&r, 0, ROZ_VERIFY_INTACT);
	expect(&r, 1, ROZ_VERIFY_INTACT);
	assert_null(r.items[0].session_id);
	roz_verify_report_dispose(&r);
	free(line);
}

/* ---- lines that are not records ------------------------------------------ */

static void test_bad_lines_are_reported_and_skipped(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "one\n", 0}};
	tfs fs = {files, 1, {0}};
	char b1[80], b2[80];
	char *good = rec("r1", NULL, NULL, "a.c", 1, 1, h("one", b1));
	char *torn = rec("r2", NULL, NULL, "a.c", 1, 1, h("one", b2));
	char *text;
	roz_verify_report r;

	torn[strlen(torn) / 2] = '\0'; /* the write stopped halfway */
	text = t_sprintf("not json at all\n\n%s{\"files\":\"no\"}\n%s", good, torn);
	run(text, NULL, &fs, &r);
	assert_int_equal(r.records, 1);
	assert_int_equal(r.n, 1);
	expect(&r, 0, ROZ_VERIFY_INTACT);
	assert_int_equal(r.items[0].line, 3); /* the blank line 2 is counted, not reported */
	assert_int_equal(r.nbad, 3);
	assert_int_equal(r.bad[0].line, 1);
	assert_int_equal(r.bad[1].line, 4);
	assert_non_null(strstr(r.bad[1].why, "files"));
	assert_int_equal(r.bad[2].line, 5);
	assert_non_null(strstr(r.bad[2].why, "torn last line"));
	assert_null(strstr(r.bad[0].why, "torn"));
	roz_verify_report_dispose(&r);
	free(text);
	free(good);
	free(torn);
}

/* A whole record that only lacks its "\n" is still read. */
static void test_last_record_without_newline(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "one\n", 0}};
	tfs fs = {files, 1, {0}};
	char b1[80];
	char *text = rec("r1", NULL, NULL, "a.c", 1, 1, h("one", b1));
	roz_verify_report r;

	text[strlen(text) - 1] = '\0';
	run(text, NULL, &fs, &r);
	assert_int_equal(r.records, 1);
	assert_int_equal(r.nbad, 0);
	expect(&r, 0, ROZ_VERIFY_INTACT);
	roz_verify_report_dispose(&r);
	free(text);
}

static void test_empty_ledger(void **state)
{
	(void)state;
	tfs fs = {NULL, 0, {0}};
	roz_verify_report r;

	run("", NULL, &fs, &r);
	assert_int_equal(r.records, 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.nbad, 0);
	roz_verify_report_dispose(&r);
	run(NULL, NULL, &fs, &r);
	assert_int_equal(r.n, 0);
	roz_verify_report_dispose(&r);
	run("\n\n  \n", NULL, &fs, &r);
	assert_int_equal(r.nbad, 0);
	roz_verify_report_dispose(&r);
	roz_verify_report_dispose(&r); /* twice is harmless */
}

/* ---- since ------------------------------------------------------------- */

static void test_since(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "l1\nl2\nl3\n", 0}};
	tfs fs = {files, 1, {0}};
	char b[4][80];
	char *text = ledger(rec("r1", "aaa", NULL, "a.c", 1, 1, h("changed long ago", b[0])),
			    rec("r2", NULL, NULL, "a.c", 2, 2, h("also old", b[1])),
			    rec("r3", "bbb", NULL, "a.c", 3, 3, h("l3", b[2])),
			    rec("r4", "aaa", NULL, "a.c", 1, 1, h("l1", b[3])), NULL);
	roz_verify_report r;

	run(text, "bbb", &fs, &r);
	assert_true(r.since_found);
	assert_int_equal(r.records, 4);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.items[0].record_id, "r3");
	assert_string_equal(r.items[1].record_id, "r4");
	expect(&r, 0, ROZ_VERIFY_INTACT);
	expect(&r, 1, ROZ_VERIFY_INTACT);
	roz_verify_report_dispose(&r);

	run(text, "aaa", &fs, &r);
	assert_true(r.since_found);
	assert_int_equal(r.n, 4);
	expect(&r, 0, ROZ_VERIFY_SUPERSEDED);
	expect(&r, 1, ROZ_VERIFY_CHANGED);
	roz_verify_report_dispose(&r);

	run(text, "ccc", &fs, &r);
	assert_false(r.since_found);
	assert_int_equal(r.records, 4);
	assert_int_equal(r.n, 0);
	roz_verify_report_dispose(&r);

	run(text, NULL, &fs, &r);
	assert_false(r.since_found);
	assert_int_equal(r.n, 4);
	roz_verify_report_dispose(&r);
	free(text);

	/* the start of a hash, as git abbreviates it (4 hex digits or more, any case) */
	text = ledger(rec("r1", "0123abcd4567", NULL, "a.c", 1, 1, h("l1", b[0])),
		      rec("r2", "89efcdab0123", NULL, "a.c", 2, 2, h("l2", b[1])), NULL);
	run(text, "89EFcd", &fs, &r);
	assert_true(r.since_found);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.items[0].record_id, "r2");
	roz_verify_report_dispose(&r);
	run(text, "89e", &fs, &r); /* too short to be a hash */
	assert_false(r.since_found);
	roz_verify_report_dispose(&r);
	run(text, "89efg", &fs, &r); /* not hex */
	assert_false(r.since_found);
	roz_verify_report_dispose(&r);
	free(text);
}

/* ---- running out of memory ------------------------------------------------ */

static void test_out_of_memory(void **state)
{
	(void)state;
	static const tfile files[] = {
		{"a.c", "a\nb\nc\nd\n", 0},
		{"b.c", "x\ny\n", 0},
		{"c.c", "z\n", ROZ_EIO},
	};
	char b[5][80];
	char *text = ledger(rec("r1", "v1", "I", "a.c", 1, 2, h("c\nd", b[0])),
			    rec("r2", NULL, NULL, "b.c", 1, 1, h("x", b[1])),
			    rec("r3", NULL, NULL, "a.c", 3, 3, h("c", b[2])),
			    rec("r4", NULL, NULL, "c.c", 1, 1, h("y", b[3])),
			    rec("r5", NULL, NULL, "d.c", 1, 1, h("q", b[4])), NULL);
	roz_verify_report r;
	long need;
	bool done = false;

	for (long n = 0; n < 100000 && !done; n++) {
		tfs fs = {files, 3, {0}};
		int rc;

		roz_alloc_fail_after(n);
		rc = roz_verify_run(text, strlen(text), NULL, tfs_read, &fs, &r);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK) {
			done = true;
			need = n;
			expect(&r, 0, ROZ_VERIFY_MOVED);
			expect(&r, 1, ROZ_VERIFY_INTACT);
			expect(&r, 2, ROZ_VERIFY_INTACT);
			expect(&r, 3, ROZ_VERIFY_MOVED);
			expect(&r, 4, ROZ_VERIFY_MISSING);
		} else {
			assert_int_equal(rc, ROZ_ENOMEM);
			assert_int_equal(r.n, 0);
			assert_null(r.items);
		}
		roz_verify_report_dispose(&r);
	}
	assert_true(done);
	assert_true(need > 10);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact_changed_missing),
		cmocka_unit_test(test_range_past_the_end_is_changed),
		cmocka_unit_test(test_unknown_hash_is_changed),
		cmocka_unit_test(test_moved_within_the_file),
		cmocka_unit_test(test_moved_to_another_file),
		cmocka_unit_test(test_moved_prefers_its_own_file),
		cmocka_unit_test(test_moved_of_several_lengths),
		cmocka_unit_test(test_later_records_supersede),
		cmocka_unit_test(test_records_are_read_in_time_order),
		cmocka_unit_test(test_a_record_does_not_supersede_itself),
		cmocka_unit_test(test_bad_lines_are_reported_and_skipped),
		cmocka_unit_test(test_last_record_without_newline),
		cmocka_unit_test(test_empty_ledger),
		cmocka_unit_test(test_since),
		cmocka_unit_test(test_out_of_memory),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
