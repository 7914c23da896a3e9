/*
 * effect_write.c - commands that write the files they name: tee, rm,
 * unlink, shred, rmdir, touch, mkdir, truncate, cp, mv, install, ln,
 * chmod, chown, chgrp, dd. Each reads its arguments as the tool does and
 * gives its targets (roz/effect.h lists which operands are written).
 */
#include <string.h>

#include "effect_int.h"

static void judge_operands(struct ctx *x, const roz_shell_cmd *c, const char *how,
			   const char *sval, const char *const *lval)
{
	struct args a;
	struct arg g;

	effect_args_init(&a, c, 1, sval, NULL, lval);
	while (effect_arg_next(&a, &g))
		if (g.kind == ARG_OPERAND)
			effect_target_word(x, c, g.word, how);
	effect_appended(x, c, how);
}

/* rmdir -p removes each parent named in the operand as well. */
static void judge_rmdir(struct ctx *x, const roz_shell_cmd *c)
{
	struct args a;
	struct arg g;
	bool parents = false;

	effect_args_init(&a, c, 1, NULL, NULL, NULL);
	while (effect_arg_next(&a, &g))
		if ((g.kind == ARG_SHORT && g.ch == 'p') || effect_long_is(&g, "parents"))
			parents = true;
	effect_args_init(&a, c, 1, NULL, NULL, NULL);
	while (effect_arg_next(&a, &g)) {
		if (g.kind != ARG_OPERAND)
			continue;
		const char *s = c->words[g.word];
		size_t n = strlen(s);
		bool known = effect_word_placeable(c, g.word);

		effect_target(x, s, n, known, "rmdir");
		while (parents && known && n > 1) {
			while (n > 1 && s[n - 1] == '/')
				n--;
			while (n > 0 && s[n - 1] != '/')
				n--;
			while (n > 1 && s[n - 1] == '/')
				n--;
			if (n == 0 || (n == 1 && s[0] == '/'))
				break;
			effect_target(x, s, n, true, "rmdir");
		}
	}
	effect_appended(x, c, "rmdir");
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
	effect_args_init(&a, c, 1, install ? "tSmog" : "tS", NULL, lval);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND)
			ops[nops++] = g.word;
		else if ((g.kind == ARG_SHORT && g.ch == 't') || effect_long_is(&g, "target-directory")) {
			dir = g;
			has_dir = true;
		} else if (install && ((g.kind == ARG_SHORT && g.ch == 'd') || effect_long_is(&g, "directory")))
			dirs_only = true;
	}
	if (dirs_only) {
		for (size_t i = 0; i < nops; i++)
			effect_target_word(x, c, ops[i], how);
	} else if (has_dir) {
		effect_target_value(x, c, &dir, how);
		for (size_t i = 0; mv && i < nops; i++)
			effect_target_word(x, c, ops[i], how);
	} else if (nops == 1 && !strcmp(how, "ln") && !c->more_args) {
		/* ln with one operand makes a link of the same name here */
		const char *s = c->words[ops[0]], *base = strrchr(s, '/');

		if (!effect_word_placeable(c, ops[0]))
			effect_target(x, NULL, 0, false, how);
		else if (base && base[1])
			effect_target(x, base + 1, strlen(base + 1), true, how);
		else if (!base)
			effect_target(x, s, strlen(s), true, how);
		else
			effect_target(x, NULL, 0, false, how);
	} else if (nops > 0) {
		if (c->more_args)
			effect_target(x, NULL, 0, false, how);
		else
			effect_target_word(x, c, ops[nops - 1], how);
		for (size_t i = 0; mv && i + 1 < nops; i++)
			effect_target_word(x, c, ops[i], how);
	}
	effect_appended(x, c, how);
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
			if (!strchr(s, '=') && effect_in_list(lval, s + 2))
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
		effect_target_word(x, c, i, how);
	}
	effect_appended(x, c, how);
}

static void judge_dd(struct ctx *x, const roz_shell_cmd *c)
{
	for (size_t i = 1; i < c->nwords; i++)
		if (!strncmp(c->words[i], "of=", 3)) {
			struct arg g = {.val = c->words[i] + 3, .val_word = i};

			effect_target_value(x, c, &g, "dd");
		}
	if (c->more_args)
		OPAQUE(x, "dd may write files");
}

bool effect_judge_writer(struct ctx *x, const roz_shell_cmd *c)
{
	const char *name = c->words[0];

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
	else
		return false;
	return true;
}
