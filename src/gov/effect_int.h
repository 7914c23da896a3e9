/*
 * effect_int.h - what the parts of the effect module share. roz/effect.h
 * is the module's API; its work is split by what each part does:
 *
 *   effect.c           the judgement of a line: targets and reasons, reading
 *                      a command's words and options, and which part judges
 *                      each command;
 *   effect_programs.c  the tables: programs that only read, programs whose
 *                      subcommands read (docker ps, gh pr view) and the
 *                      options that make them write or run a program, the
 *                      words that only print help or a version, the
 *                      variables that hand a program to what runs;
 *   effect_read.c      readers with options that write or run programs
 *                      (find, sort, sed, awk, tar -t, ...);
 *   effect_write.c     commands that write the files they name (cp, rm, ...);
 *   effect_git.c       git: its global options, reading and writing
 *                      subcommands.
 *
 * Not part of roz's API: the names here start with effect_ and are linked
 * only into the gov library.
 */
#ifndef ROZ_EFFECT_INT_H
#define ROZ_EFFECT_INT_H

#include "roz/effect.h"

/* ---- the judgement in progress ------------------------------------------ */

struct ctx {
	roz_effect *e;
	size_t cap;
	bool cd;     /* the line changes directory: relative targets are unknown */
	bool home;   /* the line sets HOME: targets under ~ or $HOME are unknown */
	bool nomem;
	bool writes; /* some command writes, even with no target to show */
};

/* Record the first reason the line is not read-only. */
void effect_because(struct ctx *x, const char *fmt, ...) ROZ_PRINTF(2, 3);

/* The command changes things the line does not show, for the reason given. */
#define OPAQUE(x, ...) ((x)->e->opaque = true, effect_because((x), __VA_ARGS__))

/*
 * A file the line writes: `n` bytes of `p`, or an unknown file when `known`
 * is false (p is then ignored). Repeats are kept once.
 */
void effect_target(struct ctx *x, const char *p, size_t n, bool known, const char *how);

/* `s` is one of the NULL-terminated `list`. */
bool effect_in_list(const char *const *list, const char *s);

/* ---- words and options --------------------------------------------------- */

/* Word i is text known before the line runs, and so is everything before it. */
bool effect_word_static(const roz_shell_cmd *c, size_t i);

/* Every argument is known before the line runs, and none is appended later. */
bool effect_args_static(const roz_shell_cmd *c);

/* Word i names a file roz can place: only a leading $HOME is computed. */
bool effect_word_placeable(const roz_shell_cmd *c, size_t i);

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

void effect_args_init(struct args *a, const roz_shell_cmd *c, size_t start, const char *sval,
		      const char *sopt, const char *const *lval);
bool effect_arg_next(struct args *a, struct arg *out);

/* The long option of `a` is `full`, or an abbreviation of it at least 3 letters long. */
bool effect_long_is(const struct arg *a, const char *full);

/* `g` is the short option `ch` (0: none) or the long option `full` (NULL: none). */
bool effect_flag(const struct arg *g, char ch, const char *full);

/* A target named by a whole word. */
void effect_target_word(struct ctx *x, const roz_shell_cmd *c, size_t w, const char *how);

/* A target named by an option's value (`-t DIR`, `--output=F`, `of=F`). */
void effect_target_value(struct ctx *x, const roz_shell_cmd *c, const struct arg *a,
			 const char *how);

/* xargs and parallel append arguments: files roz cannot name. */
void effect_appended(struct ctx *x, const roz_shell_cmd *c, const char *how);

/* ---- the judges, by part ------------------------------------------------- */

/* A command that is judged by a function of its own. */
typedef void (*effect_judge_fn)(struct ctx *x, const roz_shell_cmd *c);

/* effect_programs.c */

/* A command that changes nothing whatever its arguments (ls, cat, ps, ...). */
bool effect_plain_reader(const char *name);

/* The judge of a reader whose options can write or run programs (sort, sed, tar, ...), or NULL. */
effect_judge_fn effect_reader(const char *name);

/*
 * Judge a program of the subcommand tables (docker, kubectl, gh, npm, pip,
 * go) or one whose help and version words are known (python3 --version).
 * False when `c` names none of them; then it is judged elsewhere.
 */
bool effect_judge_program(struct ctx *x, const roz_shell_cmd *c);

/* `name`, assigned in the line, hands a program to what runs (PAGER, GIT_SSH_COMMAND, LD_PRELOAD, ...). */
bool effect_variable_runs(const char *name, size_t len);

/* `git -c key=...` with this key changes only how git shows what it reads (color.ui, core.quotePath). */
bool effect_git_key_harmless(const char *key, size_t len);

/* effect_read.c */
void effect_judge_find(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_output_opt(struct ctx *x, const roz_shell_cmd *c, const char *sval,
			     const char *outs, const char *const *longs, const char *how,
			     bool stop_at_operand);
void effect_judge_sort(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_uniq(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_xxd(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_yq(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_sed(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_awk(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_tree(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_less(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_rg(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_file(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_date(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_hostname(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_tar(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_unzip(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_lsof(struct ctx *x, const roz_shell_cmd *c);
void effect_judge_ss(struct ctx *x, const roz_shell_cmd *c);

/* effect_write.c: true when `c` is a command that writes the files it names (judged). */
bool effect_judge_writer(struct ctx *x, const roz_shell_cmd *c);

/* effect_git.c */
void effect_judge_git(struct ctx *x, const roz_shell_cmd *c);

#endif
