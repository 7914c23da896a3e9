/*
 * interp.c - which interpreters take a program on the command line or on
 * standard input, how each spells its inline-code option, whether such a
 * program mentions `roz decide`, and which shell command lines it starts.
 * Pure string work on the lexer's words.
 *
 * The scan (roz_interp_scan_cmd) is a heuristic reader, not a parser. It
 * looks for the names of the calls that start processes wherever they
 * appear in the program, inside strings too (a program cannot hide a call
 * from it by opening a quote it never closes), then reads the call's
 * arguments with a small lexer for the language's string literals and
 * lists. Every loop is bounded by the input and by a work budget; running
 * out of budget or of room for lines makes the scan dynamic.
 */
#include "roz/interp.h"

#include <string.h>
#include <strings.h>

/* The language a program is written in, for the scan. */
typedef enum lang_id {
	L_PY,
	L_JS,
	L_RUBY,
	L_PERL,
	L_PHP,
	L_AWK,
	L_LUA,
	L_R,
	L_TCL,
	L_OSA,
	L_PWSH,
	L_GROOVY,
	L_ELIXIR,
	L_JULIA
} lang_id;

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

typedef struct interp {
	const char *name;       /* command name; a trailing '*' allows a version suffix (3, 3.12) */
	interp_kind kind;
	const char *code_short; /* option letters whose value is the program */
	const char *arg_short;  /* option letters that take a value that is not the program */
	const char *code_long[3]; /* whole words that introduce the program (--eval, eval) */
	bool reads_stdin;       /* with neither code nor a script it runs what stdin holds */
	/* for the scan */
	const char *display;    /* the name reported (static) */
	lang_id lang;
	const char *version_short; /* option letters that print a version and run nothing */
	const char *lib_short;     /* of arg_short, letters whose value is code loaded before the program */
	unsigned opts;
} interp;

static const interp interps[] = {
	{"python*", INTERP_CODE_FLAG, "c", "WXm", {NULL}, true, "python", L_PY, "V", "", O_CODE_ENDS | O_MODULE},
	{"pypy*", INTERP_CODE_FLAG, "c", "WXm", {NULL}, true, "pypy", L_PY, "V", "", O_CODE_ENDS | O_MODULE},
	{"perl*", INTERP_CODE_FLAG, "eE", "", {NULL}, true, "perl", L_PERL, "v", "", 0},
	{"ruby*", INTERP_CODE_FLAG, "e", "IrC", {NULL}, true, "ruby", L_RUBY, "v", "r", 0},
	{"node", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print", NULL}, true, "node", L_JS, "v", "r", 0},
	{"nodejs", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print", NULL}, true, "nodejs", L_JS, "v", "r", 0},
	{"bun", INTERP_CODE_FLAG, "ep", "r", {"--eval", "--print", NULL}, false, "bun", L_JS, "v", "r", O_SUBCMD},
	{"deno", INTERP_DENO, "", "", {"eval", NULL}, false, "deno", L_JS, "V", "", 0},
	{"php*", INTERP_CODE_FLAG, "rRBE", "cdz", {NULL}, true, "php", L_PHP, "v", "", 0},
	{"lua*", INTERP_CODE_FLAG, "e", "l", {NULL}, true, "lua", L_LUA, "v", "l", O_AFTER_CODE},
	{"luajit", INTERP_CODE_FLAG, "e", "l", {NULL}, true, "luajit", L_LUA, "v", "l", O_AFTER_CODE},
	{"Rscript", INTERP_CODE_FLAG, "e", "", {NULL}, false, "Rscript", L_R, "", "", 0},
	{"R", INTERP_CODE_FLAG, "e", "", {NULL}, true, "R", L_R, "", "", 0},
	{"pwsh", INTERP_PWSH, "c", "", {"-Command", "-command", NULL}, true, "pwsh", L_PWSH, "", "", 0},
	{"powershell", INTERP_PWSH, "c", "", {"-Command", "-command", NULL}, true, "powershell", L_PWSH, "", "", 0},
	{"expect", INTERP_CODE_FLAG, "c", "f", {NULL}, true, "expect", L_TCL, "v", "", 0},
	{"tclsh*", INTERP_CODE_FLAG, "", "", {NULL}, true, "tclsh", L_TCL, "", "", 0},
	{"osascript", INTERP_CODE_FLAG, "e", "ls", {NULL}, true, "osascript", L_OSA, "", "", 0},
	{"groovy", INTERP_CODE_FLAG, "e", "", {NULL}, false, "groovy", L_GROOVY, "v", "", 0},
	{"elixir", INTERP_CODE_FLAG, "e", "r", {NULL}, false, "elixir", L_ELIXIR, "v", "r", 0},
	{"julia", INTERP_CODE_FLAG, "eE", "L", {NULL}, true, "julia", L_JULIA, "v", "L", 0},
	{"awk", INTERP_AWK, "", "", {NULL}, false, "awk", L_AWK, "", "", 0},
	{"gawk", INTERP_AWK, "", "", {NULL}, false, "gawk", L_AWK, "", "", 0},
	{"mawk", INTERP_AWK, "", "", {NULL}, false, "mawk", L_AWK, "", "", 0},
	{"nawk", INTERP_AWK, "", "", {NULL}, false, "nawk", L_AWK, "", "", 0},
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

/* ======================================================================
 * The scan: which shell command lines a program starts.
 * ====================================================================== */

/* What a call does with its arguments. */
typedef enum call_mode {
	M_LINE,  /* the first argument is the command: a string for a shell, or a list of words */
	M_ALL,   /* the arguments are the words (a single string goes to a shell) */
	M_PROG,  /* a program, then a list of its arguments (or an object holding one) */
	M_EXEC,  /* a path, then the words with argv[0] first (os.execv) */
	M_SPAWN, /* a mode, then as M_EXEC (os.spawnv) */
	M_OPEN,  /* perl's open: a mode or a file name ending or starting with `|` */
	M_OPEN1, /* ruby's open: a name starting with `|` */
	M_TAG,   /* a tagged template: $`git push` */
	M_EVAL   /* runs code it is given: a computed argument makes the scan dynamic */
} call_mode;

typedef struct call {
	const char *name;
	/*
	 * Qualifiers that name it, '|' separated ("os|posix"); NULL accepts any
	 * qualifier, "" none. Another qualifier is accepted when a statement
	 * of the program names both it and one of these (`import subprocess as
	 * sp`, `const cp = require("child_process")`).
	 */
	const char *modules;
	call_mode mode;
	bool bare; /* callable unqualified without an import naming a module */
} call;

/* lang flags */
enum {
	F_PY_PREFIX = 1u << 0,  /* r"", f"", b"" prefixes */
	F_TRIPLE = 1u << 1,     /* """...""" */
	F_NL_ENDS = 1u << 2,    /* a newline ends a (non-triple, non-template) string */
	F_ADJACENT = 1u << 3,   /* "a" "b" is one string */
	F_PARENLESS = 1u << 4,  /* calls without parentheses: system "git push" */
	F_PERL_Q = 1u << 5,     /* q(), qq(), qw(), qx() */
	F_RUBY_PCT = 1u << 6,   /* %q(), %Q(), %w(), %x() */
	F_LUA_LONG = 1u << 7,   /* [[...]] */
	F_BACKTICK = 1u << 8,   /* `...` runs a command */
	F_KW_EQ = 1u << 9,      /* keyword arguments name=value */
	F_KW_COLON = 1u << 10,  /* keyword arguments name: value */
	F_KEEP_ESC = 1u << 11,  /* an unknown escape keeps its backslash */
	F_BRACKETS = 1u << 12,  /* [a, b] is a list */
	F_FAT_COMMA = 1u << 13, /* => separates like a comma */
	F_C_COMMENT = 1u << 14, /* block comments */
	F_ARROW = 1u << 15      /* obj->name is a qualified name */
};

/* How a string interpolates. */
enum {
	H_RAW = 1u << 0,      /* only \\ and \<quote> are escapes */
	H_NOESC = 1u << 1,    /* no escapes (the backslash stays), as in r"" */
	H_HASH = 1u << 2,     /* #{...}, #@x, #$x */
	H_DOLLAR = 1u << 3,   /* $x, ${...}, $(...) */
	H_DBRACE = 1u << 4,   /* ${...} only */
	H_PERL = 1u << 5,     /* $x, @x, ${...} */
	H_FBRACE = 1u << 6,   /* {...} (f-strings), {{ and }} literal */
	H_TRIPLE = 1u << 7,   /* closed by three quotes */
	H_NL_ENDS = 1u << 8,
	H_KEEP_ESC = 1u << 9
};

typedef struct lang {
	const char *quotes;   /* characters that open a string */
	const char *raw;      /* of those, the ones with only \\ and \<quote> escapes */
	const char *interp;   /* of those, the ones that interpolate, the `istyle` way */
	unsigned istyle;      /* H_HASH, H_DOLLAR, H_DBRACE or H_PERL */
	unsigned flags;
	const char *concat;   /* the operator joining two strings, or "" */
	const char *comment;  /* line comment start, or "" */
	const char *comment2;
	const char *const *stops; /* words that end a call written without parentheses */
	const call *calls;
	size_t ncalls;
} lang;

static const call py_calls[] = {
	{"system", "os|posix|nt", M_LINE, false}, {"popen", "os|posix|nt", M_LINE, false},
	{"run", "subprocess", M_LINE, false}, {"call", "subprocess", M_LINE, false},
	{"check_call", "subprocess", M_LINE, false}, {"check_output", "subprocess", M_LINE, false},
	{"Popen", "subprocess", M_LINE, false}, {"getoutput", "subprocess|commands", M_LINE, false},
	{"getstatusoutput", "subprocess|commands", M_LINE, false},
	{"execl", "os|posix", M_EXEC, false}, {"execle", "os|posix", M_EXEC, false},
	{"execlp", "os|posix", M_EXEC, false}, {"execlpe", "os|posix", M_EXEC, false},
	{"execv", "os|posix", M_EXEC, false}, {"execve", "os|posix", M_EXEC, false},
	{"execvp", "os|posix", M_EXEC, false}, {"execvpe", "os|posix", M_EXEC, false},
	{"posix_spawn", "os|posix", M_EXEC, false}, {"posix_spawnp", "os|posix", M_EXEC, false},
	{"spawnl", "os", M_SPAWN, false}, {"spawnle", "os", M_SPAWN, false},
	{"spawnlp", "os", M_SPAWN, false}, {"spawnlpe", "os", M_SPAWN, false},
	{"spawnv", "os", M_SPAWN, false}, {"spawnve", "os", M_SPAWN, false},
	{"spawnvp", "os", M_SPAWN, false}, {"spawnvpe", "os", M_SPAWN, false},
	{"spawn", "pty", M_LINE, false},
	{"create_subprocess_shell", "asyncio", M_LINE, false},
	{"create_subprocess_exec", "asyncio", M_ALL, false},
	{"eval", "builtins", M_EVAL, true}, {"exec", "builtins", M_EVAL, true},
	{"compile", "builtins", M_EVAL, true},
};

static const call js_calls[] = {
	{"exec", "child_process|shelljs", M_LINE, false}, {"execSync", "child_process", M_LINE, false},
	{"spawn", "child_process|Bun", M_PROG, false}, {"spawnSync", "child_process|Bun", M_PROG, false},
	{"execFile", "child_process", M_PROG, false}, {"execFileSync", "child_process", M_PROG, false},
	{"Command", "Deno", M_PROG, false}, {"run", "Deno", M_LINE, false},
	{"$", "Bun|zx|execa", M_TAG, true},
	{"execa", "execa", M_PROG, false}, {"execaSync", "execa", M_PROG, false},
	{"execaCommand", "execa", M_LINE, false}, {"execaCommandSync", "execa", M_LINE, false},
	{"eval", "globalThis|window", M_EVAL, true}, {"Function", "globalThis|window", M_EVAL, true},
};

static const call ruby_calls[] = {
	{"system", "Kernel|Process", M_ALL, true}, {"exec", "Kernel|Process", M_ALL, true},
	{"spawn", "Kernel|Process|PTY", M_ALL, true}, {"popen", "IO", M_ALL, false},
	{"capture2", "Open3", M_ALL, false}, {"capture2e", "Open3", M_ALL, false},
	{"capture3", "Open3", M_ALL, false}, {"popen2", "Open3", M_ALL, false},
	{"popen2e", "Open3", M_ALL, false}, {"popen3", "Open3", M_ALL, false},
	{"pipeline", "Open3", M_ALL, false}, {"pipeline_r", "Open3", M_ALL, false},
	{"pipeline_w", "Open3", M_ALL, false}, {"pipeline_rw", "Open3", M_ALL, false},
	{"pipeline_start", "Open3", M_ALL, false},
	{"open", "Kernel", M_OPEN1, true}, {"eval", "Kernel", M_EVAL, true},
};

static const call perl_calls[] = {
	{"system", "CORE", M_ALL, true}, {"exec", "CORE", M_ALL, true},
	{"readpipe", "CORE", M_LINE, true}, {"open", "CORE", M_OPEN, true},
	{"eval", "CORE", M_EVAL, true},
};

static const call php_calls[] = {
	{"system", "", M_LINE, true}, {"exec", "", M_LINE, true}, {"shell_exec", "", M_LINE, true},
	{"passthru", "", M_LINE, true}, {"popen", "", M_LINE, true}, {"proc_open", "", M_LINE, true},
	{"pcntl_exec", "", M_PROG, true}, {"eval", "", M_EVAL, true},
};

static const call awk_calls[] = {
	{"system", "", M_LINE, true},
};

static const call lua_calls[] = {
	{"execute", "os", M_LINE, false}, {"popen", "io", M_LINE, false},
	{"load", "", M_EVAL, true}, {"loadstring", "", M_EVAL, true},
};

static const call r_calls[] = {
	{"system", "base", M_LINE, true}, {"system2", "base", M_PROG, true},
	{"shell", "base", M_LINE, true}, {"run", "processx", M_PROG, false},
	{"exec_wait", "sys", M_PROG, false}, {"exec_internal", "sys", M_PROG, false},
	{"exec_background", "sys", M_PROG, false}, {"eval", "base", M_EVAL, true},
};

static const call osa_calls[] = {
	{"doShellScript", NULL, M_LINE, true},
};

static const call groovy_calls[] = {
	{"ProcessBuilder", NULL, M_ALL, true}, {"exec", "Runtime", M_LINE, false},
	{"evaluate", "", M_EVAL, true},
};

static const call elixir_calls[] = {
	{"cmd", "System|os", M_PROG, false}, {"shell", "System", M_LINE, false},
	{"eval_string", "Code", M_EVAL, false},
};

static const call julia_calls[] = {
	{"Cmd", "", M_LINE, true},
};

static const char *const ruby_stops[] = {"if", "unless", "while", "until", "and", "or", "do", "then", "rescue", NULL};
static const char *const perl_stops[] = {"if", "unless", "while", "until", "and", "or", "foreach", "for", NULL};
static const char *const osa_stops[] = {"with", "without", "as", "given", "in", "user", "password", NULL};
static const char *const no_stops[] = {NULL};

#define CALLS(a) a, sizeof(a) / sizeof(a[0])

static const lang langs[] = {
	[L_PY] = {"'\"", "", "", 0, F_PY_PREFIX | F_TRIPLE | F_NL_ENDS | F_ADJACENT | F_KW_EQ | F_KEEP_ESC | F_BRACKETS,
		  "+", "#", "", no_stops, CALLS(py_calls)},
	[L_JS] = {"'\"`", "", "`", H_DBRACE, F_NL_ENDS | F_BRACKETS | F_C_COMMENT, "+", "//", "", no_stops, CALLS(js_calls)},
	[L_RUBY] = {"'\"", "'", "\"", H_HASH, F_PARENLESS | F_RUBY_PCT | F_BACKTICK | F_KW_COLON | F_BRACKETS, "+", "#",
		    "", ruby_stops, CALLS(ruby_calls)},
	[L_PERL] = {"'\"", "'", "\"", H_PERL, F_PARENLESS | F_PERL_Q | F_BACKTICK | F_FAT_COMMA | F_ARROW, ".", "#", "",
		    perl_stops, CALLS(perl_calls)},
	[L_PHP] = {"'\"", "'", "\"", H_DOLLAR, F_BACKTICK | F_BRACKETS | F_C_COMMENT | F_FAT_COMMA | F_ARROW, ".", "//",
		   "#", no_stops, CALLS(php_calls)},
	[L_AWK] = {"\"", "", "", 0, F_NL_ENDS | F_ADJACENT | F_KEEP_ESC, "", "#", "", no_stops, CALLS(awk_calls)},
	[L_LUA] = {"'\"", "", "", 0, F_NL_ENDS | F_PARENLESS | F_LUA_LONG, "..", "--", "", no_stops, CALLS(lua_calls)},
	[L_R] = {"'\"", "", "", 0, F_KW_EQ, "", "#", "", no_stops, CALLS(r_calls)},
	[L_TCL] = {"\"", "", "", 0, 0, "", "", "", no_stops, NULL, 0},
	[L_OSA] = {"\"", "", "", 0, F_PARENLESS, "&", "--", "#", osa_stops, CALLS(osa_calls)},
	[L_PWSH] = {"'\"", "", "", 0, 0, "", "", "", no_stops, NULL, 0},
	[L_GROOVY] = {"'\"", "", "\"", H_DOLLAR, F_TRIPLE | F_BRACKETS | F_C_COMMENT | F_PARENLESS, "+", "//", "", no_stops,
		      CALLS(groovy_calls)},
	[L_ELIXIR] = {"'\"", "", "'\"", H_HASH, F_TRIPLE | F_BRACKETS | F_KW_COLON | F_PARENLESS, "<>", "#", "", no_stops,
		      CALLS(elixir_calls)},
	[L_JULIA] = {"\"", "", "\"", H_DOLLAR, F_TRIPLE | F_BRACKETS | F_BACKTICK | F_KW_EQ, "*", "#", "", no_stops,
		     CALLS(julia_calls)},
};

typedef struct scanner {
	const char *s; /* the program */
	size_t n, pos;
	const lang *L;
	lang_id id;
	roz_interp_scan *out;
	size_t budget; /* bytes the argument readers may still look at */
	bool stop;
	int rc;
	/* which '|'-lists of modules the program mentions: 0 unknown, 1 no, 2 yes */
	const char *mkey[16];
	unsigned char mval[16];
} scanner;

/* An argument as read: a string, a list of words, or something computed. */
typedef enum arg_kind { ARG_NONE, ARG_SKIP, ARG_STR, ARG_LIST, ARG_OTHER } arg_kind;

typedef struct arg {
	arg_kind kind;
	roz_buf text;   /* ARG_STR: its text; ARG_LIST: the words, quoted, joined by spaces */
	size_t first;   /* ARG_LIST: bytes of text the first word takes */
	size_t nwords;
	bool dyn;       /* a computed part follows the literal start */
	bool frozen;    /* the text stopped growing */
} arg;

static void arg_init(arg *a)
{
	memset(a, 0, sizeof(*a));
	roz_buf_init(&a->text);
}

static void arg_done(scanner *sc, arg *a)
{
	if (roz_buf_failed(&a->text) != ROZ_OK)
		sc->rc = ROZ_ENOMEM;
	roz_buf_dispose(&a->text);
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool ident_start(char c)
{
	return ident_char(c) && !(c >= '0' && c <= '9');
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* One more byte looked at; false (and the scan dynamic) when the budget is spent. */
static bool charge(scanner *sc)
{
	if (sc->stop)
		return false;
	if (sc->budget == 0) {
		sc->stop = true;
		sc->out->dynamic = true;
		return false;
	}
	sc->budget--;
	return true;
}

/* ---- output ---------------------------------------------------------- */

static void emit(scanner *sc, const char *t, size_t n, bool dyn)
{
	roz_interp_scan *o = sc->out;
	char *copy;

	if (dyn)
		o->dynamic = true;
	while (n && is_space(*t)) {
		t++;
		n--;
	}
	while (n && is_space(t[n - 1]))
		n--;
	if (!n || sc->rc != ROZ_OK)
		return;
	if (n > ROZ_INTERP_LINE_MAX) {
		n = ROZ_INTERP_LINE_MAX;
		o->dynamic = true;
		while (n && is_space(t[n - 1]))
			n--;
	}
	for (size_t i = 0; i < o->nlines; i++)
		if (strlen(o->lines[i]) == n && memcmp(o->lines[i], t, n) == 0)
			return;
	if (o->nlines >= ROZ_INTERP_LINES_MAX) {
		o->dynamic = true;
		return;
	}
	if (roz_alloc_array_reserve((void **)&o->lines, &o->cap, sizeof(*o->lines), o->nlines + 1) != ROZ_OK ||
	    !(copy = roz_strndup(t, n))) {
		sc->rc = ROZ_ENOMEM;
		return;
	}
	o->lines[o->nlines++] = copy;
}

/* Does the word need quotes to stay one word for a shell? */
static bool needs_quotes(const char *w, size_t n)
{
	if (!n)
		return true;
	for (size_t i = 0; i < n; i++) {
		char c = w[i];

		if (!ident_char(c) && !strchr("@%+=:,./-", c))
			return true;
	}
	return false;
}

/* Append a word to a line, quoted for a shell when it needs it. */
static void add_word(roz_buf *b, const char *w, size_t n, bool quote)
{
	if (b->len)
		roz_buf_addc(b, ' ');
	if (!quote || !needs_quotes(w, n)) {
		roz_buf_add(b, w, n);
		return;
	}
	roz_buf_addc(b, '\'');
	for (size_t i = 0; i < n; i++)
		if (w[i] == '\'')
			roz_buf_adds(b, "'\\''");
		else
			roz_buf_addc(b, w[i]);
	roz_buf_addc(b, '\'');
}

/* Add a word to a list argument, within the line's size. */
static void list_add(arg *a, const char *w, size_t n)
{
	if (a->frozen)
		return;
	if (a->text.len + n + 3 > ROZ_INTERP_LINE_MAX) {
		a->frozen = true;
		a->dyn = true;
		return;
	}
	add_word(&a->text, w, n, true);
	if (!a->nwords++)
		a->first = a->text.len;
}

/* Add one decoded byte to a string argument. */
static void put(arg *a, char c)
{
	if (a->frozen)
		return;
	if (c == '\0') { /* a C program sees the string end here */
		a->frozen = true;
		return;
	}
	if (a->text.len >= ROZ_INTERP_LINE_MAX) {
		a->frozen = true;
		a->dyn = true;
		return;
	}
	roz_buf_addc(&a->text, c);
}

static void put_utf8(arg *a, unsigned long cp)
{
	if (cp < 0x80) {
		put(a, (char)cp);
	} else if (cp < 0x800) {
		put(a, (char)(0xc0 | (cp >> 6)));
		put(a, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		put(a, (char)(0xe0 | (cp >> 12)));
		put(a, (char)(0x80 | ((cp >> 6) & 0x3f)));
		put(a, (char)(0x80 | (cp & 0x3f)));
	} else {
		put(a, (char)(0xf0 | ((cp >> 18) & 0x07)));
		put(a, (char)(0x80 | ((cp >> 12) & 0x3f)));
		put(a, (char)(0x80 | ((cp >> 6) & 0x3f)));
		put(a, (char)(0x80 | (cp & 0x3f)));
	}
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- string literals ------------------------------------------------- */

/* Where a string starts and how to read it. */
typedef struct strspec {
	int kind;      /* 0 none, 1 a string, 2 a list of words (qw, %w) */
	size_t body;   /* first byte after the opening delimiter */
	char open, close;
	unsigned how;  /* H_* */
	size_t level;  /* lua long brackets: the number of '=' */
	bool lua;      /* a lua long bracket string */
} strspec;

static char closing_of(char d)
{
	switch (d) {
	case '(':
		return ')';
	case '[':
		return ']';
	case '{':
		return '}';
	case '<':
		return '>';
	default:
		return d;
	}
}

/* After a perl q/qq/qw or ruby %q at `p`: the delimiter, or 0. */
static size_t delimiter_at(const scanner *sc, size_t p, bool allow_space)
{
	size_t q = p;

	if (allow_space)
		while (q < sc->n && (sc->s[q] == ' ' || sc->s[q] == '\t'))
			q++;
	if (q >= sc->n)
		return 0;
	if (q > p)
		return strchr("([{<", sc->s[q]) ? q : 0;
	if (ident_char(sc->s[q]) || is_space(sc->s[q]) || strchr("=,;)", sc->s[q]))
		return 0;
	return q;
}

/* Does a string (in the arguments' sense) start at sc->pos? Commands (`...`, qx) are not strings. */
static bool string_at(const scanner *sc, strspec *sp)
{
	const lang *L = sc->L;
	const char *s = sc->s;
	size_t p = sc->pos, n = sc->n;
	char c;
	bool boundary;

	memset(sp, 0, sizeof(*sp));
	if (p >= n)
		return false;
	c = s[p];
	boundary = !(p && ident_char(s[p - 1]));
	if ((L->flags & F_PY_PREFIX) && boundary && strchr("rRbBuUfF", c)) {
		size_t q = p;
		unsigned how = 0;

		while (q < n && q - p < 2 && strchr("rRbBuUfF", s[q])) {
			if (s[q] == 'r' || s[q] == 'R')
				how |= H_NOESC;
			if (s[q] == 'f' || s[q] == 'F')
				how |= H_FBRACE;
			q++;
		}
		if (q >= n || (s[q] != '\'' && s[q] != '"'))
			return false;
		p = q;
		c = s[p];
		sp->how = how;
	} else if ((L->flags & F_PERL_Q) && boundary && c == 'q') {
		size_t q = p + 1, d;

		if (q < n && (s[q] == 'q' || s[q] == 'w'))
			q++;
		if (q < n && ident_char(s[q]))
			return false;
		d = delimiter_at(sc, q, true);
		if (!d)
			return false;
		sp->kind = q - p == 2 && s[p + 1] == 'w' ? 2 : 1;
		sp->how = q - p == 2 && s[p + 1] == 'q' ? H_PERL : H_RAW;
		sp->open = s[d];
		sp->close = closing_of(s[d]);
		sp->body = d + 1;
		return true;
	} else if ((L->flags & F_RUBY_PCT) && c == '%') {
		size_t q = p + 1, d;
		char t = q < n ? s[q] : '\0';

		if (t == 'q' || t == 'Q' || t == 'w' || t == 'W')
			q++;
		else if (!(t == '(' || t == '[' || t == '{' || t == '<'))
			return false;
		d = delimiter_at(sc, q, false);
		if (!d)
			return false;
		sp->kind = t == 'w' || t == 'W' ? 2 : 1;
		sp->how = t == 'q' || t == 'w' ? H_RAW : H_HASH;
		sp->open = s[d];
		sp->close = closing_of(s[d]);
		sp->body = d + 1;
		return true;
	} else if (sc->id == L_ELIXIR && c == '~' && p + 1 < n && strchr("cCsS", s[p + 1]) && s[p + 1]) {
		size_t d = delimiter_at(sc, p + 2, false);

		if (!d)
			return false;
		sp->kind = 1;
		sp->how = s[p + 1] == 'c' || s[p + 1] == 's' ? H_HASH : H_RAW;
		sp->open = s[d];
		sp->close = closing_of(s[d]);
		sp->body = d + 1;
		return true;
	} else if ((L->flags & F_LUA_LONG) && c == '[') {
		size_t q = p + 1;

		while (q < n && s[q] == '=')
			q++;
		if (q >= n || s[q] != '[')
			return false;
		sp->kind = 1;
		sp->lua = true;
		sp->level = q - p - 1;
		sp->open = '[';
		sp->close = ']';
		sp->how = H_NOESC;
		sp->body = q + 1;
		return true;
	}
	if (c == '\0' || !strchr(L->quotes, c))
		return false;
	sp->kind = 1;
	sp->open = sp->close = c;
	if ((L->flags & F_TRIPLE) && p + 2 < n && s[p + 1] == c && s[p + 2] == c) {
		sp->how |= H_TRIPLE;
		sp->body = p + 3;
	} else {
		sp->body = p + 1;
		if ((L->flags & F_NL_ENDS) && c != '`')
			sp->how |= H_NL_ENDS;
	}
	if (strchr(L->raw, c))
		sp->how |= H_RAW;
	if (strchr(L->interp, c))
		sp->how |= L->istyle;
	if (L->flags & F_KEEP_ESC)
		sp->how |= H_KEEP_ESC;
	return true;
}

/* Skip an interpolated ${...} or #{...} whose '{' is at sc->pos. */
static void skip_braces(scanner *sc)
{
	int depth = 0;

	while (sc->pos < sc->n && charge(sc)) {
		char c = sc->s[sc->pos++];

		if (c == '{')
			depth++;
		else if (c == '}' && --depth <= 0)
			return;
	}
}

/* An escape at sc->pos (the backslash). */
static void escape(scanner *sc, const strspec *sp, arg *a)
{
	const char *s = sc->s;
	char d;

	sc->pos++;
	if (sc->pos >= sc->n) {
		put(a, '\\');
		return;
	}
	d = s[sc->pos++];
	if (sp->how & H_NOESC) {
		put(a, '\\');
		put(a, d);
		return;
	}
	if (sp->how & H_RAW) {
		if (d != '\\' && d != sp->close && d != sp->open)
			put(a, '\\');
		put(a, d);
		return;
	}
	switch (d) {
	case 'n': put(a, '\n'); return;
	case 't': put(a, '\t'); return;
	case 'r': put(a, '\r'); return;
	case 'a': put(a, '\a'); return;
	case 'b': put(a, '\b'); return;
	case 'f': put(a, '\f'); return;
	case 'v': put(a, '\v'); return;
	case 'e': put(a, '\033'); return;
	case '\n': return; /* a continued line */
	case 'x': {
		unsigned v = 0;
		int k = 0, h;

		while (k < 2 && sc->pos < sc->n && (h = hex_value(s[sc->pos])) >= 0) {
			v = v * 16 + (unsigned)h;
			sc->pos++;
			k++;
		}
		if (!k) {
			put(a, 'x');
			return;
		}
		put(a, (char)v);
		return;
	}
	case 'u': {
		unsigned long v = 0;
		int k = 0, h;
		bool braced = sc->pos < sc->n && s[sc->pos] == '{';

		sc->pos += braced;
		while (k < (braced ? 6 : 4) && sc->pos < sc->n && (h = hex_value(s[sc->pos])) >= 0) {
			v = v * 16 + (unsigned long)h;
			sc->pos++;
			k++;
		}
		if (braced && sc->pos < sc->n && s[sc->pos] == '}')
			sc->pos++;
		if (!k) {
			put(a, 'u');
			return;
		}
		put_utf8(a, v > 0x10ffff ? 0xfffd : v);
		return;
	}
	default:
		break;
	}
	if (d >= '0' && d <= '7') {
		unsigned v = (unsigned)(d - '0');

		for (int k = 0; k < 2 && sc->pos < sc->n && s[sc->pos] >= '0' && s[sc->pos] <= '7'; k++)
			v = v * 8 + (unsigned)(s[sc->pos++] - '0');
		put(a, (char)(v & 0xff));
		return;
	}
	if ((sp->how & H_KEEP_ESC) && d != '\\' && d != '\'' && d != '"')
		put(a, '\\');
	put(a, d);
}

/* Does an interpolation start at sc->pos? Skips it when it does. */
static bool interpolation(scanner *sc, const strspec *sp)
{
	const char *s = sc->s;
	size_t p = sc->pos;
	char c = s[p], d = p + 1 < sc->n ? s[p + 1] : '\0';

	if ((sp->how & H_HASH) && c == '#' && (d == '{' || d == '@' || d == '$')) {
		sc->pos++;
		if (d == '{')
			skip_braces(sc);
		return true;
	}
	if ((sp->how & (H_DBRACE | H_DOLLAR | H_PERL)) && c == '$' && d == '{') {
		sc->pos++;
		skip_braces(sc);
		return true;
	}
	if (((sp->how & H_DOLLAR) && c == '$' && (ident_start(d) || d == '(')) ||
	    ((sp->how & H_PERL) && ((c == '$' && d && (ident_char(d) || strchr(":$&!@", d))) ||
				    (c == '@' && (ident_start(d) || d == '{' || d == '$'))))) {
		sc->pos++; /* the name that follows is read as frozen text */
		return true;
	}
	if ((sp->how & H_FBRACE) && c == '{') {
		if (d == '{')
			return false;
		skip_braces(sc);
		return true;
	}
	return false;
}

/*
 * Read the string `sp` describes into `a` (its text frozen where a computed
 * part starts). Returns whether it was closed; sc->pos is past it.
 */
static bool lex_string(scanner *sc, const strspec *sp, arg *a)
{
	const char *s = sc->s;
	int depth = 0;

	sc->pos = sp->body;
	while (sc->pos < sc->n && charge(sc)) {
		char c = s[sc->pos];

		if (sp->lua) {
			/* lua long bracket: ]=*] closes, nothing is an escape */
			if (c == ']') {
				size_t q = sc->pos + 1, k = 0;

				while (q < sc->n && s[q] == '=' && k < sp->level) {
					q++;
					k++;
				}
				if (k == sp->level && q < sc->n && s[q] == ']') {
					sc->pos = q + 1;
					return true;
				}
			}
			put(a, c);
			sc->pos++;
			continue;
		}
		if (sp->how & H_TRIPLE) {
			if (c == sp->close && sc->pos + 2 < sc->n && s[sc->pos + 1] == c && s[sc->pos + 2] == c) {
				sc->pos += 3;
				return true;
			}
		} else if (c == sp->close && depth == 0) {
			sc->pos++;
			return true;
		}
		if (sp->open != sp->close) {
			if (c == sp->open)
				depth++;
			else if (c == sp->close)
				depth--;
		}
		if (c == '\n' && (sp->how & H_NL_ENDS))
			return false;
		if (c == '\\') {
			escape(sc, sp, a);
			continue;
		}
		if (interpolation(sc, sp)) {
			a->dyn = true;
			a->frozen = true;
			continue;
		}
		if ((sp->how & H_FBRACE) && (c == '{' || c == '}') && sc->pos + 1 < sc->n && s[sc->pos + 1] == c)
			sc->pos++; /* {{ and }} stand for one brace */
		put(a, c);
		sc->pos++;
	}
	return false;
}

/* Read a qw()/%w() list: the body split at white space. */
static void lex_words(scanner *sc, const strspec *sp, arg *a)
{
	arg body;
	size_t i = 0;

	arg_init(&body);
	lex_string(sc, sp, &body);
	a->kind = ARG_LIST;
	a->dyn |= body.dyn;
	while (body.text.ptr && i < body.text.len) {
		size_t j;

		while (i < body.text.len && is_space(body.text.ptr[i]))
			i++;
		j = i;
		while (j < body.text.len && !is_space(body.text.ptr[j]))
			j++;
		if (j > i)
			list_add(a, body.text.ptr + i, j - i);
		i = j;
	}
	arg_done(sc, &body);
}

/* ---- arguments ------------------------------------------------------- */

static bool starts_with(const scanner *sc, size_t p, const char *w)
{
	size_t k = strlen(w);

	return k && p + k <= sc->n && memcmp(sc->s + p, w, k) == 0;
}

/* A comment at sc->pos: skip it (to the end of the line, which stays). */
static bool skip_comment(scanner *sc)
{
	const lang *L = sc->L;
	size_t p = sc->pos;

	if ((L->flags & F_C_COMMENT) && starts_with(sc, p, "/*")) {
		for (p += 2; p + 1 < sc->n && !(sc->s[p] == '*' && sc->s[p + 1] == '/'); p++)
			if (!charge(sc))
				break;
		sc->pos = p + 2 < sc->n ? p + 2 : sc->n;
		return true;
	}
	if (!starts_with(sc, p, L->comment) && !starts_with(sc, p, L->comment2))
		return false;
	while (p < sc->n && sc->s[p] != '\n' && charge(sc))
		p++;
	sc->pos = p;
	return true;
}

static void skip_space(scanner *sc, char closer)
{
	while (sc->pos < sc->n && !sc->stop) {
		char c = sc->s[sc->pos];

		if (c == ' ' || c == '\t' || c == '\r' || (closer && c == '\n'))
			sc->pos++;
		else if (c == '\\' && sc->pos + 1 < sc->n && sc->s[sc->pos + 1] == '\n')
			sc->pos += 2;
		else if (!skip_comment(sc))
			return;
	}
}

static bool is_stop_word(const scanner *sc)
{
	size_t p = sc->pos, q = p;

	if (p && ident_char(sc->s[p - 1]))
		return false;
	while (q < sc->n && ident_char(sc->s[q]))
		q++;
	for (const char *const *w = sc->L->stops; *w; w++)
		if (strlen(*w) == q - p && memcmp(*w, sc->s + p, q - p) == 0)
			return true;
	return false;
}

/* At the end of one argument: a separator, a closing bracket, the statement's end. */
static bool at_arg_end(const scanner *sc, char closer)
{
	char c;

	if (sc->pos >= sc->n || sc->stop)
		return true;
	c = sc->s[sc->pos];
	if (c == ',' || c == ')' || c == ']' || c == '}')
		return true;
	if ((sc->L->flags & F_FAT_COMMA) && starts_with(sc, sc->pos, "=>"))
		return true;
	return !closer && (c == ';' || c == '\n' || is_stop_word(sc));
}

/* Skip the rest of an argument, brackets and strings included. */
static void skip_rest(scanner *sc, char closer)
{
	int depth = 0;

	while (sc->pos < sc->n && !sc->stop) {
		char c = sc->s[sc->pos];
		strspec sp;

		if (depth == 0 && at_arg_end(sc, closer))
			return;
		if (skip_comment(sc))
			continue;
		if (string_at(sc, &sp)) {
			arg scratch;

			arg_init(&scratch);
			scratch.frozen = true;
			lex_string(sc, &sp, &scratch);
			continue;
		}
		if (!charge(sc))
			return;
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}')
			depth--;
		sc->pos++;
	}
}

static void read_arg(scanner *sc, char closer, arg *a, bool in_list);

static void read_list(scanner *sc, char close, arg *a)
{
	a->kind = ARG_LIST;
	while (sc->pos < sc->n && !sc->stop) {
		arg el;

		arg_init(&el);
		read_arg(sc, close, &el, true);
		if (el.kind == ARG_STR && !el.dyn)
			list_add(a, el.text.ptr ? el.text.ptr : "", el.text.len);
		else if (el.kind != ARG_NONE && el.kind != ARG_SKIP) {
			a->dyn = true;
			a->frozen = true;
		}
		arg_done(sc, &el);
		if (sc->pos < sc->n && sc->s[sc->pos] == ',') {
			sc->pos++;
			continue;
		}
		if ((sc->L->flags & F_FAT_COMMA) && starts_with(sc, sc->pos, "=>")) {
			sc->pos += 2;
			continue;
		}
		if (sc->pos < sc->n && sc->s[sc->pos] == close)
			sc->pos++;
		else
			a->dyn = true; /* not a list as roz reads one */
		return;
	}
}

/* An object or hash at sc->pos ('{'): the list under `args:` or `cmd:` when there is one. */
static void read_object(scanner *sc, arg *a)
{
	int depth = 0;
	bool found = false;

	a->kind = ARG_SKIP;
	while (sc->pos < sc->n && !sc->stop) {
		char c = sc->s[sc->pos];
		strspec sp;

		if (skip_comment(sc))
			continue;
		if (string_at(sc, &sp)) {
			arg scratch;

			arg_init(&scratch);
			scratch.frozen = true;
			lex_string(sc, &sp, &scratch);
			continue;
		}
		if (!charge(sc))
			return;
		if (c == '{' || c == '(' || c == '[') {
			depth++;
		} else if (c == '}' || c == ')' || c == ']') {
			sc->pos++;
			if (--depth <= 0)
				return;
			continue;
		} else if (depth == 1 && !found && ident_start(c) && !ident_char(sc->s[sc->pos - 1])) {
			size_t q = sc->pos, r;

			while (q < sc->n && ident_char(sc->s[q]))
				q++;
			r = q;
			while (r < sc->n && (sc->s[r] == ' ' || sc->s[r] == '\t'))
				r++;
			if ((q - sc->pos == 4 && memcmp(sc->s + sc->pos, "args", 4) == 0) ||
			    (q - sc->pos == 3 && memcmp(sc->s + sc->pos, "cmd", 3) == 0)) {
				if (r < sc->n && sc->s[r] == ':')
					r++;
				else if (starts_with(sc, r, "=>"))
					r += 2;
				else
					r = sc->n;
				while (r < sc->n && is_space(sc->s[r]))
					r++;
				if (r < sc->n && sc->s[r] == '[') {
					sc->pos = r + 1;
					read_list(sc, ']', a);
					found = true;
					continue;
				}
			}
			sc->pos = q;
			continue;
		}
		sc->pos++;
	}
}

/* A keyword argument (name=value, name: value) at sc->pos: false to read on. */
static bool keyword(scanner *sc, char closer, arg *a)
{
	size_t p = sc->pos, q = p, r;
	bool kw = false;

	if (!(sc->L->flags & (F_KW_EQ | F_KW_COLON)))
		return false;
	while (q < sc->n && ident_char(sc->s[q]))
		q++;
	if (q == p || !ident_start(sc->s[p]))
		return false;
	r = q;
	while (r < sc->n && (sc->s[r] == ' ' || sc->s[r] == '\t'))
		r++;
	if ((sc->L->flags & F_KW_EQ) && r < sc->n && sc->s[r] == '=' && (r + 1 >= sc->n || !strchr("=>", sc->s[r + 1])))
		kw = true, r++;
	else if ((sc->L->flags & F_KW_COLON) && q < sc->n && sc->s[q] == ':' && (q + 1 >= sc->n || sc->s[q + 1] != ':'))
		kw = true, r = q + 1;
	if (!kw)
		return false;
	if ((q - p == 4 && memcmp(sc->s + p, "args", 4) == 0) || (q - p == 3 && memcmp(sc->s + p, "cmd", 3) == 0) ||
	    (q - p == 7 && memcmp(sc->s + p, "command", 7) == 0)) {
		sc->pos = r;
		return false;
	}
	a->kind = ARG_SKIP;
	skip_rest(sc, closer);
	return true;
}

/*
 * Read one argument: strings joined by the language's concatenation, a
 * list, an object; anything else is computed. Stops at ',' or a closing
 * bracket (not consumed) or, with no closer, the statement's end.
 */
static void read_arg(scanner *sc, char closer, arg *a, bool in_list)
{
	enum { START, STR, JOIN, VALUE } state = START;
	const lang *L = sc->L;

	skip_space(sc, closer);
	if (keyword(sc, closer, a))
		return;
	for (;;) {
		strspec sp;
		char c;

		skip_space(sc, closer);
		if (at_arg_end(sc, closer))
			break;
		c = sc->s[sc->pos];
		if (state != VALUE && string_at(sc, &sp)) {
			if (sp.kind == 1 && (state == START || state == JOIN || (state == STR && (L->flags & F_ADJACENT))) &&
			    (a->kind == ARG_NONE || a->kind == ARG_STR)) {
				a->kind = ARG_STR;
				lex_string(sc, &sp, a);
				state = STR;
				continue;
			}
			if (sp.kind == 2 && state == START && !in_list) {
				lex_words(sc, &sp, a);
				state = VALUE;
				continue;
			}
		} else if (state == START && !in_list) {
			if (c == '[' && (L->flags & F_BRACKETS)) {
				sc->pos++;
				read_list(sc, ']', a);
				state = VALUE;
				continue;
			}
			if (sc->id == L_R && starts_with(sc, sc->pos, "c(") && !(sc->pos && ident_char(sc->s[sc->pos - 1]))) {
				sc->pos += 2;
				read_list(sc, ')', a);
				state = VALUE;
				continue;
			}
			if (sc->id == L_PHP && starts_with(sc, sc->pos, "array(") &&
			    !(sc->pos && ident_char(sc->s[sc->pos - 1]))) {
				sc->pos += 6;
				read_list(sc, ')', a);
				state = VALUE;
				continue;
			}
			if (c == '{') {
				read_object(sc, a);
				state = VALUE;
				continue;
			}
		} else if (state == STR && starts_with(sc, sc->pos, L->concat) &&
			   !starts_with(sc, sc->pos + strlen(L->concat), "=")) {
			sc->pos += strlen(L->concat);
			state = JOIN;
			continue;
		}
		/* something computed */
		if (a->kind == ARG_NONE)
			a->kind = ARG_OTHER;
		else
			a->dyn = true;
		skip_rest(sc, closer);
		return;
	}
	if (state == JOIN)
		a->dyn = true;
}

/* ---- calls ----------------------------------------------------------- */

/* Does the program name `w` (n bytes) as a whole word anywhere in [from, to)? */
static bool names_in(const scanner *sc, size_t from, size_t to, const char *w, size_t n)
{
	for (size_t i = from; n && i + n <= to; i++)
		if (memcmp(sc->s + i, w, n) == 0 && !(i && ident_char(sc->s[i - 1])) &&
		    !(i + n < sc->n && ident_char(sc->s[i + n])))
			return true;
	return false;
}

/* Does [from, to) name one of the '|'-separated modules? */
static bool names_module(const scanner *sc, size_t from, size_t to, const char *modules)
{
	for (const char *m = modules; *m;) {
		size_t k = strcspn(m, "|");

		if (names_in(sc, from, to, m, k))
			return true;
		m += k + (m[k] == '|');
	}
	return false;
}

/* Does the program mention one of the modules anywhere? (cached per table string) */
static bool mentions_module(scanner *sc, const char *modules)
{
	size_t k;

	for (k = 0; k < sizeof(sc->mkey) / sizeof(sc->mkey[0]) && sc->mkey[k]; k++)
		if (sc->mkey[k] == modules)
			return sc->mval[k] == 2;
	if (sc->budget < sc->n) {
		sc->budget = 0;
		charge(sc);
		return false;
	}
	sc->budget -= sc->n;
	{
		bool yes = names_module(sc, 0, sc->n, modules);

		if (k < sizeof(sc->mkey) / sizeof(sc->mkey[0])) {
			sc->mkey[k] = modules;
			sc->mval[k] = yes ? 2 : 1;
		}
		return yes;
	}
}

/* Is some statement (between ';' or newlines) naming both `q` and one of the modules? */
static bool alias_of(scanner *sc, const char *q, size_t qn, const char *modules)
{
	for (size_t i = 0; i + qn <= sc->n; i++) {
		size_t a, b;

		if (!charge(sc))
			return false;
		if (memcmp(sc->s + i, q, qn) != 0 || (i && ident_char(sc->s[i - 1])) ||
		    (i + qn < sc->n && ident_char(sc->s[i + qn])))
			continue;
		for (a = i; a && sc->s[a - 1] != ';' && sc->s[a - 1] != '\n'; a--)
			;
		for (b = i; b < sc->n && sc->s[b] != ';' && sc->s[b] != '\n'; b++)
			;
		if (sc->budget < b - a)
			return false;
		sc->budget -= b - a;
		if (names_module(sc, a, b, modules))
			return true;
		i = b;
	}
	return false;
}

/* Is the name at i the call `k`, given what qualifies it? *exact: qualified by one of its own modules. */
static bool qualified(scanner *sc, const call *k, size_t i, bool *exact)
{
	const char *s = sc->s;
	size_t q1, q0;

	*exact = false;
	if (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':')
		q1 = i - 2; /* Kernel::system, base::system */
	else if (i >= 2 && s[i - 1] == '>' && s[i - 2] == '-' && (sc->L->flags & F_ARROW))
		q1 = i - 2; /* $obj->exec */
	else if (i >= 1 && s[i - 1] == '.')
		q1 = i - 1;
	else /* bare */
		return k->bare || (k->modules && *k->modules && mentions_module(sc, k->modules));
	for (q0 = q1; q0 && ident_char(s[q0 - 1]); q0--)
		;
	if (q0 == q1) /* `(...).name`, `"...".name`, `::name` */
		return !k->modules || (*k->modules ? mentions_module(sc, k->modules) : k->bare);
	if (!k->modules)
		return true;
	for (const char *m = k->modules; *m;) {
		size_t len = strcspn(m, "|");

		if (len == q1 - q0 && memcmp(m, s + q0, len) == 0) {
			*exact = true;
			return true;
		}
		m += len + (m[len] == '|');
	}
	return *k->modules && alias_of(sc, s + q0, q1 - q0, k->modules);
}

/* The line an argument list gives, for each way of calling. */
static void build(scanner *sc, const call *k, arg *a, size_t na)
{
	roz_buf line = ROZ_BUF_INIT;
	bool dyn = false;
	size_t i = 0;

	switch (k->mode) {
	case M_EVAL:
		if (na && (a[0].kind == ARG_OTHER || a[0].dyn))
			sc->out->dynamic = true;
		return;
	case M_OPEN1:
		if (na && a[0].kind == ARG_STR && a[0].text.len && a[0].text.ptr[0] == '|')
			emit(sc, a[0].text.ptr + 1, a[0].text.len - 1, a[0].dyn);
		return;
	case M_OPEN: {
		const char *t;
		size_t n;

		if (na < 2 || a[1].kind != ARG_STR || !a[1].text.len)
			return;
		t = a[1].text.ptr;
		n = a[1].text.len;
		while (n && is_space(*t))
			t++, n--;
		while (n && is_space(t[n - 1]))
			n--;
		if ((n == 2 && memcmp(t, "-|", 2) == 0) || (n == 2 && memcmp(t, "|-", 2) == 0)) {
			i = 2;
			break; /* the words follow */
		}
		if (n && t[n - 1] == '|')
			emit(sc, t, n - 1, a[1].dyn);
		else if (n && t[0] == '|')
			emit(sc, t + 1, n - 1, a[1].dyn);
		return;
	}
	case M_SPAWN:
		i = 1;
		/* fall through */
	case M_EXEC:
		if (i >= na)
			return;
		if (a[i].kind != ARG_STR || a[i].dyn) {
			dyn = true; /* the program is computed: list what it is given */
			i++;
			break;
		}
		roz_buf_add(&line, a[i].text.ptr, a[i].text.len);
		i++;
		if (i < na && a[i].kind == ARG_LIST) {
			const char *rest = a[i].text.ptr ? a[i].text.ptr + a[i].first : "";

			while (*rest == ' ')
				rest++;
			if (a[i].nwords > 1)
				roz_buf_addf(&line, " %s", rest);
			dyn |= a[i].dyn;
			emit(sc, roz_buf_cstr(&line), line.len, dyn);
			roz_buf_dispose(&line);
			return;
		}
		i++; /* argv[0] */
		break;
	case M_LINE:
	case M_TAG:
		if (!na || a[0].kind == ARG_NONE || a[0].kind == ARG_SKIP)
			return;
		if (a[0].kind == ARG_OTHER)
			sc->out->dynamic = true;
		else
			emit(sc, roz_buf_cstr(&a[0].text), a[0].text.len, a[0].dyn);
		return;
	case M_PROG:
		if (!na)
			return;
		if (a[0].kind == ARG_OTHER || a[0].kind == ARG_NONE || a[0].kind == ARG_SKIP) {
			sc->out->dynamic |= a[0].kind == ARG_OTHER;
			return;
		}
		roz_buf_add(&line, a[0].text.ptr, a[0].text.len);
		dyn = a[0].dyn;
		if (!dyn && na > 1) {
			if (a[1].kind == ARG_LIST || a[1].kind == ARG_STR) {
				if (a[1].text.len)
					roz_buf_addf(&line, " %s", roz_buf_cstr(&a[1].text));
				dyn = a[1].dyn;
			} else if (a[1].kind == ARG_OTHER) {
				dyn = true;
			}
		}
		emit(sc, roz_buf_cstr(&line), line.len, dyn);
		roz_buf_dispose(&line);
		return;
	case M_ALL:
		break;
	}
	/* the arguments from i on are the words: a list, or strings (a single one goes to a shell) */
	while (i < na && a[i].kind == ARG_SKIP)
		i++;
	if (i < na && a[i].kind == ARG_LIST) {
		if (i + 1 < na && a[i + 1].kind == ARG_STR && a[i].nwords) {
			/* [program, argv0], args... */
			roz_buf_add(&line, a[i].text.ptr, a[i].first);
			i++;
		} else {
			roz_buf_add(&line, a[i].text.ptr, a[i].text.len);
			dyn |= a[i].dyn;
			i = na;
		}
	}
	for (bool first = line.len == 0; i < na && !dyn; i++, first = false) {
		if (a[i].kind == ARG_SKIP)
			continue;
		if (a[i].kind == ARG_STR) {
			if (a[i].dyn && !a[i].text.len) {
				dyn = true;
				continue;
			}
			add_word(&line, a[i].text.ptr ? a[i].text.ptr : "", a[i].text.len, !first);
			dyn = a[i].dyn;
		} else if (a[i].kind == ARG_LIST) {
			if (a[i].text.len)
				roz_buf_addf(&line, "%s%s", line.len ? " " : "", roz_buf_cstr(&a[i].text));
			dyn = a[i].dyn;
		} else if (a[i].kind == ARG_OTHER) {
			dyn = true;
		}
	}
	if (!line.len && dyn)
		sc->out->dynamic = true;
	emit(sc, roz_buf_cstr(&line), line.len, dyn);
	if (roz_buf_failed(&line) != ROZ_OK)
		sc->rc = ROZ_ENOMEM;
	roz_buf_dispose(&line);
}

#define MAX_ARGS 8

/* The name at [i, j) is the call `k`'s: read its arguments, list the line. */
static void try_call(scanner *sc, const call *k, size_t i, size_t j)
{
	arg a[MAX_ARGS];
	size_t na = 0, p = j;
	char closer;
	bool exact;
	strspec sp;

	if (!qualified(sc, k, i, &exact))
		return;
	while (p < sc->n && (sc->s[p] == ' ' || sc->s[p] == '\t'))
		p++;
	sc->pos = p;
	if (k->mode == M_TAG) {
		if (p < sc->n && sc->s[p] == '`' && string_at(sc, &sp)) {
			arg_init(&a[0]);
			a[0].kind = ARG_STR;
			lex_string(sc, &sp, &a[0]);
			build(sc, k, a, 1);
			arg_done(sc, &a[0]);
		}
		return;
	}
	if (p < sc->n && sc->s[p] == '(') {
		closer = ')';
		sc->pos = p + 1;
	} else if ((sc->L->flags & F_PARENLESS) && (string_at(sc, &sp) || (p < sc->n && sc->s[p] == '['))) {
		closer = '\0';
	} else {
		if (exact && !(p < sc->n && ident_char(sc->s[p])))
			sc->out->dynamic = true; /* the function itself is handed on: f = os.system */
		return;
	}
	for (;;) {
		arg scratch, *cur = na < MAX_ARGS ? &a[na] : &scratch;

		arg_init(cur);
		read_arg(sc, closer, cur, false);
		if (cur == &scratch)
			arg_done(sc, &scratch);
		else
			na++;
		if (sc->stop || sc->pos >= sc->n)
			break;
		if (sc->s[sc->pos] == ',')
			sc->pos++;
		else if ((sc->L->flags & F_FAT_COMMA) && starts_with(sc, sc->pos, "=>"))
			sc->pos += 2;
		else
			break;
	}
	build(sc, k, a, na);
	for (size_t x = 0; x < na; x++)
		arg_done(sc, &a[x]);
}

/* Every name of a call the language starts processes with, wherever it is. */
static void scan_calls(scanner *sc)
{
	const lang *L = sc->L;

	for (size_t i = 0; i < sc->n && !sc->stop && sc->rc == ROZ_OK;) {
		size_t j = i;
		bool js = sc->id == L_JS;

		if (!(ident_start(sc->s[i]) || (js && sc->s[i] == '$')) ||
		    (i && (ident_char(sc->s[i - 1]) || sc->s[i - 1] == '$' || sc->s[i - 1] == '@'))) {
			i++;
			continue;
		}
		while (j < sc->n && (ident_char(sc->s[j]) || (js && sc->s[j] == '$')))
			j++;
		for (size_t k = 0; k < L->ncalls; k++)
			if (strlen(L->calls[k].name) == j - i && memcmp(L->calls[k].name, sc->s + i, j - i) == 0) {
				try_call(sc, &L->calls[k], i, j);
				break;
			}
		i = j;
	}
}

/* `...`, qx(...), %x(...): commands written as literals. Every backtick may open one. */
static void scan_command_literals(scanner *sc)
{
	const lang *L = sc->L;

	for (size_t i = 0; i < sc->n && !sc->stop && sc->rc == ROZ_OK; i++) {
		const char *s = sc->s;
		strspec sp;
		arg a;
		bool closed;

		memset(&sp, 0, sizeof(sp));
		if ((L->flags & F_BACKTICK) && s[i] == '`') {
			sp.open = sp.close = '`';
			sp.body = i + 1;
			sp.how = sc->id == L_RUBY ? H_HASH : sc->id == L_PERL ? H_PERL : H_DOLLAR;
		} else if ((L->flags & F_PERL_Q) && s[i] == 'q' && i + 1 < sc->n && s[i + 1] == 'x' &&
			   !(i && ident_char(s[i - 1])) && !(i + 2 < sc->n && ident_char(s[i + 2]))) {
			size_t d = delimiter_at(sc, i + 2, true);

			if (!d)
				continue;
			sp.open = s[d];
			sp.close = closing_of(s[d]);
			sp.body = d + 1;
			sp.how = s[d] == '\'' ? H_RAW : H_PERL;
		} else if ((L->flags & F_RUBY_PCT) && s[i] == '%' && i + 1 < sc->n && s[i + 1] == 'x') {
			size_t d = delimiter_at(sc, i + 2, false);

			if (!d)
				continue;
			sp.open = s[d];
			sp.close = closing_of(s[d]);
			sp.body = d + 1;
			sp.how = H_HASH;
		} else {
			continue;
		}
		sp.kind = 1;
		arg_init(&a);
		closed = lex_string(sc, &sp, &a);
		if (closed)
			emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
		arg_done(sc, &a);
	}
}

/* awk: "cmd" | getline, print | "cmd" (and |&). */
static void scan_awk_pipes(scanner *sc)
{
	enum { T_NONE, T_OPERAND, T_OP, T_STR } last = T_NONE, before_str = T_NONE;
	size_t str_at = 0;
	const char *s = sc->s;

	sc->pos = 0;
	while (sc->pos < sc->n && !sc->stop && sc->rc == ROZ_OK && charge(sc)) {
		char c = s[sc->pos];
		strspec sp;

		if (c == ' ' || c == '\t' || c == '\r') {
			sc->pos++;
		} else if (c == '\n' || c == ';' || c == '{' || c == '}') {
			last = T_NONE;
			sc->pos++;
		} else if (skip_comment(sc)) {
			continue;
		} else if (string_at(sc, &sp)) {
			arg scratch;

			arg_init(&scratch);
			scratch.frozen = true;
			before_str = last;
			str_at = sc->pos;
			lex_string(sc, &sp, &scratch);
			last = T_STR;
		} else if (c == '/' && last != T_OPERAND && last != T_STR) {
			/* a regular expression */
			for (sc->pos++; sc->pos < sc->n && s[sc->pos] != '/' && s[sc->pos] != '\n' && charge(sc); sc->pos++)
				if (s[sc->pos] == '\\')
					sc->pos++;
			sc->pos++;
			last = T_OPERAND;
		} else if (c == '|' && sc->pos + 1 < sc->n && s[sc->pos + 1] == '|') {
			sc->pos += 2;
			last = T_OP;
		} else if (c == '|') {
			size_t q = sc->pos + 1 + (sc->pos + 1 < sc->n && s[sc->pos + 1] == '&');

			while (q < sc->n && (s[q] == ' ' || s[q] == '\t'))
				q++;
			if (q + 7 <= sc->n && memcmp(s + q, "getline", 7) == 0 && !(q + 7 < sc->n && ident_char(s[q + 7]))) {
				if (last == T_STR && before_str != T_OPERAND && before_str != T_STR) {
					size_t back = sc->pos;
					arg a;

					sc->pos = str_at;
					arg_init(&a);
					if (string_at(sc, &sp)) {
						lex_string(sc, &sp, &a);
						emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
					}
					arg_done(sc, &a);
					sc->pos = back;
				} else {
					sc->out->dynamic = true;
				}
				sc->pos = q + 7;
				last = T_OPERAND;
			} else {
				arg a;

				sc->pos = q;
				arg_init(&a);
				read_arg(sc, '\0', &a, false);
				if (a.kind == ARG_STR)
					emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
				else
					sc->out->dynamic = true;
				arg_done(sc, &a);
				last = T_OPERAND;
			}
		} else if (ident_char(c)) {
			while (sc->pos < sc->n && ident_char(s[sc->pos]))
				sc->pos++;
			last = T_OPERAND;
		} else {
			last = c == ')' || c == ']' ? T_OPERAND : T_OP;
			sc->pos++;
		}
	}
}

/* One Tcl word at sc->pos into `w`; false at the command's end. */
static bool tcl_word(scanner *sc, arg *w)
{
	const char *s = sc->s;
	char c;

	while (sc->pos < sc->n && ((is_space(s[sc->pos]) && s[sc->pos] != '\n') ||
				   (s[sc->pos] == '\\' && sc->pos + 1 < sc->n && s[sc->pos + 1] == '\n')))
		sc->pos += s[sc->pos] == '\\' ? 2 : 1;
	if (sc->pos >= sc->n || sc->stop)
		return false;
	c = s[sc->pos];
	if (c == '\n' || c == ';' || c == ']' || c == '}')
		return false;
	w->kind = ARG_STR;
	if (c == '{') {
		int depth = 0;

		while (sc->pos < sc->n && charge(sc)) {
			c = s[sc->pos++];
			if (c == '{' && depth++ == 0)
				continue;
			if (c == '}' && --depth == 0)
				return true;
			put(w, c);
		}
		return true;
	}
	if (c == '"')
		sc->pos++;
	while (sc->pos < sc->n && charge(sc)) {
		char d = s[sc->pos];

		if (c == '"' ? d == '"' : (is_space(d) || d == ';' || d == ']')) {
			sc->pos += c == '"';
			return true;
		}
		if (d == '$' || d == '[') {
			w->dyn = true;
			w->frozen = true;
			if (d == '[') {
				int depth = 0;

				for (; sc->pos < sc->n && charge(sc); sc->pos++) {
					if (s[sc->pos] == '[')
						depth++;
					else if (s[sc->pos] == ']' && --depth == 0)
						break;
				}
			}
			sc->pos++;
			continue;
		}
		if (d == '\\' && sc->pos + 1 < sc->n) {
			strspec sp;

			memset(&sp, 0, sizeof(sp));
			sp.open = sp.close = '"';
			escape(sc, &sp, w);
			continue;
		}
		put(w, d);
		sc->pos++;
	}
	return true;
}

static bool tcl_operator(const char *w, size_t n)
{
	return n && strspn(w, "|&<>@0123456789") == n && strcspn(w, "|&<>") < n;
}

/* Tcl and expect: exec/spawn/system words ..., open "|cmd". */
static void scan_tcl(scanner *sc, bool expect)
{
	const char *s = sc->s;

	for (size_t i = 0; i < sc->n && !sc->stop && sc->rc == ROZ_OK;) {
		size_t j = i;
		bool words, open;

		if (!ident_start(s[i]) || (i && !strchr(" \t\r\n;[{", s[i - 1]))) {
			i++;
			continue;
		}
		while (j < sc->n && ident_char(s[j]))
			j++;
		words = (j - i == 4 && memcmp(s + i, "exec", 4) == 0) ||
			(expect && ((j - i == 5 && memcmp(s + i, "spawn", 5) == 0) ||
				    (j - i == 6 && memcmp(s + i, "system", 6) == 0)));
		open = j - i == 4 && memcmp(s + i, "open", 4) == 0;
		sc->pos = j;
		if (words) {
			roz_buf line = ROZ_BUF_INIT;
			bool dyn = false, options = true;

			for (;;) {
				arg w;
				bool more;

				arg_init(&w);
				more = tcl_word(sc, &w);
				if (more && options && w.text.len && w.text.ptr[0] == '-' && !w.dyn) {
					options = !(w.text.len == 2 && w.text.ptr[1] == '-');
				} else if (more) {
					options = false;
					if (!dyn && (w.text.len || !w.dyn))
						add_word(&line, w.text.ptr ? w.text.ptr : "", w.text.len,
							 !tcl_operator(roz_buf_cstr(&w.text), w.text.len));
					dyn |= w.dyn;
				}
				arg_done(sc, &w);
				if (!more || line.len > ROZ_INTERP_LINE_MAX)
					break;
			}
			if (!line.len && dyn)
				sc->out->dynamic = true;
			emit(sc, roz_buf_cstr(&line), line.len, dyn);
			if (roz_buf_failed(&line) != ROZ_OK)
				sc->rc = ROZ_ENOMEM;
			roz_buf_dispose(&line);
		} else if (open) {
			arg w;

			arg_init(&w);
			if (tcl_word(sc, &w) && w.text.len && w.text.ptr[0] == '|')
				emit(sc, w.text.ptr + 1, w.text.len - 1, w.dyn);
			arg_done(sc, &w);
		}
		i = sc->pos > j ? sc->pos : j;
	}
}

/* AppleScript: do shell script "..." (words in any case, any spacing). */
static void scan_osa(scanner *sc)
{
	static const char *const words[] = {"do", "shell", "script"};
	const char *s = sc->s;

	for (size_t i = 0; i < sc->n && !sc->stop && sc->rc == ROZ_OK; i++) {
		size_t p = i;
		bool ok = !(i && ident_char(s[i - 1]));

		for (size_t w = 0; ok && w < 3; w++) {
			size_t k = strlen(words[w]);

			if (w) {
				size_t q = p;

				while (q < sc->n && (s[q] == ' ' || s[q] == '\t'))
					q++;
				ok = q > p;
				p = q;
			}
			ok = ok && p + k <= sc->n && strncasecmp(s + p, words[w], k) == 0 && !(p + k < sc->n && ident_char(s[p + k]));
			p += k;
		}
		if (ok) {
			arg a;

			sc->pos = p;
			arg_init(&a);
			read_arg(sc, '\0', &a, false);
			if (a.kind == ARG_STR)
				emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
			else if (a.kind == ARG_OTHER)
				sc->out->dynamic = true;
			arg_done(sc, &a);
		}
	}
}

/* Groovy: "git push".execute(), ["git", "push"].execute(). */
static void scan_groovy_execute(scanner *sc)
{
	const char *s = sc->s;

	for (size_t i = 1; i + 8 <= sc->n && !sc->stop && sc->rc == ROZ_OK; i++) {
		char b;
		size_t k;
		arg a;

		if (memcmp(s + i, ".execute", 8) != 0 || (i + 8 < sc->n && ident_char(s[i + 8])))
			continue;
		b = s[i - 1];
		arg_init(&a);
		if (b == '"' || b == '\'') {
			strspec sp;

			for (k = i - 1; k > 0 && charge(sc) && !(s[k - 1] == b && !(k >= 2 && s[k - 2] == '\\')); k--)
				;
			sc->pos = k ? k - 1 : 0;
			if (k && string_at(sc, &sp)) {
				a.kind = ARG_STR;
				lex_string(sc, &sp, &a);
				emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
			} else {
				sc->out->dynamic = true;
			}
		} else if (b == ']') {
			int depth = 0;

			for (k = i; k > 0 && charge(sc); k--) {
				if (s[k - 1] == ']')
					depth++;
				else if (s[k - 1] == '[' && --depth == 0)
					break;
			}
			if (k) {
				sc->pos = k;
				read_list(sc, ']', &a);
				emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
			} else {
				sc->out->dynamic = true;
			}
		} else {
			sc->out->dynamic = true;
		}
		arg_done(sc, &a);
	}
}

/* PowerShell runs commands as it reads them: read its program as a shell line. */
static void scan_pwsh(scanner *sc)
{
	roz_shell_result r;

	if (roz_shell_parse(sc->s, sc->n, &r) != ROZ_OK) {
		sc->rc = ROZ_ENOMEM;
		return;
	}
	if (r.flags)
		sc->out->dynamic = true;
	for (size_t i = 0; i < r.ncmds && sc->rc == ROZ_OK; i++)
		emit(sc, r.cmds[i].line, strlen(r.cmds[i].line), r.cmds[i].known < strlen(r.cmds[i].line));
	roz_shell_result_dispose(&r);
}

static int scan_text(lang_id id, const char *text, size_t n, roz_interp_scan *out)
{
	scanner sc;

	memset(&sc, 0, sizeof(sc));
	sc.s = text;
	sc.n = n;
	sc.id = id;
	sc.L = &langs[id];
	sc.out = out;
	sc.budget = 64 * n + 65536;
	sc.rc = ROZ_OK;
	switch (id) {
	case L_PWSH:
		scan_pwsh(&sc);
		break;
	case L_TCL:
		scan_tcl(&sc, true);
		break;
	default:
		scan_calls(&sc);
		if (sc.L->flags & (F_BACKTICK | F_PERL_Q | F_RUBY_PCT))
			scan_command_literals(&sc);
		if (id == L_AWK)
			scan_awk_pipes(&sc);
		else if (id == L_OSA)
			scan_osa(&sc);
		else if (id == L_GROOVY)
			scan_groovy_execute(&sc);
		break;
	}
	return sc.rc;
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

static bool in_list(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
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
	static const char *const bun_quiet[] = {"install", "i", "add", "a", "remove", "rm", "update", "link", "unlink",
						"pm", "init", "create", "c", "upgrade", "outdated", "publish", "patch",
						"audit", "info", "build", "help", "completions", NULL};
	static const char *const node_lib[] = {"--require", "--import", "--loader", "--experimental-loader", NULL};

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
			else if ((it->opts & O_SUBCMD) && !pg->has_code && in_list(w, bun_quiet))
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
				for (size_t k = 0; node_lib[k]; k++) {
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
	static const char *const quiet[] = {"fmt", "lint", "info", "doc", "check", "cache", "types", "upgrade",
					    "completions", "init", "lsp", "install", "uninstall", "add", "remove",
					    "outdated", "publish", "vendor", "clean", "help", NULL};
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
	if (in_list(cmd->words[i], quiet))
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
			static const char *const valued[] = {"--source", "--file", "--exec", "--include", "--load",
							     "--assign", "--field-separator", NULL};

			for (size_t k = 0; valued[k]; k++) {
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
		rc = scan_text(it->lang, roz_buf_cstr(&pg.code), pg.code.len, out);
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
			rc = scan_text(it->lang, body, strlen(body), out);
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
