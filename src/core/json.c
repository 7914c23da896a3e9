/*
 * json.c - escaping strings for output and a validating, allocation-free
 * JSON scanner. Hooks use the scanner to carry trace events through as
 * text: a 500-event trace is checked and copied, never parsed into a tree.
 */
#include "roz/json.h"

#include <string.h>

#include "roz/utf8.h"

void roz_json_add_stringn(roz_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	if (!roz_buf_grow(b, len + 2))
		return;
	roz_buf_addc(b, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[7];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		roz_buf_add(b, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		default:
			memcpy(u, "\\u00", 4);
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			u[6] = '\0';
			esc = u;
		}
		roz_buf_adds(b, esc);
	}
	roz_buf_add(b, s + run, len - run);
	roz_buf_addc(b, '"');
}

void roz_json_add_string(roz_buf *b, const char *s)
{
	roz_json_add_stringn(b, s, strlen(s));
}

size_t roz_json_skip_ws(const char *s, size_t len, size_t pos)
{
	while (pos < len && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r'))
		pos++;
	return pos;
}

static int fail(size_t pos, const char *what)
{
	roz_error_set("%zu: %s", pos, what);
	return ROZ_EPARSE;
}

static int hex4(const char *s, size_t len, size_t pos, unsigned *out)
{
	unsigned v = 0;

	if (len - pos < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = s[pos + (size_t)i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Bytes that end the fast scan of a string: controls, '"', '\\' and non-ASCII. */
#define ROZ_X16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
static const unsigned char string_stop[256] = {
	ROZ_X16(1), ROZ_X16(1),                         /* 0x00-0x1f */
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20-0x2f: '"' */
	ROZ_X16(0), ROZ_X16(0),                         /* 0x30-0x4f */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50-0x5f: '\\' */
	ROZ_X16(0), ROZ_X16(0),                         /* 0x60-0x7f */
	ROZ_X16(1), ROZ_X16(1), ROZ_X16(1), ROZ_X16(1), /* 0x80-0xbf */
	ROZ_X16(1), ROZ_X16(1), ROZ_X16(1), ROZ_X16(1), /* 0xc0-0xff */
};
#undef ROZ_X16

static int skip_string(const char *s, size_t len, size_t *pos)
{
	size_t p = *pos + 1, start;

	for (;;) {
		start = p;
		/* fast path over plain ASCII: one table look-up per byte */
		while (p < len && !string_stop[(unsigned char)s[p]])
			p++;
		if (p >= len)
			return fail(start, "unterminated string");
		if (s[p] == '"') {
			*pos = p + 1;
			return ROZ_OK;
		}
		if ((unsigned char)s[p] < 0x20)
			return fail(p, "control character in string");
		if (s[p] == '\\') {
			unsigned u, lo;

			if (p + 1 >= len)
				return fail(p, "unterminated string");
			switch (s[p + 1]) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
				p += 2;
				break;
			case 'u':
				if (hex4(s, len, p + 2, &u) < 0)
					return fail(p, "invalid \\u escape");
				p += 6;
				if (u >= 0xDC00 && u <= 0xDFFF)
					return fail(p, "lone surrogate in \\u escape");
				if (u >= 0xD800 && u <= 0xDBFF) {
					if (len - p < 6 || s[p] != '\\' || s[p + 1] != 'u' ||
					    hex4(s, len, p + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
						return fail(p, "lone surrogate in \\u escape");
					p += 6;
				}
				break;
			default:
				return fail(p, "invalid escape in string");
			}
			continue;
		}
		/* a multi-byte character: find its extent and validate it */
		{
			unsigned char c = (unsigned char)s[p];
			size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;

			if (n > len - p || !roz_utf8_valid(s + p, n))
				return fail(p, "invalid UTF-8 in string");
			p += n;
		}
	}
}

static int skip_number(const char *s, size_t len, size_t *pos)
{
	size_t p = *pos;

	if (p < len && s[p] == '-')
		p++;
	if (p < len && s[p] == '0') {
		p++;
	} else if (p < len && s[p] >= '1' && s[p] <= '9') {
		while (p < len && s[p] >= '0' && s[p] <= '9')
			p++;
	} else {
		return fail(p, "invalid number");
	}
	if (p < len && s[p] == '.') {
		p++;
		if (p >= len || s[p] < '0' || s[p] > '9')
			return fail(p, "invalid number");
		while (p < len && s[p] >= '0' && s[p] <= '9')
			p++;
	}
	if (p < len && (s[p] == 'e' || s[p] == 'E')) {
		p++;
		if (p < len && (s[p] == '+' || s[p] == '-'))
			p++;
		if (p >= len || s[p] < '0' || s[p] > '9')
			return fail(p, "invalid number");
		while (p < len && s[p] >= '0' && s[p] <= '9')
			p++;
	}
	*pos = p;
	return ROZ_OK;
}

static int skip_literal(const char *s, size_t len, size_t *pos, const char *lit)
{
	size_t n = strlen(lit);

	if (len - *pos < n || memcmp(s + *pos, lit, n) != 0)
		return fail(*pos, "unexpected character");
	*pos += n;
	return ROZ_OK;
}

/*
 * Iterative walk with an explicit stack of open containers, so deeply
 * nested hostile input cannot exhaust the C stack.
 */
int roz_json_skip_value(const char *s, size_t len, size_t *pos)
{
	char stack[ROZ_JSON_MAX_DEPTH];
	int depth = 0, rc;
	size_t p = roz_json_skip_ws(s, len, *pos);

	for (;;) {
		/* parse one value at p */
		if (p >= len)
			return fail(p, "unexpected end of input");
		switch (s[p]) {
		case '{':
		case '[':
			if (depth == ROZ_JSON_MAX_DEPTH)
				return fail(p, "nesting too deep");
			stack[depth++] = s[p];
			p = roz_json_skip_ws(s, len, p + 1);
			if (p < len && s[p] == (stack[depth - 1] == '{' ? '}' : ']')) {
				depth--;
				p++;
				break;
			}
			if (stack[depth - 1] == '{') {
				if (p >= len || s[p] != '"')
					return fail(p, "expected object key");
				if ((rc = skip_string(s, len, &p)) < 0)
					return rc;
				p = roz_json_skip_ws(s, len, p);
				if (p >= len || s[p] != ':')
					return fail(p, "expected ':'");
				p = roz_json_skip_ws(s, len, p + 1);
			}
			continue; /* parse the first member's value */
		case '"':
			if ((rc = skip_string(s, len, &p)) < 0)
				return rc;
			break;
		case 't':
			if ((rc = skip_literal(s, len, &p, "true")) < 0)
				return rc;
			break;
		case 'f':
			if ((rc = skip_literal(s, len, &p, "false")) < 0)
				return rc;
			break;
		case 'n':
			if ((rc = skip_literal(s, len, &p, "null")) < 0)
				return rc;
			break;
		default:
			if ((rc = skip_number(s, len, &p)) < 0)
				return rc;
		}
		/* a value ended: close containers or move to the next member */
		for (;;) {
			if (depth == 0) {
				*pos = p;
				return ROZ_OK;
			}
			p = roz_json_skip_ws(s, len, p);
			if (p >= len)
				return fail(p, "unexpected end of input");
			if (s[p] == ',') {
				p = roz_json_skip_ws(s, len, p + 1);
				if (stack[depth - 1] == '{') {
					if (p >= len || s[p] != '"')
						return fail(p, "expected object key");
					if ((rc = skip_string(s, len, &p)) < 0)
						return rc;
					p = roz_json_skip_ws(s, len, p);
					if (p >= len || s[p] != ':')
						return fail(p, "expected ':'");
					p = roz_json_skip_ws(s, len, p + 1);
				}
				break; /* parse the next value */
			}
			if (s[p] != (stack[depth - 1] == '{' ? '}' : ']'))
				return fail(p, "expected ',' or a closing bracket");
			depth--;
			p++;
		}
	}
}

bool roz_json_valid(const char *s, size_t len)
{
	size_t pos = 0;

	if (roz_json_skip_value(s, len, &pos) < 0)
		return false;
	return roz_json_skip_ws(s, len, pos) == len;
}

bool roz_json_span_is(roz_json_span v, char first)
{
	return v.len > 0 && v.ptr[0] == first;
}

int roz_json_each_member(roz_json_span obj, roz_json_member_fn fn, void *ud)
{
	const char *s = obj.ptr;
	size_t len = obj.len, p = roz_json_skip_ws(s, len, 0);
	int rc;

	if (p >= len || s[p] != '{')
		return fail(p, "expected an object");
	p = roz_json_skip_ws(s, len, p + 1);
	if (p < len && s[p] == '}')
		return roz_json_skip_ws(s, len, p + 1) == len ? ROZ_OK : fail(p + 1, "unexpected text after the object");
	for (;;) {
		roz_json_span key, value;
		size_t kstart = p;

		if (p >= len || s[p] != '"')
			return fail(p, "expected object key");
		if ((rc = skip_string(s, len, &p)) < 0)
			return rc;
		key.ptr = s + kstart + 1;
		key.len = p - kstart - 2;
		p = roz_json_skip_ws(s, len, p);
		if (p >= len || s[p] != ':')
			return fail(p, "expected ':'");
		p = roz_json_skip_ws(s, len, p + 1);
		value.ptr = s + p;
		if ((rc = roz_json_skip_value(s, len, &p)) < 0)
			return rc;
		value.len = (size_t)(s + p - value.ptr);
		if ((rc = fn(ud, key, value)) != 0)
			return rc;
		p = roz_json_skip_ws(s, len, p);
		if (p < len && s[p] == ',') {
			p = roz_json_skip_ws(s, len, p + 1);
			continue;
		}
		if (p < len && s[p] == '}') {
			if (roz_json_skip_ws(s, len, p + 1) != len)
				return fail(p + 1, "unexpected text after the object");
			return ROZ_OK;
		}
		return fail(p, "expected ',' or '}'");
	}
}

int roz_json_each_element(roz_json_span arr, roz_json_element_fn fn, void *ud)
{
	const char *s = arr.ptr;
	size_t len = arr.len, p = roz_json_skip_ws(s, len, 0);
	int rc;

	if (p >= len || s[p] != '[')
		return fail(p, "expected an array");
	p = roz_json_skip_ws(s, len, p + 1);
	if (p < len && s[p] == ']')
		return ROZ_OK;
	for (;;) {
		roz_json_span value;

		value.ptr = s + p;
		if ((rc = roz_json_skip_value(s, len, &p)) < 0)
			return rc;
		value.len = (size_t)(s + p - value.ptr);
		if ((rc = fn(ud, value)) != 0)
			return rc;
		p = roz_json_skip_ws(s, len, p);
		if (p < len && s[p] == ',') {
			p = roz_json_skip_ws(s, len, p + 1);
			continue;
		}
		if (p < len && s[p] == ']')
			return ROZ_OK;
		return fail(p, "expected ',' or ']'");
	}
}
