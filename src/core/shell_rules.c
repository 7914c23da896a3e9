/*
 * shell_rules.c - roz's rules about what a command runs: wrappers and their
 * options (sudo, env, timeout, xargs, ssh, uv run, ...), shells given -c or
 * a script on stdin, a descriptor or a process substitution, eval, trap,
 * find -exec, parallel, tmux, editors' and database shells' escapes, what a
 * command runs that the line does not show (opaque), and what makes a line dynamic
 * (git's own rules are in shell_git.c). Kept apart from the lexer and
 * the grammar because this is the part that changes most: every new way to
 * run a command is added here.
 */
#include "shell_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- what a command runs ------------------------------------------------ */

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash && slash[1] ? slash + 1 : s;
}

/* Say what a reported command runs that the line does not show; the first reason stays. */
static void set_opaque(struct parser *p, size_t at, const char *why)
{
	if (at != NONE && at < p->out->ncmds && !p->out->cmds[at].opaque)
		p->out->cmds[at].opaque = why;
}

/*
 * A long option as GNU getopt reads it: the whole name, or a prefix of only
 * one name in the list. Returns the name found in the list, or NULL.
 */
static const char *long_find(const char *list, const char *name, size_t len)
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

/* Whether a long option found by long_find is `want` (a name of the list). */
static bool long_names(const char *found, const char *want)
{
	size_t n;

	if (!found || !want)
		return false;
	n = strcspn(found, " ");
	return n == strlen(want) && !memcmp(found, want, n);
}

/* name[0, len) spells the long option `full`, abbreviated to no fewer than min bytes. */
static bool long_is(const char *name, size_t len, const char *full, size_t min)
{
	return len >= min && len <= strlen(full) && !memcmp(name, full, len);
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

static bool echo_option(const char *s)
{
	if (s[0] != '-' || !s[1])
		return false;
	for (s++; *s; s++)
		if (*s != 'n' && *s != 'e' && *s != 'E')
			return false;
	return true;
}

/*
 * A shell reading `<(src)`: when src is one echo or printf of static words,
 * the text it writes is the script; anything else is unknown. Only text
 * without operators or substitutions is read again, so this never nests.
 */
static void procsub_script(struct parser *p, const char *src)
{
	const char *lead = src + strspn(src, " \t");
	struct parser q;
	roz_shell_result r;
	struct sword *v = NULL;
	const roz_shell_cmd *c;
	size_t i, k = 0;
	char *text;

	if (strpbrk(src, "$`()<>|;&\n") || (strncmp(lead, "echo ", 5) && strncmp(lead, "printf ", 7)))
		goto unknown;
	memset(&q, 0, sizeof(q));
	memset(&r, 0, sizeof(r));
	q.out = &r;
	q.level = p->level;
	shell_parse_range(&q, src, 0, strlen(src));
	for (i = 0; i < q.naliases; i++)
		roz_free(q.aliases[i]);
	roz_free(q.aliases);
	if (q.nomem) {
		roz_shell_result_dispose(&r);
		shell_nomem(p);
		return;
	}
	c = r.ncmds == 1 ? &r.cmds[0] : NULL;
	if (r.flags || !c || c->known != strlen(c->line) || c->depth ||
	    (strcmp(c->words[0], "echo") && strcmp(c->words[0], "printf"))) {
		roz_shell_result_dispose(&r);
		goto unknown;
	}
	v = roz_calloc(c->nwords, sizeof(*v));
	if (!v) {
		roz_shell_result_dispose(&r);
		shell_nomem(p);
		return;
	}
	i = 1;
	if (c->words[0][0] == 'e')
		while (i < c->nwords && echo_option(c->words[i]))
			i++;
	for (; i < c->nwords; i++)
		v[k++].s = c->words[i];
	text = join_words(p, v, k, true);
	if (text)
		shell_parse_payload(p, text, strlen(text));
	roz_free(text);
	roz_free(v);
	roz_shell_result_dispose(&r);
	return;
unknown:
	shell_flag(p, ROZ_SHELL_DYNAMIC, "a shell reads its script from a process substitution: <(%.*s)",
		   shell_clip(src), src);
}

/* A shell reading its script from stdin (or another descriptor): find that script if it is known. */
static void shell_stdin(struct parser *p, const struct input *in, size_t at)
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
	case IN_PROCSUB:
		procsub_script(p, in->text ? in->text : "");
		break;
	case IN_FILE:
		set_opaque(p, at, "it runs a script file");
		break;
	default:
		break;
	}
}

/* `<(...)` written as a whole word. */
static bool procsub_word(const struct sword *w)
{
	size_t n = strlen(w->s);

	return (w->flags & SW_EXP) && n >= 3 && w->s[0] == '<' && w->s[1] == '(' && w->s[n - 1] == ')';
}

/* The descriptor a path such as /dev/fd/3 or /dev/stdin reads, or -1. */
static int fd_path(const char *f)
{
	const char *d = NULL;
	int fd = 0;

	if (!strcmp(f, "-") || !strcmp(f, "/dev/stdin"))
		return 0;
	if (!strncmp(f, "/dev/fd/", 8))
		d = f + 8;
	else if (!strncmp(f, "/proc/self/fd/", 14))
		d = f + 14;
	if (!d || !*d || d[strspn(d, "0123456789")])
		return -1;
	for (; *d && fd < 100000; d++)
		fd = fd * 10 + (*d - '0');
	return fd;
}

/*
 * A shell or `source` given a script operand: stdin or another descriptor
 * the command's own redirections feed, a process substitution, or a file
 * the line does not show.
 */
static void script_operand(struct parser *p, const struct sword *op, const struct input *in, size_t at)
{
	int fd = fd_path(op->s);

	if (fd == 0) {
		shell_stdin(p, in, at);
	} else if (fd > 0) {
		const struct input *m = in ? in->more : NULL;

		while (m && m->fd != fd)
			m = m->more;
		if (m && m->kind != IN_TTY)
			shell_stdin(p, m, at);
		else
			shell_flag(p, ROZ_SHELL_DYNAMIC, "a shell reads its script from file descriptor %d", fd);
	} else if (procsub_word(op)) {
		size_t n = strlen(op->s);
		char *src = roz_strndup(op->s + 2, n - 3);

		if (!src) {
			shell_nomem(p);
			return;
		}
		procsub_script(p, src);
		roz_free(src);
	} else {
		set_opaque(p, at, "it runs a script file");
	}
}

/* Shells, and how each reads its options: values, text to run, long names. */
struct shell_kind {
	const char *name;
	const char *valopts;  /* short options that take a value */
	const char *textopts; /* short options whose value is a script */
	const char *longval;  /* long options that take the next word */
	const char *longtext; /* long options whose value is a script */
};

static const struct shell_kind shells[] = {
	{"sh", "oO", "", "rcfile init-file", ""},
	{"bash", "oO", "", "rcfile init-file", ""},
	{"zsh", "oO", "", "", ""},
	{"dash", "oO", "", "", ""},
	{"ksh", "oO", "", "", ""},
	{"ksh93", "oO", "", "", ""},
	{"mksh", "oO", "", "", ""},
	{"oksh", "oO", "", "", ""},
	{"loksh", "oO", "", "", ""},
	{"ash", "oO", "", "", ""},
	{"yash", "oO", "", "rcfile profile", ""},
	{"posh", "oO", "", "", ""},
	{"rbash", "oO", "", "rcfile init-file", ""},
	{"csh", "", "", "", ""},
	{"tcsh", "", "", "", ""},
	{"elvish", "", "", "rc db sock", ""},
	{"xonsh", "D", "", "rc config-path", ""},
	/* fish: -C/--init-command runs text too; -c takes the script like sh */
	{"fish", "dopf", "C", "debug debug-output profile profile-startup features", "command init-command"},
	/* nu: -c/--commands and -e/--execute run text */
	{"nu", "Im", "e",
	 "config env-config include-path log-level log-target table-mode error-style plugins "
	 "plugin-config experimental-options",
	 "commands execute"},
};

static const struct shell_kind *find_shell(const char *name)
{
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (!strcmp(name, shells[i].name))
			return &shells[i];
	return NULL;
}

/*
 * sh/bash/fish/...: -c in any spelling takes the first operand as the
 * script; a script operand is read from where it names; with neither, the
 * script comes from stdin.
 */
static void run_shell(struct parser *p, const struct shell_kind *sk, const struct sword *w, size_t n,
		      const struct input *in, size_t at)
{
	bool dash_c = false, dash_s = false, ran = false;
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
			const char *name = a + 2, *eq = strchr(name, '='), *val;
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			if (long_find(sk->longtext, name, len)) {
				val = eq ? eq + 1 : i + 1 < n ? w[++i].s : NULL;
				if (val)
					shell_parse_payload(p, val, strlen(val));
				ran = true;
			} else if (!eq && long_find(sk->longval, name, len)) {
				i++;
			} else if (!eq && long_is(name, len, "command", 4)) {
				dash_c = true; /* --command TEXT, as -c */
			}
			i++;
			continue;
		}
		for (j = 1; a[j]; j++) {
			if (a[0] == '-' && strchr(sk->textopts, a[j])) {
				const char *val = a[j + 1] ? a + j + 1 : i + 1 < n ? w[++i].s : NULL;

				if (val)
					shell_parse_payload(p, val, strlen(val));
				ran = true;
				break;
			}
			if (a[j] == 'c' && a[0] == '-')
				dash_c = true;
			else if (a[j] == 's' && a[0] == '-')
				dash_s = true;
			else if (strchr(sk->valopts, a[j]))
				value = true;
		}
		i += value ? 2 : 1;
	}
	if (dash_c) {
		if (i < n)
			shell_parse_payload(p, w[i].s, strlen(w[i].s));
		return;
	}
	if (i < n && !dash_s) {
		script_operand(p, &w[i], in, at);
		return;
	}
	if (!ran)
		shell_stdin(p, in, at);
}

static bool word_in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcasecmp(s, *list))
			return true;
	return false;
}

/*
 * pwsh/powershell: -Command (any prefix) runs the rest of the line as
 * script text, -EncodedCommand runs text no one can read here, -File or a
 * first operand runs a script file.
 */
static void run_pwsh(struct parser *p, const struct sword *w, size_t n, const struct input *in, size_t at)
{
	static const char *const values[] = {"-ex", "-ep", "-executionpolicy", "-wd", "-workingdirectory",
					     "-if", "-inputformat", "-of", "-o", "-outputformat",
					     "-config", "-configurationname", "-settingsfile", "-w",
					     "-windowstyle", "-custompipename", NULL};
	size_t i;

	for (i = 1; i < n; i++) {
		const char *a = w[i].s, *o = a + strspn(a, "-/");
		size_t len = strlen(o);

		if ((a[0] != '-' && a[0] != '/') || !len) {
			script_operand(p, &w[i], in, at); /* a first operand is -File's */
			return;
		}
		if (word_in(a, values)) {
			i++;
			continue;
		}
		if (len <= 7 && !strncasecmp(o, "command", len)) {
			if (i + 1 < n && !strcmp(w[i + 1].s, "-")) {
				shell_stdin(p, in, at);
				return;
			}
			run_joined(p, w + i + 1, n - i - 1);
			return;
		}
		if (!strcasecmp(o, "e") || !strcasecmp(o, "ec") ||
		    (len >= 2 && len <= 14 && !strncasecmp(o, "encodedcommand", len))) {
			shell_flag(p, ROZ_SHELL_DYNAMIC, "PowerShell runs an encoded command");
			return;
		}
		if (len <= 4 && !strncasecmp(o, "file", len)) {
			if (i + 1 < n)
				script_operand(p, &w[i + 1], in, at);
			return;
		}
	}
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
	WK_SG,       /* sg GROUP [-c] text: the text goes to sh -c */
	WK_JOIN,     /* its remaining arguments, joined, are shell text (ssh HOST cmd...) */
	WK_AFTER,    /* the command follows one option (nix develop -c cmd...); none without it */
	WK_DASHDASH, /* the command follows `--` when there is one (mise exec tool -- cmd) */
	WK_SCREEN    /* screen: -X sends keys and commands to a session */
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
	/* asdf exec cmd: the tool versions the project names */
	{"asdf exec", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"builtin", "", "", 0, NULL, 0, false, WK_PLAIN},
	/* bun exec 'text': bun's own shell runs the text */
	{"bun exec", "", "", 0, NULL, 0, false, WK_JOIN},
	/* bun x / bunx pkg args: a package's program */
	{"bun x", "p", "package", 0, NULL, 0, false, WK_PLAIN},
	/* bundle exec cmd: with the project's gems */
	{"bundle exec", "", "gemfile", 0, NULL, 0, false, WK_PLAIN},
	{"bundler exec", "", "gemfile", 0, NULL, 0, false, WK_PLAIN},
	{"bunx", "p", "package", 0, NULL, 0, false, WK_PLAIN},
	{"busybox", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"caffeinate", "tw", "", 0, NULL, 0, false, WK_PLAIN},
	{"catchsegv", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"cgexec", "g", "", 0, NULL, 0, false, WK_PLAIN},
	{"chronic", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"chroot", "", "userspec groups", 0, NULL, 1, false, WK_PLAIN},
	{"chrt", "TPD", "sched-runtime sched-period sched-deadline", 0, NULL, 1, false, WK_PLAIN},
	{"command", "", "", 0, NULL, 0, false, WK_COMMAND},
	/* conda/mamba run [-n env] cmd: inside an environment */
	{"conda run", "np", "name prefix cwd", 0, NULL, 0, false, WK_PLAIN},
	{"cpulimit", "lpe", "limit pid exe", 0, NULL, 0, false, WK_PLAIN},
	/* cross-env A=1 cmd: with variables set */
	{"cross-env", "", "", 0, NULL, 0, true, WK_PLAIN},
	{"cross-env-shell", "", "", 0, NULL, 0, true, WK_JOIN},
	{"dbus-run-session", "", "config-file dbus-daemon", 0, NULL, 0, false, WK_PLAIN},
	/* devbox run cmd: in the project's environment (or its script) */
	{"devbox run", "c", "config environment env env-file", 0, NULL, 0, false, WK_PLAIN},
	/* direnv exec DIR cmd: with DIR's environment */
	{"direnv exec", "", "", 0, NULL, 1, false, WK_PLAIN},
	{"doas", "uC", "", 0, NULL, 0, false, WK_PLAIN},
	/* dotenv [-e file] -- cmd: with a file's variables */
	{"dotenv", "evp", "", 0, NULL, 0, false, WK_PLAIN},
	{"dotenvx run", "f", "env-file env convention", 0, NULL, 0, false, WK_PLAIN},
	{"eatmydata", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"entr", "", "", 0, NULL, 0, false, WK_ENTR},
	{"env", "uCPS", "unset chdir split-string", 'S', "split-string", 0, true, WK_PLAIN},
	/* env-cmd [-f file] cmd: with a file's variables */
	{"env-cmd", "fer", "file environments rc-file", 0, NULL, 0, false, WK_PLAIN},
	{"exec", "a", "", 0, NULL, 0, false, WK_PLAIN},
	{"fakechroot", "ldecb", "lib use-system-libs config-dir bindir", 0, NULL, 0, false, WK_PLAIN},
	{"fakeroot", "lsib", "lib faked", 0, NULL, 0, false, WK_PLAIN},
	{"faketime", "", "", 0, NULL, 1, false, WK_PLAIN},
	{"firejail", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"flock", "wEc", "timeout conflict-exit-code command", 'c', "command", 0, false, WK_FLOCK},
	/* heaptrack cmd: under a memory profiler */
	{"hatch run", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"heaptrack", "o", "output", 0, NULL, 0, false, WK_PLAIN},
	{"ionice", "cnpPu", "class classdata pid pgid uid", 0, NULL, 0, false, WK_PLAIN},
	{"ltrace", "aADeFlnopsuwx", "output library", 0, NULL, 0, false, WK_PLAIN},
	{"mamba run", "np", "name prefix cwd", 0, NULL, 0, false, WK_PLAIN},
	{"micromamba run", "np", "name prefix cwd", 0, NULL, 0, false, WK_PLAIN},
	/* mise exec tool@v -- cmd, or -c text: with the tools installed */
	{"mise exec", "jC", "jobs cd command", 'c', "command", 0, false, WK_DASHDASH},
	{"mise x", "jC", "jobs cd command", 'c', "command", 0, false, WK_DASHDASH},
	{"nice", "n", "adjustment", 0, NULL, 0, false, WK_PLAIN},
	/* nix develop / nix shell ... -c cmd: in a development shell; without -c, interactive */
	{"nix develop", "fIo", "file expr profile override-input arg argstr phase include option command",
	 'c', "command", 0, false, WK_AFTER},
	{"nix shell", "fIo", "file expr profile override-input arg argstr include option command", 'c',
	 "command",
	 0, false, WK_AFTER},
	{"nocache", "n", "", 0, NULL, 0, false, WK_PLAIN},
	{"nocorrect", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"noglob", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"nohup", "", "", 0, NULL, 0, false, WK_PLAIN},
	/* npm exec / npx pkg args, or -c text: a package's program */
	{"npm exec", "w", "package call workspace prefix", 'c', "call", 0, false, WK_PLAIN},
	{"npm x", "w", "package call workspace prefix", 'c', "call", 0, false, WK_PLAIN},
	{"npx", "p", "package call cache userconfig registry", 'c', "call", 0, false, WK_PLAIN},
	{"nsenter", "tSG", "target setuid setgid", 0, NULL, 0, false, WK_PLAIN},
	{"numactl", "imNCpPw",
	 "interleave membind cpunodebind physcpubind preferred preferred-many weighted-interleave",
	 0, NULL, 0, false, WK_PLAIN},
	{"parallel", "adEIjLlnNPSs",
	 "arg-file delimiter eof replace jobs max-lines max-args max-replace-args max-procs "
	 "sshlogin max-chars joblog results tmpdir workdir basefile transferfile return colsep "
	 "timeout delay memfree load",
	 0, NULL, 0, false, WK_PARALLEL},
	/* pipenv/poetry/pdm/hatch/rye/pixi run cmd: inside the project's environment */
	{"pdm run", "p", "project venv", 0, NULL, 0, false, WK_PLAIN},
	/* perf record/stat/trace cmd: measured while it runs */
	{"perf record", "CcDeFGIjmoprtux",
	 "event output pid tid cpu count repeat cgroup field-separator interval-print freq mmap-pages "
	 "delay call-graph",
	 0, NULL, 0, false, WK_PLAIN},
	{"perf stat", "CcDeFGIjmoprtux",
	 "event output pid tid cpu count repeat cgroup field-separator interval-print freq mmap-pages "
	 "delay call-graph",
	 0, NULL, 0, false, WK_PLAIN},
	{"perf trace", "CcDeFGIjmoprtux",
	 "event output pid tid cpu count repeat cgroup field-separator interval-print freq mmap-pages "
	 "delay call-graph",
	 0, NULL, 0, false, WK_PLAIN},
	{"pipenv run", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"pixi run", "e", "manifest-path environment", 0, NULL, 0, false, WK_PLAIN},
	{"pkexec", "", "user", 0, NULL, 0, false, WK_PLAIN},
	/* pnpm exec cmd / pnpm dlx pkg: a package's program */
	{"pnpm dlx", "", "package", 0, NULL, 0, false, WK_PLAIN},
	{"pnpm exec", "C", "dir filter", 0, NULL, 0, false, WK_PLAIN},
	{"poetry run", "CP", "directory project", 0, NULL, 0, false, WK_PLAIN},
	{"prlimit", "po", "pid output", 0, NULL, 0, false, WK_PLAIN},
	{"proxychains", "f", "", 0, NULL, 0, false, WK_PLAIN},
	{"proxychains4", "f", "", 0, NULL, 0, false, WK_PLAIN},
	{"rlwrap", "bCDefgHlOPqsStwz", "", 0, NULL, 0, false, WK_PLAIN},
	{"rye run", "", "pyproject", 0, NULL, 0, false, WK_PLAIN},
	/* sandbox-exec -f profile cmd: in a macOS sandbox */
	{"sandbox-exec", "fpnD", "", 0, NULL, 0, false, WK_PLAIN},
	/* screen [-dmS name] cmd: in a new terminal session */
	{"screen", "cehpsStT", "", 0, NULL, 0, false, WK_SCREEN},
	{"script", "cEIOBTmo", "command echo log-in log-out log-io log-timing logging-format output-limit",
	 'c', "command", 0, false, WK_SCRIPT},
	{"setpriv", "",
	 "reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label "
	 "apparmor-profile landlock-access landlock-rule rlimit",
	 0, NULL, 0, false, WK_PLAIN},
	{"setsid", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"sg", "", "", 0, NULL, 1, false, WK_SG},
	/* ssh HOST cmd...: the words, joined, are a script the remote shell runs */
	{"ssh", "bcDEeFIiJLlmOopQRSWwB", "", 0, NULL, 1, false, WK_JOIN},
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
	/* uv run / uvx cmd: in the project's (or a tool's) environment */
	{"uv run", "pifPC",
	 "with with-editable with-requirements python project directory package extra group only-group "
	 "no-group env-file index default-index index-url extra-index-url find-links config-file "
	 "cache-dir color python-preference index-strategy keyring-provider resolution prerelease "
	 "exclude-newer link-mode refresh-package reinstall-package upgrade-package config-setting "
	 "no-binary-package no-build-package no-extra allow-insecure-host python-platform",
	 0, NULL, 0, false, WK_PLAIN},
	{"uvx", "pfiPCw",
	 "from with with-editable with-requirements python index index-url extra-index-url find-links "
	 "config-file cache-dir constraints overrides build-constraints",
	 0, NULL, 0, false, WK_PLAIN},
	{"valgrind", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"watch", "nq", "interval equexit", 0, NULL, 0, false, WK_WATCH},
	{"xargs", "adEILnPs", "arg-file delimiter max-args max-procs max-chars process-slot-var",
	 0, NULL, 0, false, WK_XARGS},
	{"xvfb-run", "nsfpew", "server-num server-args auth-file xauth-protocol error-file wait", 0, NULL,
	 0, false, WK_PLAIN},
	/* yarn exec cmd / yarn dlx pkg: a package's program */
	{"yarn dlx", "p", "package", 0, NULL, 0, false, WK_PLAIN},
	{"yarn exec", "", "", 0, NULL, 0, false, WK_PLAIN},
};

struct unwrapped {
	size_t cmd;          /* index of the wrapped command; n when there is none */
	const char *payload; /* shell text the wrapper runs instead */
	const char *repl;    /* xargs -I: the text replaced by each input item */
	const char *opaque;  /* what it runs that the line does not show, or NULL */
	bool lookup_only;    /* command -v: names the command, does not run it */
	bool exec_mode;      /* watch -x: runs its arguments without a shell */
	bool shell_mode;     /* entr -s: its operand is shell text */
};

static int wrapper_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct wrapper *)elem)->name);
}

static const struct wrapper *find_wrapper(const char *name)
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
static size_t find_sub(const struct sword *w, size_t n, bool (*match)(const char *key, void *ctx), void *ctx)
{
	char key[96];
	size_t i, tries = 0;

	for (i = 1; i < n && tries < 2; i++) {
		int k;

		if (w[i].s[0] == '-')
			continue;
		k = snprintf(key, sizeof(key), "%s %s", base_name(w[0].s), w[i].s);
		if (k > 0 && (size_t)k < sizeof(key) && match(key, ctx))
			return i;
		if (i == 1)
			break;
		tries++;
	}
	return 0;
}

static bool match_wrapper(const char *key, void *ctx)
{
	const struct wrapper **out = ctx;

	*out = find_wrapper(key);
	return *out != NULL;
}

/* Skip a wrapper's options (and their values) to find what it runs. */
static void unwrap(const struct wrapper *wr, const struct sword *w, size_t n, struct unwrapped *u)
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
			opt = long_find(wr->longval, name, len);
			if (wr->kind == WK_AFTER && long_names(opt, wr->payload_long)) {
				after = i + 1; /* --command cmd args... */
				break;
			}
			if (!eq && opt && i + 1 < n)
				val = w[++i].s;
			if (val && long_names(opt, wr->payload_long))
				u->payload = val;
			if (wr->kind == WK_WATCH && long_is(name, len, "exec", 3))
				u->exec_mode = true;
			if (wr->kind == WK_XARGS && long_is(name, len, "replace", 1))
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
		if (i < n && (!strcmp(w[i].s, "-c") || long_is(w[i].s, strlen(w[i].s), "--command", 4))) {
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
static void run_source(struct parser *p, const struct sword *w, size_t n, const struct input *in, size_t at)
{
	size_t i = 1;
	const char *f;

	if (i < n && !strcmp(w[i].s, "--"))
		i++;
	if (i >= n)
		return;
	f = w[i].s;
	if (w[i].info.parts && !procsub_word(&w[i])) {
		shell_flag(p, ROZ_SHELL_DYNAMIC, "`%s` runs a script named only when the line runs: %.*s",
			   w[0].s, shell_clip(f), f);
	} else if (fd_path(f) < 0 && (!strncmp(f, "/dev/", 5) || !strncmp(f, "/proc/", 6))) {
		shell_flag(p, ROZ_SHELL_DYNAMIC, "`%s` runs a script read from %.*s", w[0].s,
			   shell_clip(f), f);
	} else {
		script_operand(p, &w[i], in, at);
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

/* ---- programs that run what the line does not show ---------------------- */

static const char *const task_why = "it runs the project's own task definitions";

/* Task runners: what they run is defined in the project's files, not on the line. */
static const char *const task_runners[] = {
	"bazel run", "bazelisk run", "bmake", "bun run", "bun test", "cargo r", "cargo run",
	"composer run", "composer run-script", "deno task", "devbox run", "doit", "gmake", "go generate",
	"go run", "go-task", "gradle", "gradlew", "hatch run", "inv", "invoke", "just", "make", "mise r",
	"mise run", "mvn", "mvnw", "ninja", "nox", "npm restart", "npm rum", "npm run", "npm run-script",
	"npm start", "npm stop", "npm t", "npm test", "npm tst", "npm urn", "pdm run", "pixi run",
	"pnpm run", "pnpm start", "pnpm t", "pnpm test", "rake", "rye run", "task", "tox", "yarn run",
	"yarn start", "yarn test", NULL,
};

/* Subcommands of package managers that are their own; any other word names a script of the project's. */
static const char *const yarn_own[] = {
	"add", "audit", "autoclean", "bin", "cache", "check", "config", "constraints", "create", "dedupe",
	"dlx", "exec", "explain", "generate-lock-entry", "global", "help", "import", "info", "init",
	"install", "licenses", "link", "list", "login", "logout", "npm", "outdated", "owner", "pack",
	"patch", "patch-commit", "plugin", "policies", "publish", "rebuild", "remove", "search", "set",
	"tag", "team", "unlink", "unplug", "up", "upgrade", "upgrade-interactive", "version", "versions",
	"why", "workspace", "workspaces", NULL,
};
static const char *const pnpm_own[] = {
	"add", "approve-builds", "audit", "bin", "c", "cat-file", "cat-index", "config", "create",
	"dedupe", "deploy", "dlx", "doctor", "env", "exec", "fetch", "find-hash", "i", "ignored-builds",
	"import", "init", "install", "install-test", "it", "licenses", "link", "list", "ln", "ls",
	"outdated", "pack", "patch", "patch-commit", "patch-remove", "prune", "publish", "rb", "rebuild",
	"recursive", "remove", "rm", "root", "self-update", "server", "setup", "store", "un",
	"uninstall", "unlink", "up", "update", "upgrade", "why", NULL,
};
static const char *const bun_own[] = {
	"a", "add", "audit", "build", "c", "create", "exec", "i", "info", "init", "install", "link",
	"outdated", "patch", "pm", "publish", "remove", "repl", "rm", "unlink", "update", "upgrade",
	"why", "x", NULL,
};

static bool in_words(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static bool match_task(const char *key, void *ctx)
{
	(void)ctx;
	return in_words(key, task_runners);
}

/* The project's own tasks: make, just, npm run, cargo run, `yarn <script>`, ... */
static void task_opaque(struct parser *p, const char *name, const struct sword *w, size_t n, size_t at)
{
	static const char *const asks[] = {"--version", "-v", "-V", "--help", "-h", NULL};
	size_t i;

	if (n == 2 && in_words(w[1].s, asks))
		return; /* only asks the program about itself */
	if (in_words(name, task_runners) || find_sub(w, n, match_task, NULL)) {
		set_opaque(p, at, task_why);
		return;
	}
	if (strcmp(name, "yarn") && strcmp(name, "pnpm") && strcmp(name, "bun"))
		return;
	for (i = 1; i < n && w[i].s[0] == '-'; i++)
		;
	if (i < n && !in_words(w[i].s, name[0] == 'y' ? yarn_own : name[0] == 'p' ? pnpm_own : bun_own))
		set_opaque(p, at, name[0] == 'b' ? "it runs a script file or the project's own task definitions"
						 : task_why);
}

/* Where programs are installed by the system, not by whoever wrote the line. */
static bool system_dir(const char *s, size_t len)
{
	static const char *const dirs[] = {"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin",
					   "/usr/lib/git-core", "/usr/libexec/git-core", NULL};

	for (size_t i = 0; dirs[i]; i++)
		if (strlen(dirs[i]) == len && !memcmp(s, dirs[i], len))
			return true;
	return false;
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
static size_t run_gdb(struct parser *p, const struct sword *w, size_t n, size_t at)
{
	static const char *const escapes[] = {"shell ", "!", "python", "py ", "pi ", "pipe ", "|", "guile",
					      "gu ", "make", "source ", NULL};
	static const char *const texts[] = {"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex",
					    "-init-eval-command", "--init-eval-command", NULL};
	static const char *const files[] = {"-x", "--x", "-command", "--command", "-ix", "--ix",
					    "-init-command", "--init-command", NULL};
	static const char *const values[] = {"-p", "-pid", "--pid", "-cd", "--cd", "-d", "--directory",
					     "-D", "--data-directory", "-s", "--symbols", "-e", "--exec",
					     "-se", "-c", "--core", "-tty", "--tty", "-b", "-l", "-i",
					     "--interpreter", NULL};

	for (size_t i = 1; i < n; i++) {
		const char *a = w[i].s, *text = NULL, *eq = strchr(a, '=');

		if (!strcmp(a, "--args") || !strcmp(a, "-args"))
			return i + 1;
		if (word_in(a, texts) && i + 1 < n)
			text = w[++i].s;
		else if (eq && a[0] == '-' && !strncmp(a + strspn(a, "-"), "eval-command=", 13))
			text = eq + 1;
		else if (word_in(a, files) || (eq && !strncmp(a + strspn(a, "-"), "command=", 8)))
			set_opaque(p, at, "it runs a script file");
		if (word_in(a, files) || word_in(a, values))
			i += !eq;
		if (!text)
			continue;
		text += strspn(text, " \t");
		for (size_t k = 0; escapes[k]; k++) {
			if (!strncmp(text, escapes[k], strlen(escapes[k]))) {
				set_opaque(p, at, "it runs debugger commands that can run anything");
				if (k < 2)
					escape_text(p, text, escapes[k], true);
				break;
			}
		}
	}
	return n;
}

/* vim/nvim/ex: -c, --cmd and +cmd are editor commands, where `!` runs shell text; -S/-s read a script. */
static void run_vim(struct parser *p, const char *name, const struct sword *w, size_t n,
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
			set_opaque(p, at, "it runs an editor script file");
		else if (!strcmp(a, "-e") || !strcmp(a, "-es") || !strcmp(a, "-E") || !strcmp(a, "-Es"))
			batch = true;
		if (text) {
			set_opaque(p, at, "it runs editor commands that can run anything");
			escape_text(p, text, "!", true);
		}
	}
	if (batch && in && in->kind != IN_TTY)
		set_opaque(p, at, "it runs editor commands that can run anything");
}

/* emacs/emacsclient: --eval, -l, -f and --script run Lisp, which can run anything. */
static void run_emacs(struct parser *p, const struct sword *w, size_t n, size_t at)
{
	static const char *const lisp[] = {"--eval", "-eval", "-e", "--load", "-l", "-load", "--funcall",
					   "-f", "-funcall", "--script", "-script", "-x", "-batch",
					   "--batch", NULL};

	for (size_t i = 1; i < n; i++) {
		char opt[32];
		size_t len = strcspn(w[i].s, "=");

		if (len >= sizeof(opt))
			continue;
		memcpy(opt, w[i].s, len);
		opt[len] = '\0';
		if (word_in(opt, lisp) && strcmp(opt, "-batch") && strcmp(opt, "--batch")) {
			set_opaque(p, at, "it runs editor commands that can run anything");
			return;
		}
	}
}

/* Database shells: text after -c/-e/-cmd is their own commands; some run shell text. */
static void db_text(struct parser *p, const char *name, const char *text, size_t at)
{
	static const char *const sqlite[] = {".shell ", ".system ", ".once", ".output", ".import", ".read",
					     ".load", ".excel", ".edit", "edit(", NULL};
	const char *why = "its commands can run shell commands";

	if (!text)
		return;
	if (!strcmp(name, "psql")) {
		if (escape_text(p, text, "\\! ", false) || escape_text(p, text, "\\!", false) ||
		    strstr(text, "\\o |") || strstr(text, "\\o|") || strstr(text, "\\g |") ||
		    strstr(text, "\\g|") || strcasestr(text, "program"))
			set_opaque(p, at, why);
	} else if (!strcmp(name, "sqlite3") || !strcmp(name, "sqlite")) {
		for (size_t k = 0; sqlite[k]; k++) {
			if (strstr(text, sqlite[k])) {
				set_opaque(p, at, why);
				if (k < 2)
					escape_text(p, text, sqlite[k], false);
			}
		}
	} else {
		if (escape_text(p, text, "system ", true) || escape_text(p, text, "\\! ", false) ||
		    escape_text(p, text, "\\!", false))
			set_opaque(p, at, why);
	}
}

static void run_db(struct parser *p, const char *name, const struct sword *w, size_t n,
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
			set_opaque(p, at, "it runs a script file");
			i += !eq && a[1] != '-' ? 1 : 0;
		}
	}
	if (in && (in->kind == IN_HERESTR || in->kind == IN_PIPE_TEXT))
		db_text(p, name, in->text, at);
	else if (in && in->kind != IN_TTY)
		set_opaque(p, at, "it runs commands from its input");
}

/* hyperfine: each operand, and --prepare/--setup/--cleanup/--conclude, is shell text it times. */
static void run_hyperfine(struct parser *p, const struct sword *w, size_t n)
{
	static const char *const texts[] = {"-p", "--prepare", "-s", "--setup", "-c", "--cleanup",
					    "--conclude", NULL};
	static const char *const one[] = {"-w", "--warmup", "-r", "--runs", "-m", "--min-runs", "-M",
					  "--max-runs", "-S", "--shell", "-n", "--command-name", "-u",
					  "--time-unit", "--style", "--sort", "--output", "--input",
					  "--export-asciidoc", "--export-csv", "--export-json",
					  "--export-markdown", "--export-orgmode", "-D", "--parameter-step-size",
					  NULL};
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
		} else if (word_in(a, texts)) {
			if (i + 1 < n)
				shell_parse_payload(p, w[i + 1].s, strlen(w[i + 1].s));
			i++;
		} else if (word_in(a, one)) {
			i++;
		} else if (!strcmp(a, "-L") || !strcmp(a, "--parameter-list")) {
			i += 2;
		} else if (!strcmp(a, "-P") || !strcmp(a, "--parameter-scan")) {
			i += 3;
		}
	}
}

/* bwrap: options with one, two or three values, then the command it runs in the sandbox. */
static size_t bwrap_start(const struct sword *w, size_t n)
{
	static const char *const two = "bind bind-try dev-bind dev-bind-try ro-bind ro-bind-try symlink "
				       "setenv chmod bind-data ro-bind-data file bind-fd ro-bind-fd";
	static const char *const one = "args userns userns2 pidns uid gid hostname chdir unsetenv lock-file "
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
		if (long_find(two, a, strlen(a)))
			i += 2;
		else if (!strcmp(a, "overlay"))
			i += 3;
		else if (long_find(one, a, strlen(a)))
			i += 1;
		i++;
	}
	return n;
}

/* nix-shell: --run and --command take shell text; otherwise an interactive shell. */
static void run_nix_shell(struct parser *p, const struct sword *w, size_t n)
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
	static const char *const runs[] = {"new-session", "new", "new-window", "neww", "split-window",
					   "splitw", "respawn-pane", "respawnp", "respawn-window",
					   "respawnw", "run-shell", "run", "display-popup", "popup",
					   "pipe-pane", "pipep", "if-shell", "if", NULL};
	static const char *const keys[] = {"send-keys", "send", "paste-buffer", "pasteb", NULL};
	const char *name = w[0].s, *vals;
	bool tmux_cmd = false;
	size_t i = 1;

	if (in_words(name, keys)) {
		set_opaque(p, at, "it types keys into a terminal, which can run anything");
		return false;
	}
	if (!in_words(name, runs))
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
	run_joined(p, w + i, n - i);
	return true;
}

/* tmux [-L sock] cmd [args] [; cmd ...]: -c and the commands that start programs run shell text. */
static bool run_tmux(struct parser *p, const struct sword *w, size_t n, size_t at)
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
static void run_at(struct parser *p, const struct sword *w, size_t n, const struct input *in, size_t at)
{
	for (size_t i = 1; i < n && w[i].s[0] == '-' && w[i].s[1]; i++) {
		const char *a = w[i].s;

		if (!strcmp(a, "--"))
			break;
		for (size_t k = 1; a[k]; k++) {
			if (strchr("lrdc", a[k]))
				return; /* lists, removes or shows jobs */
			if (a[k] == 'f') {
				set_opaque(p, at, "it runs a script file");
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

/*
 * rm with its recursive and force options in any spelling (-r -f, -fr,
 * -Rf, --recursive --force, --rec --fo) is reported once more as
 * `rm -rf OPERANDS` (or `rm -r OPERANDS`), so one gate holds them all.
 */
static void rm_normalized(struct parser *p, const struct sword *w, size_t n, const struct feed *f)
{
	bool rec = false, force = false, ddash = false, dashop = false;
	size_t i, nopts = 0, k = 1;
	struct sword *v;

	for (i = 1; i < n; i++) {
		const char *a = w[i].s;

		if (!ddash && !strcmp(a, "--")) {
			ddash = true;
			continue;
		}
		if (ddash || a[0] != '-' || !a[1]) {
			dashop |= a[0] == '-';
			continue;
		}
		nopts++;
		if (a[1] == '-') {
			size_t len = strcspn(a + 2, "=");

			rec |= long_is(a + 2, len, "recursive", 1);
			force |= long_is(a + 2, len, "force", 1);
			continue;
		}
		rec |= strpbrk(a + 1, "rR") != NULL;
		force |= strchr(a + 1, 'f') != NULL;
	}
	if (!rec || (nopts == 1 && !strcmp(w[1].s, force ? "-rf" : "-r")))
		return;
	v = roz_calloc(n + 2, sizeof(*v));
	if (!v) {
		shell_nomem(p);
		return;
	}
	v[0].s = (char *)(force ? "-rf" : "-r");
	v[0].info = known_word(v[0].s);
	if (dashop) {
		v[k].s = (char *)"--";
		v[k++].info = known_word("--");
	}
	ddash = false;
	for (i = 1; i < n; i++) {
		const char *a = w[i].s;

		if (!ddash && !strcmp(a, "--")) {
			ddash = true;
			continue;
		}
		if (ddash || a[0] != '-' || !a[1])
			v[k++] = w[i];
	}
	shell_emit(p, "rm", NULL, v, k, f, NONE);
	roz_free(v);
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
		static const char *const vims[] = {"vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff",
						   "rvim", "nvi", NULL};
		static const char *const dbs[] = {"psql", "sqlite3", "sqlite", "mysql", "mariadb", NULL};
		const struct shell_kind *sk;
		const struct wrapper *wr;
		struct unwrapped u;
		const char *name;
		size_t at, k, sub;

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
		if (strchr(w[0].s, '/') && !system_dir(w[0].s, (size_t)(strrchr(w[0].s, '/') - w[0].s)))
			set_opaque(p, at, "it runs a program from a path, which can run anything");
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
		if (!strcmp(name, "rm"))
			rm_normalized(p, w, n, &f);
		task_opaque(p, name, w, n, at);
		sk = find_shell(name);
		if (sk || !strcmp(name, "eval") || !strcmp(name, "trap") || !strcmp(name, "find") ||
		    !strcmp(name, "pwsh") || !strcmp(name, "powershell") || !strcmp(name, "hyperfine") ||
		    !strcmp(name, "nix-shell") || !strcmp(name, "at") || !strcmp(name, "batch"))
			shell_mark_wrapper(p, at);
		if (sk) {
			run_shell(p, sk, w, n, in, at);
			return;
		}
		if (!strcmp(name, "pwsh") || !strcmp(name, "powershell")) {
			run_pwsh(p, w, n, in, at);
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
			run_source(p, w, n, in, at);
			return;
		}
		if (!strcmp(name, "tmux")) {
			if (run_tmux(p, w, n, at))
				shell_mark_wrapper(p, at);
			return;
		}
		if (!strcmp(name, "at") || !strcmp(name, "batch")) {
			run_at(p, w, n, in, at);
			return;
		}
		if (!strcmp(name, "hyperfine")) {
			run_hyperfine(p, w, n);
			return;
		}
		if (!strcmp(name, "nix-shell")) {
			run_nix_shell(p, w, n);
			return;
		}
		if (in_words(name, vims)) {
			run_vim(p, name, w, n, in, at);
			return;
		}
		if (!strcmp(name, "emacs") || !strcmp(name, "emacsclient")) {
			run_emacs(p, w, n, at);
			return;
		}
		if (in_words(name, dbs)) {
			run_db(p, name, w, n, in, at);
			return;
		}
		if (!strcmp(name, "su") || !strcmp(name, "runuser") || !strcmp(name, "gdb") ||
		    !strcmp(name, "bwrap")) {
			k = name[0] == 'g' ? run_gdb(p, w, n, at) : name[0] == 'b' ? bwrap_start(w, n) :
			    run_su(p, w, n, name[0] == 'r');
			if (k < n || name[0] == 's' || name[0] == 'r')
				shell_mark_wrapper(p, at);
			if (k >= n)
				return;
			w += k;
			n -= k;
			hops++;
			continue;
		}
		run_assigning(p, name, w, n);
		sub = 0;
		wr = find_wrapper(name);
		if (!wr)
			sub = find_sub(w, n, match_wrapper, &wr);
		if (!wr)
			return;
		shell_mark_wrapper(p, at);
		unwrap(wr, w + sub, n - sub, &u);
		u.cmd = u.cmd >= n - sub ? n : u.cmd + sub;
		if (u.opaque)
			set_opaque(p, at, u.opaque);
		for (k = sub + 1; wr->assigns && k < u.cmd; k++) {
			if (!strncmp(w[k].s, "BASH_ENV=", 9))
				p->env_files |= ENV_FILE_BASH;
			else if (!strncmp(w[k].s, "ENV=", 4))
				p->env_files |= ENV_FILE_SH;
		}
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
		if (wr->kind == WK_JOIN) {
			run_joined(p, w + u.cmd, n - u.cmd); /* ssh, cross-env-shell: the words are shell text */
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
		next->more = NULL; /* stays with the command that had the redirections */
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
	/* a shell given BASH_ENV or ENV runs the file it names before its script */
	if (roz_shell_assigns(r, "BASH_ENV"))
		p->env_files |= ENV_FILE_BASH;
	if (roz_shell_assigns(r, "ENV"))
		p->env_files |= ENV_FILE_SH;
	for (size_t i = 0; p->env_files && i < r->ncmds; i++)
		if (find_shell(r->cmds[i].words[0]))
			set_opaque(p, i, p->env_files & ENV_FILE_BASH ? "the shell runs the file BASH_ENV names first"
								     : "the shell runs the file ENV names first");
	shell_git_settle(p);
	if (roz_shell_assigns(r, "BASH_ALIASES"))
		shell_flag(p, ROZ_SHELL_DYNAMIC, "the line defines aliases through BASH_ALIASES");
	if (p->arith && p->quoted_subst)
		shell_flag(p, ROZ_SHELL_DYNAMIC,
			   "an arithmetic context can run a `$(...)` or backquote written inside "
			   "quotes, as an array subscript");
}

