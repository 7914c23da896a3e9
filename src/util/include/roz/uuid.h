/*
 * roz/uuid.h - the text of a random (version 4) UUID, as trace events and
 * markers are named. The bytes come from the caller, so this stays free of
 * I/O; roz_random_uuid_v4() (roz/random.h) draws them from the kernel.
 */
#ifndef ROZ_UUID_H
#define ROZ_UUID_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Size of a UUID's text form including the NUL. */
#define ROZ_UUID_SIZE 37

/*
 * Mark 16 random bytes as a version 4, RFC 4122 UUID and write them in
 * lowercase text, e.g. "3f2b...-4...-a...". `bytes` is modified.
 */
void roz_uuid_format(unsigned char bytes[16], char out[ROZ_UUID_SIZE]);

#ifdef __cplusplus
}
#endif

#endif
