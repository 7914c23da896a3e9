/*
 * shell_lex.c - the shell's tokens, read the way bash reads them: quotes,
 * escapes, $'...' strings, operators and redirections, here-documents, and
 * the substitutions inside words, whose commands are handed to the grammar
 * (shell_parse.c) as they are found. This part follows bash and rarely
 * changes; roz's own rules, which change most, live in shell_rules.c.
 */
#include "shell_int.h"

#include "roz/digest.h"

#include <string.h>

/* Where a `$`, backquote or backslash is being read: the rules differ. */
enum { M_UNQ, M_DQ, M_HEREDOC };

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

static void lex_dollar(struct parser *p, struct lexer *l, struct acc *a, int mode);
static void lex_dquote(struct parser *p, struct lexer *l, struct acc *a, int mode);
static void lex_backquote(struct parser *p, struct lexer *l, struct acc *a, int mode);
static void lex_word(struct parser *p, struct lexer *l, struct token *t);

/* ---- a word's text ------------------------------------------------------ */

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

/* Length of a leading `NAME=`, `NAME+=` or `NAME[sub]=`, or 0. */
size_t shell_assign_len(const char *s, size_t n)
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
		shell_flag(p, ROZ_SHELL_UNPARSED, "unterminated single quote");
		return;
	}
	acc_add(a, l->s + start, (size_t)(q - l->s) - start);
	if (holds_subst(l->s + start, (size_t)(q - l->s) - start))
		p->quoted_subst = true;
	l->pos = (size_t)(q - l->s) + 1;
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
			for (v = 0, i = 0; i < max && roz_digest_hex_digit(ch(l, l->pos)) >= 0; i++, l->pos++)
				v = v * 16 + (unsigned long)roz_digest_hex_digit(ch(l, l->pos));
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
	shell_flag(p, ROZ_SHELL_UNPARSED, "unterminated $'...' string");
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

	if (!shell_enter(p))
		return;
	memcpy(saved, l->open, sizeof(saved));
	memset(l->open, 0, sizeof(l->open));
	l->open[term_index(T_RPAREN)] = 1;
	l->cond = false;
	p->depth++;
	if (shell_parse_list(p, l, T_RPAREN) == T_RPAREN) {
		l->peeked = false; /* `)` carries no text */
	} else {
		l->peeked = false; /* end of input */
		if (!p->halt)
			shell_flag(p, ROZ_SHELL_UNPARSED, "unterminated %s", what);
	}
	p->depth--;
	l->cond = cond;
	memcpy(l->open, saved, sizeof(saved));
	shell_leave(p);
}

/*
 * Whether the text after `$((` or `((` closes as arithmetic with `))`. A
 * dry scan is needed because `$((cmd) )` is a command substitution; it stops
 * at the first unbalanced `)`, so it only re-reads text that is then parsed.
 */
bool shell_arith_closes(const struct lexer *l, size_t i)
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
void shell_lex_arith(struct parser *p, struct lexer *l)
{
	struct acc none = ACC_INIT(NULL);
	unsigned long nest = 0;

	p->arith = true;
	if (!shell_enter(p))
		return;
	while (l->pos < l->end && !p->halt) {
		int c = ch(l, l->pos);

		if (c == '(') {
			nest++;
			l->pos++;
		} else if (c == ')') {
			if (!nest) {
				l->pos += ch(l, l->pos + 1) == ')' ? 2 : 1;
				shell_leave(p);
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
		shell_flag(p, ROZ_SHELL_UNPARSED, "unterminated arithmetic expression");
	shell_leave(p);
}

/* The inside of ${...}: defaults like ${x:-$(cmd)} run commands too. */
static void lex_param(struct parser *p, struct lexer *l, int mode)
{
	struct acc none = ACC_INIT(NULL);

	p->arith = true; /* subscripts and offsets are arithmetic */
	if (!shell_enter(p))
		return;
	while (l->pos < l->end && !p->halt) {
		int c = ch(l, l->pos);

		if (c == '}') {
			l->pos++;
			shell_leave(p);
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
		shell_flag(p, ROZ_SHELL_UNPARSED, "unterminated ${");
	shell_leave(p);
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
		if (ch(l, start + 2) == '(' && shell_arith_closes(l, start + 3)) {
			l->pos = start + 3;
			shell_lex_arith(p, l);
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
		shell_flag(p, ROZ_SHELL_UNPARSED, "unterminated double quote");
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
		shell_flag(p, ROZ_SHELL_UNPARSED, "unterminated backquote");
	if (body.oom) {
		roz_buf_dispose(&body);
		shell_nomem(p);
		return;
	}
	if (body.len && shell_enter(p)) {
		p->depth++;
		shell_parse_range(p, body.ptr, 0, body.len);
		p->depth--;
		shell_leave(p);
	}
	roz_buf_dispose(&body);
}

/* NAME=( ... ): the elements are words whose substitutions run. */
static void lex_array(struct parser *p, struct lexer *l)
{
	if (!shell_enter(p))
		return;
	l->pos++;
	while (!p->halt) {
		int c = ch(l, l->pos);
		struct token t;
		size_t before;

		if (c < 0) {
			shell_flag(p, ROZ_SHELL_UNPARSED, "unterminated array assignment");
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
		roz_buf_dispose(&t.text);
		if (l->pos == before)
			l->pos++; /* a stray operator character */
	}
	shell_leave(p);
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
				if (shell_assign_len(l->s + start, run - start) == run - start) {
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
		shell_nomem(p);
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

void shell_lex_token(struct parser *p, struct lexer *l, struct token *t)
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
			shell_nomem(p);
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

			/* the descriptor's number, held at a bound no real one reaches */
			for (; i < l->end && l->s[i] >= '0' && l->s[i] <= '9'; i++)
				if (fd < 100000)
					fd = fd * 10 + (l->s[i] - '0');
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
void shell_lexer_finish(struct parser *p, struct lexer *l)
{
	if (l->peeked)
		roz_buf_dispose(&l->tok.text);
	l->peeked = false;
	if (l->nhd && !p->halt)
		shell_flag(p, ROZ_SHELL_UNPARSED, "here-document `%.*s` has no body",
			   shell_clip(l->hd[0].delim), l->hd[0].delim);
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
		if (!shell_enter(p))
			return;
		p->depth = h->depth;
		shell_parse_range(p, l->s, start, stop);
		p->depth = depth;
		shell_leave(p);
	} else if (!h->quoted && stop > start) {
		/* cat <<EOF still runs the $(...) in its body */
		shell_lexer_init(&sub, l->s, start, stop);
		p->depth = h->depth;
		lex_dquote(p, &sub, &none, M_HEREDOC);
		p->depth = depth;
		shell_lexer_finish(p, &sub);
	}
}

/* After a newline token: the pending bodies follow, each up to its delimiter line. */
void shell_read_heredocs(struct parser *p, struct lexer *l)
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
			shell_flag(p, ROZ_SHELL_UNPARSED, "here-document not terminated by `%.*s`",
				   shell_clip(h->delim), h->delim);
		heredoc_body(p, l, h, body, stop);
	}
	drop_heredocs(l);
}
