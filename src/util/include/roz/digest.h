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

/* Lowercase hex SHA-256 of `len` bytes; `out` gets 64 digits and a NUL. */
void roz_digest_sha256_hex(const void *data, size_t len, char out[ROZ_SHA256_HEX_SIZE]);

#ifdef __cplusplus
}
#endif

#endif
