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
 * Ownership: the tree returned through *out belongs to the caller and is
 * released with roz_toml_free(). Lookups return borrowed pointers into it.
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
