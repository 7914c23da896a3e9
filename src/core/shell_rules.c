/*
 * shell_rules.c - roz's rules about what a command runs: shells given -c or
 * a script on stdin, a descriptor or a process substitution, eval, trap,
 * find -exec, source, su, the builtins that assign, what a command runs
 * that the line does not show (opaque), what a pipeline stage writes, and
 * what makes a line dynamic once it is read. shell_run_words is the loop
 * that peels one command after another; the wrappers it peels (sudo, env,
 * timeout, xargs, ssh, uv run, ...) and the programs with small rules of
 * their own (tmux, editors' and database shells' escapes, task runners)
 * are in shell_wrap.c, git's own rules in shell_git.c. Kept apart from the
 * lexer and the grammar because this is the part that changes most: every
 * new way to run a command is added here or in shell_wrap.c.
 */
#include "shell_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- what a command runs ------------------------------------------------ */

const char *shell_base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash && slash[1] ? slash + 1 : s;
}

/* Say what a reported command runs that the line does not show; the first reason stays. */
void shell_set_opaque(struct parser *p, size_t at, const char *why)
{
	if (at != NONE && at < p->out->ncmds && !p->out->cmds[at].opaque)
		p->out->cmds[at].opaque = why;
}

/* Words joined by spaces; echo/printf escapes decoded when asked. NULL if empty. */
char *shell_join_words(struct parser *p, const struct sword *w, size_t n, bool decode)
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

void shell_run_joined(struct parser *p, const struct sword *w, size_t n)
{
	char *text = shell_join_words(p, w, n, false);

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
	text = shell_join_words(p, v, k, true);
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
void shell_stdin(struct parser *p, const struct input *in, size_t at)
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
		shell_set_opaque(p, at, "it runs a script file");
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
		shell_set_opaque(p, at, "it runs a script file");
	}
}

/* Shells, and how each reads its options: values, text to run, long names. */
struct shell_kind {
	char name[7];
	char valopts[5];   /* short options that take a value */
	char textopts[2];  /* short options whose value is a script */
	char longval[118]; /* long options that take the next word */
	char longtext[21]; /* long options whose value is a script */
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

			if (shell_long_find(sk->longtext, name, len)) {
				val = eq ? eq + 1 : i + 1 < n ? w[++i].s : NULL;
				if (val)
					shell_parse_payload(p, val, strlen(val));
				ran = true;
			} else if (!eq && shell_long_find(sk->longval, name, len)) {
				i++;
			} else if (!eq && shell_long_is(name, len, "command", 4)) {
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

bool shell_in_table(const char *s, const char *t, size_t n, size_t w, bool icase)
{
	for (size_t i = 0; i < n; i++, t += w)
		if (icase ? !strcasecmp(s, t) : !strcmp(s, t))
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
	static const char values[][19] = {"-ex", "-ep", "-executionpolicy", "-wd", "-workingdirectory",
					  "-if", "-inputformat", "-of", "-o", "-outputformat",
					  "-config", "-configurationname", "-settingsfile", "-w",
					  "-windowstyle", "-custompipename"};
	size_t i;

	for (i = 1; i < n; i++) {
		const char *a = w[i].s, *o = a + strspn(a, "-/");
		size_t len = strlen(o);

		if ((a[0] != '-' && a[0] != '/') || !len) {
			script_operand(p, &w[i], in, at); /* a first operand is -File's */
			return;
		}
		if (shell_word_in(a, values)) {
			i++;
			continue;
		}
		if (len <= 7 && !strncasecmp(o, "command", len)) {
			if (i + 1 < n && !strcmp(w[i + 1].s, "-")) {
				shell_stdin(p, in, at);
				return;
			}
			shell_run_joined(p, w + i + 1, n - i - 1);
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
	text = shell_join_words(p, w + i, n - i, false);
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
	/* not static: a static one's pointers would be relocated at every start (see WORDS_W) */
	const struct feed found = {false, "{}", ROZ_SHELL_PART_FOUND, "the paths find fills in"};
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

/* Where programs are installed by the system, not by whoever wrote the line. */
static bool system_dir(const char *s, size_t len)
{
	static const char dirs[][22] = {"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin",
					"/usr/lib/git-core", "/usr/libexec/git-core"};

	for (size_t i = 0; i < WORDS_N(dirs); i++)
		if (strlen(dirs[i]) == len && !memcmp(s, dirs[i], len))
			return true;
	return false;
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

			rec |= shell_long_is(a + 2, len, "recursive", 1);
			force |= shell_long_is(a + 2, len, "force", 1);
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
		static const char vims[][8] = {"vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff",
					       "rvim", "nvi"};
		static const char dbs[][8] = {"psql", "sqlite3", "sqlite", "mysql", "mariadb"};
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
		name = shell_base_name(w[0].s);
		at = shell_emit(p, name, NULL, w + 1, n - 1, &f, NONE);
		if (strchr(w[0].s, '/') && !system_dir(w[0].s, (size_t)(strrchr(w[0].s, '/') - w[0].s)))
			shell_set_opaque(p, at, "it runs a program from a path, which can run anything");
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
		shell_task_opaque(p, name, w, n, at);
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
			if (shell_run_tmux(p, w, n, at))
				shell_mark_wrapper(p, at);
			return;
		}
		if (!strcmp(name, "at") || !strcmp(name, "batch")) {
			shell_run_at(p, w, n, in, at);
			return;
		}
		if (!strcmp(name, "hyperfine")) {
			shell_run_hyperfine(p, w, n);
			return;
		}
		if (!strcmp(name, "nix-shell")) {
			shell_run_nix_shell(p, w, n);
			return;
		}
		if (shell_in_words(name, vims)) {
			shell_run_vim(p, name, w, n, in, at);
			return;
		}
		if (!strcmp(name, "emacs") || !strcmp(name, "emacsclient")) {
			shell_run_emacs(p, w, n, at);
			return;
		}
		if (shell_in_words(name, dbs)) {
			shell_run_db(p, name, w, n, in, at);
			return;
		}
		if (!strcmp(name, "su") || !strcmp(name, "runuser") || !strcmp(name, "gdb") ||
		    !strcmp(name, "bwrap")) {
			k = name[0] == 'g' ? shell_run_gdb(p, w, n, at) : name[0] == 'b' ? shell_bwrap_start(w, n) :
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
		wr = shell_find_wrapper(name);
		if (!wr)
			sub = shell_find_sub(w, n, shell_match_wrapper, &wr);
		if (!wr)
			return;
		shell_mark_wrapper(p, at);
		shell_unwrap(wr, w + sub, n - sub, &u);
		u.cmd = u.cmd >= n - sub ? n : u.cmd + sub;
		if (u.opaque)
			shell_set_opaque(p, at, u.opaque);
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
			if (!shell_run_parallel(p, w, n, u.cmd, in, &k))
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
			shell_run_joined(p, w + u.cmd, n - u.cmd); /* watch hands its arguments to sh -c */
			return;
		}
		if (wr->kind == WK_JOIN) {
			shell_run_joined(p, w + u.cmd, n - u.cmd); /* ssh, cross-env-shell: the words are shell text */
			return;
		}
		if (wr->kind == WK_ENTR && u.shell_mode) {
			shell_parse_payload(p, w[u.cmd].s, strlen(w[u.cmd].s));
			return;
		}
		if (wr->kind == WK_SG) {
			k = u.cmd < n && !strcmp(w[u.cmd].s, "-c") ? u.cmd + 1 : u.cmd;
			shell_run_joined(p, w + k, n - k); /* sg hands the rest to sh -c */
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
	name = shell_base_name(w[0].s);
	if (!strcmp(name, "echo") || !strcmp(name, "printf")) {
		if (name[0] == 'e')
			while (i < n && echo_option(w[i].s))
				i++;
		next->kind = IN_PIPE_TEXT;
		next->text = shell_join_words(p, w + i, n - i, true);
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
			shell_set_opaque(p, i, p->env_files & ENV_FILE_BASH ? "the shell runs the file BASH_ENV names first"
									   : "the shell runs the file ENV names first");
	shell_git_settle(p);
	if (roz_shell_assigns(r, "BASH_ALIASES"))
		shell_flag(p, ROZ_SHELL_DYNAMIC, "the line defines aliases through BASH_ALIASES");
	if (p->arith && p->quoted_subst)
		shell_flag(p, ROZ_SHELL_DYNAMIC,
			   "an arithmetic context can run a `$(...)` or backquote written inside "
			   "quotes, as an array subscript");
}
