/*
 * agent_git.h - the agent at work in real git repositories: a throwaway
 * world (its own HOME, a git that reads no system or user configuration,
 * a fixed identity), governed repositories, and the
 * agent's calls made through the real roz hooks as Claude Code makes them
 * (PreToolUse, the tool's effect, PostToolUse). What the ledger then says
 * is read from `roz ledger verify --json`.
 */
#ifndef ROZ_TEST_AGENT_GIT_H
#define ROZ_TEST_AGENT_GIT_H

#include "support.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

typedef struct ag_world {
	char *dir;     /* everything of the test lives under it */
	char *home;    /* <dir>/home: HOME of git and roz, and ROZ_HOME */
	char *env[8];  /* roz's environment (t_run_roz) */
} ag_world;

/*
 * A fresh world. It sets this process's environment for git (HOME,
 * GIT_CONFIG_NOSYSTEM, author and committer) and writes
 * <home>/.gitconfig (init.defaultBranch main, user.name and user.email).
 */
void ag_world_make(ag_world *w);
void ag_world_dispose(ag_world *w);
/* cmocka set-up and tear-down: *state is a fresh world (calloc'd), then disposed and freed. */
int ag_world_up(void **state);
int ag_world_down(void **state);

/* <dir>/<rel> of the world; caller frees. */
char *ag_at(const ag_world *w, const char *rel);

/* `sh -c` of the printf-style line in `dir`; fails the test with what it printed when it fails. */
void ag_sh(const char *dir, const char *fmt, ...) ROZ_PRINTF(2, 3);
/* The same, returning the first line it printed, without its newline; caller frees. */
char *ag_sh_line(const char *dir, const char *fmt, ...) ROZ_PRINTF(2, 3);

/*
 * A governed repository at <dir>/<name> (returned; caller frees): git init,
 * .orchestration/active_intents.yaml with INT-001 IN_PROGRESS owning
 * `scope` (a YAML flow sequence of globs), a README, all committed.
 */
char *ag_repo(const ag_world *w, const char *name, const char *scope);

/* roz <argv> run from `dir`, stdin `in` (or none). */
void ag_roz(const ag_world *w, const char *dir, const char *in, const char *const *argv, t_run *out);

/* Session `sid`, working in `cwd`, selects INT-001 (its Bash line `roz intent select INT-001`). */
void ag_select(const ag_world *w, const char *cwd, const char *sid);

/*
 * The agent's Write of `file` (absolute, or relative to cwd) with `text`:
 * PreToolUse must allow it, the file is written, PostToolUse must answer
 * "{}".
 */
void ag_write(const ag_world *w, const char *cwd, const char *sid, const char *file, const char *text);

/* The agent's Bash line, run by sh in cwd between a PreToolUse that allows it and PostToolUse. */
void ag_bash(const ag_world *w, const char *cwd, const char *sid, const char *command);

/*
 * `roz ledger verify --json` and the further arguments (NULL-terminated)
 * in `dir`: fails the test unless it exits `status` with a JSON document,
 * which is returned (cJSON_Delete it).
 */
cJSON *ag_verify(const ag_world *w, const char *dir, int status, ...);

/* summary.<name> of a verify document; fails the test when it is not a number. */
int ag_summary(const cJSON *doc, const char *name);
/* The first item in `state` of `path` (any path when NULL), or NULL. */
const cJSON *ag_item(const cJSON *doc, const char *state, const char *path);
/* Number of items (of `path` when not NULL). */
int ag_items(const cJSON *doc, const char *path);
/* An item's number field, failing the test when it has none. */
int ag_int(const cJSON *item, const char *name);

/* True when a record of the ledger under root names `path` among its files. */
bool ag_ledger_names(const char *root, const char *path);

/* ---- the review through the hooks (test_review_git.c) ---- */

/* <home>/config.toml replaced by `toml`. */
void ag_config(const ag_world *w, const char *toml);

/*
 * A hook's input as Claude Code gives it: session_id, transcript_path,
 * cwd, permission_mode, hook_event_name, and tool_name when `tool` is not
 * NULL. cJSON_Delete it, or hand it to ag_hook.
 */
cJSON *ag_input(const char *event, const char *sid, const char *cwd, const char *tool);

/* roz hook <which> with `in` (consumed), run in cwd; what it printed and its status in *out. */
void ag_hook(const ag_world *w, const char *cwd, const char *which, cJSON *in, t_run *out);

/*
 * The agent's Edit of `file` (absolute, or relative to cwd): `old` (which
 * must occur once) becomes `new`. PreToolUse must allow it, the file is
 * changed, PostToolUse must answer "{}".
 */
void ag_edit(const ag_world *w, const char *cwd, const char *sid, const char *file, const char *old,
	     const char *new_text);

/* <home>/sessions/<sid>.json parsed (cJSON_Delete it); fails the test when there is none. */
cJSON *ag_session(const ag_world *w, const char *sid);

/* <home>/trees/<sid><suffix> exists. */
bool ag_tree_file(const ag_world *w, const char *sid, const char *suffix);

#endif
