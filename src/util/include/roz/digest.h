/*
 * roz/digest.h - SHA-256 of tool inputs that were too large to store whole,
 * so a reviewer can still verify what was attempted.
 */
#ifndef ROZ_DIGEST_H
#define ROZ_DIGEST_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_SHA256_HEX_SIZE 65

#define ROZ_SHA256_SIZE 32

/* SHA-256 of `len` bytes, as its 32 bytes. */
void roz_digest_sha256_bytes(const void *data, size_t len, unsigned char out[ROZ_SHA256_SIZE]);
/* Lowercase hex SHA-256 of `len` bytes; `out` gets 64 digits and a NUL. */
void roz_digest_sha256_hex(const void *data, size_t len, char out[ROZ_SHA256_HEX_SIZE]);
/* The value of a hex digit (either case), or -1 for anything else. */
int roz_digest_hex_digit(int c);

/*
 * FNV-1a, 64 bits, of n bytes: a fast hash for tables in memory (interned
 * paths, lines compared), never for anything stored or trusted.
 */
uint64_t roz_hash_fnv1a(const void *p, size_t n);

/*
 * The same over text that arrives in pieces (a file read in blocks):
 * begin (NULL when out of memory), update as often as needed, then end,
 * which writes the hex digest and frees the state. roz_digest_sha256_abort
 * frees a state without a digest. All accept NULL.
 */
typedef struct roz_digest_sha256 roz_digest_sha256;
roz_digest_sha256 *roz_digest_sha256_begin(void);
void roz_digest_sha256_update(roz_digest_sha256 *d, const void *data, size_t len);
void roz_digest_sha256_end(roz_digest_sha256 *d, char out[ROZ_SHA256_HEX_SIZE]);
void roz_digest_sha256_abort(roz_digest_sha256 *d);

#ifdef __cplusplus
}
#endif

#endif
