/*
 * stores.h - stores for tests: the file store handed to the runner the way
 * the CLI hands it, and a wrapper around any backend that makes one chosen
 * call fail, so the contract suite and the runner can be run through every
 * failure a store can report.
 */
#ifndef ROZ_TEST_STORES_H
#define ROZ_TEST_STORES_H

#include "roz/config.h"
#include "roz/store.h"

/*
 * The file store `config` names (storage_path, fsync), its repairs told to
 * warn: a roz_runner_open_store_fn, as the CLI's cli_store_open. ud unused.
 */
int t_file_store_open(void *ud, const roz_config *config, roz_store_warn_fn warn, void *warn_ud,
		      roz_store **out);

typedef enum t_fail_when {
	T_FAIL_BEFORE, /* the failed call never reaches the backend */
	T_FAIL_AFTER   /* the backend does the work, and the caller is told it failed */
} t_fail_when;

typedef struct t_failing_opts {
	/*
	 * The call to fail, counting every method call from 1 (get, put, list,
	 * delete, lock, unlock, quarantine, sweep; free ends the count). 0: none,
	 * which only counts. An unlock cannot fail (the contract): when it is
	 * the Nth call it goes through and nothing is failed.
	 */
	unsigned long fail_at;
	int rc;     /* what the failed call returns, e.g. ROZ_EIO */
	int errnum; /* the errno its message ends with, e.g. ENOSPC */
	t_fail_when when;
} t_failing_opts;

/*
 * Wrap `inner`, which the wrapper takes over (roz_store_free frees both,
 * and on failure `inner` is freed here). It has inner's version, and sweep
 * only when inner has it. A failed call sets roz_error_last() to "cannot
 * <method> (failure injected at call N): <strerror(errnum)>" and returns
 * opts->rc; after the backend did the work (T_FAIL_AFTER) it gives back
 * what the call produced (a session, a list, a lock, a name) first, so a
 * failed call holds nothing. Calls may come from several threads.
 */
int t_failing_store(roz_store *inner, const t_failing_opts *opts, roz_store **out);
/* Method calls counted so far. */
unsigned long t_failing_calls(roz_store *store);
/* The number of the call that was failed, or 0 while none has been. */
unsigned long t_failing_fired(roz_store *store);
/* The store under the wrapper, for looking past it (borrowed). */
roz_store *t_failing_inner(roz_store *store);

#endif
