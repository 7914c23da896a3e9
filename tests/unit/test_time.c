/*
 * test_time.c - RFC 3339 parsing and formatting (the shape chrono writes),
 * comparison and the saturating arithmetic that keeps huge cooldowns safe.
 */
#include "support.h"

#include "roz/clock.h"
#include "roz/time.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* 2026-01-05T10:30:00Z, computed with Python's calendar.timegm. */
#define T_2026_01_05 INT64_C(1767609000)

static roz_time must_parse(const char *text)
{
	roz_time t = {0, 0};
	int rc = roz_time_parse(text, &t);

	if (rc != ROZ_OK)
		fail_msg("'%s' did not parse (%d): %s", text, rc, roz_error_last());
	return t;
}

static void assert_parses_to(const char *text, int64_t sec, int32_t nsec)
{
	roz_time t = must_parse(text);

	if (t.sec != sec || t.nsec != nsec)
		fail_msg("'%s' -> %lld.%09d, expected %lld.%09d", text, (long long)t.sec, (int)t.nsec,
			 (long long)sec, (int)nsec);
}

static void assert_rejected(const char *text)
{
	/* a sentinel that parse must not overwrite on failure */
	roz_time t = {42, 7};
	int rc = roz_time_parse(text, &t);

	if (rc != ROZ_EINVALID)
		fail_msg("'%s' was accepted (rc %d, %lld.%09d)", text, rc, (long long)t.sec, (int)t.nsec);
}

static void assert_formats(int64_t sec, int32_t nsec, const char *want)
{
	char buf[ROZ_TIME_BUFSZ];
	char *ret = roz_time_format(roz_time_make(sec, nsec), buf);

	assert_ptr_equal(ret, buf);
	assert_string_equal(buf, want);
}

/* ---- parsing ----------------------------------------------------------------- */

static void test_parse_utc_z(void **state)
{
	(void)state;
	assert_parses_to("2026-01-05T10:30:00Z", T_2026_01_05, 0);
	assert_parses_to("1970-01-01T00:00:00Z", 0, 0);
	assert_parses_to("1969-12-31T23:59:59Z", -1, 0);
	assert_parses_to("2000-03-01T00:00:00Z", INT64_C(951868800), 0);
}

static void test_parse_lowercase_and_space(void **state)
{
	(void)state;
	assert_parses_to("2026-01-05t10:30:00z", T_2026_01_05, 0);
	assert_parses_to("2026-01-05 10:30:00Z", T_2026_01_05, 0);
	assert_parses_to("2026-01-05T10:30:00z", T_2026_01_05, 0);
}

static void test_parse_offsets(void **state)
{
	(void)state;
	/* the same instant written in three zones */
	assert_parses_to("2026-01-05T12:30:00+02:00", T_2026_01_05, 0);
	assert_parses_to("2026-01-05T05:00:00-05:30", T_2026_01_05, 0);
	assert_parses_to("2026-01-05T10:30:00+00:00", T_2026_01_05, 0);
	assert_parses_to("2026-01-05T10:30:00-00:00", T_2026_01_05, 0);
	/* an offset that moves the instant across midnight and a year */
	assert_parses_to("2026-01-01T00:30:00+01:00", T_2026_01_05 - 4 * 86400 - 10 * 3600 - 3600, 0);
	assert_parses_to("2026-01-05T10:30:00+23:59", T_2026_01_05 - 23 * 3600 - 59 * 60, 0);
}

static void test_parse_fraction_digits(void **state)
{
	(void)state;
	assert_parses_to("2026-01-05T10:30:00.5Z", T_2026_01_05, 500000000);
	assert_parses_to("2026-01-05T10:30:00.05Z", T_2026_01_05, 50000000);
	assert_parses_to("2026-01-05T10:30:00.123Z", T_2026_01_05, 123000000);
	assert_parses_to("2026-01-05T10:30:00.1234Z", T_2026_01_05, 123400000);
	assert_parses_to("2026-01-05T10:30:00.123456Z", T_2026_01_05, 123456000);
	assert_parses_to("2026-01-05T10:30:00.1234567Z", T_2026_01_05, 123456700);
	assert_parses_to("2026-01-05T10:30:00.123456789Z", T_2026_01_05, 123456789);
	assert_parses_to("2026-01-05T10:30:00.000000001Z", T_2026_01_05, 1);
	assert_parses_to("2026-01-05T10:30:00.000Z", T_2026_01_05, 0);
	/* digits beyond nanoseconds are read and dropped, not rounded */
	assert_parses_to("2026-01-05T10:30:00.1234567899999Z", T_2026_01_05, 123456789);
	assert_parses_to("2026-01-05T10:30:00.999999999999+01:00", T_2026_01_05 - 3600, 999999999);
}

static void test_parse_fixture_timestamps(void **state)
{
	(void)state;
	/* timestamps as the Rust roz writes them */
	assert_parses_to("2026-11-22T02:18:05.400390549Z", INT64_C(1795313885), 400390549);
	assert_parses_to("2026-11-22T02:18:05.397721001Z", INT64_C(1795313885), 397721001);
}

static void test_parse_leap_second(void **state)
{
	roz_time leap, before;

	(void)state;
	/* second 60 is accepted and read as the last second of its minute */
	leap = must_parse("2016-12-31T23:59:60Z");
	before = must_parse("2016-12-31T23:59:59Z");
	assert_int_equal(before.sec, INT64_C(1483228799));
	assert_int_equal(leap.sec, before.sec);
	leap = must_parse("2016-12-31T23:59:60.5Z");
	assert_int_equal(leap.sec, before.sec);
	assert_int_equal(leap.nsec, 500000000);
	assert_rejected("2016-12-31T23:59:61Z");
}

static void test_parse_leap_years(void **state)
{
	(void)state;
	assert_parses_to("2024-02-29T00:00:00Z", INT64_C(1709164800), 0);
	assert_parses_to("2000-02-29T00:00:00Z", INT64_C(951782400), 0);
	assert_rejected("2025-02-29T00:00:00Z");
	assert_rejected("1900-02-29T00:00:00Z");
	assert_rejected("2100-02-29T00:00:00Z");
}

static void test_parse_rejects_bad_dates(void **state)
{
	(void)state;
	assert_rejected("2026-02-30T00:00:00Z");
	assert_rejected("2026-04-31T00:00:00Z");
	assert_rejected("2026-13-01T00:00:00Z");
	assert_rejected("2026-00-10T00:00:00Z");
	assert_rejected("2026-01-00T00:00:00Z");
	assert_rejected("2026-01-32T00:00:00Z");
	assert_rejected("2026-01-05T24:00:00Z");
	assert_rejected("2026-01-05T23:60:00Z");
}

static void test_parse_rejects_bad_syntax(void **state)
{
	(void)state;
	assert_rejected("");
	assert_rejected("2026-01-05T10:30:00");         /* no zone */
	assert_rejected("2026-01-05T10:30:00ZZ");       /* trailing junk */
	assert_rejected("2026-01-05T10:30:00Z ");
	assert_rejected("2026-01-05T10:30:00.Z");        /* dot without digits */
	assert_rejected("2026-01-05T10:30:00.12a3Z");
	assert_rejected("2026-01-05");                   /* date only */
	assert_rejected("2026-1-05T10:30:00Z");          /* short fields */
	assert_rejected("2026-01-05T10:30Z");
	assert_rejected("26-01-05T10:30:00Z");
	assert_rejected("2026/01/05T10:30:00Z");
	assert_rejected("2026-01-05X10:30:00Z");
	assert_rejected("2026-01-05T10-30-00Z");
	assert_rejected("2026-01-05T10:30:00+0200");     /* offset without colon */
	assert_rejected("2026-01-05T10:30:00+02");
	assert_rejected("2026-01-05T10:30:00+24:00");
	assert_rejected("2026-01-05T10:30:00+02:60");
	assert_rejected("2026-01-05T10:30:00+02:00x");
	assert_rejected("2026-01-05T10:30:00UTC");
	assert_rejected(" 2026-01-05T10:30:00Z");
	assert_rejected("+2026-01-05T10:30:00Z");
	assert_rejected("1767609000");
}

static void test_parse_null(void **state)
{
	roz_time t = {1, 2};

	(void)state;
	assert_int_equal(roz_time_parse(NULL, &t), ROZ_EINVALID);
	assert_int_equal(t.sec, 1);
}

static void test_parse_error_message(void **state)
{
	roz_time t;

	(void)state;
	roz_error_clear();
	assert_int_equal(roz_time_parse("not a time", &t), ROZ_EINVALID);
	assert_non_null(strstr(roz_error_last(), "not a time"));
}

/* Every day over two centuries agrees with the C library's timegm(). */
static void test_parse_agrees_with_timegm(void **state)
{
	(void)state;
	for (time_t day = -INT64_C(70) * 365 * 86400; day < INT64_C(130) * 365 * 86400; day += 86400 + 3671) {
		struct tm tm;
		char text[64];
		roz_time t;

		gmtime_r(&day, &tm);
		strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
		t = must_parse(text);
		if (t.sec != (int64_t)day || t.nsec != 0)
			fail_msg("'%s' -> %lld, timegm says %lld", text, (long long)t.sec, (long long)day);
	}
}

/* ---- formatting ---------------------------------------------------------------- */

static void test_format_whole_seconds(void **state)
{
	(void)state;
	assert_formats(T_2026_01_05, 0, "2026-01-05T10:30:00Z");
	assert_formats(0, 0, "1970-01-01T00:00:00Z");
	assert_formats(-1, 0, "1969-12-31T23:59:59Z");
	assert_formats(INT64_C(951782400), 0, "2000-02-29T00:00:00Z");
}

static void test_format_fraction_widths(void **state)
{
	(void)state;
	/* chrono's AutoSi: the shortest of 3, 6 or 9 digits that is exact */
	assert_formats(T_2026_01_05, 500000000, "2026-01-05T10:30:00.500Z");
	assert_formats(T_2026_01_05, 1000000, "2026-01-05T10:30:00.001Z");
	assert_formats(T_2026_01_05, 120000000, "2026-01-05T10:30:00.120Z");
	assert_formats(T_2026_01_05, 1000, "2026-01-05T10:30:00.000001Z");
	assert_formats(T_2026_01_05, 123456000, "2026-01-05T10:30:00.123456Z");
	assert_formats(T_2026_01_05, 500001000, "2026-01-05T10:30:00.500001Z");
	assert_formats(T_2026_01_05, 1, "2026-01-05T10:30:00.000000001Z");
	assert_formats(T_2026_01_05, 123456789, "2026-01-05T10:30:00.123456789Z");
	assert_formats(T_2026_01_05, 999999999, "2026-01-05T10:30:00.999999999Z");
	assert_formats(T_2026_01_05, 100, "2026-01-05T10:30:00.000000100Z");
}

static void test_format_before_epoch_with_fraction(void **state)
{
	(void)state;
	/* a negative second count still prints a forward-counting fraction */
	assert_formats(-1, 500000000, "1969-12-31T23:59:59.500Z");
	assert_formats(-86400, 0, "1969-12-31T00:00:00Z");
	assert_formats(-86401, 0, "1969-12-30T23:59:59Z");
}

static void test_format_range_ends(void **state)
{
	(void)state;
	assert_formats(ROZ_TIME_MIN_SEC, 0, "0000-01-01T00:00:00Z");
	assert_formats(ROZ_TIME_MAX_SEC, 999999999, "9999-12-31T23:59:59.999999999Z");
	assert_parses_to("0000-01-01T00:00:00Z", ROZ_TIME_MIN_SEC, 0);
	assert_parses_to("9999-12-31T23:59:59.999999999Z", ROZ_TIME_MAX_SEC, 999999999);
}

static void test_format_sec(void **state)
{
	char buf[ROZ_TIME_BUFSZ];

	(void)state;
	assert_ptr_equal(roz_time_format_sec(roz_time_make(T_2026_01_05, 987654321), buf), buf);
	assert_string_equal(buf, "2026-01-05T10:30:00Z");
	roz_time_format_sec(roz_time_make(T_2026_01_05, 0), buf);
	assert_string_equal(buf, "2026-01-05T10:30:00Z");
	roz_time_format_sec(roz_time_make(ROZ_TIME_MAX_SEC, 999999999), buf);
	assert_string_equal(buf, "9999-12-31T23:59:59Z");
}

static void test_format_agrees_with_gmtime(void **state)
{
	(void)state;
	for (time_t s = -INT64_C(70) * 365 * 86400; s < INT64_C(130) * 365 * 86400; s += 86400 * 3 + 4049) {
		struct tm tm;
		char want[64], got[ROZ_TIME_BUFSZ];

		gmtime_r(&s, &tm);
		strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%SZ", &tm);
		roz_time_format(roz_time_make((int64_t)s, 0), got);
		assert_string_equal(got, want);
	}
}

/* ---- round trips ----------------------------------------------------------------- */

static void test_round_trip_text(void **state)
{
	static const char *const texts[] = {
		"2026-01-05T10:30:00Z",
		"2026-01-05T10:30:00.500Z",
		"2026-01-05T10:30:00.000001Z",
		"2026-01-05T10:30:00.000000001Z",
		"2026-11-22T02:18:05.400390549Z",
		"2026-11-22T02:18:05.397721633Z",
		"1969-07-20T20:17:40.120Z",
		"0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999Z",
	};
	char buf[ROZ_TIME_BUFSZ];

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		assert_string_equal(roz_time_format(must_parse(texts[i]), buf), texts[i]);
}

static void test_round_trip_values(void **state)
{
	static const int32_t nsecs[] = {0, 1, 999, 1000, 999000, 1000000, 123456789, 999999999};
	char buf[ROZ_TIME_BUFSZ];

	(void)state;
	for (int64_t sec = -INT64_C(5000000000); sec < INT64_C(250000000000); sec += INT64_C(7777777777)) {
		for (size_t i = 0; i < sizeof(nsecs) / sizeof(nsecs[0]); i++) {
			roz_time t = roz_time_make(sec, nsecs[i]), back;

			roz_time_format(t, buf);
			back = must_parse(buf);
			if (roz_time_cmp(t, back) != 0)
				fail_msg("%lld.%09d -> '%s' -> %lld.%09d", (long long)t.sec, (int)t.nsec, buf,
					 (long long)back.sec, (int)back.nsec);
		}
	}
}

static void test_round_trip_offset_normalised(void **state)
{
	char buf[ROZ_TIME_BUFSZ];

	(void)state;
	/* parsing with an offset and writing back gives the UTC form */
	roz_time_format(must_parse("2026-01-05T12:30:00.25+02:00"), buf);
	assert_string_equal(buf, "2026-01-05T10:30:00.250Z");
}

/* ---- construction and comparison ------------------------------------------------- */

static void test_make_clamps(void **state)
{
	roz_time t;

	(void)state;
	t = roz_time_make(5, -3);
	assert_int_equal(t.sec, 5);
	assert_int_equal(t.nsec, 0);
	t = roz_time_make(5, 1000000000);
	assert_int_equal(t.nsec, 999999999);
	t = roz_time_make(INT64_MAX, 0);
	assert_int_equal(t.sec, ROZ_TIME_MAX_SEC);
	assert_int_equal(t.nsec, 999999999);
	t = roz_time_make(INT64_MIN, 500);
	assert_int_equal(t.sec, ROZ_TIME_MIN_SEC);
	assert_int_equal(t.nsec, 0);
}

static void test_now_is_plausible(void **state)
{
	roz_time now = roz_clock_now();

	(void)state;
	/* between 2024 and 2100; nanoseconds in range */
	assert_true(now.sec > INT64_C(1704067200));
	assert_true(now.sec < INT64_C(4102444800));
	assert_true(now.nsec >= 0 && now.nsec <= 999999999);
}

static void test_cmp(void **state)
{
	roz_time a = roz_time_make(100, 5), b = roz_time_make(100, 6), c = roz_time_make(101, 0);

	(void)state;
	assert_true(roz_time_cmp(a, b) < 0);
	assert_true(roz_time_cmp(b, a) > 0);
	assert_true(roz_time_cmp(b, c) < 0);
	assert_true(roz_time_cmp(c, a) > 0);
	assert_int_equal(roz_time_cmp(a, a), 0);
	assert_int_equal(roz_time_cmp(roz_time_make(-1, 0), roz_time_make(-1, 0)), 0);
	assert_true(roz_time_cmp(roz_time_make(-1, 999999999), roz_time_make(0, 0)) < 0);
	assert_true(roz_time_before(a, c));
	assert_false(roz_time_before(c, a));
	assert_false(roz_time_before(a, a));
	assert_true(roz_time_after(c, a));
	assert_false(roz_time_after(a, c));
	assert_false(roz_time_after(a, a));
}

/* ---- arithmetic -------------------------------------------------------------------- */

static void test_add_sub_plain(void **state)
{
	roz_time t = roz_time_make(T_2026_01_05, 250), r;

	(void)state;
	r = roz_time_add(t, 300);
	assert_int_equal(r.sec, T_2026_01_05 + 300);
	assert_int_equal(r.nsec, 250);
	r = roz_time_sub(t, 86400);
	assert_int_equal(r.sec, T_2026_01_05 - 86400);
	assert_int_equal(r.nsec, 250);
	assert_int_equal(roz_time_cmp(roz_time_add(t, 0), t), 0);
	assert_int_equal(roz_time_cmp(roz_time_sub(t, 0), t), 0);
}

static void test_add_saturates(void **state)
{
	char buf[ROZ_TIME_BUFSZ];
	roz_time r;

	(void)state;
	r = roz_time_add(roz_time_make(T_2026_01_05, 0), UINT64_MAX);
	assert_string_equal(roz_time_format(r, buf), "9999-12-31T23:59:59.999999999Z");
	/* from the earliest instant the whole range still does not wrap */
	r = roz_time_add(roz_time_make(ROZ_TIME_MIN_SEC, 0), UINT64_MAX);
	assert_string_equal(roz_time_format(r, buf), "9999-12-31T23:59:59.999999999Z");
	r = roz_time_add(roz_time_make(T_2026_01_05, 0), (uint64_t)INT64_MAX);
	assert_int_equal(r.sec, ROZ_TIME_MAX_SEC);
	r = roz_time_add(roz_time_make(ROZ_TIME_MAX_SEC, 0), 1);
	assert_int_equal(r.sec, ROZ_TIME_MAX_SEC);
	assert_int_equal(r.nsec, 999999999);
	/* landing exactly on the last second is not saturation */
	r = roz_time_add(roz_time_make(ROZ_TIME_MAX_SEC - 10, 7), 10);
	assert_int_equal(r.sec, ROZ_TIME_MAX_SEC);
	assert_int_equal(r.nsec, 7);
	/* a huge cooldown after now is still in the future */
	assert_true(roz_time_after(roz_time_add(roz_clock_now(), UINT64_MAX), roz_clock_now()));
}

static void test_sub_saturates(void **state)
{
	char buf[ROZ_TIME_BUFSZ];
	roz_time r;

	(void)state;
	r = roz_time_sub(roz_time_make(T_2026_01_05, 5), UINT64_MAX);
	assert_string_equal(roz_time_format(r, buf), "0000-01-01T00:00:00Z");
	r = roz_time_sub(roz_time_make(ROZ_TIME_MAX_SEC, 999999999), UINT64_MAX);
	assert_int_equal(r.sec, ROZ_TIME_MIN_SEC);
	assert_int_equal(r.nsec, 0);
	r = roz_time_sub(roz_time_make(ROZ_TIME_MIN_SEC + 10, 3), 10);
	assert_int_equal(r.sec, ROZ_TIME_MIN_SEC);
	assert_int_equal(r.nsec, 3);
	r = roz_time_sub(roz_time_make(ROZ_TIME_MIN_SEC, 0), 1);
	assert_int_equal(r.sec, ROZ_TIME_MIN_SEC);
}

static void test_diff_sec(void **state)
{
	roz_time a = roz_time_make(100, 0);

	(void)state;
	assert_int_equal(roz_time_diff_sec(a, roz_time_make(110, 0)), 10);
	assert_int_equal(roz_time_diff_sec(roz_time_make(110, 0), a), -10);
	assert_int_equal(roz_time_diff_sec(a, a), 0);
	/* only whole elapsed seconds count, towards zero */
	assert_int_equal(roz_time_diff_sec(roz_time_make(100, 0), roz_time_make(110, 500000000)), 10);
	assert_int_equal(roz_time_diff_sec(roz_time_make(100, 700000000), roz_time_make(110, 200000000)), 9);
	assert_int_equal(roz_time_diff_sec(roz_time_make(110, 200000000), roz_time_make(100, 700000000)), -9);
	assert_int_equal(roz_time_diff_sec(roz_time_make(100, 1), roz_time_make(100, 999999999)), 0);
	assert_int_equal(roz_time_diff_sec(roz_time_make(100, 999999999), roz_time_make(101, 0)), 0);
	/* the whole range fits */
	assert_int_equal(roz_time_diff_sec(roz_time_make(ROZ_TIME_MIN_SEC, 0),
					   roz_time_make(ROZ_TIME_MAX_SEC, 999999999)),
			 ROZ_TIME_MAX_SEC - ROZ_TIME_MIN_SEC);
	assert_int_equal(roz_time_diff_sec(roz_time_make(ROZ_TIME_MAX_SEC, 0),
					   roz_time_make(ROZ_TIME_MIN_SEC, 0)),
			 ROZ_TIME_MIN_SEC - ROZ_TIME_MAX_SEC);
}

static void test_diff_matches_add(void **state)
{
	roz_time t = roz_time_make(T_2026_01_05, 123);

	(void)state;
	assert_int_equal(roz_time_diff_sec(t, roz_time_add(t, 300)), 300);
	assert_int_equal(roz_time_diff_sec(t, roz_time_sub(t, 7 * 86400)), -7 * 86400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_utc_z),
		cmocka_unit_test(test_parse_lowercase_and_space),
		cmocka_unit_test(test_parse_offsets),
		cmocka_unit_test(test_parse_fraction_digits),
		cmocka_unit_test(test_parse_fixture_timestamps),
		cmocka_unit_test(test_parse_leap_second),
		cmocka_unit_test(test_parse_leap_years),
		cmocka_unit_test(test_parse_rejects_bad_dates),
		cmocka_unit_test(test_parse_rejects_bad_syntax),
		cmocka_unit_test(test_parse_null),
		cmocka_unit_test(test_parse_error_message),
		cmocka_unit_test(test_parse_agrees_with_timegm),
		cmocka_unit_test(test_format_whole_seconds),
		cmocka_unit_test(test_format_fraction_widths),
		cmocka_unit_test(test_format_before_epoch_with_fraction),
		cmocka_unit_test(test_format_range_ends),
		cmocka_unit_test(test_format_sec),
		cmocka_unit_test(test_format_agrees_with_gmtime),
		cmocka_unit_test(test_round_trip_text),
		cmocka_unit_test(test_round_trip_values),
		cmocka_unit_test(test_round_trip_offset_normalised),
		cmocka_unit_test(test_make_clamps),
		cmocka_unit_test(test_now_is_plausible),
		cmocka_unit_test(test_cmp),
		cmocka_unit_test(test_add_sub_plain),
		cmocka_unit_test(test_add_saturates),
		cmocka_unit_test(test_sub_saturates),
		cmocka_unit_test(test_diff_sec),
		cmocka_unit_test(test_diff_matches_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
