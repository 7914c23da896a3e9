/*
 * runner.c - runs one hook for real: parse input, load config, lock and
 * load the session in the store its caller gives, call the handler, save,
 * unlock, answer. Every failure turns into a warning and the answer {},
 * because a quality gate must never trap the user.
 */
#include "roz/runner.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/clock.h"
#include "roz/config_load.h"
#include "roz/decide.h"
#include "roz/file.h"
#include "roz/hooks.h"
#include "roz/json.h"
#include "roz/random.h"
#include "roz/store.h"
#include "roz/utf8.h"
#include "roz/work_view.h"
#include "governance.h"
#include "lesson_hook.h"

#define MAX_TEMPLATE_BYTES (256u * 1024u)

typedef struct runner_ctx {
	const roz_config *config;
	const char *plugin_root;
} runner_ctx;

static int real_new_id(void *ud, char out[ROZ_UUID_SIZE])
{
	(void)ud;
	return roz_random_uuid_v4(out);
}

static uint64_t real_random(void *ud, uint64_t bound)
{
	uint64_t x, limit;

	(void)ud;
	if (bound <= 1)
		return 0;
	/* reject the top sliver so every value is equally likely */
	limit = UINT64_MAX - UINT64_MAX % bound;
	do {
		if (roz_random_bytes(&x, sizeof(x)) < 0)
			return 0;
	} while (x >= limit);
	return x % bound;
}

/*
 * What a symbolic link points to, for the core's path resolution (see
 * roz/path.h): anything that is not a readable link is "not a link", so the
 * path is judged as written.
 */
static int real_read_link(void *ud, const char *path, char **target)
{
	char buf[4096];
	ssize_t n;

	(void)ud;
	*target = NULL;
	n = readlink(path, buf, sizeof(buf));
	if (n < 0 || (size_t)n >= sizeof(buf))
		return ROZ_ENOTFOUND;
	*target = roz_strndup(buf, (size_t)n);
	return *target ? ROZ_OK : ROZ_ENOMEM;
}

static bool template_id_ok(const char *id)
{
	if (!*id || *id == '.' || strlen(id) > 64)
		return false;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			return false;
	return true;
}

/* A template that cannot be read whole, or is empty, too large or not text, is not there. */
static char *read_template(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int rc = roz_file_read_path(path, 0, MAX_TEMPLATE_BYTES, &text, &len);

	if (rc < 0 || !len || !roz_utf8_valid(text, len) || strlen(text) != len) {
		roz_free(text);
		return NULL;
	}
	return text;
}

char *roz_runner_template_load(const roz_config *config, const char *plugin_root, const char *id)
{
	char *path, *text = NULL;

	if (!template_id_ok(id))
		return NULL;
	if (config->home && (path = roz_asprintf("%s/templates/block-%s.md", config->home, id))) {
		text = read_template(path);
		roz_free(path);
	}
	if (!text && plugin_root && *plugin_root &&
	    (path = roz_asprintf("%s/templates/block-%s.md", plugin_root, id))) {
		text = read_template(path);
		roz_free(path);
	}
	return text;
}

static char *env_load_template(void *ud, const char *id)
{
	runner_ctx *c = ud;

	return roz_runner_template_load(c->config, c->plugin_root, id);
}

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Look a command up the way a shell would, without starting one. */
static bool on_path(const char *name, const char *path_env)
{
	const char *p = path_env, *end;
	bool found = false;

	if (!name || !*name)
		return false;
	if (strchr(name, '/'))
		return executable(name);
	while (p && !found) {
		char *full;

		end = strchr(p, ':');
		if (end == p || !*p)
			full = roz_asprintf("./%s", name); /* an empty PATH entry means "." */
		else
			full = roz_asprintf("%.*s/%s", (int)(end ? end - p : (long)strlen(p)), p, name);
		found = full && executable(full);
		roz_free(full);
		p = end ? end + 1 : NULL;
	}
	return found;
}

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

char *roz_runner_find_second_opinions(const roz_config *config, roz_getenv_fn getenv_fn, void *env_ud)
{
	const char *path = getenv_fn(env_ud, "PATH");
	bool codex = on_path(config->codex, path), gemini = on_path(config->gemini, path);

	if (codex && gemini)
		return roz_asprintf("%s, %s", base_name(config->codex), base_name(config->gemini));
	if (codex || gemini)
		return roz_strdup(base_name(codex ? config->codex : config->gemini));
	return NULL;
}

void roz_runner_env(roz_env *env, const roz_config *config)
{
	memset(env, 0, sizeof(*env));
	env->now = roz_clock_now();
	env->config = config;
	env->new_id = real_new_id;
	env->random = real_random;
}

static void warn_cb(void *ud, const char *msg)
{
	roz_buf_addf(ud, "roz: warning: %s\n", msg);
}

/* Record that a corrupt file was moved aside, in the session that replaces it. */
static int note_recovery(roz_session *s, const roz_env *env, const char *moved_to, const char *why)
{
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	roz_buf_adds(&p, "{\"moved_to\":");
	roz_json_add_string(&p, moved_to ? moved_to : "");
	roz_buf_adds(&p, ",\"reason\":");
	roz_json_add_string(&p, why);
	roz_buf_addc(&p, '}');
	if ((rc = roz_buf_failed(&p)) == ROZ_OK)
		rc = roz_hook_trace(s, env, ROZ_EVENT_SESSION_RECOVERED, p.ptr);
	roz_buf_dispose(&p);
	return rc;
}

/*
 * The store a run uses: the one the caller gave (borrowed), or one opened
 * for this run (*owned: the runner frees it).
 */
static int use_store(const roz_runner_opts *opts, const roz_config *config, roz_store_warn_fn warn,
		     void *warn_ud, roz_store **store, bool *owned)
{
	int rc;

	*store = NULL;
	*owned = false;
	if (opts && opts->store) {
		*store = opts->store;
		return ROZ_OK;
	}
	if (!opts || !opts->open_store) {
		roz_error_set("no session store was given to roz's runner");
		return ROZ_EINVALID;
	}
	if ((rc = opts->open_store(opts->store_ud, config, warn, warn_ud, store)) < 0) {
		*store = NULL;
		return rc;
	}
	if (!*store) {
		roz_error_set("opening the session store gave no store");
		return ROZ_EINVALID;
	}
	*owned = true;
	return ROZ_OK;
}

/* Gates are configured, or the config that would say which cannot be read. */
static bool gates_apply(const roz_config *c)
{
	return c->n_gate_tools || c->hold;
}

/*
 * A tool call roz cannot read while gates apply is neither let through
 * (that would open every gate to malformed input) nor refused: the user
 * looks at it.
 */
static int ask_unreadable(roz_hook_output *out, const char *why)
{
	return roz_hook_output_take(out, ROZ_OUTPUT_ASK,
				    roz_asprintf("roz could not read this tool call (%s); gates are "
						 "configured, so please look at it before it runs.",
						 why));
}

/* A tool call a gate matched: what it needs from the store decides whether it runs. */
static bool gated_call(roz_hook_event ev, const roz_hook_plan *plan)
{
	return ev == ROZ_HOOK_PRE_TOOL_USE && plan->gate.matched;
}

/* The parser's notes on malformed fields, one warning line each. */
static void report_input_warnings(roz_buf *err, const char *event, const roz_buf *warnings)
{
	const char *p = warnings->len ? warnings->ptr : NULL, *nl;

	for (; p && *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			break;
		roz_buf_addf(err, "roz: warning: %s: %.*s\n", event, (int)(nl - p), p);
	}
}

int roz_runner_hook(const char *event, const char *input, size_t len, roz_buf *out, roz_buf *err,
		    const roz_runner_opts *opts)
{
	roz_getenv_fn getenv_fn = opts && opts->getenv_fn ? opts->getenv_fn : roz_config_load_process_env;
	void *env_ud = opts ? opts->env_ud : NULL;
	roz_hook_event ev = roz_hook_event_parse(event);
	roz_hook_input in;
	roz_config config;
	roz_hook_plan plan;
	roz_hook_result res;
	roz_store *store = NULL;
	roz_lock *lock = NULL;
	roz_session *session = NULL;
	roz_env env;
	runner_ctx ctx;
	roz_work_view view;
	roz_work_ops work_ops;
	char *second = NULL, *moved_to = NULL, recovered[512] = "", why[512], more[256];
	bool have_config = false, have_input = false, own_store = false;
	gov_run gov;
	int rc;

	memset(&plan, 0, sizeof(plan));
	memset(&gov, 0, sizeof(gov));
	roz_hook_result_init(&res);
	if (ev == ROZ_HOOK_UNKNOWN) {
		roz_buf_addf(err, "roz: warning: unknown hook event '%.64s'; answering {}\n",
			     event ? event : "");
		goto answer;
	}
	rc = roz_config_load(&config, getenv_fn, env_ud, warn_cb, err);
	if (rc == ROZ_ENOMEM)
		goto fail;
	have_config = true;
	/* each problem in the file went to stderr through warn_cb; config.hold tells the handlers */
	if (rc < 0)
		roz_buf_addf(err, "roz: warning: %s\n", roz_error_last());

	if ((rc = roz_hook_input_parse(input, len, &in)) < 0) {
		if (rc == ROZ_ENOMEM)
			goto fail;
		snprintf(why, sizeof(why), "%s", roz_error_last());
		if (ev == ROZ_HOOK_PRE_TOOL_USE && gates_apply(&config)) {
			roz_buf_addf(err, "roz: warning: %s: %s; gates are configured, answering ask\n",
				     event, why);
			if (ask_unreadable(&res.output, why) < 0)
				goto fail;
			goto answer;
		}
		roz_buf_addf(err, "roz: warning: %s: %s; answering {}\n", event, why);
		goto answer;
	}
	have_input = true;
	report_input_warnings(err, event, &in.warnings);
	/* a call that can write clears the mark an approval left (roz/work_view.h) */
	if (ev == ROZ_HOOK_PRE_TOOL_USE || ev == ROZ_HOOK_POST_TOOL_USE)
		roz_work_tool_call(config.storage_path, ev == ROZ_HOOK_POST_TOOL_USE, &in);
	if ((rc = roz_hook_prepare(ev, &in, &config, &plan)) < 0)
		goto fail;
	/* governance: what it needs of this call, and whether that includes the session */
	if ((rc = gov_prepare(&gov, ev, &in, &config, getenv_fn, env_ud, &plan.needs_session)) < 0)
		goto fail;
	gov.version = opts ? opts->version : NULL;
	gov.watch_exe = opts && config.gov_detect_watch ? opts->watch_exe : NULL;
	if (gov.judges_change && in.tool_unreadable) {
		snprintf(why, sizeof(why), "part of the call cannot be read: %s", in.tool_unreadable);
		goto ask_gov;
	}
	/*
	 * Part of the call that gates judge could not be read: a refusal still
	 * stands, a gate matched by the tool's name still judges, anything else
	 * is the user's to look at. A Bash match came from the unreadable command
	 * itself, so it is not trusted either way.
	 */
	if (ev == ROZ_HOOK_PRE_TOOL_USE && in.tool_unreadable && gates_apply(&config) &&
	    !plan.gate.roz_runs && !plan.gate.touches_store &&
	    (!plan.gate.matched || (in.tool_name && strcmp(in.tool_name, "Bash") == 0))) {
		roz_buf_addf(err, "roz: warning: %s: gates cannot judge this call (%s); answering ask\n",
			     event, in.tool_unreadable);
		if (ask_unreadable(&res.output, in.tool_unreadable) < 0)
			goto fail;
		goto answer;
	}

	roz_runner_env(&env, &config);
	ctx.config = &config;
	ctx.plugin_root = getenv_fn(env_ud, "CLAUDE_PLUGIN_ROOT");
	env.load_template = env_load_template;
	env.ud = &ctx;
	env.paths.home = getenv_fn(env_ud, "HOME");
	env.paths.read_link = real_read_link;
	if (config.storage_path && roz_session_id_valid(in.session_id)) {
		view = (roz_work_view){config.storage_path, in.session_id, in.cwd};
		roz_work_view_ops(&view, &work_ops);
		env.work = &work_ops;
	}
	if (ev == ROZ_HOOK_SESSION_START) {
		second = roz_runner_find_second_opinions(&config, getenv_fn, env_ud);
		env.second_opinions = second;
	}

	if (plan.needs_session) {
		if (!roz_session_id_valid(in.session_id)) {
			snprintf(why, sizeof(why), "session id '%.80s' is not one roz can store "
						   "(letters, digits, '-' and '_' only)", in.session_id);
			/* the gate matched: without a session to hold an approval, the user decides */
			if (ev == ROZ_HOOK_PRE_TOOL_USE && (plan.gate.matched || gov.judges_change)) {
				roz_buf_addf(err, "roz: warning: %s: %s; answering ask\n", event, why);
				if (ask_unreadable(&res.output, why) < 0)
					goto fail;
				goto answer;
			}
			roz_buf_addf(err, "roz: warning: %s: %s; answering {}\n", event, why);
			goto answer;
		}
		rc = use_store(opts, &config, warn_cb, err, &store, &own_store);
		if (rc < 0 || (rc = roz_store_lock(store, in.session_id, config.lock_timeout_ms, &lock)) < 0) {
			if (rc == ROZ_ENOMEM)
				goto fail;
			if (gated_call(ev, &plan) || gov.judges_change)
				goto ask_store;
			roz_buf_addf(err, "roz: warning: %s: %s; answering {}\n", event, roz_error_last());
			goto answer;
		}
		rc = roz_store_get_state(store, in.session_id, &session);
		if (rc == ROZ_ECORRUPT) {
			snprintf(recovered, sizeof(recovered), "%s", roz_error_last());
			if (roz_store_quarantine(store, in.session_id, env.now, &moved_to) < 0) {
				roz_buf_addf(err, "roz: warning: %s: session file is corrupt (%s) and could "
						  "not be moved aside: %s; answering {}\n",
					     event, recovered, roz_error_last());
				goto answer;
			}
			roz_buf_addf(err, "roz: warning: session file was corrupt (%s); moved it to '%s' "
					  "and started the session afresh\n",
				     recovered, moved_to ? moved_to : "?");
		} else if (rc == ROZ_ENOMEM) {
			goto fail;
		} else if (rc < 0 && rc != ROZ_ENOTFOUND) {
			if (gated_call(ev, &plan) || gov.judges_change)
				goto ask_store;
			roz_buf_addf(err, "roz: warning: %s: %s; answering {}\n", event, roz_error_last());
			goto answer;
		}
	}

	rc = roz_hook_handle(ev, &in, &env, &plan, &session, &res);
	/* governance judges after the review: a review's refusal already stands */
	if (rc == ROZ_OK)
		rc = gov_apply(&gov, ev, &in, &env, &plan, &session, &res);
	if (rc == ROZ_OK && roz_buf_failed(&res.notes) == ROZ_OK && res.notes.len)
		roz_buf_add(err, res.notes.ptr, res.notes.len);
	if (rc < 0) {
		if (rc == ROZ_ENOMEM)
			goto fail;
		roz_hook_output_dispose(&res.output);
		if (gov.judges_change) {
			snprintf(why, sizeof(why), "%s", roz_error_last());
			goto ask_gov;
		}
		roz_buf_addf(err, "roz: warning: %s: %s; answering {}\n", event, roz_error_last());
		goto answer;
	}
	if (res.save && session && recovered[0] && note_recovery(session, &env, moved_to, recovered) < 0)
		goto fail;
	/* an answer cut to its bound says where the rest is; the session's record, unless it says better */
	if (res.output.text && !res.output.more && in.session_id) {
		snprintf(more, sizeof more, "`roz context %.128s` shows what roz recorded of this session",
			 in.session_id);
		res.output.more = more;
	}
	/* the answer is built before saving, so state is never kept for an answer never given */
	if (roz_hook_output_write(&res.output, out) < 0)
		goto fail;
	if (res.save && session && (rc = roz_store_put(store, session)) < 0) {
		if (rc == ROZ_ENOMEM)
			goto fail;
		/* a gate's refusal needs nothing kept to stand: the call waits either way */
		if ((gated_call(ev, &plan) || gov.judges_change) &&
		    (res.output.kind == ROZ_OUTPUT_DENY || res.output.kind == ROZ_OUTPUT_ASK)) {
			roz_buf_addf(err, "roz: warning: %s: cannot save session: %s\n", event,
				     roz_error_last());
			rc = ROZ_OK;
			goto done;
		}
		/* an answer that relies on state we could not keep would loop; let the agent go */
		roz_buf_addf(err, "roz: warning: %s: cannot save session: %s; answering {}\n", event,
			     roz_error_last());
		roz_hook_output_dispose(&res.output);
		roz_buf_reset(out);
		rc = roz_hook_output_write(&res.output, out);
	}
	goto done;
ask_store:
	/* a gated call whose session cannot be read cannot be judged: the user looks at it */
	snprintf(why, sizeof(why), "its session cannot be read: %s", roz_error_last());
	if (gov.judges_change && !gated_call(ev, &plan))
		goto ask_gov;
	roz_buf_addf(err, "roz: warning: %s: %s; answering ask\n", event, why);
	if (ask_unreadable(&res.output, why) < 0)
		goto fail;
	goto answer;
ask_gov:
	/* a governed change that cannot be judged is not let through */
	roz_buf_addf(err, "roz: warning: %s: governance: %s; answering ask\n", event, why);
	roz_hook_output_dispose(&res.output);
	if (gov_refuse_without_session(&gov, &in, why, &res.output) < 0)
		goto fail;
answer:
	rc = roz_hook_output_write(&res.output, out);
	goto done;
fail:
	roz_buf_addf(err, "roz: warning: %s: out of memory; answering {}\n", event ? event : "hook");
	roz_hook_output_dispose(&res.output);
	roz_buf_reset(out);
	rc = roz_hook_output_write(&res.output, out);
done:
	roz_store_unlock(store, lock);
	gov_run_dispose(&gov);
	if (own_store)
		roz_store_free(store);
	roz_session_free(session);
	roz_hook_result_dispose(&res);
	roz_hook_plan_dispose(&plan);
	if (have_input)
		roz_hook_input_dispose(&in);
	if (have_config)
		roz_config_dispose(&config);
	roz_free(second);
	roz_free(moved_to);
	return rc;
}

/* Under the caller session's lock: its pending attempt went to the wrong session. */
static void note_bad_session_id(roz_store *store, const roz_config *config, const char *caller)
{
	roz_lock *lock = NULL;
	roz_session *s = NULL;
	roz_attempt *a;

	if (!roz_session_id_valid(caller) ||
	    roz_store_lock(store, caller, config->lock_timeout_ms, &lock) < 0)
		return;
	if (roz_store_get_state(store, caller, &s) == ROZ_OK && roz_session_pending_attempt(s, &a) == ROZ_OK && a) {
		a->outcome = ROZ_OUTCOME_BAD_SESSION_ID;
		s->updated_at = roz_clock_now();
		if (roz_store_put(store, s) < 0) {
			/* best effort: the refusal below is what matters to the caller */
		}
	}
	roz_session_free(s);
	roz_store_unlock(store, lock);
}

/* ---- is a person behind --override? ------------------------------------------------- */

/* Variables Claude Code sets for the commands its tools run (seen on 2.1.197 and 2.1.331). */
static const char *const claude_markers[] = {
	"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT",
	"CLAUDE_CODE_CHILD_SESSION", "CLAUDE_CODE_EXECPATH",
};
/* How far up the process tree to look; real trees are a dozen deep at most. */
#define MAX_ANCESTORS 64

static bool real_is_terminal(void *ud, int fd)
{
	(void)ud;
	return isatty(fd) == 1;
}

/* Up to size-1 bytes of a small /proc file, NUL-terminated; its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

static int real_process(void *ud, long pid, roz_process_info *out)
{
	char path[64], stat[1024], *close_paren, *nl;
	ssize_t n;

	(void)ud;
	memset(out, 0, sizeof(*out));
	/* /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses */
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	if (read_small(path, stat, sizeof(stat)) < 0) {
		roz_error_set("cannot read '%s': %s", path, strerror(errno));
		return ROZ_EIO;
	}
	if (!(close_paren = strrchr(stat, ')')) || sscanf(close_paren + 1, " %*c %ld", &out->ppid) != 1) {
		roz_error_set("cannot read '%s': unexpected format", path);
		return ROZ_EIO;
	}
	snprintf(path + strlen(path) - 4, 8, "comm");
	if (read_small(path, out->comm, sizeof(out->comm)) >= 0 && (nl = strchr(out->comm, '\n')))
		*nl = '\0';
	snprintf(path + strlen(path) - 4, 8, "exe");
	/* another user's process (sudo, sshd) may not show its executable: comm still counts */
	n = readlink(path, out->exe, sizeof(out->exe) - 1);
	out->exe[n > 0 ? n : 0] = '\0';
	return ROZ_OK;
}

static bool is_claude_code(const roz_process_info *p)
{
	const char *base = strrchr(p->exe, '/');

	base = base ? base + 1 : p->exe;
	return strcmp(p->comm, "claude") == 0 || strcmp(base, "claude") == 0 ||
	       strstr(p->exe, "/@anthropic-ai/claude-code") != NULL;
}

int roz_runner_person_check(const roz_person_probe *probe)
{
	roz_person_probe real = {real_is_terminal, roz_config_load_process_env, real_process, NULL};
	const roz_person_probe *pr = probe ? probe : &real;
	bool (*is_terminal)(void *, int) = pr->is_terminal ? pr->is_terminal : real_is_terminal;
	roz_getenv_fn getenv_fn = pr->getenv_fn ? pr->getenv_fn : roz_config_load_process_env;
	int (*process)(void *, long, roz_process_info *) = pr->process ? pr->process : real_process;
	roz_process_info info;
	long pid = 0;

	for (size_t i = 0; i < sizeof(claude_markers) / sizeof(claude_markers[0]); i++)
		if (getenv_fn(pr->ud, claude_markers[i])) {
			roz_error_set("--override is for a person at a terminal outside Claude Code, but "
				      "%s is set here; inside Claude Code the roz:roz reviewer records "
				      "the verdict",
				      claude_markers[i]);
			return ROZ_EINVALID;
		}
	if (!is_terminal(pr->ud, 0) || !is_terminal(pr->ud, 2)) {
		roz_error_set("--override is for a person at a terminal, and its %s is not one; run it "
			      "yourself, in a terminal of your own",
			      !is_terminal(pr->ud, 0) ? "standard input" : "standard error");
		return ROZ_EINVALID;
	}
	for (int depth = 0; depth < MAX_ANCESTORS; depth++) {
		if (process(pr->ud, pid, &info) < 0) {
			/* not even this process: nothing can be checked, so nothing is allowed */
			if (depth == 0) {
				roz_error_prefix("--override cannot check who runs it");
				return ROZ_EINVALID;
			}
			break; /* an ancestor that is gone or hidden: the walk ends there */
		}
		if (is_claude_code(&info)) {
			roz_error_set("--override is for a person at a terminal outside Claude Code, but "
				      "it runs under Claude Code (process %ld, %s); run it from a "
				      "terminal of your own",
				      pid, info.exe[0] ? info.exe : info.comm);
			return ROZ_EINVALID;
		}
		if (info.ppid <= 1)
			break;
		pid = info.ppid;
	}
	return ROZ_OK;
}

int roz_runner_decide(const roz_config *config, const roz_decide_request *req, const roz_runner_opts *opts)
{
	const char *caller = req->caller_session && *req->caller_session ? req->caller_session : NULL;
	roz_store *store = NULL;
	roz_lock *lock = NULL;
	roz_session *s = NULL;
	roz_env env;
	bool save = false, own_store = false;
	int rc, prc;

	/* a person's verdict counts at once, so a person must be there to give it */
	if (req->override && (rc = roz_runner_person_check(opts ? opts->probe : NULL)) < 0)
		return rc;
	if ((rc = use_store(opts, config, NULL, NULL, &store, &own_store)) < 0)
		return rc;
	if (caller && strcmp(caller, req->session_id) != 0) {
		note_bad_session_id(store, config, caller);
		roz_error_set("this command runs in Claude Code session %s, but names session %s; use "
			      "the SESSION_ID from the reviewer's prompt",
			      caller, req->session_id);
		rc = ROZ_EINVALID;
		goto out;
	}
	if ((rc = roz_store_lock(store, req->session_id, config->lock_timeout_ms, &lock)) < 0)
		goto out;
	rc = roz_store_get_state(store, req->session_id, &s);
	if (rc < 0)
		goto out;
	roz_runner_env(&env, config);
	/* the ticket is checked and used under the same lock as the verdict is saved */
	rc = roz_decide_record(s, req->kind, req->summary, req->message, req->opinions, req->override,
			       &env, &save);
	/* an approval is bound to the work as it is now (roz/work.h) */
	if (rc == ROZ_OK && req->kind == ROZ_DECISION_COMPLETE && config->storage_path) {
		roz_work_view view = {config->storage_path, req->session_id, NULL};
		roz_work_ops ops;
		const char *why = NULL;

		roz_work_view_ops(&view, &ops);
		if ((rc = roz_work_approve(s, &ops, &why)) == ROZ_OK && why && s->review.work.base_set && opts &&
		    opts->lesson_warn) {
			char *w = roz_asprintf("the approval is recorded, but not bound to the work: %s", why);

			opts->lesson_warn(opts->lesson_warn_ud, w ? w : "the approval is not bound to the work");
			roz_free(w);
		}
		save = true;
	}
	if (save) {
		char why[512];

		snprintf(why, sizeof(why), "%s", roz_error_last());
		prc = roz_store_put(store, s);
		if (rc == ROZ_OK)
			rc = prc;
		else
			roz_error_set("%s", why); /* the refusal is what the caller must read */
	}
out:
	roz_store_unlock(store, lock);
	/* after the unlock: the lessons file has a lock of its own, and the verdict is saved */
	if (rc == ROZ_OK && req->kind == ROZ_DECISION_ISSUES && opts && opts->lessons &&
	    lesson_hook_record(s, req, env.now, config->lock_timeout_ms) < 0 && opts->lesson_warn) {
		char *why = roz_asprintf("the verdict is recorded, but not as a lesson: %s", roz_error_last());

		opts->lesson_warn(opts->lesson_warn_ud, why ? why : "the verdict is recorded, but not as a lesson");
		roz_free(why);
	}
	if (own_store)
		roz_store_free(store);
	roz_session_free(s);
	return rc;
}
