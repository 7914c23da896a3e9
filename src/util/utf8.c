/*
 * utf8.c - validating UTF-8 and finding character boundaries, so that
 * truncation never splits a character and stored text always decodes.
 */
#include "roz/utf8.h"

size_t roz_utf8_char_len(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;
	unsigned long cp;

	if (len == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 1, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 2, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 3, cp = s[0] & 0x07;
	else
		return 0;
	if (len <= n)
		return 0;
	for (size_t k = 1; k <= n; k++) {
		if ((s[k] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3F);
	}
	/* overlong forms, code points past U+10FFFF and UTF-16 surrogates are not characters */
	if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n + 1;
}

bool roz_utf8_valid(const char *str, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		/* ASCII runs are the common case: no call per byte */
		if ((unsigned char)str[i] < 0x80) {
			i++;
			continue;
		}
		if ((n = roz_utf8_char_len(str + i, len - i)) == 0)
			return false;
		i += n;
	}
	return true;
}

size_t roz_utf8_add_repaired(roz_buf *b, const char *s, size_t len)
{
	size_t i = 0, run = 0, bad = 0, n;

	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if ((n = roz_utf8_char_len(s + i, len - i)) != 0) {
			i += n;
			continue;
		}
		roz_buf_add(b, s + run, i - run);
		roz_utf8_add(b, 0xFFFD);
		bad++;
		run = ++i;
	}
	roz_buf_add(b, s + run, len - run);
	return bad;
}

size_t roz_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	/* back up over continuation bytes to the start of the split character */
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

size_t roz_utf8_count(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

size_t roz_utf8_utf16_len(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xC0) != 0x80)
			n += c >= 0xF0 ? 2 : 1;
	}
	return n;
}

size_t roz_utf8_offset(const char *s, size_t len, size_t chars)
{
	size_t i = 0, n = 0;

	while (i < len) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (n == chars)
				return i;
			n++;
		}
		i++;
	}
	return len;
}

void roz_utf8_add(roz_buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	roz_buf_add(b, u, n);
}
