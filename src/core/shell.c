/*
 * shell.c - reads a Bash tool command the way bash would and reports every
 * simple command it runs, so that Bash:<pattern> gates see `git push` however
 * it is quoted, wrapped, chained, substituted or handed to a nested shell.
 */
#include "roz/shell.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Where a `$`, backquote or backslash is being read: the rules differ. */
enum { M_UNQ, M_DQ, M_HEREDOC };

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

static const struct {
	const char *word;
	unsigned term;
} keyword_terms[] = {
	{"}", T_RBRACE}, {"esac", T_ESAC}, {"then", T_THEN}, {"elif", T_ELIF},
	{"else", T_ELSE}, {"fi", T_FI}, {"do", T_DO}, {"done", T_DONE},
};

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
	int fd;                /* TK_REDIR: 0 for stdin, -1 when not written */
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
};

/*
 * Cooked text of a word being read; b is NULL when only scanning. Computed
 * parts are kept as their source text, so their offsets in the cooked text
 * say how much of the word is known before the line runs.
 */
struct acc {
	roz_buf *b;
	unsigned flags;
	unsigned parts;    /* ROZ_SHELL_PART_* */
	size_t dyn;        /* offset of the first computed part, or NONE */
	size_t dyn_nohome; /* the same, a leading $HOME aside */
	size_t home_len;   /* length of a leading $HOME or ${HOME}, or 0 */
};

#define ACC_INIT(buf) {(buf), 0, 0, NONE, NONE, 0}

/* What a wrapper puts into the words of the command it runs. */
struct feed {
	bool more_args;   /* appends arguments */
	const char *repl; /* fills in words holding this text */
	unsigned part;    /* ROZ_SHELL_PART_FED or ROZ_SHELL_PART_FOUND */
	const char *why;  /* for reasons */
};

/* Where a command's standard input comes from, when that can matter. */
enum { IN_TTY, IN_FILE, IN_PIPE, IN_PIPE_TEXT, IN_HEREDOC, IN_HERESTR };

struct input {
	int kind;
	char *text;       /* IN_PIPE_TEXT, IN_HERESTR */
	struct lexer *l;  /* IN_HEREDOC: the lexer holding the pending body */
	size_t hd;
	unsigned long gen;
};

static unsigned parse_list(struct parser *p, struct lexer *l, unsigned accept);
static void parse_command(struct parser *p, struct lexer *l, struct input *in,
			  struct input *next, struct words *v);
static void parse_group(struct parser *p, struct lexer *l);
static void lex_dollar(struct parser *p, struct lexer *l, struct acc *a, int mode);
static void lex_dquote(struct parser *p, struct lexer *l, struct acc *a, int mode);
static void lex_backquote(struct parser *p, struct lexer *l, struct acc *a, int mode);
static void lex_word(struct parser *p, struct lexer *l, struct token *t);
static void parse_range(struct parser *p, const char *s, size_t start, size_t end);
static void run_words(struct parser *p, const struct sword *w, size_t n,
		      const struct input *in, unsigned hops, const struct feed *feed);

/* ---- bookkeeping -------------------------------------------------------- */

static void nomem(struct parser *p)
{
	p->nomem = true;
	p->halt = true;
}

static void flag(struct parser *p, unsigned which, const char *fmt, ...) ROZ_PRINTF(3, 4);

/* Raise a result flag; the first reason given is the one kept. */
static void flag(struct parser *p, unsigned which, const char *fmt, ...)
{
	roz_buf b = ROZ_BUF_INIT;
	va_list ap;

	if (p->nomem)
		return;
	p->out->flags |= which;
	if (p->out->reason)
		return;
	va_start(ap, fmt);
	roz_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (roz_buf_failed(&b)) {
		roz_buf_free(&b);
		nomem(p);
		return;
	}
	p->out->reason = roz_buf_detach(&b, NULL);
	if (!p->out->reason)
		nomem(p);
}

/* How much of s a reason quotes: one line, at most CLIP bytes. */
static int clip(const char *s)
{
	size_t n = strcspn(s, "\n");

	return n > CLIP ? CLIP : (int)n;
}

/* Every recursive step goes through here, so hostile nesting cannot blow the stack. */
static bool enter(struct parser *p)
{
	if (p->halt)
		return false;
	if (p->level >= MAX_NEST) {
		flag(p, ROZ_SHELL_UNPARSED, "nesting deeper than %d levels", MAX_NEST);
		p->halt = true;
		return false;
	}
	p->level++;
	return true;
}

static void leave(struct parser *p)
{
	p->level--;
}

/* Append source text, dropping NUL bytes as bash does. */
static void acc_add(struct acc *a, const char *s, size_t n)
{
	const char *z;

	if (!a->b)
		return;
	while (n && (z = memchr(s, '\0', n)) != NULL) {
		if (z > s)
			roz_buf_add(a->b, s, (size_t)(z - s));
		n -= (size_t)(z - s) + 1;
		s = z + 1;
	}
	if (n)
		roz_buf_add(a->b, s, n);
}

static void acc_addc(struct acc *a, char c)
{
	if (a->b && c)
		roz_buf_addc(a->b, c);
}

/* A computed part starts at cooked offset `at`; home_len when it is a leading $HOME. */
static void acc_dyn(struct acc *a, size_t at, unsigned part, size_t home_len)
{
	if (!a->b)
		return;
	a->parts |= part;
	if (at < a->dyn)
		a->dyn = at;
	if (home_len && at == 0)
		a->home_len = home_len;
	else if (at < a->dyn_nohome)
		a->dyn_nohome = at;
}

static size_t acc_len(const struct acc *a)
{
	return a->b ? a->b->len : 0;
}

/* Text that reaches a command as data but would run if evaluated again. */
static bool holds_subst(const char *s, size_t n)
{
	return memchr(s, '`', n) || memmem(s, n, "$(", 2) || memmem(s, n, "$[", 2);
}

/* Static words: everything known. */
static roz_shell_word known_word(const char *s)
{
	size_t n = strlen(s);
	roz_shell_word w = {n, n, 0};

	return w;
}

static int ch(const struct lexer *l, size_t at)
{
	return at < l->end ? (unsigned char)l->s[at] : -1;
}

static bool name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(int c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* Length of a leading `NAME=`, `NAME+=` or `NAME[sub]=`, or 0. */
static size_t assign_len(const char *s, size_t n)
{
	size_t i = 0;

	if (!n || !name_start((unsigned char)s[0]))
		return 0;
	while (i < n && name_char((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '[') {
		const char *e = memchr(s + i, ']', n - i);

		if (!e)
			return 0;
		i = (size_t)(e - s) + 1;
	}
	if (i < n && s[i] == '+')
		i++;
	return i < n && s[i] == '=' ? i + 1 : 0;
}

static unsigned term_index(unsigned term)
{
	unsigned i = 0;

	while (term > 1u) {
		term >>= 1;
		i++;
	}
	return i;
}

static void open_terms(struct lexer *l, unsigned terms, bool opening)
{
	unsigned i;

	for (i = 0; i < NTERM; i++)
		if (terms & (1u << i))
			l->open[i] = opening ? l->open[i] + 1 : l->open[i] - 1;
}

static void lexer_init(struct lexer *l, const char *s, size_t start, size_t end)
{
	memset(l, 0, sizeof(*l));
	l->s = s;
	l->pos = start;
	l->end = end;
}

static void input_clear(struct input *in)
{
	roz_free(in->text);
	memset(in, 0, sizeof(*in));
	in->kind = IN_TTY;
}

static void words_free(struct words *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		roz_free(v->v[i].s);
	roz_free(v->v);
	memset(v, 0, sizeof(*v));
}

/* ---- reporting ---------------------------------------------------------- */

static void cmd_free(roz_shell_cmd *c)
{
	size_t i;

	for (i = 0; i < c->nwords; i++)
		roz_free(c->words[i]);
	roz_free(c->words);
	roz_free(c->line);
	roz_free(c->info);
	memset(c, 0, sizeof(*c));
}

/* What a word of a reported command leaves to run time, wrapper input included. */
static roz_shell_word word_info(const char *s, roz_shell_word info, const struct feed *f)
{
	const char *hit = f && f->repl ? strstr(s, f->repl) : NULL;

	if (hit) {
		size_t at = (size_t)(hit - s);

		if (at < info.known)
			info.known = at;
		if (at < info.known_home)
			info.known_home = at;
		info.parts |= f->part;
	}
	return info;
}

/*
 * Report the command `head w[0] ... w[n-1]` at the current depth. hinfo
 * describes head (NULL: all known); f is what a wrapper feeds it (or NULL);
 * at most `cap` bytes of the line are known before it runs.
 */
static size_t emit(struct parser *p, const char *head, const roz_shell_word *hinfo,
		   const struct sword *w, size_t n, const struct feed *f, size_t cap)
{
	roz_shell_result *r = p->out;
	roz_shell_cmd *c;
	size_t i, len = 0, at = NONE;
	char *q;

	if (p->nomem)
		return NONE;
	if (roz_array_reserve((void **)&r->cmds, &r->cap, sizeof(*r->cmds), r->ncmds + 1) < 0) {
		nomem(p);
		return NONE;
	}
	c = &r->cmds[r->ncmds];
	memset(c, 0, sizeof(*c));
	c->depth = p->depth;
	c->words = roz_calloc(n + 1, sizeof(*c->words));
	c->info = roz_calloc(n + 1, sizeof(*c->info));
	if (!c->words || !c->info)
		goto fail;
	for (i = 0; i <= n; i++) {
		const char *s = i ? w[i - 1].s : head;
		roz_shell_word info = i ? w[i - 1].info : hinfo ? *hinfo : known_word(head);

		c->words[i] = roz_strdup(s);
		if (!c->words[i])
			goto fail;
		c->nwords = i + 1;
		c->info[i] = word_info(s, info, f);
		if (at == NONE && c->info[i].known < strlen(s)) {
			/* a computed word may be empty and vanish, taking its space with it */
			at = len + c->info[i].known - (i && !c->info[i].known);
			if (f && (c->info[i].parts & f->part) && c->info[i].known == (size_t)(strstr(s, f->repl) - s))
				c->why = f->why;
		}
		len += strlen(s) + 1;
	}
	c->line = roz_malloc(len);
	if (!c->line)
		goto fail;
	for (q = c->line, i = 0; i <= n; i++) {
		size_t k = strlen(c->words[i]);

		if (i)
			*q++ = ' ';
		memcpy(q, c->words[i], k);
		q += k;
	}
	*q = '\0';
	c->known = at < len - 1 ? at : len - 1;
	if (cap < c->known) {
		c->known = cap;
		c->why = NULL;
	}
	c->more_args = f && f->more_args;
	if (c->more_args && c->known == len - 1)
		c->why = f->why;
	return r->ncmds++;
fail:
	cmd_free(c);
	nomem(p);
	return NONE;
}

/* Mark a reported command (emit's answer) as one that runs another. */
static void mark_wrapper(struct parser *p, size_t at)
{
	if (at != NONE && at < p->out->ncmds)
		p->out->cmds[at].wrapper = true;
}

/* Remember a name in a list of strings, once. */
static void add_name(struct parser *p, char ***list, size_t *n, size_t *cap, const char *s, size_t len)
{
	char *copy;

	if (!len || p->nomem)
		return;
	for (size_t i = 0; i < *n; i++)
		if (strlen((*list)[i]) == len && !memcmp((*list)[i], s, len))
			return;
	if (roz_array_reserve((void **)list, cap, sizeof(**list), *n + 1) < 0 ||
	    !(copy = roz_strndup(s, len))) {
		nomem(p);
		return;
	}
	(*list)[(*n)++] = copy;
}

/* A variable the line assigns: NAME, NAME=..., NAME[i]=..., NAME+=... */
static void note_assigned(struct parser *p, const char *s)
{
	size_t n = 0;

	if (!name_start((unsigned char)s[0]))
		return;
	while (name_char((unsigned char)s[n]))
		n++;
	if (s[n] == '[')
		p->arith = true; /* an indexed array's subscript is arithmetic */
	add_name(p, &p->out->names, &p->out->nnames, &p->out->capnames, s, n);
}

/* ---- lexing words ------------------------------------------------------- */

static void lex_squote(struct parser *p, struct lexer *l, struct acc *a)
{
	size_t start = l->pos + 1;
	const char *q = start < l->end ? memchr(l->s + start, '\'', l->end - start) : NULL;

	a->flags |= SW_QUOTED;
	if (!q) {
		if (start < l->end)
			acc_add(a, l->s + start, l->end - start);
		l->pos = l->end;
		flag(p, ROZ_SHELL_UNPARSED, "unterminated single quote");
		return;
	}
	acc_add(a, l->s + start, (size_t)(q - l->s) - start);
	if (holds_subst(l->s + start, (size_t)(q - l->s) - start))
		p->quoted_subst = true;
	l->pos = (size_t)(q - l->s) + 1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void add_utf8(struct acc *a, unsigned long cp)
{
	char u[4];

	if (cp < 0x80) {
		acc_addc(a, (char)cp);
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		acc_add(a, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		acc_add(a, u, 3);
	} else if (cp < 0x110000) {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		acc_add(a, u, 4);
	}
}

/* $'...': decoded, because $'\x67it' is the word git. */
static void lex_ansi(struct parser *p, struct lexer *l, struct acc *a)
{
	static const char simple[] = "a\ab\be\033E\033f\fn\nr\rt\tv\v\\\\''\"\"??";
	size_t from = acc_len(a), raw = l->pos;

	a->flags |= SW_QUOTED;
	l->pos += 2;
	while (l->pos < l->end) {
		int c = ch(l, l->pos), e, i, max;
		unsigned long v;
		const char *hit;

		if (c == '\'') {
			l->pos++;
			/* escapes can spell `$(`: look at the decoded text, or at any escape when not keeping it */
			if (a->b ? a->b->ptr && holds_subst(a->b->ptr + from, a->b->len - from)
				 : memchr(l->s + raw, '\\', l->pos - raw) || holds_subst(l->s + raw, l->pos - raw))
				p->quoted_subst = true;
			return;
		}
		if (c != '\\' || l->pos + 1 >= l->end) {
			acc_addc(a, (char)c);
			l->pos++;
			continue;
		}
		e = ch(l, l->pos + 1);
		l->pos += 2;
		hit = e ? strchr(simple, e) : NULL;
		if (hit && (hit - simple) % 2 == 0) {
			acc_addc(a, hit[1]);
		} else if (e == 'c') {
			if (l->pos < l->end)
				acc_addc(a, (char)(ch(l, l->pos++) & 0x1F));
		} else if (e == 'x' || e == 'u' || e == 'U') {
			max = e == 'x' ? 2 : e == 'u' ? 4 : 8;
			for (v = 0, i = 0; i < max && hexval(ch(l, l->pos)) >= 0; i++, l->pos++)
				v = v * 16 + (unsigned long)hexval(ch(l, l->pos));
			if (!i) {
				acc_addc(a, '\\');
				acc_addc(a, (char)e);
			} else if (e == 'x') {
				acc_addc(a, (char)v);
			} else {
				add_utf8(a, v);
			}
		} else if (e >= '0' && e <= '7') {
			v = (unsigned long)(e - '0');
			for (i = 1; i < 3 && ch(l, l->pos) >= '0' && ch(l, l->pos) <= '7'; i++, l->pos++)
				v = v * 8 + (unsigned long)(ch(l, l->pos) - '0');
			acc_addc(a, (char)(v & 0xFF));
		} else {
			acc_addc(a, '\\');
			acc_addc(a, (char)e);
		}
	}
	flag(p, ROZ_SHELL_UNPARSED, "unterminated $'...' string");
}

/*
 * Parse a list in place up to its `)`: $(...), <(...) and >(...). Outer
 * constructs cannot be closed from inside a substitution, so their
 * terminators are hidden for the duration.
 */
static void nested_list(struct parser *p, struct lexer *l, const char *what)
{
	unsigned saved[NTERM];
	bool cond = l->cond;

	if (!enter(p))
		return;
	memcpy(saved, l->open, sizeof(saved));
	memset(l->open, 0, sizeof(l->open));
	l->open[term_index(T_RPAREN)] = 1;
	l->cond = false;
	p->depth++;
	if (parse_list(p, l, T_RPAREN) == T_RPAREN) {
		l->peeked = false; /* `)` carries no text */
	} else {
		l->peeked = false; /* end of input */
		if (!p->halt)
			flag(p, ROZ_SHELL_UNPARSED, "unterminated %s", what);
	}
	p->depth--;
	l->cond = cond;
	memcpy(l->open, saved, sizeof(saved));
	leave(p);
}

/*
 * Whether the text after `$((` or `((` closes as arithmetic with `))`. A
 * dry scan is needed because `$((cmd) )` is a command substitution; it stops
 * at the first unbalanced `)`, so it only re-reads text that is then parsed.
 */
static bool arith_closes(const struct lexer *l, size_t i)
{
	unsigned long nest = 0;

	while (i < l->end) {
		char c = l->s[i];

		if (c == '\\') {
			i += 2;
			continue;
		}
		if (c == '\'' || c == '"') {
			for (i++; i < l->end && l->s[i] != c; i++)
				if (c == '"' && l->s[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (c == '(') {
			nest++;
		} else if (c == ')') {
			if (!nest)
				return i + 1 < l->end && l->s[i + 1] == ')';
			nest--;
		}
		i++;
	}
	return false;
}

/* The inside of $(( )) or (( )), up to and past the closing `))`. */
static void lex_arith(struct parser *p, struct lexer *l)
{
	struct acc none = ACC_INIT(NULL);
	unsigned long nest = 0;

	p->arith = true;
	if (!enter(p))
		return;
	while (l->pos < l->end && !p->halt) {
		int c = ch(l, l->pos);

		if (c == '(') {
			nest++;
			l->pos++;
		} else if (c == ')') {
			if (!nest) {
				l->pos += ch(l, l->pos + 1) == ')' ? 2 : 1;
				leave(p);
				return;
			}
			nest--;
			l->pos++;
		} else if (c == '\\') {
			l->pos += l->pos + 1 < l->end ? 2 : 1;
		} else if (c == '\'') {
			lex_squote(p, l, &none);
		} else if (c == '"') {
			lex_dquote(p, l, &none, M_DQ);
		} else if (c == '$') {
			lex_dollar(p, l, &none, M_DQ);
		} else if (c == '`') {
			lex_backquote(p, l, &none, M_UNQ);
		} else {
			l->pos++;
		}
	}
	if (!p->halt)
		flag(p, ROZ_SHELL_UNPARSED, "unterminated arithmetic expression");
	leave(p);
}

/* The inside of ${...}: defaults like ${x:-$(cmd)} run commands too. */
static void lex_param(struct parser *p, struct lexer *l, int mode)
{
	struct acc none = ACC_INIT(NULL);

	p->arith = true; /* subscripts and offsets are arithmetic */
	if (!enter(p))
		return;
	while (l->pos < l->end && !p->halt) {
		int c = ch(l, l->pos);

		if (c == '}') {
			l->pos++;
			leave(p);
			return;
		}
		if (c == '\\')
			l->pos += l->pos + 1 < l->end ? 2 : 1;
		else if (c == '\'' && mode == M_UNQ)
			lex_squote(p, l, &none);
		else if (c == '"')
			lex_dquote(p, l, &none, M_DQ);
		else if (c == '$')
			lex_dollar(p, l, &none, mode == M_UNQ ? M_UNQ : M_DQ);
		else if (c == '`')
			lex_backquote(p, l, &none, mode);
		else
			l->pos++;
	}
	if (!p->halt)
		flag(p, ROZ_SHELL_UNPARSED, "unterminated ${");
	leave(p);
}

/* At a `$`: an expansion keeps its source text in the word. */
static void lex_dollar(struct parser *p, struct lexer *l, struct acc *a, int mode)
{
	size_t start = l->pos;
	int c = ch(l, start + 1);

	if (c == '\'' && mode == M_UNQ) {
		lex_ansi(p, l, a);
		return;
	}
	if (c == '"' && mode == M_UNQ) {
		l->pos++;
		lex_dquote(p, l, a, M_DQ);
		return;
	}
	if (c == '(') {
		if (ch(l, start + 2) == '(' && arith_closes(l, start + 3)) {
			l->pos = start + 3;
			lex_arith(p, l);
		} else {
			l->pos = start + 2;
			nested_list(p, l, "command substitution $(");
		}
	} else if (c == '{') {
		l->pos = start + 2;
		lex_param(p, l, mode);
	} else if (name_start(c)) {
		for (l->pos = start + 2; name_char(ch(l, l->pos)); l->pos++)
			;
	} else if (c > 0 && strchr("0123456789@*#?-$!", c)) {
		l->pos = start + 2;
	} else {
		acc_addc(a, '$');
		l->pos = start + 1;
		return;
	}
	a->flags |= SW_EXP;
	{
		size_t n = l->pos - start;
		const char *src = l->s + start;
		bool home = (n == 5 && !memcmp(src, "$HOME", 5)) || (n == 7 && !memcmp(src, "${HOME}", 7));

		acc_dyn(a, acc_len(a), ROZ_SHELL_PART_EXPANSION, home ? n : 0);
		acc_add(a, src, n);
	}
}

/*
 * Double-quoted text (M_DQ, at the opening quote) or an unquoted
 * here-document body (M_HEREDOC, the whole lexer range): only $, ` and
 * backslash are special, and substitutions still run.
 */
static void lex_dquote(struct parser *p, struct lexer *l, struct acc *a, int mode)
{
	if (mode == M_DQ) {
		a->flags |= SW_QUOTED;
		l->pos++;
	}
	while (l->pos < l->end && !p->halt) {
		size_t run = l->pos;
		int c, n;

		while (run < l->end && l->s[run] != '\\' && l->s[run] != '$' && l->s[run] != '`' &&
		       (mode != M_DQ || l->s[run] != '"'))
			run++;
		acc_add(a, l->s + l->pos, run - l->pos);
		l->pos = run;
		if (run >= l->end)
			break;
		c = ch(l, run);
		if (c == '"') {
			l->pos++;
			return;
		}
		if (c == '$') {
			lex_dollar(p, l, a, mode);
		} else if (c == '`') {
			lex_backquote(p, l, a, mode);
		} else {
			n = ch(l, run + 1);
			if (n == '\n') {
				l->pos += 2;
			} else if (n == '$' || n == '`' || n == '\\' || (n == '"' && mode == M_DQ)) {
				if (n == '$' || n == '`')
					p->quoted_subst = true;
				acc_addc(a, (char)n);
				l->pos += 2;
			} else {
				acc_addc(a, '\\');
				l->pos++;
			}
		}
	}
	if (mode == M_DQ && !p->halt)
		flag(p, ROZ_SHELL_UNPARSED, "unterminated double quote");
}

/* `...`: unescape the body, then parse it as a script of its own. */
static void lex_backquote(struct parser *p, struct lexer *l, struct acc *a, int mode)
{
	roz_buf body = ROZ_BUF_INIT;
	size_t start = l->pos, i = l->pos + 1, run;
	bool closed = false;

	while (i < l->end) {
		for (run = i; run < l->end && l->s[run] != '`' && l->s[run] != '\\'; run++)
			;
		if (run > i)
			roz_buf_add(&body, l->s + i, run - i);
		i = run;
		if (i >= l->end)
			break;
		if (l->s[i] == '`') {
			closed = true;
			break;
		}
		if (i + 1 < l->end) {
			char n = l->s[i + 1];

			if (n == '$' || n == '`' || n == '\\' || (n == '"' && mode == M_DQ)) {
				roz_buf_addc(&body, n);
				i += 2;
				continue;
			}
		}
		roz_buf_addc(&body, '\\');
		i++;
	}
	l->pos = closed ? i + 1 : l->end;
	a->flags |= SW_EXP;
	acc_dyn(a, acc_len(a), ROZ_SHELL_PART_EXPANSION, 0);
	acc_add(a, l->s + start, l->pos - start);
	if (!closed)
		flag(p, ROZ_SHELL_UNPARSED, "unterminated backquote");
	if (body.oom) {
		roz_buf_free(&body);
		nomem(p);
		return;
	}
	if (body.len && enter(p)) {
		p->depth++;
		parse_range(p, body.ptr, 0, body.len);
		p->depth--;
		leave(p);
	}
	roz_buf_free(&body);
}

/* NAME=( ... ): the elements are words whose substitutions run. */
static void lex_array(struct parser *p, struct lexer *l)
{
	if (!enter(p))
		return;
	l->pos++;
	while (!p->halt) {
		int c = ch(l, l->pos);
		struct token t;
		size_t before;

		if (c < 0) {
			flag(p, ROZ_SHELL_UNPARSED, "unterminated array assignment");
			break;
		}
		if (c == ')') {
			l->pos++;
			break;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\0') {
			l->pos++;
			continue;
		}
		if (c == '#') {
			const char *nl = memchr(l->s + l->pos, '\n', l->end - l->pos);

			l->pos = nl ? (size_t)(nl - l->s) : l->end;
			continue;
		}
		before = l->pos;
		memset(&t, 0, sizeof(t));
		lex_word(p, l, &t);
		roz_buf_free(&t.text);
		if (l->pos == before)
			l->pos++; /* a stray operator character */
	}
	leave(p);
}

/* Parentheses inside a [[ ]] word, e.g. an extglob or a regex group. */
static void lex_pgroup(struct parser *p, struct lexer *l, struct acc *a)
{
	unsigned long nest = 0;

	while (l->pos < l->end && !p->halt) {
		int c = ch(l, l->pos);

		if (c == '(' || c == ')') {
			acc_addc(a, (char)c);
			l->pos++;
			if (c == '(')
				nest++;
			else if (--nest == 0)
				return;
		} else if (c == '\\') {
			a->flags |= SW_QUOTED;
			if (l->pos + 1 < l->end)
				acc_addc(a, l->s[l->pos + 1]);
			l->pos += l->pos + 1 < l->end ? 2 : 1;
		} else if (c == '\'') {
			lex_squote(p, l, a);
		} else if (c == '"') {
			lex_dquote(p, l, a, M_DQ);
		} else if (c == '$') {
			lex_dollar(p, l, a, M_UNQ);
		} else if (c == '`') {
			lex_backquote(p, l, a, M_UNQ);
		} else {
			acc_addc(a, (char)c);
			l->pos++;
		}
	}
}

static bool word_special(unsigned char c)
{
	switch (c) {
	case ' ': case '\t': case '\n': case ';': case '&': case '|': case '(': case ')':
	case '<': case '>': case '\\': case '\'': case '"': case '$': case '`':
	case '*': case '?': case '[': case ']': case '{': case '}': case '\0':
		return true;
	default:
		return false;
	}
}

/* One unquoted word: quotes removed, expansions kept as their source text. */
static void lex_word(struct parser *p, struct lexer *l, struct token *t)
{
	struct acc a = ACC_INIT(&t->text);
	size_t start = l->pos, brace = 0, brace_at = 0, bracket_at = NONE;
	bool in_brace = false, bracket = false, array_checked = false;

	while (l->pos < l->end && !p->halt) {
		size_t run = l->pos;
		int c;

		while (run < l->end && !word_special((unsigned char)l->s[run]))
			run++;
		acc_add(&a, l->s + l->pos, run - l->pos);
		l->pos = run;
		if (run >= l->end)
			break;
		c = (unsigned char)l->s[run];
		switch (c) {
		case ' ': case '\t': case '\n': case ';': case '&': case '|': case ')':
			goto done;
		case '<': case '>':
			if (ch(l, run + 1) != '(')
				goto done;
			l->pos = run + 2;
			nested_list(p, l, "process substitution");
			a.flags |= SW_EXP;
			acc_dyn(&a, acc_len(&a), ROZ_SHELL_PART_EXPANSION, 0);
			acc_add(&a, l->s + run, l->pos - run);
			break;
		case '(':
			if (!array_checked && run > start && l->s[run - 1] == '=') {
				array_checked = true;
				if (assign_len(l->s + start, run - start) == run - start) {
					lex_array(p, l);
					acc_add(&a, l->s + run, l->pos - run);
					break;
				}
			}
			if (l->cond && run > start) {
				lex_pgroup(p, l, &a);
				break;
			}
			goto done;
		case '\\':
			if (run + 1 >= l->end) {
				acc_addc(&a, '\\');
				l->pos++;
			} else if (l->s[run + 1] == '\n') {
				l->pos += 2;
			} else {
				a.flags |= SW_QUOTED;
				if (l->s[run + 1] == '$' || l->s[run + 1] == '`')
					p->quoted_subst = true;
				acc_addc(&a, l->s[run + 1]);
				l->pos += 2;
			}
			break;
		case '\'':
			lex_squote(p, l, &a);
			break;
		case '"':
			lex_dquote(p, l, &a, M_DQ);
			break;
		case '$':
			lex_dollar(p, l, &a, M_UNQ);
			break;
		case '`':
			lex_backquote(p, l, &a, M_UNQ);
			break;
		case '*': case '?':
			a.flags |= SW_GLOB;
			acc_dyn(&a, acc_len(&a), ROZ_SHELL_PART_GLOB, 0);
			acc_addc(&a, (char)c);
			l->pos++;
			break;
		case '[':
			bracket = true;
			if (bracket_at == NONE)
				bracket_at = acc_len(&a);
			acc_addc(&a, (char)c);
			l->pos++;
			break;
		case ']':
			if (bracket) {
				a.flags |= SW_GLOB;
				acc_dyn(&a, bracket_at, ROZ_SHELL_PART_GLOB, 0);
			}
			acc_addc(&a, (char)c);
			l->pos++;
			break;
		case '{':
			in_brace = true;
			brace = run;
			brace_at = acc_len(&a);
			acc_addc(&a, (char)c);
			l->pos++;
			break;
		case '}':
			/* each `{` is looked at by one `}` only, which keeps this linear */
			if (in_brace && (memchr(l->s + brace, ',', run - brace) ||
					 memmem(l->s + brace, run - brace, "..", 2))) {
				a.flags |= SW_BRACE;
				acc_dyn(&a, brace_at, ROZ_SHELL_PART_BRACE, 0);
			}
			in_brace = false;
			acc_addc(&a, (char)c);
			l->pos++;
			break;
		default: /* NUL */
			l->pos++;
			break;
		}
	}
done:
	t->kind = TK_WORD;
	t->flags = a.flags;
	t->raw = start;
	t->rawend = l->pos;
	t->info.parts = a.parts;
	t->info.known = a.dyn < t->text.len ? a.dyn : t->text.len;
	t->info.known_home = a.dyn_nohome < t->text.len ? a.dyn_nohome : t->text.len;
	/* ${HOME}x is not a path at the home directory */
	if (a.home_len && t->text.ptr && t->text.ptr[a.home_len] != '/' && t->text.ptr[a.home_len] != '\0')
		t->info.known_home = 0;
	if (t->text.oom)
		nomem(p);
}

/* ---- tokens ------------------------------------------------------------- */

/* An operator token: its kind, the text named in messages, and the `len` bytes it takes. */
static void op_token(struct lexer *l, struct token *t, enum tok_kind kind, const char *op, size_t len)
{
	t->kind = kind;
	t->op = op;
	l->pos += len;
}

static void redir_token(struct lexer *l, struct token *t, enum redir_kind redir, const char *op, size_t len)
{
	op_token(l, t, TK_REDIR, op, len);
	t->redir = redir;
}

static void lex_redir(struct lexer *l, struct token *t)
{
	int n1 = ch(l, l->pos + 1), n2 = ch(l, l->pos + 2);

	if (l->s[l->pos] == '>')
		redir_token(l, t, R_OUT, n1 == '>' ? ">>" : n1 == '|' ? ">|" : n1 == '&' ? ">&" : ">",
			    n1 == '>' || n1 == '|' || n1 == '&' ? 2 : 1);
	else if (n1 == '<' && n2 == '<')
		redir_token(l, t, R_HERESTR, "<<<", 3);
	else if (n1 == '<' && n2 == '-')
		redir_token(l, t, R_HEREDOC_TABS, "<<-", 3);
	else if (n1 == '<')
		redir_token(l, t, R_HEREDOC, "<<", 2);
	else
		redir_token(l, t, R_IN, n1 == '>' ? "<>" : n1 == '&' ? "<&" : "<",
			    n1 == '>' || n1 == '&' ? 2 : 1);
}

static void lex_token(struct parser *p, struct lexer *l, struct token *t)
{
	int c, n;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	for (;;) {
		if (p->halt || l->pos >= l->end) {
			t->kind = TK_EOF;
			t->op = "end of input";
			return;
		}
		c = (unsigned char)l->s[l->pos];
		if (c == ' ' || c == '\t' || c == '\0' || (c == '\n' && l->cond)) {
			l->pos++;
		} else if (c == '\\' && ch(l, l->pos + 1) == '\n') {
			l->pos += 2;
		} else if (c == '#') {
			const char *nl = memchr(l->s + l->pos, '\n', l->end - l->pos);

			l->pos = nl ? (size_t)(nl - l->s) : l->end;
		} else {
			break;
		}
	}
	n = ch(l, l->pos + 1);
	if (l->cond && strchr("()<>&|", c)) {
		size_t len = (c == '&' || c == '|') && n == c ? 2 : 1;

		roz_buf_add(&t->text, l->s + l->pos, len);
		t->kind = TK_WORD;
		t->info.known = t->info.known_home = len;
		t->raw = l->pos;
		l->pos += len;
		t->rawend = l->pos;
		if (t->text.oom)
			nomem(p);
		return;
	}
	switch (c) {
	case '\n':
		op_token(l, t, TK_NEWLINE, "newline", 1);
		return;
	case ';':
		if (n == ';')
			op_token(l, t, TK_DSEMI, ";;", ch(l, l->pos + 2) == '&' ? 3 : 2);
		else if (n == '&')
			op_token(l, t, TK_DSEMI, ";&", 2);
		else
			op_token(l, t, TK_SEMI, ";", 1);
		return;
	case '&':
		if (n == '&')
			op_token(l, t, TK_AND, "&&", 2);
		else if (n == '>')
			redir_token(l, t, R_OUT, ch(l, l->pos + 2) == '>' ? "&>>" : "&>",
				    ch(l, l->pos + 2) == '>' ? 3 : 2);
		else
			op_token(l, t, TK_AMP, "&", 1);
		return;
	case '|':
		if (n == '|')
			op_token(l, t, TK_OR, "||", 2);
		else if (n == '&')
			op_token(l, t, TK_PIPE, "|&", 2);
		else
			op_token(l, t, TK_PIPE, "|", 1);
		return;
	case '(':
		op_token(l, t, TK_LPAREN, "(", 1);
		return;
	case ')':
		op_token(l, t, TK_RPAREN, ")", 1);
		return;
	case '<': case '>':
		if (n != '(') {
			lex_redir(l, t);
			return;
		}
		break; /* <(...) and >(...) are words */
	default:
		if (c >= '0' && c <= '9') {
			size_t i = l->pos;
			int fd = 0;

			for (; i < l->end && l->s[i] >= '0' && l->s[i] <= '9'; i++)
				if (l->s[i] != '0')
					fd = 1;
			if (i < l->end && (l->s[i] == '<' || l->s[i] == '>') && ch(l, i + 1) != '(') {
				l->pos = i;
				lex_redir(l, t);
				t->fd = fd;
				return;
			}
		}
		break;
	}
	lex_word(p, l, t);
}

/* ---- here-documents ----------------------------------------------------- */

static void drop_heredocs(struct lexer *l)
{
	size_t i;

	for (i = 0; i < l->nhd; i++)
		roz_free(l->hd[i].delim);
	l->nhd = 0;
	l->gen++;
}

/* Release a lexer; bodies still pending at the end never arrived. */
static void lexer_finish(struct parser *p, struct lexer *l)
{
	if (l->peeked)
		roz_buf_free(&l->tok.text);
	l->peeked = false;
	if (l->nhd && !p->halt)
		flag(p, ROZ_SHELL_UNPARSED, "here-document `%.*s` has no body",
		     clip(l->hd[0].delim), l->hd[0].delim);
	drop_heredocs(l);
	roz_free(l->hd);
	l->hd = NULL;
}

static void heredoc_body(struct parser *p, const struct lexer *l, const struct heredoc *h,
			 size_t start, size_t stop)
{
	unsigned depth = p->depth;
	struct lexer sub;
	struct acc none = ACC_INIT(NULL);

	if (h->to_shell) {
		if (!enter(p))
			return;
		p->depth = h->depth;
		parse_range(p, l->s, start, stop);
		p->depth = depth;
		leave(p);
	} else if (!h->quoted && stop > start) {
		/* cat <<EOF still runs the $(...) in its body */
		lexer_init(&sub, l->s, start, stop);
		p->depth = h->depth;
		lex_dquote(p, &sub, &none, M_HEREDOC);
		p->depth = depth;
		lexer_finish(p, &sub);
	}
}

/* After a newline token: the pending bodies follow, each up to its delimiter line. */
static void read_heredocs(struct parser *p, struct lexer *l)
{
	size_t i;

	for (i = 0; i < l->nhd && !p->halt; i++) {
		const struct heredoc *h = &l->hd[i];
		size_t dlen = strlen(h->delim), body = l->pos, stop = l->end;
		bool found = false;

		while (l->pos < l->end) {
			size_t line = l->pos, from = l->pos, to;
			const char *nl = memchr(l->s + line, '\n', l->end - line);

			to = nl ? (size_t)(nl - l->s) : l->end;
			l->pos = nl ? to + 1 : l->end;
			if (h->tabs)
				while (from < to && l->s[from] == '\t')
					from++;
			if (to - from == dlen && !memcmp(l->s + from, h->delim, dlen)) {
				stop = line;
				found = true;
				break;
			}
		}
		if (!found)
			flag(p, ROZ_SHELL_UNPARSED, "here-document not terminated by `%.*s`",
			     clip(h->delim), h->delim);
		heredoc_body(p, l, h, body, stop);
	}
	drop_heredocs(l);
}

/* ---- token stream ------------------------------------------------------- */

static struct token *peek(struct parser *p, struct lexer *l)
{
	if (!l->peeked) {
		struct token t;

		/* lexing can parse substitutions on this lexer, so fill the slot after */
		lex_token(p, l, &t);
		l->tok = t;
		l->peeked = true;
	}
	return &l->tok;
}

static void consume(struct parser *p, struct lexer *l)
{
	bool newline = l->peeked && l->tok.kind == TK_NEWLINE;

	if (l->peeked)
		roz_buf_free(&l->tok.text);
	l->peeked = false;
	if (newline && l->nhd)
		read_heredocs(p, l);
}

/* Hand over the peeked word's text. */
static char *take_text(struct parser *p, struct lexer *l)
{
	char *s = roz_buf_detach(&l->tok.text, NULL);

	l->peeked = false;
	if (!s)
		nomem(p);
	return s;
}

static bool words_push(struct parser *p, struct lexer *l, struct words *v)
{
	unsigned flags = l->tok.flags;
	roz_shell_word info = l->tok.info;
	char *s;

	if (roz_array_reserve((void **)&v->v, &v->cap, sizeof(*v->v), v->n + 1) < 0) {
		consume(p, l);
		nomem(p);
		return false;
	}
	s = take_text(p, l);
	if (!s)
		return false;
	v->v[v->n].s = s;
	v->v[v->n].flags = flags;
	v->v[v->n].info = info;
	v->n++;
	return true;
}

/* A word that can be a reserved word: unquoted and without expansions. */
static bool is_kw(const struct token *t, const char *kw)
{
	return t->kind == TK_WORD && !(t->flags & (SW_QUOTED | SW_EXP)) && t->text.ptr &&
	       !strcmp(t->text.ptr, kw);
}

static unsigned terminator_of(const struct token *t)
{
	size_t i;

	if (t->kind == TK_RPAREN)
		return T_RPAREN;
	if (t->kind == TK_DSEMI)
		return T_DSEMI;
	for (i = 0; i < sizeof(keyword_terms) / sizeof(keyword_terms[0]); i++)
		if (is_kw(t, keyword_terms[i].word))
			return keyword_terms[i].term;
	return 0;
}

static bool command_start(const struct token *t)
{
	if (t->kind == TK_REDIR || t->kind == TK_LPAREN)
		return true;
	return t->kind == TK_WORD && !terminator_of(t);
}

static bool compound_start(const struct token *t)
{
	static const char *const kws[] = {"{", "if", "while", "until", "for", "select", "case",
					  "function", "[[", "coproc", "!", NULL};
	size_t i;

	if (t->kind == TK_LPAREN)
		return true;
	for (i = 0; kws[i]; i++)
		if (is_kw(t, kws[i]))
			return true;
	return false;
}

static const char *tok_name(const struct token *t)
{
	if (t->kind == TK_WORD)
		return t->text.ptr ? t->text.ptr : "";
	return t->op ? t->op : "?";
}

static void skip_newlines(struct parser *p, struct lexer *l)
{
	while (peek(p, l)->kind == TK_NEWLINE)
		consume(p, l);
}

static void parse_range(struct parser *p, const char *s, size_t start, size_t end)
{
	struct lexer l;

	lexer_init(&l, s, start, end);
	parse_list(p, &l, 0);
	lexer_finish(p, &l);
}

/* A script given as text (sh -c, eval, here-string, ...), one level down. */
static void parse_payload(struct parser *p, const char *s, size_t len)
{
	if (!len || !enter(p))
		return;
	p->depth++;
	parse_range(p, s, 0, len);
	p->depth--;
	leave(p);
}

/* ---- what a command runs ------------------------------------------------ */

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash && slash[1] ? slash + 1 : s;
}

/* Words joined by spaces; echo/printf escapes decoded when asked. NULL if empty. */
static char *join_words(struct parser *p, const struct sword *w, size_t n, bool decode)
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
		roz_buf_free(&b);
		nomem(p);
		return NULL;
	}
	if (!b.len) {
		roz_buf_free(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}

static void run_joined(struct parser *p, const struct sword *w, size_t n)
{
	char *text = join_words(p, w, n, false);

	if (text)
		parse_payload(p, text, strlen(text));
	roz_free(text);
}

/* A `-c` / `--config-env` value that sets an alias (git's names ignore case), or could. */
static bool git_alias_config(const char *value, unsigned parts)
{
	return parts || strncasecmp(value, "alias.", 6) == 0;
}

/*
 * git's global options come before the subcommand; report it without them
 * too. An alias given with -c makes the subcommand mean something else, so
 * then only `git ` is known.
 */
static void git_variant(struct parser *p, const struct sword *w, size_t n, const struct feed *f)
{
	static const char *const valued[] = {"-C", "-c", "--git-dir", "--work-tree", "--namespace",
					     "--super-prefix", "--config-env", "--attr-source",
					     "--list-cmds", NULL};
	static const char *const alone[] = {"-p", "-P", "--paginate", "--no-pager", "--bare",
					    "--no-replace-objects", "--literal-pathspecs",
					    "--glob-pathspecs", "--noglob-pathspecs",
					    "--icase-pathspecs", "--no-optional-locks",
					    "--no-lazy-fetch", "--no-advice", "--exec-path", NULL};
	size_t i = 1, k, at;
	bool alias = false;

	while (i < n) {
		const char *a = w[i].s;
		size_t step = 0;

		for (k = 0; valued[k] && !step; k++) {
			size_t len = strlen(valued[k]);

			if (!strcmp(a, valued[k]))
				step = 2;
			else if (len > 2 && !strncmp(a, valued[k], len) && a[len] == '=')
				step = 1;
		}
		for (k = 0; alone[k] && !step; k++)
			if (!strcmp(a, alone[k]))
				step = 1;
		if (!step && !strncmp(a, "--exec-path=", 12))
			step = 1;
		if (!step)
			break;
		if ((!strcmp(a, "-c") || !strcmp(a, "--config-env")) && i + 1 < n &&
		    git_alias_config(w[i + 1].s, w[i + 1].info.parts))
			alias = true;
		else if (!strncmp(a, "--config-env=", 13) && git_alias_config(a + 13, w[i].info.parts))
			alias = true;
		i += step;
	}
	if (i > 1 && i < n) {
		at = emit(p, "git", NULL, w + i, n - i, f, alias ? 4 : NONE);
		if (alias && at != NONE)
			p->out->cmds[at].why = "an alias given with git -c";
	}
}

/* git-push, git-receive-pack, ...: git's helper programs are git subcommands. */
static void git_helper(struct parser *p, const char *sub, const struct sword *w, size_t n,
		       const struct feed *f)
{
	struct sword *v = roz_calloc(n, sizeof(*v));

	if (!v || !(v[0].s = roz_strdup(sub))) {
		roz_free(v);
		nomem(p);
		return;
	}
	v[0].info = known_word(sub);
	memcpy(v + 1, w + 1, (n - 1) * sizeof(*v));
	emit(p, "git", NULL, v, n, f, NONE);
	roz_free(v[0].s);
	roz_free(v);
}

/* A shell reading its script from stdin: find that script if it is known. */
static void shell_stdin(struct parser *p, const struct input *in)
{
	if (!in)
		return;
	switch (in->kind) {
	case IN_HEREDOC:
		if (in->l->gen == in->gen && in->hd < in->l->nhd) {
			in->l->hd[in->hd].to_shell = true;
			in->l->hd[in->hd].depth = p->depth + 1;
		} else {
			flag(p, ROZ_SHELL_DYNAMIC, "a shell reads its script from a pipe");
		}
		break;
	case IN_HERESTR:
	case IN_PIPE_TEXT:
		if (in->text)
			parse_payload(p, in->text, strlen(in->text));
		break;
	case IN_PIPE:
		flag(p, ROZ_SHELL_DYNAMIC, "a shell reads its script from a pipe");
		break;
	default:
		break;
	}
}

static bool is_shell(const char *name)
{
	static const char *const shells[] = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash",
					     "yash", "posh", "rbash", NULL};
	size_t i;

	for (i = 0; shells[i]; i++)
		if (!strcmp(name, shells[i]))
			return true;
	return false;
}

/* sh/bash/...: -c in any spelling takes the first operand as the script. */
static void run_shell(struct parser *p, const struct sword *w, size_t n, const struct input *in)
{
	bool dash_c = false, dash_s = false;
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
			if (!strcmp(a, "--rcfile") || !strcmp(a, "--init-file"))
				i++;
			i++;
			continue;
		}
		for (j = 1; a[j]; j++) {
			if (a[j] == 'c' && a[0] == '-')
				dash_c = true;
			else if (a[j] == 's' && a[0] == '-')
				dash_s = true;
			else if (a[j] == 'o' || a[j] == 'O')
				value = true;
		}
		i += value ? 2 : 1;
	}
	if (dash_c) {
		if (i < n)
			parse_payload(p, w[i].s, strlen(w[i].s));
		return;
	}
	if (i < n && !dash_s)
		return; /* runs a script file: a command like any other */
	shell_stdin(p, in);
}

static void run_eval(struct parser *p, const struct sword *w, size_t n)
{
	size_t i = 1, k;
	char *text;

	if (i < n && !strcmp(w[i].s, "--"))
		i++;
	text = join_words(p, w + i, n - i, false);
	if (!text)
		return;
	for (k = i; k < n; k++) {
		if (w[k].flags & SW_EXP) {
			flag(p, ROZ_SHELL_DYNAMIC, "eval runs text built from an expansion: %.*s",
			     clip(text), text);
			break;
		}
	}
	parse_payload(p, text, strlen(text));
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
		parse_payload(p, w[i].s, strlen(w[i].s));
}

/* find ... -exec cmd ... ; runs cmd, with each path found in place of `{}`. */
static void run_find(struct parser *p, const struct sword *w, size_t n, unsigned hops)
{
	static const struct feed found = {false, "{}", ROZ_SHELL_PART_FOUND, "the paths find fills in"};
	size_t i, k;

	for (i = 1; i < n; i++) {
		const char *a = w[i].s;

		if (strcmp(a, "-exec") && strcmp(a, "-execdir") && strcmp(a, "-ok") && strcmp(a, "-okdir"))
			continue;
		for (k = i + 1; k < n && strcmp(w[k].s, ";") && strcmp(w[k].s, "+"); k++)
			;
		if (k > i + 1)
			run_words(p, w + i + 1, k - i - 1, NULL, hops + 1, &found);
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
			parse_payload(p, w[i + 1].s, strlen(w[i + 1].s));
			return n;
		}
		if (!strncmp(a, "--command=", 10) || !strncmp(a, "--session-command=", 18)) {
			const char *v = strchr(a, '=') + 1;

			parse_payload(p, v, strlen(v));
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

enum wkind {
	WK_PLAIN,    /* runs the command its remaining arguments name */
	WK_COMMAND,  /* command: -v/-V only look it up */
	WK_FLOCK,    /* flock FILE cmd, or flock FILE -c text */
	WK_WATCH,    /* hands its arguments to sh -c, unless -x */
	WK_XARGS,    /* appends what it reads, or fills in -I's string */
	WK_PARALLEL, /* cmd ::: args, {} filled in; no command: runs its input */
	WK_SCRIPT,   /* runs only its -c text; an operand is a log file */
	WK_ENTR,     /* -s: its operand is shell text */
	WK_SG        /* sg GROUP [-c] text: the text goes to sh -c */
};

/* Commands that run another command given as their remaining arguments. */
struct wrapper {
	const char *name;
	const char *valopts;      /* short options that take a value */
	const char *longval;      /* long options that take the next word as value */
	char payload;             /* short option whose value is shell text */
	const char *payload_long; /* long option whose value is shell text */
	unsigned operands;        /* words between the options and the command */
	bool assigns;             /* NAME=value words may precede the command */
	enum wkind kind;
};

/* Sorted by name; see the list in roz/shell.h for what belongs here. */
static const struct wrapper wrappers[] = {
	{"builtin", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"busybox", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"caffeinate", "tw", "", 0, NULL, 0, false, WK_PLAIN},
	{"catchsegv", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"cgexec", "g", "", 0, NULL, 0, false, WK_PLAIN},
	{"chronic", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"chroot", "", "userspec groups", 0, NULL, 1, false, WK_PLAIN},
	{"chrt", "TPD", "sched-runtime sched-period sched-deadline", 0, NULL, 1, false, WK_PLAIN},
	{"command", "", "", 0, NULL, 0, false, WK_COMMAND},
	{"cpulimit", "lpe", "limit pid exe", 0, NULL, 0, false, WK_PLAIN},
	{"dbus-run-session", "", "config-file dbus-daemon", 0, NULL, 0, false, WK_PLAIN},
	{"doas", "uC", "", 0, NULL, 0, false, WK_PLAIN},
	{"eatmydata", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"entr", "", "", 0, NULL, 0, false, WK_ENTR},
	{"env", "uCPS", "unset chdir split-string", 'S', "split-string", 0, true, WK_PLAIN},
	{"exec", "a", "", 0, NULL, 0, false, WK_PLAIN},
	{"fakechroot", "ldecb", "lib use-system-libs config-dir bindir", 0, NULL, 0, false, WK_PLAIN},
	{"fakeroot", "lsib", "lib faked", 0, NULL, 0, false, WK_PLAIN},
	{"faketime", "", "", 0, NULL, 1, false, WK_PLAIN},
	{"firejail", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"flock", "wEc", "timeout conflict-exit-code command", 'c', "command", 0, false, WK_FLOCK},
	{"ionice", "cnpPu", "class classdata pid pgid uid", 0, NULL, 0, false, WK_PLAIN},
	{"ltrace", "aADeFlnopsuwx", "output library", 0, NULL, 0, false, WK_PLAIN},
	{"nice", "n", "adjustment", 0, NULL, 0, false, WK_PLAIN},
	{"nocache", "n", "", 0, NULL, 0, false, WK_PLAIN},
	{"nocorrect", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"noglob", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"nohup", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"nsenter", "tSG", "target setuid setgid", 0, NULL, 0, false, WK_PLAIN},
	{"numactl", "imNCpPw",
	 "interleave membind cpunodebind physcpubind preferred preferred-many weighted-interleave",
	 0, NULL, 0, false, WK_PLAIN},
	{"parallel", "adEIjLlnNPSs",
	 "arg-file delimiter eof replace jobs max-lines max-args max-replace-args max-procs "
	 "sshlogin max-chars joblog results tmpdir workdir basefile transferfile return colsep "
	 "timeout delay memfree load",
	 0, NULL, 0, false, WK_PARALLEL},
	{"pkexec", "", "user", 0, NULL, 0, false, WK_PLAIN},
	{"prlimit", "po", "pid output", 0, NULL, 0, false, WK_PLAIN},
	{"proxychains", "f", "", 0, NULL, 0, false, WK_PLAIN},
	{"proxychains4", "f", "", 0, NULL, 0, false, WK_PLAIN},
	{"rlwrap", "bCDefgHlOPqsStwz", "", 0, NULL, 0, false, WK_PLAIN},
	{"script", "cEIOBTmo", "command echo log-in log-out log-io log-timing logging-format output-limit",
	 'c', "command", 0, false, WK_SCRIPT},
	{"setpriv", "",
	 "reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label "
	 "apparmor-profile landlock-access landlock-rule rlimit",
	 0, NULL, 0, false, WK_PLAIN},
	{"setsid", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"sg", "", "", 0, NULL, 1, false, WK_SG},
	{"stdbuf", "ioe", "input output error", 0, NULL, 0, false, WK_PLAIN},
	{"strace", "abeEIoOpPsSuUX", "output attach user env trace signal status string-limit", 0, NULL,
	 0, false, WK_PLAIN},
	{"sudo", "ugpCDrtTURh",
	 "user group prompt close-from chdir role type command-timeout other-user chroot host",
	 0, NULL, 0, true, WK_PLAIN},
	{"systemd-inhibit", "", "what who why mode", 0, NULL, 0, false, WK_PLAIN},
	{"systemd-run", "upEMHC",
	 "unit property description slice setenv machine host uid gid nice working-directory "
	 "on-active on-boot on-startup on-unit-active on-unit-inactive on-calendar timer-property "
	 "path-property socket-property service-type capsule",
	 0, NULL, 0, false, WK_PLAIN},
	{"taskset", "", "", 0, NULL, 1, false, WK_PLAIN},
	{"time", "fo", "format output", 0, NULL, 0, true, WK_PLAIN},
	{"timeout", "sk", "signal kill-after", 0, NULL, 1, false, WK_PLAIN},
	{"torsocks", "upaP", "user pass address port", 0, NULL, 0, false, WK_PLAIN},
	{"unbuffer", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"unshare", "SGRw",
	 "setuid setgid root wd map-user map-group map-users map-groups propagation setgroups "
	 "load-interp",
	 0, NULL, 0, false, WK_PLAIN},
	{"valgrind", "", "", 0, NULL, 0, false, WK_PLAIN},
	{"watch", "nq", "interval equexit", 0, NULL, 0, false, WK_WATCH},
	{"xargs", "adEILnPs", "arg-file delimiter max-args max-procs max-chars process-slot-var",
	 0, NULL, 0, false, WK_XARGS},
	{"xvfb-run", "nsfpew", "server-num server-args auth-file xauth-protocol error-file wait", 0, NULL,
	 0, false, WK_PLAIN},
};

struct unwrapped {
	size_t cmd;          /* index of the wrapped command; n when there is none */
	const char *payload; /* shell text the wrapper runs instead */
	const char *repl;    /* xargs -I: the text replaced by each input item */
	bool lookup_only;    /* command -v: names the command, does not run it */
	bool exec_mode;      /* watch -x: runs its arguments without a shell */
	bool shell_mode;     /* entr -s: its operand is shell text */
};

static bool in_list(const char *list, const char *name, size_t len)
{
	while (*list) {
		size_t n = strcspn(list, " ");

		if (n == len && !memcmp(list, name, len))
			return true;
		list += n;
		while (*list == ' ')
			list++;
	}
	return false;
}

static int wrapper_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct wrapper *)elem)->name);
}

static const struct wrapper *find_wrapper(const char *name)
{
	return bsearch(name, wrappers, sizeof(wrappers) / sizeof(wrappers[0]), sizeof(wrappers[0]),
		       wrapper_cmp);
}

/* Skip a wrapper's options (and their values) to find what it runs. */
static void unwrap(const struct wrapper *wr, const struct sword *w, size_t n, struct unwrapped *u)
{
	size_t i = 1, k;

	memset(u, 0, sizeof(*u));
	while (i < n) {
		const char *a = w[i].s;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-") && !strcmp(wr->name, "env")) {
			i++; /* env - is env -i */
			continue;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '='), *val;
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			val = eq ? eq + 1 : NULL;
			if (!eq && in_list(wr->longval, name, len) && i + 1 < n)
				val = w[++i].s;
			if (val && wr->payload_long && len == strlen(wr->payload_long) &&
			    !memcmp(name, wr->payload_long, len))
				u->payload = val;
			if (wr->kind == WK_WATCH && len == 4 && !memcmp(name, "exec", 4))
				u->exec_mode = true;
			if (wr->kind == WK_XARGS && len == 7 && !memcmp(name, "replace", 7))
				u->repl = val ? val : "{}";
			i++;
			continue;
		}
		for (k = 1; a[k]; k++) {
			if (strchr(wr->valopts, a[k])) {
				const char *val = a[k + 1] ? a + k + 1 : i + 1 < n ? w[++i].s : NULL;

				if (val && a[k] == wr->payload)
					u->payload = val;
				if (val && wr->kind == WK_XARGS && a[k] == 'I')
					u->repl = val;
				break;
			}
			if (wr->kind == WK_XARGS && a[k] == 'i') {
				u->repl = a[k + 1] ? a + k + 1 : "{}"; /* -i[R]: the value is attached or absent */
				break;
			}
			if (wr->kind == WK_COMMAND && (a[k] == 'v' || a[k] == 'V'))
				u->lookup_only = true;
			if (wr->kind == WK_WATCH && a[k] == 'x')
				u->exec_mode = true;
			if (wr->kind == WK_ENTR && a[k] == 's')
				u->shell_mode = true;
		}
		i++;
	}
	for (k = 0; k < wr->operands && i < n; k++)
		i++;
	if (wr->kind == WK_FLOCK && !u->payload && i < n) {
		i++; /* the lock file or descriptor */
		if (i < n && (!strcmp(w[i].s, "-c") || !strcmp(w[i].s, "--command"))) {
			if (i + 1 < n)
				u->payload = w[i + 1].s;
			i = n;
		} else if (i < n && !strncmp(w[i].s, "--command=", 10)) {
			u->payload = w[i].s + 10;
		}
	}
	if (wr->assigns)
		while (i < n && assign_len(w[i].s, strlen(w[i].s)))
			i++;
	u->cmd = u->payload || wr->kind == WK_SCRIPT ? n : i;
}

/* source FILE / . FILE: a script that is not a plain file named in the line is unknown. */
static void run_source(struct parser *p, const struct sword *w, size_t n, const struct input *in)
{
	size_t i = 1;
	const char *f;

	if (i < n && !strcmp(w[i].s, "--"))
		i++;
	if (i >= n)
		return;
	f = w[i].s;
	if (w[i].info.parts) {
		flag(p, ROZ_SHELL_DYNAMIC, "`%s` runs a script named only when the line runs: %.*s", w[0].s,
		     clip(f), f);
	} else if (!strcmp(f, "/dev/stdin") || !strcmp(f, "/dev/fd/0") || !strcmp(f, "/proc/self/fd/0")) {
		shell_stdin(p, in);
	} else if (!strncmp(f, "/dev/", 5) || !strncmp(f, "/proc/", 6)) {
		flag(p, ROZ_SHELL_DYNAMIC, "`%s` runs a script read from %.*s", w[0].s, clip(f), f);
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
			note_assigned(p, w[i].s);
	} else if (!strcmp(name, "alias") || (!strcmp(name, "hash") && n > 2)) {
		bool hash = name[0] == 'h';

		for (i = 1; i < n; i++) {
			const char *eq = strchr(w[i].s, '=');

			if (w[i].info.parts) {
				flag(p, ROZ_SHELL_DYNAMIC, "`%s` defines a name computed at run time: %.*s", name,
				     clip(w[i].s), w[i].s);
			} else if (hash ? i == n - 1 && !strcmp(w[1].s, "-p") : eq && w[i].s[0] != '-') {
				/* hash -p PATH NAME makes NAME run PATH, as an alias would */
				add_name(p, &p->aliases, &p->naliases, &p->capaliases, w[i].s,
					 hash ? strlen(w[i].s) : (size_t)(eq - w[i].s));
			}
		}
	} else if (!strcmp(name, "read")) {
		p->arith = true;
		i = skip_options(w, n, "adinNptu", &val, 'a');
		if (val)
			note_assigned(p, val);
		for (; i < n; i++)
			note_assigned(p, w[i].s);
	} else if (!strcmp(name, "printf")) {
		if (n > 2 && !strcmp(w[1].s, "-v")) {
			p->arith = true;
			note_assigned(p, w[2].s);
		}
	} else if (!strcmp(name, "mapfile") || !strcmp(name, "readarray")) {
		p->arith = true;
		i = skip_options(w, n, "dnOsuCc", &val, 'C');
		if (val)
			parse_payload(p, val, strlen(val)); /* the callback -C runs as a command */
		if (i < n)
			note_assigned(p, w[n - 1].s);
	} else if (!strcmp(name, "let")) {
		p->arith = true;
	} else if (!strcmp(name, "getopts")) {
		if (n > 2)
			note_assigned(p, w[2].s);
	}
}

/* The command a parallel run starts ends at its first argument separator. */
static size_t parallel_end(const struct sword *w, size_t from, size_t n)
{
	for (size_t i = from; i < n; i++)
		if (!strcmp(w[i].s, ":::") || !strcmp(w[i].s, "::::") || !strcmp(w[i].s, ":::+") ||
		    !strcmp(w[i].s, "::::+"))
			return i;
	return n;
}

/* GNU parallel: a command and its inputs, or commands as inputs. */
static bool run_parallel(struct parser *p, const struct sword *w, size_t n, size_t cmd,
			 const struct input *in, size_t *end)
{
	size_t stop = parallel_end(w, cmd, n);
	bool shell = false;
	char *text;

	*end = stop;
	if (stop == cmd) {
		/* no command: every input is a command line of its own */
		if (stop == n) {
			shell_stdin(p, in);
		} else {
			for (size_t i = stop + 1; i < n; i++)
				if (w[i].s[0] != ':' || strncmp(w[i].s, ":::", 3))
					parse_payload(p, w[i].s, strlen(w[i].s));
		}
		return false;
	}
	/* the command goes to a shell: a word holding shell syntax runs as such */
	for (size_t i = cmd; i < stop && !shell; i++)
		shell = strpbrk(w[i].s, " \t;|&$`()<>\n") != NULL;
	if (!shell)
		return true;
	text = join_words(p, w + cmd, stop - cmd, false);
	if (text) {
		if (strchr(text, '{'))
			flag(p, ROZ_SHELL_DYNAMIC, "parallel fills in `{}` in shell text: %.*s", clip(text), text);
		parse_payload(p, text, strlen(text));
	}
	roz_free(text);
	return true;
}

/*
 * Report a simple command (assignments and redirections already gone) and
 * everything it runs in turn: wrapped commands, nested shell scripts, eval
 * text. Wrappers are peeled in a loop; hops bounds how many. `feed` says
 * what a wrapper outside this call puts into the words.
 */
static void run_words(struct parser *p, const struct sword *w, size_t n,
		      const struct input *in, unsigned hops, const struct feed *feed)
{
	struct feed f = {false, NULL, 0, NULL};

	if (feed)
		f = *feed;
	while (n && !p->nomem) {
		const struct wrapper *wr;
		struct unwrapped u;
		const char *name;
		size_t at, k;

		if (hops >= MAX_NEST) {
			flag(p, ROZ_SHELL_UNPARSED, "commands wrapped more than %d deep", MAX_NEST);
			return;
		}
		if (w[0].flags & (SW_EXP | SW_GLOB | SW_BRACE)) {
			emit(p, w[0].s, &w[0].info, w + 1, n - 1, &f, NONE);
			flag(p, ROZ_SHELL_DYNAMIC, "command name %s: %.*s",
			     w[0].flags & SW_EXP ? "comes from an expansion" :
			     w[0].flags & SW_GLOB ? "is a glob pattern" : "uses brace expansion",
			     clip(w[0].s), w[0].s);
			return;
		}
		name = base_name(w[0].s);
		at = emit(p, name, NULL, w + 1, n - 1, &f, NONE);
		if (!strcmp(name, "git")) {
			git_variant(p, w, n, &f);
			return;
		}
		if (!strncmp(name, "git-", 4) && name[4]) {
			git_helper(p, name + 4, w, n, &f);
			return;
		}
		if (is_shell(name) || !strcmp(name, "eval") || !strcmp(name, "trap") ||
		    !strcmp(name, "find"))
			mark_wrapper(p, at);
		if (is_shell(name)) {
			run_shell(p, w, n, in);
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
			run_source(p, w, n, in);
			return;
		}
		if (!strcmp(name, "su") || !strcmp(name, "runuser")) {
			mark_wrapper(p, at);
			k = run_su(p, w, n, name[0] == 'r');
			if (k >= n)
				return;
			w += k;
			n -= k;
			hops++;
			continue;
		}
		run_assigning(p, name, w, n);
		wr = find_wrapper(name);
		if (!wr)
			return;
		mark_wrapper(p, at);
		unwrap(wr, w, n, &u);
		if (u.payload) {
			parse_payload(p, u.payload, strlen(u.payload));
			return;
		}
		if (wr->kind == WK_PARALLEL) {
			if (!run_parallel(p, w, n, u.cmd, in, &k))
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
			run_joined(p, w + u.cmd, n - u.cmd); /* watch hands its arguments to sh -c */
			return;
		}
		if (wr->kind == WK_ENTR && u.shell_mode) {
			parse_payload(p, w[u.cmd].s, strlen(w[u.cmd].s));
			return;
		}
		if (wr->kind == WK_SG) {
			k = u.cmd < n && !strcmp(w[u.cmd].s, "-c") ? u.cmd + 1 : u.cmd;
			run_joined(p, w + k, n - k); /* sg hands the rest to sh -c */
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

static bool echo_option(const char *s)
{
	if (s[0] != '-' || !s[1])
		return false;
	for (s++; *s; s++)
		if (*s != 'n' && *s != 'e' && *s != 'E')
			return false;
	return true;
}

/* What a pipeline stage writes, when that is known text a shell might read. */
static void pipe_output(struct parser *p, const struct sword *w, size_t n, struct input *in,
			struct input *next)
{
	const char *name;
	size_t i = 1;

	if (w[0].flags & (SW_EXP | SW_GLOB | SW_BRACE))
		return;
	name = base_name(w[0].s);
	if (!strcmp(name, "echo") || !strcmp(name, "printf")) {
		if (name[0] == 'e')
			while (i < n && echo_option(w[i].s))
				i++;
		next->kind = IN_PIPE_TEXT;
		next->text = join_words(p, w + i, n - i, true);
	} else if (!strcmp(name, "cat") && n == 1 &&
		   (in->kind == IN_HEREDOC || in->kind == IN_HERESTR)) {
		*next = *in;
		if (next->kind == IN_HERESTR)
			next->kind = IN_PIPE_TEXT;
		in->text = NULL;
		in->kind = IN_TTY;
	}
}

/* ---- grammar ------------------------------------------------------------ */

/* Keep the file an output redirection writes; `>&2` and `<&-` only copy descriptors. */
static void add_redir(struct parser *p, const char *op, const struct token *t)
{
	roz_shell_result *r = p->out;
	const char *s = t->text.ptr ? t->text.ptr : "";
	roz_shell_redir *d;

	if ((!strcmp(op, ">&") || !strcmp(op, "<&")) && !t->info.parts &&
	    (s[strspn(s, "0123456789")] == '\0' || !strcmp(s + strspn(s, "0123456789"), "-")))
		return;
	if (p->nomem)
		return;
	if (roz_array_reserve((void **)&r->redirs, &r->capredirs, sizeof(*r->redirs), r->nredirs + 1) < 0) {
		nomem(p);
		return;
	}
	d = &r->redirs[r->nredirs];
	d->path = roz_strdup(s);
	if (!d->path) {
		nomem(p);
		return;
	}
	d->info = t->info;
	d->depth = p->depth;
	r->nredirs++;
}

static void parse_redirect(struct parser *p, struct lexer *l, struct input *in)
{
	struct token *t = peek(p, l);
	enum redir_kind op = t->redir;
	bool to_stdin = t->fd <= 0;
	const char *optext = t->op;
	struct heredoc *h;
	bool quoted;
	char *text;

	consume(p, l);
	t = peek(p, l);
	if (t->kind != TK_WORD) {
		flag(p, ROZ_SHELL_UNPARSED, "`%s` without a target", optext);
		return;
	}
	if (op == R_HEREDOC || op == R_HEREDOC_TABS) {
		quoted = t->flags & SW_QUOTED;
		if (roz_array_reserve((void **)&l->hd, &l->caphd, sizeof(*l->hd), l->nhd + 1) < 0) {
			consume(p, l);
			nomem(p);
			return;
		}
		text = take_text(p, l);
		if (!text)
			return;
		h = &l->hd[l->nhd++];
		h->delim = text;
		h->quoted = quoted;
		h->tabs = op == R_HEREDOC_TABS;
		h->to_shell = false;
		h->depth = p->depth;
		if (in && to_stdin) {
			input_clear(in);
			in->kind = IN_HEREDOC;
			in->l = l;
			in->hd = l->nhd - 1;
			in->gen = l->gen;
		}
		return;
	}
	if (op == R_HERESTR && in && to_stdin) {
		input_clear(in);
		in->text = take_text(p, l);
		in->kind = IN_HERESTR;
		return;
	}
	if (op == R_IN && in && to_stdin) {
		input_clear(in);
		in->kind = IN_FILE;
	}
	if (op == R_OUT || !strcmp(optext, "<>"))
		add_redir(p, optext, &l->tok);
	consume(p, l);
}

static void trailing_redirects(struct parser *p, struct lexer *l)
{
	while (peek(p, l)->kind == TK_REDIR)
		parse_redirect(p, l, NULL);
}

/* A function body or a coproc command. */
static void parse_body(struct parser *p, struct lexer *l)
{
	struct input in = {.kind = IN_TTY}, next = {.kind = IN_PIPE};
	struct words v = {0};

	skip_newlines(p, l);
	if (!command_start(peek(p, l))) {
		if (!p->halt)
			flag(p, ROZ_SHELL_UNPARSED, "function without a body");
		return;
	}
	if (!enter(p))
		return;
	parse_command(p, l, &in, &next, &v);
	input_clear(&in);
	input_clear(&next);
	leave(p);
}

static void parse_simple(struct parser *p, struct lexer *l, struct input *in,
			 struct input *next, struct words *v)
{
	bool assigned = false;
	struct token *t;

	for (;;) {
		t = peek(p, l);
		if (t->kind == TK_WORD) {
			if (!v->n && assign_len(l->s + t->raw, t->rawend - t->raw)) {
				if (t->text.ptr)
					note_assigned(p, t->text.ptr);
				consume(p, l); /* NAME=value: its substitutions already ran */
				assigned = true;
				continue;
			}
			if (!words_push(p, l, v))
				break;
			if (v->n == 1 && !assigned && !(v->v[0].flags & (SW_QUOTED | SW_EXP)) &&
			    peek(p, l)->kind == TK_LPAREN) {
				/* name () body: a function definition */
				consume(p, l);
				if (peek(p, l)->kind == TK_RPAREN)
					consume(p, l);
				else
					flag(p, ROZ_SHELL_UNPARSED, "unexpected `(` after `%.*s`",
					     clip(v->v[0].s), v->v[0].s);
				parse_body(p, l);
				words_free(v);
				return;
			}
			continue;
		}
		if (t->kind == TK_REDIR) {
			parse_redirect(p, l, in);
			continue;
		}
		break;
	}
	if (v->n && !p->nomem) {
		run_words(p, v->v, v->n, in, 0, NULL);
		pipe_output(p, v->v, v->n, in, next);
	}
	words_free(v);
}

static void parse_paren(struct parser *p, struct lexer *l)
{
	if (ch(l, l->pos) == '(' && arith_closes(l, l->pos + 1)) {
		consume(p, l);
		l->pos++;
		lex_arith(p, l); /* (( expr )) */
	} else {
		consume(p, l);
		if (!enter(p))
			return;
		l->open[term_index(T_RPAREN)]++;
		p->depth++;
		if (parse_list(p, l, T_RPAREN) == T_RPAREN)
			consume(p, l);
		else if (!p->halt)
			flag(p, ROZ_SHELL_UNPARSED, "`(` without `)`");
		p->depth--;
		l->open[term_index(T_RPAREN)]--;
		leave(p);
	}
	trailing_redirects(p, l);
}

static void parse_group(struct parser *p, struct lexer *l)
{
	consume(p, l);
	if (!enter(p))
		return;
	l->open[term_index(T_RBRACE)]++;
	if (parse_list(p, l, T_RBRACE) == T_RBRACE)
		consume(p, l);
	else if (!p->halt)
		flag(p, ROZ_SHELL_UNPARSED, "`{` without `}`");
	l->open[term_index(T_RBRACE)]--;
	leave(p);
	trailing_redirects(p, l);
}

static void parse_if(struct parser *p, struct lexer *l)
{
	const unsigned terms = T_THEN | T_ELIF | T_ELSE | T_FI;
	unsigned term;

	consume(p, l);
	if (!enter(p))
		return;
	open_terms(l, terms, true);
	for (;;) {
		if (parse_list(p, l, T_THEN) != T_THEN) {
			if (!p->halt)
				flag(p, ROZ_SHELL_UNPARSED, "`if` without `then`");
			break;
		}
		consume(p, l);
		term = parse_list(p, l, T_ELIF | T_ELSE | T_FI);
		if (term == T_ELIF) {
			consume(p, l);
			continue;
		}
		if (term == T_ELSE) {
			consume(p, l);
			term = parse_list(p, l, T_FI);
		}
		if (term == T_FI)
			consume(p, l);
		else if (!p->halt)
			flag(p, ROZ_SHELL_UNPARSED, "`if` without `fi`");
		break;
	}
	open_terms(l, terms, false);
	leave(p);
	trailing_redirects(p, l);
}

/* The `do ... done` of a loop (or a bash `{ ... }` body after for). */
static void parse_do(struct parser *p, struct lexer *l, const char *what)
{
	struct token *t = peek(p, l);

	if (is_kw(t, "do")) {
		consume(p, l);
		if (parse_list(p, l, T_DONE) == T_DONE)
			consume(p, l);
		else if (!p->halt)
			flag(p, ROZ_SHELL_UNPARSED, "`%s` without `done`", what);
	} else if (is_kw(t, "{")) {
		parse_group(p, l);
	} else if (!p->halt) {
		flag(p, ROZ_SHELL_UNPARSED, "`%s` without `do`", what);
	}
}

static void parse_while(struct parser *p, struct lexer *l, const char *what)
{
	consume(p, l);
	if (!enter(p))
		return;
	open_terms(l, T_DO | T_DONE, true);
	if (parse_list(p, l, T_DO) == T_DO)
		parse_do(p, l, what);
	else if (!p->halt)
		flag(p, ROZ_SHELL_UNPARSED, "`%s` without `do`", what);
	open_terms(l, T_DO | T_DONE, false);
	leave(p);
	trailing_redirects(p, l);
}

static void parse_for(struct parser *p, struct lexer *l, const char *what)
{
	struct token *t;

	consume(p, l);
	if (!enter(p))
		return;
	open_terms(l, T_DO | T_DONE, true);
	t = peek(p, l);
	if (t->kind == TK_LPAREN && ch(l, l->pos) == '(') {
		consume(p, l);
		l->pos++;
		lex_arith(p, l); /* for (( ; ; )) */
	} else if (t->kind == TK_WORD) {
		if (t->text.ptr)
			note_assigned(p, t->text.ptr);
		consume(p, l);
		skip_newlines(p, l);
		if (is_kw(peek(p, l), "in")) {
			consume(p, l);
			while (peek(p, l)->kind == TK_WORD)
				consume(p, l);
		}
	} else if (!p->halt) {
		flag(p, ROZ_SHELL_UNPARSED, "`%s` without a variable", what);
	}
	if (peek(p, l)->kind == TK_SEMI)
		consume(p, l);
	skip_newlines(p, l);
	parse_do(p, l, what);
	open_terms(l, T_DO | T_DONE, false);
	leave(p);
	trailing_redirects(p, l);
}

static void parse_case(struct parser *p, struct lexer *l)
{
	struct token *t;
	unsigned term;

	consume(p, l);
	if (!enter(p))
		return;
	open_terms(l, T_DSEMI | T_ESAC, true);
	if (peek(p, l)->kind == TK_WORD)
		consume(p, l);
	skip_newlines(p, l);
	if (!is_kw(peek(p, l), "in")) {
		if (!p->halt)
			flag(p, ROZ_SHELL_UNPARSED, "`case` without `in`");
		goto out;
	}
	consume(p, l);
	for (;;) {
		skip_newlines(p, l);
		t = peek(p, l);
		if (is_kw(t, "esac")) {
			consume(p, l);
			break;
		}
		if (t->kind == TK_LPAREN) {
			consume(p, l);
			t = peek(p, l);
		}
		while (t->kind == TK_WORD) {
			consume(p, l);
			t = peek(p, l);
			if (t->kind != TK_PIPE)
				break;
			consume(p, l);
			t = peek(p, l);
		}
		if (t->kind != TK_RPAREN) {
			if (!p->halt)
				flag(p, ROZ_SHELL_UNPARSED, "`case` without `esac`");
			break;
		}
		consume(p, l);
		term = parse_list(p, l, T_DSEMI | T_ESAC);
		if (term == T_DSEMI) {
			consume(p, l);
			continue;
		}
		if (term == T_ESAC)
			consume(p, l);
		else if (!p->halt)
			flag(p, ROZ_SHELL_UNPARSED, "`case` without `esac`");
		break;
	}
out:
	open_terms(l, T_DSEMI | T_ESAC, false);
	leave(p);
	trailing_redirects(p, l);
}

/* [[ ... ]]: operators inside are words; substitutions in them still run. */
static void parse_cond(struct parser *p, struct lexer *l)
{
	struct words v = {0};

	if (!words_push(p, l, &v))
		return;
	l->cond = true;
	for (;;) {
		struct token *t = peek(p, l);
		bool last;

		if (t->kind != TK_WORD) {
			if (!p->halt)
				flag(p, ROZ_SHELL_UNPARSED, "`[[` without `]]`");
			break;
		}
		last = is_kw(t, "]]");
		if (!words_push(p, l, &v) || last)
			break;
	}
	l->cond = false;
	p->arith = true; /* -eq and friends evaluate their operands */
	if (!p->nomem)
		emit(p, v.v[0].s, NULL, v.v + 1, v.n - 1, NULL, NONE);
	words_free(&v);
}

/* coproc NAME { ...; }: the name is only a name when a compound command follows. */
static void coproc_name(struct parser *p, struct lexer *l)
{
	struct token *t = peek(p, l);
	size_t i = l->pos;
	int c, after;

	if (t->kind != TK_WORD || compound_start(t))
		return;
	while (i < l->end && (l->s[i] == ' ' || l->s[i] == '\t'))
		i++;
	c = ch(l, i);
	after = ch(l, i + 1);
	if (c == '(' || (c == '{' && (after == ' ' || after == '\t' || after == '\n')))
		consume(p, l);
}

static void parse_command(struct parser *p, struct lexer *l, struct input *in,
			  struct input *next, struct words *v)
{
	struct token *t;

	next->kind = IN_PIPE;
	if (v->n) {
		parse_simple(p, l, in, next, v);
		return;
	}
	t = peek(p, l);
	while (is_kw(t, "!")) {
		consume(p, l);
		t = peek(p, l);
	}
	if (t->kind == TK_LPAREN) {
		parse_paren(p, l);
	} else if (is_kw(t, "{")) {
		parse_group(p, l);
	} else if (is_kw(t, "if")) {
		parse_if(p, l);
	} else if (is_kw(t, "while") || is_kw(t, "until")) {
		parse_while(p, l, is_kw(t, "while") ? "while" : "until");
	} else if (is_kw(t, "for") || is_kw(t, "select")) {
		parse_for(p, l, is_kw(t, "for") ? "for" : "select");
	} else if (is_kw(t, "case")) {
		parse_case(p, l);
	} else if (is_kw(t, "[[")) {
		parse_cond(p, l);
	} else if (is_kw(t, "function")) {
		consume(p, l);
		if (peek(p, l)->kind == TK_WORD)
			consume(p, l);
		if (peek(p, l)->kind == TK_LPAREN) {
			consume(p, l);
			if (peek(p, l)->kind == TK_RPAREN)
				consume(p, l);
		}
		parse_body(p, l);
	} else if (is_kw(t, "coproc")) {
		consume(p, l);
		coproc_name(p, l);
		parse_body(p, l);
	} else if (command_start(t)) {
		parse_simple(p, l, in, next, v);
	} else if (!p->halt) {
		flag(p, ROZ_SHELL_UNPARSED, "expected a command, found `%.*s`",
		     clip(tok_name(t)), tok_name(t));
	}
}

static void parse_pipeline(struct parser *p, struct lexer *l)
{
	struct input in = {.kind = IN_TTY}, next = {.kind = IN_PIPE};
	struct words pre = {0};
	const char *op;
	struct token *t;

	/* `time` is a keyword that can time a compound command */
	if (is_kw(peek(p, l), "time")) {
		words_push(p, l, &pre);
		if (is_kw(peek(p, l), "-p"))
			words_push(p, l, &pre);
		if (compound_start(peek(p, l)))
			words_free(&pre);
	}
	for (;;) {
		parse_command(p, l, &in, &next, &pre);
		input_clear(&in);
		in = next;
		next.kind = IN_PIPE;
		next.text = NULL;
		t = peek(p, l);
		if (t->kind != TK_PIPE)
			break;
		op = t->op;
		consume(p, l);
		skip_newlines(p, l);
		if (!command_start(peek(p, l))) {
			if (!p->halt)
				flag(p, ROZ_SHELL_UNPARSED, "no command after `%s`", op);
			break;
		}
	}
	input_clear(&in);
	words_free(&pre);
}

static void parse_and_or(struct parser *p, struct lexer *l)
{
	for (;;) {
		struct token *t;
		const char *op;

		parse_pipeline(p, l);
		t = peek(p, l);
		if (t->kind != TK_AND && t->kind != TK_OR)
			return;
		op = t->op;
		consume(p, l);
		skip_newlines(p, l);
		if (!command_start(peek(p, l))) {
			if (!p->halt)
				flag(p, ROZ_SHELL_UNPARSED, "no command after `%s`", op);
			return;
		}
	}
}

/*
 * Commands up to a terminator the caller accepts (returned, not consumed)
 * or the end of input (T_EOF). A terminator some enclosing construct waits
 * for is returned too, so that construct can close; any other is reported
 * and skipped.
 */
static unsigned parse_list(struct parser *p, struct lexer *l, unsigned accept)
{
	for (;;) {
		struct token *t = peek(p, l);
		unsigned term;

		if (t->kind == TK_EOF)
			return T_EOF;
		if (t->kind == TK_NEWLINE || t->kind == TK_SEMI || t->kind == TK_AMP) {
			consume(p, l);
			continue;
		}
		term = terminator_of(t);
		if (term) {
			if ((accept & term) || l->open[term_index(term)])
				return term;
			flag(p, ROZ_SHELL_UNPARSED, "unexpected `%.*s`", clip(tok_name(t)), tok_name(t));
			consume(p, l);
			continue;
		}
		if (!command_start(t)) {
			flag(p, ROZ_SHELL_UNPARSED, "unexpected `%s`", tok_name(t));
			consume(p, l);
			continue;
		}
		parse_and_or(p, l);
	}
}

/* ---- API ---------------------------------------------------------------- */

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
static void settle(struct parser *p)
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
	if (roz_shell_assigns(r, "BASH_ALIASES"))
		flag(p, ROZ_SHELL_DYNAMIC, "the line defines aliases through BASH_ALIASES");
	if (p->arith && p->quoted_subst)
		flag(p, ROZ_SHELL_DYNAMIC, "an arithmetic context can run a `$(...)` or backquote written "
					   "inside quotes, as an array subscript");
}

bool roz_shell_assigns(const roz_shell_result *res, const char *name)
{
	for (size_t i = 0; i < res->nnames; i++)
		if (!strcmp(res->names[i], name))
			return true;
	return false;
}

int roz_shell_parse(const char *text, size_t len, roz_shell_result *out)
{
	struct parser p;

	if (!out) {
		roz_error_set("roz_shell_parse: no result to fill");
		return ROZ_EINVALID;
	}
	memset(out, 0, sizeof(*out));
	memset(&p, 0, sizeof(p));
	p.out = out;
	if (text && len)
		parse_range(&p, text, 0, len);
	if (!p.nomem)
		settle(&p);
	for (size_t i = 0; i < p.naliases; i++)
		roz_free(p.aliases[i]);
	roz_free(p.aliases);
	if (p.nomem) {
		roz_shell_result_free(out);
		roz_error_set("out of memory reading a shell command");
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

void roz_shell_result_free(roz_shell_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->ncmds; i++)
		cmd_free(&res->cmds[i]);
	roz_free(res->cmds);
	roz_free(res->reason);
	for (i = 0; i < res->nredirs; i++)
		roz_free(res->redirs[i].path);
	roz_free(res->redirs);
	for (i = 0; i < res->nnames; i++)
		roz_free(res->names[i]);
	roz_free(res->names);
	memset(res, 0, sizeof(*res));
}
