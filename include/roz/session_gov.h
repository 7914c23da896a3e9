/*
 * roz/session_gov.h - a session's governance state, kept beside its review.
 *
 * In a repository that declares intents (docs/governance.md) each session
 * walks a four-state machine:
 *
 *   awaiting        no intent selected: changes are refused (INTENT_REQUIRED)
 *   context_loaded  an intent is selected; its scope judges every change
 *   action_allowed  the last change passed every check and ran
 *   blocked         the last change was refused; the next good one, or a
 *                   new selection, returns the session to context_loaded
 *                   (or awaiting, with no intent)
 *
 * It also remembers what the session last saw of each file it read or
 * wrote (a SHA-256 of the whole content), so a write to a file that
 * changed on disk since then is refused as stale, and how many governance
 * refusals came in a row, so the next one after the limit goes to the
 * person instead.
 *
 * Stored as the session file's "governance" object, written only once
 * governance has touched the session: a session in a repository without
 * intents is stored exactly as before.
 *
 * Ownership: the struct lives inside roz_session and owns its strings and
 * arrays; roz_session_free() releases it through roz_session_gov_dispose().
 */
#ifndef ROZ_SESSION_GOV_H
#define ROZ_SESSION_GOV_H

#include "roz/common.h"
#include "roz/time.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

typedef enum roz_gov_phase {
	ROZ_GOV_AWAITING = 0,
	ROZ_GOV_CONTEXT_LOADED,
	ROZ_GOV_ACTION_ALLOWED,
	ROZ_GOV_BLOCKED
} roz_gov_phase;

/* Files remembered per session; past it the least recently seen is forgotten. */
#define ROZ_GOV_MAX_FILES 512
/* Hex SHA-256 plus NUL. */
#define ROZ_GOV_HASH_SIZE 65

typedef struct roz_gov_file {
	char *path;                    /* absolute, resolved */
	char hash[ROZ_GOV_HASH_SIZE];  /* of the content when last read or written */
	roz_time seen_at;
} roz_gov_file;

/* Violations detection keeps per session; past it the oldest is dropped (and the stop still held). */
#define ROZ_GOV_MAX_VIOLATIONS 256

/*
 * A change detection found that governance does not allow (roz/detect.h),
 * kept until the tree shows it undone or a person accepts it.
 */
typedef struct roz_gov_violation {
	char *root;      /* the repository, absolute */
	char *path;      /* relative to root */
	char *from;      /* a rename's old path, or NULL */
	char *change;    /* "created", "modified", "removed", "renamed", "mode", "linked" */
	char *code;      /* the rule broken: "SCOPE_VIOLATION", "ORCHESTRATION", "INTENT_REQUIRED" */
	char *tool;      /* the tool whose call made it */
	bool existed;    /* something was at path before the change */
	roz_time at;
} roz_gov_violation;

typedef struct roz_session_gov {
	bool present;          /* governance has touched this session: store the object */
	roz_gov_phase phase;
	char *intent_id;       /* the selected intent, or NULL */
	char *intent_root;     /* the repository it was selected in (it counts there only), or NULL */
	bool refactor;         /* selected with --refactor: changes are AST_REFACTOR */
	roz_opt_time selected_at;
	uint32_t denials;      /* governance refusals in a row */
	uint32_t escalations;  /* refusals handed to the person after the limit */
	char *last_code;       /* the last refusal's code, or NULL */
	char *model;           /* the model Claude Code named at SessionStart, for the ledger; or NULL */
	roz_gov_file *files;   /* oldest first */
	size_t n_files, cap_files;
	roz_gov_violation *violations; /* oldest first */
	size_t n_violations;
	uint32_t stop_holds;   /* stops held for violations since the last one let through */
	bool detect_off_said;  /* told that a repository is too large for detection */
} roz_session_gov;

/* "awaiting", "context_loaded", "action_allowed", "blocked". */
const char *roz_session_gov_phase_name(roz_gov_phase p);
/* The reverse; false for anything else. */
bool roz_session_gov_phase_parse(const char *name, roz_gov_phase *out);

void roz_session_gov_dispose(roz_session_gov *g);

/* Select `intent_id` (copied): phase context_loaded, refusals in a row reset. */
int roz_session_gov_select(roz_session_gov *g, const char *intent_id, bool refactor,
			   roz_time now) ROZ_WARN_UNUSED;

/* Note the repository the intent was selected in (copied). ROZ_OK, ROZ_EINVALID, ROZ_ENOMEM. */
int roz_session_gov_select_root(roz_session_gov *g, const char *root) ROZ_WARN_UNUSED;

/* The selected intent's id when it was selected in `root` (or before roots were kept), else NULL. */
const char *roz_session_gov_intent_in(const roz_session_gov *g, const char *root);

/* The remembered file, or NULL. */
const roz_gov_file *roz_session_gov_file(const roz_session_gov *g, const char *path);
/* Remember what `path` held at `now` (hash is 64 hex digits). Moves it to the newest. */
int roz_session_gov_remember(roz_session_gov *g, const char *path, const char *hash,
			     roz_time now) ROZ_WARN_UNUSED;
/* Forget `path` (a file deleted by the session). */
void roz_session_gov_forget(roz_session_gov *g, const char *path);

/*
 * Keep a violation (its strings copied). One already kept for the same
 * root and path is replaced, keeping whether something existed there
 * before the first change. ROZ_OK, ROZ_EINVALID (a string roz cannot
 * store), ROZ_ENOMEM.
 */
typedef struct roz_gov_violation_in {
	const char *root, *path, *from, *change, *code, *tool;
	bool existed;
	roz_time at;
} roz_gov_violation_in;

int roz_session_gov_violation_add(roz_session_gov *g, const roz_gov_violation_in *v) ROZ_WARN_UNUSED;
/* A kept violation is at `path` of repository `root` (either end of a rename). */
bool roz_session_gov_violation_at(const roz_session_gov *g, const char *root, const char *path);
/* Drop violation i (undone or accepted). */
void roz_session_gov_violation_remove(roz_session_gov *g, size_t i);

/* Read the stored "governance" object. ROZ_OK, ROZ_ECORRUPT (roz_error_last says why), ROZ_ENOMEM. */
int roz_session_gov_read(const struct cJSON *obj, roz_session_gov *g) ROZ_WARN_UNUSED;
/* Append the object's JSON (nothing when !present is the caller's choice). */
void roz_session_gov_write(const roz_session_gov *g, roz_buf *b);

#ifdef __cplusplus
}
#endif

#endif
