/*
 * test_blame.c - which record wrote each line of a file (roz/blame.h):
 * lines written where the record put them, moved, edited since, accepted
 * by a person, unverifiable, not recorded; a later record winning; a
 * removal retiring; renames followed back; running out of memory.
 * Records are written by hand, hashes computed here.
 */
#include "support.h"

#include "roz/blame.h"
#include "roz/digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A range over `lines` (the text it hashes: lines joined by "\n") at s-e. Caller frees. */
static char *rng(unsigned long s, unsigned long e, const char *lines)
{
	char hex[ROZ_SHA256_HEX_SIZE];

	roz_digest_sha256_hex(lines, strlen(lines), hex);
	return t_sprintf("{\"start_line\":%lu,\"end_line\":%lu,\"content_hash\":\"sha256:%s\"}", s, e, hex);
}

/* A record of one file with one range (freed), `meta` more members of metadata.roz. Caller frees. */
static char *rec(const char *id, const char *ts, const char *path, char *range, const char *who,
		 const char *meta)
{
	char *line = t_sprintf("{\"version\":\"0.1.0\",\"id\":\"%s\",\"timestamp\":\"%s\",\"files\":[{\"path\":\"%s\","
			       "\"conversations\":[{\"contributor\":{\"type\":\"%s\",\"model_id\":\"anthropic/m\"},"
			       "\"ranges\":[%s]}]}],\"metadata\":{\"roz\":{\"session_id\":\"s1\",\"intent_id\":\"INT-1\","
			       "\"tool_name\":\"Edit\"%s%s}}}",
			       id, ts, path, who, range ? range : "", *meta ? "," : "", meta);

	free(range);
	return line;
}

typedef struct recs {
	roz_ledger_rec r[16];
	size_t n;
} recs;

/* Parse record lines (each freed), NULL-terminated. */
static void parse(recs *out, ...)
{
	va_list ap;
	char *s;

	out->n = 0;
	va_start(ap, out);
	while ((s = va_arg(ap, char *))) {
		assert_true(out->n < 16);
		if (roz_ledger_line_parse(s, strlen(s), &out->r[out->n]) != ROZ_OK)
			fail_msg("not a record: %s: %s", roz_error_last(), s);
		out->n++;
		free(s);
	}
	va_end(ap);
}

static void recs_dispose(recs *r)
{
	for (size_t i = 0; i < r->n; i++)
		roz_ledger_rec_dispose(&r->r[i]);
	r->n = 0;
}

/*
 * Blame `text` as `path` and say per line: the record's index (a digit) and
 * the first letter of the state, or "--" for none; lines joined by " ".
 */
static char *blame(const char *path, const recs *r, const char *text)
{
	roz_blame_line *lines = NULL;
	unsigned long n = 0;
	char *out;

	assert_int_equal(roz_blame_run(path, r->r, r->n, text, strlen(text), &lines, &n), ROZ_OK);
	out = calloc(n * 3 + 1, 1);
	assert_non_null(out);
	for (unsigned long i = 0; i < n; i++) {
		if (lines[i].rec == ROZ_BLAME_NO_RECORD) {
			assert_int_equal(lines[i].state, ROZ_BLAME_NONE);
			memcpy(out + 3 * i, "-- ", 3);
		} else {
			out[3 * i] = (char)('0' + lines[i].rec);
			out[3 * i + 1] = roz_blame_state_name((roz_blame_state)lines[i].state)[0];
			out[3 * i + 2] = ' ';
		}
	}
	if (n)
		out[3 * n - 1] = '\0';
	roz_free(lines);
	return out;
}

static void expect(char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("blame is '%s', expected '%s'", got, want);
	free(got);
}

#define T1 "2026-10-01T00:00:00Z"
#define T2 "2026-10-02T00:00:00Z"
#define T3 "2026-10-03T00:00:00Z"

static void test_written_and_not_recorded(void **state)
{
	recs r;

	(void)state;
	parse(&r, rec("a", T1, "x.c", rng(2, 3, "b\nc"), "ai", ""), NULL);
	expect(blame("x.c", &r, "a\nb\nc\nd\n"), "-- 0w 0w --");
	/* another file's records say nothing of this one */
	expect(blame("y.c", &r, "a\nb\nc\nd\n"), "-- -- -- --");
	recs_dispose(&r);
}

static void test_moved_and_edited(void **state)
{
	recs r;

	(void)state;
	parse(&r, rec("a", T1, "x.c", rng(1, 2, "one\ntwo"), "ai", ""), NULL);
	/* two lines were put above: the range is found two lines down */
	expect(blame("x.c", &r, "new\nnew\none\ntwo\n"), "-- -- 0m 0m");
	/* changed in place: its lines are marked edited since */
	expect(blame("x.c", &r, "one\nTWO\nthree\n"), "0e 0e --");
	/* the file is shorter than the range now: only the lines there are marked */
	expect(blame("x.c", &r, "uno\n"), "0e");
	recs_dispose(&r);
}

static void test_later_records_win(void **state)
{
	recs r;

	(void)state;
	/* b takes a's range over (they overlap): a speaks for nothing */
	parse(&r, rec("a", T1, "x.c", rng(1, 3, "a\nb\nc"), "ai", ""), rec("b", T2, "x.c", rng(3, 4, "C\nd"), "ai", ""),
	      NULL);
	expect(blame("x.c", &r, "a\nb\nC\nd\n"), "-- -- 1w 1w");
	recs_dispose(&r);
	/* a's lines moved to where b's are: b is later and wins there */
	parse(&r, rec("a", T1, "x.c", rng(1, 1, "q"), "ai", ""), rec("b", T2, "x.c", rng(3, 3, "q"), "ai", ""), NULL);
	expect(blame("x.c", &r, "z\nz\nq\n"), "-- -- 1w");
	recs_dispose(&r);
}

static void test_accepted_and_unverifiable(void **state)
{
	recs r;

	(void)state;
	/* a person's acceptance retires a's range and stands for the file, even changed since */
	parse(&r, rec("a", T1, "x.c", rng(1, 2, "a\nb"), "ai", ""),
	      rec("p", T2, "x.c", rng(1, 3, "a\nB\nc"), "human", "\"action\":\"accept\",\"accepted_by\":\"ann\""),
	      NULL);
	expect(blame("x.c", &r, "a\nB2\nc\nd\n"), "1a 1a 1a --");
	recs_dispose(&r);
	/* a range without a SHA-256 cannot be checked */
	parse(&r, rec("a", T1, "x.c", t_sprintf("%s", "{\"start_line\":1,\"end_line\":1,\"content_hash\":\"md5:x\"}"), "ai",
		      ""),
	      NULL);
	expect(blame("x.c", &r, "a\nb\n"), "0u --");
	recs_dispose(&r);
}

static void test_removal_retires(void **state)
{
	recs r;

	(void)state;
	/* removed, then written again: what was there before the removal is not this file's */
	parse(&r, rec("a", T1, "x.c", rng(1, 1, "a"), "ai", ""), rec("r", T2, "x.c", NULL, "ai", "\"removed\":[\"x.c\"]"),
	      rec("b", T3, "x.c", rng(2, 2, "b"), "ai", ""), NULL);
	expect(blame("x.c", &r, "a\nb\n"), "-- 2w");
	recs_dispose(&r);
}

static void test_renames_are_followed_back(void **state)
{
	recs r;
	char **names = NULL;
	size_t n = 0;

	(void)state;
	/* a wrote b.c; b.c became c.c (no range of its own), then c.c became d.c */
	parse(&r, rec("a", T1, "b.c", rng(1, 1, "x"), "ai", ""),
	      rec("m", T2, "c.c", NULL, "ai", "\"renamed\":[{\"from\":\"b.c\",\"to\":\"c.c\"}]"),
	      rec("n", T3, "d.c", NULL, "ai", "\"renamed\":[{\"from\":\"c.c\",\"to\":\"d.c\"}]"), NULL);
	expect(blame("d.c", &r, "x\ny\n"), "0w --");
	assert_int_equal(roz_blame_names("d.c", r.r, r.n, &names, &n), ROZ_OK);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "c.c");
	assert_string_equal(names[1], "b.c");
	for (size_t i = 0; i < n; i++)
		roz_free(names[i]);
	roz_free(names);
	/* c.c was renamed away: a new c.c has none of that history */
	expect(blame("c.c", &r, "x\n"), "--");
	recs_dispose(&r);
	/* a rename that writes the whole file speaks for it */
	parse(&r, rec("a", T1, "b.c", rng(1, 1, "x"), "ai", ""),
	      rec("m", T2, "c.c", rng(1, 2, "x\ny"), "ai", "\"renamed\":[{\"from\":\"b.c\",\"to\":\"c.c\"}]"), NULL);
	expect(blame("c.c", &r, "x\ny"), "1w 1w");
	recs_dispose(&r);
}

static void test_empty_file_and_no_records(void **state)
{
	roz_blame_line *lines = (roz_blame_line *)&lines;
	unsigned long n = 7;

	(void)state;
	assert_int_equal(roz_blame_run("x.c", NULL, 0, "", 0, &lines, &n), ROZ_OK);
	assert_null(lines);
	assert_int_equal(n, 0);
	assert_string_equal(roz_blame_state_name(ROZ_BLAME_EDITED), "edited");
	assert_string_equal(roz_blame_state_name((roz_blame_state)99), "none");
}

static void test_out_of_memory(void **state)
{
	recs r;
	bool done = false;

	(void)state;
	parse(&r, rec("a", T1, "x.c", rng(1, 1, "q"), "ai", ""), rec("b", T2, "x.c", rng(2, 2, "z"), "ai", ""), NULL);
	for (long fail = 0; fail < 100 && !done; fail++) {
		roz_blame_line *lines = NULL;
		unsigned long n = 0;
		int rc;

		roz_alloc_fail_after(fail);
		rc = roz_blame_run("x.c", r.r, r.n, "z\nq\n", 4, &lines, &n);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK) {
			/* each record's line is found where the other's was */
			assert_int_equal(n, 2);
			assert_int_equal(lines[0].state, ROZ_BLAME_MOVED);
			assert_int_equal(lines[0].rec, 1);
			assert_int_equal(lines[1].state, ROZ_BLAME_MOVED);
			assert_int_equal(lines[1].rec, 0);
			done = true;
		} else {
			assert_int_equal(rc, ROZ_ENOMEM);
			assert_null(lines);
		}
		roz_free(lines);
	}
	assert_true(done);
	recs_dispose(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written_and_not_recorded),
		cmocka_unit_test(test_moved_and_edited),
		cmocka_unit_test(test_later_records_win),
		cmocka_unit_test(test_accepted_and_unverifiable),
		cmocka_unit_test(test_removal_retires),
		cmocka_unit_test(test_renames_are_followed_back),
		cmocka_unit_test(test_empty_file_and_no_records),
		cmocka_unit_test(test_out_of_memory),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
