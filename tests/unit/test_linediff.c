/*
 * test_linediff.c - the lines a change added to a file (roz/linediff.h),
 * and the ledger's ranges made from them: single edits anywhere, separate
 * edits kept separate, deletions adding nothing, the last line without
 * "\n", and a property check against a textbook LCS on many random texts:
 * what is reported is exactly what a shortest edit adds.
 */
#include "support.h"

#include "roz/ledger.h"
#include "roz/linediff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The spans as "s-e s-e ..." ("" when none). */
static char *spans_of(const char *before, const char *after)
{
	roz_line_span *s = NULL;
	size_t n = 0;
	static char out[4096];
	size_t at = 0;

	assert_int_equal(roz_line_diff_added(before, before ? strlen(before) : 0, after, after ? strlen(after) : 0,
					     &s, &n),
			 ROZ_OK);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			assert_true(s[i].start > s[i - 1].end + 1); /* sorted, not touching */
		assert_true(s[i].start <= s[i].end);
		at += (size_t)snprintf(out + at, sizeof out - at, "%s%lu-%lu", i ? " " : "", s[i].start, s[i].end);
	}
	roz_free(s);
	return out;
}

static void nothing_changed_adds_nothing(void **state)
{
	(void)state;
	assert_string_equal(spans_of("a\nb\nc\n", "a\nb\nc\n"), "");
	assert_string_equal(spans_of("", ""), "");
	assert_string_equal(spans_of(NULL, NULL), "");
	/* a "\n" added to a last line that had none changes no line's text */
	assert_string_equal(spans_of("a\nb", "a\nb\n"), "");
}

static void one_line_rewritten_is_that_line(void **state)
{
	(void)state;
	assert_string_equal(spans_of("1\n2\n3\n4\n5\n", "1\n2\n3\nfour\n5\n"), "4-4");
	assert_string_equal(spans_of("1\n2\n3\n", "one\n2\n3\n"), "1-1");
	assert_string_equal(spans_of("1\n2\n3\n", "1\n2\nthree\n"), "3-3");
	assert_string_equal(spans_of("1\n2\n3", "1\n2\n3 and more"), "3-3");
}

static void insertions_anywhere(void **state)
{
	(void)state;
	assert_string_equal(spans_of("a\nb\n", "new\na\nb\n"), "1-1");
	assert_string_equal(spans_of("a\nb\n", "a\nx\ny\nb\n"), "2-3");
	assert_string_equal(spans_of("a\nb\n", "a\nb\nc\nd\n"), "3-4");
	assert_string_equal(spans_of("a\nb", "a\nb\nc"), "3-3");
	assert_string_equal(spans_of("", "x\ny\n"), "1-2");
	assert_string_equal(spans_of(NULL, "x\n"), "1-1");
}

static void deletions_add_nothing(void **state)
{
	(void)state;
	assert_string_equal(spans_of("a\nb\nc\n", "a\nc\n"), "");
	assert_string_equal(spans_of("a\nb\nc\n", ""), "");
	assert_string_equal(spans_of("a\nb\nc\nd\n", "b\nd\n"), "");
}

static void separate_edits_stay_separate(void **state)
{
	char before[8192] = "", after[8192] = "";

	(void)state;
	for (int i = 1; i <= 500; i++) {
		char l[32];

		snprintf(l, sizeof l, "line %d\n", i);
		strcat(before, l);
		if (i == 3 || i == 250 || i == 498)
			snprintf(l, sizeof l, "LINE %d\n", i);
		strcat(after, l);
	}
	assert_string_equal(spans_of(before, after), "3-3 250-250 498-498");
}

static void a_moved_line_is_added_where_it_lands(void **state)
{
	(void)state;
	assert_string_equal(spans_of("a\nb\nc\n", "b\nc\na\n"), "3-3");
	/* repeated lines: one more "x" is one line added */
	assert_string_equal(spans_of("x\nx\ny\n", "x\nx\nx\ny\n"), "3-3");
}

static void too_different_takes_the_whole_middle(void **state)
{
	size_t n = 3000;
	char *before = malloc(n * 8 + 16), *after = malloc(n * 8 + 16);
	size_t b = 0, a = 0;
	char want[64];

	(void)state;
	assert_non_null(before);
	assert_non_null(after);
	b += (size_t)sprintf(before + b, "head\n");
	a += (size_t)sprintf(after + a, "head\n");
	for (size_t i = 0; i < n; i++) {
		b += (size_t)sprintf(before + b, "b%zu\n", i);
		a += (size_t)sprintf(after + a, "a%zu\n", i);
	}
	sprintf(before + b, "tail\n");
	sprintf(after + a, "tail\n");
	/* 6000 differences is past the bound: lines 2..3001, the whole middle */
	snprintf(want, sizeof want, "2-%zu", n + 1);
	assert_string_equal(spans_of(before, after), want);
	free(before);
	free(after);
}

/* ---- the property: a shortest edit's insertions, checked by LCS -------------- */

static unsigned rnd_state = 12345;

static unsigned rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) & 0x7fff;
}

/* A text of n lines drawn from a small alphabet, so lines repeat. */
static void random_text(char *out, int n, int alphabet)
{
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		char l[8];

		snprintf(l, sizeof l, "%c\n", 'a' + (int)(rnd() % (unsigned)alphabet));
		strcat(out, l);
	}
}

static int lcs(const char *a, int na, const char *b, int nb)
{
	static int t[41][41];

	for (int i = 0; i <= na; i++)
		for (int j = 0; j <= nb; j++)
			t[i][j] = !i || !j ? 0
				  : a[2 * (i - 1)] == b[2 * (j - 1)]
				      ? t[i - 1][j - 1] + 1
				      : (t[i - 1][j] > t[i][j - 1] ? t[i - 1][j] : t[i][j - 1]);
	return t[na][nb];
}

static void what_is_added_is_what_a_shortest_edit_adds(void **state)
{
	(void)state;
	for (int round = 0; round < 3000; round++) {
		char a[128], b[128], kept[128];
		int na = (int)(rnd() % 40), nb = (int)(rnd() % 40), alphabet = 1 + (int)(rnd() % 5);
		roz_line_span *s = NULL;
		size_t n = 0, added = 0, k = 0, at = 0;
		bool subseq;

		random_text(a, na, alphabet);
		random_text(b, nb, alphabet);
		assert_int_equal(roz_line_diff_added(a, strlen(a), b, strlen(b), &s, &n), ROZ_OK);
		/* the lines not added, in order, are a subsequence of the old text ... */
		for (int j = 1; j <= nb; j++) {
			bool in = k < n && (unsigned long)j >= s[k].start && (unsigned long)j <= s[k].end;

			if (in) {
				added++;
				if ((unsigned long)j == s[k].end)
					k++;
			} else {
				kept[at++] = b[2 * (j - 1)];
			}
		}
		subseq = true;
		{
			size_t x = 0;

			for (size_t y = 0; y < at; y++) {
				while (x < (size_t)na && a[2 * x] != kept[y])
					x++;
				if (x == (size_t)na) {
					subseq = false;
					break;
				}
				x++;
			}
		}
		if (!subseq || added != (size_t)(nb - lcs(a, na, b, nb)))
			fail_msg("round %d: before %s / after %s: %zu added, a shortest edit adds %d", round, a, b,
				 added, nb - lcs(a, na, b, nb));
		roz_free(s);
	}
}

static void ranges_of_a_change_are_hashed_like_any_write(void **state)
{
	const char *before = "a\nb\nc\nd\n", *after = "a\nB\nc\nd\ne\n";
	roz_ledger_ranges r;
	char h[ROZ_SHA256_HEX_SIZE];

	(void)state;
	assert_int_equal(roz_ledger_ranges_of_change(before, strlen(before), after, strlen(after), &r), ROZ_OK);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.items[0].start_line, 2);
	assert_int_equal(r.items[0].end_line, 2);
	assert_int_equal(r.items[1].start_line, 5);
	assert_int_equal(r.items[1].end_line, 5);
	roz_ledger_hash_lines(after, strlen(after), 2, 2, h);
	assert_string_equal(r.items[0].hash, h);
	roz_ledger_ranges_dispose(&r);
	/* nothing added: no range */
	assert_int_equal(roz_ledger_ranges_of_change(after, strlen(after), "a\nc\n", 4, &r), ROZ_OK);
	assert_int_equal(r.n, 0);
	roz_ledger_ranges_dispose(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_changed_adds_nothing),
		cmocka_unit_test(one_line_rewritten_is_that_line),
		cmocka_unit_test(insertions_anywhere),
		cmocka_unit_test(deletions_add_nothing),
		cmocka_unit_test(separate_edits_stay_separate),
		cmocka_unit_test(a_moved_line_is_added_where_it_lands),
		cmocka_unit_test(too_different_takes_the_whole_middle),
		cmocka_unit_test(what_is_added_is_what_a_shortest_edit_adds),
		cmocka_unit_test(ranges_of_a_change_are_hashed_like_any_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
