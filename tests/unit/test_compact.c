/*
 * test_compact.c - which records of a ledger move to the archive
 * (roz/compact.h): ranges taken over, retired by a removal or an
 * acceptance, renamed; records kept so the rest reads as before; the
 * readers' order by time; lines that are not records; the archive month;
 * running out of memory. Ledgers are written by hand.
 */
#include "support.h"

#include "roz/compact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One record: `files` is the JSON of its files array's members, `meta` more
 * members of metadata.roz (or ""). ts NULL: no timestamp. Caller frees.
 */
static char *rec(const char *id, const char *ts, const char *files, const char *meta)
{
	char *t = ts ? t_sprintf("\"timestamp\":\"%s\",", ts) : t_sprintf("%s", "");
	char *line = t_sprintf("{\"version\":\"0.1.0\",\"id\":\"%s\",%s\"files\":[%s],"
			       "\"metadata\":{\"roz\":{\"session_id\":\"s1\",\"tool_name\":\"Edit\"%s%s}}}",
			       id, t, files, *meta ? "," : "", meta);

	free(t);
	return line;
}

/* A file with ranges "s-e,s-e" (no hashes: compaction reads none). Caller frees. */
static char *file(const char *path, const char *ranges)
{
	char buf[1024] = "";
	const char *p = ranges;
	size_t n = 0;

	while (*p) {
		unsigned long s, e;
		int used = 0;

		if (sscanf(p, "%lu-%lu%n", &s, &e, &used) != 2)
			fail_msg("bad range list '%s'", ranges);
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s{\"start_line\":%lu,\"end_line\":%lu}",
				      n ? "," : "", s, e);
		p += used;
		if (*p == ',')
			p++;
	}
	return t_sprintf("{\"path\":\"%s\",\"conversations\":[{\"contributor\":{\"type\":\"ai\"},\"ranges\":[%s]}]}",
			 path, buf);
}

/*
 * Plan the ledger (lines joined by "\n", each freed) and say per line what
 * happens: 'm' moves, 'k' a record stays, '.' a line that is not a record.
 */
static char *plan_of(const char *first, ...)
{
	va_list ap;
	roz_compact *c = roz_compact_new();
	const roz_compact_line *lines;
	size_t n, moved, off = 0;
	char *out;

	assert_non_null(c);
	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *)) {
		assert_int_equal(roz_compact_add(c, s, strlen(s), off, true), ROZ_OK);
		off += strlen(s) + 1;
		free((void *)(uintptr_t)s);
	}
	va_end(ap);
	assert_int_equal(roz_compact_plan(c, &lines, &n, &moved), ROZ_OK);
	out = calloc(n + 1, 1);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		out[i] = lines[i].move ? 'm' : lines[i].record ? 'k' : '.';
		assert_int_equal(lines[i].line, i + 1);
	}
	roz_compact_free(c);
	return out;
}

static void expect_plan(char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("plan is '%s', expected '%s'", got, want);
	free(got);
}

#define T1 "2026-10-01T00:00:00Z"
#define T2 "2026-10-02T00:00:00Z"
#define T3 "2026-11-03T00:00:00Z"
#define T4 "2026-11-04T00:00:00Z"

static char *rec1(const char *id, const char *ts, const char *path, const char *ranges)
{
	char *f = file(path, ranges), *r = rec(id, ts, f, "");

	free(f);
	return r;
}

static void test_taken_over_moves(void **state)
{
	(void)state;
	/* the second covers lines the first wrote: the first speaks for nothing */
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-5"), rec1("b", T2, "x.c", "3-3"), NULL), "mk");
	/* no overlap: both speak */
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-5"), rec1("b", T2, "x.c", "6-9"), NULL), "kk");
	/* another file's lines take nothing over */
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-5"), rec1("b", T2, "y.c", "1-5"), NULL), "kk");
	/* one range still standing keeps the record */
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-2,8-9"), rec1("b", T2, "x.c", "1-1"), NULL), "kk");
	/* a record never takes over its own ranges */
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-5,2-3"), NULL), "k");
}

static void test_a_record_that_took_over_a_staying_one_stays(void **state)
{
	(void)state;
	/*
	 * a's 1-2 was taken over by b, and b's by c; a stays for its 8-9, so b
	 * must stay to keep a's 1-2 superseded, and c stays anyway
	 */
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-2,8-9"), rec1("b", T2, "x.c", "1-2"),
			    rec1("c", T3, "x.c", "1-2"), NULL),
		    "kkk");
	/* once a is gone too, b goes */
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-2"), rec1("b", T2, "x.c", "1-2"), rec1("c", T3, "x.c", "1-2"),
			    NULL),
		    "mmk");
}

static void test_removal_and_acceptance_retire(void **state)
{
	char *f;

	(void)state;
	/* a removal retires a's ranges; it then speaks for nothing itself, and nothing stays that it retired */
	f = file("x.c", "");
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-5"), rec("r", T2, f, "\"removed\":[\"x.c\"]"), NULL), "mm");
	free(f);
	/* an acceptance retires a's ranges and stands for the file itself */
	f = file("x.c", "1-9");
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-5"), rec("p", T2, f, "\"action\":\"accept\""), NULL), "mk");
	free(f);
	/*
	 * a stays for y.c; its x.c range was retired by the acceptance, so the
	 * acceptance stays while a does
	 */
	{
		char *x = file("x.c", "1-5"), *y = file("y.c", "1-1"), *both = t_sprintf("%s,%s", x, y);
		char *g = file("x.c", "");

		expect_plan(plan_of(rec("a", T1, both, ""), rec("r", T2, g, "\"removed\":[\"x.c\"]"), NULL), "kk");
		free(x);
		free(y);
		free(both);
		free(g);
	}
}

static void test_rename_retires_the_old_name(void **state)
{
	char *f;

	(void)state;
	/* b.c renamed to c.c (no ranges of its own: too large to hash): a's lines went with the old name */
	f = file("c.c", "");
	expect_plan(plan_of(rec1("a", T1, "b.c", "1-3"), rec("m", T2, f, "\"renamed\":[{\"from\":\"b.c\",\"to\":\"c.c\"}]"),
			    NULL),
		    "mm");
	free(f);
	/* with the whole file as its range, the rename speaks for c.c */
	f = file("c.c", "1-3");
	expect_plan(plan_of(rec1("a", T1, "b.c", "1-3"), rec("m", T2, f, "\"renamed\":[{\"from\":\"b.c\",\"to\":\"c.c\"}]"),
			    NULL),
		    "mk");
	free(f);
	/* a record of b.c that stays for another file keeps the rename that retired its b.c lines */
	f = file("c.c", "");
	{
		char *x = file("b.c", "1-3"), *y = file("y.c", "1-1"), *both = t_sprintf("%s,%s", x, y);

		expect_plan(plan_of(rec("a", T1, both, ""),
				    rec("m", T2, f, "\"renamed\":[{\"from\":\"b.c\",\"to\":\"c.c\"}]"), NULL),
			    "kk");
		free(x);
		free(y);
		free(both);
	}
	free(f);
	/* the rename retires only what came before it */
	f = file("c.c", "");
	expect_plan(plan_of(rec("m", T1, f, "\"renamed\":[{\"from\":\"b.c\",\"to\":\"c.c\"}]"),
			    rec1("a", T2, "b.c", "1-3"), NULL),
		    "mk");
	free(f);
}

static void test_order_is_by_time(void **state)
{
	(void)state;
	/* later in the file, earlier in time (a merge): the newer one, first in the file, wins */
	expect_plan(plan_of(rec1("b", T2, "x.c", "1-5"), rec1("a", T1, "x.c", "1-5"), NULL), "km");
	/* a line that is not a record plays no part */
	expect_plan(plan_of(rec1("b", T2, "x.c", "1-5"), t_sprintf("%s", "garbage"), rec1("a", T1, "x.c", "1-5"), NULL),
		    "k.m");
	/* a record without a time: the ledger's order holds for all, as verify reads it (and it stays) */
	expect_plan(plan_of(rec1("b", T2, "x.c", "1-5"), rec1("n", NULL, "y.c", "1-1"), rec1("a", T1, "x.c", "1-5"), NULL),
		    "mkk");
	/* same time: ledger order */
	expect_plan(plan_of(rec1("a", T1, "x.c", "1-5"), rec1("b", T1, "x.c", "1-5"), NULL), "mk");
}

static void test_lines_that_are_not_records_stay(void **state)
{
	(void)state;
	expect_plan(plan_of(t_sprintf("%s", ""), rec1("a", T1, "x.c", "1-5"), t_sprintf("%s", "{\"torn"),
			    t_sprintf("%s", "   "), rec1("b", T2, "x.c", "1-5"), NULL),
		    ".m..k");
	/* a record without its own time never moves (its month is not known) */
	expect_plan(plan_of(rec1("a", NULL, "x.c", "1-5"), rec1("b", T2, "x.c", "1-5"), NULL), "kk");
}

static void test_months_and_offsets(void **state)
{
	roz_compact *c = roz_compact_new();
	const roz_compact_line *lines;
	char *a = rec1("a", "2026-10-31T23:59:59+00:00", "x.c", "1-1");
	char *b = rec1("b", "2026-11-01T00:30:00+01:00", "x.c", "1-1");
	char *d = rec1("d", T4, "x.c", "1-1");
	size_t n, moved;

	(void)state;
	assert_non_null(c);
	assert_int_equal(roz_compact_add(c, a, strlen(a), 0, true), ROZ_OK);
	/* a line too long to hold stays; b is earlier than a, and is read first */
	assert_int_equal(roz_compact_add(c, NULL, ROZ_LEDGER_MAX_LINE + 1, 100, true), ROZ_OK);
	assert_int_equal(roz_compact_add(c, b, strlen(b), 200, true), ROZ_OK);
	assert_int_equal(roz_compact_add(c, d, strlen(d), 300, false), ROZ_OK);
	assert_int_equal(roz_compact_plan(c, &lines, &n, &moved), ROZ_OK);
	assert_int_equal(n, 4);
	assert_int_equal(moved, 2);
	assert_true(lines[0].move);
	assert_string_equal(lines[0].month, "2026-10");
	assert_false(lines[1].move);
	assert_false(lines[1].record);
	assert_int_equal(lines[1].offset, 100);
	/* 00:30 at +01:00 is still October in UTC */
	assert_true(lines[2].move);
	assert_string_equal(lines[2].month, "2026-10");
	assert_false(lines[3].move);
	assert_false(lines[3].ended);
	/* planned once: the same answer again, and no line taken after */
	assert_int_equal(roz_compact_plan(c, &lines, &n, &moved), ROZ_OK);
	assert_int_equal(n, 4);
	assert_int_equal(moved, 2);
	assert_int_equal(roz_compact_add(c, a, strlen(a), 400, true), ROZ_EINVALID);
	roz_compact_free(c);
	free(a);
	free(b);
	free(d);
}

static bool line_time(const char *s, roz_time *t)
{
	return roz_ledger_line_time(s, strlen(s), t);
}

static void test_order_helpers(void **state)
{
	roz_ledger_order o;
	roz_time t1, t2;

	(void)state;
	memset(&o, 0, sizeof o);
	assert_true(line_time("{\"id\":\"x\",\"timestamp\":\"" T2 "\"}", &t2));
	assert_true(line_time("{\"timestamp\":\"" T1 "\"}", &t1));
	assert_true(roz_time_cmp(t1, t2) < 0);
	assert_false(line_time("{\"timestamp\":\"yesterday\"}", &t1));
	assert_false(line_time("{\"time\":\"" T1 "\"}", &t1));
	roz_ledger_order_see(&o, true, t2);
	roz_ledger_order_see(&o, true, t1);
	assert_true(roz_ledger_order_sorts(&o));
	/* appended after: must be no earlier than the latest seen */
	assert_true(roz_ledger_order_follows(&o, true, t2));
	assert_false(roz_ledger_order_follows(&o, true, t1));
	assert_false(roz_ledger_order_follows(&o, false, t1));
	/* a record without a time: the ledger's order, whatever comes after */
	roz_ledger_order_see(&o, false, t1);
	assert_false(roz_ledger_order_sorts(&o));
	assert_true(roz_ledger_order_follows(&o, false, t1));
	assert_true(roz_ledger_order_follows(&o, true, t1));
}

static void test_out_of_memory(void **state)
{
	char *a = rec1("a", T1, "x.c", "1-5"), *b = rec1("b", T2, "x.c", "1-5");
	bool done = false;

	(void)state;
	for (long fail = 0; fail < 500 && !done; fail++) {
		roz_compact *c;
		const roz_compact_line *lines;
		size_t n, moved;
		int rc = ROZ_ENOMEM;

		roz_alloc_fail_after(fail);
		c = roz_compact_new();
		if (c && roz_compact_add(c, a, strlen(a), 0, true) == ROZ_OK &&
		    roz_compact_add(c, b, strlen(b), strlen(a) + 1, true) == ROZ_OK)
			rc = roz_compact_plan(c, &lines, &n, &moved);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK) {
			assert_int_equal(moved, 1);
			done = true;
		} else {
			assert_int_equal(rc, ROZ_ENOMEM);
		}
		roz_compact_free(c);
	}
	assert_true(done);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken_over_moves),
		cmocka_unit_test(test_a_record_that_took_over_a_staying_one_stays),
		cmocka_unit_test(test_removal_and_acceptance_retire),
		cmocka_unit_test(test_rename_retires_the_old_name),
		cmocka_unit_test(test_order_is_by_time),
		cmocka_unit_test(test_lines_that_are_not_records_stay),
		cmocka_unit_test(test_months_and_offsets),
		cmocka_unit_test(test_order_helpers),
		cmocka_unit_test(test_out_of_memory),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
