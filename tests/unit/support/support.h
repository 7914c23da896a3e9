/*
 * support.h - helpers shared by roz's cmocka tests: throwaway directories,
 * whole-file reads and writes, and running the real `roz` executable with
 * given stdin, arguments and environment while capturing what it prints.
 */
#ifndef ROZ_TEST_SUPPORT_H
#define ROZ_TEST_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roz/common.h"

/* A fresh directory under $TMPDIR (or /tmp); caller frees the path. */
char *t_mkdtemp(void);
/* rm -rf; ignores errors. */
void t_rmtree(const char *path);

/* cmocka setup and teardown: *state is a fresh temporary directory, removed after the test. */
int t_setup_tmpdir(void **state);
int t_teardown_tmpdir(void **state);
/* dir/rel (caller frees); write `text` to dir/rel. */
char *t_at(const char *dir, const char *rel);
void t_put(const char *dir, const char *rel, const char *text);
/* Whole file, NUL-terminated; NULL if unreadable. Caller frees. */
char *t_read_file(const char *path, size_t *len);
/* Write (create/truncate) a file, making parent directories; fails the test on error. */
void t_write_file(const char *path, const char *text);
/* printf into a fresh string; fails the test on error. Caller frees. */
char *t_sprintf(const char *fmt, ...) ROZ_PRINTF(1, 2);

/* A session file exactly as the Rust roz v0.1.7 wrote it (pretty-printed). */
extern const char t_rust_session_file[];

typedef struct t_run {
	int status;   /* exit status, or 128+signal */
	char *out;    /* stdout, NUL-terminated */
	char *err;    /* stderr, NUL-terminated */
	size_t out_len, err_len;
} t_run;

/*
 * Run the roz binary built alongside the tests. argv excludes argv[0] and
 * ends with NULL; env is a NULL-terminated list of "NAME=value" entries
 * added to a minimal environment (PATH, HOME from the caller's env unless
 * overridden). stdin_text may be NULL for empty input.
 */
void t_run_roz(t_run *r, const char *stdin_text, const char *const *env, const char *const *argv);
void t_run_dispose(t_run *r);

#endif
