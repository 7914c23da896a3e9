/*
 * toml.c - a strict TOML 1.0 parser. One forward pass over the bytes builds
 * the value tree and checks every rule of the spec on the way, so an error
 * can always name the line and column where the document went wrong. In
 * lenient mode the same pass records each error with what it cost and goes
 * on at the next line.
 */
#include "roz/toml.h"
#include "roz/utf8.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper trees are refused so that parsing and freeing cannot exhaust the stack. */
#define MAX_DEPTH 128

/* How a table came to exist; kept in u.table.flags while parsing. */
enum {
	TF_HEADER = 1u << 0, /* defined by [name], or an element made by [[name]] */
	TF_DOTTED = 1u << 1, /* created or extended through a dotted key */
	TF_INLINE = 1u << 2, /* written as { ... } and closed for good */
	TF_AOT = 1u << 3     /* an element of an array of tables */
};

typedef struct loc {
	int line, col;
	size_t off; /* byte offset, so lenient mode can go on from the line after */
} loc;

typedef struct key_part {
	size_t off, len; /* decoded text inside parser.keys */
	loc at;
} key_part;

/* One entry of the index that finds a key in any table in constant time. */
typedef struct slot {
	const roz_toml_value *table; /* NULL marks a free slot */
	size_t index;                /* into table->u.table.items */
	size_t hash;
} slot;

typedef struct parser {
	const char *s;
	size_t len, pos;
	int line;
	size_t bol; /* offset where the current line begins */
	roz_toml_error *err;
	roz_buf keys; /* the parts of the key being read, each NUL-terminated */
	key_part *parts;
	size_t nparts, parts_cap;
	roz_buf text; /* the string or float being decoded */
	slot *slots;
	size_t slots_cap, slots_used;
	roz_toml_value *root, *cur;
	int cur_depth;

	/* lenient mode only */
	bool lenient;
	loc failed_at;          /* where the last error was found */
	bool resume_set;        /* go on after `resume` rather than after failed_at */
	loc resume;
	roz_buf cur_path;       /* the current table's key parts, each NUL-terminated */
	size_t cur_nparts;
	bool cur_partial;       /* the header that set it broke off after cur_path */
	roz_buf stmt;           /* the key of the line being read, once it is complete */
	size_t stmt_nparts;
	bool stmt_done;
	int stmt_line;          /* where the line being read began */
	roz_toml_value **dead;  /* values and tables left out of the tree, freed at the end */
	size_t ndead, dead_cap;
} parser;

/* ---- small helpers ------------------------------------------------------ */

static int byte_at(const parser *p, size_t off)
{
	return off < p->len ? (unsigned char)p->s[off] : -1;
}

static int peek(const parser *p)
{
	return byte_at(p, p->pos);
}

static bool at_end(const parser *p)
{
	return p->pos >= p->len;
}

/* Only valid for offsets on the current line, which is all errors need. */
static loc loc_at(const parser *p, size_t off)
{
	loc l;

	l.line = p->line;
	l.col = (int)(off - p->bol + 1);
	l.off = off;
	return l;
}

static loc here(const parser *p)
{
	return loc_at(p, p->pos);
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_bare(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

/* Tab is the one control character TOML allows in strings and comments. */
static bool is_control(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

/* Length of the line break at off: 1 for LF, 2 for CR LF, 0 for none. */
static size_t newline_len(const parser *p, size_t off)
{
	if (byte_at(p, off) == '\n')
		return 1;
	if (byte_at(p, off) == '\r' && byte_at(p, off + 1) == '\n')
		return 2;
	return 0;
}

static void eat_newline(parser *p, size_t n)
{
	p->pos += n;
	p->line++;
	p->bol = p->pos;
}

static void skip_ws(parser *p)
{
	while (peek(p) == ' ' || peek(p) == '\t')
		p->pos++;
}

static bool match_at(const parser *p, size_t off, const char *word)
{
	size_t n = strlen(word);

	return off <= p->len && p->len - off >= n && memcmp(p->s + off, word, n) == 0;
}

/*
 * Length (1-4) of the well-formed UTF-8 sequence at off, or 0. Overlong
 * forms, surrogates and code points past U+10FFFF are not well formed.
 */
static size_t utf8_len(const parser *p, size_t off)
{
	int c = byte_at(p, off), c1 = byte_at(p, off + 1);
	size_t n, i;

	if (c < 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c < 0xC2)
		return 0;
	if (c < 0xE0)
		n = 2;
	else if (c < 0xF0)
		n = 3;
	else if (c < 0xF5)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++) {
		int b = byte_at(p, off + i);

		if (b < 0 || (b & 0xC0) != 0x80)
			return 0;
	}
	if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) ||
	    (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90))
		return 0;
	return n;
}

/* ---- errors ------------------------------------------------------------- */

static int fail(parser *p, loc at, const char *fmt, ...) ROZ_PRINTF(3, 4);

static int fail(parser *p, loc at, const char *fmt, ...)
{
	roz_toml_error e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	e.line = at.line;
	e.column = at.col;
	p->failed_at = at;
	if (p->err)
		*p->err = e;
	roz_error_set("%d:%d: %s", e.line, e.column, e.message);
	return ROZ_EPARSE;
}

/*
 * Fail at off with `what`, unless the byte there is wrong in any context
 * (a NUL, a lone CR, broken UTF-8); then say that instead, as it is the
 * more useful thing to hear.
 */
static int fail_byte(parser *p, size_t off, const char *what)
{
	int c = byte_at(p, off);
	loc at = loc_at(p, off);

	if (c == 0)
		return fail(p, at, "nul byte");
	if (c == '\r' && !newline_len(p, off))
		return fail(p, at, "carriage return not followed by newline");
	if (c >= 0x80 && !utf8_len(p, off))
		return fail(p, at, "invalid utf-8");
	return fail(p, at, "%s", what);
}

static const char *part_key(const parser *p, size_t i)
{
	return p->keys.ptr + p->parts[i].off;
}

/*
 * The first n parts of the current key joined by dots, for messages:
 * shortened to fit and with control characters masked.
 */
static const char *key_text(const parser *p, size_t n, char *buf, size_t size)
{
	size_t j = 0, i, k, len, step;
	const char *s;

	for (i = 0; i < n; i++) {
		s = part_key(p, i);
		len = p->parts[i].len;
		if (i) {
			if (j + 1 >= size - 4)
				goto cut;
			buf[j++] = '.';
		}
		for (k = 0; k < len; k += step) {
			unsigned char c = (unsigned char)s[k];

			step = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
			if (step > len - k)
				step = len - k;
			if (j + step >= size - 4)
				goto cut;
			if (step == 1) {
				buf[j++] = is_control(c) ? '?' : (char)c;
			} else {
				memcpy(buf + j, s + k, step);
				j += step;
			}
		}
	}
	buf[j] = '\0';
	return buf;
cut:
	memcpy(buf + j, "...", 4);
	return buf;
}

/* ---- the key index ------------------------------------------------------ */

static size_t hash_key(const roz_toml_value *t, const char *key)
{
	uint64_t h = 14695981039346656037ull ^ (uint64_t)(uintptr_t)t;

	for (; *key; key++) {
		h ^= (unsigned char)*key;
		h *= 1099511628211ull;
	}
	/* spread the high bits down, as the table is indexed by the low ones */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h;
}

static roz_toml_kv *map_find(const parser *p, roz_toml_value *t, const char *key)
{
	size_t h, mask, i;

	if (!p->slots_cap)
		return NULL;
	h = hash_key(t, key);
	mask = p->slots_cap - 1;
	for (i = h & mask;; i = (i + 1) & mask) {
		const slot *s = &p->slots[i];

		if (!s->table)
			return NULL;
		if (s->hash == h && s->table == t && strcmp(t->u.table.items[s->index].key, key) == 0)
			return &t->u.table.items[s->index];
	}
}

static void map_place(slot *slots, size_t cap, slot s)
{
	size_t i;

	for (i = s.hash & (cap - 1); slots[i].table; i = (i + 1) & (cap - 1))
		;
	slots[i] = s;
}

/* Make room for one more entry, keeping the index at most half full. */
static int map_reserve(parser *p)
{
	size_t cap, i;
	slot *fresh;

	if ((p->slots_used + 1) * 2 <= p->slots_cap)
		return ROZ_OK;
	cap = p->slots_cap ? p->slots_cap * 2 : 64;
	fresh = roz_calloc(cap, sizeof(*fresh));
	if (!fresh)
		return ROZ_ENOMEM;
	for (i = 0; i < p->slots_cap; i++)
		if (p->slots[i].table)
			map_place(fresh, cap, p->slots[i]);
	roz_free(p->slots);
	p->slots = fresh;
	p->slots_cap = cap;
	return ROZ_OK;
}

/* ---- building the tree -------------------------------------------------- */

static roz_toml_value *new_value(roz_toml_type type, loc at)
{
	roz_toml_value *v = roz_calloc(1, sizeof(*v));

	if (v) {
		v->type = type;
		v->line = at.line;
		v->column = at.col;
	}
	return v;
}

/* Add key = v to table t. Takes ownership of key and v, even on failure. */
static int table_put(parser *p, roz_toml_value *t, char *key, loc at, roz_toml_value *v)
{
	roz_toml_kv *kv;
	slot s;

	if (map_reserve(p) < 0 ||
	    roz_alloc_array_reserve((void **)&t->u.table.items, &t->u.table.cap, sizeof(roz_toml_kv),
				    t->u.table.len + 1) < 0) {
		roz_free(key);
		roz_toml_free(v);
		return ROZ_ENOMEM;
	}
	kv = &t->u.table.items[t->u.table.len];
	kv->key = key;
	kv->line = at.line;
	kv->column = at.col;
	kv->value = v;
	s.table = t;
	s.index = t->u.table.len++;
	s.hash = hash_key(t, key);
	map_place(p->slots, p->slots_cap, s);
	p->slots_used++;
	return ROZ_OK;
}

/* Append v to an array. Takes ownership of v, even on failure. */
static int push_item(roz_toml_value *arr, roz_toml_value *v)
{
	if (roz_alloc_array_reserve((void **)&arr->u.array.items, &arr->u.array.cap,
				    sizeof(*arr->u.array.items), arr->u.array.len + 1) < 0) {
		roz_toml_free(v);
		return ROZ_ENOMEM;
	}
	arr->u.array.items[arr->u.array.len++] = v;
	return ROZ_OK;
}

/*
 * Drop a value that will not go into the tree. In lenient mode it is kept
 * until the end, because the key index may still name tables inside it and
 * a later allocation at the same address must not be mistaken for them.
 */
static int discard(parser *p, roz_toml_value *v)
{
	if (!p->lenient || !v) {
		roz_toml_free(v);
		return ROZ_OK;
	}
	if (roz_alloc_array_reserve((void **)&p->dead, &p->dead_cap, sizeof(*p->dead), p->ndead + 1) < 0) {
		/* the parse stops with ROZ_ENOMEM, so the index is never read again */
		roz_toml_free(v);
		return ROZ_ENOMEM;
	}
	p->dead[p->ndead++] = v;
	return ROZ_OK;
}

/* Create an empty table under part i of the current key inside t. */
static int add_table(parser *p, roz_toml_value *t, size_t i, loc at, unsigned flags,
		     roz_toml_value **out)
{
	roz_toml_value *v = new_value(ROZ_TOML_TABLE, at);
	char *key;
	int rc;

	if (!v)
		return ROZ_ENOMEM;
	v->u.table.flags = flags;
	key = roz_strndup(part_key(p, i), p->parts[i].len);
	if (!key) {
		roz_free(v);
		return ROZ_ENOMEM;
	}
	rc = table_put(p, t, key, p->parts[i].at, v);
	if (rc < 0)
		return rc;
	*out = v;
	return ROZ_OK;
}

/* An array made by [[name]]: its elements carry TF_AOT; a literal's never do. */
static bool is_aot(const roz_toml_value *v)
{
	return v->type == ROZ_TOML_ARRAY && v->u.array.len &&
	       v->u.array.items[0]->type == ROZ_TOML_TABLE &&
	       (v->u.array.items[0]->u.table.flags & TF_AOT);
}

/* ---- comments and line ends --------------------------------------------- */

/* Step over a comment from its '#' up to, not including, the line break. */
static int skip_comment(parser *p)
{
	p->pos++;
	while (!at_end(p)) {
		int c = peek(p);
		size_t n;

		if (newline_len(p, p->pos))
			return ROZ_OK;
		if (c >= 0x80) {
			n = utf8_len(p, p->pos);
			if (!n)
				return fail_byte(p, p->pos, "invalid utf-8");
			p->pos += n;
			continue;
		}
		if (is_control(c))
			return fail_byte(p, p->pos, "control character in comment");
		p->pos++;
	}
	return ROZ_OK;
}

/* Whitespace, line breaks and comments, as allowed between array items. */
static int skip_blank(parser *p)
{
	for (;;) {
		size_t nl;
		int rc;

		skip_ws(p);
		nl = newline_len(p, p->pos);
		if (nl) {
			eat_newline(p, nl);
			continue;
		}
		if (peek(p) != '#')
			return ROZ_OK;
		rc = skip_comment(p);
		if (rc < 0)
			return rc;
	}
}

/* After a key/value pair or a header only a comment may follow on the line. */
static int end_of_line(parser *p, const char *what)
{
	size_t nl;
	int rc;

	skip_ws(p);
	if (peek(p) == '#') {
		rc = skip_comment(p);
		if (rc < 0)
			return rc;
	}
	if (at_end(p))
		return ROZ_OK;
	nl = newline_len(p, p->pos);
	if (!nl)
		return fail_byte(p, p->pos, what);
	eat_newline(p, nl);
	return ROZ_OK;
}

/* ---- strings ------------------------------------------------------------ */

/* Decode the escape whose backslash is at p->pos. */
static int read_escape(parser *p, roz_buf *out, bool multi, loc open)
{
	size_t at = p->pos, q, i, digits;
	int e = byte_at(p, at + 1);
	uint32_t cp = 0;
	char c;

	switch (e) {
	case 'b': c = '\b'; break;
	case 't': c = '\t'; break;
	case 'n': c = '\n'; break;
	case 'f': c = '\f'; break;
	case 'r': c = '\r'; break;
	case '"': c = '"'; break;
	case '\\': c = '\\'; break;
	case -1: return fail(p, open, "unterminated string");
	case 'u':
	case 'U':
		digits = e == 'u' ? 4 : 8;
		for (i = 0; i < digits; i++) {
			int h = byte_at(p, at + 2 + i);

			if (is_digit(h))
				cp = cp * 16 + (uint32_t)(h - '0');
			else if (h >= 'a' && h <= 'f')
				cp = cp * 16 + (uint32_t)(h - 'a' + 10);
			else if (h >= 'A' && h <= 'F')
				cp = cp * 16 + (uint32_t)(h - 'A' + 10);
			else
				return fail(p, loc_at(p, at), "expected %zu hex digits after '\\%c'", digits, e);
		}
		if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return fail(p, loc_at(p, at), "escape '\\%c%.*s' is not a unicode scalar value", e,
				    (int)digits, p->s + at + 2);
		roz_utf8_add(out, cp);
		p->pos = at + 2 + digits;
		return ROZ_OK;
	default:
		if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
			/* a backslash ending a line swallows all whitespace up to the next text */
			for (q = at + 1; byte_at(p, q) == ' ' || byte_at(p, q) == '\t'; q++)
				;
			if (newline_len(p, q)) {
				p->pos = q;
				for (;;) {
					size_t nl;

					skip_ws(p);
					nl = newline_len(p, p->pos);
					if (!nl)
						return ROZ_OK;
					eat_newline(p, nl);
				}
			}
			if (q >= p->len)
				return fail(p, open, "unterminated string");
			if (byte_at(p, q) == '\r')
				return fail_byte(p, q, "control character in string");
		}
		if (e >= 0x20 && e < 0x7f)
			return fail(p, loc_at(p, at), "invalid escape '\\%c'", e);
		return fail(p, loc_at(p, at), "invalid escape");
	}
	roz_buf_addc(out, c);
	p->pos = at + 2;
	return ROZ_OK;
}

/*
 * Read the body of a string whose opening delimiter has been consumed,
 * appending the decoded text to out. Escapes only count in basic strings
 * (quote '"'); multi-line strings keep their line breaks as "\n".
 */
static int read_string_body(parser *p, roz_buf *out, char quote, bool multi, loc open)
{
	size_t nl, start, n;
	int c, rc;

	if (multi) {
		/* a line break right after the opening delimiter is not content */
		nl = newline_len(p, p->pos);
		if (nl)
			eat_newline(p, nl);
	}
	for (;;) {
		start = p->pos;
		while (!at_end(p)) {
			c = peek(p);
			if (c == quote || (c == '\\' && quote == '"') || is_control(c))
				break;
			if (c < 0x80) {
				p->pos++;
				continue;
			}
			n = utf8_len(p, p->pos);
			if (!n)
				break;
			p->pos += n;
		}
		roz_buf_add(out, p->s + start, p->pos - start);
		if (at_end(p))
			return fail(p, open, "unterminated string");
		c = peek(p);
		if (c == quote) {
			if (!multi) {
				p->pos++;
				return ROZ_OK;
			}
			for (n = 0; byte_at(p, p->pos + n) == quote; n++)
				;
			if (n < 3) {
				roz_buf_add(out, p->s + p->pos, n);
				p->pos += n;
				continue;
			}
			/* up to two quotes may sit right before the closing three */
			if (n > 5)
				n = 5;
			roz_buf_add(out, p->s + p->pos, n - 3);
			p->pos += n;
			return ROZ_OK;
		}
		if (c == '\\') {
			rc = read_escape(p, out, multi, open);
			if (rc < 0)
				return rc;
			continue;
		}
		nl = newline_len(p, p->pos);
		if (nl) {
			if (!multi)
				return fail(p, open, "unterminated string");
			roz_buf_addc(out, '\n');
			eat_newline(p, nl);
			continue;
		}
		return fail_byte(p, p->pos, "control character in string");
	}
}

/* Read any kind of string starting at its opening quote. */
static int read_string(parser *p, roz_buf *out, bool allow_multi)
{
	loc open = here(p);
	char quote = p->s[p->pos];
	bool multi = byte_at(p, p->pos + 1) == quote && byte_at(p, p->pos + 2) == quote;

	if (multi && !allow_multi)
		return fail(p, open, "a key cannot be a multi-line string");
	p->pos += multi ? 3 : 1;
	return read_string_body(p, out, quote, multi, open);
}

/* ---- keys --------------------------------------------------------------- */

/* Read a possibly dotted key into p->parts, and the whitespace after it. */
static int parse_key(parser *p)
{
	p->nparts = 0;
	roz_buf_reset(&p->keys);
	for (;;) {
		key_part part;
		int c = peek(p), rc;

		part.at = here(p);
		part.off = p->keys.len;
		if (c == '"' || c == '\'') {
			rc = read_string(p, &p->keys, false);
			if (rc < 0)
				return rc;
		} else if (is_bare(c)) {
			size_t start = p->pos;

			while (is_bare(peek(p)))
				p->pos++;
			roz_buf_add(&p->keys, p->s + start, p->pos - start);
			if (peek(p) >= 0x80)
				return fail_byte(p, p->pos, "invalid character in bare key");
		} else {
			return fail_byte(p, p->pos, p->nparts ? "expected key after '.'" : "expected key");
		}
		part.len = p->keys.len - part.off;
		roz_buf_addc(&p->keys, '\0');
		if (roz_buf_failed(&p->keys))
			return ROZ_ENOMEM;
		/* the tree stores keys as C strings, which cannot hold a NUL */
		if (memchr(p->keys.ptr + part.off, '\0', part.len))
			return fail(p, part.at, "key contains a nul character");
		if (p->nparts >= MAX_DEPTH)
			return fail(p, part.at, "too deeply nested");
		if (roz_alloc_array_reserve((void **)&p->parts, &p->parts_cap, sizeof(*p->parts),
					    p->nparts + 1) < 0)
			return ROZ_ENOMEM;
		p->parts[p->nparts++] = part;
		skip_ws(p);
		if (peek(p) != '.')
			return ROZ_OK;
		p->pos++;
		skip_ws(p);
	}
}

/* ---- scalar values ------------------------------------------------------ */

/* A value must not run straight into more value-like characters. */
static int check_end(parser *p, const char *what)
{
	int c = peek(p);

	if (is_bare(c) || c == '.' || c == ':' || c == '+')
		return fail(p, here(p), "%s", what);
	return ROZ_OK;
}

static int parse_string_value(parser *p, roz_toml_value *v)
{
	int rc;

	roz_buf_reset(&p->text);
	rc = read_string(p, &p->text, true);
	if (rc < 0)
		return rc;
	if (roz_buf_failed(&p->text))
		return ROZ_ENOMEM;
	v->u.str.ptr = roz_strndup(roz_buf_cstr(&p->text), p->text.len);
	if (!v->u.str.ptr)
		return ROZ_ENOMEM;
	v->u.str.len = p->text.len;
	return ROZ_OK;
}

static int parse_bool(parser *p, roz_toml_value *v)
{
	if (match_at(p, p->pos, "true")) {
		v->u.boolean = true;
		p->pos += 4;
	} else if (match_at(p, p->pos, "false")) {
		v->u.boolean = false;
		p->pos += 5;
	} else {
		return fail(p, here(p), "invalid value");
	}
	v->type = ROZ_TOML_BOOLEAN;
	return check_end(p, "invalid value");
}

static int two_digits(const parser *p, size_t off)
{
	int a = byte_at(p, off), b = byte_at(p, off + 1);

	if (!is_digit(a) || !is_digit(b))
		return -1;
	return (a - '0') * 10 + (b - '0');
}

static int days_in_month(int year, int month)
{
	static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

/*
 * Read the hh:mm:ss[.frac] at *i. All three fields are required in TOML
 * 1.0; the fraction may have any number of digits.
 */
static int parse_time(parser *p, size_t *i)
{
	int h = two_digits(p, *i), m, s;

	if (h < 0)
		return fail(p, loc_at(p, *i), "invalid time");
	if (h > 23)
		return fail(p, loc_at(p, *i), "hour out of range");
	if (byte_at(p, *i + 2) != ':')
		return fail(p, loc_at(p, *i + 2), "invalid time");
	*i += 3;
	m = two_digits(p, *i);
	if (m < 0)
		return fail(p, loc_at(p, *i), "invalid time");
	if (m > 59)
		return fail(p, loc_at(p, *i), "minute out of range");
	if (byte_at(p, *i + 2) != ':')
		return fail(p, loc_at(p, *i + 2), "invalid time");
	*i += 3;
	s = two_digits(p, *i);
	if (s < 0)
		return fail(p, loc_at(p, *i), "invalid time");
	if (s > 60)
		return fail(p, loc_at(p, *i), "second out of range");
	*i += 2;
	if (byte_at(p, *i) == '.') {
		(*i)++;
		if (!is_digit(byte_at(p, *i)))
			return fail(p, loc_at(p, *i), "invalid time");
		while (is_digit(byte_at(p, *i)))
			(*i)++;
	}
	return ROZ_OK;
}

/* Read a date, date-time or time; the value keeps the text as written. */
static int parse_datetime(parser *p, roz_toml_value *v)
{
	size_t start = p->pos, i = start;
	bool date = false;
	int year, month, day, rc, c;

	if (two_digits(p, i) >= 0 && two_digits(p, i + 2) >= 0 && byte_at(p, i + 4) == '-') {
		year = two_digits(p, i) * 100 + two_digits(p, i + 2);
		i += 5;
		month = two_digits(p, i);
		if (month < 0)
			return fail(p, loc_at(p, i), "invalid date");
		if (month < 1 || month > 12)
			return fail(p, loc_at(p, i), "month out of range");
		if (byte_at(p, i + 2) != '-')
			return fail(p, loc_at(p, i + 2), "invalid date");
		i += 3;
		day = two_digits(p, i);
		if (day < 0)
			return fail(p, loc_at(p, i), "invalid date");
		if (day < 1 || day > days_in_month(year, month))
			return fail(p, loc_at(p, i), "day out of range");
		i += 2;
		date = true;
		c = byte_at(p, i);
		/* RFC 3339 allows t and z in lower case, and a space instead of T */
		if (c == 'T' || c == 't')
			i++;
		else if (c == ' ' && two_digits(p, i + 1) >= 0 && byte_at(p, i + 3) == ':')
			i++;
		else
			goto done;
	}
	rc = parse_time(p, &i);
	if (rc < 0)
		return rc;
	c = byte_at(p, i);
	if (date && (c == 'Z' || c == 'z')) {
		i++;
	} else if (date && (c == '+' || c == '-')) {
		int h = two_digits(p, ++i), m;

		if (h < 0)
			return fail(p, loc_at(p, i), "invalid time offset");
		if (h > 23)
			return fail(p, loc_at(p, i), "hour out of range");
		if (byte_at(p, i + 2) != ':')
			return fail(p, loc_at(p, i + 2), "invalid time offset");
		m = two_digits(p, i + 3);
		if (m < 0)
			return fail(p, loc_at(p, i + 3), "invalid time offset");
		if (m > 59)
			return fail(p, loc_at(p, i + 3), "minute out of range");
		i += 5;
	}
done:
	p->pos = i;
	rc = check_end(p, "invalid date-time");
	if (rc < 0)
		return rc;
	v->u.str.ptr = roz_strndup(p->s + start, i - start);
	if (!v->u.str.ptr)
		return ROZ_ENOMEM;
	v->u.str.len = i - start;
	v->type = ROZ_TOML_DATETIME;
	return ROZ_OK;
}

static int digit_value(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

static bool is_digit_base(int c, int base)
{
	return c >= 0 && digit_value(c) < base;
}

/* Step over digits in `base`, allowing single underscores between them. */
static int scan_digits(parser *p, size_t *i, int base)
{
	for (;;) {
		while (is_digit_base(byte_at(p, *i), base))
			(*i)++;
		if (byte_at(p, *i) != '_')
			return ROZ_OK;
		if (!is_digit_base(byte_at(p, *i + 1), base))
			return fail(p, loc_at(p, *i), "'_' must be between digits");
		(*i)++;
	}
}

/* Convert the digits in [from, to) (underscores allowed) to an int64. */
static int finish_integer(parser *p, roz_toml_value *v, size_t start, size_t from, size_t to, int base,
			  bool neg)
{
	uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, acc = 0;
	size_t i;

	for (i = from; i < to; i++) {
		uint64_t d;

		if (p->s[i] == '_')
			continue;
		d = (uint64_t)digit_value((unsigned char)p->s[i]);
		if (acc > (limit - d) / (uint64_t)base)
			return fail(p, loc_at(p, start), "integer out of range");
		acc = acc * (uint64_t)base + d;
	}
	v->type = ROZ_TOML_INTEGER;
	if (!neg)
		v->u.integer = (int64_t)acc;
	else if (acc == (uint64_t)INT64_MAX + 1)
		v->u.integer = INT64_MIN;
	else
		v->u.integer = -(int64_t)acc;
	return ROZ_OK;
}

static int finish_float(parser *p, roz_toml_value *v, size_t start, size_t end)
{
	const char *point = localeconv()->decimal_point;
	char *stop;
	double d;
	size_t i;

	roz_buf_reset(&p->text);
	for (i = start; i < end; i++) {
		char c = p->s[i];

		/* strtod reads the locale's decimal point, which need not be '.' */
		if (c == '.' && point && point[0] && point[0] != '.')
			roz_buf_adds(&p->text, point);
		else if (c != '_')
			roz_buf_addc(&p->text, c);
	}
	if (roz_buf_failed(&p->text))
		return ROZ_ENOMEM;
	d = strtod(p->text.ptr, &stop);
	if (*stop)
		return fail(p, loc_at(p, start), "invalid number");
	if (isinf(d))
		return fail(p, loc_at(p, start), "float out of range");
	v->type = ROZ_TOML_FLOAT;
	v->u.floating = d;
	return ROZ_OK;
}

/* Integers in every base, floats, inf and nan. */
static int parse_number(parser *p, roz_toml_value *v)
{
	size_t start = p->pos, i = start, digits;
	bool neg = false, is_float = false;
	int c = peek(p), rc, base;

	if (c == '+' || c == '-') {
		neg = c == '-';
		c = byte_at(p, ++i);
	}
	if (c == 'i' || c == 'n') {
		if (!match_at(p, i, c == 'i' ? "inf" : "nan"))
			return fail(p, loc_at(p, start), "invalid value");
		v->type = ROZ_TOML_FLOAT;
		if (c == 'i')
			v->u.floating = neg ? -INFINITY : INFINITY;
		else
			v->u.floating = neg ? -NAN : NAN;
		p->pos = i + 3;
		return check_end(p, "invalid value");
	}
	if (!is_digit(c))
		return fail_byte(p, i, "invalid number");
	c = byte_at(p, i + 1);
	if (byte_at(p, i) == '0' && (c == 'x' || c == 'o' || c == 'b')) {
		base = c == 'x' ? 16 : c == 'o' ? 8 : 2;
		if (i != start)
			return fail(p, loc_at(p, start), "hex, octal and binary integers cannot have a sign");
		i += 2;
		if (!is_digit_base(byte_at(p, i), base))
			return fail(p, loc_at(p, i), "expected digit after '0%c'", c);
		digits = i;
		rc = scan_digits(p, &i, base);
		if (rc < 0)
			return rc;
		p->pos = i;
		rc = check_end(p, "invalid number");
		if (rc < 0)
			return rc;
		return finish_integer(p, v, start, digits, i, base, false);
	}
	digits = i;
	rc = scan_digits(p, &i, 10);
	if (rc < 0)
		return rc;
	if (p->s[digits] == '0' && i - digits > 1)
		return fail(p, loc_at(p, digits), "leading zeros are not allowed");
	if (byte_at(p, i) == '.') {
		is_float = true;
		if (!is_digit(byte_at(p, ++i)))
			return fail(p, loc_at(p, i), "expected digit after '.'");
		rc = scan_digits(p, &i, 10);
		if (rc < 0)
			return rc;
	}
	c = byte_at(p, i);
	if (c == 'e' || c == 'E') {
		is_float = true;
		c = byte_at(p, ++i);
		if (c == '+' || c == '-')
			i++;
		if (!is_digit(byte_at(p, i)))
			return fail(p, loc_at(p, i), "expected digit in exponent");
		rc = scan_digits(p, &i, 10);
		if (rc < 0)
			return rc;
	}
	p->pos = i;
	rc = check_end(p, "invalid number");
	if (rc < 0)
		return rc;
	if (is_float)
		return finish_float(p, v, start, i);
	return finish_integer(p, v, start, digits, i, 10, neg);
}

/* ---- compound values ---------------------------------------------------- */

static int parse_value(parser *p, int depth, roz_toml_value **out);
static int parse_keyval(parser *p, roz_toml_value *t, int depth, bool statement);

static int parse_array(parser *p, roz_toml_value *arr, int depth)
{
	loc open = here(p);
	roz_toml_value *item;
	int rc;

	p->pos++;
	for (;;) {
		rc = skip_blank(p);
		if (rc < 0)
			return rc;
		if (at_end(p))
			return fail(p, open, "unterminated array");
		if (peek(p) == ']')
			break;
		rc = parse_value(p, depth + 1, &item);
		if (rc < 0)
			return rc;
		rc = push_item(arr, item);
		if (rc < 0)
			return rc;
		rc = skip_blank(p);
		if (rc < 0)
			return rc;
		if (at_end(p))
			return fail(p, open, "unterminated array");
		if (peek(p) == ']')
			break;
		if (peek(p) != ',')
			return fail_byte(p, p->pos, "expected ',' or ']' in array");
		p->pos++;
	}
	p->pos++;
	return ROZ_OK;
}

/* { k = v, ... } on one line, without a trailing comma. */
static int parse_inline(parser *p, roz_toml_value *t, int depth)
{
	loc open = here(p), comma;
	int rc, c;

	p->pos++;
	skip_ws(p);
	if (peek(p) == '}') {
		p->pos++;
		return ROZ_OK;
	}
	for (;;) {
		if (at_end(p))
			return fail(p, open, "unterminated inline table");
		if (newline_len(p, p->pos))
			return fail(p, here(p), "newline in inline table");
		rc = parse_keyval(p, t, depth, false);
		if (rc < 0)
			return rc;
		skip_ws(p);
		c = peek(p);
		if (c == '}') {
			p->pos++;
			return ROZ_OK;
		}
		if (c < 0)
			return fail(p, open, "unterminated inline table");
		if (newline_len(p, p->pos))
			return fail(p, here(p), "newline in inline table");
		if (c != ',')
			return fail_byte(p, p->pos, "expected ',' or '}' in inline table");
		comma = here(p);
		p->pos++;
		skip_ws(p);
		if (peek(p) == '}')
			return fail(p, comma, "trailing comma in inline table");
	}
}

/* Parse the value at p->pos into a new node at tree depth `depth`. */
static int parse_value(parser *p, int depth, roz_toml_value **out)
{
	loc at = here(p);
	int c = peek(p), rc;
	roz_toml_value *v;

	*out = NULL;
	if ((c == '[' || c == '{') && depth > MAX_DEPTH)
		return fail(p, at, "too deeply nested");
	v = new_value(ROZ_TOML_STRING, at);
	if (!v)
		return ROZ_ENOMEM;
	switch (c) {
	case '"':
	case '\'':
		rc = parse_string_value(p, v);
		break;
	case '[':
		v->type = ROZ_TOML_ARRAY;
		rc = parse_array(p, v, depth);
		break;
	case '{':
		v->type = ROZ_TOML_TABLE;
		v->u.table.flags = TF_INLINE;
		rc = parse_inline(p, v, depth);
		break;
	case 't':
	case 'f':
		rc = parse_bool(p, v);
		break;
	default:
		if (is_digit(c) && ((is_digit(byte_at(p, p->pos + 1)) && byte_at(p, p->pos + 2) == ':') ||
				    (is_digit(byte_at(p, p->pos + 1)) && is_digit(byte_at(p, p->pos + 2)) &&
				     is_digit(byte_at(p, p->pos + 3)) && byte_at(p, p->pos + 4) == '-')))
			rc = parse_datetime(p, v);
		else if (is_digit(c) || c == '+' || c == '-' || c == 'i' || c == 'n')
			rc = parse_number(p, v);
		else if (c < 0 || c == '\n' || c == '\r' || c == '#' || c == ',' || c == ']' || c == '}')
			rc = fail_byte(p, p->pos, "expected value");
		else
			rc = fail_byte(p, p->pos, "invalid value");
		break;
	}
	if (rc < 0) {
		int drc = discard(p, v);

		return drc < 0 ? drc : rc;
	}
	*out = v;
	return ROZ_OK;
}

/* ---- key/value pairs and headers ---------------------------------------- */

/* Lenient mode: the key just read is complete; keep it for a report about this line. */
static int note_statement(parser *p)
{
	if (!p->lenient)
		return ROZ_OK;
	roz_buf_reset(&p->stmt);
	roz_buf_add(&p->stmt, p->keys.ptr, p->keys.len);
	if (roz_buf_failed(&p->stmt))
		return ROZ_ENOMEM;
	p->stmt_nparts = p->nparts;
	p->stmt_done = true;
	return ROZ_OK;
}

/*
 * Lenient mode, after an error in the key of `key = value`: read the value
 * anyway and throw it away, so reading goes on after it and not somewhere
 * inside it. The key's error is the one reported.
 */
static int skip_value(parser *p, int depth, int rc)
{
	roz_toml_error saved;
	loc at = p->failed_at;
	roz_toml_value *v = NULL;
	int vrc;

	if (!p->lenient || rc != ROZ_EPARSE)
		return rc;
	saved = *p->err;
	vrc = parse_value(p, depth, &v);
	if (vrc == ROZ_ENOMEM)
		return vrc;
	p->resume = vrc == ROZ_OK ? here(p) : p->failed_at;
	p->resume_set = true;
	if (vrc == ROZ_OK && discard(p, v) < 0)
		return ROZ_ENOMEM;
	*p->err = saved;
	p->failed_at = at;
	return rc;
}

/*
 * key = value, added to table t which sits at tree depth `depth`. A
 * `statement` is a whole line of the document: only a comment may follow
 * it, and that is checked before the pair joins the tree so that a line
 * with trailing text adds nothing.
 */
static int parse_keyval(parser *p, roz_toml_value *t, int depth, bool statement)
{
	char name[96], *key;
	roz_toml_value *v;
	roz_toml_kv *kv;
	size_t i, last;
	loc at;
	int rc, c;

	rc = parse_key(p);
	if (rc < 0)
		return rc;
	if (statement && (rc = note_statement(p)) < 0)
		return rc;
	if (peek(p) != '=')
		return fail_byte(p, p->pos, "expected '=' after key");
	p->pos++;
	skip_ws(p);
	last = p->nparts - 1;
	for (i = 0; i < last; i++) {
		at = p->parts[i].at;
		if (++depth > MAX_DEPTH)
			return fail(p, at, "too deeply nested");
		kv = map_find(p, t, part_key(p, i));
		if (!kv) {
			rc = add_table(p, t, i, at, TF_DOTTED, &t);
			if (rc < 0)
				return rc;
			continue;
		}
		v = kv->value;
		if (v->type != ROZ_TOML_TABLE)
			return skip_value(p, depth + 1, fail(p, at, "key '%s' is not a table",
							     key_text(p, i + 1, name, sizeof(name))));
		if (v->u.table.flags & TF_INLINE)
			return skip_value(p, depth + 1, fail(p, at, "cannot extend inline table '%s'",
							     key_text(p, i + 1, name, sizeof(name))));
		/* a table from a [header] is closed to dotted keys written elsewhere */
		if (v->u.table.flags & TF_HEADER)
			return skip_value(p, depth + 1, fail(p, at, "table '%s' already defined",
							     key_text(p, i + 1, name, sizeof(name))));
		v->u.table.flags |= TF_DOTTED;
		t = v;
	}
	at = p->parts[last].at;
	if ((kv = map_find(p, t, part_key(p, last)))) {
		key_text(p, last + 1, name, sizeof(name));
		if (!p->lenient || !statement)
			return skip_value(p, depth + 1, fail(p, at, "duplicate key '%s'", name));
		return skip_value(p, depth + 1, fail(p, at, "duplicate key '%s'; the first, on line %d, is used",
						     name, kv->line));
	}
	/* nested inline tables reuse p->parts, so keep our own copy of the key */
	key = roz_strndup(part_key(p, last), p->parts[last].len);
	if (!key)
		return ROZ_ENOMEM;
	rc = parse_value(p, depth + 1, &v);
	if (rc < 0) {
		roz_free(key);
		return rc;
	}
	if (statement) {
		skip_ws(p);
		c = peek(p);
		if (c >= 0 && c != '#' && !newline_len(p, p->pos)) {
			roz_free(key);
			rc = fail_byte(p, p->pos, "expected newline after value");
			/* the value itself was whole: go on after this line, wherever it began */
			p->resume = p->failed_at;
			p->resume_set = true;
			return discard(p, v) < 0 ? ROZ_ENOMEM : rc;
		}
	}
	return table_put(p, t, key, at, v);
}

/* Walk (creating as needed) the tables named by all but the last key part. */
static int header_parents(parser *p, loc open, roz_toml_value **tp, int *depth)
{
	roz_toml_value *t = *tp, *v;
	roz_toml_kv *kv;
	char name[96];
	size_t i;
	int rc;

	for (i = 0; i + 1 < p->nparts; i++) {
		loc at = p->parts[i].at;

		kv = map_find(p, t, part_key(p, i));
		if (!kv) {
			if (++*depth > MAX_DEPTH)
				return fail(p, at, "too deeply nested");
			rc = add_table(p, t, i, open, 0, &t);
			if (rc < 0)
				return rc;
			continue;
		}
		v = kv->value;
		if (is_aot(v)) {
			/* [a.b] after [[a]] means b in the last element of a */
			t = v->u.array.items[v->u.array.len - 1];
			*depth += 2;
		} else if (v->type == ROZ_TOML_TABLE && !(v->u.table.flags & TF_INLINE)) {
			t = v;
			++*depth;
		} else if (v->type == ROZ_TOML_TABLE) {
			return fail(p, at, "cannot extend inline table '%s'", key_text(p, i + 1, name, sizeof(name)));
		} else {
			return fail(p, at, "key '%s' is not a table", key_text(p, i + 1, name, sizeof(name)));
		}
		if (*depth > MAX_DEPTH)
			return fail(p, at, "too deeply nested");
	}
	*tp = t;
	return ROZ_OK;
}

/* [table] or [[array of tables]]; makes it the target of the pairs that follow. */
static int parse_header(parser *p)
{
	loc open = here(p), at;
	bool aot = byte_at(p, p->pos + 1) == '[';
	roz_toml_value *t = p->root, *v, *elem;
	roz_toml_kv *kv;
	char name[96], *key;
	size_t last;
	int depth = 0, rc;

	p->pos += aot ? 2 : 1;
	skip_ws(p);
	rc = parse_key(p);
	if (rc < 0)
		return rc;
	if ((rc = note_statement(p)) < 0)
		return rc;
	if (peek(p) != ']')
		return fail_byte(p, p->pos, aot ? "expected ']]' after table name" : "expected ']' after table name");
	if (aot && byte_at(p, p->pos + 1) != ']')
		return fail_byte(p, p->pos + 1, "expected ']]' after table name");
	p->pos += aot ? 2 : 1;
	rc = header_parents(p, open, &t, &depth);
	if (rc < 0)
		return rc;
	last = p->nparts - 1;
	at = p->parts[last].at;
	kv = map_find(p, t, part_key(p, last));
	key_text(p, p->nparts, name, sizeof(name));
	if (depth + (aot ? 2 : 1) > MAX_DEPTH)
		return fail(p, at, "too deeply nested");
	if (!aot) {
		if (!kv) {
			rc = add_table(p, t, last, open, TF_HEADER, &t);
			if (rc < 0)
				return rc;
		} else {
			v = kv->value;
			if (is_aot(v))
				return fail(p, at, "table '%s' is already an array of tables", name);
			if (v->type != ROZ_TOML_TABLE)
				return fail(p, at, "key '%s' is not a table", name);
			if (v->u.table.flags & TF_INLINE)
				return fail(p, at, "cannot extend inline table '%s'", name);
			if (v->u.table.flags & (TF_HEADER | TF_DOTTED))
				return fail(p, at, "table '%s' already defined", name);
			/* made implicitly by an earlier [a.b.c]; now it is defined here */
			v->u.table.flags |= TF_HEADER;
			v->line = open.line;
			v->column = open.col;
			kv->line = at.line;
			kv->column = at.col;
			t = v;
		}
		p->cur = t;
		p->cur_depth = depth + 1;
		return ROZ_OK;
	}
	if (!kv) {
		v = new_value(ROZ_TOML_ARRAY, open);
		key = roz_strndup(part_key(p, last), p->parts[last].len);
		if (!v || !key) {
			roz_free(v);
			roz_free(key);
			return ROZ_ENOMEM;
		}
		rc = table_put(p, t, key, at, v);
		if (rc < 0)
			return rc;
	} else {
		v = kv->value;
		if (v->type == ROZ_TOML_ARRAY && !is_aot(v))
			return fail(p, at, "cannot append to static array '%s'", name);
		if (v->type != ROZ_TOML_ARRAY)
			return fail(p, at, "key '%s' is not an array of tables", name);
	}
	elem = new_value(ROZ_TOML_TABLE, open);
	if (!elem)
		return ROZ_ENOMEM;
	elem->u.table.flags = TF_HEADER | TF_AOT;
	rc = push_item(v, elem);
	if (rc < 0)
		return rc;
	p->cur = elem;
	p->cur_depth = depth + 2;
	return ROZ_OK;
}

/* Append the n NUL-terminated parts packed in `parts` to a diagnostic's path. */
static int path_add(roz_toml_diag *d, const char *parts, size_t n)
{
	char **grown;

	if (!n)
		return ROZ_OK;
	grown = roz_realloc(d->path, (d->npath + n + 1) * sizeof(*grown));
	if (!grown)
		return ROZ_ENOMEM;
	d->path = grown;
	for (size_t i = 0; i < n; i++, parts += strlen(parts) + 1) {
		if (!(d->path[d->npath] = roz_strdup(parts)))
			return ROZ_ENOMEM;
		d->path[++d->npath] = NULL;
	}
	return ROZ_OK;
}

static roz_toml_diag *diag_new(roz_toml_diags *diags, loc at, const char *message, roz_toml_loss lost)
{
	roz_toml_diag *d;

	if (roz_alloc_array_reserve((void **)&diags->items, &diags->cap, sizeof(*diags->items),
				    diags->len + 1) < 0)
		return NULL;
	d = &diags->items[diags->len++];
	memset(d, 0, sizeof(*d));
	d->line = at.line;
	d->column = at.col;
	d->lost = lost;
	snprintf(d->message, sizeof(d->message), "%s", message);
	return d;
}

/*
 * Lenient mode: record the error just found with what it cost, then go on
 * reading at the line after it (or after the value, when the key was the
 * problem). A broken header sends the keys under it to a table of their own
 * that is thrown away, so they cannot land in the table before it.
 */
static int recover(parser *p, roz_toml_diags *diags, roz_toml_loss lost)
{
	roz_toml_diag *d = diag_new(diags, p->failed_at, p->err->message, lost);
	loc r = p->resume_set ? p->resume : p->failed_at;
	int rc = ROZ_OK;

	if (!d)
		return ROZ_ENOMEM;
	if (lost == ROZ_TOML_LOST_KEY) {
		rc = path_add(d, p->cur_path.ptr, p->cur_nparts);
		d->partial = p->cur_partial;
	}
	if (rc == ROZ_OK && lost != ROZ_TOML_LOST_NOTHING) {
		/* the whole key when it was read, else the parts read before it broke off */
		rc = path_add(d, p->stmt_done ? p->stmt.ptr : p->keys.ptr, p->stmt_done ? p->stmt_nparts : p->nparts);
		d->partial |= !p->stmt_done;
	}
	if (rc == ROZ_OK && lost == ROZ_TOML_LOST_TABLE) {
		roz_toml_value *sink = new_value(ROZ_TOML_TABLE, p->failed_at);

		if (!sink || discard(p, sink) < 0)
			return ROZ_ENOMEM;
		sink->u.table.flags = TF_HEADER;
		p->cur = sink;
		p->cur_depth = 1;
		roz_buf_reset(&p->cur_path);
		for (size_t i = 0; i < d->npath; i++)
			roz_buf_add(&p->cur_path, d->path[i], strlen(d->path[i]) + 1);
		p->cur_nparts = d->npath;
		p->cur_partial = d->partial;
		if (roz_buf_failed(&p->cur_path))
			return ROZ_ENOMEM;
	}
	if (rc < 0)
		return rc;
	p->line = r.line;
	p->bol = r.off - (size_t)(r.col - 1);
	p->pos = r.off;
	if (!p->resume_set && r.line > p->stmt_line) {
		/*
		 * A value that ran onto later lines and broke there: the line it
		 * broke on (a table header, say) is read again as a line of its own.
		 */
		p->pos = p->bol;
	} else {
		while (!at_end(p) && peek(p) != '\n')
			p->pos++;
		if (!at_end(p))
			eat_newline(p, 1);
	}
	if (diags->len + 1 >= ROZ_TOML_MAX_DIAGS && !at_end(p)) {
		if (!(d = diag_new(diags, here(p), "too many errors; the rest of the document was not read",
				   ROZ_TOML_LOST_REST)))
			return ROZ_ENOMEM;
		d->partial = true;
		p->pos = p->len;
	}
	return ROZ_OK;
}

static int parse_document(parser *p, roz_toml_diags *diags)
{
	int rc;

	/*
	 * A UTF-8 byte order mark may open the document; columns on line 1
	 * start after it, as an editor shows them.
	 */
	if (match_at(p, 0, "\xEF\xBB\xBF"))
		p->pos = p->bol = 3;
	for (;;) {
		size_t nl;
		int c;

		skip_ws(p);
		if (at_end(p))
			return ROZ_OK;
		nl = newline_len(p, p->pos);
		c = peek(p);
		if (nl) {
			eat_newline(p, nl);
			continue;
		}
		roz_toml_loss lost = ROZ_TOML_LOST_NOTHING;

		p->stmt_done = p->resume_set = false;
		p->stmt_line = p->line;
		if (c == '#') {
			rc = skip_comment(p);
		} else if (c == '[') {
			lost = ROZ_TOML_LOST_TABLE;
			rc = parse_header(p);
			if (rc == ROZ_OK && p->lenient) {
				/* the keys that follow belong under this header, whatever comes after it */
				lost = ROZ_TOML_LOST_NOTHING;
				roz_buf_reset(&p->cur_path);
				roz_buf_add(&p->cur_path, p->stmt.ptr, p->stmt.len);
				p->cur_nparts = p->stmt_nparts;
				p->cur_partial = false;
				if (roz_buf_failed(&p->cur_path))
					return ROZ_ENOMEM;
			}
			if (rc == ROZ_OK)
				rc = end_of_line(p, "expected newline after table header");
		} else {
			lost = ROZ_TOML_LOST_KEY;
			rc = parse_keyval(p, p->cur, p->cur_depth, true);
			if (rc == ROZ_OK) {
				/* in the tree already: only a comment can be wrong now */
				lost = ROZ_TOML_LOST_NOTHING;
				rc = end_of_line(p, "expected newline after value");
			}
		}
		if (rc == ROZ_EPARSE && p->lenient)
			rc = recover(p, diags, lost);
		if (rc < 0)
			return rc;
	}
}

/* ---- public API --------------------------------------------------------- */

static int run(const char *text, size_t len, roz_toml_value **out, roz_toml_error *err,
	       roz_toml_diags *diags)
{
	parser p;
	loc start = {1, 1, 0};
	int rc;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.s = text ? text : "";
	p.len = len;
	p.line = 1;
	p.err = err;
	p.lenient = diags != NULL;
	roz_buf_init(&p.keys);
	roz_buf_init(&p.text);
	roz_buf_init(&p.cur_path);
	roz_buf_init(&p.stmt);
	/* keeps every line and column number inside an int */
	if (len > (size_t)INT32_MAX) {
		rc = fail(&p, start, "document too large");
		if (!diags)
			return rc;
		p.len = 0;
		if (!diag_new(diags, start, err->message, ROZ_TOML_LOST_REST))
			return ROZ_ENOMEM;
		diags->items[0].partial = true;
	}
	p.root = new_value(ROZ_TOML_TABLE, start);
	if (!p.root) {
		rc = ROZ_ENOMEM;
	} else {
		p.cur = p.root;
		rc = parse_document(&p, diags);
	}
	roz_buf_dispose(&p.keys);
	roz_buf_dispose(&p.text);
	roz_buf_dispose(&p.cur_path);
	roz_buf_dispose(&p.stmt);
	roz_free(p.parts);
	roz_free(p.slots);
	for (size_t i = 0; i < p.ndead; i++)
		roz_toml_free(p.dead[i]);
	roz_free(p.dead);
	if (rc < 0) {
		roz_toml_free(p.root);
		if (rc == ROZ_ENOMEM && err)
			snprintf(err->message, sizeof(err->message), "out of memory");
		return rc;
	}
	*out = p.root;
	return ROZ_OK;
}

int roz_toml_parse(const char *text, size_t len, roz_toml_value **out, roz_toml_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
	if (!out || (!text && len)) {
		roz_error_set("roz_toml_parse: no text or no place for the result");
		return ROZ_EINVALID;
	}
	return run(text, len, out, err, NULL);
}

int roz_toml_parse_lenient(const char *text, size_t len, roz_toml_value **out, roz_toml_diags *diags)
{
	roz_toml_error scratch;
	int rc;

	if (!out || !diags || (!text && len)) {
		roz_error_set("roz_toml_parse_lenient: no text or no place for the result");
		return ROZ_EINVALID;
	}
	memset(&scratch, 0, sizeof(scratch));
	rc = run(text, len, out, &scratch, diags);
	if (rc < 0)
		roz_toml_diags_dispose(diags);
	return rc;
}

void roz_toml_diags_dispose(roz_toml_diags *diags)
{
	if (!diags)
		return;
	for (size_t i = 0; i < diags->len; i++) {
		for (size_t k = 0; k < diags->items[i].npath; k++)
			roz_free(diags->items[i].path[k]);
		roz_free(diags->items[i].path);
	}
	roz_free(diags->items);
	memset(diags, 0, sizeof(*diags));
}

void roz_toml_free(roz_toml_value *value)
{
	size_t i;

	if (!value)
		return;
	switch (value->type) {
	case ROZ_TOML_TABLE:
		for (i = 0; i < value->u.table.len; i++) {
			roz_free(value->u.table.items[i].key);
			roz_toml_free(value->u.table.items[i].value);
		}
		roz_free(value->u.table.items);
		break;
	case ROZ_TOML_ARRAY:
		for (i = 0; i < value->u.array.len; i++)
			roz_toml_free(value->u.array.items[i]);
		roz_free(value->u.array.items);
		break;
	case ROZ_TOML_STRING:
	case ROZ_TOML_DATETIME:
		roz_free(value->u.str.ptr);
		break;
	case ROZ_TOML_INTEGER:
	case ROZ_TOML_FLOAT:
	case ROZ_TOML_BOOLEAN:
		break;
	}
	roz_free(value);
}

const roz_toml_kv *roz_toml_get_kv(const roz_toml_value *table, const char *key)
{
	size_t i;

	if (!table || !key || table->type != ROZ_TOML_TABLE)
		return NULL;
	for (i = 0; i < table->u.table.len; i++)
		if (strcmp(table->u.table.items[i].key, key) == 0)
			return &table->u.table.items[i];
	return NULL;
}

const roz_toml_value *roz_toml_get(const roz_toml_value *table, const char *key)
{
	const roz_toml_kv *kv = roz_toml_get_kv(table, key);

	return kv ? kv->value : NULL;
}

const char *roz_toml_type_name(roz_toml_type type)
{
	switch (type) {
	case ROZ_TOML_TABLE: return "table";
	case ROZ_TOML_ARRAY: return "array";
	case ROZ_TOML_STRING: return "string";
	case ROZ_TOML_INTEGER: return "integer";
	case ROZ_TOML_FLOAT: return "float";
	case ROZ_TOML_BOOLEAN: return "boolean";
	case ROZ_TOML_DATETIME: return "datetime";
	}
	return "unknown";
}
