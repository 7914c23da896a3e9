/*
 * effect.c - what a tool call changes: the kind of each tool, and for Bash
 * which commands of a line are read-only, which write files the line names
 * (and which files), and which change things the line does not show.
 *
 * The rules are listed in roz/effect.h. Each command is judged on its own,
 * the way the tool itself reads its arguments; a command not on a list is
 * opaque, so a command roz has never heard of needs an intent rather than
 * passing as harmless.
 */
#include "roz/effect.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

/* ---- tools ------------------------------------------------------------- */

roz_tool_kind roz_effect_tool_kind(const char *tool_name)
{
	if (!tool_name)
		return ROZ_TOOL_READS;
	if (!strcmp(tool_name, "Bash"))
		return ROZ_TOOL_BASH;
	return roz_effect_path_field(tool_name) ? ROZ_TOOL_WRITES_FILE : ROZ_TOOL_READS;
}

const char *roz_effect_path_field(const char *tool_name)
{
	if (!tool_name)
		return NULL;
	if (!strcmp(tool_name, "Write") || !strcmp(tool_name, "Edit") ||
	    !strcmp(tool_name, "MultiEdit"))
		return "file_path";
	if (!strcmp(tool_name, "NotebookEdit"))
		return "notebook_path";
	return NULL;
}

void roz_effect_dispose(roz_effect *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->ntargets; i++)
		roz_free(e->targets[i].path);
	roz_free(e->targets);
	roz_free(e->why);
	roz_free(e->select_id);
	memset(e, 0, sizeof *e);
}

/* ---- the judgement in progress ------------------------------------------ */

struct ctx {
	roz_effect *e;
	size_t cap;
	bool cd;     /* the line changes directory: relative targets are unknown */
	bool nomem;
	bool writes; /* some command writes, even with no target to show */
};

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* Record the first reason the line is not read-only. */
static void because(struct ctx *x, const char *fmt, ...) ROZ_PRINTF(2, 3);
static void because(struct ctx *x, const char *fmt, ...)
{
	if (x->e->why || x->nomem)
		return;
	roz_buf b = ROZ_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	roz_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	x->e->why = roz_buf_detach(&b, NULL);
	if (!x->e->why)
		x->nomem = true;
}

#define OPAQUE(x, ...) ((x)->e->opaque = true, because((x), __VA_ARGS__))

/* Files that are not files: writing them changes nothing on disk. */
static bool is_device(const char *p, size_t n)
{
	static const char *const devs[] = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", NULL};

	for (size_t i = 0; devs[i]; i++)
		if (strlen(devs[i]) == n && !memcmp(devs[i], p, n))
			return true;
	if (n > 8 && !memcmp(p, "/dev/fd/", 8)) {
		for (size_t i = 8; i < n; i++)
			if (!isdigit((unsigned char)p[i]))
				return false;
		return true;
	}
	return false;
}

static bool is_relative(const char *p, size_t n)
{
	return !(n && (p[0] == '/' || p[0] == '~')) && !(n >= 5 && !memcmp(p, "$HOME", 5)) &&
	       !(n >= 7 && !memcmp(p, "${HOME}", 7));
}

/*
 * A file the line writes: `n` bytes of `p`, or an unknown file when `known`
 * is false (p is then ignored). Repeats are kept once.
 */
static void target(struct ctx *x, const char *p, size_t n, bool known, const char *how)
{
	roz_effect *e = x->e;

	if (known && is_device(p, n))
		return;
	x->writes = true;
	if (!known) {
		e->unknown_target = true;
		because(x, "writes a file named only when the line runs (%s)", how);
	} else if (x->cd && is_relative(p, n)) {
		e->unknown_target = true;
		because(x, "writes %.*s (%s) relative to a directory the line changes to", (int)n, p, how);
	} else {
		because(x, "writes %.*s (%s)", (int)n, p, how);
	}
	for (size_t i = 0; i < e->ntargets; i++) {
		const char *q = e->targets[i].path;

		if (e->targets[i].how == how &&
		    (known ? q && strlen(q) == n && !memcmp(q, p, n) : !q))
			return;
	}
	if (e->ntargets == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 4;
		roz_effect_target *t = roz_realloc(e->targets, cap * sizeof *t);

		if (!t) {
			x->nomem = true;
			return;
		}
		e->targets = t;
		x->cap = cap;
	}
	char *copy = NULL;

	if (known && !(copy = roz_strndup(p, n))) {
		x->nomem = true;
		return;
	}
	e->targets[e->ntargets].path = copy;
	e->targets[e->ntargets].how = how;
	e->ntargets++;
}

/* ---- words and options --------------------------------------------------- */

/* Word i is text known before the line runs, and so is everything before it. */
static bool word_static(const roz_shell_cmd *c, size_t i)
{
	size_t off = 0;

	for (size_t j = 0; j < i; j++)
		off += strlen(c->words[j]) + 1;
	size_t len = strlen(c->words[i]);
	return c->info[i].known == len && off + len <= c->known;
}

/* Every argument is known before the line runs, and none is appended later. */
static bool args_static(const roz_shell_cmd *c)
{
	if (c->more_args)
		return false;
	for (size_t i = 0; i < c->nwords; i++)
		if (!word_static(c, i))
			return false;
	return true;
}

/* Word i names a file roz can place: only a leading $HOME is computed. */
static bool word_placeable(const roz_shell_cmd *c, size_t i)
{
	return c->info[i].known_home == strlen(c->words[i]);
}

enum { ARG_SHORT, ARG_LONG, ARG_OPERAND, ARG_END };

struct arg {
	int kind;
	char ch;           /* ARG_SHORT */
	const char *name;  /* ARG_LONG: after the dashes, not NUL-terminated at '=' */
	size_t nlen;
	const char *val;   /* the option's value, or NULL */
	size_t word;       /* index of the word holding the option or operand */
	size_t val_word;   /* index of the word holding the value */
};

/*
 * Reads a command's arguments as getopt_long does with permutation:
 * options anywhere until `--`, combined short options, values attached or
 * in the next word, long options abbreviated.
 */
struct args {
	const roz_shell_cmd *c;
	size_t i;
	const char *sval;              /* short options that take a value */
	const char *sopt;              /* short options whose value is only attached (sed -i.bak) */
	const char *const *lval;       /* long options that take a value */
	const char *cluster;
	size_t cword;
	bool ended;
};

static void args_init(struct args *a, const roz_shell_cmd *c, size_t start, const char *sval,
		      const char *sopt, const char *const *lval)
{
	memset(a, 0, sizeof *a);
	a->c = c;
	a->i = start;
	a->sval = sval ? sval : "";
	a->sopt = sopt ? sopt : "";
	a->lval = lval;
}

/* The long option of `a` is `full`, or an abbreviation of it at least 3 letters long. */
static bool long_is(const struct arg *a, const char *full)
{
	size_t n = strlen(full);

	return a->kind == ARG_LONG && a->nlen <= n && (a->nlen == n || a->nlen >= 3) &&
	       !strncmp(a->name, full, a->nlen);
}

static bool arg_next(struct args *a, struct arg *out)
{
	const roz_shell_cmd *c = a->c;

	memset(out, 0, sizeof *out);
	if (a->cluster && *a->cluster) {
		char ch = *a->cluster++;

		out->kind = ARG_SHORT;
		out->ch = ch;
		out->word = a->cword;
		if (strchr(a->sopt, ch)) {
			out->val = a->cluster;
			out->val_word = a->cword;
			a->cluster = NULL;
		} else if (strchr(a->sval, ch)) {
			if (*a->cluster) {
				out->val = a->cluster;
				out->val_word = a->cword;
			} else if (a->i < c->nwords) {
				out->val_word = a->i;
				out->val = c->words[a->i++];
			}
			a->cluster = NULL;
		}
		return true;
	}
	a->cluster = NULL;
	if (a->i >= c->nwords)
		return false;
	size_t w = a->i++;
	const char *s = c->words[w];

	out->word = w;
	if (a->ended || s[0] != '-' || !s[1] || c->info[w].known == 0) {
		out->kind = ARG_OPERAND;
		return true;
	}
	if (!strcmp(s, "--")) {
		a->ended = true;
		out->kind = ARG_END;
		return true;
	}
	if (s[1] == '-') {
		const char *eq = strchr(s + 2, '=');

		out->kind = ARG_LONG;
		out->name = s + 2;
		out->nlen = eq ? (size_t)(eq - (s + 2)) : strlen(s + 2);
		if (eq) {
			out->val = eq + 1;
			out->val_word = w;
		} else if (a->lval && a->i < c->nwords) {
			for (size_t k = 0; a->lval[k]; k++)
				if (long_is(out, a->lval[k])) {
					out->val_word = a->i;
					out->val = c->words[a->i++];
					break;
				}
		}
		return true;
	}
	a->cluster = s + 1;
	a->cword = w;
	return arg_next(a, out);
}

/* A target named by a whole word. */
static void target_word(struct ctx *x, const roz_shell_cmd *c, size_t w, const char *how)
{
	const char *s = c->words[w];

	target(x, s, strlen(s), word_placeable(c, w), how);
}

/* A target named by an option's value (`-t DIR`, `--output=F`, `of=F`). */
static void target_value(struct ctx *x, const roz_shell_cmd *c, const struct arg *a, const char *how)
{
	if (!a->val) {
		target(x, NULL, 0, false, how);
		return;
	}
	target(x, a->val, strlen(a->val), word_placeable(c, a->val_word), how);
}

/* xargs and parallel append arguments: files roz cannot name. */
static void appended(struct ctx *x, const roz_shell_cmd *c, const char *how)
{
	if (c->more_args)
		target(x, NULL, 0, false, how);
}

/* ---- commands that write their operands ---------------------------------- */

static void judge_operands(struct ctx *x, const roz_shell_cmd *c, const char *how,
			   const char *sval, const char *const *lval)
{
	struct args a;
	struct arg g;

	args_init(&a, c, 1, sval, NULL, lval);
	while (arg_next(&a, &g))
		if (g.kind == ARG_OPERAND)
			target_word(x, c, g.word, how);
	appended(x, c, how);
}

/* rmdir -p removes each parent named in the operand as well. */
static void judge_rmdir(struct ctx *x, const roz_shell_cmd *c)
{
	struct args a;
	struct arg g;
	bool parents = false;

	args_init(&a, c, 1, NULL, NULL, NULL);
	while (arg_next(&a, &g))
		if ((g.kind == ARG_SHORT && g.ch == 'p') || long_is(&g, "parents"))
			parents = true;
	args_init(&a, c, 1, NULL, NULL, NULL);
	while (arg_next(&a, &g)) {
		if (g.kind != ARG_OPERAND)
			continue;
		const char *s = c->words[g.word];
		size_t n = strlen(s);
		bool known = word_placeable(c, g.word);

		target(x, s, n, known, "rmdir");
		while (parents && known && n > 1) {
			while (n > 1 && s[n - 1] == '/')
				n--;
			while (n > 0 && s[n - 1] != '/')
				n--;
			while (n > 1 && s[n - 1] == '/')
				n--;
			if (n == 0 || (n == 1 && s[0] == '/'))
				break;
			target(x, s, n, true, "rmdir");
		}
	}
	appended(x, c, "rmdir");
}

/* cp, mv, install, ln: the destination; mv removes its sources too. */
static void judge_copy(struct ctx *x, const roz_shell_cmd *c, const char *how)
{
	static const char *const lval[] = {"target-directory", "suffix", "mode", "owner", "group",
					   "strip-program", NULL};
	bool install = !strcmp(how, "install"), mv = !strcmp(how, "mv");
	struct args a;
	struct arg g, dir = {0};
	size_t *ops = roz_calloc(c->nwords, sizeof *ops), nops = 0;
	bool has_dir = false, dirs_only = false;

	if (!ops) {
		x->nomem = true;
		return;
	}
	args_init(&a, c, 1, install ? "tSmog" : "tS", NULL, lval);
	while (arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND)
			ops[nops++] = g.word;
		else if ((g.kind == ARG_SHORT && g.ch == 't') || long_is(&g, "target-directory")) {
			dir = g;
			has_dir = true;
		} else if (install && ((g.kind == ARG_SHORT && g.ch == 'd') || long_is(&g, "directory")))
			dirs_only = true;
	}
	if (dirs_only) {
		for (size_t i = 0; i < nops; i++)
			target_word(x, c, ops[i], how);
	} else if (has_dir) {
		target_value(x, c, &dir, how);
		for (size_t i = 0; mv && i < nops; i++)
			target_word(x, c, ops[i], how);
	} else if (nops == 1 && !strcmp(how, "ln") && !c->more_args) {
		/* ln with one operand makes a link of the same name here */
		const char *s = c->words[ops[0]], *base = strrchr(s, '/');

		if (!word_placeable(c, ops[0]))
			target(x, NULL, 0, false, how);
		else if (base && base[1])
			target(x, base + 1, strlen(base + 1), true, how);
		else if (!base)
			target(x, s, strlen(s), true, how);
		else
			target(x, NULL, 0, false, how);
	} else if (nops > 0) {
		if (c->more_args)
			target(x, NULL, 0, false, how);
		else
			target_word(x, c, ops[nops - 1], how);
		for (size_t i = 0; mv && i + 1 < nops; i++)
			target_word(x, c, ops[i], how);
	}
	appended(x, c, how);
	roz_free(ops);
}

/* chmod's mode can look like an option (`chmod -w f`); chown/chgrp name an owner first. */
static void judge_chmod(struct ctx *x, const roz_shell_cmd *c, const char *how)
{
	static const char *const lval[] = {"reference", "from", NULL};
	bool chmod = !strcmp(how, "chmod"), first = true, ended = false;

	for (size_t i = 1; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (!ended && !strcmp(s, "--")) {
			ended = true;
			continue;
		}
		if (!ended && s[0] == '-' && s[1] == '-' && c->info[i].known) {
			if (!strncmp(s + 2, "reference", 9))
				first = false;
			if (!strchr(s, '=') && in_list(lval, s + 2))
				i++;
			continue;
		}
		if (!ended && s[0] == '-' && s[1] && c->info[i].known) {
			const char *flags = chmod ? "cfvR" : "cfvRHLPh";

			if (strspn(s + 1, flags) == strlen(s + 1))
				continue;
			if (!chmod)
				continue;
		}
		if (first) {
			first = false;
			continue;
		}
		target_word(x, c, i, how);
	}
	appended(x, c, how);
}

static void judge_dd(struct ctx *x, const roz_shell_cmd *c)
{
	for (size_t i = 1; i < c->nwords; i++)
		if (!strncmp(c->words[i], "of=", 3)) {
			struct arg g = {.val = c->words[i] + 3, .val_word = i};

			target_value(x, c, &g, "dd");
		}
	if (c->more_args)
		OPAQUE(x, "dd may write files");
}

/* ---- readers whose options can write ------------------------------------ */

/* find: -delete under its starting points, -fprint* and -fls into a file. */
static void judge_find(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const valued[] = {
		"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex",
		"-iregex", "-lname", "-ilname", "-newer", "-anewer", "-cnewer", "-type", "-xtype",
		"-user", "-group", "-uid", "-gid", "-perm", "-size", "-mtime", "-mmin", "-atime",
		"-amin", "-ctime", "-cmin", "-links", "-inum", "-samefile", "-maxdepth", "-mindepth",
		"-used", "-context", "-printf", "-regextype", "-fstype", "-files0-from", NULL};
	size_t i = 1, start, nstart;

	if (!args_static(c)) {
		OPAQUE(x, "find with arguments computed when the line runs may delete or write files");
		return;
	}
	while (i < c->nwords && (!strcmp(c->words[i], "-H") || !strcmp(c->words[i], "-L") ||
				 !strcmp(c->words[i], "-P") || !strncmp(c->words[i], "-D", 2) ||
				 !strncmp(c->words[i], "-O", 2)))
		i++;
	start = i;
	while (i < c->nwords && c->words[i][0] != '-' && strcmp(c->words[i], "(") &&
	       strcmp(c->words[i], "!"))
		i++;
	nstart = i - start;
	for (; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (!strcmp(s, "-exec") || !strcmp(s, "-execdir") || !strcmp(s, "-ok") ||
		    !strcmp(s, "-okdir")) {
			/* the command it runs is judged as a command of its own */
			while (i + 1 < c->nwords && strcmp(c->words[i + 1], ";") &&
			       strcmp(c->words[i + 1], "+"))
				i++;
			i++;
		} else if (!strcmp(s, "-delete")) {
			if (!nstart)
				target(x, ".", 1, true, "find -delete");
			for (size_t k = 0; k < nstart; k++)
				target_word(x, c, start + k, "find -delete");
		} else if (!strcmp(s, "-fprint") || !strcmp(s, "-fprint0") || !strcmp(s, "-fls") ||
			   !strcmp(s, "-fprintf")) {
			if (i + 1 < c->nwords)
				target_word(x, c, i + 1, "find -fprint");
			i += strcmp(s, "-fprintf") ? 1 : 2;
		} else if (!strncmp(s, "-newer", 6) || in_list(valued, s)) {
			i++;
		}
	}
}

static void judge_sort(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"output", "key", "field-separator", "buffer-size",
					   "temporary-directory", "compress-program", "files0-from",
					   "batch-size", "parallel", "random-source", NULL};
	struct args a;
	struct arg g;

	args_init(&a, c, 1, "kStTo", NULL, lval);
	while (arg_next(&a, &g)) {
		if ((g.kind == ARG_SHORT && g.ch == 'o') || long_is(&g, "output"))
			target_value(x, c, &g, "sort -o");
		else if (long_is(&g, "compress-program"))
			OPAQUE(x, "sort --compress-program runs a program");
	}
}

static void judge_uniq(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"skip-fields", "skip-chars", "check-chars", NULL};
	struct args a;
	struct arg g;
	size_t n = 0;

	args_init(&a, c, 1, "fsw", NULL, lval);
	while (arg_next(&a, &g))
		if (g.kind == ARG_OPERAND && ++n == 2)
			target_word(x, c, g.word, "uniq");
}

static void judge_xxd(struct ctx *x, const roz_shell_cmd *c)
{
	struct args a;
	struct arg g;
	size_t n = 0;

	args_init(&a, c, 1, "cglosn", NULL, NULL);
	while (arg_next(&a, &g))
		if (g.kind == ARG_OPERAND && ++n == 2)
			target_word(x, c, g.word, "xxd");
}

/*
 * An option names a file the command writes to (tree -o, less -o, time -o):
 * one of the short options `outs` or the long options `longs`.
 */
static void judge_output_opt(struct ctx *x, const roz_shell_cmd *c, const char *sval,
			     const char *outs, const char *const *longs, const char *how,
			     bool stop_at_operand)
{
	struct args a;
	struct arg g;

	args_init(&a, c, 1, sval, NULL, longs);
	while (arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND && stop_at_operand)
			break;
		bool hit = g.kind == ARG_SHORT && strchr(outs, g.ch);

		for (size_t k = 0; longs && longs[k] && !hit; k++)
			hit = long_is(&g, longs[k]);
		if (hit)
			target_value(x, c, &g, how);
	}
}

static void judge_yq(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"indent", "output-format", "input-format", "expression",
					   "from-file", NULL};
	struct args a;
	struct arg g;
	size_t *ops = roz_calloc(c->nwords, sizeof *ops), nops = 0;
	bool inplace = false, expr_given = false;

	if (!ops) {
		x->nomem = true;
		return;
	}
	args_init(&a, c, 1, "Iop", NULL, lval);
	while (arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND)
			ops[nops++] = g.word;
		else if ((g.kind == ARG_SHORT && g.ch == 'i') || long_is(&g, "inplace") ||
			 long_is(&g, "in-place"))
			inplace = true;
		else if (long_is(&g, "expression") || long_is(&g, "from-file"))
			expr_given = true;
	}
	for (size_t i = (nops > 1 && !expr_given) ? 1 : 0; inplace && i < nops; i++)
		target_word(x, c, ops[i], "yq -i");
	roz_free(ops);
}

/* Skip a sed regex or replacement ending at an unescaped `d`; NULL when it never ends. */
static const char *sed_skip(const char *p, char d)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == d)
			return p + 1;
	}
	return NULL;
}

/* The file name a sed `w` command or flag writes: the rest of the line. */
static const char *sed_file(struct ctx *x, const char *p)
{
	const char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strcspn(p, "\n");
	target(x, p, (size_t)(end - p), true, "sed w");
	return end;
}

static const char *sed_eol(const char *p)
{
	while (*p && *p != '\n') {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	return p;
}

/*
 * Read a sed script for what it does beyond printing: a `w`/`W` command or
 * `s///w` flag writes a file, `e` runs commands. 0 when it only prints, 1
 * when it runs commands, -1 when roz cannot read it.
 */
static int sed_scan(struct ctx *x, const char *p)
{
	for (;;) {
		while (*p && (isspace((unsigned char)*p) || *p == ';'))
			p++;
		if (!*p)
			return 0;
		for (int k = 0; k < 2; k++) {
			if (isdigit((unsigned char)*p)) {
				while (isdigit((unsigned char)*p) || *p == '~')
					p++;
			} else if (*p == '$') {
				p++;
			} else if (*p == '/' || *p == '\\') {
				char d = '/';

				if (*p == '\\' && !(d = *++p))
					return -1;
				if (!(p = sed_skip(p + 1, d)))
					return -1;
				while (*p == 'I' || *p == 'M')
					p++;
			} else if (k == 1 && (*p == '+' || *p == '~')) {
				p++;
				while (isdigit((unsigned char)*p))
					p++;
			} else {
				break;
			}
			while (*p == ' ' || *p == '\t')
				p++;
			if (k == 1 || *p != ',')
				break;
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
		}
		while (*p == ' ' || *p == '\t' || *p == '!')
			p++;
		char cmd = *p;

		if (!cmd)
			return 0;
		p++;
		switch (cmd) {
		case '{': case '}': case '=': case 'd': case 'D': case 'g': case 'G': case 'h':
		case 'H': case 'n': case 'N': case 'p': case 'P': case 'x': case 'z': case 'F':
		case 'l': case 'L': case 'q': case 'Q':
			while (isdigit((unsigned char)*p) || *p == ' ' || *p == '\t')
				p++;
			break;
		case 'a': case 'i': case 'c': case 'r': case 'R':
			p = sed_eol(p);
			break;
		case ':': case 'b': case 't': case 'T': case 'v':
			p += strcspn(p, ";\n");
			break;
		case 'w': case 'W':
			p = sed_file(x, p);
			break;
		case 'e':
			return 1;
		case 's': case 'y': {
			char d = *p;

			if (!d || d == '\n' || d == '\\')
				return -1;
			if (!(p = sed_skip(p + 1, d)) || !(p = sed_skip(p, d)))
				return -1;
			while (cmd == 's' && *p && *p != ';' && *p != '\n' && *p != '}') {
				if (*p == 'e')
					return 1;
				if (*p == 'w') {
					p = sed_file(x, p + 1);
					break;
				}
				p++;
			}
			break;
		}
		default:
			return -1;
		}
	}
}

static void judge_sed(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"expression", "file", "line-length", NULL};
	struct args a;
	struct arg g;
	bool inplace = false, script_given = false, first = true;
	int worst = 0;

	args_init(&a, c, 1, "efl", "i", lval);
	while (arg_next(&a, &g)) {
		if ((g.kind == ARG_SHORT && g.ch == 'i') || long_is(&g, "in-place"))
			inplace = true;
		else if ((g.kind == ARG_SHORT && g.ch == 'e') || long_is(&g, "expression")) {
			script_given = true;
			int r = g.val ? sed_scan(x, g.val) : -1;
			worst = r ? r : worst;
		} else if ((g.kind == ARG_SHORT && g.ch == 'f') || long_is(&g, "file")) {
			script_given = true;
			worst = -1;
		}
	}
	args_init(&a, c, 1, "efl", "i", lval);
	while (arg_next(&a, &g)) {
		if (g.kind != ARG_OPERAND)
			continue;
		if (first && !script_given) {
			int r = sed_scan(x, c->words[g.word]);
			worst = r ? r : worst;
		} else if (inplace) {
			target_word(x, c, g.word, "sed -i");
		}
		first = false;
	}
	if (worst == 1)
		OPAQUE(x, "sed's e command runs other commands");
	else if (worst < 0)
		OPAQUE(x, "sed with a script roz cannot read may write files");
}

static void judge_awk(struct ctx *x, const roz_shell_cmd *c)
{
	struct args a;
	struct arg g;

	args_init(&a, c, 1, "Fv", NULL, NULL);
	while (arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND) {
			const char *prog = c->words[g.word];

			if (strpbrk(prog, ">|") || strstr(prog, "system"))
				OPAQUE(x, "%s's program may write files or run commands", c->words[0]);
			return;
		}
		if (g.kind == ARG_END)
			continue;
		if (g.kind != ARG_SHORT || (g.ch != 'F' && g.ch != 'v')) {
			OPAQUE(x, "%s with options other than -F and -v may write files", c->words[0]);
			return;
		}
	}
}

/* ---- git ---------------------------------------------------------------- */

static bool git_flag(const struct arg *g, char ch, const char *full)
{
	return (ch && g->kind == ARG_SHORT && g->ch == ch) || (full && long_is(g, full));
}

/* git checkout: `-- paths`, `.`, or `<tree-ish> paths` restore files; one operand switches branches. */
static void judge_git_checkout(struct ctx *x, const roz_shell_cmd *c, size_t at)
{
	static const char *const lval[] = {"orphan", "conflict", NULL};
	struct args a;
	struct arg g;
	size_t before = 0, first = 0;
	bool ended = false, branch = false;

	args_init(&a, c, at, "bB", NULL, lval);
	while (arg_next(&a, &g)) {
		if (g.kind == ARG_END)
			ended = true;
		else if (git_flag(&g, 'b', "orphan") || git_flag(&g, 'B', "detach"))
			branch = true;
		else if (long_is(&g, "pathspec-from-file"))
			target(x, NULL, 0, false, "git checkout");
		else if (g.kind == ARG_OPERAND && ended)
			target_word(x, c, g.word, "git checkout");
		else if (g.kind == ARG_OPERAND) {
			if (!word_static(c, g.word) || !strcmp(c->words[g.word], "."))
				target_word(x, c, g.word, "git checkout");
			else if (before++ > 0)
				target_word(x, c, g.word, "git checkout");
			else
				first = g.word;
		}
	}
	if (branch || (!ended && before > 0))
		OPAQUE(x, "git checkout%s%s may switch branches and rewrite the working tree",
		       first ? " " : "", first ? c->words[first] : "");
	appended(x, c, "git checkout");
}

static void judge_git_restore(struct ctx *x, const roz_shell_cmd *c, size_t at)
{
	static const char *const lval[] = {"source", "pathspec-from-file", NULL};
	struct args a;
	struct arg g;
	bool staged = false, worktree = false;

	args_init(&a, c, at, "s", NULL, lval);
	while (arg_next(&a, &g)) {
		staged = staged || git_flag(&g, 'S', "staged");
		worktree = worktree || git_flag(&g, 'W', "worktree");
	}
	if (staged && !worktree) {
		OPAQUE(x, "git restore --staged changes the index");
		return;
	}
	args_init(&a, c, at, "s", NULL, lval);
	while (arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND)
			target_word(x, c, g.word, "git restore");
		else if (long_is(&g, "pathspec-from-file"))
			target(x, NULL, 0, false, "git restore");
	}
	appended(x, c, "git restore");
}

static void judge_git_rm_mv(struct ctx *x, const roz_shell_cmd *c, size_t at, const char *how)
{
	static const char *const lval[] = {"pathspec-from-file", NULL};
	struct args a;
	struct arg g;

	args_init(&a, c, at, NULL, NULL, lval);
	while (arg_next(&a, &g))
		if (long_is(&g, "cached")) {
			OPAQUE(x, "git rm --cached changes the index");
			return;
		}
	args_init(&a, c, at, NULL, NULL, lval);
	while (arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND)
			target_word(x, c, g.word, how);
		else if (long_is(&g, "pathspec-from-file"))
			target(x, NULL, 0, false, how);
	}
	appended(x, c, how);
}

static void judge_git_clean(struct ctx *x, const roz_shell_cmd *c, size_t at)
{
	static const char *const lval[] = {"exclude", NULL};
	struct args a;
	struct arg g;
	bool paths = false;

	args_init(&a, c, at, "e", NULL, lval);
	while (arg_next(&a, &g))
		if (git_flag(&g, 'n', "dry-run"))
			return;
	args_init(&a, c, at, "e", NULL, lval);
	while (arg_next(&a, &g))
		if (g.kind == ARG_OPERAND) {
			target_word(x, c, g.word, "git clean");
			paths = true;
		}
	if (!paths)
		target(x, ".", 1, true, "git clean");
}

/* Every option is one of `allowed` (short letters, long names); counts operands. */
static bool git_only(const roz_shell_cmd *c, size_t at, const char *shorts,
		     const char *const *longs, const char *const *lval, size_t *nops, bool *listing,
		     const char *list_shorts)
{
	struct args a;
	struct arg g;

	*nops = 0;
	args_init(&a, c, at, NULL, "n", lval);
	while (arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND) {
			(*nops)++;
		} else if (g.kind == ARG_SHORT) {
			if (!strchr(shorts, g.ch))
				return false;
			if (listing && strchr(list_shorts, g.ch))
				*listing = true;
		} else if (g.kind == ARG_LONG) {
			bool ok = false;

			for (size_t k = 0; longs[k] && !ok; k++)
				ok = long_is(&g, longs[k]);
			if (!ok)
				return false;
			if (listing && !long_is(&g, "color") && !long_is(&g, "no-color") &&
			    !long_is(&g, "verbose") && !long_is(&g, "column") &&
			    !long_is(&g, "no-column") && !long_is(&g, "ignore-case"))
				*listing = true;
		}
	}
	return true;
}

static bool git_reads(const roz_shell_cmd *c, const char *sub, size_t at)
{
	static const char *const branch_longs[] = {
		"list", "all", "remotes", "verbose", "contains", "no-contains", "merged",
		"no-merged", "points-at", "sort", "format", "color", "no-color", "column",
		"no-column", "show-current", "abbrev", "no-abbrev", "ignore-case", "omit-empty", NULL};
	static const char *const branch_lval[] = {"contains", "no-contains", "points-at", "sort",
						  "format", NULL};
	size_t nops = 0, n = c->nwords - at;
	const char *first = n ? c->words[at] : "";
	bool listing = false;

	if (!strcmp(sub, "branch"))
		return git_only(c, at, "arvl", branch_longs, branch_lval, &nops, &listing, "arl") &&
		       (nops == 0 || listing);
	if (!strcmp(sub, "tag"))
		return git_only(c, at, "lni", branch_longs, branch_lval, &nops, &listing, "l") &&
		       (nops == 0 || listing);
	if (!strcmp(sub, "stash"))
		return !strcmp(first, "list") || !strcmp(first, "show");
	if (!strcmp(sub, "reflog"))
		return !n || first[0] == '-' || !strcmp(first, "show") || !strcmp(first, "exists");
	if (!strcmp(sub, "remote")) {
		static const char *const longs[] = {"verbose", NULL};

		return !strcmp(first, "show") || !strcmp(first, "get-url") ||
		       (git_only(c, at, "v", longs, NULL, &nops, NULL, "") && nops == 0);
	}
	if (!strcmp(sub, "config")) {
		static const char *const getters[] = {"get", "get-all", "get-regexp", "get-urlmatch",
						      "list", "get-color", "get-colorbool", NULL};
		static const char *const quiet[] = {"global", "local", "system", "worktree", "file",
						    "show-origin", "show-scope", "null", "name-only",
						    "type", "includes", "no-includes", "bool", "int",
						    "path", "default", NULL};
		static const char *const lval[] = {"file", "type", "default", "blob", NULL};

		if (!strcmp(first, "list") || !strcmp(first, "get"))
			return true;
		for (size_t i = at; i < c->nwords; i++) {
			const char *s = c->words[i];

			if (!strcmp(s, "-l"))
				return true;
			if (!strncmp(s, "--", 2)) {
				for (size_t k = 0; getters[k]; k++) {
					size_t len = strlen(getters[k]);

					if (!strncmp(s + 2, getters[k], len) && (!s[2 + len] || s[2 + len] == '='))
						return true;
				}
			}
		}
		/* `git config key` reads one value; `git config key value` sets it */
		return git_only(c, at, "fz", quiet, lval, &nops, NULL, "") && nops == 1;
	}
	static const char *const readers[] = {
		"status", "log", "diff", "show", "blame", "annotate", "grep", "rev-parse",
		"ls-files", "ls-tree", "cat-file", "describe", "shortlog", "merge-base", "rev-list",
		"name-rev", "for-each-ref", "show-ref", "count-objects", "check-ignore",
		"check-attr", "ls-remote", "whatchanged", "diff-tree", "diff-files", "diff-index",
		"cherry", "var", "version", "help", "show-branch", "range-diff", "verify-commit",
		"verify-tag", NULL};
	return in_list(readers, sub);
}

static void judge_git(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const valued[] = {"-C", "-c", "--git-dir", "--work-tree", "--namespace",
					     "--super-prefix", "--config-env", "--attr-source",
					     "--list-cmds", NULL};
	size_t i = 1;

	while (i < c->nwords && c->words[i][0] == '-') {
		const char *s = c->words[i];

		if (!strcmp(s, "-C") || !strncmp(s, "--work-tree", 11))
			x->cd = true;
		i += (in_list(valued, s) ? 2 : 1);
	}
	if (i >= c->nwords)
		return;
	if (!word_static(c, i)) {
		OPAQUE(x, "git with a subcommand known only when the line runs may change files");
		return;
	}
	const char *sub = c->words[i++];

	if (!strcmp(sub, "checkout"))
		judge_git_checkout(x, c, i);
	else if (!strcmp(sub, "restore"))
		judge_git_restore(x, c, i);
	else if (!strcmp(sub, "rm") || !strcmp(sub, "mv"))
		judge_git_rm_mv(x, c, i, !strcmp(sub, "rm") ? "git rm" : "git mv");
	else if (!strcmp(sub, "clean"))
		judge_git_clean(x, c, i);
	else if (!git_reads(c, sub, i))
		OPAQUE(x, "git %s may change files", sub);
	else if (!args_static(c))
		OPAQUE(x, "git %s with arguments computed when the line runs may write files", sub);
	else {
		for (size_t k = i; k < c->nwords; k++) {
			const char *s = c->words[k];

			if (!strncmp(s, "--output=", 9)) {
				struct arg g = {.val = s + 9, .val_word = k};

				target_value(x, c, &g, "git --output");
			} else if (!strcmp(s, "--output") && k + 1 < c->nwords) {
				target_word(x, c, ++k, "git --output");
			} else if (!strcmp(sub, "grep") &&
				   (!strncmp(s, "-O", 2) || !strncmp(s, "--open-files-in-pager", 21))) {
				OPAQUE(x, "git grep -O runs a pager program");
			}
		}
	}
}

/* ---- one command ----------------------------------------------------------- */

static const char *const plain_readers[] = {
	"ls", "cat", "head", "tail", "more", "grep", "egrep", "fgrep", "ag", "wc", "cut", "tr",
	"diff", "cmp", "comm", "stat", "du", "df", "pwd", "echo", "printf", "true", "false",
	"test", "[", "which", "type", "whoami", "id", "uname", "basename", "dirname", "realpath",
	"readlink", "jq", "od", "hexdump", "md5sum", "sha1sum", "sha224sum", "sha256sum",
	"sha384sum", "sha512sum", "b2sum", "cksum", "nl", "rev", "seq", "sleep", "printenv",
	"cd", "pushd", "popd", ":", "dirs", "tty", "nproc", "groups", "locale", "column",
	/* builtins that change only the shell's own state */
	"export", "unset", "set", "shopt", "local", "declare", "typeset", "readonly", "read",
	"exit", "return", "shift", "wait", "break", "continue", "alias", "unalias", "hash",
	NULL};

/* Readers with options that write or run programs: judged only on static words. */
struct reader {
	const char *name;
	void (*judge)(struct ctx *x, const roz_shell_cmd *c);
};

static void judge_tree(struct ctx *x, const roz_shell_cmd *c)
{
	judge_output_opt(x, c, "LPIo", "o", NULL, "tree -o", false);
}

static void judge_less(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const longs[] = {"log-file", "LOG-FILE", NULL};

	judge_output_opt(x, c, "bhjkoOpPtTxyz#D", "oO", longs, "less -o", false);
}

static void judge_rg(struct ctx *x, const roz_shell_cmd *c)
{
	for (size_t i = 1; i < c->nwords; i++)
		if (!strcmp(c->words[i], "--pre") || !strncmp(c->words[i], "--pre=", 6))
			OPAQUE(x, "rg --pre runs a program");
}

static void judge_file(struct ctx *x, const roz_shell_cmd *c)
{
	for (size_t i = 1; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (!strcmp(s, "--compile") || (s[0] == '-' && s[1] != '-' && strchr(s, 'C')))
			OPAQUE(x, "file -C writes a compiled magic file");
	}
}

static void judge_date(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"date", "file", "reference", NULL};
	struct args a;
	struct arg g;

	args_init(&a, c, 1, "dfr", "I", lval);
	while (arg_next(&a, &g))
		if (git_flag(&g, 's', "set"))
			OPAQUE(x, "date -s sets the clock");
}

static void judge_hostname(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const ok[] = {"-f", "-s", "-i", "-I", "-d", "-A", "-a", "--fqdn",
					 "--short", "--long", "--domain", "--ip-address",
					 "--all-ip-addresses", "--all-fqdns", "--alias", NULL};

	for (size_t i = 1; i < c->nwords; i++)
		if (!in_list(ok, c->words[i])) {
			OPAQUE(x, "hostname with arguments may set the host name");
			return;
		}
}

static const struct reader readers[] = {
	{"find", judge_find},   {"sort", judge_sort},   {"uniq", judge_uniq},
	{"sed", judge_sed},     {"awk", judge_awk},     {"gawk", judge_awk},
	{"mawk", judge_awk},    {"nawk", judge_awk},    {"yq", judge_yq},
	{"xxd", judge_xxd},     {"tree", judge_tree},   {"less", judge_less},
	{"rg", judge_rg},       {"file", judge_file},   {"date", judge_date},
	{"hostname", judge_hostname}, {"git", judge_git}, {NULL, NULL}};

static void judge_roz(struct ctx *x, const roz_shell_cmd *c)
{
	size_t i = 3;

	if (x->e->select_id || c->nwords < 4 || strcmp(c->words[1], "intent") ||
	    strcmp(c->words[2], "select"))
		return;
	while (i < c->nwords && c->words[i][0] == '-')
		i++;
	if (i < c->nwords && word_static(c, i) && !(x->e->select_id = roz_strdup(c->words[i])))
		x->nomem = true;
}

static void judge(struct ctx *x, const roz_shell_cmd *c)
{
	const char *name = c->words[0];

	if (!word_static(c, 0)) {
		OPAQUE(x, "%s", c->why ? c->why : "a command known only when the line runs");
		return;
	}
	if (c->wrapper) {
		/* the command a wrapper runs is judged on its own; a few write themselves */
		if (!strcmp(name, "find"))
			judge_find(x, c);
		else if (!strcmp(name, "time"))
			judge_output_opt(x, c, "of", "o", (const char *const[]){"output", NULL},
					 "time -o", true);
		else if (!strcmp(name, "strace") || !strcmp(name, "ltrace") ||
			 !strcmp(name, "valgrind") || !strcmp(name, "script"))
			OPAQUE(x, "%s may write a log file", name);
		return;
	}
	if (in_list(plain_readers, name))
		return;
	if (!strcmp(name, "roz")) {
		judge_roz(x, c);
		return;
	}
	for (size_t i = 0; readers[i].name; i++) {
		if (strcmp(readers[i].name, name))
			continue;
		/* a computed word could be a writing option; the visible ones still count */
		if (strcmp(name, "git") && strcmp(name, "find") && !args_static(c))
			OPAQUE(x, "%s with arguments computed when the line runs may write files", name);
		readers[i].judge(x, c);
		return;
	}
	if (!strcmp(name, "tee"))
		judge_operands(x, c, "tee", NULL, NULL);
	else if (!strcmp(name, "rm") || !strcmp(name, "unlink"))
		judge_operands(x, c, name[0] == 'r' ? "rm" : "unlink", NULL, NULL);
	else if (!strcmp(name, "shred"))
		judge_operands(x, c, "shred", "ns",
			       (const char *const[]){"iterations", "size", "random-source", NULL});
	else if (!strcmp(name, "rmdir"))
		judge_rmdir(x, c);
	else if (!strcmp(name, "touch"))
		judge_operands(x, c, "touch", "rdt", (const char *const[]){"reference", "date", "time", NULL});
	else if (!strcmp(name, "mkdir"))
		judge_operands(x, c, "mkdir", "m", (const char *const[]){"mode", "context", NULL});
	else if (!strcmp(name, "truncate"))
		judge_operands(x, c, "truncate", "sr", (const char *const[]){"size", "reference", NULL});
	else if (!strcmp(name, "cp") || !strcmp(name, "mv") || !strcmp(name, "install") ||
		 !strcmp(name, "ln"))
		judge_copy(x, c, !strcmp(name, "cp") ? "cp" : !strcmp(name, "mv") ? "mv" :
				 !strcmp(name, "ln") ? "ln" : "install");
	else if (!strcmp(name, "chmod") || !strcmp(name, "chown") || !strcmp(name, "chgrp"))
		judge_chmod(x, c, !strcmp(name, "chmod") ? "chmod" : !strcmp(name, "chown") ? "chown" : "chgrp");
	else if (!strcmp(name, "dd"))
		judge_dd(x, c);
	else if (!strcmp(name, "patch"))
		OPAQUE(x, "patch writes the files its diff names");
	else
		OPAQUE(x, "%s may write files", name);
}

/* ---- the line ---------------------------------------------------------- */

int roz_effect_of_bash(const roz_shell_result *sh, roz_effect *out)
{
	struct ctx x = {.e = out};

	memset(out, 0, sizeof *out);
	if (sh->flags & (ROZ_SHELL_DYNAMIC | ROZ_SHELL_UNPARSED))
		OPAQUE(&x, "%s", sh->reason ? sh->reason : "the line cannot be read before it runs");
	for (size_t i = 0; i < sh->ncmds; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];

		if (c->nwords && (!strcmp(c->words[0], "cd") || !strcmp(c->words[0], "pushd") ||
				  !strcmp(c->words[0], "popd")))
			x.cd = true;
		if (c->nwords && !strcmp(c->words[0], "git"))
			for (size_t k = 1; k < c->nwords && c->words[k][0] == '-'; k++)
				if (!strcmp(c->words[k], "-C") || !strncmp(c->words[k], "--work-tree", 11))
					x.cd = true;
	}
	for (size_t i = 0; i < sh->ncmds && !x.nomem; i++)
		if (sh->cmds[i].nwords)
			judge(&x, &sh->cmds[i]);
	for (size_t i = 0; i < sh->nredirs && !x.nomem; i++) {
		const roz_shell_redir *r = &sh->redirs[i];
		size_t n = strlen(r->path);

		target(&x, r->path, n, r->info.known_home == n, "redirection");
	}
	if (x.nomem) {
		roz_effect_dispose(out);
		roz_error_set("out of memory");
		return ROZ_ENOMEM;
	}
	out->read_only = !out->opaque && !x.writes && !out->unknown_target && !out->why;
	if (out->read_only) {
		roz_free(out->why);
		out->why = NULL;
	}
	return ROZ_OK;
}
