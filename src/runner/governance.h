/*
 * governance.h - the runner's governance step, around the review handler:
 * what it needs before the session is locked, and what it adds to the
 * answer after (docs/governance.md). Private to the runner.
 */
#ifndef ROZ_RUNNER_GOVERNANCE_H
#define ROZ_RUNNER_GOVERNANCE_H

#include <sys/stat.h>

#include "roz/config.h"
#include "roz/detect.h"
#include "roz/govern.h"
#include "roz/hooks.h"
#include "roz/orchestration.h"
#include "roz/tree.h"

/* An in-scope file detection found changed by the call, for the ledger. */
typedef struct gov_detected {
	char *path;        /* relative to the root */
	bool is_new;       /* made by the call (created, renamed onto no file): its whole is the call's */
	char *from;        /* renamed: where from (relative to the root), its whole the call's; else NULL */
	char *before;      /* what it held before the call, when known (detect_before.c); else NULL */
	size_t before_len;
} gov_detected;

typedef struct gov_run {
	roz_orchestration orch;
	bool found;            /* orch was looked up */
	bool active;           /* this call is governance's business (needs the session) */
	bool judges_change;    /* a PreToolUse that may change a governed repository */
	roz_shell_result sh;   /* the Bash line, parsed once */
	roz_effect eff;        /* and what it changes, worked out once (have_sh) */
	bool have_sh;
	char *tmp_dirs[3];
	size_t ntmp;
	const char *temp_roots[3]; /* /tmp, /var/tmp, $TMPDIR: where writes outside the repository are free */
	size_t ntemp_roots;
	bool records;          /* a PostToolUse write in a repository with .orchestration/: the ledger */
	const char *version;   /* roz's, for records */
	const char *storage;   /* roz's storage (the config's); parsed intents are kept under it */
	char *cache_dir;       /* <storage>/intents, made when a repository is looked for */
	bool detects;          /* a governed repository's tool call: its changes are detected (detect.c) */
	uint32_t detect_max;   /* entries past which the repository is not walked ([governance] detect_max_entries) */
	const char *watch_exe; /* roz, to start the repository's watcher (NULL: walk, never watch) */
	bool detected_run;     /* detection compared the tree for this call: `detected` is what changed */
	gov_detected *detected; /* in-scope files the call changed */
	size_t ndetected;
	char **removed;        /* in-scope files the call removed (relative to the root), for the ledger */
	size_t nremoved;
} gov_run;

/*
 * Before the session is locked: read what governance needs for this call
 * and say whether it needs the session (*needs_session set, never
 * cleared). ROZ_OK or ROZ_ENOMEM; anything else is a problem kept for
 * gov_apply, which fails closed for changes.
 */
int gov_prepare(gov_run *g, roz_hook_event ev, const roz_hook_input *in, const roz_config *c,
		roz_getenv_fn getenv_fn, void *env_ud, bool *needs_session);

/*
 * After the review handler, under the session's lock: judge, remember,
 * and merge governance's answer into res->output. *session may be
 * created. ROZ_OK or ROZ_ENOMEM.
 */
int gov_apply(gov_run *g, roz_hook_event ev, const roz_hook_input *in, const roz_env *env,
	      const roz_hook_plan *plan, roz_session **session, roz_hook_result *res);

/*
 * Append the ledger record of a PostToolUse write (record.c). Failing to
 * record is a warning and a trace event, never a refusal. ROZ_OK or ROZ_ENOMEM.
 */
int gov_record(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
	       roz_hook_result *res);

/* A refusal for a governed change when the session cannot be had (fails closed). */
int gov_refuse_without_session(gov_run *g, const roz_hook_input *in, const char *why,
			       roz_hook_output *out);

/* `rel` under the repository's root, allocated (NULL: out of memory). */
char *gov_path(const gov_run *g, const char *rel);

/* The world governance's rules see, from what gov_prepare found. */
void world_of_run(const gov_run *g, roz_gov_world *w);

/*
 * Remember an in-scope file detection found changed, for the ledger, as
 * the kind of change it was: created (its whole the call's), renamed (the
 * same, at its new path, with where from), removed (kept apart in
 * `removed`: nothing of it is left to read), or changed in place
 * (modified, mode, links). ROZ_OK or ROZ_ENOMEM.
 */
int gov_detected_add(gov_run *g, const roz_change *c);

/*
 * Detection (detect.c). Before a call: mark when it began (the session's
 * first call takes the snapshot). After it: compare, judge, tell, keep
 * violations. At Stop: hold the stop while a violation stands. Failures of
 * detection itself are warnings in res->notes. ROZ_OK or ROZ_ENOMEM.
 */
int gov_detect_pre(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_hook_result *res);
int gov_detect_post(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
		    roz_hook_result *res);
int gov_detect_stop(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
		    roz_hook_result *res);

/*
 * The session's snapshot of this repository:
 * <storage>/trees/<session>-<first 16 hex of sha256(root)>.tree; the
 * folder is made. ROZ_OK, ROZ_ENOTFOUND (no storage or session), ROZ_EIO,
 * ROZ_ENOMEM.
 */
int gov_snapshot_path(const gov_run *g, const char *sid, char **out);

/*
 * For each file of g->detected the call changed in place: what it held
 * before, when that can be known (detect_before.c): the index's blob, or
 * the copy roz kept when the session last changed it. Never fails the
 * call: what cannot be known stays NULL. ROZ_OK or ROZ_ENOMEM.
 */
int gov_detect_before(gov_run *g, const char *sid, const roz_tree *before);

/*
 * Keep a copy of what a file the session changed holds now (`text`, read
 * between two equal stats `st`), so a later call that changes it in place
 * can be credited with its own lines (detect_before.c). Best effort: a
 * copy that cannot be kept is no copy. ROZ_OK or ROZ_ENOMEM.
 */
int gov_shadow_keep(const gov_run *g, const char *sid, const char *rel, const char *text, size_t len,
		    const struct stat *st);

void gov_run_dispose(gov_run *g);

#endif
