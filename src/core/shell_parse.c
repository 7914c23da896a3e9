/*
 * shell_parse.c - the Bash grammar over shell_lex.c's tokens: lists,
 * pipelines, simple and compound commands, functions, redirections and
 * assignments. It reports each simple command with what of it is known
 * before the line runs, and hands it to shell_rules.c to find what that
 * command runs in turn. Also the public entry points of roz/shell.h.
 */
#include "shell_int.h"

#include <string.h>

static const struct {
	const char *word;
	unsigned term;
} keyword_terms[] = {
	{"}", T_RBRACE}, {"esac", T_ESAC}, {"then", T_THEN}, {"elif", T_ELIF},
	{"else", T_ELSE}, {"fi", T_FI}, {"do", T_DO}, {"done", T_DONE},
};

static void parse_command(struct parser *p, struct lexer *l, struct input *in,
			  struct input *next, struct words *v);

/* ---- bookkeeping -------------------------------------------------------- */

void shell_nomem(struct parser *p)
{
	p->nomem = true;
	p->halt = true;
}

/* Raise a result flag; the first reason given is the one kept. */
void shell_flag(struct parser *p, unsigned which, const char *fmt, ...)
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
		roz_buf_dispose(&b);
		shell_nomem(p);
		return;
	}
	p->out->reason = roz_buf_detach(&b, NULL);
	if (!p->out->reason)
		shell_nomem(p);
}

/* How much of s a reason quotes: one line, at most CLIP bytes. */
int shell_clip(const char *s)
{
	size_t n = strcspn(s, "\n");

	return n > CLIP ? CLIP : (int)n;
}

/* Every recursive step goes through here, so hostile nesting cannot blow the stack. */
bool shell_enter(struct parser *p)
{
	if (p->halt)
		return false;
	if (p->level >= MAX_NEST) {
		shell_flag(p, ROZ_SHELL_UNPARSED, "nesting deeper than %d levels", MAX_NEST);
		p->halt = true;
		return false;
	}
	p->level++;
	return true;
}

void shell_leave(struct parser *p)
{
	p->level--;
}

static void open_terms(struct lexer *l, unsigned terms, bool opening)
{
	unsigned i;

	for (i = 0; i < NTERM; i++)
		if (terms & (1u << i))
			l->open[i] = opening ? l->open[i] + 1 : l->open[i] - 1;
}

static void input_dispose(struct input *in)
{
	struct input *m = in->more;

	while (m) {
		struct input *after = m->more;

		roz_free(m->text);
		roz_free(m);
		m = after;
	}
	roz_free(in->text);
	memset(in, 0, sizeof(*in));
	in->kind = IN_TTY;
}

/*
 * Where a redirection of descriptor fd lands: stdin itself, or an entry of
 * its `more` list (made on first use, emptied when redirected again).
 * NULL when nobody asks (trailing redirections) or out of memory.
 */
static struct input *fd_input(struct parser *p, struct input *in, int fd)
{
	struct input *m;

	if (!in)
		return NULL;
	if (fd <= 0) {
		roz_free(in->text);
		in->text = NULL;
		in->kind = IN_TTY;
		return in;
	}
	for (m = in->more; m; m = m->more)
		if (m->fd == fd)
			break;
	if (!m) {
		m = roz_calloc(1, sizeof(*m));
		if (!m) {
			shell_nomem(p);
			return NULL;
		}
		m->fd = fd;
		m->more = in->more;
		in->more = m;
	}
	roz_free(m->text);
	m->text = NULL;
	m->kind = IN_TTY;
	return m;
}

/* `<(...)` written as a whole word: the source inside it, or NULL. */
static char *procsub_inside(struct parser *p, const struct token *t)
{
	const char *s = t->text.ptr;
	size_t n = t->text.len;
	char *in;

	if (!s || !(t->flags & SW_EXP) || n < 3 || s[0] != '<' || s[1] != '(' || s[n - 1] != ')')
		return NULL;
	in = roz_strndup(s + 2, n - 3);
	if (!in)
		shell_nomem(p);
	return in;
}

static void words_dispose(struct words *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		roz_free(v->v[i].s);
	roz_free(v->v);
	memset(v, 0, sizeof(*v));
}

/* ---- reporting ---------------------------------------------------------- */

static void cmd_dispose(roz_shell_cmd *c)
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
size_t shell_emit(struct parser *p, const char *head, const roz_shell_word *hinfo,
		  const struct sword *w, size_t n, const struct feed *f, size_t cap)
{
	roz_shell_result *r = p->out;
	roz_shell_cmd *c;
	size_t i, len = 0, at = NONE;
	char *q;

	if (p->nomem)
		return NONE;
	if (roz_alloc_array_reserve((void **)&r->cmds, &r->cap, sizeof(*r->cmds), r->ncmds + 1) < 0) {
		shell_nomem(p);
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
	cmd_dispose(c);
	shell_nomem(p);
	return NONE;
}

/* Mark a reported command (emit's answer) as one that runs another. */
void shell_mark_wrapper(struct parser *p, size_t at)
{
	if (at != NONE && at < p->out->ncmds)
		p->out->cmds[at].wrapper = true;
}

/* Remember a name in a list of strings, once. */
void shell_add_name(struct parser *p, char ***list, size_t *n, size_t *cap, const char *s, size_t len)
{
	char *copy;

	if (!len || p->nomem)
		return;
	for (size_t i = 0; i < *n; i++)
		if (strlen((*list)[i]) == len && !memcmp((*list)[i], s, len))
			return;
	if (roz_alloc_array_reserve((void **)list, cap, sizeof(**list), *n + 1) < 0 ||
	    !(copy = roz_strndup(s, len))) {
		shell_nomem(p);
		return;
	}
	(*list)[(*n)++] = copy;
}

/* A variable the line assigns: NAME, NAME=..., NAME[i]=..., NAME+=... */
void shell_note_assigned(struct parser *p, const char *s)
{
	size_t n = 0;

	if (!name_start((unsigned char)s[0]))
		return;
	while (name_char((unsigned char)s[n]))
		n++;
	if (s[n] == '[')
		p->arith = true; /* an indexed array's subscript is arithmetic */
	shell_add_name(p, &p->out->names, &p->out->nnames, &p->out->capnames, s, n);
}

/* ---- tokens as the grammar sees them ------------------------------------ */

static bool words_push(struct parser *p, struct lexer *l, struct words *v)
{
	unsigned flags = l->tok.flags;
	roz_shell_word info = l->tok.info;
	char *s;

	if (roz_alloc_array_reserve((void **)&v->v, &v->cap, sizeof(*v->v), v->n + 1) < 0) {
		shell_consume(p, l);
		shell_nomem(p);
		return false;
	}
	s = shell_take_text(p, l);
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
	while (shell_peek(p, l)->kind == TK_NEWLINE)
		shell_consume(p, l);
}

void shell_parse_range(struct parser *p, const char *s, size_t start, size_t end)
{
	struct lexer l;

	shell_lexer_init(&l, s, start, end);
	shell_parse_list(p, &l, 0);
	shell_lexer_finish(p, &l);
}

/* A script given as text (sh -c, eval, here-string, ...), one level down. */
void shell_parse_payload(struct parser *p, const char *s, size_t len)
{
	if (!len || !shell_enter(p))
		return;
	p->depth++;
	shell_parse_range(p, s, 0, len);
	p->depth--;
	shell_leave(p);
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
	if (roz_alloc_array_reserve((void **)&r->redirs, &r->capredirs, sizeof(*r->redirs), r->nredirs + 1) < 0) {
		shell_nomem(p);
		return;
	}
	d = &r->redirs[r->nredirs];
	d->path = roz_strdup(s);
	if (!d->path) {
		shell_nomem(p);
		return;
	}
	d->info = t->info;
	d->depth = p->depth;
	r->nredirs++;
}

static void parse_redirect(struct parser *p, struct lexer *l, struct input *in)
{
	struct token *t = shell_peek(p, l);
	enum redir_kind op = t->redir;
	int fd = t->fd;
	bool to_stdin = fd <= 0;
	const char *optext = t->op;
	struct heredoc *h;
	struct input *dst;
	bool quoted;
	char *text;

	shell_consume(p, l);
	t = shell_peek(p, l);
	if (t->kind != TK_WORD) {
		shell_flag(p, ROZ_SHELL_UNPARSED, "`%s` without a target", optext);
		return;
	}
	if (op == R_HEREDOC || op == R_HEREDOC_TABS) {
		quoted = t->flags & SW_QUOTED;
		if (roz_alloc_array_reserve((void **)&l->hd, &l->caphd, sizeof(*l->hd), l->nhd + 1) < 0) {
			shell_consume(p, l);
			shell_nomem(p);
			return;
		}
		text = shell_take_text(p, l);
		if (!text)
			return;
		h = &l->hd[l->nhd++];
		h->delim = text;
		h->quoted = quoted;
		h->tabs = op == R_HEREDOC_TABS;
		h->to_shell = false;
		h->depth = p->depth;
		dst = fd_input(p, in, fd);
		if (dst) {
			dst->kind = IN_HEREDOC;
			dst->l = l;
			dst->hd = l->nhd - 1;
			dst->gen = l->gen;
		}
		return;
	}
	if (op == R_HERESTR && in) {
		dst = fd_input(p, in, fd);
		if (!dst)
			return;
		dst->text = shell_take_text(p, l);
		dst->kind = IN_HERESTR;
		return;
	}
	if (op == R_IN && in && !strcmp(optext, "<")) {
		dst = fd_input(p, in, fd);
		if (dst) {
			dst->text = procsub_inside(p, &l->tok);
			dst->kind = dst->text ? IN_PROCSUB : IN_FILE;
		}
	} else if (op == R_IN && in && to_stdin) {
		fd_input(p, in, 0)->kind = IN_FILE;
	}
	if (op == R_OUT || !strcmp(optext, "<>"))
		add_redir(p, optext, &l->tok);
	shell_consume(p, l);
}

static void trailing_redirects(struct parser *p, struct lexer *l)
{
	while (shell_peek(p, l)->kind == TK_REDIR)
		parse_redirect(p, l, NULL);
}

/* A function body or a coproc command. */
static void parse_body(struct parser *p, struct lexer *l)
{
	struct input in = {.kind = IN_TTY}, next = {.kind = IN_PIPE};
	struct words v = {0};

	skip_newlines(p, l);
	if (!command_start(shell_peek(p, l))) {
		if (!p->halt)
			shell_flag(p, ROZ_SHELL_UNPARSED, "function without a body");
		return;
	}
	if (!shell_enter(p))
		return;
	parse_command(p, l, &in, &next, &v);
	input_dispose(&in);
	input_dispose(&next);
	shell_leave(p);
}

static void parse_simple(struct parser *p, struct lexer *l, struct input *in,
			 struct input *next, struct words *v)
{
	bool assigned = false;
	struct token *t;

	for (;;) {
		t = shell_peek(p, l);
		if (t->kind == TK_WORD) {
			if (!v->n && shell_assign_len(l->s + t->raw, t->rawend - t->raw)) {
				if (t->text.ptr)
					shell_note_assigned(p, t->text.ptr);
				shell_consume(p, l); /* NAME=value: its substitutions already ran */
				assigned = true;
				continue;
			}
			if (!words_push(p, l, v))
				break;
			if (v->n == 1 && !assigned && !(v->v[0].flags & (SW_QUOTED | SW_EXP)) &&
			    shell_peek(p, l)->kind == TK_LPAREN) {
				/* name () body: a function definition */
				shell_consume(p, l);
				if (shell_peek(p, l)->kind == TK_RPAREN)
					shell_consume(p, l);
				else
					shell_flag(p, ROZ_SHELL_UNPARSED, "unexpected `(` after `%.*s`",
						   shell_clip(v->v[0].s), v->v[0].s);
				parse_body(p, l);
				words_dispose(v);
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
		shell_run_words(p, v->v, v->n, in, 0, NULL);
		shell_pipe_output(p, v->v, v->n, in, next);
	}
	words_dispose(v);
}

static void parse_paren(struct parser *p, struct lexer *l)
{
	if (ch(l, l->pos) == '(' && shell_arith_closes(l, l->pos + 1)) {
		shell_consume(p, l);
		l->pos++;
		shell_lex_arith(p, l); /* (( expr )) */
	} else {
		shell_consume(p, l);
		if (!shell_enter(p))
			return;
		l->open[term_index(T_RPAREN)]++;
		p->depth++;
		if (shell_parse_list(p, l, T_RPAREN) == T_RPAREN)
			shell_consume(p, l);
		else if (!p->halt)
			shell_flag(p, ROZ_SHELL_UNPARSED, "`(` without `)`");
		p->depth--;
		l->open[term_index(T_RPAREN)]--;
		shell_leave(p);
	}
	trailing_redirects(p, l);
}

static void parse_group(struct parser *p, struct lexer *l)
{
	shell_consume(p, l);
	if (!shell_enter(p))
		return;
	l->open[term_index(T_RBRACE)]++;
	if (shell_parse_list(p, l, T_RBRACE) == T_RBRACE)
		shell_consume(p, l);
	else if (!p->halt)
		shell_flag(p, ROZ_SHELL_UNPARSED, "`{` without `}`");
	l->open[term_index(T_RBRACE)]--;
	shell_leave(p);
	trailing_redirects(p, l);
}

static void parse_if(struct parser *p, struct lexer *l)
{
	const unsigned terms = T_THEN | T_ELIF | T_ELSE | T_FI;
	unsigned term;

	shell_consume(p, l);
	if (!shell_enter(p))
		return;
	open_terms(l, terms, true);
	for (;;) {
		if (shell_parse_list(p, l, T_THEN) != T_THEN) {
			if (!p->halt)
				shell_flag(p, ROZ_SHELL_UNPARSED, "`if` without `then`");
			break;
		}
		shell_consume(p, l);
		term = shell_parse_list(p, l, T_ELIF | T_ELSE | T_FI);
		if (term == T_ELIF) {
			shell_consume(p, l);
			continue;
		}
		if (term == T_ELSE) {
			shell_consume(p, l);
			term = shell_parse_list(p, l, T_FI);
		}
		if (term == T_FI)
			shell_consume(p, l);
		else if (!p->halt)
			shell_flag(p, ROZ_SHELL_UNPARSED, "`if` without `fi`");
		break;
	}
	open_terms(l, terms, false);
	shell_leave(p);
	trailing_redirects(p, l);
}

/* The `do ... done` of a loop (or a bash `{ ... }` body after for). */
static void parse_do(struct parser *p, struct lexer *l, const char *what)
{
	struct token *t = shell_peek(p, l);

	if (is_kw(t, "do")) {
		shell_consume(p, l);
		if (shell_parse_list(p, l, T_DONE) == T_DONE)
			shell_consume(p, l);
		else if (!p->halt)
			shell_flag(p, ROZ_SHELL_UNPARSED, "`%s` without `done`", what);
	} else if (is_kw(t, "{")) {
		parse_group(p, l);
	} else if (!p->halt) {
		shell_flag(p, ROZ_SHELL_UNPARSED, "`%s` without `do`", what);
	}
}

static void parse_while(struct parser *p, struct lexer *l, const char *what)
{
	shell_consume(p, l);
	if (!shell_enter(p))
		return;
	open_terms(l, T_DO | T_DONE, true);
	if (shell_parse_list(p, l, T_DO) == T_DO)
		parse_do(p, l, what);
	else if (!p->halt)
		shell_flag(p, ROZ_SHELL_UNPARSED, "`%s` without `do`", what);
	open_terms(l, T_DO | T_DONE, false);
	shell_leave(p);
	trailing_redirects(p, l);
}

static void parse_for(struct parser *p, struct lexer *l, const char *what)
{
	struct token *t;

	shell_consume(p, l);
	if (!shell_enter(p))
		return;
	open_terms(l, T_DO | T_DONE, true);
	t = shell_peek(p, l);
	if (t->kind == TK_LPAREN && ch(l, l->pos) == '(') {
		shell_consume(p, l);
		l->pos++;
		shell_lex_arith(p, l); /* for (( ; ; )) */
	} else if (t->kind == TK_WORD) {
		if (t->text.ptr)
			shell_note_assigned(p, t->text.ptr);
		shell_consume(p, l);
		skip_newlines(p, l);
		if (is_kw(shell_peek(p, l), "in")) {
			shell_consume(p, l);
			while (shell_peek(p, l)->kind == TK_WORD)
				shell_consume(p, l);
		}
	} else if (!p->halt) {
		shell_flag(p, ROZ_SHELL_UNPARSED, "`%s` without a variable", what);
	}
	if (shell_peek(p, l)->kind == TK_SEMI)
		shell_consume(p, l);
	skip_newlines(p, l);
	parse_do(p, l, what);
	open_terms(l, T_DO | T_DONE, false);
	shell_leave(p);
	trailing_redirects(p, l);
}

static void parse_case(struct parser *p, struct lexer *l)
{
	struct token *t;
	unsigned term;

	shell_consume(p, l);
	if (!shell_enter(p))
		return;
	open_terms(l, T_DSEMI | T_ESAC, true);
	if (shell_peek(p, l)->kind == TK_WORD)
		shell_consume(p, l);
	skip_newlines(p, l);
	if (!is_kw(shell_peek(p, l), "in")) {
		if (!p->halt)
			shell_flag(p, ROZ_SHELL_UNPARSED, "`case` without `in`");
		goto out;
	}
	shell_consume(p, l);
	for (;;) {
		skip_newlines(p, l);
		t = shell_peek(p, l);
		if (is_kw(t, "esac")) {
			shell_consume(p, l);
			break;
		}
		if (t->kind == TK_LPAREN) {
			shell_consume(p, l);
			t = shell_peek(p, l);
		}
		while (t->kind == TK_WORD) {
			shell_consume(p, l);
			t = shell_peek(p, l);
			if (t->kind != TK_PIPE)
				break;
			shell_consume(p, l);
			t = shell_peek(p, l);
		}
		if (t->kind != TK_RPAREN) {
			if (!p->halt)
				shell_flag(p, ROZ_SHELL_UNPARSED, "`case` without `esac`");
			break;
		}
		shell_consume(p, l);
		term = shell_parse_list(p, l, T_DSEMI | T_ESAC);
		if (term == T_DSEMI) {
			shell_consume(p, l);
			continue;
		}
		if (term == T_ESAC)
			shell_consume(p, l);
		else if (!p->halt)
			shell_flag(p, ROZ_SHELL_UNPARSED, "`case` without `esac`");
		break;
	}
out:
	open_terms(l, T_DSEMI | T_ESAC, false);
	shell_leave(p);
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
		struct token *t = shell_peek(p, l);
		bool last;

		if (t->kind != TK_WORD) {
			if (!p->halt)
				shell_flag(p, ROZ_SHELL_UNPARSED, "`[[` without `]]`");
			break;
		}
		last = is_kw(t, "]]");
		if (!words_push(p, l, &v) || last)
			break;
	}
	l->cond = false;
	p->arith = true; /* -eq and friends evaluate their operands */
	if (!p->nomem)
		shell_emit(p, v.v[0].s, NULL, v.v + 1, v.n - 1, NULL, NONE);
	words_dispose(&v);
}

/* coproc NAME { ...; }: the name is only a name when a compound command follows. */
static void coproc_name(struct parser *p, struct lexer *l)
{
	struct token *t = shell_peek(p, l);
	size_t i = l->pos;
	int c, after;

	if (t->kind != TK_WORD || compound_start(t))
		return;
	while (i < l->end && (l->s[i] == ' ' || l->s[i] == '\t'))
		i++;
	c = ch(l, i);
	after = ch(l, i + 1);
	if (c == '(' || (c == '{' && (after == ' ' || after == '\t' || after == '\n')))
		shell_consume(p, l);
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
	t = shell_peek(p, l);
	while (is_kw(t, "!")) {
		shell_consume(p, l);
		t = shell_peek(p, l);
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
		shell_consume(p, l);
		if (shell_peek(p, l)->kind == TK_WORD)
			shell_consume(p, l);
		if (shell_peek(p, l)->kind == TK_LPAREN) {
			shell_consume(p, l);
			if (shell_peek(p, l)->kind == TK_RPAREN)
				shell_consume(p, l);
		}
		parse_body(p, l);
	} else if (is_kw(t, "coproc")) {
		shell_consume(p, l);
		coproc_name(p, l);
		parse_body(p, l);
	} else if (command_start(t)) {
		parse_simple(p, l, in, next, v);
	} else if (!p->halt) {
		shell_flag(p, ROZ_SHELL_UNPARSED, "expected a command, found `%.*s`",
			   shell_clip(tok_name(t)), tok_name(t));
	}
}

static void parse_pipeline(struct parser *p, struct lexer *l)
{
	struct input in = {.kind = IN_TTY}, next = {.kind = IN_PIPE};
	struct words pre = {0};
	const char *op;
	struct token *t;

	/* `time` is a keyword that can time a compound command */
	if (is_kw(shell_peek(p, l), "time")) {
		words_push(p, l, &pre);
		if (is_kw(shell_peek(p, l), "-p"))
			words_push(p, l, &pre);
		if (compound_start(shell_peek(p, l)))
			words_dispose(&pre);
	}
	for (;;) {
		parse_command(p, l, &in, &next, &pre);
		input_dispose(&in);
		in = next;
		next.kind = IN_PIPE;
		next.text = NULL;
		next.more = NULL;
		t = shell_peek(p, l);
		if (t->kind != TK_PIPE)
			break;
		op = t->op;
		shell_consume(p, l);
		skip_newlines(p, l);
		if (!command_start(shell_peek(p, l))) {
			if (!p->halt)
				shell_flag(p, ROZ_SHELL_UNPARSED, "no command after `%s`", op);
			break;
		}
	}
	input_dispose(&in);
	words_dispose(&pre);
}

static void parse_and_or(struct parser *p, struct lexer *l)
{
	for (;;) {
		struct token *t;
		const char *op;

		parse_pipeline(p, l);
		t = shell_peek(p, l);
		if (t->kind != TK_AND && t->kind != TK_OR)
			return;
		op = t->op;
		shell_consume(p, l);
		skip_newlines(p, l);
		if (!command_start(shell_peek(p, l))) {
			if (!p->halt)
				shell_flag(p, ROZ_SHELL_UNPARSED, "no command after `%s`", op);
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
unsigned shell_parse_list(struct parser *p, struct lexer *l, unsigned accept)
{
	for (;;) {
		struct token *t = shell_peek(p, l);
		unsigned term;

		if (t->kind == TK_EOF)
			return T_EOF;
		if (t->kind == TK_NEWLINE || t->kind == TK_SEMI || t->kind == TK_AMP) {
			shell_consume(p, l);
			continue;
		}
		term = terminator_of(t);
		if (term) {
			if ((accept & term) || l->open[term_index(term)])
				return term;
			shell_flag(p, ROZ_SHELL_UNPARSED, "unexpected `%.*s`", shell_clip(tok_name(t)),
				   tok_name(t));
			shell_consume(p, l);
			continue;
		}
		if (!command_start(t)) {
			shell_flag(p, ROZ_SHELL_UNPARSED, "unexpected `%s`", tok_name(t));
			shell_consume(p, l);
			continue;
		}
		parse_and_or(p, l);
	}
}

/* ---- API ---------------------------------------------------------------- */

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
		shell_parse_range(&p, text, 0, len);
	if (!p.nomem)
		shell_settle(&p);
	for (size_t i = 0; i < p.naliases; i++)
		roz_free(p.aliases[i]);
	roz_free(p.aliases);
	if (p.nomem) {
		roz_shell_result_dispose(out);
		roz_error_set("out of memory reading a shell command");
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

void roz_shell_result_dispose(roz_shell_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->ncmds; i++)
		cmd_dispose(&res->cmds[i]);
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
