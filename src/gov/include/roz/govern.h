/*
 * roz/govern.h - one governance judgement per tool call.
 *
 * The hook handlers of the review core decide whether the agent may stop;
 * these decide whether a tool call may change the repository, and record
 * what the session saw. They put the governance rules together
 * (docs/governance.md):
 *
 *   PreToolUse, any repository: a destructive Bash line (roz/destructive.h)
 *     asks the person (DESTRUCTIVE_BLOCKED), never allows.
 *   PreToolUse, a governed repository (one with .orchestration/
 *     active_intents.yaml), for a call that can change files (roz/effect.h):
 *       - the intents file cannot be used: denied (INTENTS_UNREADABLE),
 *         naming the file, line and column; reads stay free;
 *       - `roz intent select <ID>` in the line: an unknown id, or an intent
 *         that is not IN_PROGRESS, is denied (INTENT_INVALID) and changes
 *         nothing; a good one is selected before the rest is judged;
 *       - no intent selected: denied (INTENT_REQUIRED), listing the choices;
 *         but when detection judges the call (w->detects), a Bash line that
 *         shows no write target of its own (a program, a script) runs, and
 *         what it changes is judged after;
 *       - a write target computed when the line runs: ask (TARGET_UNKNOWN),
 *         or, when detection judges the call, run, judged after;
 *       - a target under .orchestration/: denied (ORCHESTRATION_PROTECTED);
 *       - a visible write outside the repository, but in a temporary
 *         directory (o->temp_roots) or Claude Code's own ~/.claude/: ask
 *         (OUTSIDE_REPOSITORY);
 *       - a target outside the intent's owned_scope: denied
 *         (SCOPE_VIOLATION), judged on the path as written and on where its
 *         symbolic links lead; paths .intentignore matches, and paths outside
 *         the repository on both counts, are outside governance;
 *       - a Write/Edit/MultiEdit/NotebookEdit of a file whose content
 *         differs from what this session last read or wrote: denied
 *         (STALE_FILE).
 *     After `escalate_after` refusals in a row the next one asks instead,
 *     so the person decides.
 *   PostToolUse, a governed repository: a Read, a file tool's write, or a
 *     Bash line's visible targets are hashed and remembered for the stale
 *     check; a change that ran ends a run of refusals.
 *
 * Everything the judgement needs from the file system comes through
 * roz_gov_world: where links lead (paths.read_link) and what a file holds
 * (hash_file). The runner fills it; tests pass tables.
 */
#ifndef ROZ_GOVERN_H
#define ROZ_GOVERN_H

#include "roz/common.h"
#include "roz/denial.h"
#include "roz/destructive.h"
#include "roz/effect.h"
#include "roz/hook_io.h"
#include "roz/intents.h"
#include "roz/path.h"
#include "roz/scope.h"
#include "roz/session_gov.h"
#include "roz/shell.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What `path` holds now: ROZ_OK with the hex SHA-256 of its content,
 * ROZ_ENOTFOUND when there is no such file, another error when it cannot
 * be read (roz_error_last says why).
 */
typedef int (*roz_gov_hash_fn)(void *ud, const char *path, char out[ROZ_GOV_HASH_SIZE]);

typedef struct roz_gov_world {
	const char *root;              /* the repository root: absolute, normalized */
	bool governed;                 /* the root has .orchestration/active_intents.yaml */
	const roz_intents *intents;    /* NULL when governed but the file cannot be used */
	const char *intents_problem;   /* then why: "<file>:<line>:<col>: ..." */
	const roz_ignore *ignore;      /* .orchestration/.intentignore, or NULL */
	bool fold_case;                /* the file system ignores case */
	roz_path_fs paths;             /* home, and where links lead */
	roz_gov_hash_fn hash_file;
	/*
	 * Whether `abs`, outside the root, lies in another governed repository
	 * (another worktree of this one, a repository beside it): ROZ_OK with
	 * *other its root (allocated) or NULL; ROZ_ENOMEM. NULL: never.
	 */
	int (*governed_elsewhere)(void *ud, const char *abs, const char *root, char **other);
	void *ud;
	bool detects;                  /* detection judges what the call changes (roz/detect.h) */
} roz_gov_world;

typedef struct roz_gov_opts {
	uint32_t escalate_after;       /* refusals in a row before the next asks; 0: never */
	bool destructive;              /* judge destructive commands (any repository) */
	char *const *tmp_dirs; size_t ntmp;
	const char *const *temp_roots; size_t ntemp_roots; /* /tmp, /var/tmp, $TMPDIR: writes there are free */
	char *const *disabled; size_t ndisabled;  /* destructive rules turned off, by name */
	char *const *extra; size_t nextra;        /* more destructive commands, as globs */
} roz_gov_opts;

typedef struct roz_gov_result {
	roz_output_kind kind;   /* ALLOW (no objection), DENY or ASK */
	roz_denial denial;      /* the refusal, for DENY and ASK */
	bool save;              /* the session's governance state changed */
	bool escalated;         /* a refusal handed to the person after the limit */
	bool selected;          /* this call selected an intent */
} roz_gov_result;

void roz_gov_result_dispose(roz_gov_result *r);

/* True when the call is one governance may judge at all (not a read-only tool). */
bool roz_govern_may_judge(const roz_hook_input *in);

/*
 * Judge a PreToolUse call. For a Bash call `sh` is the parsed line and
 * `eff` what it changes (roz_effect_of_bash(sh), worked out once by the
 * caller, who needs it too); both NULL for other tools, or when the line
 * could not be read. `g` is the session's governance state (updated in
 * place; NULL when the repository is not governed). ROZ_OK, or ROZ_ENOMEM.
 */
int roz_govern_pre_tool_use(const roz_hook_input *in, const roz_shell_result *sh,
			    const roz_effect *eff, const roz_gov_world *w, const roz_gov_opts *o,
			    roz_time now, roz_session_gov *g, roz_gov_result *out) ROZ_WARN_UNUSED;

/*
 * Learn from a PostToolUse call of a governed repository: what files hold
 * after a Read or a write (`eff`: a Bash line's effect, as above). *save is set when `g` changed. ROZ_OK or ROZ_ENOMEM.
 */
int roz_govern_post_tool_use(const roz_hook_input *in, const roz_effect *eff,
			     const roz_gov_world *w, roz_time now, roz_session_gov *g,
			     bool *save) ROZ_WARN_UNUSED;

/* The IN_PROGRESS intents as a JSON array [{"id","name","scope":[...]}], for details. */
void roz_govern_choices_json(const roz_intents *ints, roz_buf *out);

#ifdef __cplusplus
}
#endif

#endif
