/*
 * test_worktree.c - the working tree as a git tree object, and what changed
 * between two of them (roz/worktree.h), and roz_git_run's options
 * (roz/git_run.h). Real git in throwaway repositories: the ids are checked
 * against what git itself writes for the same files, and the repository's
 * own index (the person's staging) against its bytes before.
 */
#include "agent_git.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "roz/git_run.h"
#include "roz/worktree.h"

#define EMPTY_TREE "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

/* A repository at <world>/<name> with a.txt and a .gitignore of "*.log" and "build/", committed. */
static char *plain_repo(const ag_world *w, const char *name)
{
	char *root = ag_at(w, name);

	t_put(root, "a.txt", "one\ntwo\nthree\n");
	t_put(root, ".gitignore", "*.log\nbuild/\n");
	ag_sh(root, "git init -q && git add -A && git commit -qm base");
	return root;
}

/* roz's private index for a repository: <world>/<tag>.index */
static char *index_for(const ag_world *w, const char *tag)
{
	return t_sprintf("%s/%s.index", w->dir, tag);
}

static void tree_of(const char *root, const char *index, char out[ROZ_VCS_REVISION_SIZE])
{
	int rc = roz_worktree_tree(root, index, 10000, out);

	if (rc != ROZ_OK)
		fail_msg("roz_worktree_tree(%s) = %d: %s", root, rc, roz_error_last());
	assert_int_equal(strlen(out), 40);
}

/* The blob id git gives the file at dir/rel. */
static char *blob_of(const char *dir, const char *rel)
{
	return ag_sh_line(dir, "git hash-object -- '%s'", rel);
}

static void changes(const char *root, const char *from, const char *to, roz_fingerprint *fp)
{
	int rc;

	memset(fp, 0, sizeof *fp);
	rc = roz_worktree_changes(root, from, to, 10000, fp);
	if (rc != ROZ_OK)
		fail_msg("roz_worktree_changes = %d: %s", rc, roz_error_last());
}

static const roz_fp_file *fp_find(const roz_fingerprint *fp, const char *path)
{
	for (size_t i = 0; i < fp->n; i++)
		if (strcmp(fp->items[i].path, path) == 0)
			return &fp->items[i];
	return NULL;
}

static void expect_file(const roz_fingerprint *fp, const char *path, const char *hash, uint32_t mode)
{
	const roz_fp_file *f = fp_find(fp, path);

	if (!f)
		fail_msg("%s is not among the %zu changes", path, fp->n);
	if (strcmp(f->hash, hash) != 0 || f->mode != mode)
		fail_msg("%s: hash '%s' mode %o, expected '%s' mode %o", path, f->hash, (unsigned)f->mode, hash,
			 (unsigned)mode);
}

/* The paths of a tree, a line each (sorted, as git lists them). */
static char *ls_tree(const char *root, const char *tree)
{
	char *cmd = t_sprintf("cd '%s' && git ls-tree -r --name-only %s", root, tree);
	FILE *p = popen(cmd, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(p);
	assert_non_null(buf);
	n = fread(buf, 1, 65535, p);
	buf[n] = '\0';
	assert_int_equal(pclose(p), 0);
	free(cmd);
	return buf;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* The whole of a file, which must exist. */
static char *slurp(const char *path, size_t *len)
{
	char *t = t_read_file(path, len);

	if (!t)
		fail_msg("cannot read %s", path);
	return t;
}

static void expect_same_bytes(const char *path, const char *before, size_t blen)
{
	size_t alen;
	char *after = slurp(path, &alen);

	if (alen != blen || memcmp(before, after, blen) != 0)
		fail_msg("%s changed (%zu bytes before, %zu after)", path, blen, alen);
	free(after);
}

/* ---- the tree ------------------------------------------------------------------------------- */

static void test_tree_is_git_write_tree_of_everything_staged(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *idx = index_for(w, "r"), *copy = ag_at(w, "copy"), *want, *paths;
	char tree[ROZ_VCS_REVISION_SIZE];

	t_put(root, "a.txt", "one\nTWO\nthree\n");
	t_put(root, "new/untracked.c", "int x;\n");
	t_put(root, "debug.log", "ignored\n");
	t_put(root, "build/out.o", "ignored too\n");
	tree_of(root, idx, tree);

	/* what git writes when a person stages everything in a copy */
	ag_sh(w->dir, "cp -a r copy");
	ag_sh(copy, "git add -A");
	want = ag_sh_line(copy, "git write-tree");
	assert_string_equal(tree, want);

	paths = ls_tree(root, tree);
	assert_true(has_line(paths, "a.txt"));
	assert_true(has_line(paths, ".gitignore"));
	assert_true(has_line(paths, "new/untracked.c"));
	assert_false(has_line(paths, "debug.log"));
	assert_false(has_line(paths, "build/out.o"));

	/* looked at again with nothing changed: the same id, through the kept index */
	{
		char again[ROZ_VCS_REVISION_SIZE];

		tree_of(root, idx, again);
		assert_string_equal(again, tree);
	}
	free(paths);
	free(want);
	free(copy);
	free(idx);
	free(root);
}

static void test_the_persons_index_and_status_untouched(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *idx = index_for(w, "r"), *gi = t_at(root, ".git/index");
	char *st0, *st1, *cached0, *cached1, *before;
	char tree[ROZ_VCS_REVISION_SIZE];
	size_t blen;
	struct stat sb0, sb1;

	/* the person staged one change and left another unstaged, plus an untracked file */
	t_put(root, "a.txt", "one\nstaged\nthree\n");
	ag_sh(root, "git add a.txt");
	t_put(root, "a.txt", "one\nstaged\nthree\nunstaged\n");
	t_put(root, "u.txt", "untracked\n");
	st0 = ag_sh_line(root, "git status --porcelain | tr '\\n' '|'");
	cached0 = ag_sh_line(root, "git diff --cached | sha256sum");
	before = slurp(gi, &blen);
	assert_int_equal(stat(gi, &sb0), 0);

	tree_of(root, idx, tree);
	t_put(root, "v.txt", "another\n");
	tree_of(root, idx, tree);

	expect_same_bytes(gi, before, blen);
	assert_int_equal(stat(gi, &sb1), 0);
	assert_int_equal(sb0.st_ino, sb1.st_ino); /* not even replaced by the same bytes */
	cached1 = ag_sh_line(root, "git diff --cached | sha256sum");
	assert_string_equal(cached0, cached1);
	ag_sh(root, "rm v.txt");
	st1 = ag_sh_line(root, "git status --porcelain | tr '\\n' '|'");
	assert_string_equal(st0, st1);
	assert_non_null(strstr(st0, "MM a.txt"));
	/* no lock was left behind */
	{
		char *lock = t_at(root, ".git/index.lock");

		assert_int_not_equal(access(lock, F_OK), 0);
		free(lock);
	}

	free(st0);
	free(st1);
	free(cached0);
	free(cached1);
	free(before);
	free(gi);
	free(idx);
	free(root);
}

static void test_an_inherited_git_index_file_does_not_reach_the_repository(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *idx = index_for(w, "r"), *gi = t_at(root, ".git/index"), *before;
	char tree[ROZ_VCS_REVISION_SIZE];
	size_t blen;

	before = slurp(gi, &blen);
	/* roz was started with GIT_INDEX_FILE naming the person's index (a hook run inside a git hook) */
	setenv("GIT_INDEX_FILE", gi, 1);
	t_put(root, "b.txt", "new\n");
	tree_of(root, idx, tree);
	unsetenv("GIT_INDEX_FILE");
	expect_same_bytes(gi, before, blen);
	{
		char *paths = ls_tree(root, tree);

		assert_true(has_line(paths, "b.txt"));
		free(paths);
	}
	free(before);
	free(gi);
	free(idx);
	free(root);
}

/* ---- changes -------------------------------------------------------------------------------- */

static void test_changes_of_each_kind(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *idx = index_for(w, "r"), *h;
	char base[ROZ_VCS_REVISION_SIZE], now[ROZ_VCS_REVISION_SIZE];
	roz_fingerprint fp;

	t_put(root, "gone.txt", "to be removed\n");
	t_put(root, "old-name.txt", "moves\n");
	t_put(root, "tool.sh", "echo hi\n");
	t_put(root, "keep.txt", "kept\n");
	ag_sh(root, "git add -A && git commit -qm more");
	tree_of(root, idx, base);

	t_put(root, "a.txt", "one\ntwo\nthree\nfour\n");   /* modified */
	t_put(root, "added/new.txt", "new\n");             /* added, untracked */
	ag_sh(root, "rm gone.txt");                        /* deleted */
	ag_sh(root, "git mv old-name.txt new-name.txt");   /* renamed (staged by the person, too) */
	ag_sh(root, "chmod +x tool.sh");                   /* mode */
	ag_sh(root, "ln -s keep.txt link");                /* a symbolic link */
	tree_of(root, idx, now);
	assert_string_not_equal(base, now);
	changes(root, base, now, &fp);

	assert_int_equal(fp.n, 7);
	for (size_t i = 1; i < fp.n; i++)
		assert_true(strcmp(fp.items[i - 1].path, fp.items[i].path) < 0);
	h = blob_of(root, "a.txt");
	expect_file(&fp, "a.txt", h, 0100644);
	free(h);
	h = blob_of(root, "added/new.txt");
	expect_file(&fp, "added/new.txt", h, 0100644);
	free(h);
	expect_file(&fp, "gone.txt", "", 0);
	expect_file(&fp, "old-name.txt", "", 0);
	h = blob_of(root, "new-name.txt");
	expect_file(&fp, "new-name.txt", h, 0100644);
	free(h);
	h = blob_of(root, "tool.sh");
	expect_file(&fp, "tool.sh", h, 0100755);
	free(h);
	h = ag_sh_line(root, "printf %%s keep.txt | git hash-object --stdin");
	expect_file(&fp, "link", h, 0120000);
	free(h);
	assert_null(fp_find(&fp, "keep.txt"));
	roz_fingerprint_dispose(&fp);

	/* the same tree both sides: nothing, and git is not asked */
	changes(root, now, now, &fp);
	assert_int_equal(fp.n, 0);
	roz_fingerprint_dispose(&fp);
	changes(root, base, base, &fp);
	assert_int_equal(fp.n, 0);
	roz_fingerprint_dispose(&fp);

	/* the other way round: what was added is gone, what was removed is back */
	changes(root, now, base, &fp);
	expect_file(&fp, "added/new.txt", "", 0);
	expect_file(&fp, "link", "", 0);
	h = ag_sh_line(root, "git rev-parse HEAD:gone.txt");
	expect_file(&fp, "gone.txt", h, 0100644);
	free(h);
	h = ag_sh_line(root, "git rev-parse HEAD:tool.sh");
	expect_file(&fp, "tool.sh", h, 0100644);
	free(h);
	roz_fingerprint_dispose(&fp);

	/* a change undone: the tree is the baseline's again */
	{
		char back[ROZ_VCS_REVISION_SIZE];

		ag_sh(root, "git mv new-name.txt old-name.txt && chmod -x tool.sh && rm -r link added "
			    "&& git checkout -q -- a.txt gone.txt");
		tree_of(root, idx, back);
		assert_string_equal(back, base);
	}

	/* not tree ids */
	memset(&fp, 0, sizeof fp);
	assert_int_equal(roz_worktree_changes(root, "HEAD", now, 1000, &fp), ROZ_EINVALID);
	assert_int_equal(roz_worktree_changes(root, base, "--output=/tmp/x", 1000, &fp), ROZ_EINVALID);
	assert_int_equal(fp.n, 0);
	roz_fingerprint_dispose(&fp);
	free(idx);
	free(root);
}

/* ---- numstat -------------------------------------------------------------------------------- */

static const roz_worktree_stat *stat_find(const roz_worktree_stat *s, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].path, path) == 0)
			return &s[i];
	return NULL;
}

static void test_numstat_counts_pairs_renames_flags_binaries(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *idx = index_for(w, "r");
	char base[ROZ_VCS_REVISION_SIZE], now[ROZ_VCS_REVISION_SIZE];
	roz_worktree_stat *s = NULL;
	const roz_worktree_stat *x;
	size_t n = 0, more = 0;

	t_put(root, "big.txt", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n");
	t_put(root, "gone.txt", "x\ny\n");
	ag_sh(root, "printf 'bin\\000ary\\001' > bin.dat && git add -A && git commit -qm more");
	tree_of(root, idx, base);

	t_put(root, "a.txt", "one\nTWO\nthree\nfour\n"); /* +2 -1 */
	ag_sh(root, "mv big.txt moved.txt");             /* an untracked rename: -M pairs it */
	ag_sh(root, "printf 'bin\\000ary\\002' > bin.dat");
	t_put(root, "new.txt", "n1\nn2\nn3\n");
	ag_sh(root, "rm gone.txt");
	tree_of(root, idx, now);

	assert_int_equal(roz_worktree_numstat(root, base, now, 10000, 0, &s, &n, &more), ROZ_OK);
	assert_int_equal(n, 5);
	assert_int_equal(more, 0);
	x = stat_find(s, n, "a.txt");
	assert_non_null(x);
	assert_int_equal(x->status, 'M');
	assert_false(x->binary);
	assert_int_equal(x->added, 2);
	assert_int_equal(x->removed, 1);
	assert_null(x->from);
	x = stat_find(s, n, "moved.txt");
	assert_non_null(x);
	assert_int_equal(x->status, 'R');
	assert_non_null(x->from);
	assert_string_equal(x->from, "big.txt");
	assert_int_equal(x->added, 0);
	assert_int_equal(x->removed, 0);
	assert_null(stat_find(s, n, "big.txt"));
	x = stat_find(s, n, "bin.dat");
	assert_non_null(x);
	assert_true(x->binary);
	assert_int_equal(x->status, 'M');
	x = stat_find(s, n, "new.txt");
	assert_non_null(x);
	assert_int_equal(x->status, 'A');
	assert_int_equal(x->added, 3);
	assert_int_equal(x->removed, 0);
	x = stat_find(s, n, "gone.txt");
	assert_non_null(x);
	assert_int_equal(x->status, 'D');
	assert_int_equal(x->added, 0);
	assert_int_equal(x->removed, 2);
	roz_worktree_stats_free(s, n);

	/* at most two: the rest counted */
	assert_int_equal(roz_worktree_numstat(root, base, now, 10000, 2, &s, &n, &more), ROZ_OK);
	assert_int_equal(n, 2);
	assert_int_equal(more, 3);
	for (size_t i = 0; i < n; i++) {
		/* each kept entry carries its own counts, not a later one's */
		if (strcmp(s[i].path, "a.txt") == 0) {
			assert_int_equal(s[i].added, 2);
			assert_int_equal(s[i].removed, 1);
		}
	}
	roz_worktree_stats_free(s, n);

	/* the same tree: nothing */
	assert_int_equal(roz_worktree_numstat(root, now, now, 10000, 0, &s, &n, &more), ROZ_OK);
	assert_int_equal(n, 0);
	assert_null(s);
	free(idx);
	free(root);
}

static void test_changes_of_unusual_names(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *idx = index_for(w, "r");
	char base[ROZ_VCS_REVISION_SIZE], now[ROZ_VCS_REVISION_SIZE];
	static const char *const names[] = {"with space.txt", "tab\there.txt", "new\nline.txt", "\xc3\xbcn\xc3\xaf.txt",
					    "-dash.txt", ":colon.txt", "quote\"d.txt"};
	roz_fingerprint fp;
	roz_worktree_stat *s = NULL;
	size_t n = 0, more = 0;

	tree_of(root, idx, base);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		t_put(root, names[i], "one line\n");
	tree_of(root, idx, now);
	changes(root, base, now, &fp);
	assert_int_equal(fp.n, sizeof names / sizeof names[0]);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const roz_fp_file *f = fp_find(&fp, names[i]);

		if (!f)
			fail_msg("'%s' is not among the changes", names[i]);
		assert_int_equal(f->mode, 0100644);
		assert_int_equal(strlen(f->hash), 40);
	}
	roz_fingerprint_dispose(&fp);
	assert_int_equal(roz_worktree_numstat(root, base, now, 10000, 0, &s, &n, &more), ROZ_OK);
	assert_int_equal(n, sizeof names / sizeof names[0]);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const roz_worktree_stat *x = stat_find(s, n, names[i]);

		if (!x)
			fail_msg("'%s' is not among the counts", names[i]);
		assert_int_equal(x->status, 'A');
		assert_int_equal(x->added, 1);
		assert_int_equal(x->removed, 0);
	}
	roz_worktree_stats_free(s, n);
	free(idx);
	free(root);
}

/* ---- where the repository is ---------------------------------------------------------------- */

static void test_a_linked_worktree_with_its_own_index(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *wt = ag_at(w, "wt"), *idx = index_for(w, "wt");
	char *main_index = t_at(root, ".git/index"), *wt_index, *m0, *w0, *gitfile, *h, *want;
	char base[ROZ_VCS_REVISION_SIZE], now[ROZ_VCS_REVISION_SIZE];
	size_t mlen, wlen;
	roz_fingerprint fp;
	struct stat st;

	/* the worktree's branch differs from main's */
	ag_sh(root, "git worktree add -q ../wt -b side");
	t_put(wt, "side.txt", "only on side\n");
	ag_sh(wt, "git add side.txt && git commit -qm side");
	gitfile = t_at(wt, ".git");
	assert_int_equal(lstat(gitfile, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	wt_index = ag_sh_line(wt, "git rev-parse --path-format=absolute --git-path index");
	m0 = slurp(main_index, &mlen);
	w0 = slurp(wt_index, &wlen);

	tree_of(wt, idx, base);
	want = ag_sh_line(wt, "git rev-parse 'HEAD^{tree}'");
	assert_string_equal(base, want); /* a clean worktree: its HEAD's tree, side.txt and all */
	t_put(wt, "a.txt", "changed in the worktree\n");
	t_put(wt, "fresh.txt", "untracked in the worktree\n");
	tree_of(wt, idx, now);
	changes(wt, base, now, &fp);
	assert_int_equal(fp.n, 2);
	h = blob_of(wt, "a.txt");
	expect_file(&fp, "a.txt", h, 0100644);
	free(h);
	h = blob_of(wt, "fresh.txt");
	expect_file(&fp, "fresh.txt", h, 0100644);
	free(h);
	roz_fingerprint_dispose(&fp);

	expect_same_bytes(main_index, m0, mlen);
	expect_same_bytes(wt_index, w0, wlen);
	/* the main worktree is not what was looked at */
	{
		char *s = ag_sh_line(root, "git status --porcelain | wc -l");

		assert_string_equal(s, "0");
		free(s);
	}
	free(want);
	free(m0);
	free(w0);
	free(gitfile);
	free(wt_index);
	free(main_index);
	free(idx);
	free(wt);
	free(root);
}

static void test_a_fresh_repository_with_no_commit_and_no_index(void **state)
{
	ag_world *w = *state;
	char *root = ag_at(w, "fresh"), *idx = index_for(w, "fresh"), *gi, *paths, *h;
	char empty[ROZ_VCS_REVISION_SIZE], tree[ROZ_VCS_REVISION_SIZE];
	roz_fingerprint fp;

	assert_int_equal(mkdir(root, 0700), 0);
	ag_sh(root, "git init -q");
	gi = t_at(root, ".git/index");
	assert_int_not_equal(access(gi, F_OK), 0);

	tree_of(root, idx, empty);
	assert_string_equal(empty, EMPTY_TREE);
	t_put(root, "first.txt", "the first file\n");
	t_put(root, "x.log", "ignored? no: no .gitignore here\n");
	tree_of(root, idx, tree);
	paths = ls_tree(root, tree);
	assert_true(has_line(paths, "first.txt"));
	assert_true(has_line(paths, "x.log"));
	changes(root, empty, tree, &fp);
	assert_int_equal(fp.n, 2);
	h = blob_of(root, "first.txt");
	expect_file(&fp, "first.txt", h, 0100644);
	free(h);
	roz_fingerprint_dispose(&fp);
	/* the repository still has no index of its own, nor any commit */
	assert_int_not_equal(access(gi, F_OK), 0);
	{
		char *n = ag_sh_line(root, "git rev-list --all | wc -l");

		assert_string_equal(n, "0");
		free(n);
	}
	free(paths);
	free(gi);
	free(idx);
	free(root);
}

static void test_not_a_repository(void **state)
{
	ag_world *w = *state;
	char *dir = ag_at(w, "plain"), *idx = index_for(w, "plain");
	char tree[ROZ_VCS_REVISION_SIZE] = "x";

	assert_int_equal(mkdir(dir, 0700), 0);
	t_put(dir, "f.txt", "not in any repository\n");
	assert_int_equal(roz_worktree_tree(dir, idx, 5000, tree), ROZ_ENOTFOUND);
	assert_string_equal(tree, "");
	assert_int_not_equal(access(idx, F_OK), 0);
	{
		char *missing = ag_at(w, "no-such-dir");

		assert_int_equal(roz_worktree_tree(missing, idx, 5000, tree), ROZ_ENOTFOUND);
		free(missing);
	}
	/* a relative index file is refused */
	assert_int_equal(roz_worktree_tree(dir, "rel.index", 5000, tree), ROZ_EINVALID);
	free(idx);
	free(dir);
}

/* ---- roz_git_run ---------------------------------------------------------------------------- */

static void test_git_run_env_replaces_an_inherited_setting(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *bogus = ag_at(w, "no-such-index"), *real, *text = NULL;
	static const char *const ls[] = {"ls-files"};
	const char *envs[2];
	roz_git_opts o = {envs, 2, 5000};
	size_t len = 0;

	real = t_sprintf("GIT_INDEX_FILE=%s/.git/index", root);
	envs[0] = real;
	envs[1] = "ROZ_TEST_EXTRA=1";
	setenv("GIT_INDEX_FILE", bogus, 1);

	/* inherited: git reads the (missing, so empty) index it names */
	assert_int_equal(roz_git_run(root, NULL, ls, 1, NULL, 0, 4096, &text, &len), ROZ_OK);
	assert_int_equal(len, 0);
	roz_free(text);
	text = NULL;
	/* replaced: the repository's own */
	assert_int_equal(roz_git_run(root, &o, ls, 1, NULL, 0, 4096, &text, &len), ROZ_OK);
	assert_non_null(text);
	assert_string_equal(text, ".gitignore\na.txt\n");
	roz_free(text);
	text = NULL;
	/* once: the setting is not there twice, whichever git would take */
	{
		static const char *const count[] = {"-c", "alias.envc=!env | grep -c '^GIT_INDEX_FILE='", "envc"};

		assert_int_equal(roz_git_run(root, &o, count, 3, NULL, 0, 4096, &text, &len), ROZ_OK);
		assert_string_equal(text, "1\n");
		roz_free(text);
		text = NULL;
	}
	/* the process's own environment is left as it was */
	assert_string_equal(getenv("GIT_INDEX_FILE"), bogus);
	unsetenv("GIT_INDEX_FILE");
	free(real);
	free(bogus);
	free(root);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_git_run_timeout_kills_a_slow_git(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "r"), *text = (char *)"x";
	static const char *const slow[] = {"-c", "alias.slow=!sleep 3", "slow"};
	static const char *const quick[] = {"-c", "alias.quick=!echo done", "quick"};
	roz_git_opts o = {NULL, 0, 200};
	size_t len = 7;
	int64_t t0 = now_ms(), took;
	int rc;

	rc = roz_git_run(root, &o, slow, 3, NULL, 0, 4096, &text, &len);
	took = now_ms() - t0;
	assert_int_equal(rc, ROZ_ETIMEOUT);
	assert_null(text);
	assert_int_equal(len, 0);
	/* well before the 3 s it would take; valgrind (ROZ_UNDER_VALGRIND) is slower to start and wake */
	if (took < 150 || took > (getenv("ROZ_UNDER_VALGRIND") ? 2500 : 1000))
		fail_msg("the slow git was given up on after %lld ms (bound 200 ms)", (long long)took);
	assert_non_null(strstr(roz_error_last(), "200 ms"));

	/* within the bound: its output */
	o.timeout_ms = 5000;
	assert_int_equal(roz_git_run(root, &o, quick, 3, NULL, 0, 4096, &text, &len), ROZ_OK);
	assert_string_equal(text, "done\n");
	roz_free(text);
	free(root);
}

/* ---- the world ------------------------------------------------------------------------------ */

/*
 * The repository's filter drivers do not run (a program of its choosing,
 * inside a hook) and do not decide what is hashed: the tree holds the
 * bytes in the working tree, whatever the driver's name.
 */
static void test_filter_drivers_do_not_run(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "f"), *idx = index_for(w, "f"), *marker = ag_at(w, "FILTER-RAN"), *want, *got;
	char tree[ROZ_VCS_REVISION_SIZE];
	struct stat st;

	ag_sh(root, "git config filter.sneak.clean \"sh -c 'touch %s; echo approved'\" && "
		    "git config filter.sneak.process \"sh -c 'touch %s; cat'\" && "
		    "git config filter.sneak.required true && "
		    "git config 'filter.a=b.c.clean' \"sh -c 'touch %s; cat'\"",
	      marker, marker, marker);
	t_put(root, ".gitattributes", "*.c filter=sneak\n*.h filter=a=b.c\n");
	t_put(root, "x.c", "int x = 1;\n");
	t_put(root, "x.h", "int y;\n");
	tree_of(root, idx, tree);
	assert_int_not_equal(stat(marker, &st), 0);
	/* the bytes of x.c, not what the driver would have said */
	got = ag_sh_line(root, "git ls-tree %s x.c | cut -f1 | cut -d' ' -f3", tree);
	want = ag_sh_line(root, "printf 'int x = 1;\\n' | git hash-object --no-filters --stdin");
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(marker);
	free(idx);
	free(root);
}

/* A look killed at its bound leaves git's lock on the index; the next look is not kept out by it. */
static void test_a_lock_left_on_the_index_does_not_stop_the_next_look(void **state)
{
	ag_world *w = *state;
	char *root = plain_repo(w, "l"), *idx = index_for(w, "l"), *lock = t_sprintf("%s.lock", idx);
	char first[ROZ_VCS_REVISION_SIZE], second[ROZ_VCS_REVISION_SIZE];

	tree_of(root, idx, first);
	t_put(w->dir, "l.index.lock", "");
	t_put(root, "a.txt", "changed\n");
	tree_of(root, idx, second);
	assert_string_not_equal(first, second);
	free(lock);
	free(idx);
	free(root);
}

#define T(f) cmocka_unit_test_setup_teardown(f, ag_world_up, ag_world_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_tree_is_git_write_tree_of_everything_staged),
		T(test_the_persons_index_and_status_untouched),
		T(test_an_inherited_git_index_file_does_not_reach_the_repository),
		T(test_changes_of_each_kind),
		T(test_numstat_counts_pairs_renames_flags_binaries),
		T(test_changes_of_unusual_names),
		T(test_a_linked_worktree_with_its_own_index),
		T(test_a_fresh_repository_with_no_commit_and_no_index),
		T(test_not_a_repository),
		T(test_git_run_env_replaces_an_inherited_setting),
		T(test_git_run_timeout_kills_a_slow_git),
		T(test_filter_drivers_do_not_run),
		T(test_a_lock_left_on_the_index_does_not_stop_the_next_look),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
