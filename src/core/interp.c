/*
 * interp.c - which interpreters take a program on the command line or on
 * standard input, how each spells its inline-code option, whether such a
 * program mentions `roz decide`, and which program a command runs, handed
 * to the scan for the shell command lines it starts. Pure string work on
 * the lexer's words.
 *
 * This file holds the interpreter table, roz_interp_runs_decide, the walk
 * over a command's words that finds its program, and the public functions.
 * The scan itself is two files: interp_lex.c reads program text (string
 * literals, arguments) and interp_calls.c finds the calls that start
 * processes; interp_int.h holds what they share.
 */
#include "interp_int.h"

#include <string.h>
#include <strings.h>

typedef enum interp_kind {
	INTERP_CODE_FLAG, /* inline code after an option (-c, -e, --eval, ...) */
	INTERP_AWK,       /* the program is the first operand; it runs commands with system() or | */
	INTERP_DENO,      /* a subcommand first: `deno eval <code>`, `deno run x.ts` */
	INTERP_PWSH       /* -Command takes the rest of the words; options in any case, abbreviated */
} interp_kind;

/* opts */
enum {
	O_CODE_ENDS = 1u << 0, /* the code option (and -m) ends the options: what follows is argv */
	O_MODULE = 1u << 1,    /* -m <module> runs a module */
	O_AFTER_CODE = 1u << 2,/* a script operand after the code runs too (lua -e x script.lua) */
	O_SUBCMD = 1u << 3     /* the first operand may be a subcommand that runs nothing (bun install) */
};

/* Strings are char arrays, not pointers: a table of pointers is relocated at every start (see interp_int.h). */
typedef struct interp {
	char name[12];          /* command name; a trailing '*' allows a version suffix (3, 3.12) */
	interp_kind kind;
	char code_short[5];     /* option letters whose value is the program */
	char arg_short[4];      /* option letters that take a value that is not the program */
	char code_long[3][9];   /* whole words that introduce the program (--eval, eval); "" ends them */
	bool reads_stdin;       /* with neither code nor a script it runs what stdin holds */
	/* for the scan */
	char display[11];       /* the name reported (static) */
	lang_id lang;
	char version_short[2];  /* option letters that print a version and run nothing */
	char lib_short[2];      /* of arg_short, letters whose value is code loaded before the program */
	unsigned opts;
} interp;

static const interp interps[] = {
	{"python*", INTERP_CODE_FLAG, "c", "WXm", {""}, true, "python", L_PY, "V", "", O_CODE_ENDS | O_MODULE},
	{"pypy*", INTERP_CODE_FLAG, "c", "WXm", {""}, true, "pypy", L_PY, "V", "", O_CODE_ENDS | O_MODULE},
	{"perl*", INTERP_CODE_FLAG, "eE", "", {""}, true, "perl", L_PERL, "v", "", 0},
	{"ruby*", INTERP_CODE_FLAG, "e", "IrC", {""}, true, "ruby", L_RUBY, "v", "r", 0},
	{"node", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print"}, true, "node", L_JS, "v", "r", 0},
	{"nodejs", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print"}, true, "nodejs", L_JS, "v", "r", 0},
	{"bun", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print"}, false, "bun", L_JS, "v", "r", O_SUBCMD},
	{"deno", INTERP_DENO, "", "", {"eval"}, false, "deno", L_JS, "V", "", 0},
	{"php*", INTERP_CODE_FLAG, "rRBE", "cdz", {""}, true, "php", L_PHP, "v", "", 0},
	{"lua*", INTERP_CODE_FLAG, "e", "l", {""}, true, "lua", L_LUA, "v", "l", O_AFTER_CODE},
	{"luajit", INTERP_CODE_FLAG, "e", "l", {""}, true, "luajit", L_LUA, "v", "l", O_AFTER_CODE},
	{"Rscript", INTERP_CODE_FLAG, "e", "", {""}, false, "Rscript", L_R, "", "", 0},
	{"R", INTERP_CODE_FLAG, "e", "", {""}, true, "R", L_R, "", "", 0},
	{"pwsh", INTERP_PWSH, "c", "", {"-Command", "-command"}, true, "pwsh", L_PWSH, "", "", 0},
	{"powershell", INTERP_PWSH, "c", "", {"-Command", "-command"}, true, "powershell", L_PWSH, "", "", 0},
	{"expect", INTERP_CODE_FLAG, "c", "f", {""}, true, "expect", L_TCL, "v", "", 0},
	{"tclsh*", INTERP_CODE_FLAG, "", "", {""}, true, "tclsh", L_TCL, "", "", 0},
	{"osascript", INTERP_CODE_FLAG, "e", "ls", {""}, true, "osascript", L_OSA, "", "", 0},
	{"groovy", INTERP_CODE_FLAG, "e", "", {""}, false, "groovy", L_GROOVY, "v", "", 0},
	{"elixir", INTERP_CODE_FLAG, "e", "r", {""}, false, "elixir", L_ELIXIR, "v", "r", 0},
	{"julia", INTERP_CODE_FLAG, "eE", "L", {""}, true, "julia", L_JULIA, "v", "L", 0},
	{"awk", INTERP_AWK, "", "", {""}, false, "awk", L_AWK, "", "", 0},
	{"gawk", INTERP_AWK, "", "", {""}, false, "gawk", L_AWK, "", "", 0},
	{"mawk", INTERP_AWK, "", "", {""}, false, "mawk", L_AWK, "", "", 0},
	{"nawk", INTERP_AWK, "", "", {""}, false, "nawk", L_AWK, "", "", 0},
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
	for (size_t k = 0; k < sizeof(it->code_long) / sizeof(it->code_long[0]) && it->code_long[k][0]; k++) {
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

/* ---- which program a command runs --------------------------------------- */

typedef struct program {
	roz_buf code;     /* inline code, pieces joined by newlines */
	bool has_code;
	bool script;      /* a script file, a module, a REPL, a task: code not on the line */
	bool lib;         /* code loaded before the program from a file (-r ./x, --require) */
	bool opaque;      /* the program is on the line but not as text (-EncodedCommand) */
	bool version;     /* only a version or help is asked for */
	bool stdin_dash;  /* `-`: the program is read from standard input */
	bool none;        /* runs no program (bun install, deno fmt, awk with none) */
} program;

static void add_code(program *pg, const char *c)
{
	if (pg->has_code)
		roz_buf_addc(&pg->code, '\n');
	roz_buf_adds(&pg->code, c);
	pg->has_code = true;
}

static bool is_help(const char *w)
{
	return !strcmp(w, "--version") || !strcmp(w, "--help") || !strcmp(w, "-h") || !strcmp(w, "-help") ||
	       !strcmp(w, "-?");
}

#define WORD_LEN 12 /* the longest word of a list below, and its '\0' */

static bool in_list(const char *w, const char (*list)[WORD_LEN], size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(w, list[k]))
			return true;
	return false;
}

/* The value of the option at words[*i] (attached after `at`, else the next word), or NULL. */
static const char *option_value(const roz_shell_cmd *cmd, size_t *i, const char *at)
{
	if (*at)
		return at;
	if (*i + 1 < cmd->nwords)
		return cmd->words[++*i];
	return NULL;
}

static void walk_code_flag(const interp *it, const roz_shell_cmd *cmd, program *pg)
{
	static const char bun_quiet[][WORD_LEN] = {"install", "i", "add", "a", "remove", "rm", "update", "link",
						   "unlink", "pm", "init", "create", "c", "upgrade", "outdated",
						   "publish", "patch", "audit", "info", "build", "help", "completions"};
	static const char node_lib[][22] = {"--require", "--import", "--loader", "--experimental-loader"};

	for (size_t i = 1; i < cmd->nwords; i++) {
		const char *w = cmd->words[i];
		bool attached, ends = false;

		if (is_code_long(it, w, &attached)) {
			const char *v = attached ? strchr(w, '=') + 1 : option_value(cmd, &i, "");

			if (v)
				add_code(pg, v);
			if (it->opts & O_CODE_ENDS)
				return;
			continue;
		}
		if (!strcmp(w, "--")) {
			if (i + 1 < cmd->nwords && !pg->has_code) {
				if (!strcmp(cmd->words[i + 1], "-"))
					pg->stdin_dash = true;
				else
					pg->script = true;
			}
			return;
		}
		if (w[0] != '-' || w[1] == '\0') {
			if (!strcmp(w, "-"))
				pg->stdin_dash |= !pg->has_code;
			else if ((it->opts & O_SUBCMD) && !pg->has_code && in_list(w, bun_quiet, sizeof(bun_quiet) / sizeof(bun_quiet[0])))
				pg->none = true;
			else if (!pg->has_code || (it->opts & O_AFTER_CODE))
				pg->script = true;
			return;
		}
		if (is_help(w)) {
			pg->version = true;
			continue;
		}
		if (w[1] == '-') {
			if (it->lang == L_JS)
				for (size_t k = 0; k < sizeof(node_lib) / sizeof(node_lib[0]); k++) {
					size_t n = strlen(node_lib[k]);

					if (!strncmp(w, node_lib[k], n) && (w[n] == '\0' || w[n] == '=')) {
						pg->lib = true;
						i += w[n] == '\0';
						break;
					}
				}
			continue; /* a long option roz does not need to understand */
		}
		for (size_t j = 1; w[j]; j++) {
			if (strchr(it->code_short, w[j])) {
				const char *v = option_value(cmd, &i, w + j + 1);

				if (v)
					add_code(pg, v);
				ends = it->opts & O_CODE_ENDS;
				break;
			}
			if (strchr(it->arg_short, w[j])) {
				char letter = w[j];
				const char *v = option_value(cmd, &i, w + j + 1);

				if ((it->opts & O_MODULE) && letter == 'm') {
					pg->script = true;
					ends = true;
				} else if (v && strchr(it->lib_short, letter) && (strchr(v, '/') || strchr(v, '.'))) {
					pg->lib = true;
				}
				break;
			}
			if (strchr(it->version_short, w[j]))
				pg->version = true;
		}
		if (ends)
			return;
	}
}

static void walk_deno(const roz_shell_cmd *cmd, program *pg)
{
	static const char quiet[][WORD_LEN] = {"fmt", "lint", "info", "doc", "check", "cache", "types", "upgrade",
					       "completions", "init", "lsp", "install", "uninstall", "add", "remove",
					       "outdated", "publish", "vendor", "clean", "help"};
	size_t i = 1;

	for (; i < cmd->nwords && cmd->words[i][0] == '-' && cmd->words[i][1]; i++)
		if (is_help(cmd->words[i]) || !strcmp(cmd->words[i], "-V"))
			pg->version = true;
	if (i >= cmd->nwords) {
		pg->script = !pg->version; /* the REPL */
		return;
	}
	if (!strcmp(cmd->words[i], "eval")) {
		for (i++; i < cmd->nwords; i++) {
			const char *w = cmd->words[i];

			if (w[0] == '-' && w[1]) {
				i += !strcmp(w, "--ext");
				continue;
			}
			add_code(pg, w);
			return;
		}
		pg->none = true;
		return;
	}
	if (in_list(cmd->words[i], quiet, sizeof(quiet) / sizeof(quiet[0])))
		pg->none = true;
	else
		pg->script = true;
}

/* Is `o` (an option without its dash) `full` or an abbreviation of it at least `min` long? */
static bool abbrev(const char *o, const char *full, size_t min)
{
	size_t n = strlen(o);

	return n >= min && n <= strlen(full) && strncasecmp(o, full, n) == 0;
}

static void join_rest(const roz_shell_cmd *cmd, size_t from, program *pg)
{
	roz_buf b = ROZ_BUF_INIT;

	for (size_t k = from; k < cmd->nwords; k++) {
		if (k > from)
			roz_buf_addc(&b, ' ');
		roz_buf_adds(&b, cmd->words[k]);
	}
	if (from < cmd->nwords) {
		add_code(pg, roz_buf_cstr(&b));
		pg->code.oom |= b.oom;
	}
	roz_buf_dispose(&b);
}

static void walk_pwsh(const interp *it, const roz_shell_cmd *cmd, program *pg)
{
	for (size_t i = 1; i < cmd->nwords; i++) {
		const char *w = cmd->words[i], *o = w + 1;

		if (!strcmp(w, "-")) {
			pg->stdin_dash = true;
			return;
		}
		if (w[0] != '-') {
			/* an operand: pwsh runs it as a file, Windows PowerShell as a command */
			if (!strcmp(it->name, "powershell"))
				join_rest(cmd, i, pg);
			else
				pg->script = true;
			return;
		}
		if (abbrev(o, "command", 1)) {
			if (i + 1 < cmd->nwords && !strcmp(cmd->words[i + 1], "-"))
				pg->stdin_dash = true;
			else
				join_rest(cmd, i + 1, pg);
			return;
		}
		if (abbrev(o, "encodedcommand", 1) || !strcasecmp(o, "ec")) {
			pg->opaque = true;
			return;
		}
		if (abbrev(o, "file", 1)) {
			pg->script = true;
			return;
		}
		if (abbrev(o, "version", 1) || abbrev(o, "help", 1) || !strcmp(o, "?")) {
			pg->version = true;
			continue;
		}
		if (abbrev(o, "executionpolicy", 2) || !strcasecmp(o, "ep") || abbrev(o, "workingdirectory", 2) ||
		    !strcasecmp(o, "wd") || abbrev(o, "configurationname", 4) || abbrev(o, "configurationfile", 8) ||
		    abbrev(o, "outputformat", 1) || !strcasecmp(o, "of") || abbrev(o, "inputformat", 2) ||
		    abbrev(o, "windowstyle", 1) || abbrev(o, "settingsfile", 2) || abbrev(o, "custompipename", 2))
			i++;
	}
}

static void walk_awk(const roz_shell_cmd *cmd, program *pg)
{
	bool progfile = false;
	size_t i;

	for (i = 1; i < cmd->nwords; i++) {
		const char *w = cmd->words[i], *v;

		if (!strcmp(w, "--")) {
			i++;
			break;
		}
		if (w[0] != '-' || !w[1])
			break;
		if (is_help(w)) {
			pg->version = true;
			continue;
		}
		if (w[1] == '-') {
			static const char valued[][18] = {"--source", "--file", "--exec", "--include", "--load",
							  "--assign", "--field-separator"};

			for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
				size_t n = strlen(valued[k]);

				if (strncmp(w, valued[k], n) || (w[n] && w[n] != '='))
					continue;
				v = w[n] ? w + n + 1 : option_value(cmd, &i, "");
				if (k == 0 && v)
					add_code(pg, v);
				progfile |= k == 1 || k == 2;
				pg->lib |= k == 3 || k == 4;
				break;
			}
			continue;
		}
		if (w[1] == 'V') {
			pg->version = true;
			continue;
		}
		if (!strchr("FvfeEilW", w[1]))
			continue;
		v = option_value(cmd, &i, w + 2);
		switch (w[1]) {
		case 'f':
		case 'E':
			progfile = true;
			break;
		case 'e':
			if (v)
				add_code(pg, v);
			break;
		case 'i':
		case 'l':
			pg->lib = true;
			break;
		case 'W':
			pg->version |= v && (!strncmp(v, "version", 7) || !strncmp(v, "help", 4) || !strncmp(v, "usage", 5));
			break;
		default:
			break;
		}
	}
	if (!progfile && !pg->has_code && i < cmd->nwords)
		add_code(pg, cmd->words[i]);
	pg->script |= progfile;
	pg->none = !pg->has_code && !progfile;
}

int roz_interp_scan_cmd(const roz_shell_cmd *cmd, const char *line, roz_interp_scan *out)
{
	const interp *it = NULL;
	program pg;
	int rc = ROZ_OK;

	memset(out, 0, sizeof(*out));
	if (!cmd || !cmd->nwords || !cmd->words || !cmd->words[0])
		return ROZ_OK;
	for (size_t k = 0; k < sizeof(interps) / sizeof(interps[0]) && !it; k++)
		if (name_is(interps[k].name, cmd->words[0]))
			it = &interps[k];
	if (!it)
		return ROZ_OK;
	memset(&pg, 0, sizeof(pg));
	roz_buf_init(&pg.code);
	switch (it->kind) {
	case INTERP_CODE_FLAG:
		walk_code_flag(it, cmd, &pg);
		break;
	case INTERP_AWK:
		walk_awk(cmd, &pg);
		break;
	case INTERP_DENO:
		walk_deno(cmd, &pg);
		break;
	case INTERP_PWSH:
		walk_pwsh(it, cmd, &pg);
		break;
	}
	if (roz_buf_failed(&pg.code) != ROZ_OK) {
		rc = ROZ_ENOMEM;
	} else if (pg.none) {
		/* nothing runs */
	} else if (pg.has_code) {
		out->interpreter = it->display;
		out->whole = !pg.script && !pg.lib && !pg.opaque;
		rc = interp_scan_text(it->lang, roz_buf_cstr(&pg.code), pg.code.len, out);
	} else if (pg.script || pg.opaque) {
		out->interpreter = it->display;
	} else if (pg.version) {
		/* `python3 --version` */
	} else if (it->reads_stdin || pg.stdin_dash) {
		/* the program comes from standard input: a here-document, a here-string or a pipe in the line */
		out->interpreter = it->display;
		if (line) {
			const char *body = line;

			out->whole = strstr(line, "<<") != NULL && !pg.lib;
			if (it->lang == L_PWSH) /* a shell line is read as commands: only a here-document's lines */
				body = out->whole && strchr(line, '\n') ? strchr(line, '\n') + 1 : "";
			rc = interp_scan_text(it->lang, body, strlen(body), out);
		}
	}
	roz_buf_dispose(&pg.code);
	return rc;
}

void roz_interp_scan_dispose(roz_interp_scan *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nlines; i++)
		roz_free(s->lines[i]);
	roz_free(s->lines);
	memset(s, 0, sizeof(*s));
}
