/*
 * time.c - UTC instants: saturating arithmetic and the RFC 3339 text used
 * in session files (the same format the Rust roz writes). Reading the clock
 * is I/O, in io/clock.c.
 */
#include "roz/time.h"

#include <stdio.h>
#include <string.h>

roz_time roz_time_make(int64_t sec, int32_t nsec)
{
	roz_time t;

	if (sec < ROZ_TIME_MIN_SEC) {
		sec = ROZ_TIME_MIN_SEC;
		nsec = 0;
	} else if (sec > ROZ_TIME_MAX_SEC) {
		sec = ROZ_TIME_MAX_SEC;
		nsec = 999999999;
	}
	if (nsec < 0)
		nsec = 0;
	if (nsec > 999999999)
		nsec = 999999999;
	t.sec = sec;
	t.nsec = nsec;
	return t;
}

int roz_time_cmp(roz_time a, roz_time b)
{
	if (a.sec != b.sec)
		return a.sec < b.sec ? -1 : 1;
	if (a.nsec != b.nsec)
		return a.nsec < b.nsec ? -1 : 1;
	return 0;
}

roz_time roz_time_add(roz_time t, uint64_t secs)
{
	if (secs > (uint64_t)(ROZ_TIME_MAX_SEC - t.sec))
		return roz_time_make(ROZ_TIME_MAX_SEC, 999999999);
	return roz_time_make(t.sec + (int64_t)secs, t.nsec);
}

roz_time roz_time_sub(roz_time t, uint64_t secs)
{
	if (secs > (uint64_t)(t.sec - ROZ_TIME_MIN_SEC))
		return roz_time_make(ROZ_TIME_MIN_SEC, 0);
	return roz_time_make(t.sec - (int64_t)secs, t.nsec);
}

int64_t roz_time_diff_sec(roz_time a, roz_time b)
{
	/* both are within the representable range, so this cannot overflow */
	int64_t d = b.sec - a.sec;

	if (d > 0 && b.nsec < a.nsec)
		d--;
	else if (d < 0 && b.nsec > a.nsec)
		d++;
	return d;
}

/* Days since the epoch for a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3u : 9u)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
	static const unsigned dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	return m == 2 && is_leap(y) ? 29 : dim[m - 1];
}

/* Read exactly n digits. */
static bool digits(const char **s, int n, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < n; i++) {
		char c = (*s)[i];

		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (unsigned)(c - '0');
	}
	*s += n;
	*out = v;
	return true;
}

int roz_time_parse(const char *s, roz_time *out)
{
	unsigned y, mo, d, h, mi, se, oh = 0, om = 0;
	int32_t nsec = 0;
	int64_t secs, offset = 0;
	const char *p = s;

	if (!s)
		return ROZ_EINVALID;
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
	    !digits(&p, 2, &d))
		goto bad;
	if (*p != 'T' && *p != 't' && *p != ' ')
		goto bad;
	p++;
	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' ||
	    !digits(&p, 2, &se))
		goto bad;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 60)
		goto bad;
	if (*p == '.') {
		int n = 0;

		p++;
		if (*p < '0' || *p > '9')
			goto bad;
		/* keep nanoseconds; further digits are below what roz stores */
		for (; *p >= '0' && *p <= '9'; p++, n++)
			if (n < 9)
				nsec = nsec * 10 + (*p - '0');
		for (; n < 9; n++)
			nsec *= 10;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1;

		if (!digits(&p, 2, &oh) || *p++ != ':' || !digits(&p, 2, &om) || oh > 23 || om > 59)
			goto bad;
		offset = sign * (int64_t)(oh * 3600 + om * 60);
	} else {
		goto bad;
	}
	if (*p)
		goto bad;
	if (se == 60)
		se = 59; /* a leap second reads as the last second of its minute */
	secs = days_from_civil(y, mo, d) * 86400 + (int64_t)(h * 3600 + mi * 60 + se) - offset;
	*out = roz_time_make(secs, nsec);
	return ROZ_OK;
bad:
	roz_error_set("invalid timestamp '%.64s'", s);
	return ROZ_EINVALID;
}

/* Write n decimal digits of v, zero-padded; snprintf is a measurable cost per hook. */
static char *put_digits(char *p, unsigned long v, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + n;
}

static char *format(roz_time t, char out[ROZ_TIME_BUFSZ], bool fraction)
{
	int64_t days = t.sec / 86400, rem = t.sec % 86400, y;
	unsigned mo, d;
	char *p = out;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	civil_from_days(days, &y, &mo, &d);
	p = put_digits(p, (unsigned long)y, 4);
	*p++ = '-';
	p = put_digits(p, mo, 2);
	*p++ = '-';
	p = put_digits(p, d, 2);
	*p++ = 'T';
	p = put_digits(p, (unsigned long)(rem / 3600), 2);
	*p++ = ':';
	p = put_digits(p, (unsigned long)(rem / 60 % 60), 2);
	*p++ = ':';
	p = put_digits(p, (unsigned long)(rem % 60), 2);
	if (fraction && t.nsec) {
		*p++ = '.';
		if (t.nsec % 1000000 == 0)
			p = put_digits(p, (unsigned long)(t.nsec / 1000000), 3);
		else if (t.nsec % 1000 == 0)
			p = put_digits(p, (unsigned long)(t.nsec / 1000), 6);
		else
			p = put_digits(p, (unsigned long)t.nsec, 9);
	}
	*p++ = 'Z';
	*p = '\0';
	return out;
}

char *roz_time_format(roz_time t, char out[ROZ_TIME_BUFSZ])
{
	return format(t, out, true);
}

char *roz_time_format_sec(roz_time t, char out[ROZ_TIME_BUFSZ])
{
	return format(t, out, false);
}
