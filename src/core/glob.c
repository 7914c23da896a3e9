/*
 * glob.c - matching gate patterns against tool keys. A small, non-recursive
 * matcher: after a `*` it remembers one restart point, which keeps the cost
 * linear in the text for every pattern a user can write. Also the question
 * asked of keys whose end is known only at run time: could the pattern match
 * some key that starts this way?
 */
#include "roz/glob.h"

#include <string.h>

/* Decode one UTF-8 code point; invalid bytes decode as themselves. */
static const char *next_cp(const char *s, unsigned long *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	int n, i;

	if (u[0] < 0x80) {
		*cp = u[0];
		return s + 1;
	}
	if ((u[0] & 0xE0) == 0xC0)
		n = 1, *cp = u[0] & 0x1F;
	else if ((u[0] & 0xF0) == 0xE0)
		n = 2, *cp = u[0] & 0x0F;
	else if ((u[0] & 0xF8) == 0xF0)
		n = 3, *cp = u[0] & 0x07;
	else {
		*cp = u[0];
		return s + 1;
	}
	for (i = 1; i <= n; i++) {
		if ((u[i] & 0xC0) != 0x80) {
			*cp = u[0];
			return s + 1;
		}
		*cp = (*cp << 6) | (u[i] & 0x3F);
	}
	return s + n + 1;
}

/*
 * Match one bracket expression starting at p (just after '[') against c.
 * Returns the pattern position after the closing ']' or NULL if unclosed;
 * *ok tells whether c is in the set.
 */
static const char *match_class(const char *p, unsigned long c, bool *ok)
{
	bool negate = false, found = false, first = true;
	unsigned long lo, hi;

	if (*p == '!') {
		negate = true;
		p++;
	}
	while (*p && (first || *p != ']')) {
		first = false;
		p = next_cp(p, &lo);
		hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']')
			p = next_cp(p + 1, &hi);
		if (lo <= c && c <= hi)
			found = true;
	}
	if (*p != ']')
		return NULL;
	*ok = found != negate;
	return p + 1;
}

bool roz_glob_valid(const char *pattern)
{
	const char *p = pattern;
	bool ok;

	while (*p) {
		if (*p == '[') {
			p = match_class(p + 1, 0, &ok);
			if (!p)
				return false;
		} else {
			p++;
		}
	}
	return true;
}

/* One pattern element (not a star) against character tc: where the pattern goes on, or NULL. */
static const char *match_one(const char *p, unsigned long tc)
{
	unsigned long pc;
	const char *pn;
	bool ok = false;

	if (*p == '?')
		return p + 1;
	if (*p == '[') {
		pn = match_class(p + 1, tc, &ok);
		return ok ? pn : NULL;
	}
	pn = next_cp(p, &pc);
	return pc == tc ? pn : NULL;
}

static bool glob_match(const char *p, const char *t)
{
	const char *star_p = NULL, *star_t = NULL;
	unsigned long tc;

	while (*t) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (!*p)
				return true;
			star_p = p;
			star_t = t;
			continue;
		}
		if (*p) {
			const char *tn = next_cp(t, &tc);
			const char *pn = match_one(p, tc);

			if (pn) {
				p = pn;
				t = tn;
				continue;
			}
		}
		if (!star_p)
			return false;
		/* let the last star swallow one more character and retry */
		star_t = next_cp(star_t, &tc);
		t = star_t;
		p = star_p;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

/* Bytes in the UTF-8 sequence a lead byte starts (1 for anything else). */
static size_t cp_len(unsigned char c)
{
	if ((c & 0xE0) == 0xC0)
		return 2;
	if ((c & 0xF0) == 0xE0)
		return 3;
	if ((c & 0xF8) == 0xF0)
		return 4;
	return 1;
}

/*
 * A star can swallow whatever is left of the known start, and the unknown
 * rest can then be chosen to complete the pattern, so the known start only
 * has to agree with the pattern up to its first star.
 */
bool roz_glob_could_match(const char *pattern, const char *prefix, size_t len)
{
	const char *p = pattern, *t = prefix, *end = prefix + len;
	unsigned long tc;

	if (!roz_glob_valid(pattern)) {
		size_t n = strlen(pattern);

		while (n && pattern[n - 1] == '*')
			n--;
		return strncmp(prefix, pattern, n < len ? n : len) == 0;
	}
	while (t < end) {
		if (*p == '*')
			return true;
		if (!*p)
			return false;
		/* the known start ends inside a character: its rest is unknown too */
		if ((size_t)(end - t) < cp_len((unsigned char)*t))
			return true;
		t = next_cp(t, &tc);
		if (!(p = match_one(p, tc)))
			return false;
	}
	return true;
}

bool roz_glob_match(const char *pattern, const char *text)
{
	size_t n;

	if (roz_glob_valid(pattern))
		return glob_match(pattern, text);
	n = strlen(pattern);
	while (n && pattern[n - 1] == '*')
		n--;
	return strncmp(text, pattern, n) == 0;
}
