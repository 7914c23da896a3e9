/*
 * roz/utf8.h - UTF-8 checks and cuts. Everything roz stores is valid UTF-8,
 * and every shortened string is cut on a character boundary.
 */
#ifndef ROZ_UTF8_H
#define ROZ_UTF8_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when the `len` bytes are well-formed UTF-8 (no overlongs, no surrogates). */
bool roz_utf8_valid(const char *s, size_t len);

/* Length of the well-formed character at the start of s[0..len), or 0 if there is none. */
size_t roz_utf8_char_len(const char *s, size_t len);

/*
 * Append s[0..len) to b with each byte that does not start a well-formed
 * character replaced by U+FFFD. Returns how many bytes were replaced.
 */
size_t roz_utf8_add_repaired(roz_buf *b, const char *s, size_t len);

/* The largest n <= max such that s[0..n) ends on a character boundary. */
size_t roz_utf8_cut(const char *s, size_t len, size_t max);

/* Append code point cp (at most 0x10FFFF) to b as UTF-8. */
void roz_utf8_add(roz_buf *b, unsigned long cp);

/* Number of code points in a valid UTF-8 string. */
size_t roz_utf8_count(const char *s, size_t len);

/*
 * Length of a valid UTF-8 string in UTF-16 code units: what JavaScript's
 * `length` says of it, and so how Claude Code counts characters (a code
 * point past U+FFFF counts twice).
 */
size_t roz_utf8_utf16_len(const char *s, size_t len);

/* Byte offset of the first `chars` code points (len if the string is shorter). */
size_t roz_utf8_offset(const char *s, size_t len, size_t chars);

#ifdef __cplusplus
}
#endif

#endif
