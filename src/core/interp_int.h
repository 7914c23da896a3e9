/*
 * interp_int.h - private to the interpreter module (roz/interp.h): what
 * interp.c (the interpreter table and which program a command runs),
 * interp_lex.c (the scan's reading of program text) and interp_calls.c
 * (the calls that start processes, the per-language scanners) share. Not
 * installed; nothing outside those files includes it.
 */
#ifndef ROZ_INTERP_INT_H
#define ROZ_INTERP_INT_H

#include "roz/interp.h"

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

/*
 * The tables below hold their strings in char arrays, not pointers: roz is
 * a PIE, and a static table of pointers is relocated (its pages written)
 * at every start, read or not.
 */

/* call.modules: any qualifier names it */
#define ANY_MODULE "*"

typedef struct call {
	char name[24];
	/*
	 * Qualifiers that name it, '|' separated ("os|posix"); ANY_MODULE
	 * accepts any qualifier, "" none. Another qualifier is accepted when a
	 * statement of the program names both it and one of these (`import
	 * subprocess as sp`, `const cp = require("child_process")`).
	 */
	char modules[22];
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

/* lang.stops: which list of words ends a call written without parentheses */
typedef enum stops_id { S_NONE, S_RUBY, S_PERL, S_OSA } stops_id;

/* Those lists, indexed by stops_id, each ended by "" (interp_calls.c). */
#define STOPS_MAX 10
#define STOP_LEN 9
extern const char interp_stops[][STOPS_MAX][STOP_LEN];

typedef struct lang {
	char quotes[4];       /* characters that open a string */
	char raw[2];          /* of those, the ones with only \\ and \<quote> escapes */
	char interp[3];       /* of those, the ones that interpolate, the `istyle` way */
	unsigned istyle;      /* H_HASH, H_DOLLAR, H_DBRACE or H_PERL */
	unsigned flags;
	char concat[3];       /* the operator joining two strings, or "" */
	char comment[3];      /* line comment start, or "" */
	char comment2[2];
	stops_id stops;       /* words that end a call written without parentheses */
} lang;

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

/* Where a string starts and how to read it. */
typedef struct strspec {
	int kind;      /* 0 none, 1 a string, 2 a list of words (qw, %w) */
	size_t body;   /* first byte after the opening delimiter */
	char open, close;
	unsigned how;  /* H_* */
	size_t level;  /* lua long brackets: the number of '=' */
	bool lua;      /* a lua long bracket string */
} strspec;

/* ---- interp_lex.c: reading program text -------------------------------- */

void interp_arg_init(arg *a);
void interp_arg_done(scanner *sc, arg *a);
bool interp_ident_char(char c);
bool interp_ident_start(char c);
bool interp_is_space(char c);
/* One more byte looked at; false (and the scan dynamic) when the budget is spent. */
bool interp_charge(scanner *sc);

/* output */
void interp_emit(scanner *sc, const char *t, size_t n, bool dyn);
/* Append a word to a line, quoted for a shell when it needs it. */
void interp_add_word(roz_buf *b, const char *w, size_t n, bool quote);
/* Add one decoded byte to a string argument. */
void interp_put(arg *a, char c);

/* string literals */
char interp_closing_of(char d);
/* After a perl q/qq/qw or ruby %q at `p`: the delimiter, or 0. */
size_t interp_delimiter_at(const scanner *sc, size_t p, bool allow_space);
/* Does a string (in the arguments' sense) start at sc->pos? Commands (`...`, qx) are not strings. */
bool interp_string_at(const scanner *sc, strspec *sp);
/* An escape at sc->pos (the backslash). */
void interp_escape(scanner *sc, const strspec *sp, arg *a);
/*
 * Read the string `sp` describes into `a` (its text frozen where a computed
 * part starts). Returns whether it was closed; sc->pos is past it.
 */
bool interp_lex_string(scanner *sc, const strspec *sp, arg *a);

/* arguments */
bool interp_starts_with(const scanner *sc, size_t p, const char *w);
/* A comment at sc->pos: skip it (to the end of the line, which stays). */
bool interp_skip_comment(scanner *sc);
void interp_read_list(scanner *sc, char close, arg *a);
/*
 * Read one argument: strings joined by the language's concatenation, a
 * list, an object; anything else is computed. Stops at ',' or a closing
 * bracket (not consumed) or, with no closer, the statement's end.
 */
void interp_read_arg(scanner *sc, char closer, arg *a, bool in_list);

/* ---- interp_calls.c: the scan ------------------------------------------ */

/* Scan `text` (n bytes) written in language `id`, adding the lines it starts to `out`. */
int interp_scan_text(lang_id id, const char *text, size_t n, roz_interp_scan *out);

#endif
