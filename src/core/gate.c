/*
 * gate.c - turning a tool call into the keys gates are matched against
 * (every command of a Bash line, via the shell lexer), finding the first
 * gate pattern that matches or could match once the line's computed words
 * are known, spotting calls that reach for roz itself, and finding what a
 * call writes so that writes into roz's storage can be refused; and whether
 * a session's approval still lets a gated call through.
 */
#include "roz/gate.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roz/breaker.h"
#include "roz/decide.h"
#include "roz/glob.h"
#include "roz/interp.h"
#include "roz/shell.h"
#include "roz/utf8.h"

/* How much of a command or path a message quotes. */
#define QUOTE 80
/* How many working directories a line's `cd`s are followed into. */
#define MAX_DIRS 16

void roz_gate_match_dispose(roz_gate_match *m)
{
	roz_free(m->tool_key);
	roz_free(m->pattern);
	roz_free(m->unsure);
	roz_free(m->opaque);
	for (size_t i = 0; i < m->nwrites; i++) {
		roz_free(m->writes[i].path);
		roz_free(m->writes[i].by);
	}
	roz_free(m->writes);
	for (size_t i = 0; i < m->ndirs; i++)
		roz_free(m->dirs[i]);
	roz_free(m->dirs);
	memset(m, 0, sizeof(*m));
}

/* Could this pattern ever match a `Bash:...` key? */
static bool pattern_covers_bash(const char *p)
{
	return strncmp(p, "Bash", 4) == 0 || p[0] == '*' || p[0] == '?' || p[0] == '[';
}

static const char *input_string(const cJSON *input, const char *name)
{
	const cJSON *v = cJSON_IsObject(input) ? cJSON_GetObjectItemCaseSensitive(input, name) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int set_match(roz_gate_match *m, const char *key, size_t key_len, const char *pattern)
{
	size_t cut = roz_utf8_cut(key, key_len, ROZ_MAX_KEY_DISPLAY);

	m->tool_key = roz_strndup(key, cut);
	m->pattern = roz_strdup(pattern);
	if (!m->tool_key || !m->pattern)
		return ROZ_ENOMEM;
	m->matched = true;
	return ROZ_OK;
}

/* At most QUOTE bytes of s, cut on a character boundary. */
static int quote_len(const char *s, size_t n)
{
	return (int)roz_utf8_cut(s, n, QUOTE);
}

/* ---- gates --------------------------------------------------------------- */

/* The known start of a command's key. */
static void known_key(roz_buf *key, const roz_shell_cmd *c)
{
	roz_buf_reset(key);
	roz_buf_adds(key, "Bash:");
	roz_buf_add(key, c->line, c->known);
}

/* Why a command whose known start a pattern could complete is asked about. */
static char *dynamic_reason(const roz_shell_cmd *c, const char *pattern)
{
	size_t known = c->known + (c->line[c->known] == ' ');
	const char *part = c->line + known;
	size_t n = 0, pos = 0;

	/* quote the rest of the word the computed part is in */
	for (size_t i = 0; i < c->nwords; i++) {
		size_t len = strlen(c->words[i]);

		if (known >= pos && known <= pos + len) {
			n = pos + len - known;
			break;
		}
		pos += len + 1;
	}
	if (c->why || !n)
		return roz_asprintf("`%.*s` could match the gate `%s` depending on %s, which is known "
				    "only when it runs",
				    quote_len(c->line, strlen(c->line)), c->line, pattern,
				    c->why ? c->why : "what follows it");
	return roz_asprintf("`%.*s` could match the gate `%s` depending on `%.*s`, which is known "
			    "only when it runs",
			    quote_len(c->line, strlen(c->line)), c->line, pattern, quote_len(part, n), part);
}

/* Could any gate match a `Bash:...` key? */
static bool has_bash_gates(const roz_config *config)
{
	for (size_t p = 0; p < config->n_gate_tools; p++)
		if (pattern_covers_bash(config->gate_tools[p]))
			return true;
	return false;
}

/* The first command that runs more than the line shows, and what. */
static int find_opaque(const roz_shell_result *sh, roz_gate_match *m)
{
	for (size_t i = 0; i < sh->ncmds; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];

		if (!c->opaque || strcmp(c->words[0], "roz") == 0)
			continue;
		m->opaque = roz_asprintf("`%.*s`: %s", quote_len(c->line, strlen(c->line)), c->line,
					 c->opaque);
		return m->opaque ? ROZ_OK : ROZ_ENOMEM;
	}
	return ROZ_OK;
}

static int match_bash(const roz_config *config, const roz_shell_result *sh, roz_gate_match *m)
{
	roz_buf key = ROZ_BUF_INIT;
	int rc = ROZ_OK;

	for (size_t p = 0; p < config->n_gate_tools && !m->matched; p++) {
		const char *pattern = config->gate_tools[p];

		for (size_t i = 0; i < sh->ncmds && !m->matched; i++) {
			/* roz's own commands are never gated: the review itself runs on them */
			if (strcmp(sh->cmds[i].words[0], "roz") == 0)
				continue;
			roz_buf_reset(&key);
			roz_buf_adds(&key, "Bash:");
			roz_buf_adds(&key, sh->cmds[i].line);
			if ((rc = roz_buf_failed(&key)) < 0)
				goto out;
			if (roz_glob_match(pattern, key.ptr) && (rc = set_match(m, key.ptr, key.len, pattern)) < 0)
				goto out;
		}
	}
	if (m->matched || !has_bash_gates(config))
		goto out;
	if ((rc = find_opaque(sh, m)) < 0)
		goto out;
	if (sh->flags & (ROZ_SHELL_DYNAMIC | ROZ_SHELL_UNPARSED)) {
		m->unsure = roz_strdup(sh->reason ? sh->reason : "the command line could not be read");
		rc = m->unsure ? ROZ_OK : ROZ_ENOMEM;
		goto out;
	}
	/* a static line is settled above; a computed one is asked about if a gate could fire */
	for (size_t i = 0; i < sh->ncmds && !m->unsure; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];

		if (strcmp(c->words[0], "roz") == 0 || (c->known == strlen(c->line) && !c->more_args))
			continue;
		known_key(&key, c);
		if ((rc = roz_buf_failed(&key)) < 0)
			goto out;
		for (size_t p = 0; p < config->n_gate_tools && !m->unsure; p++) {
			if (!roz_glob_could_match(config->gate_tools[p], key.ptr, key.len))
				continue;
			if (!(m->unsure = dynamic_reason(c, config->gate_tools[p]))) {
				rc = ROZ_ENOMEM;
				goto out;
			}
		}
	}
out:
	roz_buf_dispose(&key);
	return rc;
}

/* ---- what a Bash line writes --------------------------------------------- */

static bool starts_home(const char *s)
{
	return s[0] == '~' || !strncmp(s, "$HOME", 5) || !strncmp(s, "${HOME}", 7);
}

static bool absolute(const char *s)
{
	return s[0] == '/' || starts_home(s);
}

static bool path_like(const char *s)
{
	return absolute(s) || s[0] == '.' || strchr(s, '/') != NULL;
}

/*
 * Record that `by` writes `path`. info describes path (NULL: all known);
 * skip is how many bytes of the word come before the path (`of=`).
 */
static int add_write(roz_gate_match *m, const char *path, const roz_shell_word *info, size_t skip,
		     unsigned how, const char *by)
{
	roz_gate_write *w;
	size_t len = strlen(path), known = len;
	unsigned parts = 0;

	if (!*path)
		return ROZ_OK;
	if (info) {
		size_t k = m->home_unknown ? info->known : info->known_home;

		known = k > skip ? k - skip : 0;
		if (known > len)
			known = len;
		parts = info->parts;
	}
	/* after HOME=..., `~` and $HOME are whatever the line made them */
	if (m->home_unknown && starts_home(path))
		known = 0;
	if (roz_alloc_array_reserve((void **)&m->writes, &m->capwrites, sizeof(*m->writes), m->nwrites + 1) < 0)
		return ROZ_ENOMEM;
	w = &m->writes[m->nwrites];
	memset(w, 0, sizeof(*w));
	w->path = roz_strdup(path);
	w->by = roz_strndup(by, roz_utf8_cut(by, strlen(by), QUOTE));
	if (!w->path || !w->by) {
		roz_free(w->path);
		roz_free(w->by);
		return ROZ_ENOMEM;
	}
	w->known = known;
	w->parts = known < len ? parts : 0;
	w->how = how;
	m->nwrites++;
	return ROZ_OK;
}

/* A write whose place is not known at all (xargs rm: the paths come from input). */
static int add_unknown_write(roz_gate_match *m, unsigned how, const char *by)
{
	roz_shell_word info = {0, 0, ROZ_SHELL_PART_FED};

	return add_write(m, "?", &info, 0, how, by);
}

/* Where each word of a command stands, as getopt would sort it. */
enum { A_NAME, A_OPERAND, A_OPTION, A_VALUE };

struct arg {
	unsigned char kind;
	char opt;   /* A_VALUE: the short option it belongs to */
	size_t off; /* A_VALUE: where the value starts in the word */
};

struct args {
	struct arg *a; /* per word */
	bool flag[128];
};

/* The short letter a long option stands for, from "name=c" (":" after c: takes a value). */
static char long_letter(const char *longs, const char *name, size_t len, bool *valued)
{
	while (longs && *longs) {
		size_t n = strcspn(longs, " ");
		const char *eq = memchr(longs, '=', n);

		if (eq && (size_t)(eq - longs) == len && !memcmp(longs, name, len)) {
			*valued = eq + 2 < longs + n && eq[2] == ':';
			return eq[1];
		}
		longs += n;
		while (*longs == ' ')
			longs++;
	}
	*valued = false;
	return 0;
}

/*
 * Sort a command's words into options, option values and operands.
 * `values` are the short options that take a value; `attached` those whose
 * value, if any, is the rest of their word (sed -i.bak); `longs` maps long
 * options to letters ("target-directory=t: link=l").
 */
static int scan_args(const roz_shell_cmd *c, const char *values, const char *attached, const char *longs,
		     struct args *s)
{
	bool ended = false;

	memset(s, 0, sizeof(*s));
	s->a = roz_calloc(c->nwords, sizeof(*s->a));
	if (!s->a)
		return ROZ_ENOMEM;
	for (size_t i = 1; i < c->nwords; i++) {
		const char *w = c->words[i];

		if (ended || w[0] != '-' || !w[1]) {
			s->a[i].kind = A_OPERAND;
			continue;
		}
		s->a[i].kind = A_OPTION;
		if (!strcmp(w, "--")) {
			ended = true;
		} else if (w[1] == '-') {
			const char *eq = strchr(w + 2, '=');
			bool valued;
			char letter = long_letter(longs, w + 2, eq ? (size_t)(eq - w - 2) : strlen(w + 2), &valued);

			if (letter && !eq && valued && i + 1 < c->nwords) {
				s->a[++i].kind = A_VALUE;
				s->a[i].opt = letter;
			} else if (letter && eq) {
				/* the value sits in this word; a write names it by offset */
				s->a[i].kind = A_VALUE;
				s->a[i].opt = letter;
				s->a[i].off = (size_t)(eq - w) + 1;
			}
			if (letter)
				s->flag[(unsigned char)letter & 0x7F] = true;
		} else {
			for (size_t k = 1; w[k]; k++) {
				unsigned char o = (unsigned char)w[k];

				s->flag[o & 0x7F] = true;
				if (strchr(attached, w[k]))
					break;
				if (strchr(values, w[k])) {
					if (w[k + 1]) {
						s->a[i].kind = A_VALUE;
						s->a[i].opt = w[k];
						s->a[i].off = k + 1;
					} else if (i + 1 < c->nwords) {
						s->a[++i].kind = A_VALUE;
						s->a[i].opt = w[k];
					}
					break;
				}
			}
		}
	}
	return ROZ_OK;
}

static int write_word(roz_gate_match *m, const roz_shell_cmd *c, size_t i, size_t off, unsigned how)
{
	return add_write(m, c->words[i] + off, &c->info[i], off, how, c->line);
}

/* The value of option `opt`, or 0 when absent. */
static size_t value_of(const roz_shell_cmd *c, const struct args *s, char opt, size_t *off)
{
	for (size_t i = 1; i < c->nwords; i++)
		if (s->a[i].kind == A_VALUE && s->a[i].opt == opt) {
			*off = s->a[i].off;
			return i;
		}
	return 0;
}

/* cp SRC... DEST: DEST, and DEST/<name of each SRC> when DEST is a directory. */
static int copy_writes(roz_gate_match *m, const roz_shell_cmd *c, const struct args *s,
		       unsigned src_how, bool count_sources)
{
	size_t dest = 0, off = 0, last = 0, nops = 0;
	roz_buf into = ROZ_BUF_INIT;
	int rc = ROZ_OK;

	for (size_t i = 1; i < c->nwords; i++)
		if (s->a[i].kind == A_OPERAND) {
			last = i;
			nops++;
		}
	dest = value_of(c, s, 't', &off);
	if (!dest && nops >= 2)
		dest = last;
	if (dest && (rc = write_word(m, c, dest, off, 0)) < 0)
		return rc;
	for (size_t i = 1; i < c->nwords && rc == ROZ_OK; i++) {
		const char *src = c->words[i], *name;
		roz_shell_word info;

		if (s->a[i].kind != A_OPERAND || i == dest)
			continue;
		if (count_sources && (rc = write_word(m, c, i, 0, src_how)) < 0)
			break;
		if (!dest)
			continue;
		name = strrchr(src, '/');
		name = name && name[1] ? name + 1 : src;
		roz_buf_reset(&into);
		roz_buf_adds(&into, c->words[dest] + off);
		roz_buf_addc(&into, '/');
		roz_buf_adds(&into, name);
		if ((rc = roz_buf_failed(&into)) < 0)
			break;
		/* known: the destination's known part, then the name's */
		info = c->info[dest];
		if (info.known >= strlen(c->words[dest])) {
			size_t at = (size_t)(name - src);
			size_t dl = strlen(c->words[dest] + off) + 1;

			info.known = dl + (c->info[i].known > at ? c->info[i].known - at : 0);
			info.known_home = dl + (c->info[i].known_home > at ? c->info[i].known_home - at : 0);
			info.parts = c->info[i].parts;
			rc = add_write(m, into.ptr, &info, 0, 0, c->line);
		} else {
			rc = add_write(m, into.ptr, &info, off, 0, c->line);
		}
	}
	roz_buf_dispose(&into);
	return rc;
}

enum wkind { K_ALL, K_COPY, K_DD, K_SCRIPTED, K_OPTVAL };

/* Commands that write or delete the files they name. */
struct writer {
	const char *name;
	enum wkind kind;
	unsigned how;        /* ROZ_WRITE_* for the files written */
	const char *values;  /* short options with a value */
	const char *longs;   /* long options: "name=c" (":" if valued) */
	const char *written; /* K_OPTVAL: the options whose values are written */
};

#define TREE_NOFOLLOW (ROZ_WRITE_TREE | ROZ_WRITE_NOFOLLOW)

/* Sorted by name. */
static const struct writer writers[] = {
	{"chattr", K_ALL, ROZ_WRITE_TREE, "pv", "", NULL},
	{"chgrp", K_ALL, ROZ_WRITE_TREE, "", "reference=r: from=f:", NULL},
	{"chmod", K_ALL, ROZ_WRITE_TREE, "", "reference=r:", NULL},
	{"chown", K_ALL, ROZ_WRITE_TREE, "", "reference=r: from=f:", NULL},
	{"cp", K_COPY, 0, "tS", "target-directory=t: suffix=S: link=l symbolic-link=s", NULL},
	{"curl", K_OPTVAL, 0, "oDcKbdeEHuUxXAFTrwy",
	 "output=o: dump-header=D: cookie-jar=c: output-dir=O: stderr=E: trace=a: trace-ascii=a:", "oDcOEa"},
	{"dd", K_DD, 0, "", "", NULL},
	{"install", K_COPY, 0, "gmotS", "group=g: mode=m: owner=o: target-directory=t: suffix=S:", NULL},
	{"ln", K_COPY, 0, "tS", "target-directory=t: suffix=S:", NULL},
	{"mkdir", K_ALL, 0, "m", "mode=m:", NULL},
	{"mkfifo", K_ALL, 0, "m", "mode=m:", NULL},
	{"mknod", K_ALL, 0, "m", "mode=m:", NULL},
	{"mv", K_COPY, TREE_NOFOLLOW, "tS", "target-directory=t: suffix=S:", NULL},
	{"perl", K_SCRIPTED, 0, "eEIlMm", "", NULL},
	{"rm", K_ALL, TREE_NOFOLLOW, "", "", NULL},
	{"rmdir", K_ALL, TREE_NOFOLLOW, "", "", NULL},
	{"rsync", K_COPY, TREE_NOFOLLOW, "efBT",
	 "rsh=e: filter=f: block-size=B: temp-dir=T: exclude=x: include=y: exclude-from=x: "
	 "include-from=y: files-from=y: partial-dir=y: backup-dir=y: suffix=y: chmod=y: chown=y: "
	 "log-file=L: remove-source-files=R",
	 NULL},
	{"sed", K_SCRIPTED, 0, "efl", "expression=e: file=f: line-length=l: in-place=i", NULL},
	{"setfacl", K_ALL, ROZ_WRITE_TREE, "mMxX", "modify=m: modify-file=M: remove=x: remove-file=X: set=s: "
						"set-file=S:", NULL},
	{"setfattr", K_ALL, 0, "nvx", "name=n: value=v: remove=x: restore=r:", NULL},
	{"shred", K_ALL, 0, "ns", "iterations=n: size=s: random-source=r:", NULL},
	{"sort", K_OPTVAL, 0, "otSTk", "output=o: buffer-size=S: temporary-directory=T: key=k:", "o"},
	{"tee", K_ALL, 0, "", "", NULL},
	{"touch", K_ALL, 0, "rdt", "reference=r: date=d:", NULL},
	{"truncate", K_ALL, 0, "sr", "size=s: reference=r:", NULL},
	{"unlink", K_ALL, TREE_NOFOLLOW, "", "", NULL},
	{"wget", K_OPTVAL, 0, "OoaPe",
	 "output-document=O: output-file=o: append-output=a: directory-prefix=P: execute=e:", "OoaP"},
};

/* Commands that only read the files they name (a person's `cat` of a session is fine). */
static const char *const readers[] = {
	".", ":", "[", "[[", "ack", "ag", "alias", "b2sum", "basename", "bat", "batcat", "cat",
	"cd", "cksum", "cmp", "column", "comm", "cut", "date", "declare", "df", "diff", "dir",
	"dirname", "du", "echo", "egrep", "exa", "exit", "export", "eza", "false", "fd", "fdfind",
	"fgrep", "file", "fmt", "fold", "getfacl", "grep", "head", "hexdump", "id", "join", "jq",
	"less", "let", "local", "locate", "look", "ls", "lsattr", "md5sum", "more", "most",
	"namei", "nl", "od", "paste", "popd", "pr", "printf", "pushd", "pwd", "read", "readlink",
	"readonly", "realpath", "return", "rg", "roz", "set", "sha1sum", "sha224sum", "sha256sum",
	"sha384sum", "sha512sum", "shift", "sleep", "source", "stat", "strings", "sum", "tac",
	"tail", "test", "tr", "tree", "true", "type", "typeset", "unset", "vdir", "wc", "whereis",
	"which", "whoami", "xxd", "zgrep",
};

static int writer_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct writer *)elem)->name);
}

static int name_cmp(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* find ROOTS... EXPR: an expression that deletes or runs commands acts on everything under ROOTS. */
static int find_writes(roz_gate_match *m, const roz_shell_cmd *c)
{
	static const char *const acting[] = {"-delete", "-exec", "-execdir", "-ok", "-okdir",
					     "-fprint", "-fprint0", "-fprintf", "-fls", NULL};
	size_t i = 1, roots, end;
	bool acts = false;
	int rc = ROZ_OK;

	while (i < c->nwords && (!strcmp(c->words[i], "-L") || !strcmp(c->words[i], "-H") ||
				 !strcmp(c->words[i], "-P") || !strncmp(c->words[i], "-O", 2)))
		i++;
	if (i < c->nwords && !strcmp(c->words[i], "-D"))
		i += 2;
	roots = i;
	for (end = roots; end < c->nwords; end++) {
		const char *w = c->words[end];

		if (w[0] == '-' || w[0] == '(' || w[0] == '!' || w[0] == ')' || w[0] == ',')
			break;
	}
	for (i = end; i < c->nwords && !acts; i++)
		for (size_t k = 0; acting[k]; k++)
			acts |= !strcmp(c->words[i], acting[k]);
	if (!acts)
		return ROZ_OK;
	if (end == roots) /* no root: find searches `.` */
		return add_write(m, ".", NULL, 0, TREE_NOFOLLOW, c->line);
	for (i = roots; i < end && rc == ROZ_OK; i++)
		rc = write_word(m, c, i, 0, TREE_NOFOLLOW);
	return rc;
}

/* sed -i / perl -i: the files after the script are rewritten in place. */
static int scripted_writes(roz_gate_match *m, const roz_shell_cmd *c, const struct args *s)
{
	bool script_given = s->flag['e'] || s->flag['f'] || s->flag['E'];
	bool first = true;
	int rc = ROZ_OK;

	if (!s->flag['i'])
		return ROZ_OK;
	for (size_t i = 1; i < c->nwords && rc == ROZ_OK; i++) {
		if (s->a[i].kind != A_OPERAND)
			continue;
		if (first && !script_given) {
			first = false;
			continue;
		}
		rc = write_word(m, c, i, 0, 0);
	}
	return rc;
}

static int writer_writes(roz_gate_match *m, const roz_shell_cmd *c, const struct writer *wr)
{
	struct args s;
	int rc;

	if (c->more_args) /* xargs rm: what it deletes comes from its input */
		return add_unknown_write(m, wr->how, c->line);
	if ((rc = scan_args(c, wr->values, wr->kind == K_SCRIPTED ? "i" : "", wr->longs, &s)) < 0)
		return rc;
	switch (wr->kind) {
	case K_ALL:
		for (size_t i = 1; i < c->nwords && rc == ROZ_OK; i++)
			if (s.a[i].kind == A_OPERAND)
				rc = write_word(m, c, i, 0, wr->how);
		break;
	case K_COPY:
		if (!strcmp(c->words[0], "install") && s.flag['d']) {
			for (size_t i = 1; i < c->nwords && rc == ROZ_OK; i++)
				if (s.a[i].kind == A_OPERAND)
					rc = write_word(m, c, i, 0, 0);
			break;
		}
		/* mv moves its sources; ln and cp -l/-s make names for them; rsync may remove them */
		rc = copy_writes(m, c, &s, wr->how,
				 !strcmp(c->words[0], "mv") || !strcmp(c->words[0], "ln") ||
					 (!strcmp(c->words[0], "cp") && (s.flag['l'] || s.flag['s'])) ||
					 (!strcmp(c->words[0], "rsync") && s.flag['R']));
		break;
	case K_DD:
		for (size_t i = 1; i < c->nwords && rc == ROZ_OK; i++)
			if (!strncmp(c->words[i], "of=", 3))
				rc = write_word(m, c, i, 3, 0);
		break;
	case K_SCRIPTED:
		rc = scripted_writes(m, c, &s);
		break;
	case K_OPTVAL:
		for (size_t i = 1; i < c->nwords && rc == ROZ_OK; i++)
			if (s.a[i].kind == A_VALUE && strchr(wr->written, s.a[i].opt))
				rc = write_word(m, c, i, s.a[i].off, 0);
		break;
	}
	roz_free(s.a);
	return rc;
}

/*
 * A command roz knows nothing about may write any file it names. Its
 * static, path-like arguments (and --opt=path values) count as written;
 * computed ones are not guessed at.
 */
static int other_writes(roz_gate_match *m, const roz_shell_cmd *c)
{
	int rc = ROZ_OK;

	for (size_t i = 1; i < c->nwords && rc == ROZ_OK; i++) {
		const char *w = c->words[i], *eq;
		size_t off = 0;

		if (w[0] == '-') {
			eq = w[1] == '-' ? strchr(w, '=') : NULL;
			if (!eq)
				continue;
			off = (size_t)(eq - w) + 1;
		}
		if (!path_like(w + off) || c->info[i].known_home < strlen(w))
			continue;
		rc = write_word(m, c, i, off, 0);
	}
	return rc;
}

static int add_dir(roz_gate_match *m, const char *dir)
{
	char *copy;

	for (size_t i = 0; i < m->ndirs; i++)
		if (!strcmp(m->dirs[i], dir))
			return ROZ_OK;
	if (m->ndirs + 1 >= MAX_DIRS) {
		m->dir_unknown = true;
		return ROZ_OK;
	}
	if (roz_alloc_array_reserve((void **)&m->dirs, &m->capdirs, sizeof(*m->dirs), m->ndirs + 1) < 0 ||
	    !(copy = roz_strdup(dir)))
		return ROZ_ENOMEM;
	m->dirs[m->ndirs++] = copy;
	return ROZ_OK;
}

/* cd DIR: later relative paths may start there, from the cwd or any earlier cd. */
static int follow_cd(roz_gate_match *m, const roz_shell_result *sh, const roz_shell_cmd *c)
{
	size_t i = 1, before = m->ndirs;
	const char *dir;
	int rc;

	while (i < c->nwords && c->words[i][0] == '-' && c->words[i][1] && strcmp(c->words[i], "--"))
		i++;
	if (i < c->nwords && !strcmp(c->words[i], "--"))
		i++;
	dir = i < c->nwords ? c->words[i] : "~";
	if (!strcmp(c->words[0], "popd") || !strcmp(dir, "-") || dir[0] == '+' ||
	    (i < c->nwords && c->info[i].known_home < strlen(dir)) ||
	    (m->home_unknown && starts_home(dir)) ||
	    /* CDPATH set on the line can send a plain name anywhere */
	    (roz_shell_assigns(sh, "CDPATH") && !absolute(dir) && dir[0] != '.')) {
		m->dir_unknown = true;
		return ROZ_OK;
	}
	if (absolute(dir))
		return add_dir(m, dir);
	if ((rc = add_dir(m, dir)) < 0)
		return rc;
	for (size_t k = 0; k < before && rc == ROZ_OK; k++) {
		char *joined = roz_asprintf("%s/%s", m->dirs[k], dir);

		if (!joined)
			return ROZ_ENOMEM;
		rc = add_dir(m, joined);
		roz_free(joined);
	}
	return rc;
}

static int collect_writes(const roz_shell_result *sh, roz_gate_match *m)
{
	int rc = ROZ_OK;

	m->home_unknown = roz_shell_assigns(sh, "HOME");
	for (size_t i = 0; i < sh->nredirs && rc == ROZ_OK; i++) {
		char *by = roz_asprintf("> %s", sh->redirs[i].path);

		if (!by)
			return ROZ_ENOMEM;
		rc = add_write(m, sh->redirs[i].path, &sh->redirs[i].info, 0, 0, by);
		roz_free(by);
	}
	for (size_t i = 0; i < sh->ncmds && rc == ROZ_OK; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];
		const char *name = c->words[0];
		const struct writer *wr;

		if (!strcmp(name, "cd") || !strcmp(name, "pushd") || !strcmp(name, "popd"))
			rc = follow_cd(m, sh, c);
		else if (!strcmp(name, "find"))
			rc = find_writes(m, c);
		else if ((wr = bsearch(name, writers, sizeof(writers) / sizeof(writers[0]), sizeof(writers[0]),
				       writer_cmp)) != NULL)
			rc = writer_writes(m, c, wr);
		else if (!c->wrapper && !bsearch(name, readers, sizeof(readers) / sizeof(readers[0]),
						 sizeof(readers[0]), name_cmp))
			rc = other_writes(m, c);
	}
	return rc;
}

/* How deep interpreters' programs are followed into other interpreters' programs. */
#define MAX_INTERP_DEPTH 3

/*
 * Interpreters' programs: the command lines they start are read like Bash
 * lines and matched the same way (`python3 -c 'os.system("git push")'` is
 * a push); a program not all on the line, or one that builds its command
 * when it runs, is what roz cannot see through.
 */
static int match_interpreters(const roz_config *config, const roz_shell_result *sh, const char *line,
			      unsigned depth, roz_gate_match *m)
{
	int rc = ROZ_OK;

	for (size_t i = 0; i < sh->ncmds && rc == ROZ_OK && !m->matched; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];
		roz_interp_scan scan;

		if (strcmp(c->words[0], "roz") == 0)
			continue;
		if ((rc = roz_interp_scan_cmd(c, line, &scan)) < 0) {
			roz_interp_scan_dispose(&scan);
			break;
		}
		for (size_t k = 0; k < scan.nlines && rc == ROZ_OK && !m->matched; k++) {
			roz_shell_result sub;
			roz_gate_match inner;

			if ((rc = roz_shell_parse(scan.lines[k], strlen(scan.lines[k]), &sub)) < 0)
				break;
			memset(&inner, 0, sizeof(inner));
			rc = match_bash(config, &sub, &inner);
			if (rc == ROZ_OK && !inner.matched && depth + 1 < MAX_INTERP_DEPTH)
				rc = match_interpreters(config, &sub, scan.lines[k], depth + 1, &inner);
			if (rc == ROZ_OK && inner.matched) {
				m->matched = true;
				m->tool_key = inner.tool_key;
				m->pattern = inner.pattern;
				inner.tool_key = inner.pattern = NULL;
			}
			if (rc == ROZ_OK && inner.unsure && !m->unsure) {
				m->unsure = inner.unsure;
				inner.unsure = NULL;
			}
			if (rc == ROZ_OK && inner.opaque && !m->opaque) {
				m->opaque = inner.opaque;
				inner.opaque = NULL;
			}
			roz_gate_match_dispose(&inner);
			roz_shell_result_dispose(&sub);
		}
		if (rc == ROZ_OK && scan.interpreter && (!scan.whole || scan.dynamic) && !m->opaque &&
		    !(m->opaque = roz_asprintf("`%.*s`: %s", quote_len(c->line, strlen(c->line)), c->line,
					       scan.dynamic ? "the program builds a command it runs when it runs"
							    : "it runs a program that is not on the line")))
			rc = ROZ_ENOMEM;
		roz_interp_scan_dispose(&scan);
	}
	return rc;
}

static int check_bash(const roz_config *config, const char *command, roz_gate_match *m)
{
	roz_shell_result sh;
	int rc;

	if ((rc = roz_shell_parse(command, strlen(command), &sh)) < 0)
		return rc;
	for (size_t i = 0; i < sh.ncmds; i++) {
		const roz_shell_cmd *c = &sh.cmds[i];

		/* `roz`, by any path or wrapper: the lexer has reduced it to its basename */
		if (c->nwords >= 2 && strcmp(c->words[0], "roz") == 0) {
			if (strcmp(c->words[1], "decide") == 0)
				m->roz_runs |= ROZ_RUNS_DECIDE;
			else if (strcmp(c->words[1], "hook") == 0)
				m->roz_runs |= ROZ_RUNS_HOOK;
		}
		/*
		 * A roz subcommand known only when the line runs (`roz "$(echo
		 * decide)"`, `echo decide | xargs roz`) could be `decide`: only
		 * the reviewer may take that chance.
		 */
		if (strcmp(c->words[0], "roz") == 0 &&
		    ((c->nwords >= 2 && c->info[1].known < strlen(c->words[1])) ||
		     (c->nwords == 1 && c->more_args)))
			m->roz_runs |= ROZ_RUNS_DECIDE;
		/* or handed to python -c, perl -e, awk system(), ... */
		if (roz_interp_runs_decide(c, command))
			m->roz_runs |= ROZ_RUNS_DECIDE;
	}
	/* what interpreters run can only meet a gate that could match a Bash line */
	if ((rc = match_bash(config, &sh, m)) == ROZ_OK && !m->matched && has_bash_gates(config))
		rc = match_interpreters(config, &sh, command, 0, m);
	if (rc == ROZ_OK && config->storage_path)
		rc = collect_writes(&sh, m);
	roz_shell_result_dispose(&sh);
	return rc;
}

/* ---- judging writes against the store ------------------------------------ */

struct store_view {
	const roz_config *config;
	const char *cwd;
	const roz_path_fs *fs;
	char *lex, *phys; /* the storage directory, as written folded and resolved */
};

enum { NOT_STORE, IN_STORE, HOLDS_STORE };

/* Where a folded path stands to the store, compared with both its spellings. */
static int overlaps(const struct store_view *v, const char *path, unsigned how)
{
	const char *store[] = {v->lex, v->phys};

	for (size_t i = 0; i < 2; i++)
		if (store[i] && roz_path_under(path, store[i]))
			return IN_STORE;
	/* removing or moving a directory above the store takes the store with it */
	for (size_t i = 0; i < 2 && (how & ROZ_WRITE_TREE); i++)
		if (store[i] && roz_path_under(store[i], path))
			return HOLDS_STORE;
	return NOT_STORE;
}

/* Folded and resolved forms of `path` seen from `base` ("" for the cwd); rc < 0 for unknown. */
static int place(const struct store_view *v, const char *base, const char *path, char **lex, char **phys)
{
	char *joined = NULL;
	const char *p = path;
	int rc;

	*lex = *phys = NULL;
	if (*base && !absolute(path)) {
		if (!(joined = roz_asprintf("%s/%s", base, path)))
			return ROZ_ENOMEM;
		p = joined;
	}
	rc = roz_path_normalize(v->cwd, v->fs ? v->fs->home : NULL, p, lex);
	if (rc == ROZ_OK && v->fs && v->fs->read_link)
		rc = roz_path_resolve(v->fs, v->cwd, p, phys);
	roz_free(joined);
	if (rc < 0) {
		roz_free(*lex);
		*lex = NULL;
	}
	return rc;
}

static void say(char *why, size_t size, const char *fmt, ...) ROZ_PRINTF(3, 4);

static void say(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!why || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/* The store's own component right below `dir`, if the store lies below it. */
static bool glob_reaches_store(const struct store_view *v, const char *dir, const char *pattern)
{
	const char *store[] = {v->lex, v->phys};

	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(dir), k;
		char comp[256];
		const char *rest;

		if (!store[i] || !roz_path_under(store[i], dir) || !strcmp(store[i], dir))
			continue;
		rest = store[i] + (n == 1 ? 1 : n + 1);
		k = strcspn(rest, "/");
		if (k >= sizeof(comp))
			return true;
		memcpy(comp, rest, k);
		comp[k] = '\0';
		if (roz_glob_match(pattern, comp))
			return true;
	}
	return false;
}

/*
 * One write, from one starting directory. A glob in the last component
 * names entries of a known directory: it reaches the store only if that
 * directory is in the store, or the store's own name there matches it.
 */
static int judge_from(const struct store_view *v, const roz_gate_write *w, const char *base,
		      roz_gate_store_verdict *out, char *why, size_t size)
{
	char *lex = NULL, *phys = NULL, *dir = NULL;
	const char *target = w->path, *pattern = NULL;
	size_t len = strlen(w->path);
	int rc;

	if (w->known < len) {
		const char *slash = NULL;

		for (size_t i = 0; i < w->known; i++)
			if (w->path[i] == '/')
				slash = w->path + i;
		pattern = slash ? slash + 1 : w->path;
		if (!(dir = slash ? roz_strndup(w->path, (size_t)(slash - w->path) + 1) : roz_strdup(".")))
			return ROZ_ENOMEM;
		target = dir;
	}
	rc = place(v, base, target, &lex, &phys);
	if (rc == ROZ_ENOMEM)
		goto out;
	if (rc < 0) {
		say(why, size, "`%s` writes `%.*s`, and roz cannot tell where that is (%s); it could be roz's "
			       "storage (%s)",
		    w->by, quote_len(w->path, len), w->path, roz_error_last(), v->config->storage_path);
		*out = ROZ_GATE_STORE_ASK;
		rc = ROZ_OK;
		goto out;
	}
	if (pattern) {
		const char *in = overlaps(v, lex, 0) ? lex : phys && overlaps(v, phys, 0) ? phys : NULL;

		if (in || glob_reaches_store(v, lex, pattern) || (phys && glob_reaches_store(v, phys, pattern))) {
			say(why, size, "`%s` writes or deletes entries of `%s` matching `%s`, %s roz's storage (%s)",
			    w->by, in ? in : lex, pattern, in ? "inside" : "among them",
			    v->config->storage_path);
			*out = ROZ_GATE_STORE_DENY;
		}
	} else {
		int where = overlaps(v, lex, w->how);
		const char *at = lex;

		if (!where && phys && (where = overlaps(v, phys, w->how)) != NOT_STORE)
			at = phys;
		if (where) {
			say(why, size, "`%s` %s `%s`, %s roz's storage (%s)", w->by,
			    where == IN_STORE ? "writes or deletes" : "removes or changes", at,
			    where == IN_STORE ? "inside" : "which holds", v->config->storage_path);
			*out = ROZ_GATE_STORE_DENY;
		}
	}
out:
	roz_free(lex);
	roz_free(phys);
	roz_free(dir);
	return rc;
}

static int judge(const struct store_view *v, const roz_gate_match *m, const roz_gate_write *w,
		 roz_gate_store_verdict *out, char *why, size_t size);

/* Most paths one brace expansion in a write target is spelled out into. */
#define MAX_BRACE_PATHS 64

/*
 * Spell out the brace lists and sequences of s ({a,b}, {1..3}) into list;
 * ROZ_EINVALID when there would be more than MAX_BRACE_PATHS.
 */
static int expand_braces(const char *s, char ***list, size_t *n, size_t *cap)
{
	const char *open = NULL, *close = NULL, *p;
	size_t depth = 0;
	roz_buf b = ROZ_BUF_INIT;
	int rc = ROZ_OK;

	for (p = s; *p && !close; p++) {
		if (*p == '{' && depth++ == 0)
			open = p;
		else if (*p == '}' && depth && --depth == 0)
			close = p;
	}
	if (!open || !close) {
		char *copy;

		if (*n >= MAX_BRACE_PATHS)
			return ROZ_EINVALID;
		if (roz_alloc_array_reserve((void **)list, cap, sizeof(**list), *n + 1) < 0 ||
		    !(copy = roz_strdup(s)))
			return ROZ_ENOMEM;
		(*list)[(*n)++] = copy;
		return ROZ_OK;
	}
	{
		const char *body = open + 1, *dots = strstr(body, "..");
		long lo, hi;
		char *end;

		if (dots && dots < close && !memchr(body, ',', (size_t)(close - body))) {
			/* {1..3} or {a..c}: a sequence */
			lo = strtol(body, &end, 10);
			if (end == dots) {
				hi = strtol(dots + 2, &end, 10);
				if (end != close || labs(hi - lo) >= MAX_BRACE_PATHS)
					return ROZ_EINVALID;
			} else if (dots == body + 1 && close == dots + 3) {
				lo = (unsigned char)body[0];
				hi = (unsigned char)dots[2];
			} else {
				return ROZ_EINVALID;
			}
			for (long k = lo;; k += lo <= hi ? 1 : -1) {
				roz_buf_reset(&b);
				roz_buf_add(&b, s, (size_t)(open - s));
				if (dots == body + 1 && close == dots + 3)
					roz_buf_addc(&b, (char)k);
				else
					roz_buf_addf(&b, "%ld", k);
				roz_buf_adds(&b, close + 1);
				if ((rc = roz_buf_failed(&b)) < 0 || (rc = expand_braces(b.ptr, list, n, cap)) < 0 ||
				    k == hi)
					break;
			}
			roz_buf_dispose(&b);
			return rc;
		}
	}
	/* {a,b,...}: each alternative up to a comma at this level */
	for (p = open + 1; rc == ROZ_OK;) {
		const char *q = p;

		for (depth = 0; q < close && (depth || *q != ','); q++)
			depth += *q == '{' ? 1 : *q == '}' ? (size_t)-1 : 0;
		roz_buf_reset(&b);
		roz_buf_add(&b, s, (size_t)(open - s));
		roz_buf_add(&b, p, (size_t)(q - p));
		roz_buf_adds(&b, close + 1);
		if ((rc = roz_buf_failed(&b)) == ROZ_OK)
			rc = expand_braces(b.ptr, list, n, cap);
		if (q >= close)
			break;
		p = q + 1;
	}
	roz_buf_dispose(&b);
	return rc;
}

/* A target with brace lists is the paths it spells out, each judged as written. */
static int judge_braces(const struct store_view *v, const roz_gate_match *m, const roz_gate_write *w,
			roz_gate_store_verdict *out, char *why, size_t size)
{
	char **list = NULL;
	size_t n = 0, cap = 0;
	int rc = expand_braces(w->path, &list, &n, &cap);

	*out = ROZ_GATE_STORE_NONE;
	if (rc == ROZ_EINVALID) {
		say(why, size, "`%s` writes more paths than roz spells out (`%.*s`), which could be in "
			       "roz's storage (%s)",
		    w->by, quote_len(w->path, strlen(w->path)), w->path, v->config->storage_path);
		*out = ROZ_GATE_STORE_ASK;
		rc = ROZ_OK;
	}
	for (size_t i = 0; i < n && rc == ROZ_OK && *out != ROZ_GATE_STORE_DENY; i++) {
		roz_gate_write one = *w;
		roz_gate_store_verdict here;

		one.path = list[i];
		one.known = strlen(list[i]);
		one.parts = 0;
		if ((rc = judge(v, m, &one, &here, why, size)) == ROZ_OK && here > *out)
			*out = here;
	}
	for (size_t i = 0; i < n; i++)
		roz_free(list[i]);
	roz_free(list);
	return rc;
}

static int judge(const struct store_view *v, const roz_gate_match *m, const roz_gate_write *w,
		 roz_gate_store_verdict *out, char *why, size_t size)
{
	size_t len = strlen(w->path);
	roz_gate_store_verdict here = ROZ_GATE_STORE_NONE;
	int rc;

	*out = ROZ_GATE_STORE_NONE;
	if (w->known < len) {
		const char *rest = w->path + w->known;

		/* find's `{}` are paths under its roots, which are judged themselves */
		if (w->parts == ROZ_SHELL_PART_FOUND && !strcmp(rest, "{}"))
			return ROZ_OK;
		if (w->parts == ROZ_SHELL_PART_BRACE)
			return judge_braces(v, m, w, out, why, size);
		if (w->known == 0 && w->parts == ROZ_SHELL_PART_FED) {
			say(why, size, "`%s` takes the paths it writes from its input when it runs, and they "
				       "could be in roz's storage (%s)",
			    w->by, v->config->storage_path);
			*out = ROZ_GATE_STORE_ASK;
			return ROZ_OK;
		}
		/*
		 * Expansions and brace lists can hold `..` or a whole new path; a
		 * glob before the last component can walk through any link.
		 */
		if ((w->parts & ~(unsigned)ROZ_SHELL_PART_GLOB) || strchr(rest, '/')) {
			say(why, size, "`%s` writes to a place known only when it runs (`%.*s`), which could "
				       "be roz's storage (%s)",
			    w->by, quote_len(w->path, len), w->path, v->config->storage_path);
			*out = ROZ_GATE_STORE_ASK;
			return ROZ_OK;
		}
	}
	if (!absolute(w->path) && m->dir_unknown) {
		say(why, size, "`%s` writes `%.*s` after a cd to a place known only when it runs, which "
			       "could be roz's storage (%s)",
		    w->by, quote_len(w->path, len), w->path, v->config->storage_path);
		*out = ROZ_GATE_STORE_ASK;
		return ROZ_OK;
	}
	if ((rc = judge_from(v, w, "", out, why, size)) < 0 || *out == ROZ_GATE_STORE_DENY ||
	    absolute(w->path))
		return rc;
	for (size_t i = 0; i < m->ndirs; i++) {
		if ((rc = judge_from(v, w, m->dirs[i], &here, *out ? NULL : why, size)) < 0)
			return rc;
		if (here > *out)
			*out = here;
		if (here == ROZ_GATE_STORE_DENY) {
			/* the reason for a denial beats one for a question */
			return judge_from(v, w, m->dirs[i], &here, why, size);
		}
	}
	return ROZ_OK;
}

int roz_gate_check_store(const roz_gate_match *m, const roz_config *config, const char *cwd,
			 const roz_path_fs *fs, roz_gate_store_verdict *verdict, char *why, size_t why_size)
{
	struct store_view v = {config, cwd, fs, NULL, NULL};
	int rc = ROZ_OK;

	*verdict = ROZ_GATE_STORE_NONE;
	if (why && why_size)
		why[0] = '\0';
	if (!config->storage_path || !m->nwrites)
		return ROZ_OK;
	rc = roz_path_normalize(cwd, fs ? fs->home : NULL, config->storage_path, &v.lex);
	if (rc == ROZ_OK && fs && fs->read_link)
		rc = roz_path_resolve(fs, cwd, config->storage_path, &v.phys);
	if (rc == ROZ_ENOMEM)
		goto out;
	rc = ROZ_OK; /* a store roz cannot place is judged by what is known of it */
	if (!v.lex)
		goto out;
	for (size_t i = 0; i < m->nwrites && *verdict != ROZ_GATE_STORE_DENY; i++) {
		roz_gate_store_verdict one;
		char here[512];

		if ((rc = judge(&v, m, &m->writes[i], &one, here, sizeof(here))) < 0)
			goto out;
		if (one > *verdict) {
			*verdict = one;
			say(why, why_size, "%s", here);
		}
	}
out:
	roz_free(v.lex);
	roz_free(v.phys);
	return rc;
}

/* ---- file tools ------------------------------------------------------------ */

static int file_tool_writes(const char *tool_name, const cJSON *input, roz_gate_match *m)
{
	static const char *const writers_[] = {"Write", "Edit", "MultiEdit", "NotebookEdit"};
	const char *path = NULL;

	for (size_t i = 0; i < sizeof(writers_) / sizeof(writers_[0]) && !path; i++)
		if (strcmp(tool_name, writers_[i]) == 0)
			path = input_string(input, "file_path") ? input_string(input, "file_path")
								: input_string(input, "notebook_path");
	return path ? add_write(m, path, NULL, 0, 0, tool_name) : ROZ_OK;
}

int roz_gate_check(const roz_config *config, const char *tool_name, const cJSON *tool_input,
		   const char *cwd, roz_gate_match *m)
{
	const char *command;
	roz_gate_store_verdict v;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!tool_name)
		tool_name = "unknown";
	command = strcmp(tool_name, "Bash") == 0 ? input_string(tool_input, "command") : NULL;
	if (command) {
		rc = check_bash(config, command, m);
	} else {
		rc = config->storage_path ? file_tool_writes(tool_name, tool_input, m) : ROZ_OK;
		for (size_t p = 0; p < config->n_gate_tools && rc == ROZ_OK && !m->matched; p++)
			if (roz_glob_match(config->gate_tools[p], tool_name))
				rc = set_match(m, tool_name, strlen(tool_name), config->gate_tools[p]);
	}
	/*
	 * What the text alone proves, for a file tool or a Bash line a gate
	 * matched (whose denial then needs no session); home and links are
	 * settled, and other Bash lines judged, by roz_gate_check_store().
	 */
	if (rc == ROZ_OK && m->nwrites && (m->matched || !command) &&
	    (rc = roz_gate_check_store(m, config, cwd, NULL, &v, NULL, 0)) == ROZ_OK)
		m->touches_store = v == ROZ_GATE_STORE_DENY;
	return rc;
}

bool roz_gate_detour_window(const roz_session *s, const roz_config *config, roz_time now)
{
	const roz_review_state *r = &s->review;

	/* a later review cycle (a #roz prompt, say) is about other work */
	if (!r->gate_trigger || !r->review_started_at.set ||
	    roz_time_after(r->review_started_at.t, r->gate_trigger->triggered_at))
		return false;
	return !roz_decide_approves(s, config) && !roz_breaker_cooling(s, config, now);
}

bool roz_gate_approved(const roz_session *s, const roz_config *config, roz_time now)
{
	const roz_review_state *r = &s->review;
	roz_opt_time since;

	if (!roz_decide_approves(s, config) || !r->gate_approved_at.set)
		return false;
	if (config->has_approval_ttl &&
	    roz_time_after(now, roz_time_add(r->gate_approved_at.t, config->approval_ttl_seconds)))
		return false;
	switch (config->approval_scope) {
	case ROZ_SCOPE_SESSION:
	case ROZ_SCOPE_TOOL: /* a tool-scope approval is consumed by the call it lets through */
		return true;
	default:
		/* a prompt that arrived while a review was running does not undo its approval */
		since = r->last_prompt_at;
		if (since.set && r->review_started_at.set &&
		    roz_time_after(since.t, r->review_started_at.t))
			since = r->review_started_at;
		return !since.set || roz_time_after(r->gate_approved_at.t, since.t);
	}
}
