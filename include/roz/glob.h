/*
 * roz/glob.h - the glob patterns users write in `review.gates.tools`.
 *
 * `*` matches any run of characters (slashes and spaces included), `?` one
 * character, `[abc]`, `[a-z]` and `[!a-z]` one character from (or not from)
 * a set; a `]` first in a set is literal. Characters are UTF-8 code points.
 * Everything else matches itself; there is no backslash escape (write `[*]`
 * for a literal star). Matching is linear in practice: no pattern can make it
 * backtrack exponentially.
 *
 * A pattern with an unclosed `[` is not a valid glob; such a pattern
 * matches keys that start with the pattern minus its trailing stars, so a
 * typo still gates rather than silently letting everything through.
 *
 * When only the start of a key is known (a Bash line whose later words are
 * computed when it runs), roz_glob_could_match() answers whether the pattern
 * matches some key with that start: it is the question "could this gate
 * fire, depending on what the line computes?".
 */
#ifndef ROZ_GLOB_H
#define ROZ_GLOB_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when `text` matches `pattern` as a whole. */
bool roz_glob_match(const char *pattern, const char *text);

/* True when the pattern is a well-formed glob (every `[` closed). */
bool roz_glob_valid(const char *pattern);

/*
 * True when some text that begins with the first `len` bytes of `prefix`
 * matches `pattern` as a whole (roz_glob_match on that text would say yes).
 * With len == 0 every pattern could match. Linear in len.
 */
bool roz_glob_could_match(const char *pattern, const char *prefix, size_t len);

#ifdef __cplusplus
}
#endif

#endif
