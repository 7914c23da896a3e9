/*
 * roz/config.h - roz's settings: defaults, the TOML file, the environment.
 *
 * Where things are:
 *   roz home     $ROZ_HOME, else ~/.roz              (templates/, config.toml)
 *   config file  $ROZ_CONFIG, else <home>/config.toml (missing = defaults)
 *   storage      $ROZ_STORAGE_PATH, else [storage] path, else <home>
 *                (sessions live in <storage>/sessions/)
 *
 * Precedence: environment over file over defaults. The environment is read
 * through a lookup function so tests can supply their own.
 *
 * Errors: a file that does not parse, or a known key of the wrong type or
 * out of range, fails the load with "<file>:<line>:<column>: <reason>" in
 * roz_error_last(); the config is left at its defaults. Unknown keys and
 * unusable environment values only produce warnings (passed to `warn`).
 * Numbers never wrap: values beyond a field's range saturate at its maximum.
 *
 * Ownership: a roz_config owns all its strings; release with
 * roz_config_free(), which leaves it reusable after roz_config_init().
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
} roz_config;

typedef const char *(*roz_getenv_fn)(void *ud, const char *name);
typedef void (*roz_warn_fn)(void *ud, const char *message);

/* Defaults, with no paths resolved. */
int roz_config_init(roz_config *c) ROZ_WARN_UNUSED;
void roz_config_free(roz_config *c);

/*
 * Apply a TOML document on top of `c`. `origin` names it in messages.
 * ROZ_OK, ROZ_EPARSE (syntax), ROZ_EINVALID (wrong type/value) or ROZ_ENOMEM.
 */
int roz_config_apply_toml(roz_config *c, const char *text, size_t len, const char *origin,
			  roz_warn_fn warn, void *ud) ROZ_WARN_UNUSED;

/* Apply the ROZ_* overrides (not the path variables) found through getenv. */
void roz_config_apply_env(roz_config *c, roz_getenv_fn getenv_fn, void *env_ud, roz_warn_fn warn,
			  void *ud);

/*
 * The whole load: resolve home and config path, read the file if present,
 * apply environment overrides, resolve storage. On a file error `c` still
 * holds usable defaults (with paths and environment applied) and the error
 * is returned, so a hook can warn and carry on while a command fails.
 */
int roz_config_load(roz_config *c, roz_getenv_fn getenv_fn, void *env_ud, roz_warn_fn warn,
		    void *ud) ROZ_WARN_UNUSED;

/* A getenv_fn over the process environment. */
const char *roz_config_process_env(void *ud, const char *name);

const char *roz_review_mode_name(roz_review_mode m);
const char *roz_approval_scope_name(roz_approval_scope s);

#ifdef __cplusplus
}
#endif

#endif
