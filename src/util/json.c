/*
 * json.c - roz's one JSON reader and one writer. The reader is a validating,
 * allocation-free scanner (hooks carry a 500-event trace through as checked
 * text, never as a tree) with a tree builder on its string and number rules
 * that keeps numbers as written; the writer escapes strings and lays trees
 * out compact, indented or in cJSON's tabbed layout, keys in order or sorted.
 * cJSON supplies the tree type only: nothing here or above calls its parser
 * or printers (docs/performance.md, "One JSON parser, one writer").
 */
#include "roz/json.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roz/digest.h"
#include "roz/utf8.h"

/*
 * Append n bytes. Writing a tree appends a few bytes at a time, so the
 * common case, room already there, is done here rather than by a call.
 */
static inline void put(roz_buf *b, const char *s, size_t n)
{
	if (!b->oom && b->cap - b->len > n) {
		memcpy(b->ptr + b->len, s, n);
		b->len += n;
		b->ptr[b->len] = '\0';
	} else {
		roz_buf_add(b, s, n);
	}
}

#define PUT_LITERAL(b, lit) put((b), (lit), sizeof(lit) - 1)

/*
 * Eight bytes at a time: a word with no control byte, quote or backslash
 * needs no escape (UTF-8 passes through). Each test is nonzero exactly when
 * some byte matches; the byte loop after it finds which.
 */
static size_t unescaped_words(const char *s, size_t p, size_t len)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;

	while (len - p >= 8) {
		uint64_t w, q, bs;

		memcpy(&w, s + p, 8);
		q = w ^ (ones * '"');
		bs = w ^ (ones * '\\');
		/* a byte below 0x20, a byte equal to '"', a byte equal to '\\' */
		if ((((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((bs - ones) & ~bs)) & highs)
			break;
		p += 8;
	}
	return p;
}

void roz_json_add_stringn(roz_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run = 0;

	/* room for the text and its quotes, when there is not already */
	if ((b->oom || b->cap - b->len <= len + 2) && !roz_buf_grow(b, len + 2))
		return;
	PUT_LITERAL(b, "\"");
	for (;;) {
		unsigned char c;
		char u[6];

		i = unescaped_words(s, i, len);
		while (i < len && (unsigned char)s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
			i++;
		if (i >= len)
			break;
		put(b, s + run, i - run);
		run = ++i;
		c = (unsigned char)s[i - 1];
		switch (c) {
		case '"': PUT_LITERAL(b, "\\\""); break;
		case '\\': PUT_LITERAL(b, "\\\\"); break;
		case '\n': PUT_LITERAL(b, "\\n"); break;
		case '\r': PUT_LITERAL(b, "\\r"); break;
		case '\t': PUT_LITERAL(b, "\\t"); break;
		case '\b': PUT_LITERAL(b, "\\b"); break;
		case '\f': PUT_LITERAL(b, "\\f"); break;
		default:
			memcpy(u, "\\u00", 4);
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			put(b, u, 6);
		}
	}
	put(b, s + run, len - run);
	PUT_LITERAL(b, "\"");
}

void roz_json_add_string(roz_buf *b, const char *s)
{
	roz_json_add_stringn(b, s, strlen(s));
}

void roz_json_add_compact(roz_buf *b, const char *s, size_t len)
{
	size_t from = 0;
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			roz_buf_add(b, s + from, i - from);
			from = i + 1;
		}
	}
	roz_buf_add(b, s + from, len - from);
}

void roz_json_add_string_array(roz_buf *b, char *const *items, size_t n)
{
	roz_buf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			roz_buf_addc(b, ',');
		roz_json_add_string(b, items[i]);
	}
	roz_buf_addc(b, ']');
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

int roz_json_hex4(const char *s, size_t len, size_t pos, unsigned *out)
{
	unsigned v = 0;

	if (len - pos < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int d = roz_digest_hex_digit((unsigned char)s[pos + (size_t)i]);

		if (d < 0)
			return -1;
		v = v << 4 | (unsigned)d;
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

/*
 * Eight bytes at a time: a word with no control byte, quote, backslash or
 * byte >= 0x80 can be stepped over whole. Each test sets the high bit of the
 * bytes that may match; a candidate is confirmed by the byte loop after it.
 */
static size_t skip_plain_words(const char *s, size_t p, size_t len)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;

	while (len - p >= 8) {
		uint64_t w;

		memcpy(&w, s + p, 8);
		/* high bits: w >= 0x80, w < 0x20, w == '"', w == '\\' (bytes ^ c == 0) */
		if ((w | (w - ones * 0x20) | ((w ^ (ones * '"')) - ones) |
		     ((w ^ (ones * '\\')) - ones)) & highs)
			break;
		p += 8;
	}
	return p;
}

static int skip_string(const char *s, size_t len, size_t *pos)
{
	size_t p = *pos + 1, start;

	for (;;) {
		start = p;
		p = skip_plain_words(s, p, len);
		/* then one table look-up per byte */
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
				if (roz_json_hex4(s, len, p + 2, &u) < 0)
					return fail(p, "invalid \\u escape");
				p += 6;
				if (u >= 0xDC00 && u <= 0xDFFF)
					return fail(p, "lone surrogate in \\u escape");
				if (u >= 0xD800 && u <= 0xDBFF) {
					if (len - p < 6 || s[p] != '\\' || s[p + 1] != 'u' ||
					    roz_json_hex4(s, len, p + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
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

int roz_json_walk_members(const char *s, size_t len, size_t *pos, roz_json_member_at_fn fn, void *ud)
{
	size_t p = roz_json_skip_ws(s, len, *pos);
	int rc;

	if (p >= len || s[p] != '{')
		return fail(p, "expected an object");
	p = roz_json_skip_ws(s, len, p + 1);
	if (p < len && s[p] == '}') {
		*pos = p + 1;
		return ROZ_OK;
	}
	for (;;) {
		roz_json_span key;
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
		if ((rc = fn(ud, key, s, len, &p)) != 0)
			return rc;
		p = roz_json_skip_ws(s, len, p);
		if (p < len && s[p] == ',') {
			p = roz_json_skip_ws(s, len, p + 1);
			continue;
		}
		if (p < len && s[p] == '}') {
			*pos = p + 1;
			return ROZ_OK;
		}
		return fail(p, "expected ',' or '}'");
	}
}

int roz_json_each_member_at(roz_json_span obj, roz_json_member_at_fn fn, void *ud)
{
	size_t p = 0;
	int rc = roz_json_walk_members(obj.ptr, obj.len, &p, fn, ud);

	if (rc == ROZ_OK && roz_json_skip_ws(obj.ptr, obj.len, p) != obj.len)
		return fail(p, "unexpected text after the object");
	return rc;
}

typedef struct member_adapter {
	roz_json_member_fn fn;
	void *ud;
} member_adapter;

static int skip_then_call(void *ud, roz_json_span key, const char *s, size_t len, size_t *pos)
{
	member_adapter *a = ud;
	roz_json_span value = {s + *pos, 0};
	int rc;

	if ((rc = roz_json_skip_value(s, len, pos)) < 0)
		return rc;
	value.len = (size_t)(s + *pos - value.ptr);
	return a->fn(a->ud, key, value);
}

int roz_json_each_member(roz_json_span obj, roz_json_member_fn fn, void *ud)
{
	member_adapter a = {fn, ud};

	return roz_json_each_member_at(obj, skip_then_call, &a);
}

int roz_json_walk_elements(const char *s, size_t len, size_t *pos, roz_json_element_fn fn, void *ud)
{
	size_t p = roz_json_skip_ws(s, len, *pos);
	int rc;

	if (p >= len || s[p] != '[')
		return fail(p, "expected an array");
	p = roz_json_skip_ws(s, len, p + 1);
	if (p < len && s[p] == ']') {
		*pos = p + 1;
		return ROZ_OK;
	}
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
		if (p < len && s[p] == ']') {
			*pos = p + 1;
			return ROZ_OK;
		}
		return fail(p, "expected ',' or ']'");
	}
}

int roz_json_each_element(roz_json_span arr, roz_json_element_fn fn, void *ud)
{
	size_t p = 0;
	int rc = roz_json_walk_elements(arr.ptr, arr.len, &p, fn, ud);

	if (rc == ROZ_OK && roz_json_skip_ws(arr.ptr, arr.len, p) != arr.len)
		return fail(p, "unexpected text after the array");
	return rc;
}

/* ---- building trees that keep numbers as written ---------------------------- */

typedef struct tree_parser {
	const char *s;
	size_t len, pos;
	int depth;
	int rc;
} tree_parser;

static cJSON *tp_fail(tree_parser *tp, int rc)
{
	if (tp->rc == ROZ_OK)
		tp->rc = rc;
	return NULL;
}

/*
 * The decoded text of the string at tp->pos, validated first, in a new
 * allocation the caller owns; tp->pos moves past it. Text without escapes
 * is copied straight from the input, the rest decoded through `scratch`.
 */
static int tp_string(tree_parser *tp, roz_buf *scratch, char **out)
{
	size_t end = tp->pos, p;
	int rc;

	*out = NULL;
	if ((rc = skip_string(tp->s, tp->len, &end)) < 0)
		return rc;
	p = tp->pos + 1;
	if (!memchr(tp->s + p, '\\', end - 1 - p)) {
		*out = roz_strndup(tp->s + p, end - 1 - p);
		tp->pos = end;
		return *out ? ROZ_OK : ROZ_ENOMEM;
	}
	roz_buf_reset(scratch);
	roz_buf_add(scratch, "", 0);
	while (p < end - 1) {
		const char *bs = memchr(tp->s + p, '\\', end - 1 - p);
		size_t run = bs ? (size_t)(bs - tp->s) : end - 1;

		roz_buf_add(scratch, tp->s + p, run - p);
		p = run;
		if (p >= end - 1)
			break;
		switch (tp->s[p + 1]) {
		case 'b': roz_buf_addc(scratch, '\b'); p += 2; break;
		case 'f': roz_buf_addc(scratch, '\f'); p += 2; break;
		case 'n': roz_buf_addc(scratch, '\n'); p += 2; break;
		case 'r': roz_buf_addc(scratch, '\r'); p += 2; break;
		case 't': roz_buf_addc(scratch, '\t'); p += 2; break;
		case 'u': {
			unsigned hi = 0, lo = 0;
			unsigned long cp;

			roz_json_hex4(tp->s, tp->len, p + 2, &hi);
			p += 6;
			cp = hi;
			if (hi >= 0xD800 && hi <= 0xDBFF) {
				roz_json_hex4(tp->s, tp->len, p + 2, &lo);
				p += 6;
				cp = 0x10000 + ((unsigned long)(hi - 0xD800) << 10) + (lo - 0xDC00);
			}
			/* a NUL would end the C string early: keep the text, lose the byte */
			roz_utf8_add(scratch, cp ? cp : 0xFFFD);
			break;
		}
		default: roz_buf_addc(scratch, tp->s[p + 1]); p += 2; /* " \ / */
		}
	}
	if ((rc = roz_buf_failed(scratch)) < 0)
		return rc;
	*out = roz_strndup(scratch->ptr, scratch->len);
	tp->pos = end;
	return *out ? ROZ_OK : ROZ_ENOMEM;
}

/*
 * A string or raw node that owns `text` (freed here if the node cannot be
 * made). cJSON_Delete frees it with the allocator roz installs in cJSON,
 * as it frees what cJSON_CreateString copies; taking the text as it is
 * saves that copy for every string and number of a document.
 */
static cJSON *text_node(int type, char *text)
{
	cJSON *v = text ? cJSON_CreateNull() : NULL;

	if (!v) {
		roz_free(text);
		return NULL;
	}
	v->type = type;
	v->valuestring = text;
	return v;
}

static cJSON *tp_value(tree_parser *tp, roz_buf *scratch);

static cJSON *tp_container(tree_parser *tp, roz_buf *scratch, bool object)
{
	cJSON *out = object ? cJSON_CreateObject() : cJSON_CreateArray(), *item;
	char close = object ? '}' : ']';

	if (!out)
		return tp_fail(tp, ROZ_ENOMEM);
	if (++tp->depth > ROZ_JSON_MAX_DEPTH) {
		cJSON_Delete(out);
		fail(tp->pos, "nesting too deep");
		return tp_fail(tp, ROZ_EPARSE);
	}
	tp->pos = roz_json_skip_ws(tp->s, tp->len, tp->pos + 1);
	if (tp->pos < tp->len && tp->s[tp->pos] == close) {
		tp->pos++;
		tp->depth--;
		return out;
	}
	for (;;) {
		char *key = NULL;
		int rc;

		if (object) {
			if (tp->pos >= tp->len || tp->s[tp->pos] != '"') {
				fail(tp->pos, "expected object key");
				goto bad;
			}
			if ((rc = tp_string(tp, scratch, &key)) < 0) {
				tp_fail(tp, rc);
				goto out_fail;
			}
			tp->pos = roz_json_skip_ws(tp->s, tp->len, tp->pos);
			if (tp->pos >= tp->len || tp->s[tp->pos] != ':') {
				roz_free(key);
				fail(tp->pos, "expected ':'");
				goto bad;
			}
			tp->pos = roz_json_skip_ws(tp->s, tp->len, tp->pos + 1);
		}
		item = tp_value(tp, scratch);
		if (!item) {
			roz_free(key);
			goto out_fail;
		}
		/* the member keeps the decoded key as its name, as cJSON's own parser leaves it */
		item->string = key;
		if (!cJSON_AddItemToArray(out, item)) {
			cJSON_Delete(item);
			tp_fail(tp, ROZ_ENOMEM);
			goto out_fail;
		}
		tp->pos = roz_json_skip_ws(tp->s, tp->len, tp->pos);
		if (tp->pos < tp->len && tp->s[tp->pos] == ',') {
			tp->pos = roz_json_skip_ws(tp->s, tp->len, tp->pos + 1);
			continue;
		}
		if (tp->pos < tp->len && tp->s[tp->pos] == close) {
			tp->pos++;
			tp->depth--;
			return out;
		}
		fail(tp->pos, "expected ',' or a closing bracket");
		goto bad;
	}
bad:
	tp_fail(tp, ROZ_EPARSE);
out_fail:
	cJSON_Delete(out);
	return NULL;
}

static cJSON *tp_value(tree_parser *tp, roz_buf *scratch)
{
	size_t start = tp->pos;
	char *text;
	cJSON *v;
	int rc;

	if (tp->pos >= tp->len) {
		fail(tp->pos, "unexpected end of input");
		return tp_fail(tp, ROZ_EPARSE);
	}
	switch (tp->s[tp->pos]) {
	case '{': return tp_container(tp, scratch, true);
	case '[': return tp_container(tp, scratch, false);
	case '"':
		if ((rc = tp_string(tp, scratch, &text)) < 0)
			return tp_fail(tp, rc);
		v = text_node(cJSON_String, text);
		return v ? v : tp_fail(tp, ROZ_ENOMEM);
	case 't': case 'f': case 'n':
		if ((rc = roz_json_skip_value(tp->s, tp->len, &tp->pos)) < 0)
			return tp_fail(tp, rc);
		v = tp->s[start] == 't' ? cJSON_CreateTrue() : tp->s[start] == 'f' ? cJSON_CreateFalse()
									     : cJSON_CreateNull();
		return v ? v : tp_fail(tp, ROZ_ENOMEM);
	default:
		if ((rc = skip_number(tp->s, tp->len, &tp->pos)) < 0)
			return tp_fail(tp, rc);
		v = text_node(cJSON_Raw, roz_strndup(tp->s + start, tp->pos - start));
		return v ? v : tp_fail(tp, ROZ_ENOMEM);
	}
}

int roz_json_parse_at(const char *text, size_t len, size_t *pos, cJSON **out)
{
	tree_parser tp = {text, len, 0, 0, ROZ_OK};
	roz_buf scratch = ROZ_BUF_INIT;
	cJSON *v;

	*out = NULL;
	tp.pos = roz_json_skip_ws(text, len, *pos);
	v = tp_value(&tp, &scratch);
	roz_buf_dispose(&scratch);
	if (!v)
		return tp.rc == ROZ_OK ? ROZ_EPARSE : tp.rc;
	*pos = tp.pos;
	*out = v;
	return ROZ_OK;
}

int roz_json_parse(const char *text, size_t len, cJSON **out)
{
	size_t pos = 0;
	int rc = roz_json_parse_at(text, len, &pos, out);

	if (rc == ROZ_OK && roz_json_skip_ws(text, len, pos) != len) {
		cJSON_Delete(*out);
		*out = NULL;
		return fail(pos, "unexpected text after the value");
	}
	return rc;
}

bool roz_json_is_number(const cJSON *v)
{
	return cJSON_IsNumber(v) || cJSON_IsRaw(v);
}

bool roz_json_number(const cJSON *v, double *out)
{
	char *end;

	if (cJSON_IsNumber(v)) {
		*out = v->valuedouble;
		return true;
	}
	if (!cJSON_IsRaw(v) || !v->valuestring)
		return false;
	*out = strtod(v->valuestring, &end);
	return *end == '\0';
}

/* A whole, non-negative double as an integer, saturating; the range is checked before any cast. */
static bool double_to_uint(double d, uint64_t max, uint64_t *out)
{
	if (!(d >= 0))
		return false; /* negative or NaN */
	if (d >= 18446744073709551616.0) {
		*out = max; /* 2^64 and beyond saturate, as integer text does */
		return true;
	}
	if ((double)(uint64_t)d != d)
		return false;
	*out = (uint64_t)d > max ? max : (uint64_t)d;
	return true;
}

bool roz_json_uint(const cJSON *v, uint64_t max, uint64_t *out)
{
	const char *p;
	uint64_t n = 0;
	double d;

	if (cJSON_IsNumber(v))
		return double_to_uint(v->valuedouble, max, out);
	if (!cJSON_IsRaw(v) || !v->valuestring)
		return false;
	p = v->valuestring;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			n = UINT64_MAX; /* saturate */
		else
			n = n * 10 + (uint64_t)(*p - '0');
	}
	/* "3.0" and "3e0" are integers too, as a float reader would see them */
	if (*p)
		return roz_json_number(v, &d) && double_to_uint(d, max, out);
	*out = n > max ? max : n;
	return true;
}

/* ---- writing trees ---------------------------------------------------------------- */

/* A node's type without cJSON's flag bits; read here rather than through a call per node. */
#define NODE_TYPE(v) ((v)->type & 0xFF)

/*
 * A number node (the parser makes raw ones; these come from code): 15
 * significant digits when they read back as the number to within a
 * double's precision, else 17. cJSON printed them so while it wrote the
 * session files, and a stored number keeps its spelling. JSON has no text
 * for NaN or infinity: null.
 */
static void add_double(roz_buf *b, double d)
{
	char num[32];
	double back;

	if (!isfinite(d)) {
		PUT_LITERAL(b, "null");
		return;
	}
	snprintf(num, sizeof(num), "%1.15g", d);
	back = strtod(num, NULL);
	if (fabs(back - d) > (fabs(back) > fabs(d) ? fabs(back) : fabs(d)) * DBL_EPSILON)
		snprintf(num, sizeof(num), "%1.17g", d);
	put(b, num, strlen(num));
}

static void add_scalar(roz_buf *b, const cJSON *v)
{
	switch (v ? NODE_TYPE(v) : cJSON_NULL) {
	case cJSON_String:
		roz_json_add_string(b, v->valuestring ? v->valuestring : "");
		break;
	case cJSON_Raw:
		if (v->valuestring)
			put(b, v->valuestring, strlen(v->valuestring));
		else
			PUT_LITERAL(b, "null");
		break;
	case cJSON_Number:
		add_double(b, v->valuedouble);
		break;
	case cJSON_True:
		PUT_LITERAL(b, "true");
		break;
	case cJSON_False:
		PUT_LITERAL(b, "false");
		break;
	default:
		PUT_LITERAL(b, "null"); /* null, and node types JSON has no text for */
	}
}

static const char *key_of(const cJSON *v)
{
	return v->string ? v->string : "";
}

static int compare_keys(const void *a, const void *b)
{
	return strcmp(key_of(*(const cJSON *const *)a), key_of(*(const cJSON *const *)b));
}

/* The indent of `depth` levels: two spaces each, or a tab in cJSON's layout. */
static void add_indent(roz_buf *b, unsigned layout, int depth)
{
	for (int i = 0; i < depth; i++) {
		if (layout == ROZ_JSON_TABS)
			PUT_LITERAL(b, "\t");
		else
			PUT_LITERAL(b, "  ");
	}
}

static void add_value(roz_buf *b, const cJSON *v, unsigned flags, int depth);

/*
 * An object or array with `depth` containers around it. Sorted keys are
 * taken from an array of the members, otherwise from the node's own list.
 *
 *   ROZ_JSON_COMPACT  {"a":1,"b":[1,2]}
 *   ROZ_JSON_INDENT   a member or element per line, two spaces a level; {} and [] when empty
 *   ROZ_JSON_TABS     a member per line, tabs, "key":<tab>value; arrays on one line, [1, 2];
 *                     an empty object is "{", a line break, the closing indent and "}"
 */
static void add_container(roz_buf *b, const cJSON *v, unsigned flags, int depth)
{
	unsigned layout = flags & ROZ_JSON_LAYOUT;
	bool object = NODE_TYPE(v) == cJSON_Object, tab_object = object && layout == ROZ_JSON_TABS;
	const cJSON **kids = NULL, *c = v->child, *next;
	size_t n = 0, k;

	if (object && (flags & ROZ_JSON_SORTED)) {
		for (c = v->child; c; c = c->next)
			n++;
		kids = roz_calloc(n + 1, sizeof(*kids)); /* NULL-terminated */
		if (!kids) {
			b->oom = true;
			return;
		}
		for (k = 0, c = v->child; c; c = c->next)
			kids[k++] = c;
		qsort(kids, n, sizeof(*kids), compare_keys);
		c = kids[0];
	}
	put(b, object ? "{" : "[", 1);
	if (tab_object)
		PUT_LITERAL(b, "\n");
	for (k = 0; c; k++, c = next) {
		next = kids ? kids[k + 1] : c->next;
		if (k > 0 && !tab_object) {
			if (layout == ROZ_JSON_TABS)
				PUT_LITERAL(b, ", ");
			else
				PUT_LITERAL(b, ",");
		}
		if (layout == ROZ_JSON_INDENT) {
			PUT_LITERAL(b, "\n");
			add_indent(b, layout, depth + 1);
		}
		if (object) {
			if (tab_object)
				add_indent(b, layout, depth + 1);
			roz_json_add_string(b, key_of(c));
			if (layout == ROZ_JSON_TABS)
				PUT_LITERAL(b, ":\t");
			else if (layout == ROZ_JSON_INDENT)
				PUT_LITERAL(b, ": ");
			else
				PUT_LITERAL(b, ":");
		}
		add_value(b, c, flags, depth + 1);
		if (tab_object) {
			if (next)
				PUT_LITERAL(b, ",\n");
			else
				PUT_LITERAL(b, "\n");
		}
	}
	if (layout == ROZ_JSON_INDENT && k > 0) {
		PUT_LITERAL(b, "\n");
		add_indent(b, layout, depth);
	}
	if (tab_object)
		add_indent(b, layout, depth);
	put(b, object ? "}" : "]", 1);
	roz_free(kids);
}

static void add_value(roz_buf *b, const cJSON *v, unsigned flags, int depth)
{
	if (v && (NODE_TYPE(v) == cJSON_Object || NODE_TYPE(v) == cJSON_Array))
		add_container(b, v, flags, depth);
	else
		add_scalar(b, v);
}

void roz_json_add_value(roz_buf *b, const cJSON *v, unsigned flags)
{
	/* a fresh buffer starts at the size of a hook's input, not at a few bytes doubled */
	if (b->cap == 0)
		roz_buf_grow(b, 256);
	add_value(b, v, flags, 0);
}

void roz_json_add_canonical(roz_buf *b, const cJSON *v)
{
	roz_json_add_value(b, v, ROZ_JSON_COMPACT | ROZ_JSON_SORTED);
}
