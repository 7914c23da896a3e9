/*
 * roz/runner.h - one hook call from input text to answer text, with the
 * real world plugged in: the clock, the environment, templates on disk,
 * the PATH search for second-opinion tools, and the store its caller gives
 * it (the CLI gives the file store; tests may give any backend).
 *
 * The runner never fails the caller: whatever goes wrong (bad input,
 * unreadable config, a store that cannot be locked or written, memory
 * running out) becomes a "roz: warning: ..." line in `err` and the safe
 * answer {} in `out`. The CLI prints both; the demo and tests read them.
 */
#ifndef ROZ_RUNNER_H
#define ROZ_RUNNER_H

#include "roz/config.h"
#include "roz/session.h"
#include "roz/store.h"

#ifdef __cplusplus
extern "C" {
#endif

struct roz_person_probe;

/*
 * Open the store for one run. A hook learns where sessions live only from
 * the config it loads, so the store is opened after that, and only when
 * the run needs a session (a tool call no gate matches never opens one).
 * What the store puts right by itself goes to warn(warn_ud, message); warn
 * may be NULL (fix it quietly). *out belongs to the runner, which frees
 * it. ROZ_OK, or < 0 with the reason in roz_error_last().
 */
typedef int (*roz_runner_open_store_fn)(void *ud, const roz_config *config, roz_store_warn_fn warn,
					void *warn_ud, roz_store **out);

typedef struct roz_runner_opts {
	roz_getenv_fn getenv_fn; /* NULL: the process environment */
	void *env_ud;
	/*
	 * Where sessions are kept: `store` as it is (borrowed, and left open),
	 * or else the one open_store(store_ud, ...) opens for the run. With
	 * neither, a hook that needs its session warns and answers {}, and
	 * roz decide fails.
	 */
	roz_store *store;
	roz_runner_open_store_fn open_store;
	void *store_ud;
	/* roz's version, for the ledger's records (NULL: "unknown") */
	const char *version;
	/*
	 * The roz executable that serves as a repository's watcher
	 * (roz/watch.h; the CLI's is /proc/self/exe): detection asks it what
	 * moved and starts it when none answers. NULL: no watcher is asked or
	 * started, and detection walks the whole tree.
	 */
	const char *watch_exe;
	/* roz decide --override: how a person is looked for (NULL: for real) */
	const struct roz_person_probe *probe;
	/*
	 * roz decide: when `lessons` is set and the process runs in a governed
	 * repository, an ISSUES verdict is also appended to its
	 * .orchestration/CLAUDE.md as a lesson. What stops that goes to
	 * lesson_warn(lesson_warn_ud, message) (NULL: quietly); it never fails
	 * the verdict. Off by default, so the demo's verdicts are no lessons.
	 * A COMPLETE that cannot be bound to the work (roz/work.h) is said
	 * there too, and stands.
	 */
	bool lessons;
	roz_store_warn_fn lesson_warn;
	void *lesson_warn_ud;
} roz_runner_opts;

/*
 * Run hook `event` (e.g. "stop") on `len` bytes of input. The answer (one
 * JSON line) is appended to `out`, diagnostics to `err`. Returns ROZ_OK, or
 * ROZ_ENOMEM if even the fallback answer could not be built: the caller then
 * prints "{}" itself, and, when `err` is marked out of memory, a warning of
 * its own, since the runner's could not be kept.
 */
int roz_runner_hook(const char *event, const char *input, size_t len, roz_buf *out, roz_buf *err,
		    const roz_runner_opts *opts);

/* One process, as the check behind `roz decide --override` sees it. */
typedef struct roz_process_info {
	long ppid;     /* its parent */
	char comm[64]; /* its command name */
	char exe[512]; /* the executable it runs; "" when that cannot be read */
} roz_process_info;

/*
 * What `roz decide --override` looks at to know a person at a terminal
 * stands behind it: no Claude Code variables in the environment, standard
 * input and standard error are terminals, and no process above this one is
 * Claude Code. A NULL probe, or a NULL callback, means the real thing
 * (getenv, isatty, /proc); tests inject their own.
 */
typedef struct roz_person_probe {
	bool (*is_terminal)(void *ud, int fd);
	roz_getenv_fn getenv_fn;
	/* Describe process `pid` (0: this one). ROZ_OK, or < 0 when it cannot be read. */
	int (*process)(void *ud, long pid, roz_process_info *out);
	void *ud;
} roz_person_probe;

/*
 * ROZ_OK when a person at a terminal, outside Claude Code, runs this;
 * else ROZ_EINVALID with what is missing in roz_error_last(). A process
 * tree that cannot be read at all counts as missing.
 */
int roz_runner_person_check(const roz_person_probe *probe) ROZ_WARN_UNUSED;

typedef struct roz_decide_request {
	const char *session_id; /* the session the verdict is for */
	roz_decision_kind kind;
	const char *summary;
	const char *message;  /* ISSUES: what to fix, or NULL */
	const char *opinions; /* COMPLETE: second opinions, or NULL */
	/* the Claude Code session the command runs in ($CLAUDE_CODE_SESSION_ID), or NULL */
	const char *caller_session;
	bool override; /* a person outside Claude Code records a trusted verdict */
} roz_decide_request;

/*
 * `roz decide` against the store `opts` gives (opened without warnings):
 * lock the session, record the verdict (roz_decide_record: without
 * --override it needs the reviewer's ticket, checked and used under the
 * lock), save, unlock. An override is refused unless roz_runner_person_check()
 * passes, through opts->probe. A verdict run from inside a different Claude
 * Code session than the one it names is refused, and the caller's own
 * session records its pending attempt as having gone to a bad session id.
 * opts->getenv_fn is not used: the config is already loaded. ROZ_OK;
 * ROZ_ENOTFOUND for an unknown session; ROZ_EINVALID for a refused request
 * or no store; or another error, with the reason in roz_error_last().
 */
int roz_runner_decide(const roz_config *config, const roz_decide_request *req,
		      const roz_runner_opts *opts) ROZ_WARN_UNUSED;

/* Shared with the CLI: a roz_env for `now` over real ids, randomness and templates. */
struct roz_env;
void roz_runner_env(struct roz_env *env, const roz_config *config);

/* Second-opinion tools from config found on PATH, e.g. "codex, gemini"; NULL if none. Caller frees. */
char *roz_runner_find_second_opinions(const roz_config *config, roz_getenv_fn getenv_fn, void *env_ud);

/* The text of <home>/templates/block-<id>.md (or the plugin's copy); NULL if absent. Caller frees. */
char *roz_runner_template_load(const roz_config *config, const char *plugin_root, const char *id);

#ifdef __cplusplus
}
#endif

#endif
