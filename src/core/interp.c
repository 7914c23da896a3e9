/*
 * interp.c - which interpreters take a program on the command line or on
 * standard input, how each spells its inline-code option, and whether such
 * a program mentions `roz decide`. Pure string work on the lexer's words.
 */
#include "roz/interp.h"

#include <string.h>

typedef enum interp_kind {
	INTERP_CODE_FLAG, /* inline code after an option (-c, -e, --eval, ...) */
	INTERP_AWK        /* the program is the first operand; it runs commands with system() or | */
} interp_kind;

typedef struct interp {
	const char *name;       /* command name; a trailing '*' allows a version suffix (3, 3.12) */
	interp_kind kind;
	const char *code_short; /* option letters whose value is the program */
	const char *arg_short;  /* option letters that take a value that is not the program */
	const char *code_long[3]; /* whole words that introduce the program (--eval, eval) */
	bool reads_stdin;       /* with neither code nor a script it runs what stdin holds */
} interp;

static const interp interps[] = {
	{"python*", INTERP_CODE_FLAG, "c", "WXm", {NULL}, true},
	{"pypy*", INTERP_CODE_FLAG, "c", "WXm", {NULL}, true},
	{"perl*", INTERP_CODE_FLAG, "eE", "", {NULL}, true},
	{"ruby*", INTERP_CODE_FLAG, "e", "IrC", {NULL}, true},
	{"node", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print", NULL}, true},
	{"nodejs", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print", NULL}, true},
	{"bun", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print", NULL}, false},
	{"deno", INTERP_CODE_FLAG, "", "", {"eval", NULL}, false},
	{"php*", INTERP_CODE_FLAG, "rRBE", "cdz", {NULL}, true},
	{"lua*", INTERP_CODE_FLAG, "e", "l", {NULL}, true},
	{"luajit", INTERP_CODE_FLAG, "e", "l", {NULL}, true},
	{"Rscript", INTERP_CODE_FLAG, "e", "", {NULL}, false},
	{"R", INTERP_CODE_FLAG, "e", "", {NULL}, true},
	{"pwsh", INTERP_CODE_FLAG, "c", "", {"-Command", "-command", NULL}, true},
	{"powershell", INTERP_CODE_FLAG, "c", "", {"-Command", "-command", NULL}, true},
	{"expect", INTERP_CODE_FLAG, "c", "f", {NULL}, true},
	{"tclsh*", INTERP_CODE_FLAG, "", "", {NULL}, true},
	{"osascript", INTERP_CODE_FLAG, "e", "", {NULL}, false},
	{"awk", INTERP_AWK, "", "", {NULL}, false},
	{"gawk", INTERP_AWK, "", "", {NULL}, false},
	{"mawk", INTERP_AWK, "", "", {NULL}, false},
	{"nawk", INTERP_AWK, "", "", {NULL}, false},
};

/* `name` as the table spells it: exact, or with '*' a run of digits and dots after the stem. */
static bool name_is(const char *spec, const char *name)
{
	size_t stem = strlen(spec);

	if (stem && spec[stem - 1] == '*') {
		stem--;
		if (strncmp(spec, name, stem) != 0)
			return false;
		for (name += stem; *name; name++)
			if (!((*name >= '0' && *name <= '9') || *name == '.'))
				return false;
		return true;
	}
	return strcmp(spec, name) == 0;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* ASCII case-insensitive substring test; `needle` is lower case. */
static bool contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++) {
		size_t i = 0;

		while (i < n && hay[i] && lower(hay[i]) == needle[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/* Do the words after the command name mention `needle` anywhere? */
static bool words_contain(const roz_shell_cmd *cmd, const char *needle)
{
	for (size_t i = 1; i < cmd->nwords; i++)
		if (contains(cmd->words[i], needle))
			return true;
	return false;
}

static bool mentions_decide(const roz_shell_cmd *cmd)
{
	return words_contain(cmd, "roz") && words_contain(cmd, "decide");
}

static bool is_code_long(const interp *it, const char *w, bool *value_attached)
{
	for (size_t k = 0; k < sizeof(it->code_long) / sizeof(it->code_long[0]) && it->code_long[k]; k++) {
		size_t n = strlen(it->code_long[k]);

		if (strncmp(w, it->code_long[k], n) == 0 && (w[n] == '\0' || w[n] == '=')) {
			*value_attached = w[n] == '=';
			return true;
		}
	}
	return false;
}

/*
 * Walk the options. Every word is looked at (options may follow a script
 * name and still be read by some interpreters; reading too much only costs
 * a false alarm on a line that names roz decide anyway).
 */
static bool runs_decide(const interp *it, const roz_shell_cmd *cmd, const char *line)
{
	bool code = false, operand = false, attached;

	for (size_t i = 1; i < cmd->nwords; i++) {
		const char *w = cmd->words[i];

		if (is_code_long(it, w, &attached)) {
			code = true;
			i += !attached;
			continue;
		}
		if (w[0] != '-' || w[1] == '\0') {
			/* a script, a program operand, or "-" for standard input */
			operand |= strcmp(w, "-") != 0;
			continue;
		}
		if (w[1] == '-')
			continue; /* a long option roz does not need to understand */
		for (size_t j = 1; w[j]; j++) {
			if (strchr(it->code_short, w[j])) {
				code = true;
				i += w[j + 1] == '\0';
				break;
			}
			if (strchr(it->arg_short, w[j])) {
				i += w[j + 1] == '\0';
				break;
			}
		}
	}
	if (code)
		return mentions_decide(cmd);
	/* `python3 <<EOF`, `echo ... | perl`: the program is somewhere in the line */
	return it->reads_stdin && !operand && line && contains(line, "roz") && contains(line, "decide");
}

bool roz_interp_runs_decide(const roz_shell_cmd *cmd, const char *line)
{
	if (!cmd || !cmd->nwords)
		return false;
	for (size_t k = 0; k < sizeof(interps) / sizeof(interps[0]); k++) {
		const interp *it = &interps[k];

		if (!name_is(it->name, cmd->words[0]))
			continue;
		if (it->kind == INTERP_AWK)
			return mentions_decide(cmd) && (words_contain(cmd, "system") || words_contain(cmd, "|"));
		return runs_decide(it, cmd, line);
	}
	return false;
}
