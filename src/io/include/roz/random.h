/*
 * roz/random.h - random identifiers for trace events and random numbers for
 * template selection, from the kernel's CSPRNG (getrandom(2)).
 */
#ifndef ROZ_RANDOM_H
#define ROZ_RANDOM_H

#include "roz/uuid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill `len` bytes. ROZ_OK or ROZ_EIO (the kernel refused; error set). */
int roz_random_bytes(void *buf, size_t len);

/* A random version 4 UUID in lowercase text, e.g. "3f2b...-4...-a...". */
int roz_random_uuid_v4(char out[ROZ_UUID_SIZE]);

#ifdef __cplusplus
}
#endif

#endif
