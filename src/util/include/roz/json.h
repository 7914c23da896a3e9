/*
 * roz/json.h - roz's JSON reader and writer, the only ones in the binary:
 * a validating scanner that walks a document without building a tree, so a
 * session's long trace can be carried through a hook as untouched text; a
 * tree builder on the same rules for the small documents read whole (hook
 * input, the review object); and one writer for escaped strings and trees.
 * cJSON provides the tree type and its accessors; its parser and printers
 * are not used (they lose number spellings and accept what this rejects).
 *
 * The scanner accepts exactly RFC 8259 JSON (UTF-8, no lone surrogates,
 * nesting up to ROZ_JSON_MAX_DEPTH). Spans it reports point into the
 * caller's text and are borrowed.
 */
#ifndef ROZ_JSON_H
#define ROZ_JSON_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_JSON_MAX_DEPTH 512

typedef struct roz_json_span {
	const char *ptr;
	size_t len;
} roz_json_span;

/* Append s as a JSON string literal (quotes included). */
void roz_json_add_string(roz_buf *b, const char *s);
void roz_json_add_stringn(roz_buf *b, const char *s, size_t len);
/* Append ["s0","s1",...] for n strings. */
void roz_json_add_string_array(roz_buf *b, char *const *items, size_t n);

/*
 * Append JSON text without the white space between its tokens (what is
 * inside strings is copied as it is): one line, whatever the layout it
 * came in. The text must be valid JSON.
 */
void roz_json_add_compact(roz_buf *b, const char *s, size_t len);

/* Skip white space from *pos. */
size_t roz_json_skip_ws(const char *s, size_t len, size_t pos);

/*
 * Validate the JSON value starting at s[*pos] (white space allowed before
 * it); on success *pos is just past the value. ROZ_OK or ROZ_EPARSE (with
 * the error set to "<offset>: <reason>").
 */
int roz_json_skip_value(const char *s, size_t len, size_t *pos);

/* True when the whole text is exactly one JSON value (white space around). */
bool roz_json_valid(const char *s, size_t len);

/* The four hex digits of a \uXXXX escape at s[pos]: 0 and *out set, or -1. */
int roz_json_hex4(const char *s, size_t len, size_t pos, unsigned *out);

/*
 * Call `fn` for each member of the object in `obj` (a span holding an
 * object, white space allowed around it). `key` is the raw key between the
 * quotes (escapes not decoded), `value` the member's value, validated before
 * fn sees it. A non-zero return from fn stops the walk and is returned.
 * ROZ_EPARSE if obj is not exactly one valid object.
 */
typedef int (*roz_json_member_fn)(void *ud, roz_json_span key, roz_json_span value);
int roz_json_each_member(roz_json_span obj, roz_json_member_fn fn, void *ud);

/*
 * The same walk, for a caller that reads some values as it goes: fn gets the
 * text and the position where the member's value starts and must leave *pos
 * just past that value (roz_json_skip_value, roz_json_walk_elements or
 * roz_json_parse_at do), so no value is scanned twice.
 */
typedef int (*roz_json_member_at_fn)(void *ud, roz_json_span key, const char *s, size_t len,
				     size_t *pos);
int roz_json_each_member_at(roz_json_span obj, roz_json_member_at_fn fn, void *ud);
/* The object starting at s[*pos] (white space allowed before it); on success *pos is just past the '}'. */
int roz_json_walk_members(const char *s, size_t len, size_t *pos, roz_json_member_at_fn fn, void *ud);

/* Same for the elements of an array. */
typedef int (*roz_json_element_fn)(void *ud, roz_json_span value);
int roz_json_each_element(roz_json_span arr, roz_json_element_fn fn, void *ud);

/*
 * Walk the array starting at s[*pos] (white space allowed before it),
 * calling fn for each element; on success *pos is just past the ']'.
 */
int roz_json_walk_elements(const char *s, size_t len, size_t *pos, roz_json_element_fn fn,
			   void *ud);

/* True when the span is the literal `null` / starts an object / an array. */
bool roz_json_span_is(roz_json_span v, char first);

/*
 * Parse one JSON value into a cJSON tree (caller frees with cJSON_Delete).
 * Unlike cJSON_Parse, numbers keep the exact text they were written with
 * (as cJSON_Raw nodes), so a 20-digit id reaches the reviewer as written,
 * and a \u0000 escape becomes U+FFFD rather than cutting the string short.
 * ROZ_OK, ROZ_EPARSE (error set) or ROZ_ENOMEM.
 */
struct cJSON;
int roz_json_parse(const char *text, size_t len, struct cJSON **out) ROZ_WARN_UNUSED;

/* The same for the value at text[*pos]; on success *pos is just past it and text may go on. */
int roz_json_parse_at(const char *text, size_t len, size_t *pos, struct cJSON **out) ROZ_WARN_UNUSED;

/* A number node of such a tree (raw text or cJSON number) as a double / as an unsigned integer. */
bool roz_json_number(const struct cJSON *v, double *out);
bool roz_json_uint(const struct cJSON *v, uint64_t max, uint64_t *out);
bool roz_json_is_number(const struct cJSON *v);

/*
 * Writing a tree: roz_json_add_value appends v's JSON text to b in one of
 * three layouts, keys in the tree's order or, with ROZ_JSON_SORTED, in byte
 * order. Strings are escaped as roz_json_add_string does, raw nodes (the
 * parser's numbers) are written as they are, number nodes with 15 or, when
 * that does not read back, 17 significant digits, NaN and infinity as null.
 * Memory running out marks b (roz_buf_failed).
 *
 *   ROZ_JSON_COMPACT  no white space: the session file's tool input, --json output
 *   ROZ_JSON_INDENT   a member or element per line, two spaces a level: roz debug, roz trace -v
 *   ROZ_JSON_TABS     cJSON's layout: a member per line indented with tabs, "key":<tab>value,
 *                     arrays on one line as [1, 2]: the tool input in roz context
 */
#define ROZ_JSON_COMPACT 0u
#define ROZ_JSON_INDENT 1u
#define ROZ_JSON_TABS 2u
#define ROZ_JSON_LAYOUT 3u /* the bits that hold the layout */
#define ROZ_JSON_SORTED 4u

void roz_json_add_value(roz_buf *b, const struct cJSON *v, unsigned flags);

/*
 * The value's canonical JSON: compact, object keys in byte order, numbers as
 * written (ROZ_JSON_COMPACT | ROZ_JSON_SORTED). This is what a tool input's
 * size and hash are taken over, matching the Rust roz's serialization for
 * ordinary inputs.
 */
void roz_json_add_canonical(roz_buf *b, const struct cJSON *v);

#ifdef __cplusplus
}
#endif

#endif
