/*
 * interp_calls.c - the scan: which shell command lines a program starts.
 *
 * The scan (roz_interp_scan_cmd) is a heuristic reader, not a parser. It
 * looks for the names of the calls that start processes wherever they
 * appear in the program, inside strings too (a program cannot hide a call
 * from it by opening a quote it never closes), then reads the call's
 * arguments with a small lexer for the language's string literals and
 * lists (interp_lex.c). Every loop is bounded by the input and by a work
 * budget; running out of budget or of room for lines makes the scan
 * dynamic.
 *
 * This file holds the calls each language starts processes with, the
 * lines those calls give, the per-language scanners (command literals,
 * awk pipes, Tcl, AppleScript, Groovy, PowerShell) and interp_scan_text.
 */
#include "interp_int.h"

#include <string.h>
#include <strings.h>

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
	{"doShellScript", ANY_MODULE, M_LINE, true},
};

static const call groovy_calls[] = {
	{"ProcessBuilder", ANY_MODULE, M_ALL, true}, {"exec", "Runtime", M_LINE, false},
	{"evaluate", "", M_EVAL, true},
};

static const call elixir_calls[] = {
	{"cmd", "System|os", M_PROG, false}, {"shell", "System", M_LINE, false},
	{"eval_string", "Code", M_EVAL, false},
};

static const call julia_calls[] = {
	{"Cmd", "", M_LINE, true},
};

const char interp_stops[][STOPS_MAX][STOP_LEN] = {
	[S_NONE] = {""},
	[S_RUBY] = {"if", "unless", "while", "until", "and", "or", "do", "then", "rescue", ""},
	[S_PERL] = {"if", "unless", "while", "until", "and", "or", "foreach", "for", ""},
	[S_OSA] = {"with", "without", "as", "given", "in", "user", "password", ""},
};

static const lang langs[] = {
	[L_PY] = {"'\"", "", "", 0, F_PY_PREFIX | F_TRIPLE | F_NL_ENDS | F_ADJACENT | F_KW_EQ | F_KEEP_ESC | F_BRACKETS,
		  "+", "#", "", S_NONE},
	[L_JS] = {"'\"`", "", "`", H_DBRACE, F_NL_ENDS | F_BRACKETS | F_C_COMMENT, "+", "//", "", S_NONE},
	[L_RUBY] = {"'\"", "'", "\"", H_HASH, F_PARENLESS | F_RUBY_PCT | F_BACKTICK | F_KW_COLON | F_BRACKETS, "+", "#",
		    "", S_RUBY},
	[L_PERL] = {"'\"", "'", "\"", H_PERL, F_PARENLESS | F_PERL_Q | F_BACKTICK | F_FAT_COMMA | F_ARROW, ".", "#", "",
		    S_PERL},
	[L_PHP] = {"'\"", "'", "\"", H_DOLLAR, F_BACKTICK | F_BRACKETS | F_C_COMMENT | F_FAT_COMMA | F_ARROW, ".", "//",
		   "#", S_NONE},
	[L_AWK] = {"\"", "", "", 0, F_NL_ENDS | F_ADJACENT | F_KEEP_ESC, "", "#", "", S_NONE},
	[L_LUA] = {"'\"", "", "", 0, F_NL_ENDS | F_PARENLESS | F_LUA_LONG, "..", "--", "", S_NONE},
	[L_R] = {"'\"", "", "", 0, F_KW_EQ, "", "#", "", S_NONE},
	[L_TCL] = {"\"", "", "", 0, 0, "", "", "", S_NONE},
	[L_OSA] = {"\"", "", "", 0, F_PARENLESS, "&", "--", "#", S_OSA},
	[L_PWSH] = {"'\"", "", "", 0, 0, "", "", "", S_NONE},
	[L_GROOVY] = {"'\"", "", "\"", H_DOLLAR, F_TRIPLE | F_BRACKETS | F_C_COMMENT | F_PARENLESS, "+", "//", "", S_NONE},
	[L_ELIXIR] = {"'\"", "", "'\"", H_HASH, F_TRIPLE | F_BRACKETS | F_KW_COLON | F_PARENLESS, "<>", "#", "", S_NONE},
	[L_JULIA] = {"\"", "", "\"", H_DOLLAR, F_TRIPLE | F_BRACKETS | F_BACKTICK | F_KW_EQ, "*", "#", "", S_NONE},
};

#define CALLS(a) (*n = sizeof(a) / sizeof(a[0]), a)

/* The calls language `id` starts processes with (a switch, not a table of pointers). */
static const call *calls_of(lang_id id, size_t *n)
{
	switch (id) {
	case L_PY:
		return CALLS(py_calls);
	case L_JS:
		return CALLS(js_calls);
	case L_RUBY:
		return CALLS(ruby_calls);
	case L_PERL:
		return CALLS(perl_calls);
	case L_PHP:
		return CALLS(php_calls);
	case L_AWK:
		return CALLS(awk_calls);
	case L_LUA:
		return CALLS(lua_calls);
	case L_R:
		return CALLS(r_calls);
	case L_OSA:
		return CALLS(osa_calls);
	case L_GROOVY:
		return CALLS(groovy_calls);
	case L_ELIXIR:
		return CALLS(elixir_calls);
	case L_JULIA:
		return CALLS(julia_calls);
	case L_TCL:
	case L_PWSH:
		break;
	}
	*n = 0;
	return NULL;
}

/* ---- calls ----------------------------------------------------------- */

/* Does the program name `w` (n bytes) as a whole word anywhere in [from, to)? */
static bool names_in(const scanner *sc, size_t from, size_t to, const char *w, size_t n)
{
	for (size_t i = from; n && i + n <= to; i++)
		if (memcmp(sc->s + i, w, n) == 0 && !(i && interp_ident_char(sc->s[i - 1])) &&
		    !(i + n < sc->n && interp_ident_char(sc->s[i + n])))
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

/* Does the program mention one of the modules anywhere? (cached per list of modules) */
static bool mentions_module(scanner *sc, const char *modules)
{
	size_t k;

	for (k = 0; k < sizeof(sc->mkey) / sizeof(sc->mkey[0]) && sc->mkey[k]; k++)
		if (strcmp(sc->mkey[k], modules) == 0)
			return sc->mval[k] == 2;
	if (sc->budget < sc->n) {
		sc->budget = 0;
		interp_charge(sc);
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

		if (!interp_charge(sc))
			return false;
		if (memcmp(sc->s + i, q, qn) != 0 || (i && interp_ident_char(sc->s[i - 1])) ||
		    (i + qn < sc->n && interp_ident_char(sc->s[i + qn])))
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
	bool any = strcmp(k->modules, ANY_MODULE) == 0;

	*exact = false;
	if (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':')
		q1 = i - 2; /* Kernel::system, base::system */
	else if (i >= 2 && s[i - 1] == '>' && s[i - 2] == '-' && (sc->L->flags & F_ARROW))
		q1 = i - 2; /* $obj->exec */
	else if (i >= 1 && s[i - 1] == '.')
		q1 = i - 1;
	else /* bare */
		return k->bare || (!any && *k->modules && mentions_module(sc, k->modules));
	for (q0 = q1; q0 && interp_ident_char(s[q0 - 1]); q0--)
		;
	if (q0 == q1) /* `(...).name`, `"...".name`, `::name` */
		return any || (*k->modules ? mentions_module(sc, k->modules) : k->bare);
	if (any)
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
			interp_emit(sc, a[0].text.ptr + 1, a[0].text.len - 1, a[0].dyn);
		return;
	case M_OPEN: {
		const char *t;
		size_t n;

		if (na < 2 || a[1].kind != ARG_STR || !a[1].text.len)
			return;
		t = a[1].text.ptr;
		n = a[1].text.len;
		while (n && interp_is_space(*t))
			t++, n--;
		while (n && interp_is_space(t[n - 1]))
			n--;
		if ((n == 2 && memcmp(t, "-|", 2) == 0) || (n == 2 && memcmp(t, "|-", 2) == 0)) {
			i = 2;
			break; /* the words follow */
		}
		if (n && t[n - 1] == '|')
			interp_emit(sc, t, n - 1, a[1].dyn);
		else if (n && t[0] == '|')
			interp_emit(sc, t + 1, n - 1, a[1].dyn);
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
			interp_emit(sc, roz_buf_cstr(&line), line.len, dyn);
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
			interp_emit(sc, roz_buf_cstr(&a[0].text), a[0].text.len, a[0].dyn);
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
		interp_emit(sc, roz_buf_cstr(&line), line.len, dyn);
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
			interp_add_word(&line, a[i].text.ptr ? a[i].text.ptr : "", a[i].text.len, !first);
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
	interp_emit(sc, roz_buf_cstr(&line), line.len, dyn);
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
		if (p < sc->n && sc->s[p] == '`' && interp_string_at(sc, &sp)) {
			interp_arg_init(&a[0]);
			a[0].kind = ARG_STR;
			interp_lex_string(sc, &sp, &a[0]);
			build(sc, k, a, 1);
			interp_arg_done(sc, &a[0]);
		}
		return;
	}
	if (p < sc->n && sc->s[p] == '(') {
		closer = ')';
		sc->pos = p + 1;
	} else if ((sc->L->flags & F_PARENLESS) && (interp_string_at(sc, &sp) || (p < sc->n && sc->s[p] == '['))) {
		closer = '\0';
	} else {
		if (exact && !(p < sc->n && interp_ident_char(sc->s[p])))
			sc->out->dynamic = true; /* the function itself is handed on: f = os.system */
		return;
	}
	for (;;) {
		arg scratch, *cur = na < MAX_ARGS ? &a[na] : &scratch;

		interp_arg_init(cur);
		interp_read_arg(sc, closer, cur, false);
		if (cur == &scratch)
			interp_arg_done(sc, &scratch);
		else
			na++;
		if (sc->stop || sc->pos >= sc->n)
			break;
		if (sc->s[sc->pos] == ',')
			sc->pos++;
		else if ((sc->L->flags & F_FAT_COMMA) && interp_starts_with(sc, sc->pos, "=>"))
			sc->pos += 2;
		else
			break;
	}
	build(sc, k, a, na);
	for (size_t x = 0; x < na; x++)
		interp_arg_done(sc, &a[x]);
}

/* Every name of a call the language starts processes with, wherever it is. */
static void scan_calls(scanner *sc)
{
	size_t ncalls;
	const call *calls = calls_of(sc->id, &ncalls);

	for (size_t i = 0; i < sc->n && !sc->stop && sc->rc == ROZ_OK;) {
		size_t j = i;
		bool js = sc->id == L_JS;

		if (!(interp_ident_start(sc->s[i]) || (js && sc->s[i] == '$')) ||
		    (i && (interp_ident_char(sc->s[i - 1]) || sc->s[i - 1] == '$' || sc->s[i - 1] == '@'))) {
			i++;
			continue;
		}
		while (j < sc->n && (interp_ident_char(sc->s[j]) || (js && sc->s[j] == '$')))
			j++;
		for (size_t k = 0; k < ncalls; k++)
			if (strlen(calls[k].name) == j - i && memcmp(calls[k].name, sc->s + i, j - i) == 0) {
				try_call(sc, &calls[k], i, j);
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
			   !(i && interp_ident_char(s[i - 1])) && !(i + 2 < sc->n && interp_ident_char(s[i + 2]))) {
			size_t d = interp_delimiter_at(sc, i + 2, true);

			if (!d)
				continue;
			sp.open = s[d];
			sp.close = interp_closing_of(s[d]);
			sp.body = d + 1;
			sp.how = s[d] == '\'' ? H_RAW : H_PERL;
		} else if ((L->flags & F_RUBY_PCT) && s[i] == '%' && i + 1 < sc->n && s[i + 1] == 'x') {
			size_t d = interp_delimiter_at(sc, i + 2, false);

			if (!d)
				continue;
			sp.open = s[d];
			sp.close = interp_closing_of(s[d]);
			sp.body = d + 1;
			sp.how = H_HASH;
		} else {
			continue;
		}
		sp.kind = 1;
		interp_arg_init(&a);
		closed = interp_lex_string(sc, &sp, &a);
		if (closed)
			interp_emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
		interp_arg_done(sc, &a);
	}
}

/* awk: "cmd" | getline, print | "cmd" (and |&). */
static void scan_awk_pipes(scanner *sc)
{
	enum { T_NONE, T_OPERAND, T_OP, T_STR } last = T_NONE, before_str = T_NONE;
	size_t str_at = 0;
	const char *s = sc->s;

	sc->pos = 0;
	while (sc->pos < sc->n && !sc->stop && sc->rc == ROZ_OK && interp_charge(sc)) {
		char c = s[sc->pos];
		strspec sp;

		if (c == ' ' || c == '\t' || c == '\r') {
			sc->pos++;
		} else if (c == '\n' || c == ';' || c == '{' || c == '}') {
			last = T_NONE;
			sc->pos++;
		} else if (interp_skip_comment(sc)) {
			continue;
		} else if (interp_string_at(sc, &sp)) {
			arg scratch;

			interp_arg_init(&scratch);
			scratch.frozen = true;
			before_str = last;
			str_at = sc->pos;
			interp_lex_string(sc, &sp, &scratch);
			last = T_STR;
		} else if (c == '/' && last != T_OPERAND && last != T_STR) {
			/* a regular expression */
			for (sc->pos++; sc->pos < sc->n && s[sc->pos] != '/' && s[sc->pos] != '\n' && interp_charge(sc); sc->pos++)
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
			if (q + 7 <= sc->n && memcmp(s + q, "getline", 7) == 0 && !(q + 7 < sc->n && interp_ident_char(s[q + 7]))) {
				if (last == T_STR && before_str != T_OPERAND && before_str != T_STR) {
					size_t back = sc->pos;
					arg a;

					sc->pos = str_at;
					interp_arg_init(&a);
					if (interp_string_at(sc, &sp)) {
						interp_lex_string(sc, &sp, &a);
						interp_emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
					}
					interp_arg_done(sc, &a);
					sc->pos = back;
				} else {
					sc->out->dynamic = true;
				}
				sc->pos = q + 7;
				last = T_OPERAND;
			} else {
				arg a;

				sc->pos = q;
				interp_arg_init(&a);
				interp_read_arg(sc, '\0', &a, false);
				if (a.kind == ARG_STR)
					interp_emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
				else
					sc->out->dynamic = true;
				interp_arg_done(sc, &a);
				last = T_OPERAND;
			}
		} else if (interp_ident_char(c)) {
			while (sc->pos < sc->n && interp_ident_char(s[sc->pos]))
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

	while (sc->pos < sc->n && ((interp_is_space(s[sc->pos]) && s[sc->pos] != '\n') ||
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

		while (sc->pos < sc->n && interp_charge(sc)) {
			c = s[sc->pos++];
			if (c == '{' && depth++ == 0)
				continue;
			if (c == '}' && --depth == 0)
				return true;
			interp_put(w, c);
		}
		return true;
	}
	if (c == '"')
		sc->pos++;
	while (sc->pos < sc->n && interp_charge(sc)) {
		char d = s[sc->pos];

		if (c == '"' ? d == '"' : (interp_is_space(d) || d == ';' || d == ']')) {
			sc->pos += c == '"';
			return true;
		}
		if (d == '$' || d == '[') {
			w->dyn = true;
			w->frozen = true;
			if (d == '[') {
				int depth = 0;

				for (; sc->pos < sc->n && interp_charge(sc); sc->pos++) {
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
			interp_escape(sc, &sp, w);
			continue;
		}
		interp_put(w, d);
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

		if (!interp_ident_start(s[i]) || (i && !strchr(" \t\r\n;[{", s[i - 1]))) {
			i++;
			continue;
		}
		while (j < sc->n && interp_ident_char(s[j]))
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

				interp_arg_init(&w);
				more = tcl_word(sc, &w);
				if (more && options && w.text.len && w.text.ptr[0] == '-' && !w.dyn) {
					options = !(w.text.len == 2 && w.text.ptr[1] == '-');
				} else if (more) {
					options = false;
					if (!dyn && (w.text.len || !w.dyn))
						interp_add_word(&line, w.text.ptr ? w.text.ptr : "", w.text.len,
								!tcl_operator(roz_buf_cstr(&w.text), w.text.len));
					dyn |= w.dyn;
				}
				interp_arg_done(sc, &w);
				if (!more || line.len > ROZ_INTERP_LINE_MAX)
					break;
			}
			if (!line.len && dyn)
				sc->out->dynamic = true;
			interp_emit(sc, roz_buf_cstr(&line), line.len, dyn);
			if (roz_buf_failed(&line) != ROZ_OK)
				sc->rc = ROZ_ENOMEM;
			roz_buf_dispose(&line);
		} else if (open) {
			arg w;

			interp_arg_init(&w);
			if (tcl_word(sc, &w) && w.text.len && w.text.ptr[0] == '|')
				interp_emit(sc, w.text.ptr + 1, w.text.len - 1, w.dyn);
			interp_arg_done(sc, &w);
		}
		i = sc->pos > j ? sc->pos : j;
	}
}

/* AppleScript: do shell script "..." (words in any case, any spacing). */
static void scan_osa(scanner *sc)
{
	static const char words[][7] = {"do", "shell", "script"};
	const char *s = sc->s;

	for (size_t i = 0; i < sc->n && !sc->stop && sc->rc == ROZ_OK; i++) {
		size_t p = i;
		bool ok = !(i && interp_ident_char(s[i - 1]));

		for (size_t w = 0; ok && w < 3; w++) {
			size_t k = strlen(words[w]);

			if (w) {
				size_t q = p;

				while (q < sc->n && (s[q] == ' ' || s[q] == '\t'))
					q++;
				ok = q > p;
				p = q;
			}
			ok = ok && p + k <= sc->n && strncasecmp(s + p, words[w], k) == 0 && !(p + k < sc->n && interp_ident_char(s[p + k]));
			p += k;
		}
		if (ok) {
			arg a;

			sc->pos = p;
			interp_arg_init(&a);
			interp_read_arg(sc, '\0', &a, false);
			if (a.kind == ARG_STR)
				interp_emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
			else if (a.kind == ARG_OTHER)
				sc->out->dynamic = true;
			interp_arg_done(sc, &a);
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

		if (memcmp(s + i, ".execute", 8) != 0 || (i + 8 < sc->n && interp_ident_char(s[i + 8])))
			continue;
		b = s[i - 1];
		interp_arg_init(&a);
		if (b == '"' || b == '\'') {
			strspec sp;

			for (k = i - 1; k > 0 && interp_charge(sc) && !(s[k - 1] == b && !(k >= 2 && s[k - 2] == '\\')); k--)
				;
			sc->pos = k ? k - 1 : 0;
			if (k && interp_string_at(sc, &sp)) {
				a.kind = ARG_STR;
				interp_lex_string(sc, &sp, &a);
				interp_emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
			} else {
				sc->out->dynamic = true;
			}
		} else if (b == ']') {
			int depth = 0;

			for (k = i; k > 0 && interp_charge(sc); k--) {
				if (s[k - 1] == ']')
					depth++;
				else if (s[k - 1] == '[' && --depth == 0)
					break;
			}
			if (k) {
				sc->pos = k;
				interp_read_list(sc, ']', &a);
				interp_emit(sc, roz_buf_cstr(&a.text), a.text.len, a.dyn);
			} else {
				sc->out->dynamic = true;
			}
		} else {
			sc->out->dynamic = true;
		}
		interp_arg_done(sc, &a);
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
		interp_emit(sc, r.cmds[i].line, strlen(r.cmds[i].line), r.cmds[i].known < strlen(r.cmds[i].line));
	roz_shell_result_dispose(&r);
}

int interp_scan_text(lang_id id, const char *text, size_t n, roz_interp_scan *out)
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
