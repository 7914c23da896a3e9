/*
 * roz/common.h - error codes, the allocator and the growable buffer that
 * every other part of roz builds on.
 *
 * Calling sequence and conventions
 * --------------------------------
 * Functions that can fail return an int: 0 (ROZ_OK) on success, one of the
 * negative ROZ_E* codes below on failure. The human-readable reason is kept
 * aside, per thread, and read with roz_error_last(); the function that
 * detects a failure sets it, callers add nothing or prefix context with
 * roz_error_prefix(). Objects handed back through an `**out` parameter
 * belong to the caller and are released with the matching *_free(), which
 * accepts NULL.
 *
 * All memory goes through roz_malloc() and friends, which cJSON also uses
 * once roz_alloc_init() has run. Tests can make the Nth allocation fail
 * (roz_alloc_fail_after) to prove every path copes with exhaustion.
 */
#ifndef ROZ_COMMON_H
#define ROZ_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ROZ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ROZ_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define ROZ_PRINTF(a, b)
#define ROZ_WARN_UNUSED
#endif

/* Return codes. Keep them negative so `if (rc < 0)` reads naturally. */
enum {
	ROZ_OK = 0,
	ROZ_ERROR = -1,    /* anything not named below */
	ROZ_ENOMEM = -2,   /* an allocation failed */
	ROZ_ENOTFOUND = -3,/* the thing asked for does not exist */
	ROZ_EINVALID = -4, /* an argument or input is not acceptable */
	ROZ_ECORRUPT = -5, /* stored data exists but cannot be read back */
	ROZ_EIO = -6,      /* the operating system refused an I/O call */
	ROZ_ETIMEOUT = -7, /* a bounded wait ran out */
	ROZ_EPARSE = -8    /* text (config, JSON) does not parse */
};

/* Short name of a return code, e.g. "not found". Never NULL. */
const char *roz_error_name(int code);

/* Record the reason for the failure being returned (printf style). */
void roz_error_set(const char *fmt, ...) ROZ_PRINTF(1, 2);
/* Same, followed by ": <strerror(errnum)>". */
void roz_error_set_errno(int errnum, const char *fmt, ...) ROZ_PRINTF(2, 3);
/* Prepend context to the current message: "<prefix>: <old message>". */
void roz_error_prefix(const char *fmt, ...) ROZ_PRINTF(1, 2);
/* The last recorded reason; "" when none. Borrowed, valid until the next set. */
const char *roz_error_last(void);
void roz_error_clear(void);

/* ---- allocator --------------------------------------------------------- */

/* Install roz's allocator into cJSON. Call once at start-up. */
void roz_alloc_init(void);

void *roz_malloc(size_t size);
void *roz_calloc(size_t n, size_t size);
void *roz_realloc(void *ptr, size_t size);
void roz_free(void *ptr);
/* Copies; return NULL (and set the error) when memory runs out or s is NULL. */
char *roz_strdup(const char *s);
char *roz_strndup(const char *s, size_t n);
/* printf into a fresh string; caller frees. NULL on failure. */
char *roz_asprintf(const char *fmt, ...) ROZ_PRINTF(1, 2);

/*
 * Fault injection for tests: after `n` more successful allocations every
 * further one fails. A negative n switches injection off (the default).
 * roz_alloc_count() reports allocations made since the last call to
 * roz_alloc_fail_after(), so a test can learn how many a path makes.
 */
void roz_alloc_fail_after(long n);
long roz_alloc_count(void);

/*
 * Grow an array so it can hold `need` elements of `elem` bytes.
 * *ptr and *cap are updated on success. Returns ROZ_OK or ROZ_ENOMEM.
 */
int roz_alloc_array_reserve(void **ptr, size_t *cap, size_t elem, size_t need) ROZ_WARN_UNUSED;

/* ---- growable byte buffer ----------------------------------------------- */

/*
 * A string that grows as it is appended to. It is always NUL-terminated
 * once anything has been added. Allocation failure is sticky: the first
 * failed append sets `oom`, later appends do nothing, and the caller checks
 * roz_buf_failed() once at the end instead of after every append.
 */
typedef struct roz_buf {
	char *ptr;
	size_t len;
	size_t cap;
	bool oom;
} roz_buf;

#define ROZ_BUF_INIT {NULL, 0, 0, false}

void roz_buf_init(roz_buf *b);
void roz_buf_dispose(roz_buf *b);
void roz_buf_reset(roz_buf *b); /* length to 0, memory kept */
bool roz_buf_grow(roz_buf *b, size_t extra);
void roz_buf_add(roz_buf *b, const void *data, size_t len);
void roz_buf_adds(roz_buf *b, const char *s);
void roz_buf_addc(roz_buf *b, char c);
void roz_buf_addf(roz_buf *b, const char *fmt, ...) ROZ_PRINTF(2, 3);
void roz_buf_vaddf(roz_buf *b, const char *fmt, va_list ap) ROZ_PRINTF(2, 0);
/* Append s with every occurrence of `from` replaced by `to`. */
void roz_buf_add_replaced(roz_buf *b, const char *s, const char *from, const char *to);
/* The contents ("" for an empty buffer). Borrowed. */
const char *roz_buf_cstr(const roz_buf *b);
/* ROZ_ENOMEM (with the error set) if any append failed, else ROZ_OK. */
int roz_buf_failed(const roz_buf *b);
/* Hand the contents to the caller (caller frees) and reset the buffer. */
char *roz_buf_detach(roz_buf *b, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
