/*
 * roz/detect.h - judging what a tool call actually changed.
 *
 * Prevention (roz/govern.h) judges what a call says it will do; detection
 * judges what the working tree shows it did. The runner compares the tree
 * before and after a call (roz/tree.h) and hands the differences here as
 * changes; each is judged like a visible write (docs/governance.md,
 * "Detection"):
 *
 *   - a path under .orchestration/ (but the ledger, which roz appends to)
 *     is a violation (ORCHESTRATION), whatever .intentignore says;
 *   - a path .intentignore matches is outside governance;
 *   - with no IN_PROGRESS intent selected: a violation (INTENT_REQUIRED);
 *   - a path outside the selected intent's owned_scope: a violation
 *     (SCOPE_VIOLATION); a rename is judged at both ends;
 *   - anything else is in scope, and recorded in the ledger.
 *
 * A directory is judged through the files in it (an empty directory made
 * anywhere changes nothing governance owns), except .orchestration/ and
 * what is in it.
 *
 * A violation is kept in the session (roz/session_gov.h) until the tree
 * shows it undone or a person accepts it (`roz intent accept`); the agent
 * cannot stop while one stands.
 */
#ifndef ROZ_DETECT_H
#define ROZ_DETECT_H

#include "roz/common.h"
#include "roz/denial.h"
#include "roz/govern.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum roz_change_kind {
	ROZ_CHANGE_CREATED = 0,
	ROZ_CHANGE_MODIFIED,   /* content, or the type of what is at the path */
	ROZ_CHANGE_REMOVED,
	ROZ_CHANGE_RENAMED,    /* `from` moved to `path` (same inode) */
	ROZ_CHANGE_MODE,       /* permission bits only */
	ROZ_CHANGE_LINKED      /* a hard link added or removed (link count changed) */
} roz_change_kind;

/* "created", "modified", "removed", "renamed", "mode", "linked". */
const char *roz_change_kind_name(roz_change_kind k);
bool roz_change_kind_parse(const char *name, roz_change_kind *out);

typedef struct roz_change {
	roz_change_kind kind;
	char *path;   /* relative to the repository root */
	char *from;   /* RENAMED: the old path; else NULL */
	bool dir;     /* a directory */
	bool existed; /* something was at `path` before the call */
} roz_change;

typedef struct roz_changes {
	roz_change *items;
	size_t n, cap;
} roz_changes;

/* Append a change (paths copied). ROZ_OK or ROZ_ENOMEM. */
int roz_changes_add(roz_changes *c, roz_change_kind kind, const char *path, const char *from,
		    bool dir, bool existed) ROZ_WARN_UNUSED;
void roz_changes_dispose(roz_changes *c);

typedef enum roz_detect_verdict {
	ROZ_DETECT_OUTSIDE = 0, /* not governance's business: ignored paths, the ledger */
	ROZ_DETECT_IN_SCOPE,    /* allowed: recorded in the ledger */
	ROZ_DETECT_VIOLATION    /* not allowed: the agent is told and cannot stop until undone */
} roz_detect_verdict;

/*
 * Judge one change in the world of `w` (root, intents, ignore rules) for
 * a session whose governance state is `g` (NULL: no intent). For a
 * violation *code says which rule it broke.
 */
roz_detect_verdict roz_detect_judge(const roz_change *c, const roz_gov_world *w,
				    const roz_session_gov *g, roz_denial_code *code);

/* One line for the agent: "<path>: <kind> — <why it is not allowed>". */
void roz_detect_describe(const roz_change *c, roz_denial_code code, const char *intent_id,
			 roz_buf *out);

/*
 * How to undo a change of this kind at `path`, as one sentence. A stale
 * file (code ROZ_DENIAL_STALE_FILE) is not undone by putting it back, which
 * would drop the other change too: the sentence says to check that change
 * survived and have the person accept it.
 */
void roz_detect_how_to_undo(roz_change_kind kind, bool existed, roz_denial_code code, const char *path,
			    roz_buf *out);

/*
 * The stale-file lock after the fact: a file the call changed in place,
 * which the session last read or wrote holding `seen_hash` (at
 * `seen_at_ns`), held `before_hash` just before the call (NULL when not
 * known) and had last changed at `before_ctime_ns` (its change time in the
 * snapshot). True when someone else changed it in between: the hashes
 * differ, or, with no hash to compare, it changed after the session saw it.
 */
bool roz_detect_stale(const char *seen_hash, int64_t seen_at_ns, const char *before_hash, int64_t before_ctime_ns);

#ifdef __cplusplus
}
#endif

#endif
