/*
 * roz/orchestration.h - a repository's .orchestration/ folder, read for
 * governance: where the repository is, whether it declares intents, and
 * the files governance judges by.
 *
 *   <root>/.orchestration/active_intents.yaml   the intents (roz/intents.h)
 *   <root>/.orchestration/.intentignore         paths outside governance
 *   <root>/.orchestration/CLAUDE.md             lessons shared by sessions
 *
 * The root is the nearest directory from `cwd` up that holds `.git` (a
 * directory, or a file as in worktrees and submodules) - unless one
 * further up holds `.git` and declares intents, which then governs: a
 * repository made inside a governed one (git init, a .git file, a
 * submodule) does not take its files out of governance - else `cwd`
 * itself. Finding it costs one lstat per level (and one stat per
 * repository met) and spawns nothing. A repository is governed when its
 * active_intents.yaml exists: without it roz behaves exactly as it does
 * with no governance at all.
 *
 * A file that cannot be used is not an error of the load: it is kept as a
 * problem ("<path>:<line>:<col>: <message>") for the caller, which refuses
 * changes (intents) or says so and carries on (ignore file, lessons).
 *
 * Ownership: roz_orchestration owns everything it holds; release it with
 * roz_orchestration_dispose().
 */
#ifndef ROZ_ORCHESTRATION_H
#define ROZ_ORCHESTRATION_H

#include "roz/common.h"
#include "roz/intents.h"
#include "roz/scope.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_ORCH_DIR ".orchestration"
#define ROZ_ORCH_INTENTS_FILE ".orchestration/active_intents.yaml"
#define ROZ_ORCH_IGNORE_FILE ".orchestration/.intentignore"
#define ROZ_ORCH_LESSONS_FILE ".orchestration/CLAUDE.md"
/* Largest ignore file read, and the most of the lessons file read (its newest part). */
#define ROZ_ORCH_IGNORE_MAX (256u * 1024u)
#define ROZ_ORCH_LESSONS_MAX (1024u * 1024u)

enum {
	ROZ_ORCH_INTENTS = 1u << 0,
	ROZ_ORCH_IGNORE = 1u << 1,
	ROZ_ORCH_LESSONS = 1u << 2
};

typedef struct roz_orchestration {
	char *root;            /* absolute, as cwd spells it */
	const char *cache_dir; /* set by the caller before loading: where parsed intents are kept, or NULL */
	bool intents_cached;   /* the intents came from the cache */
	bool has_dir;          /* .orchestration/ exists: writes are recorded in the ledger */
	bool governed;         /* active_intents.yaml exists */
	bool fold_case;        /* the root's file system ignores case */
	bool intents_ok;       /* loaded and valid: `intents` holds them */
	roz_intents intents;
	char *intents_problem; /* why not, when governed and asked for */
	bool have_ignore;
	roz_ignore ignore;
	char *ignore_problem;  /* the ignore file exists but cannot be read, or has bad lines */
	char *lessons;         /* CLAUDE.md (its last ROZ_ORCH_LESSONS_MAX bytes), or NULL */
	size_t lessons_len;
	size_t lessons_skipped; /* bytes before what was read */
} roz_orchestration;

/*
 * Find the root for `cwd` (absolute) and whether it is governed. ROZ_OK,
 * ROZ_EINVALID (cwd not absolute) or ROZ_ENOMEM.
 */
int roz_orchestration_find(const char *cwd, roz_orchestration *o) ROZ_WARN_UNUSED;

/*
 * The repository `cwd` (absolute) is in, governed or not: the nearest
 * directory from cwd up that holds `.git`, into *root (allocated), or NULL
 * when there is none (or cwd is not absolute). One lstat per level.
 * ROZ_OK or ROZ_ENOMEM.
 */
int roz_orchestration_repo(const char *cwd, char **root) ROZ_WARN_UNUSED;

/*
 * Read the files `what` names (ROZ_ORCH_*) of a found root: the intents
 * when it is governed, the ignore file and lessons when .orchestration/
 * exists. ROZ_OK or ROZ_ENOMEM.
 */
int roz_orchestration_load(roz_orchestration *o, unsigned what) ROZ_WARN_UNUSED;

void roz_orchestration_dispose(roz_orchestration *o);

/*
 * The hex SHA-256 of what `path` holds, read in blocks (no size limit):
 * ROZ_OK, ROZ_ENOTFOUND (no such file, or not a regular file), ROZ_EIO.
 * `ud` is unused; the signature is governance's hash callback.
 */
int roz_orchestration_hash_file(void *ud, const char *path, char out[65]) ROZ_WARN_UNUSED;

/*
 * Whether `abs` (absolute, normalized) lies in a governed repository other
 * than the one at `root`: from the directory above it up, the first
 * directory holding `.git` (a directory, or the file of a worktree or a
 * submodule) that declares intents (.orchestration/active_intents.yaml, a
 * regular file), as "Which repository" in docs/governance.md finds one.
 * ROZ_OK with *other that root (allocated) or NULL when there is none or
 * it is `root`; ROZ_ENOMEM. A few lstat(2)s, no file read. `ud` is unused;
 * the signature is governance's callback.
 */
int roz_orchestration_governed_elsewhere(void *ud, const char *abs, const char *root,
					 char **other) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
