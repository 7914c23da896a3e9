/*
 * effect.c - what a tool call changes: the kind of each tool, and for Bash
 * which commands of a line are read-only, which write files the line names
 * (and which files), and which change things the line does not show.
 *
 * The rules are listed in roz/effect.h. Each command is judged on its own,
 * the way the tool itself reads its arguments; a command not on a list is
 * opaque, so a command roz has never heard of needs an intent rather than
 * passing as harmless.
 *
 * This file holds the judgement of the line and what every judge uses:
 * targets, reasons, and reading a command's words and options. The tables
 * of programs and the judges of particular commands are in effect_*.c
 * (effect_int.h says which is where).
 */
#include "roz/effect.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "effect_int.h"

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

bool effect_in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* Record the first reason the line is not read-only. */
void effect_because(struct ctx *x, const char *fmt, ...)
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

/* `~`, `~/...`, `$HOME...` or `${HOME}...`: a path under the home directory. */
static bool is_home(const char *p, size_t n)
{
	return (n && p[0] == '~' && (n == 1 || p[1] == '/')) || (n >= 5 && !memcmp(p, "$HOME", 5)) ||
	       (n >= 7 && !memcmp(p, "${HOME}", 7));
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
void effect_target(struct ctx *x, const char *p, size_t n, bool known, const char *how)
{
	roz_effect *e = x->e;
	bool placed = known;

	if (known && is_device(p, n))
		return;
	x->writes = true;
	if (!known) {
		e->unknown_target = true;
		effect_because(x, "writes a file named only when the line runs (%s)", how);
	} else if (x->cd && is_relative(p, n)) {
		e->unknown_target = true;
		placed = false;
		effect_because(x, "writes %.*s (%s) relative to a directory the line changes to", (int)n, p, how);
	} else if (x->home && is_home(p, n)) {
		e->unknown_target = true;
		placed = false;
		effect_because(x, "writes %.*s (%s) under a HOME the line sets", (int)n, p, how);
	} else {
		effect_because(x, "writes %.*s (%s)", (int)n, p, how);
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
	e->targets[e->ntargets].placed = placed;
	e->ntargets++;
}

/* ---- words and options --------------------------------------------------- */

/* Word i is text known before the line runs, and so is everything before it. */
bool effect_word_static(const roz_shell_cmd *c, size_t i)
{
	size_t off = 0;

	for (size_t j = 0; j < i; j++)
		off += strlen(c->words[j]) + 1;
	size_t len = strlen(c->words[i]);
	return c->info[i].known == len && off + len <= c->known;
}

/* Every argument is known before the line runs, and none is appended later. */
bool effect_args_static(const roz_shell_cmd *c)
{
	if (c->more_args)
		return false;
	for (size_t i = 0; i < c->nwords; i++)
		if (!effect_word_static(c, i))
			return false;
	return true;
}

/* Word i names a file roz can place: only a leading $HOME is computed. */
bool effect_word_placeable(const roz_shell_cmd *c, size_t i)
{
	return c->info[i].known_home == strlen(c->words[i]);
}

void effect_args_init(struct args *a, const roz_shell_cmd *c, size_t start, const char *sval,
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
bool effect_long_is(const struct arg *a, const char *full)
{
	size_t n = strlen(full);

	return a->kind == ARG_LONG && a->nlen <= n && (a->nlen == n || a->nlen >= 3) &&
	       !strncmp(a->name, full, a->nlen);
}

bool effect_flag(const struct arg *g, char ch, const char *full)
{
	return (ch && g->kind == ARG_SHORT && g->ch == ch) || (full && effect_long_is(g, full));
}

bool effect_arg_next(struct args *a, struct arg *out)
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
				if (effect_long_is(out, a->lval[k])) {
					out->val_word = a->i;
					out->val = c->words[a->i++];
					break;
				}
		}
		return true;
	}
	a->cluster = s + 1;
	a->cword = w;
	return effect_arg_next(a, out);
}

/* A target named by a whole word. */
void effect_target_word(struct ctx *x, const roz_shell_cmd *c, size_t w, const char *how)
{
	const char *s = c->words[w];

	effect_target(x, s, strlen(s), effect_word_placeable(c, w), how);
}

/* A target named by an option's value (`-t DIR`, `--output=F`, `of=F`). */
void effect_target_value(struct ctx *x, const roz_shell_cmd *c, const struct arg *a, const char *how)
{
	if (!a->val) {
		effect_target(x, NULL, 0, false, how);
		return;
	}
	effect_target(x, a->val, strlen(a->val), effect_word_placeable(c, a->val_word), how);
}

/* xargs and parallel append arguments: files roz cannot name. */
void effect_appended(struct ctx *x, const roz_shell_cmd *c, const char *how)
{
	if (c->more_args)
		effect_target(x, NULL, 0, false, how);
}

/* ---- one command ----------------------------------------------------------- */

static void judge_roz(struct ctx *x, const roz_shell_cmd *c)
{
	size_t i = 3;

	if (x->e->select_id || c->nwords < 4 || strcmp(c->words[1], "intent") ||
	    strcmp(c->words[2], "select"))
		return;
	while (i < c->nwords && c->words[i][0] == '-')
		i++;
	if (i < c->nwords && effect_word_static(c, i) && !(x->e->select_id = roz_strdup(c->words[i])))
		x->nomem = true;
}

static void judge(struct ctx *x, const roz_shell_cmd *c)
{
	const char *name = c->words[0];
	effect_judge_fn reader;

	if (!effect_word_static(c, 0)) {
		OPAQUE(x, "%s", c->why ? c->why : "a command known only when the line runs");
		return;
	}
	if (c->wrapper) {
		/* the command a wrapper runs is judged on its own; a few write themselves */
		if (!strcmp(name, "find"))
			effect_judge_find(x, c);
		else if (!strcmp(name, "time"))
			effect_judge_output_opt(x, c, "of", "o", (const char *const[]){"output", NULL},
					 "time -o", true);
		else if (!strcmp(name, "strace") || !strcmp(name, "ltrace") ||
			 !strcmp(name, "valgrind") || !strcmp(name, "script"))
			OPAQUE(x, "%s may write a log file", name);
		return;
	}
	if (effect_plain_reader(name))
		return;
	if (!strcmp(name, "roz")) {
		judge_roz(x, c);
		return;
	}
	if ((reader = effect_reader(name))) {
		/* a computed word could be a writing option; the visible ones still count */
		if (strcmp(name, "git") && strcmp(name, "find") && !effect_args_static(c))
			OPAQUE(x, "%s with arguments computed when the line runs may write files", name);
		reader(x, c);
		return;
	}
	if (effect_judge_program(x, c))
		return;
	if (effect_judge_writer(x, c))
		return;
	if (!strcmp(name, "patch"))
		OPAQUE(x, "patch writes the files its diff names");
	else
		OPAQUE(x, "%s may write files", name);
}

/* ---- the line ---------------------------------------------------------- */

/*
 * A variable set on the line: HOME moves `~`; a program it hands to what
 * runs makes the line opaque (reported once the commands have given their
 * own reasons).
 */
static void variable(struct ctx *x, const char *name, size_t len, bool report)
{
	if (len == 4 && !memcmp(name, "HOME", 4))
		x->home = true;
	if (report && effect_variable_runs(name, len))
		OPAQUE(x, "%.*s set on this line hands a program to what runs", (int)len, name);
}

/*
 * The variables the line sets (NAME=... before a command or alone, export,
 * read, ...) and those a wrapper sets for the command it runs (env NAME=...,
 * sudo NAME=...).
 */
static void judge_variables(struct ctx *x, const roz_shell_result *sh, bool report)
{
	for (size_t i = 0; i < sh->nnames; i++)
		variable(x, sh->names[i], strlen(sh->names[i]), report);
	for (size_t i = 0; i < sh->ncmds; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];

		for (size_t k = 1; c->wrapper && k < c->nwords; k++) {
			const char *w = c->words[k], *eq = strchr(w, '=');

			if (eq && eq > w && w[0] != '-')
				variable(x, w, (size_t)(eq - w), report);
		}
	}
}

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
	judge_variables(&x, sh, false);
	for (size_t i = 0; i < sh->ncmds && !x.nomem; i++)
		if (sh->cmds[i].nwords)
			judge(&x, &sh->cmds[i]);
	for (size_t i = 0; i < sh->nredirs && !x.nomem; i++) {
		const roz_shell_redir *r = &sh->redirs[i];
		size_t n = strlen(r->path);

		effect_target(&x, r->path, n, r->info.known_home == n, "redirection");
	}
	if (!x.nomem)
		judge_variables(&x, sh, true);
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
