/*
 * roz/toml.h - a strict parser for TOML 1.0 documents.
 *
 * roz_toml_parse() turns a whole document into a tree of roz_toml_value
 * nodes rooted in a table. It accepts exactly TOML 1.0: comments; bare,
 * quoted and dotted keys; basic, literal and multi-line strings with every
 * escape; decimal, hex, octal and binary integers with underscores; floats
 * (including inf and nan); booleans; offset/local date-times, dates and
 * times (kept as their text); arrays (multi-line, trailing comma, mixed
 * types); standard tables, arrays of tables and inline tables. Anything
 * else - a redefined key or table, an integer outside 64 bits, a bad escape,
 * a control character, invalid UTF-8 - is an error reported with the line
 * and column (both 1-based, column counted in bytes) where it was found.
 * Nothing is skipped silently.
 *
 * roz_toml_parse_lenient() reads the same language but does not stop at
 * the first error: it records it, skips to the line after the place it was
 * found and goes on, so one bad line costs only what it says. Each problem
 * comes with what it cost: nothing (a comment, text after a header), one
 * key/value pair, or the keys under a broken table header up to the next
 * header. On a well-formed document both functions build the same tree,
 * and on a bad one the first problem reported is the error the strict
 * parser stops at.
 *
 * Ownership: the tree returned through *out belongs to the caller and is
 * released with roz_toml_free(). Lookups return borrowed pointers into it.
 * A roz_toml_diags is the caller's and is emptied with roz_toml_diags_dispose().
 */
#ifndef ROZ_TOML_H
#define ROZ_TOML_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum roz_toml_type {
	ROZ_TOML_TABLE,
	ROZ_TOML_ARRAY,
	ROZ_TOML_STRING,
	ROZ_TOML_INTEGER,
	ROZ_TOML_FLOAT,
	ROZ_TOML_BOOLEAN,
	ROZ_TOML_DATETIME /* the value's text, validated, in u.str */
} roz_toml_type;

typedef struct roz_toml_value roz_toml_value;

typedef struct roz_toml_kv {
	char *key;             /* decoded key, NUL-terminated */
	int line, column;      /* where the key was written */
	roz_toml_value *value;
} roz_toml_kv;

struct roz_toml_value {
	roz_toml_type type;
	int line, column; /* where the value starts (for tables: the header, or the key) */
	union {
		struct {
			char *ptr; /* NUL-terminated; may also hold NULs from \u0000 */
			size_t len;
		} str;
		int64_t integer;
		double floating;
		bool boolean;
		struct {
			roz_toml_value **items;
			size_t len, cap;
		} array;
		struct {
			roz_toml_kv *items; /* in the order the keys were first written */
			size_t len, cap;
			unsigned flags; /* parser bookkeeping; ignore */
		} table;
	} u;
};

typedef struct roz_toml_error {
	int line, column;
	char message[256]; /* lowercase, no position: "expected '=' after key" */
} roz_toml_error;

/*
 * Parse `len` bytes of `text`. On success *out is a ROZ_TOML_TABLE.
 * On failure returns ROZ_EPARSE (err filled in, *out NULL) or ROZ_ENOMEM;
 * roz_error_last() then reads "<line>:<column>: <message>".
 */
int roz_toml_parse(const char *text, size_t len, roz_toml_value **out, roz_toml_error *err);

void roz_toml_free(roz_toml_value *value);

/* What a problem found by roz_toml_parse_lenient() kept out of the tree. */
typedef enum roz_toml_loss {
	ROZ_TOML_LOST_NOTHING, /* a comment, or text after a complete header */
	ROZ_TOML_LOST_KEY,     /* the key/value pair at `path` */
	ROZ_TOML_LOST_TABLE,   /* the header at `path`, and its keys up to the next header */
	ROZ_TOML_LOST_REST     /* too many problems: the rest of the document was not read */
} roz_toml_loss;

typedef struct roz_toml_diag {
	int line, column;  /* where the problem is, as in roz_toml_error */
	char message[256]; /* lowercase, no position */
	roz_toml_loss lost;
	char **path;       /* the lost key or table from the root, one decoded part each */
	size_t npath;
	bool partial;      /* the key broke off after `path`: the loss is somewhere under it */
} roz_toml_diag;

typedef struct roz_toml_diags {
	roz_toml_diag *items; /* in the order found, which is document order */
	size_t len, cap;
} roz_toml_diags;

/* The most problems one document reports; the last of them is then LOST_REST. */
#define ROZ_TOML_MAX_DIAGS 64

/*
 * Parse `len` bytes of `text`, collecting problems into `diags` (which must
 * start zeroed or emptied). Returns ROZ_OK with *out holding everything
 * that parsed, even when problems were found (diags->len > 0), ROZ_ENOMEM
 * (*out NULL) or ROZ_EINVALID for bad arguments.
 */
int roz_toml_parse_lenient(const char *text, size_t len, roz_toml_value **out, roz_toml_diags *diags);

void roz_toml_diags_dispose(roz_toml_diags *diags);

/* The value under `key` in a table, or NULL. Borrowed. */
const roz_toml_value *roz_toml_get(const roz_toml_value *table, const char *key);
/* The key/value entry under `key` in a table, or NULL. Borrowed. */
const roz_toml_kv *roz_toml_get_kv(const roz_toml_value *table, const char *key);

/* "table", "array", "string", "integer", "float", "boolean", "datetime". */
const char *roz_toml_type_name(roz_toml_type type);

#ifdef __cplusplus
}
#endif

#endif
