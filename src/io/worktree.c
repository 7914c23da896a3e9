/*
 * worktree.c - the working tree as a git tree object, and what changed
 * between two of them (roz/worktree.h).
 */
#include "roz/worktree.h"
#include "roz/file.h"
#include "roz/git_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What git may say: a tree id, or the list of changed files. */
#define TREE_ID_MAX 256u
#define CHANGES_MAX (64u * 1024u * 1024u)

/* Copy the repository's index to `index` (beside it first, then renamed): ROZ_OK also when it has none. */
static int copy_index(const char *root, const char *index)
{
	char *dir = NULL, *src = NULL, *tmp = NULL, block[65536];
	int in = -1, out = -1, rc = ROZ_EIO;

	if ((rc = roz_vcs_git_dir(root, &dir)) < 0)
		return rc == ROZ_ENOMEM ? rc : ROZ_ENOTFOUND;
	rc = ROZ_ENOMEM;
	if (!(src = roz_asprintf("%s/index", dir)) || !(tmp = roz_asprintf("%s.tmp.%ld", index, (long)getpid())))
		goto out;
	rc = ROZ_EIO;
	if ((in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0) {
		/* a repository with nothing staged yet: git starts from an empty index */
		rc = errno == ENOENT ? ROZ_OK : ROZ_EIO;
		if (rc < 0)
			roz_error_set_errno(errno, "%s: cannot open", src);
		goto out;
	}
	if ((out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0) {
		roz_error_set_errno(errno, "%s: cannot create", tmp);
		goto out;
	}
	for (;;) {
		ssize_t n = read(in, block, sizeof block);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			roz_error_set_errno(errno, "%s: cannot read", src);
			goto out;
		}
		if (n == 0)
			break;
		if (roz_file_write_all(out, block, (size_t)n) < 0) {
			roz_error_set_errno(errno, "%s: cannot write", tmp);
			goto out;
		}
	}
	if (close(out) < 0) {
		out = -1;
		roz_error_set_errno(errno, "%s: cannot write", tmp);
		goto out;
	}
	out = -1;
	if (rename(tmp, index) < 0) {
		roz_error_set_errno(errno, "%s: cannot rename", tmp);
		goto out;
	}
	rc = ROZ_OK;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (rc != ROZ_OK && tmp)
		(void)unlink(tmp);
	roz_free(dir);
	roz_free(src);
	roz_free(tmp);
	return rc;
}

/* What git's configuration may say of filter drivers: their names. */
#define FILTERS_MAX (256u * 1024u)
/* Settings that switch a driver off: no program for it, and not needed. */
static const char *const UNFILTER[][2] = {{"clean", ""}, {"process", ""}, {"required", "false"}};
#define NUNFILTER (sizeof UNFILTER / sizeof UNFILTER[0])

typedef struct git_env {
	char **items; /* "NAME=value", owned */
	size_t n, cap;
} git_env;

static void git_env_dispose(git_env *e)
{
	for (size_t i = 0; i < e->n; i++)
		roz_free(e->items[i]);
	roz_free(e->items);
	memset(e, 0, sizeof *e);
}

static int git_env_add(git_env *e, char *item)
{
	if (!item || roz_alloc_array_reserve((void **)&e->items, &e->cap, sizeof *e->items, e->n + 1) < 0) {
		roz_free(item);
		return ROZ_ENOMEM;
	}
	e->items[e->n++] = item;
	return ROZ_OK;
}

/*
 * `git add` runs the clean filter (or filter process) a repository's
 * configuration names for the files its .gitattributes give a driver: a
 * program of the repository's choosing, run inside a hook, that could also
 * make the content it hashes whatever it likes. Each configured driver is
 * switched off through the environment (GIT_CONFIG_COUNT and its
 * GIT_CONFIG_KEY_n/VALUE_n, which take any name): the tree holds the files'
 * bytes as they are.
 */
static int unfilter(const char *root, uint32_t timeout_ms, git_env *e)
{
	static const char *const list[] = {"config", "-z", "--name-only", "--get-regexp", "^filter\\."};
	roz_git_opts o = {NULL, 0, timeout_ms};
	char *text = NULL, **names = NULL;
	size_t len = 0, n = 0, cap = 0, k = 0;
	int rc = roz_git_run(root, &o, list, sizeof list / sizeof list[0], NULL, 0, FILTERS_MAX, &text, &len);

	if (rc == ROZ_ENOMEM || rc == ROZ_ETIMEOUT)
		return rc;
	/* git config exits 1 when nothing matches: no driver to switch off */
	rc = ROZ_OK;
	for (char *p = text; p && p < text + len && rc == ROZ_OK; p += strlen(p) + 1) {
		char *dot = strrchr(p, '.');
		bool seen = false;

		if (strncmp(p, "filter.", 7) != 0 || !dot || dot <= p + 7)
			continue;
		*dot = '\0';
		for (size_t i = 0; i < n && !seen; i++)
			seen = strcmp(names[i], p + 7) == 0;
		if (seen)
			continue;
		if (roz_alloc_array_reserve((void **)&names, &cap, sizeof *names, n + 1) < 0)
			rc = ROZ_ENOMEM;
		else
			names[n++] = p + 7;
	}
	for (size_t i = 0; i < n && rc == ROZ_OK; i++)
		for (size_t j = 0; j < NUNFILTER && rc == ROZ_OK; j++, k++)
			if ((rc = git_env_add(e, roz_asprintf("GIT_CONFIG_KEY_%zu=filter.%s.%s", k, names[i],
							      UNFILTER[j][0]))) == ROZ_OK)
				rc = git_env_add(e, roz_asprintf("GIT_CONFIG_VALUE_%zu=%s", k, UNFILTER[j][1]));
	if (rc == ROZ_OK && k)
		rc = git_env_add(e, roz_asprintf("GIT_CONFIG_COUNT=%zu", k));
	roz_free(names);
	roz_free(text);
	return rc;
}

int roz_worktree_tree(const char *root, const char *index, uint32_t timeout_ms, char out[ROZ_VCS_REVISION_SIZE])
{
	static const char *const add[] = {"add", "-A", "--ignore-errors"};
	static const char *const write_tree[] = {"write-tree"};
	char *text = NULL, *lock = NULL;
	git_env env = {0};
	roz_git_opts o = {NULL, 0, timeout_ms};
	struct stat st;
	size_t len = 0;
	int rc;

	out[0] = '\0';
	if (!index || index[0] != '/') {
		roz_error_set("the index file must be an absolute path");
		return ROZ_EINVALID;
	}
	if (lstat(index, &st) < 0 && (rc = copy_index(root, index)) < 0)
		return rc;
	/* the index is the caller's alone: a lock on it was left by a run killed at its bound */
	if (!(lock = roz_asprintf("%s.lock", index)))
		return ROZ_ENOMEM;
	(void)unlink(lock);
	roz_free(lock);
	if ((rc = git_env_add(&env, roz_asprintf("GIT_INDEX_FILE=%s", index))) < 0 ||
	    (rc = unfilter(root, timeout_ms, &env)) < 0) {
		git_env_dispose(&env);
		return rc;
	}
	o.env = (const char *const *)env.items;
	o.nenv = env.n;
	rc = roz_git_run(root, &o, add, 3, NULL, 0, TREE_ID_MAX, &text, &len);
	roz_free(text);
	text = NULL;
	/* a file that could not be read is left as it was; whatever else git added stands */
	if (rc == ROZ_EIO && lstat(index, &st) == 0)
		rc = ROZ_OK;
	if (rc == ROZ_OK)
		rc = roz_git_run(root, &o, write_tree, 1, NULL, 0, TREE_ID_MAX, &text, &len);
	git_env_dispose(&env);
	if (rc < 0)
		return rc;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = '\0';
	if (len < 40 || len >= ROZ_VCS_REVISION_SIZE || strspn(text, "0123456789abcdef") != len) {
		roz_error_set("git write-tree gave no tree id");
		roz_free(text);
		return ROZ_EIO;
	}
	memcpy(out, text, len + 1);
	roz_free(text);
	return ROZ_OK;
}

static bool hex_id(const char *s, size_t len)
{
	return len >= 40 && len < ROZ_VCS_REVISION_SIZE && strspn(s, "0123456789abcdef") >= len;
}

static bool all_zero(const char *s, size_t len)
{
	return strspn(s, "0") >= len;
}

/* One raw record ":om nm oid oid X[score]": the new mode, the new id and the status letter. */
typedef struct raw_rec {
	uint32_t old_mode, new_mode;
	const char *new_id;
	size_t id_len;
	char status;
} raw_rec;

static int parse_raw(char *p, raw_rec *r)
{
	char *f[5], *save = NULL;
	size_t k = 0;

	if (*p != ':')
		return ROZ_EINVALID;
	for (char *t = strtok_r(p + 1, " ", &save); t && k < 5; t = strtok_r(NULL, " ", &save))
		f[k++] = t;
	if (k != 5)
		return ROZ_EINVALID;
	r->old_mode = (uint32_t)strtoul(f[0], NULL, 8);
	r->new_mode = (uint32_t)strtoul(f[1], NULL, 8);
	r->new_id = f[3];
	r->id_len = strlen(f[3]);
	r->status = f[4][0];
	return hex_id(f[2], strlen(f[2])) && hex_id(f[3], r->id_len) ? ROZ_OK : ROZ_EINVALID;
}

static int diff_tree(const char *root, const char *from, const char *to, uint32_t timeout_ms, bool stat,
		     char **text, size_t *len)
{
	/* the file list, or with line counts and renames paired */
	const char *list[] = {"diff-tree", "-r", "-z", "--raw", "--no-renames", from, to};
	const char *counts[] = {"diff-tree", "-r", "-z", "--raw", "-M", "--numstat", "--no-ext-diff", "--no-textconv",
				from, to};
	/* two trees need no index, and reading the repository's costs as much as the diff (1 MB at 10,000 files) */
	static const char *const no_index[] = {"GIT_INDEX_FILE=/nonexistent/roz-no-index"};
	roz_git_opts o = {no_index, 1, timeout_ms};

	if (!hex_id(from, strlen(from)) || !hex_id(to, strlen(to))) {
		roz_error_set("not a tree id");
		return ROZ_EINVALID;
	}
	return stat ? roz_git_run(root, &o, counts, sizeof counts / sizeof counts[0], NULL, 0, CHANGES_MAX, text, len)
		    : roz_git_run(root, &o, list, sizeof list / sizeof list[0], NULL, 0, CHANGES_MAX, text, len);
}

int roz_worktree_changes(const char *root, const char *from, const char *to, uint32_t timeout_ms,
			 roz_fingerprint *fp)
{
	char *text = NULL, *p, *end;
	size_t len = 0;
	int rc;

	if (strcmp(from, to) == 0)
		return ROZ_OK;
	if ((rc = diff_tree(root, from, to, timeout_ms, false, &text, &len)) < 0)
		return rc;
	for (p = text, end = text + len; p < end;) {
		size_t hl = strlen(p);
		char *path = p + hl + 1;
		raw_rec r;

		if (path >= end || (rc = parse_raw(p, &r)) < 0) {
			roz_error_set("git diff-tree said what roz cannot read");
			rc = ROZ_EIO;
			break;
		}
		p = path + strlen(path) + 1;
		r.new_id = all_zero(r.new_id, r.id_len) ? "" : r.new_id;
		if ((rc = roz_fingerprint_put(fp, path, r.new_id, *r.new_id ? r.new_mode : 0)) < 0)
			break;
	}
	roz_free(text);
	return rc < 0 ? rc : ROZ_OK;
}

void roz_worktree_stats_free(roz_worktree_stat *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		roz_free(s[i].path);
		roz_free(s[i].from);
	}
	roz_free(s);
}

int roz_worktree_numstat(const char *root, const char *from, const char *to, uint32_t timeout_ms, size_t max,
			 roz_worktree_stat **out, size_t *n, size_t *more)
{
	roz_worktree_stat *v = NULL;
	size_t nv = 0, cap = 0, nraw = 0, at = 0;
	char *text = NULL, *p, *end;
	size_t len = 0;
	int rc = ROZ_OK;

	*out = NULL;
	*n = *more = 0;
	if (strcmp(from, to) == 0)
		return ROZ_OK;
	if ((rc = diff_tree(root, from, to, timeout_ms, true, &text, &len)) < 0)
		return rc;
	/* the raw records first (a rename's names follow its record), then one count per record */
	for (p = text, end = text + len; p < end && *p == ':';) {
		char *a = p + strlen(p) + 1, *b = NULL;
		roz_worktree_stat *s;
		raw_rec r;

		if (a >= end || parse_raw(p, &r) < 0)
			goto bad;
		p = a + strlen(a) + 1;
		if (r.status == 'R' || r.status == 'C') {
			if (p >= end)
				goto bad;
			b = p;
			p = b + strlen(b) + 1;
		}
		nraw++;
		if (max && nv >= max) {
			(*more)++;
			continue;
		}
		if ((rc = roz_alloc_array_reserve((void **)&v, &cap, sizeof *v, nv + 1)) < 0)
			goto out;
		s = &v[nv++];
		memset(s, 0, sizeof *s);
		s->status = r.status == 'C' ? 'A' : r.status;
		if (!(s->path = roz_strdup(b ? b : a)) || (b && !(s->from = roz_strdup(a)))) {
			rc = ROZ_ENOMEM;
			goto out;
		}
	}
	/* "added<TAB>removed<TAB>path\0", or for a rename "added<TAB>removed<TAB>\0old\0new\0" */
	for (; p < end && at < nraw; at++) {
		char *q = p, *tab1 = strchr(q, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;

		if (!tab2)
			goto bad;
		p = q + strlen(q) + 1;
		if (!tab2[1]) /* a rename: its two names follow */
			for (int k = 0; k < 2 && p < end; k++)
				p += strlen(p) + 1;
		if (at >= nv)
			continue;
		if (q[0] == '-') {
			v[at].binary = true;
		} else {
			v[at].added = strtoull(q, NULL, 10);
			v[at].removed = strtoull(tab1 + 1, NULL, 10);
		}
	}
	*out = v;
	*n = nv;
	v = NULL;
	nv = 0;
	goto out;
bad:
	roz_error_set("git diff-tree said what roz cannot read");
	rc = ROZ_EIO;
out:
	roz_worktree_stats_free(v, nv);
	roz_free(text);
	return rc < 0 ? rc : ROZ_OK;
}
