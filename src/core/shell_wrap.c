/*
 * shell_wrap.c - the commands that run another command given as their
 * arguments (sudo, env, timeout, xargs, ssh, uv run, parallel, ...): the
 * wrapper table, long options as GNU getopt reads them, and unwrap, which
 * skips a wrapper's options to find what it runs. Also the programs that
 * run what the line does not show or take text of their own that can run
 * shell commands: task runners (make, npm run, ...), gdb, vim, emacs,
 * database shells (psql, sqlite, mysql), hyperfine, bwrap, nix-shell, tmux,
 * screen and at. shell_run_words (shell_rules.c) calls into them.
 */
#include "shell_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- long options ------------------------------------------------------- */

/*
 * A long option as GNU getopt reads it: the whole name, or a prefix of only
 * one name in the list. Returns the name found in the list, or NULL.
 */
const char *shell_long_find(const char *list, const char *name, size_t len)
{
	const char *hit = NULL;
	size_t hits = 0;

	if (!len)
		return NULL;
	while (*list) {
		size_t n = strcspn(list, " ");

		if (n == len && !memcmp(list, name, len))
			return list;
		if (n > len && !memcmp(list, name, len)) {
			hit = list;
			hits++;
		}
		list += n;
		while (*list == ' ')
			list++;
	}
	return hits == 1 ? hit : NULL;
}

/* Whether a long option found by shell_long_find is `want` (a name of the list). */
static bool long_names(const char *found, const char *want)
{
	size_t n;

	if (!found || !want[0])
		return false;
	n = strcspn(found, " ");
	return n == strlen(want) && !memcmp(found, want, n);
}

/* name[0, len) spells the long option `full`, abbreviated to no fewer than min bytes. */
bool shell_long_is(const char *name, size_t len, const char *full, size_t min)
{
	return len >= min && len <= strlen(full) && !memcmp(name, full, len);
}

/* ---- wrappers ----------------------------------------------------------- */

/* Sorted by name; see the list in roz/shell.h for what belongs here. */
static const struct wrapper wrappers[] = {
	/* asdf exec cmd: the tool versions the project names */
	{"asdf exec", "", "", 0, "", 0, false, WK_PLAIN},
	{"builtin", "", "", 0, "", 0, false, WK_PLAIN},
	/* bun exec 'text': bun's own shell runs the text */
	{"bun exec", "", "", 0, "", 0, false, WK_JOIN},
	/* bun x / bunx pkg args: a package's program */
	{"bun x", "p", "package", 0, "", 0, false, WK_PLAIN},
	/* bundle exec cmd: with the project's gems */
	{"bundle exec", "", "gemfile", 0, "", 0, false, WK_PLAIN},
	{"bundler exec", "", "gemfile", 0, "", 0, false, WK_PLAIN},
	{"bunx", "p", "package", 0, "", 0, false, WK_PLAIN},
	{"busybox", "", "", 0, "", 0, false, WK_PLAIN},
	{"caffeinate", "tw", "", 0, "", 0, false, WK_PLAIN},
	{"catchsegv", "", "", 0, "", 0, false, WK_PLAIN},
	{"cgexec", "g", "", 0, "", 0, false, WK_PLAIN},
	{"chronic", "", "", 0, "", 0, false, WK_PLAIN},
	{"chroot", "", "userspec groups", 0, "", 1, false, WK_PLAIN},
	{"chrt", "TPD", "sched-runtime sched-period sched-deadline", 0, "", 1, false, WK_PLAIN},
	{"command", "", "", 0, "", 0, false, WK_COMMAND},
	/* conda/mamba run [-n env] cmd: inside an environment */
	{"conda run", "np", "name prefix cwd", 0, "", 0, false, WK_PLAIN},
	{"cpulimit", "lpe", "limit pid exe", 0, "", 0, false, WK_PLAIN},
	/* cross-env A=1 cmd: with variables set */
	{"cross-env", "", "", 0, "", 0, true, WK_PLAIN},
	{"cross-env-shell", "", "", 0, "", 0, true, WK_JOIN},
	{"dbus-run-session", "", "config-file dbus-daemon", 0, "", 0, false, WK_PLAIN},
	/* devbox run cmd: in the project's environment (or its script) */
	{"devbox run", "c", "config environment env env-file", 0, "", 0, false, WK_PLAIN},
	/* direnv exec DIR cmd: with DIR's environment */
	{"direnv exec", "", "", 0, "", 1, false, WK_PLAIN},
	{"doas", "uC", "", 0, "", 0, false, WK_PLAIN},
	/* dotenv [-e file] -- cmd: with a file's variables */
	{"dotenv", "evp", "", 0, "", 0, false, WK_PLAIN},
	{"dotenvx run", "f", "env-file env convention", 0, "", 0, false, WK_PLAIN},
	{"eatmydata", "", "", 0, "", 0, false, WK_PLAIN},
	{"entr", "", "", 0, "", 0, false, WK_ENTR},
	{"env", "uCPS", "unset chdir split-string", 'S', "split-string", 0, true, WK_PLAIN},
	/* env-cmd [-f file] cmd: with a file's variables */
	{"env-cmd", "fer", "file environments rc-file", 0, "", 0, false, WK_PLAIN},
	{"exec", "a", "", 0, "", 0, false, WK_PLAIN},
	{"fakechroot", "ldecb", "lib use-system-libs config-dir bindir", 0, "", 0, false, WK_PLAIN},
	{"fakeroot", "lsib", "lib faked", 0, "", 0, false, WK_PLAIN},
	{"faketime", "", "", 0, "", 1, false, WK_PLAIN},
	{"firejail", "", "", 0, "", 0, false, WK_PLAIN},
	{"flock", "wEc", "timeout conflict-exit-code command", 'c', "command", 0, false, WK_FLOCK},
	/* heaptrack cmd: under a memory profiler */
	{"hatch run", "", "", 0, "", 0, false, WK_PLAIN},
	{"heaptrack", "o", "output", 0, "", 0, false, WK_PLAIN},
	{"ionice", "cnpPu", "class classdata pid pgid uid", 0, "", 0, false, WK_PLAIN},
	{"ltrace", "aADeFlnopsuwx", "output library", 0, "", 0, false, WK_PLAIN},
	{"mamba run", "np", "name prefix cwd", 0, "", 0, false, WK_PLAIN},
	{"micromamba run", "np", "name prefix cwd", 0, "", 0, false, WK_PLAIN},
	/* mise exec tool@v -- cmd, or -c text: with the tools installed */
	{"mise exec", "jC", "jobs cd command", 'c', "command", 0, false, WK_DASHDASH},
	{"mise x", "jC", "jobs cd command", 'c', "command", 0, false, WK_DASHDASH},
	{"nice", "n", "adjustment", 0, "", 0, false, WK_PLAIN},
	/* nix develop / nix shell ... -c cmd: in a development shell; without -c, interactive */
	{"nix develop", "fIo", "file expr profile override-input arg argstr phase include option command",
	 'c', "command", 0, false, WK_AFTER},
	{"nix shell", "fIo", "file expr profile override-input arg argstr include option command", 'c',
	 "command",
	 0, false, WK_AFTER},
	{"nocache", "n", "", 0, "", 0, false, WK_PLAIN},
	{"nocorrect", "", "", 0, "", 0, false, WK_PLAIN},
	{"noglob", "", "", 0, "", 0, false, WK_PLAIN},
	{"nohup", "", "", 0, "", 0, false, WK_PLAIN},
	/* npm exec / npx pkg args, or -c text: a package's program */
	{"npm exec", "w", "package call workspace prefix", 'c', "call", 0, false, WK_PLAIN},
	{"npm x", "w", "package call workspace prefix", 'c', "call", 0, false, WK_PLAIN},
	{"npx", "p", "package call cache userconfig registry", 'c', "call", 0, false, WK_PLAIN},
	{"nsenter", "tSG", "target setuid setgid", 0, "", 0, false, WK_PLAIN},
	{"numactl", "imNCpPw",
	 "interleave membind cpunodebind physcpubind preferred preferred-many weighted-interleave",
	 0, "", 0, false, WK_PLAIN},
	{"parallel", "adEIjLlnNPSs",
	 "arg-file delimiter eof replace jobs max-lines max-args max-replace-args max-procs "
	 "sshlogin max-chars joblog results tmpdir workdir basefile transferfile return colsep "
	 "timeout delay memfree load",
	 0, "", 0, false, WK_PARALLEL},
	/* pipenv/poetry/pdm/hatch/rye/pixi run cmd: inside the project's environment */
	{"pdm run", "p", "project venv", 0, "", 0, false, WK_PLAIN},
	/* perf record/stat/trace cmd: measured while it runs */
	{"perf record", "CcDeFGIjmoprtux",
	 "event output pid tid cpu count repeat cgroup field-separator interval-print freq mmap-pages "
	 "delay call-graph",
	 0, "", 0, false, WK_PLAIN},
	{"perf stat", "CcDeFGIjmoprtux",
	 "event output pid tid cpu count repeat cgroup field-separator interval-print freq mmap-pages "
	 "delay call-graph",
	 0, "", 0, false, WK_PLAIN},
	{"perf trace", "CcDeFGIjmoprtux",
	 "event output pid tid cpu count repeat cgroup field-separator interval-print freq mmap-pages "
	 "delay call-graph",
	 0, "", 0, false, WK_PLAIN},
	{"pipenv run", "", "", 0, "", 0, false, WK_PLAIN},
	{"pixi run", "e", "manifest-path environment", 0, "", 0, false, WK_PLAIN},
	{"pkexec", "", "user", 0, "", 0, false, WK_PLAIN},
	/* pnpm exec cmd / pnpm dlx pkg: a package's program */
	{"pnpm dlx", "", "package", 0, "", 0, false, WK_PLAIN},
	{"pnpm exec", "C", "dir filter", 0, "", 0, false, WK_PLAIN},
	{"poetry run", "CP", "directory project", 0, "", 0, false, WK_PLAIN},
	{"prlimit", "po", "pid output", 0, "", 0, false, WK_PLAIN},
	{"proxychains", "f", "", 0, "", 0, false, WK_PLAIN},
	{"proxychains4", "f", "", 0, "", 0, false, WK_PLAIN},
	{"rlwrap", "bCDefgHlOPqsStwz", "", 0, "", 0, false, WK_PLAIN},
	{"rye run", "", "pyproject", 0, "", 0, false, WK_PLAIN},
	/* sandbox-exec -f profile cmd: in a macOS sandbox */
	{"sandbox-exec", "fpnD", "", 0, "", 0, false, WK_PLAIN},
	/* screen [-dmS name] cmd: in a new terminal session */
	{"screen", "cehpsStT", "", 0, "", 0, false, WK_SCREEN},
	{"script", "cEIOBTmo", "command echo log-in log-out log-io log-timing logging-format output-limit",
	 'c', "command", 0, false, WK_SCRIPT},
	{"setpriv", "",
	 "reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label "
	 "apparmor-profile landlock-access landlock-rule rlimit",
	 0, "", 0, false, WK_PLAIN},
	{"setsid", "", "", 0, "", 0, false, WK_PLAIN},
	{"sg", "", "", 0, "", 1, false, WK_SG},
	/* ssh HOST cmd...: the words, joined, are a script the remote shell runs */
	{"ssh", "bcDEeFIiJLlmOopQRSWwB", "", 0, "", 1, false, WK_JOIN},
	{"stdbuf", "ioe", "input output error", 0, "", 0, false, WK_PLAIN},
	{"strace", "abeEIoOpPsSuUX", "output attach user env trace signal status string-limit", 0, "",
	 0, false, WK_PLAIN},
	{"sudo", "ugpCDrtTURh",
	 "user group prompt close-from chdir role type command-timeout other-user chroot host",
	 0, "", 0, true, WK_PLAIN},
	{"systemd-inhibit", "", "what who why mode", 0, "", 0, false, WK_PLAIN},
	{"systemd-run", "upEMHC",
	 "unit property description slice setenv machine host uid gid nice working-directory "
	 "on-active on-boot on-startup on-unit-active on-unit-inactive on-calendar timer-property "
	 "path-property socket-property service-type capsule",
	 0, "", 0, false, WK_PLAIN},
	{"taskset", "", "", 0, "", 1, false, WK_PLAIN},
	{"time", "fo", "format output", 0, "", 0, true, WK_PLAIN},
	{"timeout", "sk", "signal kill-after", 0, "", 1, false, WK_PLAIN},
	{"torsocks", "upaP", "user pass address port", 0, "", 0, false, WK_PLAIN},
	{"unbuffer", "", "", 0, "", 0, false, WK_PLAIN},
	{"unshare", "SGRw",
	 "setuid setgid root wd map-user map-group map-users map-groups propagation setgroups "
	 "load-interp",
	 0, "", 0, false, WK_PLAIN},
	/* uv run / uvx cmd: in the project's (or a tool's) environment */
	{"uv run", "pifPC",
	 "with with-editable with-requirements python project directory package extra group only-group "
	 "no-group env-file index default-index index-url extra-index-url find-links config-file "
	 "cache-dir color python-preference index-strategy keyring-provider resolution prerelease "
	 "exclude-newer link-mode refresh-package reinstall-package upgrade-package config-setting "
	 "no-binary-package no-build-package no-extra allow-insecure-host python-platform",
	 0, "", 0, false, WK_PLAIN},
	{"uvx", "pfiPCw",
	 "from with with-editable with-requirements python index index-url extra-index-url find-links "
	 "config-file cache-dir constraints overrides build-constraints",
	 0, "", 0, false, WK_PLAIN},
	{"valgrind", "", "", 0, "", 0, false, WK_PLAIN},
	{"watch", "nq", "interval equexit", 0, "", 0, false, WK_WATCH},
	{"xargs", "adEILnPs", "arg-file delimiter max-args max-procs max-chars process-slot-var",
	 0, "", 0, false, WK_XARGS},
	{"xvfb-run", "nsfpew", "server-num server-args auth-file xauth-protocol error-file wait", 0, "",
	 0, false, WK_PLAIN},
	/* yarn exec cmd / yarn dlx pkg: a package's program */
	{"yarn dlx", "p", "package", 0, "", 0, false, WK_PLAIN},
	{"yarn exec", "", "", 0, "", 0, false, WK_PLAIN},
};

static int wrapper_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct wrapper *)elem)->name);
}

const struct wrapper *shell_find_wrapper(const char *name)
{
	return bsearch(name, wrappers, sizeof(wrappers) / sizeof(wrappers[0]), sizeof(wrappers[0]),
		       wrapper_cmp);
}

/*
 * The subcommand of `prog [options] sub ...`: the first operand, or the
 * second when options come first (one of them may have taken the first as
 * its value). Calls match(key "prog sub") on each; returns the index of the
 * one that answers, or 0.
 */
size_t shell_find_sub(const struct sword *w, size_t n, bool (*match)(const char *key, void *ctx), void *ctx)
{
	char key[96];
	size_t i, tries = 0;

	for (i = 1; i < n && tries < 2; i++) {
		int k;

		if (w[i].s[0] == '-')
			continue;
		k = snprintf(key, sizeof(key), "%s %s", shell_base_name(w[0].s), w[i].s);
		if (k > 0 && (size_t)k < sizeof(key) && match(key, ctx))
			return i;
		if (i == 1)
			break;
		tries++;
	}
	return 0;
}

bool shell_match_wrapper(const char *key, void *ctx)
{
	const struct wrapper **out = ctx;

	*out = shell_find_wrapper(key);
	return *out != NULL;
}

/* Skip a wrapper's options (and their values) to find what it runs. */
void shell_unwrap(const struct wrapper *wr, const struct sword *w, size_t n, struct unwrapped *u)
{
	size_t i = 1, k, after = NONE;

	memset(u, 0, sizeof(*u));
	while (i < n && after == NONE) {
		const char *a = w[i].s;

		if (!strcmp(a, "--")) {
			i++;
			if (wr->kind == WK_AFTER)
				continue;
			break;
		}
		if (!strcmp(a, "-") && !strcmp(wr->name, "env")) {
			i++; /* env - is env -i */
			continue;
		}
		if (a[0] != '-' || !a[1]) {
			if (wr->kind == WK_AFTER) {
				i++; /* installables and other operands come before -c */
				continue;
			}
			if (wr->kind == WK_DASHDASH) {
				for (k = i; k < n && strcmp(w[k].s, "--"); k++)
					;
				if (k < n)
					i = k + 1; /* the words before `--` name tools, not the command */
			}
			break;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '='), *val, *opt;
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			val = eq ? eq + 1 : NULL;
			opt = shell_long_find(wr->longval, name, len);
			if (wr->kind == WK_AFTER && long_names(opt, wr->payload_long)) {
				after = i + 1; /* --command cmd args... */
				break;
			}
			if (!eq && opt && i + 1 < n)
				val = w[++i].s;
			if (val && long_names(opt, wr->payload_long))
				u->payload = val;
			if (wr->kind == WK_WATCH && shell_long_is(name, len, "exec", 3))
				u->exec_mode = true;
			if (wr->kind == WK_XARGS && shell_long_is(name, len, "replace", 1))
				u->repl = val ? val : "{}";
			i++;
			continue;
		}
		for (k = 1; a[k]; k++) {
			if (wr->kind == WK_AFTER && a[k] == wr->payload) {
				after = i + 1; /* -c cmd args... */
				break;
			}
			if (wr->kind == WK_SCREEN && a[k] == 'X') {
				u->opaque = "it sends keys and commands to a terminal session";
				after = n;
				break;
			}
			if (wr->kind == WK_SCREEN && strchr("rRxlQ", a[k])) {
				u->lookup_only = true; /* reattaches or lists: runs nothing new */
				continue;
			}
			if (strchr(wr->valopts, a[k])) {
				const char *val = a[k + 1] ? a + k + 1 : i + 1 < n ? w[++i].s : NULL;

				if (val && a[k] == wr->payload)
					u->payload = val;
				if (val && wr->kind == WK_XARGS && a[k] == 'I')
					u->repl = val;
				break;
			}
			if (wr->kind == WK_XARGS && a[k] == 'i') {
				u->repl = a[k + 1] ? a + k + 1 : "{}"; /* -i[R]: the value is attached or absent */
				break;
			}
			if (wr->payload && a[k] == wr->payload && wr->kind != WK_AFTER) {
				const char *val = a[k + 1] ? a + k + 1 : i + 1 < n ? w[++i].s : NULL;

				if (val)
					u->payload = val;
				break;
			}
			if (wr->kind == WK_COMMAND && (a[k] == 'v' || a[k] == 'V'))
				u->lookup_only = true;
			if (wr->kind == WK_WATCH && a[k] == 'x')
				u->exec_mode = true;
			if (wr->kind == WK_ENTR && a[k] == 's')
				u->shell_mode = true;
		}
		i++;
	}
	if (wr->kind == WK_AFTER) {
		u->cmd = after == NONE ? n : after;
		return;
	}
	if (after != NONE) {
		u->cmd = n;
		return;
	}
	for (k = 0; k < wr->operands && i < n; k++)
		i++;
	if (wr->kind == WK_FLOCK && !u->payload && i < n) {
		i++; /* the lock file or descriptor */
		if (i < n && (!strcmp(w[i].s, "-c") || shell_long_is(w[i].s, strlen(w[i].s), "--command", 4))) {
			if (i + 1 < n)
				u->payload = w[i + 1].s;
			i = n;
		} else if (i < n && !strncmp(w[i].s, "--command=", 10)) {
			u->payload = w[i].s + 10;
		}
	}
	if (wr->assigns)
		while (i < n && shell_assign_len(w[i].s, strlen(w[i].s)))
			i++;
	u->cmd = u->payload || wr->kind == WK_SCRIPT ? n : i;
}

/* The command a parallel run starts ends at its first argument separator. */
static size_t parallel_end(const struct sword *w, size_t from, size_t n)
{
	for (size_t i = from; i < n; i++)
		if (!strcmp(w[i].s, ":::") || !strcmp(w[i].s, "::::") || !strcmp(w[i].s, ":::+") ||
		    !strcmp(w[i].s, "::::+"))
			return i;
	return n;
}

/* GNU parallel: a command and its inputs, or commands as inputs. */
bool shell_run_parallel(struct parser *p, const struct sword *w, size_t n, size_t cmd,
			const struct input *in, size_t *end)
{
	size_t stop = parallel_end(w, cmd, n);
	bool shell = false;
	char *text;

	*end = stop;
	if (stop == cmd) {
		/* no command: every input is a command line of its own */
		if (stop == n) {
			shell_stdin(p, in, NONE);
		} else {
			for (size_t i = stop + 1; i < n; i++)
				if (w[i].s[0] != ':' || strncmp(w[i].s, ":::", 3))
					shell_parse_payload(p, w[i].s, strlen(w[i].s));
		}
		return false;
	}
	/* the command goes to a shell: a word holding shell syntax runs as such */
	for (size_t i = cmd; i < stop && !shell; i++)
		shell = strpbrk(w[i].s, " \t;|&$`()<>\n") != NULL;
	if (!shell)
		return true;
	text = shell_join_words(p, w + cmd, stop - cmd, false);
	if (text) {
		if (strchr(text, '{'))
			shell_flag(p, ROZ_SHELL_DYNAMIC, "parallel fills in `{}` in shell text: %.*s",
				   shell_clip(text), text);
		shell_parse_payload(p, text, strlen(text));
	}
	roz_free(text);
	return true;
}

/* ---- programs that run what the line does not show ---------------------- */

static const char task_why[] = "it runs the project's own task definitions";

/* Task runners: what they run is defined in the project's files, not on the line. */
static const char task_runners[][20] = {
	"bazel run", "bazelisk run", "bmake", "bun run", "bun test", "cargo r", "cargo run",
	"composer run", "composer run-script", "deno task", "devbox run", "doit", "gmake", "go generate",
	"go run", "go-task", "gradle", "gradlew", "hatch run", "inv", "invoke", "just", "make", "mise r",
	"mise run", "mvn", "mvnw", "ninja", "nox", "npm restart", "npm rum", "npm run", "npm run-script",
	"npm start", "npm stop", "npm t", "npm test", "npm tst", "npm urn", "pdm run", "pixi run",
	"pnpm run", "pnpm start", "pnpm t", "pnpm test", "rake", "rye run", "task", "tox", "yarn run",
	"yarn start", "yarn test",
};

/* Subcommands of package managers that are their own; any other word names a script of the project's. */
static const char yarn_own[][20] = {
	"add", "audit", "autoclean", "bin", "cache", "check", "config", "constraints", "create", "dedupe",
	"dlx", "exec", "explain", "generate-lock-entry", "global", "help", "import", "info", "init",
	"install", "licenses", "link", "list", "login", "logout", "npm", "outdated", "owner", "pack",
	"patch", "patch-commit", "plugin", "policies", "publish", "rebuild", "remove", "search", "set",
	"tag", "team", "unlink", "unplug", "up", "upgrade", "upgrade-interactive", "version", "versions",
	"why", "workspace", "workspaces",
};
static const char pnpm_own[][15] = {
	"add", "approve-builds", "audit", "bin", "c", "cat-file", "cat-index", "config", "create",
	"dedupe", "deploy", "dlx", "doctor", "env", "exec", "fetch", "find-hash", "i", "ignored-builds",
	"import", "init", "install", "install-test", "it", "licenses", "link", "list", "ln", "ls",
	"outdated", "pack", "patch", "patch-commit", "patch-remove", "prune", "publish", "rb", "rebuild",
	"recursive", "remove", "rm", "root", "self-update", "server", "setup", "store", "un",
	"uninstall", "unlink", "up", "update", "upgrade", "why",
};
static const char bun_own[][9] = {
	"a", "add", "audit", "build", "c", "create", "exec", "i", "info", "init", "install", "link",
	"outdated", "patch", "pm", "publish", "remove", "repl", "rm", "unlink", "update", "upgrade",
	"why", "x",
};

static bool match_task(const char *key, void *ctx)
{
	(void)ctx;
	return shell_in_words(key, task_runners);
}

/* The project's own tasks: make, just, npm run, cargo run, `yarn <script>`, ... */
void shell_task_opaque(struct parser *p, const char *name, const struct sword *w, size_t n, size_t at)
{
	static const char asks[][10] = {"--version", "-v", "-V", "--help", "-h"};
	size_t i;

	if (n == 2 && shell_in_words(w[1].s, asks))
		return; /* only asks the program about itself */
	if (shell_in_words(name, task_runners) || shell_find_sub(w, n, match_task, NULL)) {
		shell_set_opaque(p, at, task_why);
		return;
	}
	if (strcmp(name, "yarn") && strcmp(name, "pnpm") && strcmp(name, "bun"))
		return;
	for (i = 1; i < n && w[i].s[0] == '-'; i++)
		;
	if (i >= n)
		return;
	if (name[0] == 'y' ? !shell_in_words(w[i].s, yarn_own) :
	    name[0] == 'p' ? !shell_in_words(w[i].s, pnpm_own) : !shell_in_words(w[i].s, bun_own))
		shell_set_opaque(p, at, name[0] == 'b' ? "it runs a script file or the project's own task definitions"
						       : task_why);
}

/*
 * Text an interactive program reads as its own commands, where `marker`
 * starts a shell command (vim's `!`, psql's `\!`, sqlite's `.shell`, ...):
 * that shell text is parsed, up to the end of its line.
 */
static bool escape_text(struct parser *p, const char *text, const char *marker, bool at_start)
{
	const char *hit = at_start ? text + strspn(text, " \t:") : strstr(text, marker);
	size_t mlen = strlen(marker), len;

	if (!hit || strncmp(hit, marker, mlen))
		return false;
	hit += mlen;
	len = strcspn(hit, "\n");
	if (len)
		shell_parse_payload(p, hit, len);
	return true;
}

/* gdb: -ex text is gdb commands, of which shell, !, python and pipe run anything; --args runs a program. */
size_t shell_run_gdb(struct parser *p, const struct sword *w, size_t n, size_t at)
{
	static const char escapes[][8] = {"shell ", "!", "python", "py ", "pi ", "pipe ", "|", "guile",
					  "gu ", "make", "source "};
	static const char texts[][20] = {"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex",
					 "-init-eval-command", "--init-eval-command"};
	static const char files[][15] = {"-x", "--x", "-command", "--command", "-ix", "--ix",
					 "-init-command", "--init-command"};
	static const char values[][17] = {"-p", "-pid", "--pid", "-cd", "--cd", "-d", "--directory",
					  "-D", "--data-directory", "-s", "--symbols", "-e", "--exec",
					  "-se", "-c", "--core", "-tty", "--tty", "-b", "-l", "-i",
					  "--interpreter"};

	for (size_t i = 1; i < n; i++) {
		const char *a = w[i].s, *text = NULL, *eq = strchr(a, '=');

		if (!strcmp(a, "--args") || !strcmp(a, "-args"))
			return i + 1;
		if (shell_word_in(a, texts) && i + 1 < n)
			text = w[++i].s;
		else if (eq && a[0] == '-' && !strncmp(a + strspn(a, "-"), "eval-command=", 13))
			text = eq + 1;
		else if (shell_word_in(a, files) || (eq && !strncmp(a + strspn(a, "-"), "command=", 8)))
			shell_set_opaque(p, at, "it runs a script file");
		if (shell_word_in(a, files) || shell_word_in(a, values))
			i += !eq;
		if (!text)
			continue;
		text += strspn(text, " \t");
		for (size_t k = 0; k < WORDS_N(escapes); k++) {
			if (!strncmp(text, escapes[k], strlen(escapes[k]))) {
				shell_set_opaque(p, at, "it runs debugger commands that can run anything");
				if (k < 2)
					escape_text(p, text, escapes[k], true);
				break;
			}
		}
	}
	return n;
}

/* vim/nvim/ex: -c, --cmd and +cmd are editor commands, where `!` runs shell text; -S/-s read a script. */
void shell_run_vim(struct parser *p, const char *name, const struct sword *w, size_t n,
		   const struct input *in, size_t at)
{
	bool batch = !strcmp(name, "ex");

	for (size_t i = 1; i < n; i++) {
		const char *a = w[i].s, *text = NULL;

		if (!strcmp(a, "--"))
			break;
		if ((!strcmp(a, "-c") || !strcmp(a, "--cmd")) && i + 1 < n)
			text = w[++i].s;
		else if (a[0] == '+' && a[1] && a[1] != '/' && a[strspn(a + 1, "0123456789") + 1])
			text = a + 1;
		else if (!strcmp(a, "-S") || !strcmp(a, "-s") || !strcmp(a, "-u"))
			shell_set_opaque(p, at, "it runs an editor script file");
		else if (!strcmp(a, "-e") || !strcmp(a, "-es") || !strcmp(a, "-E") || !strcmp(a, "-Es"))
			batch = true;
		if (text) {
			shell_set_opaque(p, at, "it runs editor commands that can run anything");
			escape_text(p, text, "!", true);
		}
	}
	if (batch && in && in->kind != IN_TTY)
		shell_set_opaque(p, at, "it runs editor commands that can run anything");
}

/* emacs/emacsclient: --eval, -l, -f and --script run Lisp, which can run anything. */
void shell_run_emacs(struct parser *p, const struct sword *w, size_t n, size_t at)
{
	static const char lisp[][10] = {"--eval", "-eval", "-e", "--load", "-l", "-load", "--funcall",
					"-f", "-funcall", "--script", "-script", "-x", "-batch",
					"--batch"};

	for (size_t i = 1; i < n; i++) {
		char opt[32];
		size_t len = strcspn(w[i].s, "=");

		if (len >= sizeof(opt))
			continue;
		memcpy(opt, w[i].s, len);
		opt[len] = '\0';
		if (shell_word_in(opt, lisp) && strcmp(opt, "-batch") && strcmp(opt, "--batch")) {
			shell_set_opaque(p, at, "it runs editor commands that can run anything");
			return;
		}
	}
}

/* Database shells: text after -c/-e/-cmd is their own commands; some run shell text. */
static void db_text(struct parser *p, const char *name, const char *text, size_t at)
{
	static const char sqlite[][9] = {".shell ", ".system ", ".once", ".output", ".import", ".read",
					 ".load", ".excel", ".edit", "edit("};
	const char *why = "its commands can run shell commands";

	if (!text)
		return;
	if (!strcmp(name, "psql")) {
		if (escape_text(p, text, "\\! ", false) || escape_text(p, text, "\\!", false) ||
		    strstr(text, "\\o |") || strstr(text, "\\o|") || strstr(text, "\\g |") ||
		    strstr(text, "\\g|") || strcasestr(text, "program"))
			shell_set_opaque(p, at, why);
	} else if (!strcmp(name, "sqlite3") || !strcmp(name, "sqlite")) {
		for (size_t k = 0; k < WORDS_N(sqlite); k++) {
			if (strstr(text, sqlite[k])) {
				shell_set_opaque(p, at, why);
				if (k < 2)
					escape_text(p, text, sqlite[k], false);
			}
		}
	} else {
		if (escape_text(p, text, "system ", true) || escape_text(p, text, "\\! ", false) ||
		    escape_text(p, text, "\\!", false))
			shell_set_opaque(p, at, why);
	}
}

void shell_run_db(struct parser *p, const char *name, const struct sword *w, size_t n,
		  const struct input *in, size_t at)
{
	bool psql = !strcmp(name, "psql"), sqlite = !strncmp(name, "sqlite", 6);
	bool db_seen = false;

	for (size_t i = 1; i < n; i++) {
		const char *a = w[i].s, *eq = strchr(a, '=');

		if (a[0] != '-') {
			if (sqlite && db_seen)
				db_text(p, name, a, at); /* sqlite3 DB 'SQL or .command' */
			db_seen = true;
			continue;
		}
		if ((psql && (!strcmp(a, "-c") || !strcmp(a, "--command"))) ||
		    (!psql && !sqlite && (!strcmp(a, "-e") || !strcmp(a, "--execute"))) ||
		    (sqlite && (!strcmp(a, "-cmd") || !strcmp(a, "--cmd")))) {
			if (i + 1 < n)
				db_text(p, name, w[++i].s, at);
		} else if (eq && (!strncmp(a, "--command=", 10) || !strncmp(a, "--execute=", 10))) {
			db_text(p, name, eq + 1, at);
		} else if ((psql && a[1] == 'c' && a[2]) || (!psql && !sqlite && a[1] == 'e' && a[2])) {
			db_text(p, name, a + 2, at);
		} else if ((psql && (!strcmp(a, "-f") || !strncmp(a, "--file", 6))) ||
			   (sqlite && !strcmp(a, "-init"))) {
			shell_set_opaque(p, at, "it runs a script file");
			i += !eq && a[1] != '-' ? 1 : 0;
		}
	}
	if (in && (in->kind == IN_HERESTR || in->kind == IN_PIPE_TEXT))
		db_text(p, name, in->text, at);
	else if (in && in->kind != IN_TTY)
		shell_set_opaque(p, at, "it runs commands from its input");
}

/* hyperfine: each operand, and --prepare/--setup/--cleanup/--conclude, is shell text it times. */
void shell_run_hyperfine(struct parser *p, const struct sword *w, size_t n)
{
	static const char texts[][11] = {"-p", "--prepare", "-s", "--setup", "-c", "--cleanup",
					 "--conclude"};
	static const char one[][22] = {"-w", "--warmup", "-r", "--runs", "-m", "--min-runs", "-M",
				       "--max-runs", "-S", "--shell", "-n", "--command-name", "-u",
				       "--time-unit", "--style", "--sort", "--output", "--input",
				       "--export-asciidoc", "--export-csv", "--export-json",
				       "--export-markdown", "--export-orgmode", "-D",
				       "--parameter-step-size"};
	size_t i;

	for (i = 1; i < n; i++) {
		const char *a = w[i].s;

		if (!strcmp(a, "--")) {
			for (i++; i < n; i++)
				shell_parse_payload(p, w[i].s, strlen(w[i].s));
			return;
		}
		if (a[0] != '-') {
			shell_parse_payload(p, a, strlen(a));
		} else if (shell_word_in(a, texts)) {
			if (i + 1 < n)
				shell_parse_payload(p, w[i + 1].s, strlen(w[i + 1].s));
			i++;
		} else if (shell_word_in(a, one)) {
			i++;
		} else if (!strcmp(a, "-L") || !strcmp(a, "--parameter-list")) {
			i += 2;
		} else if (!strcmp(a, "-P") || !strcmp(a, "--parameter-scan")) {
			i += 3;
		}
	}
}

/* bwrap: options with one, two or three values, then the command it runs in the sandbox. */
size_t shell_bwrap_start(const struct sword *w, size_t n)
{
	static const char two[] = "bind bind-try dev-bind dev-bind-try ro-bind ro-bind-try symlink "
				  "setenv chmod bind-data ro-bind-data file bind-fd ro-bind-fd";
	static const char one[] = "args userns userns2 pidns uid gid hostname chdir unsetenv lock-file "
				  "sync-fd remount-ro exec-label file-label proc dev tmpfs mqueue dir "
				  "seccomp add-seccomp-fd block-fd userns-block-fd info-fd "
				  "json-status-fd cap-add cap-drop perms size overlay-src tmp-overlay "
				  "ro-overlay argv0";
	size_t i = 1;

	while (i < n) {
		const char *a = w[i].s;

		if (!strcmp(a, "--"))
			return i + 1;
		if (strncmp(a, "--", 2))
			return i;
		a += 2;
		if (shell_long_find(two, a, strlen(a)))
			i += 2;
		else if (!strcmp(a, "overlay"))
			i += 3;
		else if (shell_long_find(one, a, strlen(a)))
			i += 1;
		i++;
	}
	return n;
}

/* nix-shell: --run and --command take shell text; otherwise an interactive shell. */
void shell_run_nix_shell(struct parser *p, const struct sword *w, size_t n)
{
	for (size_t i = 1; i + 1 < n; i++) {
		if (!strcmp(w[i].s, "--run") || !strcmp(w[i].s, "--command")) {
			shell_parse_payload(p, w[i + 1].s, strlen(w[i + 1].s));
			i++;
		} else if (!strcmp(w[i].s, "--arg") || !strcmp(w[i].s, "--argstr")) {
			i += 2;
		} else if (!strcmp(w[i].s, "-I") || !strcmp(w[i].s, "-A") || !strcmp(w[i].s, "--attr") ||
			   !strcmp(w[i].s, "-E") || !strcmp(w[i].s, "--expr")) {
			i++;
		}
	}
}

/* tmux: one command of a `;`-separated list; those that start a program take shell text last. */
static bool tmux_command(struct parser *p, const struct sword *w, size_t n, size_t at)
{
	static const char runs[][15] = {"new-session", "new", "new-window", "neww", "split-window",
					"splitw", "respawn-pane", "respawnp", "respawn-window",
					"respawnw", "run-shell", "run", "display-popup", "popup",
					"pipe-pane", "pipep", "if-shell", "if"};
	static const char keys[][13] = {"send-keys", "send", "paste-buffer", "pasteb"};
	const char *name = w[0].s, *vals;
	bool tmux_cmd = false;
	size_t i = 1;

	if (shell_in_words(name, keys)) {
		shell_set_opaque(p, at, "it types keys into a terminal, which can run anything");
		return false;
	}
	if (!shell_in_words(name, runs))
		return false;
	vals = !strcmp(name, "run-shell") || !strcmp(name, "run") ? "cdt" :
	       !strcmp(name, "display-popup") || !strcmp(name, "popup") ? "bcdehsStTwxy" :
	       !strncmp(name, "if", 2) || !strncmp(name, "pipe", 4) ? "t" : "ceFfnlpstxy";
	while (i < n && w[i].s[0] == '-' && w[i].s[1]) {
		const char *a = w[i].s;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		for (size_t k = 1; a[k]; k++) {
			if (a[k] == 'C' && (name[0] == 'r' || name[0] == 'i'))
				tmux_cmd = true; /* run-shell -C: a tmux command, not shell text */
			if (strchr(vals, a[k])) {
				i += !a[k + 1];
				break;
			}
		}
		i++;
	}
	if (i >= n || tmux_cmd)
		return false;
	if (!strncmp(name, "if", 2)) {
		shell_parse_payload(p, w[i].s, strlen(w[i].s));
		return true;
	}
	shell_run_joined(p, w + i, n - i);
	return true;
}

/* tmux [-L sock] cmd [args] [; cmd ...]: -c and the commands that start programs run shell text. */
bool shell_run_tmux(struct parser *p, const struct sword *w, size_t n, size_t at)
{
	bool ran = false;
	size_t i = 1;

	while (i < n && w[i].s[0] == '-' && w[i].s[1]) {
		const char *a = w[i].s;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		for (size_t k = 1; a[k]; k++) {
			if (strchr("cfLST", a[k])) {
				const char *val = a[k + 1] ? a + k + 1 : i + 1 < n ? w[++i].s : NULL;

				if (val && a[k] == 'c') {
					shell_parse_payload(p, val, strlen(val));
					ran = true;
				}
				break;
			}
		}
		i++;
	}
	while (i < n) {
		size_t end = i;

		while (end < n && strcmp(w[end].s, ";"))
			end++;
		if (end > i)
			ran |= tmux_command(p, w + i, end - i, at);
		i = end + 1;
	}
	return ran;
}

/* at/batch: the script on stdin (or in -f FILE) runs later. */
void shell_run_at(struct parser *p, const struct sword *w, size_t n, const struct input *in, size_t at)
{
	for (size_t i = 1; i < n && w[i].s[0] == '-' && w[i].s[1]; i++) {
		const char *a = w[i].s;

		if (!strcmp(a, "--"))
			break;
		for (size_t k = 1; a[k]; k++) {
			if (strchr("lrdc", a[k]))
				return; /* lists, removes or shows jobs */
			if (a[k] == 'f') {
				shell_set_opaque(p, at, "it runs a script file");
				return;
			}
			if (strchr("qt", a[k])) {
				i += !a[k + 1];
				break;
			}
		}
	}
	shell_stdin(p, in, at);
}
