/*
 * roz/intents_cache.h - parsed intents kept between hooks.
 *
 * Parsing the intents file is most of what a governed hook computes, and
 * the file changes rarely. The runner keeps the parsed intents in roz's
 * private storage, as compact JSON written here, under a key naming the
 * file's identity (device, inode, size, modification and change times), and
 * parses the YAML again only when the key differs or the cached text does
 * not read back.
 *
 * Ownership: roz_intents_cache_read() fills a caller-owned roz_intents,
 * released with roz_intents_dispose().
 */
#ifndef ROZ_INTENTS_CACHE_H
#define ROZ_INTENTS_CACHE_H

#include "roz/common.h"
#include "roz/intents.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Append the intents as one JSON document. */
void roz_intents_cache_write(const roz_intents *ints, roz_buf *out);

/* Read what roz_intents_cache_write() wrote: ROZ_OK, ROZ_EPARSE (anything else) or ROZ_ENOMEM. */
int roz_intents_cache_read(const char *text, size_t len, roz_intents *out) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
