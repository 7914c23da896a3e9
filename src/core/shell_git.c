/*
 * shell_git.c - git's and gh's own ways to run a command: git's global
 * options before the subcommand, its helper programs (git-push), the
 * configuration values and options whose text git hands to a shell, its
 * other spellings of a push, aliases, and gh's repository flag, its api
 * calls and its aliases. Kept apart from the other rules because git is the
 * command gates care about most and it has more ways to run things than any
 * other.
 */
#include "shell_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- small helpers ------------------------------------------------------ */

/* bsearch over a sorted word table (`static const char t[][W]`). */
static int word_cmp(const void *key, const void *elem)
{
	return strcmp(key, elem);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* The command at `at` (an index shell_emit returned), or NULL. */
static roz_shell_cmd *cmd_at(struct parser *p, size_t at)
{
	return at != NONE && at < p->out->ncmds ? &p->out->cmds[at] : NULL;
}

/* Index of the command reported last, which the caller just emitted. */
static size_t last_cmd(const struct parser *p)
{
	return !p->nomem && p->out->ncmds ? p->out->ncmds - 1 : NONE;
}

static void set_opaque(struct parser *p, size_t at, const char *why)
{
	roz_shell_cmd *c = cmd_at(p, at);

	if (c && !c->opaque)
		c->opaque = why;
}

/* Know at most `cap` bytes of a command, saying why. */
static void cap_known(roz_shell_cmd *c, size_t cap, const char *why)
{
	if (c && c->known > cap) {
		c->known = cap;
		c->why = why;
	}
}

/* Words run as a command of their own one level down, as a shell would run them. */
static void run_nested(struct parser *p, const struct sword *w, size_t n, const struct feed *f)
{
	if (!n || !shell_enter(p))
		return;
	p->depth++;
	shell_run_words(p, w, n, NULL, 0, f);
	p->depth--;
	shell_leave(p);
}

static void run_text(struct parser *p, const char *s)
{
	shell_parse_payload(p, s, strlen(s));
}

/* Words a command's other spelling starts with ("pr", "merge"): arrays, not pointers, as in WORDS_W. */
typedef char lead_word[8];

/* `head` + words: report another spelling of a command (gh pr merge, git push, ...). */
static size_t emit_as(struct parser *p, const char *head, const lead_word *lead, size_t nlead,
		      const struct sword *w, size_t n, const struct feed *f)
{
	struct sword *v = roz_calloc(nlead + n + 1, sizeof(*v));
	size_t at = NONE;

	if (!v) {
		shell_nomem(p);
		return NONE;
	}
	for (size_t i = 0; i < nlead; i++) {
		if (!(v[i].s = roz_strdup(lead[i]))) {
			shell_nomem(p);
			nlead = i;
			goto out;
		}
		v[i].info = known_word(lead[i]);
	}
	if (n)
		memcpy(v + nlead, w, n * sizeof(*v));
	at = shell_emit(p, head, NULL, v, nlead + n, f, NONE);
out:
	for (size_t i = 0; i < nlead; i++)
		roz_free(v[i].s);
	roz_free(v);
	return p->nomem ? NONE : at;
}

/*
 * git's ext:: transport runs the text after `ext::` as a command, without a
 * shell: words split at spaces, `% ` is a space, `%%` a percent sign, `%s`
 * and `%S` the service name, and a word starting `%G` or `%V` is dropped.
 */
static void run_ext(struct parser *p, const char *url, unsigned parts, const struct feed *f)
{
	const char *s = url + 5;
	struct sword *v = NULL;
	size_t n = 0, cap = 0;
	roz_buf b = ROZ_BUF_INIT;
	bool drop = false, any = false;

	if (parts)
		shell_flag(p, ROZ_SHELL_DYNAMIC, "git runs an ext:: command computed at run time: %.*s",
			   shell_clip(url), url);
	for (;; s++) {
		if (*s == ' ' || !*s) {
			if (any && !drop) {
				if (roz_alloc_array_reserve((void **)&v, &cap, sizeof(*v), n + 1) < 0 ||
				    b.oom || !(v[n].s = roz_buf_detach(&b, NULL))) {
					shell_nomem(p);
					break;
				}
				v[n].flags = 0;
				v[n].info = known_word(v[n].s);
				n++;
			}
			roz_buf_reset(&b);
			any = drop = false;
			if (!*s)
				break;
			continue;
		}
		if (*s == '%' && s[1]) {
			s++;
			if (*s == 'G' || *s == 'V')
				drop = true;
			else if (*s == 's')
				roz_buf_adds(&b, "upload-pack");
			else if (*s == 'S')
				roz_buf_adds(&b, "git-upload-pack");
			else
				roz_buf_addc(&b, *s);
		} else {
			roz_buf_addc(&b, *s);
		}
		any = true;
	}
	roz_buf_dispose(&b);
	if (!p->nomem)
		run_nested(p, v, n, f);
	for (size_t i = 0; i < n; i++)
		roz_free(v[i].s);
	roz_free(v);
}

/* ---- configuration values git runs --------------------------------------- */

enum cfg {
	CFG_NONE,
	CFG_SHELL,      /* the value is a command line git hands to sh -c */
	CFG_SHELL_BOOL, /* the same, unless it is a boolean */
	CFG_BANG,       /* `!text` runs text through the shell */
	CFG_HELPER,     /* credential helper: `!text` or an absolute path runs */
	CFG_ALIAS,      /* alias.X: `!text` runs; anything else renames a subcommand */
	CFG_INCLUDE,    /* reads more configuration from a file */
	CFG_HOOKS,      /* hooks from a directory the line names */
	CFG_URL,        /* a remote's URL: ext:: runs a command */
	CFG_URL_BASE    /* url.<base>.insteadOf: the base is the URL used */
};

/* sub: 0 no subsection, 1 one is required, 2 either; key "": any key. */
static const struct cfgkey {
	char section[12];
	unsigned char sub;
	char key[21];
	enum cfg kind;
} cfgkeys[] = {
	{"alias", 2, "", CFG_ALIAS},
	{"browser", 1, "cmd", CFG_SHELL},
	{"core", 0, "alternaterefscommand", CFG_SHELL},
	{"core", 0, "askpass", CFG_SHELL},
	{"core", 0, "editor", CFG_SHELL},
	{"core", 0, "fsmonitor", CFG_SHELL_BOOL},
	{"core", 0, "gitproxy", CFG_SHELL},
	{"core", 0, "hookspath", CFG_HOOKS},
	{"core", 0, "pager", CFG_SHELL},
	{"core", 0, "sshcommand", CFG_SHELL},
	{"credential", 2, "helper", CFG_HELPER},
	{"diff", 0, "external", CFG_SHELL},
	{"diff", 1, "command", CFG_SHELL},
	{"diff", 1, "textconv", CFG_SHELL},
	{"difftool", 1, "cmd", CFG_SHELL},
	{"difftool", 1, "path", CFG_SHELL},
	{"filter", 1, "clean", CFG_SHELL},
	{"filter", 1, "process", CFG_SHELL},
	{"filter", 1, "smudge", CFG_SHELL},
	{"gpg", 2, "program", CFG_SHELL},
	{"gpg", 1, "defaultkeycommand", CFG_SHELL},
	{"hook", 1, "command", CFG_SHELL},
	{"include", 0, "path", CFG_INCLUDE},
	{"includeif", 1, "path", CFG_INCLUDE},
	{"interactive", 0, "difffilter", CFG_SHELL},
	{"man", 1, "cmd", CFG_SHELL},
	{"merge", 1, "driver", CFG_SHELL},
	{"mergetool", 1, "cmd", CFG_SHELL},
	{"mergetool", 1, "path", CFG_SHELL},
	{"pager", 0, "", CFG_SHELL_BOOL},
	{"remote", 1, "pushurl", CFG_URL},
	{"remote", 1, "receivepack", CFG_SHELL},
	{"remote", 1, "uploadpack", CFG_SHELL},
	{"remote", 1, "url", CFG_URL},
	{"sendemail", 2, "cccmd", CFG_SHELL},
	{"sendemail", 2, "headercmd", CFG_SHELL},
	{"sendemail", 2, "sendmailcmd", CFG_SHELL},
	{"sendemail", 2, "tocmd", CFG_SHELL},
	{"sequence", 0, "editor", CFG_SHELL},
	{"submodule", 1, "update", CFG_BANG},
	{"trailer", 1, "cmd", CFG_SHELL},
	{"trailer", 1, "command", CFG_SHELL},
	{"uploadpack", 0, "packobjectshook", CFG_SHELL},
	{"url", 1, "insteadof", CFG_URL_BASE},
	{"url", 1, "pushinsteadof", CFG_URL_BASE},
};

/* What git does with the value of config `name` (nlen bytes; section and key ignore case). */
static enum cfg config_kind(const char *name, size_t nlen)
{
	const char *dot = memchr(name, '.', nlen), *last = dot;
	size_t slen, klen;
	bool sub;

	if (!dot)
		return CFG_NONE;
	for (const char *q = dot + 1; q < name + nlen; q++)
		if (*q == '.')
			last = q;
	slen = (size_t)(dot - name);
	klen = nlen - (size_t)(last + 1 - name);
	sub = last != dot;
	for (size_t i = 0; i < sizeof(cfgkeys) / sizeof(cfgkeys[0]); i++) {
		const struct cfgkey *k = &cfgkeys[i];

		if (strlen(k->section) != slen || strncasecmp(name, k->section, slen))
			continue;
		if ((k->sub == 0 && sub) || (k->sub == 1 && !sub))
			continue;
		if (k->key[0] && (strlen(k->key) != klen || strncasecmp(last + 1, k->key, klen)))
			continue;
		return k->kind;
	}
	return CFG_NONE;
}

static bool git_bool(const char *s)
{
	static const char bools[][6] = {"", "true", "false", "yes", "no", "on", "off", "1", "0"};

	return shell_word_in(s, bools);
}

/* What a git run learned from the configuration it is given. */
struct gitrun {
	const char *cap;    /* only `git ` is known, and why: the subcommand could be renamed */
	const char *opaque; /* it runs something the line does not show */
};

static const char alias_why[] = "an alias given with git -c";

/*
 * What a -c `name=value` word says before anything is reported: an alias or
 * an included file can rename the subcommand, and a computed name could set
 * anything. known is how much of the word is literal.
 */
static void config_peek(const char *s, size_t known, unsigned parts, struct gitrun *run)
{
	size_t nlen = strcspn(s, "=");
	enum cfg kind;

	if (parts && known <= nlen) {
		run->cap = run->cap ? run->cap : alias_why;
		run->opaque = "git configuration computed at run time";
		return;
	}
	kind = config_kind(s, nlen);
	if (kind == CFG_INCLUDE) {
		run->opaque = "git configuration read from a file the line names";
		run->cap = run->cap ? run->cap : run->opaque;
	} else if (kind == CFG_ALIAS) {
		run->cap = run->cap ? run->cap : alias_why;
	} else if (kind == CFG_HOOKS)
		run->opaque = "git hooks from a directory the line names";
}

/*
 * A configuration value set on the line (git -c, clone -c, git config):
 * report what git would run with it. name is nlen bytes; value_parts says
 * whether the value holds text computed at run time.
 */
static void config_value(struct parser *p, const char *name, size_t nlen, const char *value,
			 unsigned value_parts, const struct feed *f)
{
	enum cfg kind = config_kind(name, nlen);

	switch (kind) {
	case CFG_SHELL:
		run_text(p, value); /* git runs it with sh -c */
		break;
	case CFG_SHELL_BOOL:
		if (!git_bool(value))
			run_text(p, value);
		break;
	case CFG_BANG:
	case CFG_ALIAS:
		if (value[0] == '!')
			run_text(p, value + 1); /* a shell command, not a git subcommand */
		break;
	case CFG_HELPER:
		if (value[0] == '!')
			run_text(p, value + 1);
		else if (value[0] == '/')
			run_text(p, value); /* a path runs as it is; a name runs git credential-NAME */
		break;
	case CFG_URL:
		if (!strncmp(value, "ext::", 5))
			run_ext(p, value, value_parts, f);
		break;
	case CFG_URL_BASE: {
		/* url.<base>.insteadOf: git fetches from <base>, which can be ext:: */
		const char *base = (const char *)memchr(name, '.', nlen) + 1;
		size_t blen = nlen - (size_t)(base - name);

		while (blen && base[blen] != '.')
			blen--;
		if (blen > 5 && !strncmp(base, "ext::", 5)) {
			char *copy = roz_strndup(base, blen);

			if (!copy) {
				shell_nomem(p);
				break;
			}
			run_ext(p, copy, 0, f);
			roz_free(copy);
		}
		break;
	}
	default:
		break;
	}
}

/* A -c `name=value` word: what git runs with it. */
static void config_assignment(struct parser *p, const char *s, size_t known, unsigned parts,
			      const struct feed *f)
{
	size_t nlen = strcspn(s, "=");

	if (parts && known <= nlen)
		return; /* config_peek said it: anything could be set */
	config_value(p, s, nlen, s[nlen] ? s + nlen + 1 : "", parts, f);
}

/* --config-env=name=ENVVAR: the value is in the environment, so what it runs is unknown. */
static void config_env(const char *s, unsigned parts, struct gitrun *run)
{
	size_t nlen = strcspn(s, "=");
	enum cfg kind = parts ? CFG_ALIAS : config_kind(s, nlen);

	if (kind == CFG_ALIAS || kind == CFG_INCLUDE)
		run->cap = run->cap ? run->cap : alias_why;
	if (kind != CFG_NONE && kind != CFG_ALIAS) {
		run->opaque = "a command git takes from an environment variable (--config-env)";
		run->cap = run->cap ? run->cap : run->opaque;
	}
}

/* ---- git's global options ------------------------------------------------ */

#define GLOBAL_STOP ((size_t)-1)

/*
 * How many words the global option `a` takes (itself included), 0 when a
 * is not one, GLOBAL_STOP when git then runs no subcommand. git has no
 * abbreviations of its global options, and anything it does not document
 * (`--no-lazy-fetch`, `--shallow-file=x`, ...) is skipped as one word.
 */
static size_t git_global(const char *a)
{
	static const char valued[][15] = {"-C", "-c", "--git-dir", "--work-tree", "--namespace",
					  "--super-prefix", "--config-env", "--attr-source"};
	static const char stop[][12] = {"-h", "--help", "-v", "--version", "--html-path",
					"--man-path", "--info-path"};

	if (shell_in_words(a, valued))
		return 2;
	if (shell_in_words(a, stop) || !strncmp(a, "--list-cmds", 11))
		return GLOBAL_STOP;
	if (!strcmp(a, "-p") || !strcmp(a, "-P"))
		return 1;
	if (a[0] == '-' && a[1] == '-' && a[2])
		return 1; /* --opt or --opt=value, documented or not */
	return 0;
}

/* Where the subcommand starts in words w[0..n) (w[0] is git): n when there is none. */
static size_t git_sub_of(const char *const *w, size_t n)
{
	size_t i = 1;

	while (i < n) {
		size_t step = git_global(w[i]);

		if (step == GLOBAL_STOP)
			return n;
		if (!step)
			break;
		i += step;
	}
	return i < n ? i : n;
}

/* ---- git's own commands -------------------------------------------------- */

/* Sorted: git's builtins and the porcelain and plumbing it ships. */
static const char git_commands[][23] = {
	"add", "am", "annotate", "apply", "archimport", "archive", "backfill", "bisect",
	"bisect--helper", "blame", "branch", "bugreport", "bundle", "cat-file", "check-attr",
	"check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout--worker",
	"checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone", "column",
	"commit", "commit-graph", "commit-tree", "config", "count-objects", "credential",
	"credential-cache", "credential-store", "cvsexportcommit", "cvsimport", "cvsserver",
	"daemon", "describe", "diagnose", "diff", "diff-files", "diff-index", "diff-tree",
	"difftool", "difftool--helper", "fast-export", "fast-import", "fetch", "fetch-pack",
	"filter-branch", "fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch",
	"fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep", "gui",
	"hash-object", "help", "hook", "http-backend", "http-fetch", "http-push", "imap-send",
	"index-pack", "init", "init-db", "instaweb", "interpret-trailers", "last-modified",
	"log", "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance",
	"merge", "merge-base", "merge-file", "merge-index", "merge-octopus", "merge-one-file",
	"merge-ours", "merge-recursive", "merge-recursive-ours", "merge-recursive-theirs",
	"merge-resolve", "merge-subtree", "merge-tree", "mergetool", "mktag", "mktree",
	"multi-pack-index", "mv", "name-rev", "notes", "p4", "pack-objects", "pack-redundant",
	"pack-refs", "patch-id", "pickaxe", "prune", "prune-packed", "pull", "push",
	"quiltimport", "range-diff", "read-tree", "rebase", "receive-pack", "reflog", "refs",
	"remote", "remote-ext", "remote-fd", "remote-ftp", "remote-ftps", "remote-http",
	"remote-https", "repack", "replace", "replay", "repo", "request-pull", "rerere",
	"reset", "restore", "rev-list", "rev-parse", "revert", "rm", "send-email", "send-pack",
	"sh-i18n--envsubst", "shell", "shortlog", "show", "show-branch", "show-index",
	"show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule",
	"submodule--helper", "subtree", "svn", "switch", "symbolic-ref", "tag", "unpack-file",
	"unpack-objects", "update-index", "update-ref", "update-server-info", "upload-archive",
	"upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version",
	"web--browse", "whatchanged", "worktree", "write-tree",
};

static bool git_command(const char *s)
{
	return bsearch(s, git_commands, sizeof(git_commands) / sizeof(git_commands[0]),
		       sizeof(git_commands[0]), word_cmp) != NULL;
}

/* ---- options of a subcommand that run a command --------------------------- */

enum how {
	H_SHELL,      /* the value is shell text */
	H_SHELL_PATH, /* the same when it is a path (send-email --smtp-server=/usr/sbin/x) */
	H_CONFIG,     /* the value is name=value configuration (clone -c) */
	H_TEMPLATE,   /* hooks come from the template directory it names */
	H_URL         /* the value is a URL, and ext:: runs a command */
};

/* Text in arrays, not pointers, as in WORDS_W; the run list ends at an entry with neither name. */
struct runopt {
	char s;        /* short name, or 0 */
	char l[20];    /* long name, or "" */
	enum how how;
	bool attached; /* the value is only ever attached (-Ocmd, --opt=cmd) */
};

struct subrule {
	char sub[14];
	char shortval[7];   /* other short options that take a value */
	char longval[152];  /* other long options that take the next word as value */
	bool exact;         /* long names must be spelled out (not parse-options) */
	struct runopt run[9];
};

/*
 * Options whose value git runs. upload-pack and receive-pack run through
 * a shell (on the remote over ssh, here for a local path); rebase --exec,
 * difftool --extcmd, grep -O, send-email's commands and filter-branch's
 * filters are shell text; clone -c is configuration; a template brings
 * hooks the line does not show.
 */
static const struct subrule subrules[] = {
	{"archive", "o", "format prefix output add-file", false,
	 {{0, "exec", H_SHELL, false}, {0, "remote", H_URL, false}}},
	{"clone", "objc", "origin branch reference reference-if-able separate-git-dir depth "
	 "shallow-since shallow-exclude server-option jobs filter bundle-uri ref-format revision", false,
	 {{'u', "upload-pack", H_SHELL, false}, {'c', "config", H_CONFIG, false},
	  {0, "template", H_TEMPLATE, false}}},
	{"daemon", "", "", true, {{0, "access-hook", H_SHELL, true}}},
	{"difftool", "t", "tool", false, {{'x', "extcmd", H_SHELL, false}}},
	{"fetch", "jo", "depth deepen shallow-since shallow-exclude refmap server-option "
	 "negotiation-tip filter jobs", false, {{0, "upload-pack", H_SHELL, false}}},
	{"fetch-pack", "", "", false,
	 {{0, "upload-pack", H_SHELL, false}, {0, "exec", H_SHELL, false}}},
	{"filter-branch", "d", "subdirectory-filter original state-branch", true,
	 {{0, "setup", H_SHELL, false}, {0, "env-filter", H_SHELL, false},
	  {0, "tree-filter", H_SHELL, false}, {0, "index-filter", H_SHELL, false},
	  {0, "parent-filter", H_SHELL, false}, {0, "msg-filter", H_SHELL, false},
	  {0, "commit-filter", H_SHELL, false}, {0, "tag-name-filter", H_SHELL, false}}},
	{"grep", "efABCm", "max-depth threads context after-context before-context max-count", false,
	 {{'O', "open-files-in-pager", H_SHELL, true}}},
	{"init", "b", "separate-git-dir object-format ref-format initial-branch", false,
	 {{0, "template", H_TEMPLATE, false}}},
	{"instaweb", "p", "port module-path", false,
	 {{'d', "httpd", H_SHELL, false}, {'b', "browser", H_SHELL, false}}},
	{"ls-remote", "o", "sort server-option", false,
	 {{0, "upload-pack", H_SHELL, false}, {0, "exec", H_SHELL, false}}},
	{"pull", "sXjo", "strategy strategy-option depth deepen shallow-since shallow-exclude "
	 "server-option negotiation-tip jobs", false, {{0, "upload-pack", H_SHELL, false}}},
	{"push", "o", "repo push-option", false,
	 {{0, "receive-pack", H_SHELL, false}, {0, "exec", H_SHELL, false}}},
	{"rebase", "sXC", "onto strategy strategy-option whitespace empty", false,
	 {{'x', "exec", H_SHELL, false}}},
	{"send-email", "", "from to cc bcc subject in-reply-to reply-to", false,
	 {{0, "sendmail-cmd", H_SHELL, false}, {0, "to-cmd", H_SHELL, false},
	  {0, "cc-cmd", H_SHELL, false}, {0, "header-cmd", H_SHELL, false},
	  {0, "smtp-server", H_SHELL_PATH, false}}},
	{"send-pack", "", "", false,
	 {{0, "receive-pack", H_SHELL, false}, {0, "exec", H_SHELL, false}}},
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

/* parse-options takes any unambiguous start of a long name; at least three letters here. */
static bool long_is(const char *name, size_t len, const char *full, bool exact)
{
	if (len == strlen(full))
		return !memcmp(name, full, len);
	return !exact && len >= 3 && len < strlen(full) && !memcmp(name, full, len);
}

static void run_value(struct parser *p, const struct runopt *o, const char *val, unsigned parts,
		      const struct feed *f, struct gitrun *run)
{
	switch (o->how) {
	case H_SHELL_PATH:
		if (val[0] != '/')
			break;
		/* fall through */
	case H_SHELL:
		run_text(p, val);
		break;
	case H_CONFIG:
		config_peek(val, parts ? 0 : strlen(val), parts, run);
		config_assignment(p, val, parts ? 0 : strlen(val), parts, f);
		break;
	case H_TEMPLATE:
		run->opaque = "git hooks from a template directory";
		break;
	case H_URL:
		if (!strncmp(val, "ext::", 5))
			run_ext(p, val, parts, f);
		break;
	}
}

/* Find and report the values of a subcommand's options that git runs. */
static void sub_options(struct parser *p, const struct subrule *r, const struct sword *v, size_t m,
			const struct feed *f, struct gitrun *run)
{
	for (size_t i = 1; i < m; i++) {
		const char *a = v[i].s;
		const struct runopt *o;

		if (!strcmp(a, "--"))
			return;
		if (a[0] != '-' || !a[1])
			continue;
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			for (o = r->run; o->l[0] || o->s; o++) {
				if (!o->l[0] || !long_is(name, len, o->l, r->exact))
					continue;
				if (eq) {
					run_value(p, o, eq + 1, v[i].info.parts, f, run);
				} else if (!o->attached && i + 1 < m) {
					i++;
					run_value(p, o, v[i].s, v[i].info.parts, f, run);
				}
				break;
			}
			if (!(o->l[0] || o->s) && !eq && in_list(r->longval, name, len))
				i++;
			continue;
		}
		for (size_t k = 1; a[k]; k++) {
			for (o = r->run; (o->l[0] || o->s) && o->s != a[k]; o++)
				;
			if (o->s) {
				if (a[k + 1]) {
					run_value(p, o, a + k + 1, v[i].info.parts, f, run);
				} else if (!o->attached && i + 1 < m) {
					i++;
					run_value(p, o, v[i].s, v[i].info.parts, f, run);
				}
				break;
			}
			if (strchr(r->shortval, a[k])) {
				if (!a[k + 1])
					i++;
				break;
			}
		}
	}
}

/* ---- subcommands that run commands given as arguments ---------------------- */

/* The first word from `from` that is not an option, or m. */
static size_t first_operand(const struct sword *v, size_t from, size_t m)
{
	while (from < m && v[from].s[0] == '-' && v[from].s[1]) {
		if (!strcmp(v[from].s, "--"))
			return from + 1;
		from++;
	}
	return from;
}

/*
 * git submodule foreach runs its command in every submodule: one argument
 * goes to sh -c, several run as a command.
 */
static void submodule_foreach(struct parser *p, const struct sword *v, size_t m, const struct feed *f)
{
	size_t i = first_operand(v, 1, m);

	if (i >= m || strcmp(v[i].s, "foreach"))
		return;
	i = first_operand(v, i + 1, m);
	if (m - i == 1)
		run_text(p, v[i].s);
	else
		run_nested(p, v + i, m - i, f);
}

/* git bisect run CMD ARGS...: runs the command at every step. */
static void bisect_run(struct parser *p, const struct sword *v, size_t m, const struct feed *f)
{
	if (m > 2 && !strcmp(v[1].s, "run"))
		run_nested(p, v + 2, m - 2, f);
}

/* send-pack and http-push push; so does git subtree push. */
static void push_spellings(struct parser *p, const struct sword *v, size_t m, const struct feed *f)
{
	static const lead_word push[] = {"push"};
	const char *sub = v[0].s;

	if (!strcmp(sub, "send-pack") || !strcmp(sub, "http-push")) {
		emit_as(p, "git", push, 1, v + 1, m - 1, f);
	} else if (!strcmp(sub, "subtree")) {
		for (size_t i = 1; i < m; i++) {
			const char *a = v[i].s;

			if (!strcmp(a, "-P") || !strcmp(a, "--prefix") || !strcmp(a, "-m") ||
			    !strcmp(a, "--message") || !strcmp(a, "-b") || !strcmp(a, "--branch") ||
			    !strcmp(a, "--onto") || !strcmp(a, "--annotate")) {
				i++;
				continue;
			}
			if (a[0] == '-')
				continue;
			if (!strcmp(a, "push"))
				emit_as(p, "git", push, 1, v + i + 1, m - i - 1, f);
			break;
		}
	}
}

/*
 * git config: does it write, and which name and value. The old form sets
 * with two operands or an action (--add, --unset, ...); the new one names
 * the action first (git config set ...). key/val: indices, or m.
 */
static bool config_writes(const struct sword *v, size_t m, size_t *key, size_t *val)
{
	static const char writes[][17] = {"--add", "--replace-all", "--unset", "--unset-all",
					  "--rename-section", "--remove-section", "-e", "--edit"};
	static const char reads[][16] = {"--get", "--get-all", "--get-regexp", "--get-urlmatch",
					 "-l", "--list", "--get-color", "--get-colorbool"};
	static const char verbs_w[][15] = {"set", "unset", "rename-section", "remove-section",
					   "edit"};
	static const char valued[][10] = {"-f", "--file", "--blob", "--type", "--default",
					  "--comment", "--value", "--url"};
	size_t ops[3], nops = 0, i;
	bool write = false, read = false, verb = false;

	*key = *val = m;
	for (i = 1; i < m; i++) {
		const char *a = v[i].s;

		write |= shell_in_words(a, writes);
		read |= shell_in_words(a, reads);
		if (!strcmp(a, "--")) {
			for (i++; i < m && nops < 3; i++)
				ops[nops++] = i;
			break;
		}
		if (shell_in_words(a, valued)) {
			i++;
			continue;
		}
		if (a[0] == '-' && a[1])
			continue;
		if (!nops && !verb && shell_in_words(a, verbs_w)) {
			verb = write = true;
			continue;
		}
		if (!nops && !verb && (!strcmp(a, "get") || !strcmp(a, "list"))) {
			verb = read = true;
			continue;
		}
		if (nops < 3)
			ops[nops++] = i;
	}
	if (m > 1 && v[1].info.parts)
		write = true; /* its action is computed */
	if (!read && !verb && nops >= 2)
		write = true;
	if (write && nops) {
		*key = ops[0];
		if (nops > 1)
			*val = ops[1];
	}
	return write && !read;
}

/* git config writing a value git runs: report it now, as git will run it later. */
static void config_command(struct parser *p, const struct sword *v, size_t m, const struct feed *f)
{
	size_t key, val;

	if (!config_writes(v, m, &key, &val) || key >= m || val >= m || v[key].info.parts)
		return;
	config_value(p, v[key].s, strlen(v[key].s), v[val].s, v[val].info.parts, f);
}

/* Subcommands that take URLs, where an ext:: URL runs a command. */
static bool takes_urls(const char *sub)
{
	static const char urls[][11] = {"clone", "fetch", "pull", "push", "ls-remote", "remote",
					"submodule", "fetch-pack", "send-pack"};

	return shell_in_words(sub, urls);
}

/* What subcommand v[0] (with its arguments) runs, beyond itself. */
static void git_sub(struct parser *p, const struct sword *v, size_t m, const struct feed *f,
		    struct gitrun *run)
{
	const char *sub = v[0].s;

	if (v[0].info.parts)
		return;
	for (size_t k = 0; k < sizeof(subrules) / sizeof(subrules[0]); k++)
		if (!strcmp(sub, subrules[k].sub))
			sub_options(p, &subrules[k], v, m, f, run);
	if (takes_urls(sub))
		for (size_t i = 1; i < m; i++)
			if (!strncmp(v[i].s, "ext::", 5))
				run_ext(p, v[i].s, v[i].info.parts, f);
	if (!strcmp(sub, "submodule"))
		submodule_foreach(p, v, m, f);
	else if (!strcmp(sub, "bisect"))
		bisect_run(p, v, m, f);
	else if (!strcmp(sub, "config"))
		config_command(p, v, m, f);
	push_spellings(p, v, m, f);
}

/* ---- git ------------------------------------------------------------------- */

/*
 * git's global options come before the subcommand; report it without them
 * too. An alias given with -c makes the subcommand mean something else, so
 * then only `git ` is known; configuration values that name commands are
 * reported as the commands git runs, and the subcommand's own options that
 * run commands are too.
 */
void shell_git_variant(struct parser *p, const struct sword *w, size_t n, const struct feed *f)
{
	struct gitrun run = {NULL, NULL};
	size_t plain = last_cmd(p), variant = NONE, i = 1, k;

	while (i < n) {
		size_t step = git_global(w[i].s);

		if (step == GLOBAL_STOP)
			return;
		if (!step)
			break;
		i += step;
	}
	if (i > n)
		i = n;
	/* what -c and --config-env say about the subcommand, before it is reported */
	for (k = 1; k < i; k++) {
		const char *a = w[k].s;

		if (!strcmp(a, "-c") && k + 1 < i)
			config_peek(w[k + 1].s, w[k + 1].info.known, w[k + 1].info.parts, &run);
		else if (!strcmp(a, "--config-env") && k + 1 < i)
			config_env(w[k + 1].s, w[k + 1].info.parts, &run);
		else if (!strncmp(a, "--config-env=", 13))
			config_env(a + 13, w[k].info.parts, &run);
	}
	if (i > 1 && i < n) {
		variant = shell_emit(p, "git", NULL, w + i, n - i, f, NONE);
		if (run.cap)
			cap_known(cmd_at(p, variant), 4, run.cap);
	}
	/* then what they make git run */
	for (k = 1; k + 1 < i; k++) {
		if (!strcmp(w[k].s, "-c")) {
			config_assignment(p, w[k + 1].s, w[k + 1].info.known, w[k + 1].info.parts, f);
			k++;
		}
	}
	if (i < n)
		git_sub(p, w + i, n - i, f, &run);
	if (run.opaque) {
		set_opaque(p, plain, run.opaque);
		set_opaque(p, variant, run.opaque);
	}
	/* git's own commands cannot be renamed by an alias; anything else can */
	if (i < n && !w[i].info.parts && w[i].s[0] != '-' && !git_command(w[i].s)) {
		set_opaque(p, plain, "a git subcommand roz does not know, which could be an alias");
		set_opaque(p, variant, "a git subcommand roz does not know, which could be an alias");
	}
}

/* git-push, git-receive-pack, ...: git's helper programs are git subcommands. */
void shell_git_helper(struct parser *p, const char *sub, const struct sword *w, size_t n,
		       const struct feed *f)
{
	struct gitrun run = {NULL, NULL};
	struct sword *v = roz_calloc(n, sizeof(*v));
	size_t at;

	if (!v || !(v[0].s = roz_strdup(sub))) {
		roz_free(v);
		shell_nomem(p);
		return;
	}
	v[0].info = known_word(sub);
	memcpy(v + 1, w + 1, (n - 1) * sizeof(*v));
	at = shell_emit(p, "git", NULL, v, n, f, NONE);
	git_sub(p, v, n, f, &run);
	if (run.opaque)
		set_opaque(p, at, run.opaque);
	roz_free(v[0].s);
	roz_free(v);
}

/* ---- gh -------------------------------------------------------------------- */

/* Sorted: gh's own top-level commands. */
static const char gh_commands[][12] = {
	"agent-task", "alias", "api", "attestation", "auth", "browse", "cache", "co", "codespace",
	"completion", "config", "copilot", "extension", "gist", "gpg-key", "help", "issue", "label",
	"org", "pr", "preview", "project", "release", "repo", "ruleset", "run", "search", "secret",
	"ssh-key", "status", "variable", "version", "workflow",
};

/*
 * A gh api flag that takes a value: 'X' method, 'F'/'f' field, 'i' input,
 * 'v' any other; 0 for a flag without one.
 */
static char gh_api_flag(const char *name, size_t len)
{
	static const struct {
		char name[10];
		char which;
	} flags[] = {{"method", 'X'}, {"field", 'F'}, {"raw-field", 'f'}, {"input", 'i'},
		     {"header", 'v'}, {"jq", 'v'}, {"template", 'v'}, {"cache", 'v'},
		     {"hostname", 'v'}, {"preview", 'v'}};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strlen(flags[i].name) == len && !memcmp(name, flags[i].name, len))
			return flags[i].which;
	return 0;
}

/* A positive number, or text computed at run time: the N of /pulls/N. */
static bool issue_number(const char *s, size_t len)
{
	if (!len)
		return false;
	if (s[0] == '$' || s[0] == '{')
		return true;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/*
 * An endpoint `.../<what>/N<tail>` (query dropped): returns N's offset,
 * its length in *len, or NONE.
 */
static size_t endpoint_number(const char *ep, const char *what, const char *tail, size_t *len)
{
	size_t n = strcspn(ep, "?#"), wl = strlen(what), tl = strlen(tail);

	while (n && ep[n - 1] == '/')
		n--;
	if (n < tl || memcmp(ep + n - tl, tail, tl))
		return NONE;
	n -= tl;
	for (size_t s = n; s > 0; s--) {
		if (ep[s - 1] != '/')
			continue;
		if (s > wl && !memcmp(ep + s - 1 - wl, what, wl) &&
		    (s - 1 == wl || ep[s - 2 - wl] == '/') && issue_number(ep + s, n - s)) {
			*len = n - s;
			return s;
		}
		break;
	}
	return NONE;
}

/* Report `gh <lead...> N` for an endpoint's number, keeping what of it is computed. */
static void emit_gh_number(struct parser *p, const lead_word *lead, size_t nlead,
			   const struct sword *ep, size_t at, size_t len, const struct feed *f)
{
	struct sword num;
	char *s;

	if (at == NONE) {
		emit_as(p, "gh", lead, nlead, NULL, 0, f);
		return;
	}
	if (!(s = roz_strndup(ep->s + at, len))) {
		shell_nomem(p);
		return;
	}
	num.s = s;
	num.flags = 0;
	num.info = known_word(s);
	if (ep->info.parts && ep->info.known < at + len) {
		size_t k = ep->info.known > at ? ep->info.known - at : 0;

		num.info.known = num.info.known_home = k;
		num.info.parts = ep->info.parts;
	}
	emit_as(p, "gh", lead, nlead, &num, 1, f);
	roz_free(s);
}

/*
 * gh api: a call that writes to a pull request's merge endpoint merges it,
 * and closing state on an issue or pull request closes it; a GraphQL
 * mutation can do either. Reported as the gh command that does the same.
 */
static void gh_api(struct parser *p, const struct sword *v, size_t m, const struct feed *f,
		   size_t plain)
{
	static const lead_word merge[] = {"pr", "merge"};
	static const lead_word iclose[] = {"issue", "close"};
	static const lead_word pclose[] = {"pr", "close"};
	const char *method = NULL;
	const struct sword *ep = NULL;
	bool fields = false, closed = false;
	const char *query = NULL;
	size_t at, len;

	for (size_t i = 1; i < m; i++) {
		const char *a = v[i].s, *val = NULL;
		char which = 0;

		if (a[0] != '-' || !a[1]) {
			if (!ep)
				ep = &v[i];
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');

			which = gh_api_flag(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
			val = eq ? eq + 1 : NULL;
		} else {
			/* pflag: booleans bundle, and a value flag takes the rest, `=` or the next word */
			for (size_t k = 1; a[k] && !which; k++) {
				if (strchr("XFfHqtp", a[k])) {
					which = a[k] == 'H' || a[k] == 'q' || a[k] == 't' || a[k] == 'p' ? 'v' : a[k];
					val = a[k + 1] ? a + k + 1 + (a[k + 1] == '=') : NULL;
				}
			}
		}
		if (!which)
			continue;
		if (!val && i + 1 < m)
			val = v[++i].s;
		if (!val)
			continue;
		if (which == 'X')
			method = val;
		else if (which != 'v')
			fields = true;
		if ((which == 'F' || which == 'f') && !strcasecmp(val, "state=closed"))
			closed = true;
		if ((which == 'F' || which == 'f') && !strncmp(val, "query=", 6))
			query = val + 6;
	}
	if (!ep)
		return;
	/* gh api sends GET unless told otherwise or given fields, then POST */
	if (method ? !strcasecmp(method, "GET") : !fields)
		return;
	if (ep->info.known == 0 && ep->info.parts) {
		set_opaque(p, plain, "a gh api call that writes to an endpoint known only at run time");
		return;
	}
	if (!strcmp(ep->s, "graphql")) {
		if (query && query[0] == '@')
			set_opaque(p, plain, "a GraphQL request read from a file");
		else if (query && (strstr(query, "mergePullRequest") || strstr(query, "enablePullRequestAutoMerge")))
			emit_as(p, "gh", merge, 2, NULL, 0, f);
		else if (query && strstr(query, "closeIssue"))
			emit_as(p, "gh", iclose, 2, NULL, 0, f);
		else if (query && strstr(query, "closePullRequest"))
			emit_as(p, "gh", pclose, 2, NULL, 0, f);
		return;
	}
	if ((at = endpoint_number(ep->s, "pulls", "/merge", &len)) != NONE)
		emit_gh_number(p, merge, 2, ep, at, len, f);
	else if (closed && (at = endpoint_number(ep->s, "issues", "", &len)) != NONE)
		emit_gh_number(p, iclose, 2, ep, at, len, f);
	else if (closed && (at = endpoint_number(ep->s, "pulls", "", &len)) != NONE)
		emit_gh_number(p, pclose, 2, ep, at, len, f);
}

/* gh alias set NAME '!text' (or --shell): the alias is text for sh -c. */
static void gh_alias(struct parser *p, const struct sword *v, size_t m)
{
	size_t ops[2], nops = 0;
	bool shell = false;

	if (m < 2 || strcmp(v[1].s, "set"))
		return;
	for (size_t i = 2; i < m && nops < 2; i++) {
		if (!strcmp(v[i].s, "-s") || !strcmp(v[i].s, "--shell"))
			shell = true;
		else if (v[i].s[0] != '-' || !v[i].s[1])
			ops[nops++] = i;
	}
	if (nops < 2)
		return;
	if (v[ops[1]].s[0] == '!')
		run_text(p, v[ops[1]].s + 1);
	else if (shell)
		run_text(p, v[ops[1]].s);
}

static bool gh_repo_flag(const char *a)
{
	return !strcmp(a, "-R") || !strcmp(a, "--repo");
}

/*
 * gh with its repository flag (-R, --repo) anywhere before the command's
 * own words is reported without it, as `gh pr merge 1`; api calls, aliases
 * and commands gh does not have are looked at too.
 */
void shell_gh_variant(struct parser *p, const struct sword *w, size_t n, const struct feed *f)
{
	struct sword *v = roz_calloc(n, sizeof(*v));
	size_t plain = last_cmd(p), variant = NONE, m = 0, top;

	if (!v) {
		shell_nomem(p);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *a = w[i].s;

		if (i && !strcmp(a, "--")) {
			memcpy(v + m, w + i, (n - i) * sizeof(*v));
			m += n - i;
			break;
		}
		if (i && gh_repo_flag(a)) {
			i++;
			continue;
		}
		if (i && (!strncmp(a, "--repo=", 7) || (!strncmp(a, "-R", 2) && a[2])))
			continue;
		v[m++] = w[i];
	}
	if (m < n)
		variant = emit_as(p, "gh", NULL, 0, v + 1, m - 1, f);
	for (top = 1; top < m && v[top].s[0] == '-'; top++)
		;
	if (top < m && !v[top].info.parts) {
		const char *cmd = v[top].s;

		if (!bsearch(cmd, gh_commands, sizeof(gh_commands) / sizeof(gh_commands[0]),
			     sizeof(gh_commands[0]), word_cmp)) {
			set_opaque(p, plain, "a gh command roz does not know, which could be an alias or extension");
			set_opaque(p, variant, "a gh command roz does not know, which could be an alias or extension");
		} else if (!strcmp(cmd, "api")) {
			gh_api(p, v + top, m - top, f, plain);
		} else if (!strcmp(cmd, "alias")) {
			gh_alias(p, v + top, m - top);
		} else if (!strcmp(cmd, "extension") && top + 1 < m && !strcmp(v[top + 1].s, "exec")) {
			set_opaque(p, plain, "a gh extension");
		}
	}
	roz_free(v);
}

/* ---- once the whole line is read ------------------------------------------- */

/* Variables naming a command git runs through a shell. */
static const char git_command_vars[][20] = {
	"GIT_ASKPASS", "GIT_EDITOR", "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF", "GIT_PAGER",
	"GIT_PROXY_COMMAND", "GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND",
};

/* Variables that point git at other configuration (GIT_CONFIG* is shell_settle's). */
static const char git_config_vars[][18] = {
	"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_DIR",
};

/* Commands whose words can hold NAME=value that reaches the commands they run. */
static const char assigners[][9] = {"declare", "doas", "env", "export", "local", "readonly",
					"sudo", "time", "typeset"};

/* A file that is git configuration. */
static bool git_config_path(const char *s)
{
	const char *base = strrchr(s, '/');

	base = base ? base + 1 : s;
	return ends_with(s, "gitconfig") || strstr(s, ".config/git/") ||
	       ((!strcmp(base, "config") || !strcmp(base, "config.worktree")) &&
		(strstr(s, ".git/") || !strncmp(s, "$GIT_DIR", 8)));
}

/* Command c as sword, for the subcommand rules; NULL when out of memory. */
static struct sword *as_swords(struct parser *p, const roz_shell_cmd *c)
{
	struct sword *v = roz_calloc(c->nwords ? c->nwords : 1, sizeof(*v));

	if (!v) {
		shell_nomem(p);
		return NULL;
	}
	for (size_t i = 0; i < c->nwords; i++) {
		v[i].s = c->words[i];
		v[i].info = c->info[i];
		v[i].flags = c->info[i].parts ? SW_EXP : 0;
	}
	return v;
}

/*
 * Does git command c change git's configuration for what follows: git
 * config writing a value, or -c reading another file. *opaque: what it
 * sets is not shown (a computed name, an included file, an editor).
 */
static bool git_changes_config(struct parser *p, const roz_shell_cmd *c, bool *opaque)
{
	size_t sub = git_sub_of((const char *const *)c->words, c->nwords), key, val;
	struct sword *v;
	bool writes = false;

	*opaque = false;
	for (size_t k = 1; k + 1 < c->nwords && k < sub; k++)
		if (!strcmp(c->words[k], "-c") &&
		    config_kind(c->words[k + 1], strcspn(c->words[k + 1], "=")) == CFG_INCLUDE)
			writes = *opaque = true;
	if (sub >= c->nwords || strcmp(c->words[sub], "config"))
		return writes;
	if (!(v = as_swords(p, c)))
		return false;
	if (config_writes(v + sub, c->nwords - sub, &key, &val)) {
		enum cfg kind;

		key += sub;
		kind = key >= c->nwords || c->info[key].parts
			       ? CFG_INCLUDE
			       : config_kind(c->words[key], strlen(c->words[key]));
		/*
		 * Only an alias, or more configuration read from a file, can turn
		 * a later subcommand into another: `git config user.email x &&
		 * git commit` still commits.
		 */
		writes = kind == CFG_ALIAS || kind == CFG_INCLUDE;
		*opaque = kind == CFG_INCLUDE;
	}
	roz_free(v);
	return writes;
}

static bool is_git(const roz_shell_cmd *c)
{
	return !strcmp(c->words[0], "git");
}

static bool is_git_config(const roz_shell_cmd *c)
{
	size_t sub = git_sub_of((const char *const *)c->words, c->nwords);

	return is_git(c) && sub < c->nwords && !strcmp(c->words[sub], "config");
}

/* b's words after its name are the last words of a. */
static bool tail_of(const roz_shell_cmd *a, const roz_shell_cmd *b)
{
	if (b->nwords > a->nwords || b->depth != a->depth)
		return false;
	for (size_t k = 1; k < b->nwords; k++)
		if (strcmp(b->words[k], a->words[a->nwords - b->nwords + k]))
			return false;
	return true;
}

/* b is a's variant: the same git run with its global options dropped. */
static bool same_run(const roz_shell_cmd *a, const roz_shell_cmd *b)
{
	return is_git(a) && is_git(b) && tail_of(a, b);
}

/*
 * c is a command the definition d runs or defines itself (git config
 * core.pager 'git log', gh alias set --shell x 'gh pr view'): one level
 * down, its text written inside one of d's words.
 */
static bool own_payload(const roz_shell_result *r, size_t d, const roz_shell_cmd *c)
{
	if (d == NONE || c->depth != r->cmds[d].depth + 1)
		return false;
	for (size_t k = 1; k < r->cmds[d].nwords; k++)
		if (strstr(r->cmds[d].words[k], c->line))
			return true;
	return false;
}

/*
 * NAME=value words of env, export, sudo, ... that name a command git runs:
 * report it. Returns the variables seen this way (a bit each).
 */
static unsigned visible_command_vars(struct parser *p)
{
	size_t ncmds = p->out->ncmds;
	unsigned seen = 0, depth = p->depth;

	for (size_t i = 0; i < ncmds && !p->nomem; i++) {
		roz_shell_cmd *c = &p->out->cmds[i];

		if (!shell_in_words(c->words[0], assigners))
			continue;
		if (i && p->out->cmds[i - 1].wrapper && tail_of(&p->out->cmds[i - 1], c))
			continue; /* sudo env X=y ...: read once, in the outer line */
		for (size_t k = 1; k < p->out->cmds[i].nwords && !p->nomem; k++) {
			c = &p->out->cmds[i];
			for (size_t v = 0; v < WORDS_N(git_command_vars); v++) {
				size_t len = strlen(git_command_vars[v]);
				char *val;

				if (strncmp(c->words[k], git_command_vars[v], len) || c->words[k][len] != '=')
					continue;
				seen |= 1u << v;
				if (!(val = roz_strdup(c->words[k] + len + 1))) {
					shell_nomem(p);
					break;
				}
				p->depth = c->depth;
				run_text(p, val); /* git runs it with sh -c */
				p->depth = depth;
				roz_free(val);
				break;
			}
		}
	}
	return seen;
}

/*
 * What the whole line does to git's and gh's configuration: a command git
 * runs named by a variable whose value the line does not show; git
 * configuration written by git config, a redirection into a config file,
 * -c include.path, or variables pointing git elsewhere, after which a git
 * subcommand can mean something else; gh aliases defined on the line.
 */
void shell_git_settle(struct parser *p)
{
	static const char changed[] = "git configuration changed on this line";
	roz_shell_result *r;
	unsigned seen = visible_command_vars(p);
	size_t known_from = NONE, opaque_from = NONE, writer = NONE, gh_from = NONE, gh_def = NONE, i;
	bool vars = false, hidden_cmd = false;

	if (p->nomem)
		return;
	r = p->out;
	for (size_t v = 0; v < WORDS_N(git_command_vars); v++)
		if (!(seen & (1u << v)) && roz_shell_assigns(r, git_command_vars[v]))
			hidden_cmd = true;
	for (i = 0; i < WORDS_N(git_config_vars); i++)
		vars |= roz_shell_assigns(r, git_config_vars[i]);
	for (i = 0; i < r->nredirs; i++)
		if (git_config_path(r->redirs[i].path))
			known_from = opaque_from = 0; /* a config file written: any git run can change */
	for (i = 0; i < r->ncmds && !p->nomem; i++) {
		roz_shell_cmd *c = &r->cmds[i];
		bool opaque;

		if (vars && is_git(c)) {
			/* variables point git at other configuration: every git run after the first */
			size_t next = i + 1 < r->ncmds && same_run(c, &r->cmds[i + 1]) ? i + 2 : i + 1;

			known_from = known_from < next ? known_from : next;
			vars = false;
		}
		if (writer == NONE && is_git(c) && git_changes_config(p, c, &opaque)) {
			writer = i;
			known_from = known_from < i + 1 ? known_from : i + 1;
			if (opaque)
				opaque_from = opaque_from < i + 1 ? opaque_from : i + 1;
		}
		if (gh_from == NONE && !strcmp(c->words[0], "gh") && c->nwords > 2 &&
		    !strcmp(c->words[1], "alias") &&
		    (!strcmp(c->words[2], "set") || !strcmp(c->words[2], "import"))) {
			gh_def = i;
			gh_from = i + 1;
		}
	}
	for (i = 0; i < r->ncmds; i++) {
		roz_shell_cmd *c = &r->cmds[i];

		if (is_git(c) && hidden_cmd)
			set_opaque(p, i, "a command git takes from a variable the line sets");
		if (is_git(c) && !is_git_config(c) && !own_payload(r, writer, c)) {
			if (known_from != NONE && i >= known_from)
				cap_known(c, 4, changed);
			if (opaque_from != NONE && i >= opaque_from)
				set_opaque(p, i, changed);
		}
		if (!strcmp(c->words[0], "gh") && gh_from != NONE && i >= gh_from &&
		    !(c->nwords > 1 && !strcmp(c->words[1], "alias")) && !own_payload(r, gh_def, c))
			cap_known(c, 3, "a gh alias defined on this line");
	}
}
