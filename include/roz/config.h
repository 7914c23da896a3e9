/*
 * roz/config.h - roz's settings: defaults, the TOML file, the environment.
 *
 * This is the model: what each setting means and what each problem costs.
 * Finding the roz home and reading the file is roz_config_load()
 * (roz/config_load.h, in the I/O layer).
 *
 * Precedence: environment over file over defaults. The environment is read
 * through a lookup function so tests can supply their own.
 *
 * Problems cost only what they touch. Each setting is checked on its own:
 * one of the wrong type or out of range keeps its default and is reported
 * as "<file>:<line>:<column>: <what is wrong>; <what roz uses instead>",
 * while every other setting applies. A line that is not TOML costs the key
 * it sets (a broken table header: the keys under it); a bad comment costs
 * nothing. Of two definitions of a key the first is used. Every problem is
 * kept in `diags` (errors, which make `roz doctor` fail, and warnings such
 * as unknown keys or unusable environment values) and passed to `warn` as
 * it is found. Numbers never wrap: values beyond a field's range saturate
 * at its maximum.
 *
 * The gates are the exception: when the file cannot be read, or what was
 * lost could have been `[review.gates] tools`, roz cannot know which tools
 * are gated. `hold` is then set with the reason, and roz_config_held()
 * names the tool calls a hook must ask the user about instead of letting
 * them through.
 *
 * Ownership: a roz_config owns all its strings; release with
 * roz_config_dispose(), which leaves it reusable after roz_config_init().
 */
#ifndef ROZ_CONFIG_H
#define ROZ_CONFIG_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum roz_review_mode {
	ROZ_MODE_PROMPT, /* review prompts starting with #roz (default) */
	ROZ_MODE_ALWAYS, /* review every prompt */
	ROZ_MODE_NEVER   /* never review, not even #roz */
} roz_review_mode;

typedef enum roz_approval_scope {
	ROZ_SCOPE_PROMPT,  /* an approval lasts until the next user prompt (default) */
	ROZ_SCOPE_SESSION, /* an approval lasts for the session */
	ROZ_SCOPE_TOOL     /* an approval lets exactly one gated call through */
} roz_approval_scope;

/* One problem with the configuration. */
typedef struct roz_config_diag {
	bool error;       /* an error (roz doctor fails); else a warning */
	int line, column; /* where in the file, or 0 */
	char *message;   /* "<file>:<line>:<column>: what is wrong; what roz does instead" */
	const char *fix; /* how to put it right (static text) */
} roz_config_diag;

/* The most problems kept; one more entry then says how many were left out. */
#define ROZ_CONFIG_MAX_DIAGS 100

typedef struct roz_template_weight {
	char *id;
	uint32_t weight;
} roz_template_weight;

typedef struct roz_config {
	char *home;         /* roz home directory */
	char *config_path;  /* the file that was (or would be) read */
	bool config_loaded; /* a file was found and read */
	char *storage_path; /* directory that holds sessions/ */

	roz_review_mode mode;
	bool require_reviewer; /* COMPLETE counts only when a reviewer run vouches for it */
	char **gate_tools;     /* glob patterns; empty = no gates */
	size_t n_gate_tools;
	roz_approval_scope approval_scope;
	bool has_approval_ttl;
	uint64_t approval_ttl_seconds;

	/* [review] rereview_on_change, rereview_ignore: what makes an approval stale (roz/fingerprint.h) */
	int rereview;            /* a roz_rereview; ROZ_REREVIEW_ALWAYS by default */
	char **rereview_ignore;  /* globs of files "code" does not count */
	size_t n_rereview_ignore;

	uint32_t max_blocks;
	uint64_t cooldown_seconds;
	uint32_t retention_days;

	char *codex;  /* second-opinion tools: name on PATH, a path, or "" */
	char *gemini;

	char *template_active; /* an id, or "random" */
	roz_template_weight *weights;
	size_t n_weights;

	size_t max_events;

	bool fsync;               /* fsync session files and their directory */
	uint32_t lock_timeout_ms; /* bounded wait for a session's lock */

	/* [governance] (docs/governance.md) */
	uint32_t gov_escalate_after; /* refusals in a row before the next asks the person; 0: never */
	bool gov_destructive;        /* destructive commands ask the person, governed or not */
	bool gov_detect;             /* judge what the working tree shows a call changed (detection) */
	uint32_t gov_detect_max;     /* entries a repository may hold for detection to walk it */
	bool gov_detect_watch;       /* detection asks a watcher of the tree what moved (roz watch) */
	char **gov_destructive_disable; /* built-in destructive rules turned off, by name */
	size_t n_gov_destructive_disable;
	char **gov_destructive_extra;   /* more destructive commands, as globs over a command line */
	size_t n_gov_destructive_extra;

	roz_config_diag *diags; /* every problem found while loading, in the order found */
	size_t n_diags, n_dropped;
	bool hold;              /* the gates are unknown: calls that could be gated are asked about */
	char *hold_reason;      /* the problem that made them unknown, "<file>:<line>:<col>: ..." */
	const char *hold_fix;   /* how to put it right (static text) */
} roz_config;

typedef const char *(*roz_getenv_fn)(void *ud, const char *name);
typedef void (*roz_warn_fn)(void *ud, const char *message);

/* Defaults, with no paths resolved. */
int roz_config_init(roz_config *c) ROZ_WARN_UNUSED;
void roz_config_dispose(roz_config *c);

/*
 * Apply a TOML document on top of `c`: every setting that is right, and a
 * diagnostic for each problem. `origin` names the file in messages.
 * ROZ_OK (no errors), ROZ_EPARSE (some text is not TOML), ROZ_EINVALID (a
 * wrong type or value; no syntax errors) or ROZ_ENOMEM. roz_error_last()
 * then holds the first error.
 */
int roz_config_apply_toml(roz_config *c, const char *text, size_t len, const char *origin,
			  roz_warn_fn warn, void *ud) ROZ_WARN_UNUSED;

/* Apply the ROZ_* overrides (not the path variables) found through getenv. */
void roz_config_apply_env(roz_config *c, roz_getenv_fn getenv_fn, void *env_ud, roz_warn_fn warn,
			  void *ud);

/*
 * The config file cannot be used at all (`why` says so: unreadable, too
 * large, or named by $ROZ_CONFIG and missing). It is kept as an error in
 * c->diags, passed to `warn`, and the gates are held, since whatever the
 * file said about them is unknown. ROZ_OK or ROZ_ENOMEM.
 */
int roz_config_file_failed(roz_config *c, const char *why, roz_warn_fn warn, void *ud) ROZ_WARN_UNUSED;

/*
 * Must this tool call be asked about because the gates are unknown? False
 * unless c->hold; then true for everything but read-only tools (Read,
 * Grep, Glob, LS, NotebookRead, WebSearch, TodoRead, TodoWrite,
 * BashOutput), roz's own reviewer (Agent or Task with subagent_type
 * roz:roz) and Bash lines that run only `roz` commands. ROZ_OK or
 * ROZ_ENOMEM. `tool_input` is borrowed.
 */
struct cJSON;
int roz_config_held(const roz_config *c, const char *tool_name, const struct cJSON *tool_input,
		    bool *held) ROZ_WARN_UNUSED;

/* The reason a held call is asked about, for the user. Caller frees; NULL when out of memory. */
char *roz_config_hold_message(const roz_config *c);

const char *roz_config_review_mode_name(roz_review_mode m);
const char *roz_config_approval_scope_name(roz_approval_scope s);

#ifdef __cplusplus
}
#endif

#endif
