/*
 * test_verify.c - roz ledger verify's engine on a table of files: each
 * state a range can be in, supersession (checked against a plain quadratic
 * reading on random ledgers), moved code found in its own file and through
 * renames, a person's ranges, removals, acceptances, other tools' hashes,
 * lines that are not records, both since filters, the streaming interface,
 * and running out of memory. Ledgers are written by hand in the Agent Trace form roz/ledger.h
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

/* roz_verify_item_fn: a copy of each item into a report. */
static int keep(void *ud, const roz_verify_item *it)
{
	roz_verify_report *r = ud;
	roz_verify_item *c;

	assert_int_equal(roz_alloc_array_reserve((void **)&r->items, &r->cap, sizeof *r->items, r->n + 1), ROZ_OK);
	c = &r->items[r->n++];
	*c = *it;
	c->record_id = it->record_id ? roz_strdup(it->record_id) : NULL;
	c->intent_id = it->intent_id ? roz_strdup(it->intent_id) : NULL;
	c->session_id = it->session_id ? roz_strdup(it->session_id) : NULL;
	c->path = roz_strdup(it->path);
	c->moved_path = it->moved_path ? roz_strdup(it->moved_path) : NULL;
	c->why = it->why ? roz_strdup(it->why) : NULL;
	return ROZ_OK;
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
	expect(&r, 3, ROZ_VERIFY_EDITED);
	expect(&r, 4, ROZ_VERIFY_MISSING);
	assert_null(r.items[4].why);
	expect(&r, 5, ROZ_VERIFY_MISSING);
	assert_non_null(r.items[5].why);
	assert_non_null(strstr(r.items[5].why, "permission denied"));
	assert_int_equal(r.counts[ROZ_VERIFY_INTACT], 3);
	assert_int_equal(r.counts[ROZ_VERIFY_EDITED], 1);
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
	expect(&r, 0, ROZ_VERIFY_EDITED);
	roz_verify_report_dispose(&r);
	free(text);
}

/* A content_hash that is not sha256 cannot be checked: changed, never intact. */
/* Another tool's hash, or none: unverifiable, and the file is not even read. */
static void test_unknown_hash_is_unverifiable(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "one\n", 0}};
	tfs fs = {files, 1, {0}};
	char *text = ledger(rec("r1", NULL, NULL, "a.c", 1, 1, "md5:0123"), rec("r2", NULL, NULL, "a.c", 3, 3, ""),
			    NULL);
	roz_verify_report r;

	/* an empty content_hash field is not SHA-256 either */
	run(text, NULL, &fs, &r);
	expect(&r, 0, ROZ_VERIFY_UNVERIFIABLE);
	expect(&r, 1, ROZ_VERIFY_UNVERIFIABLE);
	assert_int_equal(r.counts[ROZ_VERIFY_UNVERIFIABLE], 2);
	assert_int_equal(fs.reads[0], 0);
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

/*
 * Lines that left their file are not looked for in the other files the
 * ledger names: the agent's own move was recorded where it put them, and a
 * person's is an edit. Each file is read once.
 */
static void test_not_looked_for_in_other_files(void **state)
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
	expect(&r, 0, ROZ_VERIFY_EDITED);
	assert_null(r.items[0].moved_path);
	expect(&r, 1, ROZ_VERIFY_INTACT);
	assert_int_equal(fs.reads[0], 1);
	assert_int_equal(fs.reads[1], 1);
	roz_verify_report_dispose(&r);
	free(text);
}

/* The renames a caller gives, and how often it is asked. */
typedef struct trenames {
	const char *const *pairs; /* from, to, ..., NULL */
	unsigned calls;
	char *revision;
	bool has_time;
} trenames;

static int trenames_fn(void *ud, const roz_verify_rename_hint *hint, roz_verify_renames *out)
{
	trenames *t = ud;

	t->calls++;
	free(t->revision);
	t->revision = hint->revision ? t_sprintf("%s", hint->revision) : NULL;
	t->has_time = hint->has_time;
	for (size_t i = 0; t->pairs && t->pairs[i]; i += 2)
		if (roz_verify_renames_add(out, t->pairs[i], t->pairs[i + 1]) != ROZ_OK)
			return ROZ_ENOMEM;
	return ROZ_OK;
}

/* A run through the streaming interface: each line fed, then settled; every item kept. */
static void run_opts(const char *text, roz_verify_opts *o, roz_verify_report *r)
{
	roz_verify *v;
	size_t pos = 0, len = strlen(text);

	assert_int_equal(roz_verify_begin(o, &v), ROZ_OK);
	while (pos < len) {
		const char *nl = strchr(text + pos, '\n');
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;

		assert_int_equal(roz_verify_feed(v, text + pos, n, pos, nl != NULL), ROZ_OK);
		pos += n + (nl ? 1 : 0);
	}
	assert_int_equal(roz_verify_settle(v, r), ROZ_OK);
	/* the report of a streaming run lists nothing: items come through roz_verify_each */
	assert_int_equal(r->n, 0);
	{
		roz_verify_report all;

		memset(&all, 0, sizeof all);
		assert_int_equal(roz_verify_each(v, ROZ_VERIFY_EACH_ALL, keep, &all), ROZ_OK);
		r->items = all.items;
		r->n = all.n;
		r->cap = all.cap;
	}
	roz_verify_free(v);
}

/*
 * A file that is gone is looked up among the renames (asked for once, only
 * then) and followed through a chain; found there it has moved, at its own
 * lines or others. The same lines lower in a range's own file: moved there.
 */
static void test_renames_are_followed(void **state)
{
	(void)state;
	static const tfile files[] = {
		{"own.c", "other\nstuff\ndup\ndup2\n", 0},
		{"final.c", "dup\ndup2\n", 0},
		{"shifted.c", "new\nline\none\n", 0},
	};
	static const char *const pairs[] = {"renamed.c", "mid.c", "mid.c", "final.c", "old.c", "shifted.c",
					    "loop.c", "loop2.c", "loop2.c", "loop.c", NULL};
	tfs fs = {files, 3, {0}};
	trenames tr = {pairs, 0, NULL, false};
	roz_verify_opts o;
	char b1[80], b2[80], b3[80], b4[80], b5[80];
	char *text = ledger(rec("r1", "rev1", NULL, "own.c", 1, 2, h("dup\ndup2", b1)),
			    rec("r2", "rev2", NULL, "renamed.c", 1, 2, h("dup\ndup2", b2)),
			    rec("r3", NULL, NULL, "old.c", 1, 1, h("one", b3)),
			    rec("r4", NULL, NULL, "gone.c", 1, 1, h("x", b4)),
			    rec("r5", NULL, NULL, "loop.c", 1, 1, h("x", b5)), NULL);
	roz_verify_report r;

	memset(&o, 0, sizeof o);
	o.read = tfs_read;
	o.read_ud = &fs;
	o.renames = trenames_fn;
	o.renames_ud = &tr;
	run_opts(text, &o, &r);
	expect(&r, 0, ROZ_VERIFY_MOVED);
	assert_string_equal(r.items[0].moved_path, "own.c");
	assert_int_equal(r.items[0].moved_start, 3);
	expect(&r, 1, ROZ_VERIFY_MOVED);
	assert_string_equal(r.items[1].moved_path, "final.c");
	assert_int_equal(r.items[1].moved_start, 1);
	assert_int_equal(r.items[1].moved_end, 2);
	expect(&r, 2, ROZ_VERIFY_MOVED);
	assert_string_equal(r.items[2].moved_path, "shifted.c");
	assert_int_equal(r.items[2].moved_start, 3);
	expect(&r, 3, ROZ_VERIFY_MISSING);
	assert_null(r.items[3].why);
	expect(&r, 4, ROZ_VERIFY_MISSING);
	assert_int_equal(tr.calls, 1);
	/* the hint: the earliest record's revision and time */
	assert_string_equal(tr.revision, "rev1");
	assert_true(tr.has_time);
	roz_verify_report_dispose(&r);
	free(tr.revision);
	free(text);

	/* nothing gone: never asked */
	tr.calls = 0;
	tr.revision = NULL;
	text = ledger(rec("r1", NULL, NULL, "own.c", 1, 1, h("other", b1)), NULL);
	run_opts(text, &o, &r);
	expect(&r, 0, ROZ_VERIFY_INTACT);
	assert_int_equal(tr.calls, 0);
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
	expect(&r, 3, ROZ_VERIFY_EDITED);
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
	expect(&r, 3, ROZ_VERIFY_EDITED);
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
	assert_int_equal(r.counts[ROZ_VERIFY_EDITED], 0);
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
	expect(&r, 1, ROZ_VERIFY_EDITED);
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

/* ---- what later records do to earlier ones ------------------------------------- */

/* A record of `files` (JSON array text) at time ts, with metadata.roz `meta` (JSON object text). Caller frees. */
static char *recx(const char *id, const char *ts, const char *files, const char *meta)
{
	return t_sprintf("{\"version\":\"0.1.0\",\"id\":\"%s\",\"timestamp\":\"%s\",\"files\":%s,"
			 "\"metadata\":{\"roz\":%s}}\n",
			 id, ts, files, meta);
}

/* One file, one conversation of `who`, ranges as JSON text. Caller frees. */
static char *file1(const char *path, const char *who, const char *ranges)
{
	return t_sprintf("[{\"path\":\"%s\",\"conversations\":[{\"contributor\":{\"type\":\"%s\"},\"ranges\":%s}]}]",
			 path, who, ranges);
}

/* A ranges array of one range with the hash of `lines`. Caller frees. */
static char *rg(unsigned long a, unsigned long b, const char *lines)
{
	char buf[80];

	return t_sprintf("[{\"start_line\":%lu,\"end_line\":%lu,\"content_hash\":\"%s\"}]", a, b, h(lines, buf));
}

/*
 * A person's range retires the agent's lines it covers and is never
 * checked itself; a record that removed the file, a person's acceptance
 * and a rename away each retire every earlier range of the file, the
 * earliest later one deciding how.
 */
static void test_later_records_retire(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "one\ntwo\n", 0}, {"b.c", "b\n", 0}, {"c.c", "c\n", 0},
				      {"new.c", "n\n", 0}};
	tfs fs = {files, 4, {0}};
	char *r1 = rg(1, 2, "one\ntwo"), *r2 = rg(2, 2, "two"), *r3 = rg(1, 1, "b"), *r4 = rg(1, 1, "c");
	char *r5 = rg(1, 1, "n"), *f[8];
	char *text;
	roz_verify_report r;

	f[0] = file1("a.c", "ai", r1);
	f[1] = file1("a.c", "human", r2);
	f[2] = file1("b.c", "ai", r3);
	f[3] = file1("b.c", "human", "[]");
	f[4] = file1("c.c", "ai", r4);
	f[5] = file1("c.c", "ai", "[]");
	f[6] = t_sprintf("[{\"path\":\"new.c\",\"conversations\":[{\"ranges\":%s}]}]", r5);
	f[7] = file1("c.c", "ai", r4);
	text = ledger(recx("r1", "2026-01-01T00:00:01Z", f[0], "{}"),
		      recx("r2", "2026-01-01T00:00:02Z", f[1], "{}"),                                 /* a person's */
		      recx("r3", "2026-01-01T00:00:03Z", f[2], "{}"),
		      recx("r4", "2026-01-01T00:00:04Z", f[3], "{\"action\":\"accept\"}"),            /* accepted */
		      recx("r5", "2026-01-01T00:00:05Z", f[4], "{}"),
		      recx("r6", "2026-01-01T00:00:06Z", f[5], "{\"removed\":[\"c.c\"]}"),            /* removed */
		      recx("r7", "2026-01-01T00:00:07Z", f[6], "{\"renamed\":[{\"from\":\"c.c\",\"to\":\"new.c\"}]}"),
		      recx("r8", "2026-01-01T00:00:00Z", f[7], "{}"), /* earlier than all: retired by r5 first */
		      NULL);
	run(text, NULL, &fs, &r);
	/* r2's range is a person's: not an item */
	assert_int_equal(r.n, 5);
	expect(&r, 0, ROZ_VERIFY_SUPERSEDED);
	assert_string_equal(r.items[0].record_id, "r1");
	expect(&r, 1, ROZ_VERIFY_ACCEPTED);
	expect(&r, 2, ROZ_VERIFY_REMOVED);
	expect(&r, 3, ROZ_VERIFY_INTACT);
	assert_string_equal(r.items[3].path, "new.c");
	expect(&r, 4, ROZ_VERIFY_SUPERSEDED);
	assert_string_equal(r.items[4].record_id, "r8");
	assert_int_equal(r.counts[ROZ_VERIFY_ACCEPTED], 1);
	assert_int_equal(r.counts[ROZ_VERIFY_REMOVED], 1);
	roz_verify_report_dispose(&r);
	free(text);
	for (size_t i = 0; i < 8; i++)
		free(f[i]);
	free(r1);
	free(r2);
	free(r3);
	free(r4);
	free(r5);
}

/*
 * Supersession on random ledgers, in and out of time order, against the
 * plain reading of the rule: a range is superseded when a record later in
 * time (ledger order breaking ties) has a range of the same file over any
 * of its lines.
 */
static void test_supersession_matches_the_rule(void **state)
{
	(void)state;
	static const tfile files[] = {{"f0", "x\n", 0}, {"f1", "x\n", 0}, {"f2", "x\n", 0}};
	enum { NREC = 120 };
	struct { unsigned file, sec, a[3], b[3], n; } recs[NREC];
	uint64_t seed = 88172645463325252ull;

	for (int round = 0; round < 6; round++) {
		tfs fs = {files, 3, {0}};
		char *text = t_sprintf("%s", "");
		roz_verify_report r;
		size_t item = 0;

		for (int i = 0; i < NREC; i++) {
			char *ranges = t_sprintf("%s", ""), *f, *line, *next;

			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			recs[i].file = (unsigned)(seed % 3);
			/* even rounds in time order; odd ones shuffled, with ties */
			recs[i].sec = round % 2 ? (unsigned)((seed >> 8) % 40) : (unsigned)i;
			recs[i].n = 1 + (unsigned)((seed >> 16) % 3);
			for (unsigned k = 0; k < recs[i].n; k++) {
				recs[i].a[k] = 1 + (unsigned)((seed >> (20 + 5 * k)) % 30);
				recs[i].b[k] = recs[i].a[k] + (unsigned)((seed >> (40 + 3 * k)) % 6);
				next = t_sprintf("%s%s{\"start_line\":%u,\"end_line\":%u,\"content_hash\":\"sha256:%064d\"}",
						 ranges, k ? "," : "", recs[i].a[k], recs[i].b[k], 0);
				free(ranges);
				ranges = next;
			}
			f = t_sprintf("[{\"path\":\"f%u\",\"conversations\":[{\"ranges\":[%s]}]}]", recs[i].file, ranges);
			line = t_sprintf("{\"id\":\"r%d\",\"timestamp\":\"2026-01-01T00:%02u:%02uZ\",\"files\":%s}\n", i,
					 recs[i].sec / 60, recs[i].sec % 60, f);
			next = t_sprintf("%s%s", text, line);
			free(text);
			text = next;
			free(line);
			free(f);
			free(ranges);
		}
		run(text, NULL, &fs, &r);
		for (int i = 0; i < NREC; i++)
			for (unsigned k = 0; k < recs[i].n; k++, item++) {
				bool sup = false;

				for (int j = 0; j < NREC && !sup; j++) {
					bool later = recs[j].sec > recs[i].sec || (recs[j].sec == recs[i].sec && j > i);

					if (j == i || !later || recs[j].file != recs[i].file)
						continue;
					for (unsigned m = 0; m < recs[j].n; m++)
						if (recs[j].a[m] <= recs[i].b[k] && recs[i].a[k] <= recs[j].b[m])
							sup = true;
				}
				assert_true(item < r.n);
				if (sup != (r.items[item].state == ROZ_VERIFY_SUPERSEDED))
					fail_msg("round %d, record %d, range %u: %s", round, i, k,
						 roz_verify_state_name(r.items[item].state));
			}
		roz_verify_report_dispose(&r);
		free(text);
	}
}

/* The records a revision's ledger held are not checked (since_known), and still supersede. */
static bool known_r1(void *ud, const char *id)
{
	(void)ud;
	return strcmp(id, "r1") == 0 || strcmp(id, "r2") == 0;
}

static void test_since_known(void **state)
{
	(void)state;
	static const tfile files[] = {{"a.c", "one\ntwo\n", 0}};
	tfs fs = {files, 1, {0}};
	roz_verify_opts o;
	char b1[80], b2[80], b3[80];
	char *text = ledger(rec("r1", "orphaned", NULL, "a.c", 1, 1, h("one", b1)),
			    rec("r3", "orphaned", NULL, "a.c", 2, 2, h("2", b2)),
			    rec("r2", "orphaned", NULL, "a.c", 1, 1, h("x", b3)), NULL);
	roz_verify_report r;

	memset(&o, 0, sizeof o);
	o.read = tfs_read;
	o.read_ud = &fs;
	o.since_known = known_r1;
	run_opts(text, &o, &r);
	assert_true(r.since_found);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.records, 3);
	expect(&r, 0, ROZ_VERIFY_EDITED);
	assert_int_equal(r.items[0].line, 2);
	/* without ROZ_VERIFY_EACH_IDS, no record id is read again */
	assert_null(r.items[0].record_id);
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
			expect(&r, 3, ROZ_VERIFY_MISSING);
			assert_non_null(r.items[3].why);
			expect(&r, 4, ROZ_VERIFY_MISSING);
			assert_null(r.items[4].why);
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
		cmocka_unit_test(test_unknown_hash_is_unverifiable),
		cmocka_unit_test(test_moved_within_the_file),
		cmocka_unit_test(test_not_looked_for_in_other_files),
		cmocka_unit_test(test_renames_are_followed),
		cmocka_unit_test(test_moved_of_several_lengths),
		cmocka_unit_test(test_later_records_supersede),
		cmocka_unit_test(test_records_are_read_in_time_order),
		cmocka_unit_test(test_a_record_does_not_supersede_itself),
		cmocka_unit_test(test_bad_lines_are_reported_and_skipped),
		cmocka_unit_test(test_last_record_without_newline),
		cmocka_unit_test(test_empty_ledger),
		cmocka_unit_test(test_since),
		cmocka_unit_test(test_later_records_retire),
		cmocka_unit_test(test_supersession_matches_the_rule),
		cmocka_unit_test(test_since_known),
		cmocka_unit_test(test_out_of_memory),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
