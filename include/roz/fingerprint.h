/*
 * roz/fingerprint.h - what an approval saw, and whether the work is still
 * that.
 *
 * When a review cycle starts, roz notes the working tree (the task's
 * baseline). A COMPLETE verdict is recorded with the fingerprint of the
 * task's work as the reviewer could see it: each file that differs from the
 * baseline, with the hash of its content and its mode (a file the task
 * removed has no hash). When the agent stops again (or retries a gated call
 * the approval let through), the same fingerprint is taken of the tree as
 * it is then and the two are compared here:
 *
 *   - a file in both with the same hash and mode: as approved;
 *   - a file in both that differs (content, mode, removed or brought
 *     back): changed since the approval;
 *   - a file only in the approval: the task's change to it was undone (it
 *     is as it was at the baseline again): changed;
 *   - a file only now: changed after the approval.
 *
 * A file changed after the approval and changed back is as approved. A
 * rename is the old path removed and the new one added: both are named.
 * Paths are as the caller spells them (relative to the repository root,
 * absolute for files outside it); both fingerprints must be sorted by path
 * (bytewise).
 *
 * Which changes count ([review] rereview_on_change): "always" every one,
 * "code" those whose path matches none of the `ignore` globs (roz/glob.h:
 * `*.md`, `docs/` followed by a star), "never" none: the approval holds whatever happens.
 *
 * Pure: no file is read here.
 */
#ifndef ROZ_FINGERPRINT_H
#define ROZ_FINGERPRINT_H

#include <stdint.h>

#include "roz/common.h"
#include "roz/digest.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roz_fp_file {
	char *path;
	/*
	 * the content's hash in hex: git's object id in a repository (SHA-1 or
	 * SHA-256), SHA-256 outside one; "" when the file is not there (one
	 * longer than ROZ_SHA256_HEX_SIZE - 1 is taken as "")
	 */
	char hash[ROZ_SHA256_HEX_SIZE];
	uint32_t mode;                  /* st_mode (type and permission bits); 0 when not there */
} roz_fp_file;

typedef struct roz_fingerprint {
	roz_fp_file *items; /* sorted by path, each path once */
	size_t n, cap;
} roz_fingerprint;

typedef enum roz_rereview {
	ROZ_REREVIEW_ALWAYS = 0,
	ROZ_REREVIEW_CODE,
	ROZ_REREVIEW_NEVER
} roz_rereview;

/* "always", "code", "never"; parse: ROZ_OK or ROZ_EINVALID. */
const char *roz_rereview_name(roz_rereview r);
int roz_rereview_parse(const char *s, roz_rereview *out) ROZ_WARN_UNUSED;

/* Add a file (path copied) keeping the order; an existing path is replaced. ROZ_OK or ROZ_ENOMEM. */
int roz_fingerprint_put(roz_fingerprint *fp, const char *path, const char *hash, uint32_t mode) ROZ_WARN_UNUSED;
void roz_fingerprint_dispose(roz_fingerprint *fp);

/* How a file stands against the approval. */
typedef enum roz_fp_change {
	ROZ_FP_MODIFIED, /* in both, content or mode differs */
	ROZ_FP_ADDED,    /* changed only after the approval (or brought back after the task removed it) */
	ROZ_FP_REMOVED,  /* there when approved, gone now */
	ROZ_FP_REVERTED  /* the approved change to it was undone: it is as at the baseline */
} roz_fp_change;

const char *roz_fp_change_name(roz_fp_change c);

typedef struct roz_fp_diff_item {
	const char *path; /* points into one of the compared fingerprints */
	roz_fp_change change;
} roz_fp_diff_item;

typedef struct roz_fp_diff {
	roz_fp_diff_item *items; /* sorted by path */
	size_t n, cap;
} roz_fp_diff;

/*
 * The files that changed since the approval, as `mode` counts them
 * (`ignore`: globs for ROZ_REREVIEW_CODE, may be NULL). *out is
 * overwritten; empty means the approval holds. Release with
 * roz_fp_diff_dispose (it does not own the paths: keep both fingerprints
 * while it is used). ROZ_OK or ROZ_ENOMEM.
 */
int roz_fingerprint_compare(const roz_fingerprint *approved, const roz_fingerprint *now, roz_rereview mode,
			    const char *const *ignore, size_t nignore, roz_fp_diff *out) ROZ_WARN_UNUSED;
void roz_fp_diff_dispose(roz_fp_diff *d);

#ifdef __cplusplus
}
#endif

#endif
