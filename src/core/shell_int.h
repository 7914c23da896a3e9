/*
 * shell_int.h - what the parts of the shell reader share. The reader is
 * split by how often each part changes: shell_lex.c turns text into tokens
 * the way bash does (quotes, escapes, operators, here-documents,
 * substitutions) and changes only when bash does; shell_parse.c holds the
 * grammar and reports what it finds; shell_rules.c and shell_wrap.c hold
 * roz's own rules about which commands run other commands and what counts
 * as dynamic (shell_wrap.c the wrappers and the programs with rules of
 * their own, shell_git.c git's), the part that grows with every wrapper
 * and spelling found.
 *
 * Not part of roz's API (that is roz/shell.h): the names here start with
 * shell_ and are linked only into the core library.
 */
#ifndef ROZ_SHELL_INT_H
#define ROZ_SHELL_INT_H

#include <string.h>

#include "roz/shell.h"

/* Deepest nesting of substitutions, compound commands and nested shells. */
#define MAX_NEST 32
/* How much of an offending word a reason quotes. */
#define CLIP 60
/* An offset that is not there: no computed part seen yet. */
#define NONE ((size_t)-1)

/* What lexing found in a word. */
enum {
	SW_QUOTED = 1u << 0, /* some quoting or escaping was removed */
	SW_EXP = 1u << 1,    /* holds a parameter, command or arithmetic expansion */
	SW_GLOB = 1u << 2,   /* unquoted *, ? or [...]: pathname expansion */
	SW_BRACE = 1u << 3   /* unquoted {a,b} or {1..3}: brace expansion */
};

enum tok_kind {
	TK_EOF, TK_WORD, TK_NEWLINE, TK_SEMI, TK_AMP, TK_AND, TK_OR, TK_PIPE,
	TK_LPAREN, TK_RPAREN, TK_DSEMI, TK_REDIR
};

/* Only what matters for finding commands: does it feed stdin, and how. */
enum redir_kind { R_IN, R_OUT, R_HEREDOC, R_HEREDOC_TABS, R_HERESTR };

/* Tokens that close a list; a bit each so a caller can accept several. */
enum {
	T_EOF = 0,
	T_RPAREN = 1u << 0,
	T_RBRACE = 1u << 1,
	T_DSEMI = 1u << 2,
	T_ESAC = 1u << 3,
	T_THEN = 1u << 4,
	T_ELIF = 1u << 5,
	T_ELSE = 1u << 6,
	T_FI = 1u << 7,
	T_DO = 1u << 8,
	T_DONE = 1u << 9
};
#define NTERM 10

/* A word of a command: its cooked text and what of it is computed at run time. */
struct sword {
	char *s;
	unsigned flags; /* SW_* */
	roz_shell_word info;
};

struct words {
	struct sword *v;
	size_t n, cap;
};

struct token {
	enum tok_kind kind;
	enum redir_kind redir; /* TK_REDIR */
	int fd;                /* TK_REDIR: the descriptor's number, -1 when not written */
	const char *op;        /* operator text, for reasons */
	roz_buf text;          /* TK_WORD: the word with quotes removed */
	unsigned flags;        /* TK_WORD: SW_* */
	roz_shell_word info;   /* TK_WORD: what of it is computed at run time */
	size_t raw, rawend;    /* TK_WORD: its place in the source */
};

struct heredoc {
	char *delim;
	bool quoted, tabs;
	bool to_shell;  /* the body is a script for a shell reading stdin */
	unsigned depth; /* depth its commands are reported at */
};

/*
 * One source being read. Substitutions such as $(...) are parsed in place
 * on the same lexer, which is how bash finds their end; backquote bodies
 * and nested-shell payloads get a lexer of their own.
 */
struct lexer {
	const char *s;
	size_t pos, end;
	struct token tok; /* one token of lookahead */
	bool peeked;
	bool cond;        /* inside [[ ]], where ( ) < > && || are words */
	struct heredoc *hd; /* here-documents whose bodies start at the next newline */
	size_t nhd, caphd;
	unsigned long gen;  /* bumped whenever the pending bodies are read */
	unsigned open[NTERM]; /* how many enclosing constructs wait for each terminator */
};

/* One roz_shell_parse() call: the result being filled and how deep the reading is. */
struct parser {
	roz_shell_result *out;
	unsigned depth; /* reported depth of the commands being read */
	unsigned level; /* recursion nesting, capped at MAX_NEST */
	bool halt;      /* stop reading: out of memory or nested too deep */
	bool nomem;
	bool arith;        /* the line has an arithmetic context */
	bool quoted_subst; /* quoted or escaped text holds `$(` or a backquote */
	char **aliases;    /* names the line defines aliases for */
	size_t naliases, capaliases;
	unsigned env_files; /* ENV_FILE_*: a file a shell sources first is named on the line */
};

enum { ENV_FILE_BASH = 1u << 0, ENV_FILE_SH = 1u << 1 };

/* What a wrapper puts into the words of the command it runs. */
struct feed {
	bool more_args;   /* appends arguments */
	const char *repl; /* fills in words holding this text */
	unsigned part;    /* ROZ_SHELL_PART_FED or ROZ_SHELL_PART_FOUND */
	const char *why;  /* for reasons */
};

/* Where a command's standard input comes from, when that can matter. */
enum { IN_TTY, IN_FILE, IN_PIPE, IN_PIPE_TEXT, IN_HEREDOC, IN_HERESTR, IN_PROCSUB };

struct input {
	int kind;
	char *text;       /* IN_PIPE_TEXT, IN_HERESTR; IN_PROCSUB: the source inside <( ) */
	struct lexer *l;  /* IN_HEREDOC: the lexer holding the pending body */
	size_t hd;
	unsigned long gen;
	int fd;             /* in the `more` list: the descriptor it feeds */
	struct input *more; /* other descriptors this command's redirections feed, owned */
};

static inline int ch(const struct lexer *l, size_t at)
{
	return at < l->end ? (unsigned char)l->s[at] : -1;
}

static inline bool name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool name_char(int c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* Static words: everything known. */
static inline roz_shell_word known_word(const char *s)
{
	size_t n = strlen(s);
	roz_shell_word w = {n, n, 0};

	return w;
}

/* The slot of a terminator (one T_* bit) in lexer.open. */
static inline unsigned term_index(unsigned term)
{
	unsigned i = 0;

	while (term > 1u) {
		term >>= 1;
		i++;
	}
	return i;
}

/* ---- shell_parse.c: bookkeeping, reporting, the grammar ----------------- */

/* Out of memory: stop reading; roz_shell_parse() then fails. */
void shell_nomem(struct parser *p);
/* Raise a result flag (ROZ_SHELL_*); the first reason given is the one kept. */
void shell_flag(struct parser *p, unsigned which, const char *fmt, ...) ROZ_PRINTF(3, 4);
/* How much of s a reason quotes: one line, at most CLIP bytes. */
int shell_clip(const char *s);
/* Every recursive step goes through these, so hostile nesting cannot blow the stack. */
bool shell_enter(struct parser *p);
void shell_leave(struct parser *p);

/*
 * Report the command `head w[0] ... w[n-1]` at the current depth. hinfo
 * describes head (NULL: all known); f is what a wrapper feeds it (or NULL);
 * at most `cap` bytes of the line are known before it runs. Returns its
 * index in the result, or NONE when out of memory.
 */
size_t shell_emit(struct parser *p, const char *head, const roz_shell_word *hinfo,
		  const struct sword *w, size_t n, const struct feed *f, size_t cap);
/* Mark a reported command (shell_emit's answer) as one that runs another. */
void shell_mark_wrapper(struct parser *p, size_t at);
/* Remember a name in a list of strings, once. */
void shell_add_name(struct parser *p, char ***list, size_t *n, size_t *cap, const char *s, size_t len);
/* A variable the line assigns: NAME, NAME=..., NAME[i]=..., NAME+=... */
void shell_note_assigned(struct parser *p, const char *s);

/*
 * Commands up to a terminator the caller accepts (returned, not consumed)
 * or the end of input (T_EOF).
 */
unsigned shell_parse_list(struct parser *p, struct lexer *l, unsigned accept);
/* s[start, end) as a script of its own, at the current depth. */
void shell_parse_range(struct parser *p, const char *s, size_t start, size_t end);
/* A script given as text (sh -c, eval, here-string, ...), one level down. */
void shell_parse_payload(struct parser *p, const char *s, size_t len);

/* ---- shell_lex.c: tokens ------------------------------------------------ */

/* Length of a leading `NAME=`, `NAME+=` or `NAME[sub]=`, or 0. */
size_t shell_assign_len(const char *s, size_t n);

/* A lexer over s[start, end). Inline: one is set up for every script and substitution body. */
static inline void shell_lexer_init(struct lexer *l, const char *s, size_t start, size_t end)
{
	memset(l, 0, sizeof(*l));
	l->s = s;
	l->pos = start;
	l->end = end;
}

/* Release a lexer; bodies still pending at the end never arrived. */
void shell_lexer_finish(struct parser *p, struct lexer *l);

/* Read the token at l->pos into *t, which owns its text. */
void shell_lex_token(struct parser *p, struct lexer *l, struct token *t);
/* After a newline token: read the pending here-document bodies, each up to its delimiter line. */
void shell_read_heredocs(struct parser *p, struct lexer *l);

/*
 * The token stream the grammar reads: one token of lookahead kept in the
 * lexer. Inline, because the grammar asks at every step and nearly always
 * finds the token already there; a call each time costs a measurable part
 * of a hook's work on the line.
 */

/* The next token, lexed once and kept until consumed. */
static inline struct token *shell_peek(struct parser *p, struct lexer *l)
{
	if (!l->peeked) {
		struct token t;

		/* lexing can parse substitutions on this lexer, so fill the slot after */
		shell_lex_token(p, l, &t);
		l->tok = t;
		l->peeked = true;
	}
	return &l->tok;
}

/* Drop the peeked token; after a newline, read the pending here-document bodies. */
static inline void shell_consume(struct parser *p, struct lexer *l)
{
	bool newline = l->peeked && l->tok.kind == TK_NEWLINE;

	if (l->peeked)
		roz_buf_dispose(&l->tok.text);
	l->peeked = false;
	if (newline && l->nhd)
		shell_read_heredocs(p, l);
}

/* Hand over the peeked word's text (caller frees); NULL when out of memory. */
static inline char *shell_take_text(struct parser *p, struct lexer *l)
{
	char *s = roz_buf_detach(&l->tok.text, NULL);

	l->peeked = false;
	if (!s)
		shell_nomem(p);
	return s;
}

/* Whether the text from l->s[i] on, after `$((` or `((`, closes as arithmetic with `))`. */
bool shell_arith_closes(const struct lexer *l, size_t i);
/* The inside of $(( )) or (( )), up to and past the closing `))`. */
void shell_lex_arith(struct parser *p, struct lexer *l);

/* ---- shell_rules.c: what a command runs --------------------------------- */

/*
 * Report a simple command (assignments and redirections already gone) and
 * everything it runs in turn. in is where its standard input comes from;
 * hops counts the wrappers already peeled; feed is what a wrapper outside
 * this call puts into the words (or NULL).
 */
void shell_run_words(struct parser *p, const struct sword *w, size_t n,
		     const struct input *in, unsigned hops, const struct feed *feed);
/* What a pipeline stage writes into *next, when that is known text a shell might read. */
void shell_pipe_output(struct parser *p, const struct sword *w, size_t n, struct input *in,
		       struct input *next);
/* What can only be judged once the whole line is read (aliases, git config, arithmetic). */
void shell_settle(struct parser *p);

/* ---- shell_rules.c and shell_wrap.c: what the two share ----------------- */

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

/*
 * Commands that run another command given as their remaining arguments.
 * Text is held in arrays, not pointers: a pointer in a static table is
 * relocated, so written, at every start of the program (see WORDS_W).
 */
struct wrapper {
	char name[17];
	char valopts[22];       /* short options that take a value */
	char longval[437];      /* long options that take the next word as value */
	char payload;           /* short option whose value is shell text */
	char payload_long[13];  /* long option whose value is shell text, or "" */
	unsigned operands;      /* words between the options and the command */
	bool assigns;           /* NAME=value words may precede the command */
	enum wkind kind;
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

/* shell_rules.c */

const char *shell_base_name(const char *s);
/* Say what a reported command runs that the line does not show; the first reason stays. */
void shell_set_opaque(struct parser *p, size_t at, const char *why);
/* Words joined by spaces; echo/printf escapes decoded when asked. NULL if empty. */
char *shell_join_words(struct parser *p, const struct sword *w, size_t n, bool decode);
/* The words, joined by spaces, as a script of their own. */
void shell_run_joined(struct parser *p, const struct sword *w, size_t n);
/* A shell reading its script from stdin (or another descriptor): find that script if it is known. */
void shell_stdin(struct parser *p, const struct input *in, size_t at);
/*
 * Tables of words are `static const char t[][W]`, never arrays of pointers:
 * roz is a PIE, and every pointer in a static table is relocated by the
 * loader at each start, which writes (copies) the table's pages whether or
 * not the table is used; an array of chars stays in read-only data and
 * costs nothing until read. W is the longest word's length plus one.
 */
/* How many words table t holds. */
#define WORDS_N(t) (sizeof(t) / sizeof((t)[0]))
/* The width of table t's words; does not compile for an array of pointers. */
#define WORDS_W(t) _Generic(&(t)[0], const char (*)[sizeof((t)[0])]: sizeof((t)[0]))
/* Whether s is one of the n words of width w at t, exactly or ignoring case. */
bool shell_in_table(const char *s, const char *t, size_t n, size_t w, bool icase);
/* Whether s is in word table t, ignoring case. */
#define shell_word_in(s, t) shell_in_table((s), (t)[0], WORDS_N(t), WORDS_W(t), true)
/* Whether s is in word table t, exactly. */
#define shell_in_words(s, t) shell_in_table((s), (t)[0], WORDS_N(t), WORDS_W(t), false)

/* shell_wrap.c */

/*
 * A long option as GNU getopt reads it: the whole name, or a prefix of only
 * one name in the list. Returns the name found in the list, or NULL.
 */
const char *shell_long_find(const char *list, const char *name, size_t len);
/* name[0, len) spells the long option `full`, abbreviated to no fewer than min bytes. */
bool shell_long_is(const char *name, size_t len, const char *full, size_t min);
/* The wrapper named `name` ("sudo", "uv run"), or NULL. */
const struct wrapper *shell_find_wrapper(const char *name);
/*
 * The subcommand of `prog [options] sub ...`: the first operand, or the
 * second when options come first (one of them may have taken the first as
 * its value). Calls match(key "prog sub") on each; returns the index of the
 * one that answers, or 0.
 */
size_t shell_find_sub(const struct sword *w, size_t n, bool (*match)(const char *key, void *ctx), void *ctx);
/* A shell_find_sub match: ctx is a `const struct wrapper **` set to the wrapper found. */
bool shell_match_wrapper(const char *key, void *ctx);
/* Skip a wrapper's options (and their values) to find what it runs. */
void shell_unwrap(const struct wrapper *wr, const struct sword *w, size_t n, struct unwrapped *u);
/* GNU parallel: a command and its inputs, or commands as inputs. */
bool shell_run_parallel(struct parser *p, const struct sword *w, size_t n, size_t cmd,
			const struct input *in, size_t *end);
/* The project's own tasks: make, just, npm run, cargo run, `yarn <script>`, ... */
void shell_task_opaque(struct parser *p, const char *name, const struct sword *w, size_t n, size_t at);
/* gdb: -ex text is gdb commands, of which shell, !, python and pipe run anything; --args runs a program. */
size_t shell_run_gdb(struct parser *p, const struct sword *w, size_t n, size_t at);
/* vim/nvim/ex: -c, --cmd and +cmd are editor commands, where `!` runs shell text; -S/-s read a script. */
void shell_run_vim(struct parser *p, const char *name, const struct sword *w, size_t n,
		   const struct input *in, size_t at);
/* emacs/emacsclient: --eval, -l, -f and --script run Lisp, which can run anything. */
void shell_run_emacs(struct parser *p, const struct sword *w, size_t n, size_t at);
/* Database shells (psql, sqlite3, mysql, mariadb): -c/-e/-cmd text and what stdin holds. */
void shell_run_db(struct parser *p, const char *name, const struct sword *w, size_t n,
		  const struct input *in, size_t at);
/* hyperfine: each operand, and --prepare/--setup/--cleanup/--conclude, is shell text it times. */
void shell_run_hyperfine(struct parser *p, const struct sword *w, size_t n);
/* bwrap: options with one, two or three values, then the command it runs in the sandbox. */
size_t shell_bwrap_start(const struct sword *w, size_t n);
/* nix-shell: --run and --command take shell text; otherwise an interactive shell. */
void shell_run_nix_shell(struct parser *p, const struct sword *w, size_t n);
/* tmux [-L sock] cmd [args] [; cmd ...]: -c and the commands that start programs run shell text. */
bool shell_run_tmux(struct parser *p, const struct sword *w, size_t n, size_t at);
/* at/batch: the script on stdin (or in -f FILE) runs later. */
void shell_run_at(struct parser *p, const struct sword *w, size_t n, const struct input *in, size_t at);

/* ---- shell_git.c: what git runs ------------------------------------------ */

/* git with its global options: the subcommand reported without them too. */
void shell_git_variant(struct parser *p, const struct sword *w, size_t n, const struct feed *f);
/* git-push, git-receive-pack, ...: reported as `git <sub> ...`. */
void shell_git_helper(struct parser *p, const char *sub, const struct sword *w, size_t n,
		      const struct feed *f);
/* gh with its options: the command reported as gh would read it too. */
void shell_gh_variant(struct parser *p, const struct sword *w, size_t n, const struct feed *f);
/* Once the whole line is read: what the line does to git's own configuration. */
void shell_git_settle(struct parser *p);

#endif
