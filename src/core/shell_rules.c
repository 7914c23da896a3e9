/*
 * shell_rules.c - roz's rules about what a command runs: wrappers and their
 * options (sudo, env, timeout, xargs, ...), shells given -c or a script on
 * stdin, eval, trap, find -exec, parallel, and what makes a line dynamic
 * (git's own rules are in shell_git.c). Kept apart from the lexer and
 * the grammar because this is the part that changes most: every new way to
 * run a command is added here.
 */
#include "shell_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- what a command runs ------------------------------------------------ */

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash && slash[1] ? slash + 1 : s;
}

/* Words joined by spaces; echo/printf escapes decoded when asked. NULL if empty. */
static char *join_words(struct parser *p, const struct sword *w, size_t n, bool decode)
{
	roz_buf b = ROZ_BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *s = w[i].s;

		if (i)
			roz_buf_addc(&b, ' ');
		for (; decode && *s; s++) {
			if (s[0] == '\\' && (s[1] == 'n' || s[1] == 't' || s[1] == '\\')) {
				s++;
				roz_buf_addc(&b, *s == 'n' ? '\n' : *s == 't' ? '\t' : '\\');
			} else {
				roz_buf_addc(&b, *s);
			}
		}
		if (*s)
			roz_buf_adds(&b, s);
	}
	if (b.oom) {
		roz_buf_dispose(&b);
		shell_nomem(p);
		return NULL;
	}
	if (!b.len) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}

static void run_joined(struct parser *p, const struct sword *w, size_t n)
{
	char *text = join_words(p, w, n, false);

	if (text)
		shell_parse_payload(p, text, strlen(text));
	roz_free(text);
}

/* A shell reading its script from stdin: find that script if it is known. */
static void shell_stdin(struct parser *p, const struct input *in)
{
	if (!in)
		return;
	switch (in->kind) {
	case IN_HEREDOC:
		if (in->l->gen == in->gen && in->hd < in->l->nhd) {
			in->l->hd[in->hd].to_shell = true;
			in->l->hd[in->hd].depth = p->depth + 1;
		} else {
			shell_flag(p, ROZ_SHELL_DYNAMIC, "a shell reads its script from a pipe");
		}
		break;
	case IN_HERESTR:
	case IN_PIPE_TEXT:
		if (in->text)
			shell_parse_payload(p, in->text, strlen(in->text));
		break;
	case IN_PIPE:
		shell_flag(p, ROZ_SHELL_DYNAMIC, "a shell reads its script from a pipe");
		break;
	default:
		break;
	}
}

static bool is_shell(const char *name)
{
	static const char *const shells[] = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash",
					     "yash", "posh", "rbash", NULL};
	size_t i;

	for (i = 0; shells[i]; i++)
		if (!strcmp(name, shells[i]))
			return true;
	return false;
}

/* sh/bash/...: -c in any spelling takes the first operand as the script. */
static void run_shell(struct parser *p, const struct sword *w, size_t n, const struct input *in)
{
	bool dash_c = false, dash_s = false;
	size_t i = 1, j;

	while (i < n) {
		const char *a = w[i].s;
		bool value = false;

		if (!strcmp(a, "--") || !strcmp(a, "-")) {
			i++;
			break;
		}
		if ((a[0] != '-' && a[0] != '+') || !a[1])
			break;
		if (a[0] == '-' && a[1] == '-') {
			if (!strcmp(a, "--rcfile") || !strcmp(a, "--init-file"))
				i++;
			i++;
			continue;
		}
		for (j = 1; a[j]; j++) {
			if (a[j] == 'c' && a[0] == '-')
				dash_c = true;
			else if (a[j] == 's' && a[0] == '-')
				dash_s = true;
			else if (a[j] == 'o' || a[j] == 'O')
				value = true;
		}
		i += value ? 2 : 1;
	}
	if (dash_c) {
		if (i < n)
			shell_parse_payload(p, w[i].s, strlen(w[i].s));
		return;
	}
	if (i < n && !dash_s)
		return; /* runs a script file: a command like any other */
	shell_stdin(p, in);
}

static void run_eval(struct parser *p, const struct sword *w, size_t n)
{
	size_t i = 1, k;
	char *text;

	if (i < n && !strcmp(w[i].s, "--"))
		i++;
	text = join_words(p, w + i, n - i, false);
	if (!text)
		return;
	for (k = i; k < n; k++) {
		if (w[k].flags & SW_EXP) {
			shell_flag(p, ROZ_SHELL_DYNAMIC, "eval runs text built from an expansion: %.*s",
				   shell_clip(text), text);
			break;
		}
	}
	shell_parse_payload(p, text, strlen(text));
	roz_free(text);
}

/* trap 'cmd' SIG...: the action is a script. */
static void run_trap(struct parser *p, const struct sword *w, size_t n)
{
	size_t i = 1;

	while (i < n && w[i].s[0] == '-' && w[i].s[1]) {
		if (!strcmp(w[i].s, "--")) {
			i++;
			break;
		}
		if (strchr(w[i].s, 'p') || strchr(w[i].s, 'l'))
			return;
		i++;
	}
	if (n - i >= 2 && strcmp(w[i].s, "-"))
		shell_parse_payload(p, w[i].s, strlen(w[i].s));
}

/* find ... -exec cmd ... ; runs cmd, with each path found in place of `{}`. */
static void run_find(struct parser *p, const struct sword *w, size_t n, unsigned hops)
{
	static const struct feed found = {false, "{}", ROZ_SHELL_PART_FOUND, "the paths find fills in"};
	size_t i, k;

	for (i = 1; i < n; i++) {
		const char *a = w[i].s;

		if (strcmp(a, "-exec") && strcmp(a, "-execdir") && strcmp(a, "-ok") && strcmp(a, "-okdir"))
			continue;
		for (k = i + 1; k < n && strcmp(w[k].s, ";") && strcmp(w[k].s, "+"); k++)
			;
		if (k > i + 1)
			shell_run_words(p, w + i + 1, k - i - 1, NULL, hops + 1, &found);
		i = k;
	}
}

/*
 * su/runuser -c 'cmd' runs cmd through a shell; runuser -u user cmd runs
 * cmd itself. Returns where that command starts, or n.
 */
static size_t run_su(struct parser *p, const struct sword *w, size_t n, bool runuser)
{
	size_t i;
	bool user = false;

	for (i = 1; i < n; i++) {
		const char *a = w[i].s;

		if ((!strcmp(a, "-c") || !strcmp(a, "--command") || !strcmp(a, "--session-command")) &&
		    i + 1 < n) {
			shell_parse_payload(p, w[i + 1].s, strlen(w[i + 1].s));
			return n;
		}
		if (!strncmp(a, "--command=", 10) || !strncmp(a, "--session-command=", 18)) {
			const char *v = strchr(a, '=') + 1;

			shell_parse_payload(p, v, strlen(v));
			return n;
		}
	}
	if (!runuser)
		return n;
	for (i = 1; i < n; i++) {
		const char *a = w[i].s;

		if (!strcmp(a, "--"))
			return user ? i + 1 : n;
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "-u") || !strcmp(a, "--user"))
			user = true;
		if (!strncmp(a, "--user=", 7))
			user = true;
		if ((a[1] != '-' && a[2] == '\0' && strchr("ugGsw", a[1])) ||
		    !strcmp(a, "--user") || !strcmp(a, "--group") || !strcmp(a, "--supp-group") ||
		    !strcmp(a, "--shell") || !strcmp(a, "--whitelist-environment"))
			i++;
	}
	return user ? i : n;
}

enum wkind {
	WK_PLAIN,    /* runs the command its remaining arguments name */
	WK_COMMAND,  /* command: -v/-V only look it up */
	WK_FLOCK,    /* flock FILE cmd, or flock FILE -c text */
	WK_WATCH,    /* hands its arguments to sh -c, unless -x */
	WK_XARGS,    /* appends what it reads, or fills in -I's string */
	WK_PARALLEL, /* cmd ::: args, {} filled in; no command: runs its input */
	WK_SCRIPT,   /* runs only its -c text; an operand is a log file */
	WK_ENTR,     /* -s: its operand is shell text */
	WK_SG        /* sg GROUP [-c] text: the text goes to sh -c */
};

/* Commands that run another command given as their remaining arguments. */
struct wrapper {
	const char *name;
	const char *valopts;      /* short options that take a value */
	const char *longval;      /* long options that take the next word as value */
	char payload;             /* short option whose value is shell text */
	const char *payload_long; /* long option whose value is shell text */
	unsigned operands;        /* words between the options and the command */
	bool assigns;             /* NAME=value words may precede the command */
	enum wkind kind;
};

/* Sorted by name; see the list in roz/shell.h for what belongs here. */
static const struct wrapper wrappers[] = {
	{"builtin", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"busybox", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"caffeinate", "tw", "", 0, NULL, 0, false, WK_PLAIN},
	{"catchsegv", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"cgexec", "g", "", 0, NULL, 0, false, WK_PLAIN},
	{"chronic", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"chroot", "", "userspec groups", 0, NULL, 1, false, WK_PLAIN},
	{"chrt", "TPD", "sched-runtime sched-period sched-deadline", 0, NULL, 1, false, WK_PLAIN},
	{"command", "", "", 0, NULL, 0, false, WK_COMMAND},
	{"cpulimit", "lpe", "limit pid exe", 0, NULL, 0, false, WK_PLAIN},
	{"dbus-run-session", "", "config-file dbus-daemon", 0, NULL, 0, false, WK_PLAIN},
	{"doas", "uC", "", 0, NULL, 0, false, WK_PLAIN},
	{"eatmydata", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"entr", "", "", 0, NULL, 0, false, WK_ENTR},
	{"env", "uCPS", "unset chdir split-string", 'S', "split-string", 0, true, WK_PLAIN},
	{"exec", "a", "", 0, NULL, 0, false, WK_PLAIN},
	{"fakechroot", "ldecb", "lib use-system-libs config-dir bindir", 0, NULL, 0, false, WK_PLAIN},
	{"fakeroot", "lsib", "lib faked", 0, NULL, 0, false, WK_PLAIN},
	{"faketime", "", "", 0, NULL, 1, false, WK_PLAIN},
	{"firejail", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"flock", "wEc", "timeout conflict-exit-code command", 'c', "command", 0, false, WK_FLOCK},
	{"ionice", "cnpPu", "class classdata pid pgid uid", 0, NULL, 0, false, WK_PLAIN},
	{"ltrace", "aADeFlnopsuwx", "output library", 0, NULL, 0, false, WK_PLAIN},
	{"nice", "n", "adjustment", 0, NULL, 0, false, WK_PLAIN},
	{"nocache", "n", "", 0, NULL, 0, false, WK_PLAIN},
	{"nocorrect", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"noglob", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"nohup", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"nsenter", "tSG", "target setuid setgid", 0, NULL, 0, false, WK_PLAIN},
	{"numactl", "imNCpPw",
	 "interleave membind cpunodebind physcpubind preferred preferred-many weighted-interleave",
	 0, NULL, 0, false, WK_PLAIN},
	{"parallel", "adEIjLlnNPSs",
	 "arg-file delimiter eof replace jobs max-lines max-args max-replace-args max-procs "
	 "sshlogin max-chars joblog results tmpdir workdir basefile transferfile return colsep "
	 "timeout delay memfree load",
	 0, NULL, 0, false, WK_PARALLEL},
	{"pkexec", "", "user", 0, NULL, 0, false, WK_PLAIN},
	{"prlimit", "po", "pid output", 0, NULL, 0, false, WK_PLAIN},
	{"proxychains", "f", "", 0, NULL, 0, false, WK_PLAIN},
	{"proxychains4", "f", "", 0, NULL, 0, false, WK_PLAIN},
	{"rlwrap", "bCDefgHlOPqsStwz", "", 0, NULL, 0, false, WK_PLAIN},
	{"script", "cEIOBTmo", "command echo log-in log-out log-io log-timing logging-format output-limit",
	 'c', "command", 0, false, WK_SCRIPT},
	{"setpriv", "",
	 "reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label "
	 "apparmor-profile landlock-access landlock-rule rlimit",
	 0, NULL, 0, false, WK_PLAIN},
	{"setsid", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"sg", "", "", 0, NULL, 1, false, WK_SG},
	{"stdbuf", "ioe", "input output error", 0, NULL, 0, false, WK_PLAIN},
	{"strace", "abeEIoOpPsSuUX", "output attach user env trace signal status string-limit", 0, NULL,
	 0, false, WK_PLAIN},
	{"sudo", "ugpCDrtTURh",
	 "user group prompt close-from chdir role type command-timeout other-user chroot host",
	 0, NULL, 0, true, WK_PLAIN},
	{"systemd-inhibit", "", "what who why mode", 0, NULL, 0, false, WK_PLAIN},
	{"systemd-run", "upEMHC",
	 "unit property description slice setenv machine host uid gid nice working-directory "
	 "on-active on-boot on-startup on-unit-active on-unit-inactive on-calendar timer-property "
	 "path-property socket-property service-type capsule",
	 0, NULL, 0, false, WK_PLAIN},
	{"taskset", "", "", 0, NULL, 1, false, WK_PLAIN},
	{"time", "fo", "format output", 0, NULL, 0, true, WK_PLAIN},
	{"timeout", "sk", "signal kill-after", 0, NULL, 1, false, WK_PLAIN},
	{"torsocks", "upaP", "user pass address port", 0, NULL, 0, false, WK_PLAIN},
	{"unbuffer", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"unshare", "SGRw",
	 "setuid setgid root wd map-user map-group map-users map-groups propagation setgroups "
	 "load-interp",
	 0, NULL, 0, false, WK_PLAIN},
	{"valgrind", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"watch", "nq", "interval equexit", 0, NULL, 0, false, WK_WATCH},
	{"xargs", "adEILnPs", "arg-file delimiter max-args max-procs max-chars process-slot-var",
	 0, NULL, 0, false, WK_XARGS},
	{"xvfb-run", "nsfpew", "server-num server-args auth-file xauth-protocol error-file wait", 0, NULL,
	 0, false, WK_PLAIN},
};

struct unwrapped {
	size_t cmd;          /* index of the wrapped command; n when there is none */
	const char *payload; /* shell text the wrapper runs instead */
	const char *repl;    /* xargs -I: the text replaced by each input item */
	bool lookup_only;    /* command -v: names the command, does not run it */
	bool exec_mode;      /* watch -x: runs its arguments without a shell */
	bool shell_mode;     /* entr -s: its operand is shell text */
};

static bool in_list(const char *list, const char *name, size_t len)
{
	while (*list) {
		size_t n = strcspn(list, " ");

		if (n == len && !memcmp(list, name, len))
			return true;
		list += n;
		while (*list == ' ')
			list++;
	}
	return false;
}

static int wrapper_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct wrapper *)elem)->name);
}

static const struct wrapper *find_wrapper(const char *name)
{
	return bsearch(name, wrappers, sizeof(wrappers) / sizeof(wrappers[0]), sizeof(wrappers[0]),
		       wrapper_cmp);
}

/* Skip a wrapper's options (and their values) to find what it runs. */
static void unwrap(const struct wrapper *wr, const struct sword *w, size_t n, struct unwrapped *u)
{
	size_t i = 1, k;

	memset(u, 0, sizeof(*u));
	while (i < n) {
		const char *a = w[i].s;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-") && !strcmp(wr->name, "env")) {
			i++; /* env - is env -i */
			continue;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '='), *val;
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			val = eq ? eq + 1 : NULL;
			if (!eq && in_list(wr->longval, name, len) && i + 1 < n)
				val = w[++i].s;
			if (val && wr->payload_long && len == strlen(wr->payload_long) &&
			    !memcmp(name, wr->payload_long, len))
				u->payload = val;
			if (wr->kind == WK_WATCH && len == 4 && !memcmp(name, "exec", 4))
				u->exec_mode = true;
			if (wr->kind == WK_XARGS && len == 7 && !memcmp(name, "replace", 7))
				u->repl = val ? val : "{}";
			i++;
			continue;
		}
		for (k = 1; a[k]; k++) {
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
			if (wr->kind == WK_COMMAND && (a[k] == 'v' || a[k] == 'V'))
				u->lookup_only = true;
			if (wr->kind == WK_WATCH && a[k] == 'x')
				u->exec_mode = true;
			if (wr->kind == WK_ENTR && a[k] == 's')
				u->shell_mode = true;
		}
		i++;
	}
	for (k = 0; k < wr->operands && i < n; k++)
		i++;
	if (wr->kind == WK_FLOCK && !u->payload && i < n) {
		i++; /* the lock file or descriptor */
		if (i < n && (!strcmp(w[i].s, "-c") || !strcmp(w[i].s, "--command"))) {
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

/* source FILE / . FILE: a script that is not a plain file named in the line is unknown. */
static void run_source(struct parser *p, const struct sword *w, size_t n, const struct input *in)
{
	size_t i = 1;
	const char *f;

	if (i < n && !strcmp(w[i].s, "--"))
		i++;
	if (i >= n)
		return;
	f = w[i].s;
	if (w[i].info.parts) {
		shell_flag(p, ROZ_SHELL_DYNAMIC, "`%s` runs a script named only when the line runs: %.*s",
			   w[0].s, shell_clip(f), f);
	} else if (!strcmp(f, "/dev/stdin") || !strcmp(f, "/dev/fd/0") || !strcmp(f, "/proc/self/fd/0")) {
		shell_stdin(p, in);
	} else if (!strncmp(f, "/dev/", 5) || !strncmp(f, "/proc/", 6)) {
		shell_flag(p, ROZ_SHELL_DYNAMIC, "`%s` runs a script read from %.*s", w[0].s,
			   shell_clip(f), f);
	}
}

/* Skip options of a builtin; `values` are its short options that take a value. Returns the first operand. */
static size_t skip_options(const struct sword *w, size_t n, const char *values, const char **value_of,
			   char which)
{
	size_t i = 1;

	while (i < n && (w[i].s[0] == '-' || w[i].s[0] == '+') && w[i].s[1]) {
		const char *a = w[i].s;

		if (!strcmp(a, "--"))
			return i + 1;
		for (size_t k = 1; a[k]; k++) {
			if (strchr(values, a[k])) {
				const char *val = a[k + 1] ? a + k + 1 : i + 1 < n ? w[++i].s : NULL;

				if (a[k] == which && value_of)
					*value_of = val;
				break;
			}
		}
		i++;
	}
	return i;
}

/*
 * Builtins that assign variables or define aliases, and the arithmetic
 * contexts among them: their array subscripts are evaluated, and a
 * subscript can run a command.
 */
static void run_assigning(struct parser *p, const char *name, const struct sword *w, size_t n)
{
	const char *val = NULL;
	size_t i;

	if (!strcmp(name, "export") || !strcmp(name, "declare") || !strcmp(name, "typeset") ||
	    !strcmp(name, "local") || !strcmp(name, "readonly")) {
		p->arith = true;
		for (i = skip_options(w, n, "", NULL, 0); i < n; i++)
			shell_note_assigned(p, w[i].s);
	} else if (!strcmp(name, "alias") || (!strcmp(name, "hash") && n > 2)) {
		bool hash = name[0] == 'h';

		for (i = 1; i < n; i++) {
			const char *eq = strchr(w[i].s, '=');

			if (w[i].info.parts) {
				shell_flag(p, ROZ_SHELL_DYNAMIC, "`%s` defines a name computed at run time: %.*s",
					   name, shell_clip(w[i].s), w[i].s);
			} else if (hash ? i == n - 1 && !strcmp(w[1].s, "-p") : eq && w[i].s[0] != '-') {
				/* hash -p PATH NAME makes NAME run PATH, as an alias would */
				shell_add_name(p, &p->aliases, &p->naliases, &p->capaliases, w[i].s,
					       hash ? strlen(w[i].s) : (size_t)(eq - w[i].s));
			}
		}
	} else if (!strcmp(name, "read")) {
		p->arith = true;
		i = skip_options(w, n, "adinNptu", &val, 'a');
		if (val)
			shell_note_assigned(p, val);
		for (; i < n; i++)
			shell_note_assigned(p, w[i].s);
	} else if (!strcmp(name, "printf")) {
		if (n > 2 && !strcmp(w[1].s, "-v")) {
			p->arith = true;
			shell_note_assigned(p, w[2].s);
		}
	} else if (!strcmp(name, "mapfile") || !strcmp(name, "readarray")) {
		p->arith = true;
		i = skip_options(w, n, "dnOsuCc", &val, 'C');
		if (val)
			shell_parse_payload(p, val, strlen(val)); /* the callback -C runs as a command */
		if (i < n)
			shell_note_assigned(p, w[n - 1].s);
	} else if (!strcmp(name, "let")) {
		p->arith = true;
	} else if (!strcmp(name, "getopts")) {
		if (n > 2)
			shell_note_assigned(p, w[2].s);
	}
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
static bool run_parallel(struct parser *p, const struct sword *w, size_t n, size_t cmd,
			 const struct input *in, size_t *end)
{
	size_t stop = parallel_end(w, cmd, n);
	bool shell = false;
	char *text;

	*end = stop;
	if (stop == cmd) {
		/* no command: every input is a command line of its own */
		if (stop == n) {
			shell_stdin(p, in);
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
	text = join_words(p, w + cmd, stop - cmd, false);
	if (text) {
		if (strchr(text, '{'))
			shell_flag(p, ROZ_SHELL_DYNAMIC, "parallel fills in `{}` in shell text: %.*s",
				   shell_clip(text), text);
		shell_parse_payload(p, text, strlen(text));
	}
	roz_free(text);
	return true;
}

/*
 * Report a simple command (assignments and redirections already gone) and
 * everything it runs in turn: wrapped commands, nested shell scripts, eval
 * text. Wrappers are peeled in a loop; hops bounds how many. `feed` says
 * what a wrapper outside this call puts into the words.
 */
void shell_run_words(struct parser *p, const struct sword *w, size_t n,
		     const struct input *in, unsigned hops, const struct feed *feed)
{
	struct feed f = {false, NULL, 0, NULL};

	if (feed)
		f = *feed;
	while (n && !p->nomem) {
		const struct wrapper *wr;
		struct unwrapped u;
		const char *name;
		size_t at, k;

		if (hops >= MAX_NEST) {
			shell_flag(p, ROZ_SHELL_UNPARSED, "commands wrapped more than %d deep", MAX_NEST);
			return;
		}
		if (w[0].flags & (SW_EXP | SW_GLOB | SW_BRACE)) {
			shell_emit(p, w[0].s, &w[0].info, w + 1, n - 1, &f, NONE);
			shell_flag(p, ROZ_SHELL_DYNAMIC, "command name %s: %.*s",
				   w[0].flags & SW_EXP ? "comes from an expansion" :
				   w[0].flags & SW_GLOB ? "is a glob pattern" : "uses brace expansion",
				   shell_clip(w[0].s), w[0].s);
			return;
		}
		name = base_name(w[0].s);
		at = shell_emit(p, name, NULL, w + 1, n - 1, &f, NONE);
		if (!strcmp(name, "git")) {
			shell_git_variant(p, w, n, &f);
			return;
		}
		if (!strcmp(name, "gh")) {
			shell_gh_variant(p, w, n, &f);
			return;
		}
		if (!strncmp(name, "git-", 4) && name[4]) {
			shell_git_helper(p, name + 4, w, n, &f);
			return;
		}
		if (is_shell(name) || !strcmp(name, "eval") || !strcmp(name, "trap") ||
		    !strcmp(name, "find"))
			shell_mark_wrapper(p, at);
		if (is_shell(name)) {
			run_shell(p, w, n, in);
			return;
		}
		if (!strcmp(name, "eval")) {
			run_eval(p, w, n);
			return;
		}
		if (!strcmp(name, "trap")) {
			run_trap(p, w, n);
			return;
		}
		if (!strcmp(name, "find")) {
			run_find(p, w, n, hops);
			return;
		}
		if (!strcmp(name, "source") || !strcmp(name, ".")) {
			run_source(p, w, n, in);
			return;
		}
		if (!strcmp(name, "su") || !strcmp(name, "runuser")) {
			shell_mark_wrapper(p, at);
			k = run_su(p, w, n, name[0] == 'r');
			if (k >= n)
				return;
			w += k;
			n -= k;
			hops++;
			continue;
		}
		run_assigning(p, name, w, n);
		wr = find_wrapper(name);
		if (!wr)
			return;
		shell_mark_wrapper(p, at);
		unwrap(wr, w, n, &u);
		if (u.payload) {
			shell_parse_payload(p, u.payload, strlen(u.payload));
			return;
		}
		if (wr->kind == WK_PARALLEL) {
			if (!run_parallel(p, w, n, u.cmd, in, &k))
				return;
			n = k; /* the inputs after ::: are data for {} or the end */
			f.more_args = true;
			f.repl = "{";
			f.part = ROZ_SHELL_PART_FED;
			f.why = "what parallel fills in";
		}
		if (u.lookup_only || u.cmd >= n)
			return;
		if (wr->kind == WK_WATCH && !u.exec_mode) {
			run_joined(p, w + u.cmd, n - u.cmd); /* watch hands its arguments to sh -c */
			return;
		}
		if (wr->kind == WK_ENTR && u.shell_mode) {
			shell_parse_payload(p, w[u.cmd].s, strlen(w[u.cmd].s));
			return;
		}
		if (wr->kind == WK_SG) {
			k = u.cmd < n && !strcmp(w[u.cmd].s, "-c") ? u.cmd + 1 : u.cmd;
			run_joined(p, w + k, n - k); /* sg hands the rest to sh -c */
			return;
		}
		if (wr->kind == WK_XARGS) {
			f.more_args = !u.repl;
			f.repl = u.repl;
			f.part = ROZ_SHELL_PART_FED;
			f.why = u.repl ? "what xargs fills in" : "the arguments xargs adds";
		}
		w += u.cmd;
		n -= u.cmd;
		hops++;
	}
}

static bool echo_option(const char *s)
{
	if (s[0] != '-' || !s[1])
		return false;
	for (s++; *s; s++)
		if (*s != 'n' && *s != 'e' && *s != 'E')
			return false;
	return true;
}

/* What a pipeline stage writes, when that is known text a shell might read. */
void shell_pipe_output(struct parser *p, const struct sword *w, size_t n, struct input *in,
		       struct input *next)
{
	const char *name;
	size_t i = 1;

	if (w[0].flags & (SW_EXP | SW_GLOB | SW_BRACE))
		return;
	name = base_name(w[0].s);
	if (!strcmp(name, "echo") || !strcmp(name, "printf")) {
		if (name[0] == 'e')
			while (i < n && echo_option(w[i].s))
				i++;
		next->kind = IN_PIPE_TEXT;
		next->text = join_words(p, w + i, n - i, true);
	} else if (!strcmp(name, "cat") && n == 1 &&
		   (in->kind == IN_HEREDOC || in->kind == IN_HERESTR)) {
		*next = *in;
		if (next->kind == IN_HERESTR)
			next->kind = IN_PIPE_TEXT;
		in->text = NULL;
		in->kind = IN_TTY;
	}
}

/* ---- once the whole line is read ---------------------------------------- */

static bool assigns_prefix(const roz_shell_result *r, const char *prefix)
{
	for (size_t i = 0; i < r->nnames; i++)
		if (!strncmp(r->names[i], prefix, strlen(prefix)))
			return true;
	return false;
}

/*
 * What can only be judged once the whole line is read: names it defines
 * that change what later words mean, and arithmetic that can run text the
 * lexer took for data.
 */
void shell_settle(struct parser *p)
{
	roz_shell_result *r = p->out;
	bool git_config = assigns_prefix(r, "GIT_CONFIG");

	for (size_t i = 0; i < r->ncmds; i++) {
		roz_shell_cmd *c = &r->cmds[i];

		for (size_t k = 0; k < p->naliases; k++) {
			if (!strcmp(c->words[0], p->aliases[k])) {
				c->known = 0;
				c->why = "an alias defined on this line";
			}
		}
		if (git_config && !strcmp(c->words[0], "git") && c->known > 4) {
			c->known = 4;
			c->why = "git configuration set on this line";
		}
	}
	shell_git_settle(p);
	if (roz_shell_assigns(r, "BASH_ALIASES"))
		shell_flag(p, ROZ_SHELL_DYNAMIC, "the line defines aliases through BASH_ALIASES");
	if (p->arith && p->quoted_subst)
		shell_flag(p, ROZ_SHELL_DYNAMIC,
			   "an arithmetic context can run a `$(...)` or backquote written inside "
			   "quotes, as an array subscript");
}

