/*
 * effect_read.c - readers with options that write files or run programs:
 * find (-delete, -fprint), sort (-o, --compress-program), uniq and xxd (a
 * second operand), yq -i, sed (-i, `w`, `e`), awk, tree -o, less -o,
 * rg --pre, file -C, date -s, hostname NAME, tar (only -t and -d read;
 * -I, --to-command, ... run programs), unzip (only -l, -v, -t, -p, ...
 * read), lsof -D, ss (-K, -D). Such an option is a target when it names a
 * file, and makes the command opaque when it writes what roz cannot name or
 * runs a program.
 */
#include <ctype.h>
#include <string.h>

#include "effect_int.h"

/* find: -delete under its starting points, -fprint* and -fls into a file. */
void effect_judge_find(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const valued[] = {
		"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex",
		"-iregex", "-lname", "-ilname", "-newer", "-anewer", "-cnewer", "-type", "-xtype",
		"-user", "-group", "-uid", "-gid", "-perm", "-size", "-mtime", "-mmin", "-atime",
		"-amin", "-ctime", "-cmin", "-links", "-inum", "-samefile", "-maxdepth", "-mindepth",
		"-used", "-context", "-printf", "-regextype", "-fstype", "-files0-from", NULL};
	size_t i = 1, start, nstart;

	if (!effect_args_static(c)) {
		OPAQUE(x, "find with arguments computed when the line runs may delete or write files");
		return;
	}
	while (i < c->nwords && (!strcmp(c->words[i], "-H") || !strcmp(c->words[i], "-L") ||
				 !strcmp(c->words[i], "-P") || !strncmp(c->words[i], "-D", 2) ||
				 !strncmp(c->words[i], "-O", 2)))
		i++;
	start = i;
	while (i < c->nwords && c->words[i][0] != '-' && strcmp(c->words[i], "(") &&
	       strcmp(c->words[i], "!"))
		i++;
	nstart = i - start;
	for (; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (!strcmp(s, "-exec") || !strcmp(s, "-execdir") || !strcmp(s, "-ok") ||
		    !strcmp(s, "-okdir")) {
			/* the command it runs is judged as a command of its own */
			while (i + 1 < c->nwords && strcmp(c->words[i + 1], ";") &&
			       strcmp(c->words[i + 1], "+"))
				i++;
			i++;
		} else if (!strcmp(s, "-delete")) {
			if (!nstart)
				effect_target(x, ".", 1, true, "find -delete");
			for (size_t k = 0; k < nstart; k++)
				effect_target_word(x, c, start + k, "find -delete");
		} else if (!strcmp(s, "-fprint") || !strcmp(s, "-fprint0") || !strcmp(s, "-fls") ||
			   !strcmp(s, "-fprintf")) {
			if (i + 1 < c->nwords)
				effect_target_word(x, c, i + 1, "find -fprint");
			i += strcmp(s, "-fprintf") ? 1 : 2;
		} else if (!strncmp(s, "-newer", 6) || effect_in_list(valued, s)) {
			i++;
		}
	}
}

void effect_judge_sort(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"output", "key", "field-separator", "buffer-size",
					   "temporary-directory", "compress-program", "files0-from",
					   "batch-size", "parallel", "random-source", NULL};
	struct args a;
	struct arg g;

	effect_args_init(&a, c, 1, "kStTo", NULL, lval);
	while (effect_arg_next(&a, &g)) {
		if ((g.kind == ARG_SHORT && g.ch == 'o') || effect_long_is(&g, "output"))
			effect_target_value(x, c, &g, "sort -o");
		else if (effect_long_is(&g, "compress-program"))
			OPAQUE(x, "sort --compress-program runs a program");
	}
}

void effect_judge_uniq(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"skip-fields", "skip-chars", "check-chars", NULL};
	struct args a;
	struct arg g;
	size_t n = 0;

	effect_args_init(&a, c, 1, "fsw", NULL, lval);
	while (effect_arg_next(&a, &g))
		if (g.kind == ARG_OPERAND && ++n == 2)
			effect_target_word(x, c, g.word, "uniq");
}

void effect_judge_xxd(struct ctx *x, const roz_shell_cmd *c)
{
	struct args a;
	struct arg g;
	size_t n = 0;

	effect_args_init(&a, c, 1, "cglosn", NULL, NULL);
	while (effect_arg_next(&a, &g))
		if (g.kind == ARG_OPERAND && ++n == 2)
			effect_target_word(x, c, g.word, "xxd");
}

/*
 * An option names a file the command writes to (tree -o, less -o, time -o):
 * one of the short options `outs` or the long options `longs`.
 */
void effect_judge_output_opt(struct ctx *x, const roz_shell_cmd *c, const char *sval,
			     const char *outs, const char *const *longs, const char *how,
			     bool stop_at_operand)
{
	struct args a;
	struct arg g;

	effect_args_init(&a, c, 1, sval, NULL, longs);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND && stop_at_operand)
			break;
		bool hit = g.kind == ARG_SHORT && strchr(outs, g.ch);

		for (size_t k = 0; longs && longs[k] && !hit; k++)
			hit = effect_long_is(&g, longs[k]);
		if (hit)
			effect_target_value(x, c, &g, how);
	}
}

void effect_judge_yq(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"indent", "output-format", "input-format", "expression",
					   "from-file", NULL};
	struct args a;
	struct arg g;
	size_t *ops = roz_calloc(c->nwords, sizeof *ops), nops = 0;
	bool inplace = false, expr_given = false;

	if (!ops) {
		x->nomem = true;
		return;
	}
	effect_args_init(&a, c, 1, "Iop", NULL, lval);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND)
			ops[nops++] = g.word;
		else if ((g.kind == ARG_SHORT && g.ch == 'i') || effect_long_is(&g, "inplace") ||
			 effect_long_is(&g, "in-place"))
			inplace = true;
		else if (effect_long_is(&g, "expression") || effect_long_is(&g, "from-file"))
			expr_given = true;
	}
	for (size_t i = (nops > 1 && !expr_given) ? 1 : 0; inplace && i < nops; i++)
		effect_target_word(x, c, ops[i], "yq -i");
	roz_free(ops);
}

/* Skip a sed regex or replacement ending at an unescaped `d`; NULL when it never ends. */
static const char *sed_skip(const char *p, char d)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == d)
			return p + 1;
	}
	return NULL;
}

/* The file name a sed `w` command or flag writes: the rest of the line. */
static const char *sed_file(struct ctx *x, const char *p)
{
	const char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strcspn(p, "\n");
	effect_target(x, p, (size_t)(end - p), true, "sed w");
	return end;
}

static const char *sed_eol(const char *p)
{
	while (*p && *p != '\n') {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	return p;
}

/*
 * Read a sed script for what it does beyond printing: a `w`/`W` command or
 * `s///w` flag writes a file, `e` runs commands. 0 when it only prints, 1
 * when it runs commands, -1 when roz cannot read it.
 */
static int sed_scan(struct ctx *x, const char *p)
{
	for (;;) {
		while (*p && (isspace((unsigned char)*p) || *p == ';'))
			p++;
		if (!*p)
			return 0;
		for (int k = 0; k < 2; k++) {
			if (isdigit((unsigned char)*p)) {
				while (isdigit((unsigned char)*p) || *p == '~')
					p++;
			} else if (*p == '$') {
				p++;
			} else if (*p == '/' || *p == '\\') {
				char d = '/';

				if (*p == '\\' && !(d = *++p))
					return -1;
				if (!(p = sed_skip(p + 1, d)))
					return -1;
				while (*p == 'I' || *p == 'M')
					p++;
			} else if (k == 1 && (*p == '+' || *p == '~')) {
				p++;
				while (isdigit((unsigned char)*p))
					p++;
			} else {
				break;
			}
			while (*p == ' ' || *p == '\t')
				p++;
			if (k == 1 || *p != ',')
				break;
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
		}
		while (*p == ' ' || *p == '\t' || *p == '!')
			p++;
		char cmd = *p;

		if (!cmd)
			return 0;
		p++;
		switch (cmd) {
		case '{': case '}': case '=': case 'd': case 'D': case 'g': case 'G': case 'h':
		case 'H': case 'n': case 'N': case 'p': case 'P': case 'x': case 'z': case 'F':
		case 'l': case 'L': case 'q': case 'Q':
			while (isdigit((unsigned char)*p) || *p == ' ' || *p == '\t')
				p++;
			break;
		case 'a': case 'i': case 'c': case 'r': case 'R':
			p = sed_eol(p);
			break;
		case ':': case 'b': case 't': case 'T': case 'v':
			p += strcspn(p, ";\n");
			break;
		case 'w': case 'W':
			p = sed_file(x, p);
			break;
		case 'e':
			return 1;
		case 's': case 'y': {
			char d = *p;

			if (!d || d == '\n' || d == '\\')
				return -1;
			if (!(p = sed_skip(p + 1, d)) || !(p = sed_skip(p, d)))
				return -1;
			while (cmd == 's' && *p && *p != ';' && *p != '\n' && *p != '}') {
				if (*p == 'e')
					return 1;
				if (*p == 'w') {
					p = sed_file(x, p + 1);
					break;
				}
				p++;
			}
			break;
		}
		default:
			return -1;
		}
	}
}

void effect_judge_sed(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"expression", "file", "line-length", NULL};
	struct args a;
	struct arg g;
	bool inplace = false, script_given = false, first = true;
	int worst = 0;

	effect_args_init(&a, c, 1, "efl", "i", lval);
	while (effect_arg_next(&a, &g)) {
		if ((g.kind == ARG_SHORT && g.ch == 'i') || effect_long_is(&g, "in-place"))
			inplace = true;
		else if ((g.kind == ARG_SHORT && g.ch == 'e') || effect_long_is(&g, "expression")) {
			script_given = true;
			int r = g.val ? sed_scan(x, g.val) : -1;
			worst = r ? r : worst;
		} else if ((g.kind == ARG_SHORT && g.ch == 'f') || effect_long_is(&g, "file")) {
			script_given = true;
			worst = -1;
		}
	}
	effect_args_init(&a, c, 1, "efl", "i", lval);
	while (effect_arg_next(&a, &g)) {
		if (g.kind != ARG_OPERAND)
			continue;
		if (first && !script_given) {
			int r = sed_scan(x, c->words[g.word]);
			worst = r ? r : worst;
		} else if (inplace) {
			effect_target_word(x, c, g.word, "sed -i");
		}
		first = false;
	}
	if (worst == 1)
		OPAQUE(x, "sed's e command runs other commands");
	else if (worst < 0)
		OPAQUE(x, "sed with a script roz cannot read may write files");
}

void effect_judge_awk(struct ctx *x, const roz_shell_cmd *c)
{
	struct args a;
	struct arg g;

	effect_args_init(&a, c, 1, "Fv", NULL, NULL);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND) {
			const char *prog = c->words[g.word];

			if (strpbrk(prog, ">|") || strstr(prog, "system"))
				OPAQUE(x, "%s's program may write files or run commands", c->words[0]);
			return;
		}
		if (g.kind == ARG_END)
			continue;
		if (g.kind != ARG_SHORT || (g.ch != 'F' && g.ch != 'v')) {
			OPAQUE(x, "%s with options other than -F and -v may write files", c->words[0]);
			return;
		}
	}
}

void effect_judge_tree(struct ctx *x, const roz_shell_cmd *c)
{
	effect_judge_output_opt(x, c, "LPIo", "o", NULL, "tree -o", false);
}

void effect_judge_less(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const longs[] = {"log-file", "LOG-FILE", NULL};

	effect_judge_output_opt(x, c, "bhjkoOpPtTxyz#D", "oO", longs, "less -o", false);
}

void effect_judge_rg(struct ctx *x, const roz_shell_cmd *c)
{
	for (size_t i = 1; i < c->nwords; i++)
		if (!strcmp(c->words[i], "--pre") || !strncmp(c->words[i], "--pre=", 6))
			OPAQUE(x, "rg --pre runs a program");
}

void effect_judge_file(struct ctx *x, const roz_shell_cmd *c)
{
	for (size_t i = 1; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (!strcmp(s, "--compile") || (s[0] == '-' && s[1] != '-' && strchr(s, 'C')))
			OPAQUE(x, "file -C writes a compiled magic file");
	}
}

void effect_judge_date(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"date", "file", "reference", NULL};
	struct args a;
	struct arg g;

	effect_args_init(&a, c, 1, "dfr", "I", lval);
	while (effect_arg_next(&a, &g))
		if (effect_flag(&g, 's', "set"))
			OPAQUE(x, "date -s sets the clock");
}

void effect_judge_hostname(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const ok[] = {"-f", "-s", "-i", "-I", "-d", "-A", "-a", "--fqdn",
					 "--short", "--long", "--domain", "--ip-address",
					 "--all-ip-addresses", "--all-fqdns", "--alias", NULL};

	for (size_t i = 1; i < c->nwords; i++)
		if (!effect_in_list(ok, c->words[i])) {
			OPAQUE(x, "hostname with arguments may set the host name");
			return;
		}
}

/* ---- archives -------------------------------------------------------------- */

/* What a tar line does, as its options are read. */
struct tar {
	bool reads;        /* -t, -d, --test-label, --help, ...: a mode that writes nothing */
	bool other;        /* any other mode, or an option roz does not know */
	const char *runs;  /* an option that runs a program or writes a file of its own */
	const char *archive;
	bool force_local;
};

static void tar_short(struct tar *t, char ch, const char *val)
{
	if (ch == 't' || ch == 'd')
		t->reads = true;
	else if (ch == 'f')
		t->archive = val;
	else if (ch == 'I')
		t->runs = "-I";
	else if (ch == 'F')
		t->runs = "-F";
	else if (ch == 'g')
		t->runs = "-g";
	else if (!strchr("vzjJZaCTXbBHiKNRShOsPpVwkmoU", ch))
		t->other = true; /* a writing mode (c, x, r, u, A, ...) or an option of one */
}

static void tar_long(struct tar *t, const struct arg *g)
{
	static const char *const read_modes[] = {"list", "diff", "compare", "test-label",
						 "show-defaults", "help", "usage", "version", NULL};
	static const char *const runs[] = {"use-compress-program", "info-script",
					   "new-volume-script", "checkpoint-action", "to-command",
					   "rsh-command", "rmt-command", "index-file", "volno-file",
					   "listed-incremental", NULL};
	static const char *const ok[] = {
		"verbose", "directory", "gzip", "gunzip", "ungzip", "bzip2", "xz", "lzip", "lzma",
		"lzop", "zstd", "compress", "uncompress", "auto-compress", "wildcards",
		"no-wildcards", "wildcards-match-slash", "no-wildcards-match-slash", "anchored",
		"no-anchored", "ignore-case", "no-ignore-case", "null", "no-null", "full-time", "utc",
		"numeric-owner", "block-number", "show-transformed-names", "show-stored-names",
		"ignore-zeros", "read-full-records", "dereference", "sparse", "no-recursion",
		"recursion", "totals", "to-stdout", "preserve-order", "same-order", "unquote",
		"no-unquote", "verbatim-files-from", "no-verbatim-files-from", "exclude",
		"exclude-from", "files-from", "blocking-factor", "record-size", "format",
		"starting-file", "newer", "after-date", "newer-mtime", "label", "quoting-style",
		"transform", "xform", "strip-components", "warning", "occurrence", "checkpoint",
		"one-file-system", "exclude-vcs", "exclude-vcs-ignores", "exclude-backups",
		"exclude-caches", "exclude-caches-under", "exclude-caches-all", "exclude-tag",
		"exclude-tag-under", "exclude-tag-all", "owner", "group", "mode", "mtime",
		"interactive", "absolute-names", "keep-old-files", "no-same-owner", "same-owner",
		"preserve-permissions", "no-same-permissions", "seek", "no-seek", NULL};
	bool found = false, exact = false;

	/* a name spelt out is that option, though it may also begin a longer one (--list) */
	for (size_t i = 0; read_modes[i] && !exact; i++)
		exact = g->nlen == strlen(read_modes[i]) && effect_long_is(g, read_modes[i]);
	for (size_t i = 0; ok[i] && !exact; i++)
		exact = g->nlen == strlen(ok[i]) && effect_long_is(g, ok[i]);
	for (size_t i = 0; runs[i] && !exact; i++)
		if (effect_long_is(g, runs[i])) {
			t->runs = runs[i];
			return;
		}
	if (effect_long_is(g, "file")) {
		t->archive = g->val;
		return;
	}
	if (effect_long_is(g, "force-local")) {
		t->force_local = true;
		return;
	}
	for (size_t i = 0; read_modes[i] && !found; i++)
		found = effect_long_is(g, read_modes[i]);
	if (found) {
		t->reads = true;
		return;
	}
	for (size_t i = 0; ok[i] && !found; i++)
		found = effect_long_is(g, ok[i]);
	t->other = t->other || !found;
}

/* tar: -t and -d read the archive; every other mode writes. */
void effect_judge_tar(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {
		"blocking-factor", "directory", "file", "info-script", "new-volume-script",
		"listed-incremental", "format", "use-compress-program", "starting-file",
		"tape-length", "newer", "after-date", "files-from", "label", "exclude-from",
		"exclude", "checkpoint-action", "to-command", "index-file", "rsh-command",
		"rmt-command", "volno-file", "owner", "group", "mode", "mtime", "transform", "xform",
		"quoting-style", "strip-components", "record-size", "newer-mtime", "warning",
		"exclude-tag", "exclude-tag-under", "exclude-tag-all", NULL};
	static const char *const sval = "bCfFgHIKLNTVX";
	struct tar t = {0};
	struct args a;
	struct arg g;
	size_t start = 1;

	if (c->nwords > 1 && c->words[1][0] != '-') {
		/* the old style, `tar tzf a.tgz`: letters whose values follow in order */
		start = 2;
		for (const char *p = c->words[1]; *p; p++) {
			const char *val = NULL;

			if (strchr(sval, *p) && start < c->nwords)
				val = c->words[start++];
			tar_short(&t, *p, val);
		}
	}
	effect_args_init(&a, c, start, sval, NULL, lval);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_SHORT)
			tar_short(&t, g.ch, g.val);
		else if (g.kind == ARG_LONG)
			tar_long(&t, &g);
	}
	if (t.runs) {
		OPAQUE(x, "tar %s%s runs a program or writes a file of its own",
		       t.runs[0] == '-' ? "" : "--", t.runs);
		return;
	}
	if (!t.reads || t.other) {
		OPAQUE(x, "tar may write files");
		return;
	}
	if (t.archive && !t.force_local) {
		const char *colon = strchr(t.archive, ':');

		if (colon && !memchr(t.archive, '/', (size_t)(colon - t.archive)))
			OPAQUE(x, "tar -f %s reaches the archive through a remote shell", t.archive);
	}
}

/* unzip: -l, -v, -t, -z, -Z, -p and -c only list, test or print; anything else extracts. */
void effect_judge_unzip(struct ctx *x, const roz_shell_cmd *c)
{
	bool lists = c->nwords == 1, writes = false, excluding = false;

	for (size_t i = 1; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (!strcmp(s, "-d")) {
			excluding = false;
			i++;
			continue;
		}
		if (excluding || s[0] != '-' || !s[1])
			continue; /* the archive, its members, or what -x leaves out */
		if (!strcmp(s, "-x")) {
			excluding = true;
			continue;
		}
		if (!strcmp(s, "-h") || !strcmp(s, "-hh") || !strcmp(s, "--help")) {
			lists = true;
			continue;
		}
		for (const char *p = s + 1; *p; p++) {
			if (strchr("lvtzZpc", *p)) {
				lists = true;
			} else if (strchr("PIO", *p)) {
				i += !p[1]; /* a password or character set, attached or next */
				break;
			} else if (!strchr("abjnoqsCDKLMUVWX^$:", *p)) {
				writes = true; /* -f, -u, -T (touches the archive), or unknown */
			}
		}
	}
	if (!lists || writes)
		OPAQUE(x, "unzip may write files");
}

/* ---- the system ------------------------------------------------------------ */

/* lsof -D builds or updates its device cache file. */
void effect_judge_lsof(struct ctx *x, const roz_shell_cmd *c)
{
	for (size_t i = 1; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (s[0] == '-' && s[1] != '-' && strchr(s, 'D')) {
			OPAQUE(x, "lsof -D may write its device cache");
			return;
		}
	}
}

/* ss -K closes the sockets it lists; -D dumps them into a file. */
void effect_judge_ss(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const lval[] = {"family", "query", "socket", "diag", "filter", "net",
					   NULL};
	struct args a;
	struct arg g;

	effect_args_init(&a, c, 1, "fADFN", NULL, lval);
	while (effect_arg_next(&a, &g)) {
		if (effect_flag(&g, 'K', "kill"))
			OPAQUE(x, "ss -K closes sockets");
		else if (effect_flag(&g, 'D', "diag"))
			effect_target_value(x, c, &g, "ss -D");
	}
}
