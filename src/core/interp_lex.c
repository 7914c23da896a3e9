/*
 * interp_lex.c - the scan's reading of program text: the lines it emits,
 * string literals in each language's spelling (escapes, interpolation,
 * perl q// and ruby %q, lua long brackets) and the arguments of a call
 * (strings, lists, objects, keyword arguments). Every loop is bounded by
 * the input and by the scanner's work budget.
 */
#include "interp_int.h"

#include "roz/digest.h"

#include <string.h>

void interp_arg_init(arg *a)
{
	memset(a, 0, sizeof(*a));
	roz_buf_init(&a->text);
}

void interp_arg_done(scanner *sc, arg *a)
{
	if (roz_buf_failed(&a->text) != ROZ_OK)
		sc->rc = ROZ_ENOMEM;
	roz_buf_dispose(&a->text);
}

bool interp_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool interp_ident_start(char c)
{
	return interp_ident_char(c) && !(c >= '0' && c <= '9');
}

bool interp_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* One more byte looked at; false (and the scan dynamic) when the budget is spent. */
bool interp_charge(scanner *sc)
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

void interp_emit(scanner *sc, const char *t, size_t n, bool dyn)
{
	roz_interp_scan *o = sc->out;
	char *copy;

	if (dyn)
		o->dynamic = true;
	while (n && interp_is_space(*t)) {
		t++;
		n--;
	}
	while (n && interp_is_space(t[n - 1]))
		n--;
	if (!n || sc->rc != ROZ_OK)
		return;
	if (n > ROZ_INTERP_LINE_MAX) {
		n = ROZ_INTERP_LINE_MAX;
		o->dynamic = true;
		while (n && interp_is_space(t[n - 1]))
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

		if (!interp_ident_char(c) && !strchr("@%+=:,./-", c))
			return true;
	}
	return false;
}

/* Append a word to a line, quoted for a shell when it needs it. */
void interp_add_word(roz_buf *b, const char *w, size_t n, bool quote)
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
	interp_add_word(&a->text, w, n, true);
	if (!a->nwords++)
		a->first = a->text.len;
}

/* Add one decoded byte to a string argument. */
void interp_put(arg *a, char c)
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
		interp_put(a, (char)cp);
	} else if (cp < 0x800) {
		interp_put(a, (char)(0xc0 | (cp >> 6)));
		interp_put(a, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		interp_put(a, (char)(0xe0 | (cp >> 12)));
		interp_put(a, (char)(0x80 | ((cp >> 6) & 0x3f)));
		interp_put(a, (char)(0x80 | (cp & 0x3f)));
	} else {
		interp_put(a, (char)(0xf0 | ((cp >> 18) & 0x07)));
		interp_put(a, (char)(0x80 | ((cp >> 12) & 0x3f)));
		interp_put(a, (char)(0x80 | ((cp >> 6) & 0x3f)));
		interp_put(a, (char)(0x80 | (cp & 0x3f)));
	}
}


/* ---- string literals ------------------------------------------------- */

char interp_closing_of(char d)
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
size_t interp_delimiter_at(const scanner *sc, size_t p, bool allow_space)
{
	size_t q = p;

	if (allow_space)
		while (q < sc->n && (sc->s[q] == ' ' || sc->s[q] == '\t'))
			q++;
	if (q >= sc->n)
		return 0;
	if (q > p)
		return strchr("([{<", sc->s[q]) ? q : 0;
	if (interp_ident_char(sc->s[q]) || interp_is_space(sc->s[q]) || strchr("=,;)", sc->s[q]))
		return 0;
	return q;
}

/* Does a string (in the arguments' sense) start at sc->pos? Commands (`...`, qx) are not strings. */
bool interp_string_at(const scanner *sc, strspec *sp)
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
	boundary = !(p && interp_ident_char(s[p - 1]));
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
		if (q < n && interp_ident_char(s[q]))
			return false;
		d = interp_delimiter_at(sc, q, true);
		if (!d)
			return false;
		sp->kind = q - p == 2 && s[p + 1] == 'w' ? 2 : 1;
		sp->how = q - p == 2 && s[p + 1] == 'q' ? H_PERL : H_RAW;
		sp->open = s[d];
		sp->close = interp_closing_of(s[d]);
		sp->body = d + 1;
		return true;
	} else if ((L->flags & F_RUBY_PCT) && c == '%') {
		size_t q = p + 1, d;
		char t = q < n ? s[q] : '\0';

		if (t == 'q' || t == 'Q' || t == 'w' || t == 'W')
			q++;
		else if (!(t == '(' || t == '[' || t == '{' || t == '<'))
			return false;
		d = interp_delimiter_at(sc, q, false);
		if (!d)
			return false;
		sp->kind = t == 'w' || t == 'W' ? 2 : 1;
		sp->how = t == 'q' || t == 'w' ? H_RAW : H_HASH;
		sp->open = s[d];
		sp->close = interp_closing_of(s[d]);
		sp->body = d + 1;
		return true;
	} else if (sc->id == L_ELIXIR && c == '~' && p + 1 < n && strchr("cCsS", s[p + 1]) && s[p + 1]) {
		size_t d = interp_delimiter_at(sc, p + 2, false);

		if (!d)
			return false;
		sp->kind = 1;
		sp->how = s[p + 1] == 'c' || s[p + 1] == 's' ? H_HASH : H_RAW;
		sp->open = s[d];
		sp->close = interp_closing_of(s[d]);
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

	while (sc->pos < sc->n && interp_charge(sc)) {
		char c = sc->s[sc->pos++];

		if (c == '{')
			depth++;
		else if (c == '}' && --depth <= 0)
			return;
	}
}

/* An escape at sc->pos (the backslash). */
void interp_escape(scanner *sc, const strspec *sp, arg *a)
{
	const char *s = sc->s;
	char d;

	sc->pos++;
	if (sc->pos >= sc->n) {
		interp_put(a, '\\');
		return;
	}
	d = s[sc->pos++];
	if (sp->how & H_NOESC) {
		interp_put(a, '\\');
		interp_put(a, d);
		return;
	}
	if (sp->how & H_RAW) {
		if (d != '\\' && d != sp->close && d != sp->open)
			interp_put(a, '\\');
		interp_put(a, d);
		return;
	}
	switch (d) {
	case 'n': interp_put(a, '\n'); return;
	case 't': interp_put(a, '\t'); return;
	case 'r': interp_put(a, '\r'); return;
	case 'a': interp_put(a, '\a'); return;
	case 'b': interp_put(a, '\b'); return;
	case 'f': interp_put(a, '\f'); return;
	case 'v': interp_put(a, '\v'); return;
	case 'e': interp_put(a, '\033'); return;
	case '\n': return; /* a continued line */
	case 'x': {
		unsigned v = 0;
		int k = 0, h;

		while (k < 2 && sc->pos < sc->n && (h = roz_digest_hex_digit((unsigned char)s[sc->pos])) >= 0) {
			v = v * 16 + (unsigned)h;
			sc->pos++;
			k++;
		}
		if (!k) {
			interp_put(a, 'x');
			return;
		}
		interp_put(a, (char)v);
		return;
	}
	case 'u': {
		unsigned long v = 0;
		int k = 0, h;
		bool braced = sc->pos < sc->n && s[sc->pos] == '{';

		sc->pos += braced;
		while (k < (braced ? 6 : 4) && sc->pos < sc->n && (h = roz_digest_hex_digit((unsigned char)s[sc->pos])) >= 0) {
			v = v * 16 + (unsigned long)h;
			sc->pos++;
			k++;
		}
		if (braced && sc->pos < sc->n && s[sc->pos] == '}')
			sc->pos++;
		if (!k) {
			interp_put(a, 'u');
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
		interp_put(a, (char)(v & 0xff));
		return;
	}
	if ((sp->how & H_KEEP_ESC) && d != '\\' && d != '\'' && d != '"')
		interp_put(a, '\\');
	interp_put(a, d);
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
	if (((sp->how & H_DOLLAR) && c == '$' && (interp_ident_start(d) || d == '(')) ||
	    ((sp->how & H_PERL) && ((c == '$' && d && (interp_ident_char(d) || strchr(":$&!@", d))) ||
				    (c == '@' && (interp_ident_start(d) || d == '{' || d == '$'))))) {
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
bool interp_lex_string(scanner *sc, const strspec *sp, arg *a)
{
	const char *s = sc->s;
	int depth = 0;

	sc->pos = sp->body;
	while (sc->pos < sc->n && interp_charge(sc)) {
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
			interp_put(a, c);
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
			interp_escape(sc, sp, a);
			continue;
		}
		if (interpolation(sc, sp)) {
			a->dyn = true;
			a->frozen = true;
			continue;
		}
		if ((sp->how & H_FBRACE) && (c == '{' || c == '}') && sc->pos + 1 < sc->n && s[sc->pos + 1] == c)
			sc->pos++; /* {{ and }} stand for one brace */
		interp_put(a, c);
		sc->pos++;
	}
	return false;
}

/* Read a qw()/%w() list: the body split at white space. */
static void lex_words(scanner *sc, const strspec *sp, arg *a)
{
	arg body;
	size_t i = 0;

	interp_arg_init(&body);
	interp_lex_string(sc, sp, &body);
	a->kind = ARG_LIST;
	a->dyn |= body.dyn;
	while (body.text.ptr && i < body.text.len) {
		size_t j;

		while (i < body.text.len && interp_is_space(body.text.ptr[i]))
			i++;
		j = i;
		while (j < body.text.len && !interp_is_space(body.text.ptr[j]))
			j++;
		if (j > i)
			list_add(a, body.text.ptr + i, j - i);
		i = j;
	}
	interp_arg_done(sc, &body);
}

/* ---- arguments ------------------------------------------------------- */

bool interp_starts_with(const scanner *sc, size_t p, const char *w)
{
	size_t k = strlen(w);

	return k && p + k <= sc->n && memcmp(sc->s + p, w, k) == 0;
}

/* A comment at sc->pos: skip it (to the end of the line, which stays). */
bool interp_skip_comment(scanner *sc)
{
	const lang *L = sc->L;
	size_t p = sc->pos;

	if ((L->flags & F_C_COMMENT) && interp_starts_with(sc, p, "/*")) {
		for (p += 2; p + 1 < sc->n && !(sc->s[p] == '*' && sc->s[p + 1] == '/'); p++)
			if (!interp_charge(sc))
				break;
		sc->pos = p + 2 < sc->n ? p + 2 : sc->n;
		return true;
	}
	if (!interp_starts_with(sc, p, L->comment) && !interp_starts_with(sc, p, L->comment2))
		return false;
	while (p < sc->n && sc->s[p] != '\n' && interp_charge(sc))
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
		else if (!interp_skip_comment(sc))
			return;
	}
}

static bool is_stop_word(const scanner *sc)
{
	size_t p = sc->pos, q = p;
	const char (*w)[STOP_LEN] = interp_stops[sc->L->stops];

	if (p && interp_ident_char(sc->s[p - 1]))
		return false;
	while (q < sc->n && interp_ident_char(sc->s[q]))
		q++;
	for (size_t k = 0; k < STOPS_MAX && w[k][0]; k++)
		if (strlen(w[k]) == q - p && memcmp(w[k], sc->s + p, q - p) == 0)
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
	if ((sc->L->flags & F_FAT_COMMA) && interp_starts_with(sc, sc->pos, "=>"))
		return true;
	return !closer && (c == ';' || c == '\n' || is_stop_word(sc));
}

/* A string literal at sc->pos, read and thrown away (its text is no argument). */
static bool skip_string(scanner *sc)
{
	strspec sp;
	arg scratch;

	if (!interp_string_at(sc, &sp))
		return false;
	interp_arg_init(&scratch);
	scratch.frozen = true;
	interp_lex_string(sc, &sp, &scratch);
	return true;
}

/* Skip the rest of an argument, brackets and strings included. */
static void skip_rest(scanner *sc, char closer)
{
	int depth = 0;

	while (sc->pos < sc->n && !sc->stop) {
		char c = sc->s[sc->pos];

		if (depth == 0 && at_arg_end(sc, closer))
			return;
		if (interp_skip_comment(sc))
			continue;
		if (skip_string(sc))
			continue;
		if (!interp_charge(sc))
			return;
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}')
			depth--;
		sc->pos++;
	}
}

void interp_read_list(scanner *sc, char close, arg *a)
{
	a->kind = ARG_LIST;
	while (sc->pos < sc->n && !sc->stop) {
		arg el;

		interp_arg_init(&el);
		interp_read_arg(sc, close, &el, true);
		if (el.kind == ARG_STR && !el.dyn)
			list_add(a, el.text.ptr ? el.text.ptr : "", el.text.len);
		else if (el.kind != ARG_NONE && el.kind != ARG_SKIP) {
			a->dyn = true;
			a->frozen = true;
		}
		interp_arg_done(sc, &el);
		if (sc->pos < sc->n && sc->s[sc->pos] == ',') {
			sc->pos++;
			continue;
		}
		if ((sc->L->flags & F_FAT_COMMA) && interp_starts_with(sc, sc->pos, "=>")) {
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

		if (interp_skip_comment(sc))
			continue;
		if (skip_string(sc))
			continue;
		if (!interp_charge(sc))
			return;
		if (c == '{' || c == '(' || c == '[') {
			depth++;
		} else if (c == '}' || c == ')' || c == ']') {
			sc->pos++;
			if (--depth <= 0)
				return;
			continue;
		} else if (depth == 1 && !found && interp_ident_start(c) && !interp_ident_char(sc->s[sc->pos - 1])) {
			size_t q = sc->pos, r;

			while (q < sc->n && interp_ident_char(sc->s[q]))
				q++;
			r = q;
			while (r < sc->n && (sc->s[r] == ' ' || sc->s[r] == '\t'))
				r++;
			if ((q - sc->pos == 4 && memcmp(sc->s + sc->pos, "args", 4) == 0) ||
			    (q - sc->pos == 3 && memcmp(sc->s + sc->pos, "cmd", 3) == 0)) {
				if (r < sc->n && sc->s[r] == ':')
					r++;
				else if (interp_starts_with(sc, r, "=>"))
					r += 2;
				else
					r = sc->n;
				while (r < sc->n && interp_is_space(sc->s[r]))
					r++;
				if (r < sc->n && sc->s[r] == '[') {
					sc->pos = r + 1;
					interp_read_list(sc, ']', a);
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
	while (q < sc->n && interp_ident_char(sc->s[q]))
		q++;
	if (q == p || !interp_ident_start(sc->s[p]))
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
void interp_read_arg(scanner *sc, char closer, arg *a, bool in_list)
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
		if (state != VALUE && interp_string_at(sc, &sp)) {
			if (sp.kind == 1 && (state == START || state == JOIN || (state == STR && (L->flags & F_ADJACENT))) &&
			    (a->kind == ARG_NONE || a->kind == ARG_STR)) {
				a->kind = ARG_STR;
				interp_lex_string(sc, &sp, a);
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
				interp_read_list(sc, ']', a);
				state = VALUE;
				continue;
			}
			if (sc->id == L_R && interp_starts_with(sc, sc->pos, "c(") && !(sc->pos && interp_ident_char(sc->s[sc->pos - 1]))) {
				sc->pos += 2;
				interp_read_list(sc, ')', a);
				state = VALUE;
				continue;
			}
			if (sc->id == L_PHP && interp_starts_with(sc, sc->pos, "array(") &&
			    !(sc->pos && interp_ident_char(sc->s[sc->pos - 1]))) {
				sc->pos += 6;
				interp_read_list(sc, ')', a);
				state = VALUE;
				continue;
			}
			if (c == '{') {
				read_object(sc, a);
				state = VALUE;
				continue;
			}
		} else if (state == STR && interp_starts_with(sc, sc->pos, L->concat) &&
			   !interp_starts_with(sc, sc->pos + strlen(L->concat), "=")) {
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
