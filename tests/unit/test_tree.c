/*
 * test_tree.c - the working-tree snapshot (roz/tree.h) on real directories:
 * what a walk lists and with which fields, what it skips (.git, git's
 * ignore files, the caller's rules) and what it never skips
 * (.orchestration/), its order, its bounds, what it sees change, and the
 * snapshot file: a round trip, and every damaged file read as corrupt.
 */
#include "support.h"
#include "trees.h"

#include "roz/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static void mkdirs(const char *dir, const char *rel)
{
	char *p = t_at(dir, rel), *q;

	for (q = p + strlen(dir) + 1; (q = strchr(q, '/')); q++) {
		*q = '\0';
		mkdir(p, 0700);
		*q = '/';
	}
	assert_int_equal(mkdir(p, 0700) == 0 || access(p, F_OK) == 0, 1);
	free(p);
}

static void link_to(const char *dir, const char *target, const char *rel)
{
	char *p = t_at(dir, rel);

	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static roz_ignore rules(const char *text)
{
	roz_ignore ig;

	assert_int_equal(roz_ignore_parse(text, strlen(text), &ig, NULL), ROZ_OK);
	return ig;
}



static void assert_lists(const char *root, const roz_tree_opts *o, const char *want)
{
	roz_tree t;
	char *got;

	t_tree_walk(root, o, &t);
	got = t_tree_listing(&t);
	assert_string_equal(got, want);
	assert_false(t.truncated);
	free(got);
	roz_tree_dispose(&t);
}

static const roz_tree_entry *find(const roz_tree *t, const char *path)
{
	const roz_tree_entry *e = roz_tree_find(t, path);

	if (!e)
		fail_msg("%s is not in the tree", path);
	return e;
}

static void files_directories_and_links_are_listed_by_lstat(void **state)
{
	const char *d = *state;
	struct stat st;
	roz_tree t;
	char *p;

	t_put(d, "src/main.c", "int main(void) { return 0; }\n");
	t_put(d, "README", "hi\n");
	mkdirs(d, "empty");
	link_to(d, "src", "to-dir");
	link_to(d, "README", "to-file");
	link_to(d, "nowhere", "dangling");
	p = t_at(d, "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	assert_lists(d, NULL, "README\ndangling\nempty\nfifo\nsrc\nsrc/main.c\nto-dir\nto-file\n");

	t_tree_walk(d, NULL, &t);
	assert_true(S_ISREG(find(&t, "README")->mode));
	assert_int_equal(find(&t, "README")->size, 3);
	assert_true(S_ISDIR(find(&t, "src")->mode));
	assert_true(S_ISDIR(find(&t, "empty")->mode));
	assert_true(S_ISFIFO(find(&t, "fifo")->mode));
	/* links are themselves: a link to a directory is not followed */
	assert_true(S_ISLNK(find(&t, "to-dir")->mode));
	assert_null(roz_tree_find(&t, "to-dir/main.c"));
	assert_true(S_ISLNK(find(&t, "to-file")->mode));
	assert_int_equal(find(&t, "to-file")->size, strlen("README"));
	assert_true(S_ISLNK(find(&t, "dangling")->mode));
	/* the fields are lstat's */
	p = t_at(d, "src/main.c");
	assert_int_equal(lstat(p, &st), 0);
	free(p);
	{
		const roz_tree_entry *e = find(&t, "src/main.c");

		assert_int_equal(e->mode, st.st_mode);
		assert_int_equal(e->ino, st.st_ino);
		assert_int_equal(e->nlink, st.st_nlink);
		assert_int_equal(e->size, st.st_size);
		assert_int_equal(e->mtime_ns, (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
		assert_int_equal(e->ctime_ns, (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec);
	}
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(t.dev, st.st_dev);
	/* the root itself is not an entry, and nothing that is not there is found */
	assert_null(roz_tree_find(&t, ""));
	assert_null(roz_tree_find(&t, "src/main.h"));
	assert_null(roz_tree_find(&t, NULL));
	roz_tree_dispose(&t);
	assert_null(t.items);
	assert_int_equal(t.n, 0);
	roz_tree_dispose(&t);
	roz_tree_dispose(NULL);
}

static void a_hard_link_counts_two(void **state)
{
	const char *d = *state;
	char *a = t_at(d, "a"), *b = t_at(d, "b");
	roz_tree t;

	t_put(d, "a", "x");
	assert_int_equal(link(a, b), 0);
	t_tree_walk(d, NULL, &t);
	assert_int_equal(find(&t, "a")->nlink, 2);
	assert_int_equal(find(&t, "b")->nlink, 2);
	assert_int_equal(find(&t, "a")->ino, find(&t, "b")->ino);
	roz_tree_dispose(&t);
	free(a);
	free(b);
}

static void git_directories_and_files_are_skipped_at_any_depth(void **state)
{
	const char *d = *state;

	t_put(d, ".git/HEAD", "ref: refs/heads/main\n");
	t_put(d, ".git/objects/ab/cdef", "blob");
	t_put(d, "sub/.git", "gitdir: ../.git/modules/sub\n");
	t_put(d, "sub/x", "");
	t_put(d, "deep/er/.git/config", "");
	t_put(d, "deep/er/y", "");
	t_put(d, ".gitignore", "");
	assert_lists(d, NULL, ".gitignore\ndeep\ndeep/er\ndeep/er/y\nsub\nsub/x\n");
}

static void the_root_gitignore_and_info_exclude_are_applied(void **state)
{
	const char *d = *state;

	t_put(d, ".gitignore", "# outputs\n*.o\nbuild/\n/top-only\n!keep.o\ndocs/*.html\n");
	t_put(d, ".git/info/exclude", "local-notes\n");
	t_put(d, "a.o", "");
	t_put(d, "keep.o", "");
	t_put(d, "src/b.o", "");
	t_put(d, "src/b.c", "");
	/* dir-only: a directory named build is pruned, a file named build is not */
	t_put(d, "build/out.bin", "");
	t_put(d, "src/build", "a file");
	t_put(d, "top-only", "");
	t_put(d, "src/top-only", "");
	t_put(d, "docs/index.html", "");
	t_put(d, "docs/api/index.html", "");
	t_put(d, "local-notes", "");
	t_put(d, "src/local-notes", "");
	assert_lists(d, NULL,
		     ".gitignore\ndocs\ndocs/api\ndocs/api/index.html\nkeep.o\nsrc\nsrc/b.c\nsrc/build\n"
		     "src/top-only\n");
}

static void nested_gitignores_apply_below_their_directory(void **state)
{
	const char *d = *state;

	t_put(d, ".gitignore", "*.log\ncache/\n");
	/* relative to pkg/: anchored ones at pkg/, the others at any depth under it */
	t_put(d, "pkg/.gitignore", "/only-here\nlib/gen\ntmp-*\n!important.log\n!tmp-keep\n");
	t_put(d, "pkg/only-here", "");
	t_put(d, "pkg/sub/only-here", "");
	t_put(d, "pkg/lib/gen", "");
	t_put(d, "pkg/sub/lib/gen", "");
	t_put(d, "pkg/tmp-a", "");
	t_put(d, "pkg/sub/tmp-b", "");
	t_put(d, "pkg/sub/tmp-keep", "");
	/* the deeper file takes back what the root's ignores; the root's still rules elsewhere */
	t_put(d, "pkg/important.log", "");
	t_put(d, "pkg/other.log", "");
	t_put(d, "important.log", "");
	t_put(d, "only-here", "");
	t_put(d, "tmp-c", "");
	/* a pruned directory's .gitignore is never read: nothing under it comes back */
	t_put(d, "pkg/cache/.gitignore", "!*\n");
	t_put(d, "pkg/cache/data", "");
	assert_lists(d, NULL,
		     ".gitignore\nonly-here\npkg\npkg/.gitignore\npkg/important.log\npkg/lib\npkg/sub\n"
		     "pkg/sub/lib\npkg/sub/lib/gen\npkg/sub/only-here\npkg/sub/tmp-keep\ntmp-c\n");
}

static void an_ignored_directory_is_pruned(void **state)
{
	const char *d = *state;
	roz_tree t;

	t_put(d, ".gitignore", "node_modules/\nvendor\n!vendor/keep\n");
	t_put(d, "node_modules/a/index.js", "");
	t_put(d, "node_modules/b/package.json", "");
	t_put(d, "vendor/keep", "");
	t_put(d, "app.js", "");
	t_tree_walk(d, NULL, &t);
	assert_null(roz_tree_find(&t, "node_modules"));
	assert_null(roz_tree_find(&t, "node_modules/a/index.js"));
	/* git cannot take back a file under an ignored directory, and neither can the walk */
	assert_null(roz_tree_find(&t, "vendor"));
	assert_null(roz_tree_find(&t, "vendor/keep"));
	assert_int_equal(t.n, 2);
	roz_tree_dispose(&t);
}

static void orchestration_is_listed_whatever_the_rules_say(void **state)
{
	const char *d = *state;
	roz_ignore extra = rules(".orchestration\n.orchestration/**\n*.md\n");
	roz_tree_opts o = {.extra = &extra};

	t_put(d, ".gitignore", ".orchestration/\n*.yaml\n*.md\n");
	t_put(d, ".git/info/exclude", ".orchestration\n");
	t_put(d, ".orchestration/active_intents.yaml", "active_intents: []\n");
	t_put(d, ".orchestration/lessons.md", "");
	t_put(d, ".orchestration/sub/.gitignore", "*\n");
	t_put(d, ".orchestration/sub/x.yaml", "");
	t_put(d, "other.yaml", "");
	t_put(d, "sub/.orchestration/y", "");
	t_put(d, "sub/.gitignore", ".orchestration/\n");
	assert_lists(d, &o,
		     ".gitignore\n.orchestration\n.orchestration/active_intents.yaml\n"
		     ".orchestration/lessons.md\n.orchestration/sub\n.orchestration/sub/.gitignore\n"
		     ".orchestration/sub/x.yaml\nsub\nsub/.gitignore\n");
	roz_ignore_dispose(&extra);
}

static void extra_rules_skip_whatever_git_says(void **state)
{
	const char *d = *state;
	roz_ignore extra = rules("secrets/\n*.bin\n/top.txt\n");
	roz_tree_opts o = {.extra = &extra};

	t_put(d, ".gitignore", "!*.bin\n");
	t_put(d, "secrets/key", "");
	t_put(d, "a.bin", "");
	t_put(d, "src/b.bin", "");
	t_put(d, "src/top.txt", "");
	t_put(d, "top.txt", "");
	t_put(d, "src/c", "");
	assert_lists(d, &o, ".gitignore\nsrc\nsrc/c\nsrc/top.txt\n");
	roz_ignore_dispose(&extra);
}

static void rules_fold_case_when_asked(void **state)
{
	const char *d = *state;
	roz_ignore extra = rules("*.TMP\n");
	roz_tree_opts fold = {.extra = &extra, .fold_case = true}, exact = {.extra = &extra};

	t_put(d, ".gitignore", "Build/\n");
	t_put(d, "build/x", "");
	t_put(d, "a.tmp", "");
	t_put(d, ".GIT/config", "");
	assert_lists(d, &fold, ".gitignore\n");
	assert_lists(d, &exact, ".GIT\n.GIT/config\n.gitignore\na.tmp\nbuild\nbuild/x\n");
	roz_ignore_dispose(&extra);
}

static void a_dir_only_rule_does_not_match_a_link(void **state)
{
	const char *d = *state;

	t_put(d, ".gitignore", "out/\n");
	t_put(d, "real/out/x", "");
	link_to(d, "real/out", "out");
	assert_lists(d, NULL, ".gitignore\nout\nreal\n");
}

/*
 * The walk judges names with quick forms of literal and `*suffix` rules;
 * whatever the rule, it must judge every file as roz_ignore_match does.
 */
static void the_walk_judges_files_as_ignore_match_does(void **state)
{
	static const char *text = "*.log\n!keep.log\nlit.txt\n/top\na*c\n*b\nx?z\n[ab]c\n\\#hash\n"
				  "*.tar.gz\nd/*.c\n**/deep.txt\n*.\n.*\n*~\nsub/d/\nq*/\n";
	static const char *names[] = {"x.log", "keep.log", "X.LOG", "lit.txt", "LIT.TXT", "top", "abc", "ac",
				      "cb", "b", "xyz", "xz", "bc", "#hash", "f.tar.gz", "tar.gz", "f.c", "deep.txt",
				      "f.", ".hidden", "e~", "plain", "qq", "lit.txt.bak"};
	static const char *dirs[] = {"", "d/", "sub/", "sub/d/", "e/d/", "qr/"};
	roz_ignore ig = rules(text);

	t_put(*state, ".gitignore", text);
	for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++)
		for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
			char *rel = t_sprintf("%s%s", dirs[k], names[i]);

			t_put(*state, rel, "");
			free(rel);
		}
	for (int fold = 0; fold < 2; fold++) {
		roz_tree_opts o = {.fold_case = fold != 0};
		roz_tree t;

		t_tree_walk(*state, &o, &t);
		for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++)
			for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
				char *rel = t_sprintf("%s%s", dirs[k], names[i]);
				bool listed = roz_tree_find(&t, rel) != NULL;
				bool ignored = roz_ignore_match(&ig, rel, fold != 0);

				if (listed == ignored)
					fail_msg("%s: listed %d, ignored %d (fold %d)", rel, listed, ignored, fold);
				free(rel);
			}
		roz_tree_dispose(&t);
	}
	roz_ignore_dispose(&ig);
}

static void entries_are_in_strcmp_order(void **state)
{
	const char *d = *state;
	const char *names[] = {"a-b", "a/b", "a.b", "a0", "a/c/d", "a/c-e", "B", "ab", "a/ z", "é", "~"};
	roz_tree t;

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		t_put(d, names[i], "");
	/* dozens of siblings, so the larger sort runs too */
	for (int i = 0; i < 40; i++) {
		char *name = t_sprintf("many/%c%d", "zyx-./"[i % 5], 97 - i);

		t_put(d, name, "");
		free(name);
	}
	t_tree_walk(d, NULL, &t);
	assert_true(t.n > 50);
	for (size_t i = 1; i < t.n; i++)
		if (strcmp(t.items[i - 1].path, t.items[i].path) >= 0)
			fail_msg("%s before %s", t.items[i - 1].path, t.items[i].path);
	for (size_t i = 0; i < t.n; i++)
		assert_ptr_equal(roz_tree_find(&t, t.items[i].path), &t.items[i]);
	{
		char *got = t_tree_listing(&t), *cut = strstr(got, "many\n");

		assert_non_null(cut);
		*cut = '\0';
		assert_string_equal(got, "B\na\na-b\na.b\na/ z\na/b\na/c\na/c-e\na/c/d\na0\nab\n");
		free(got);
	}
	roz_tree_dispose(&t);
}

static void a_walk_stops_at_max_entries(void **state)
{
	const char *d = *state;
	roz_tree_opts o = {.max_entries = 0};
	roz_tree all, some;

	t_put(d, "a/1", "");
	t_put(d, "a/2", "");
	t_put(d, "b", "");
	t_put(d, "c/3", "");
	t_tree_walk(d, NULL, &all);
	assert_int_equal(all.n, 6);
	assert_false(all.truncated);
	/* exactly as many as there are: whole */
	o.max_entries = 6;
	t_tree_walk(d, &o, &some);
	assert_int_equal(some.n, 6);
	assert_false(some.truncated);
	roz_tree_dispose(&some);
	/* fewer: the first ones in order, and marked */
	for (size_t max = 1; max < 6; max++) {
		o.max_entries = max;
		t_tree_walk(d, &o, &some);
		assert_int_equal(some.n, max);
		assert_true(some.truncated);
		for (size_t i = 0; i < max; i++)
			assert_string_equal(some.items[i].path, all.items[i].path);
		roz_tree_dispose(&some);
	}
	roz_tree_dispose(&all);
}

static void deeper_than_the_bound_is_not_read(void **state)
{
	const char *d = *state;
	int fd = open(d, O_RDONLY | O_DIRECTORY), next;
	roz_tree t;

	assert_true(fd >= 0);
	for (int i = 0; i < 300; i++) {
		assert_int_equal(mkdirat(fd, "d", 0700), 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(fd);
		fd = next;
	}
	close(fd);
	t_tree_walk(d, NULL, &t);
	assert_int_equal(t.n, 256);
	assert_true(t.truncated);
	assert_int_equal(strlen(t.items[255].path), 256 * 2 - 1);
	roz_tree_dispose(&t);
}

static void paths_longer_than_path_max_are_not_listed(void **state)
{
	const char *d = *state;
	int fd = open(d, O_RDONLY | O_DIRECTORY), next;
	char name[201];
	roz_tree t;

	memset(name, 'n', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	assert_true(fd >= 0);
	/* 25 components of 200 bytes: past PATH_MAX after 20 */
	for (int i = 0; i < 25; i++) {
		assert_int_equal(mkdirat(fd, name, 0700), 0);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(fd);
		fd = next;
	}
	close(fd);
	t_tree_walk(d, NULL, &t);
	assert_true(t.truncated);
	assert_int_equal(t.n, 20);
	for (size_t i = 0; i < t.n; i++)
		assert_true(strlen(t.items[i].path) < 4096);
	roz_tree_dispose(&t);
	/* leave something t_rmtree can remove: nftw stops at PATH_MAX */
	{
		char *cmd = t_sprintf("rm -rf '%s'/n*", d);

		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
}

/* Wait until the clock file times come from has passed `ns`, so a change stamps a later time. */
static void wait_past(int64_t ns)
{
	for (;;) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		if ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec > ns)
			return;
		usleep(1000);
	}
}

static void changes_show_between_two_walks(void **state)
{
	const char *d = *state;
	char *f = t_at(d, "f"), *g = t_at(d, "g");
	struct timespec times[2] = {{1000000000, 5}, {1000000000, 5}};
	roz_tree a, b;

	t_put(d, "f", "one");
	t_put(d, "g", "two");
	t_put(d, "dir/x", "");
	t_tree_walk(d, NULL, &a);
	wait_past(find(&a, "dir")->ctime_ns > find(&a, "f")->ctime_ns ? find(&a, "dir")->ctime_ns
								       : find(&a, "f")->ctime_ns);
	assert_int_equal(chmod(f, 0640), 0);
	t_put(d, "g", "two and more");
	t_put(d, "dir/y", "");
	t_tree_walk(d, NULL, &b);
	/* chmod: mode and ctime, not content */
	assert_int_equal(find(&b, "f")->mode & 07777, 0640);
	assert_int_not_equal(find(&a, "f")->mode, find(&b, "f")->mode);
	assert_true(find(&b, "f")->ctime_ns > find(&a, "f")->ctime_ns);
	assert_int_equal(find(&b, "f")->mtime_ns, find(&a, "f")->mtime_ns);
	assert_int_equal(find(&b, "f")->size, find(&a, "f")->size);
	/* a write: size and mtime */
	assert_int_equal(find(&b, "g")->size, strlen("two and more"));
	assert_true(find(&b, "g")->mtime_ns > find(&a, "g")->mtime_ns);
	/* a new file: the directory's times move */
	assert_true(find(&b, "dir")->mtime_ns > find(&a, "dir")->mtime_ns);
	assert_true(find(&b, "dir")->ctime_ns > find(&a, "dir")->ctime_ns);
	assert_null(roz_tree_find(&a, "dir/y"));
	assert_non_null(roz_tree_find(&b, "dir/y"));
	roz_tree_dispose(&a);
	/* touch to a given time: seen to the nanosecond */
	assert_int_equal(utimensat(AT_FDCWD, f, times, 0), 0);
	t_tree_walk(d, NULL, &a);
	assert_int_equal(find(&a, "f")->mtime_ns, 1000000000000000005LL);
	roz_tree_dispose(&a);
	roz_tree_dispose(&b);
	free(f);
	free(g);
}

static void a_walk_is_stamped_with_the_coarse_clock(void **state)
{
	struct timespec before, after;
	roz_tree t;

	clock_gettime(CLOCK_REALTIME_COARSE, &before);
	t_tree_walk(*state, NULL, &t);
	clock_gettime(CLOCK_REALTIME_COARSE, &after);
	assert_true(t.taken_ns >= (int64_t)before.tv_sec * 1000000000 + before.tv_nsec);
	assert_true(t.taken_ns <= (int64_t)after.tv_sec * 1000000000 + after.tv_nsec);
	assert_int_equal(t.n, 0);
	assert_null(t.items);
	roz_tree_dispose(&t);
}

static void a_root_that_is_not_a_directory_is_refused(void **state)
{
	const char *d = *state;
	char *missing = t_at(d, "missing"), *file = t_at(d, "file");
	roz_tree t;

	t_put(d, "file", "");
	assert_int_equal(roz_tree_walk(missing, NULL, &t), ROZ_ENOTFOUND);
	assert_int_equal(roz_tree_walk(file, NULL, &t), ROZ_ENOTFOUND);
	assert_int_equal(roz_tree_walk("relative/path", NULL, &t), ROZ_EINVALID);
	assert_int_equal(roz_tree_walk(NULL, NULL, &t), ROZ_EINVALID);
	assert_int_equal(roz_tree_walk(d, NULL, NULL), ROZ_EINVALID);
	assert_null(t.items);
	free(missing);
	free(file);
}

/*
 * Run check(d) where directories can be unreadable: as ourselves, or, as
 * root (who reads everything), in a child that became nobody. False when
 * neither can be done.
 */
static bool as_unprivileged(const char *d, int (*check)(const char *))
{
	pid_t pid;
	int status;

	if (geteuid() != 0) {
		int bad = check(d);

		if (bad)
			fail_msg("the walk failed its check %d", bad);
		return true;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(77);
		_exit(check(d));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		return false;
	if (WEXITSTATUS(status) != 0)
		fail_msg("the unprivileged walk failed its check %d", WEXITSTATUS(status));
	return true;
}

static int check_unreadable(const char *d)
{
	roz_tree t;
	int rc = roz_tree_walk(d, NULL, &t), bad = 0;

	if (rc != ROZ_OK)
		return 10;
	/* both listed, neither's contents; the rest all there */
	bad |= !roz_tree_find(&t, "closed") ? 1 : 0;
	bad |= roz_tree_find(&t, "closed/secret") ? 2 : 0;
	bad |= !roz_tree_find(&t, "unsearchable") ? 4 : 0;
	bad |= roz_tree_find(&t, "unsearchable/secret") ? 8 : 0;
	bad |= !roz_tree_find(&t, "open/file") || !roz_tree_find(&t, "z") ? 16 : 0;
	bad |= t.truncated || t.n != 5 ? 32 : 0;
	roz_tree_dispose(&t);
	return bad;
}

static void an_unreadable_directory_is_listed_without_its_contents(void **state)
{
	const char *d = *state;
	char *closed = t_at(d, "closed"), *unsearchable = t_at(d, "unsearchable"), *open_dir = t_at(d, "open");

	t_put(d, "closed/secret", "");
	t_put(d, "unsearchable/secret", "");
	t_put(d, "open/file", "");
	t_put(d, "z", "");
	assert_int_equal(chmod(d, 0755), 0);
	assert_int_equal(chmod(open_dir, 0755), 0);
	assert_int_equal(chmod(closed, 0), 0);
	/* can be read, not searched: its names are there, their stat is not */
	assert_int_equal(chmod(unsearchable, 0444), 0);
	/* nothing of ours is live in the child: under valgrind it would be counted as lost there */
	free(closed);
	free(unsearchable);
	free(open_dir);
	if (!as_unprivileged(d, check_unreadable))
		print_message("skipped: cannot become an unprivileged user\n");
	closed = t_at(d, "closed");
	unsearchable = t_at(d, "unsearchable");
	assert_int_equal(chmod(closed, 0700), 0);
	assert_int_equal(chmod(unsearchable, 0700), 0);
	free(closed);
	free(unsearchable);
}

/* The same entries, and the same snapshot fields unless the two are from different walks. */
static void assert_same_entries(const roz_tree *a, const roz_tree *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->dev, b->dev);
	assert_int_equal(a->truncated, b->truncated);
	for (size_t i = 0; i < a->n; i++)
		t_assert_same_entry(&a->items[i], &b->items[i]);
}

static void assert_same_tree(const roz_tree *a, const roz_tree *b)
{
	assert_same_entries(a, b);
	assert_int_equal(a->taken_ns, b->taken_ns);
	assert_int_equal(a->watch_id, b->watch_id);
	assert_int_equal(a->watch_gen, b->watch_gen);
}

static void a_saved_snapshot_loads_back_the_same(void **state)
{
	const char *d = *state;
	char *tree_dir = t_at(d, "t"), *file = t_at(d, "snap");
	roz_tree_opts o = {.max_entries = 3};
	roz_tree a, b;

	t_put(d, "t/src/a.c", "a");
	t_put(d, "t/src/b.c", "bb");
	t_put(d, "t/README.md", "readme");
	link_to(d, "src", "t/link");
	t_tree_walk(tree_dir, NULL, &a);
	assert_int_equal(roz_tree_save(&a, file), ROZ_OK);
	assert_int_equal(roz_tree_load(file, &b), ROZ_OK);
	assert_same_tree(&a, &b);
	/* a loaded tree saves and loads again */
	assert_int_equal(roz_tree_save(&b, file), ROZ_OK);
	roz_tree_dispose(&b);
	assert_int_equal(roz_tree_load(file, &b), ROZ_OK);
	assert_same_tree(&a, &b);
	assert_ptr_equal(roz_tree_find(&b, "src/b.c"), &b.items[4]);
	roz_tree_dispose(&a);
	roz_tree_dispose(&b);
	/* truncated, and empty */
	t_tree_walk(tree_dir, &o, &a);
	assert_true(a.truncated);
	assert_int_equal(roz_tree_save(&a, file), ROZ_OK);
	assert_int_equal(roz_tree_load(file, &b), ROZ_OK);
	assert_same_tree(&a, &b);
	roz_tree_dispose(&a);
	roz_tree_dispose(&b);
	mkdirs(d, "empty");
	{
		char *empty = t_at(d, "empty");

		t_tree_walk(empty, NULL, &a);
		free(empty);
	}
	assert_int_equal(roz_tree_save(&a, file), ROZ_OK);
	assert_int_equal(roz_tree_load(file, &b), ROZ_OK);
	assert_same_tree(&a, &b);
	assert_null(b.items);
	roz_tree_dispose(&a);
	roz_tree_dispose(&b);
	/* nothing is left beside it */
	{
		char *tmp = t_sprintf("%s.tmp.%ld", file, (long)getpid());

		assert_int_equal(access(tmp, F_OK), -1);
		free(tmp);
	}
	free(tree_dir);
	free(file);
}

static void a_tree_built_by_hand_saves_too(void **state)
{
	const char *d = *state;
	char *file = t_at(d, "snap");
	char p1[] = "a", p2[] = "b/c", p3[] = "b/d";
	roz_tree_entry items[] = {
		{p1, 0100644, 1, 10, 7, -1, 2},
		{p2, 0100600, 3, UINT64_MAX, UINT64_MAX, INT64_MAX, INT64_MIN},
		{p3, 040755, 2, 0, 9, 0, 0},
	};
	roz_tree t = {items, 3, 42, 1234567890123456789LL, false, 77, 99}, u;

	/* its paths are not one block, as a walk's are: they are copied out one by one */
	assert_int_equal(roz_tree_save(&t, file), ROZ_OK);
	assert_int_equal(roz_tree_load(file, &u), ROZ_OK);
	assert_same_tree(&t, &u);
	roz_tree_dispose(&u);
	free(file);
}

/* Save a hand-made tree (save does not judge its paths) and expect load to refuse it. */
static void assert_refused_on_load(const char *file, char **paths, size_t n)
{
	roz_tree_entry items[4];
	roz_tree t = {items, n, 1, 2, false, 0, 0}, u;

	memset(items, 0, sizeof items);
	for (size_t i = 0; i < n; i++)
		items[i].path = paths[i];
	assert_int_equal(roz_tree_save(&t, file), ROZ_OK);
	assert_int_equal(roz_tree_load(file, &u), ROZ_ECORRUPT);
	assert_null(u.items);
	assert_int_equal(u.n, 0);
}

static void paths_out_of_order_or_not_normal_are_corrupt(void **state)
{
	char *file = t_at(*state, "snap");
	char a[] = "a", b[] = "b", dot[] = "a/./b", dots[] = "../x", abs_path[] = "/etc", empty[] = "x//y",
	     trail[] = "x/";
	char *unsorted[] = {b, a}, *twice[] = {a, a}, *bad1[] = {dot}, *bad2[] = {dots}, *bad3[] = {abs_path},
	     *bad4[] = {empty}, *bad5[] = {trail};

	assert_refused_on_load(file, unsorted, 2);
	assert_refused_on_load(file, twice, 2);
	assert_refused_on_load(file, bad1, 1);
	assert_refused_on_load(file, bad2, 1);
	assert_refused_on_load(file, bad3, 1);
	assert_refused_on_load(file, bad4, 1);
	assert_refused_on_load(file, bad5, 1);
	free(file);
}

static void write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void damaged_snapshots_are_corrupt(void **state)
{
	const char *d = *state;
	char *file = t_at(d, "snap"), *bad = t_at(d, "bad"), *text;
	roz_tree t, u;
	size_t len;

	t_put(d, "t/a", "1");
	t_put(d, "t/b/c", "22");
	{
		char *root = t_at(d, "t");

		t_tree_walk(root, NULL, &t);
		free(root);
	}
	assert_int_equal(roz_tree_save(&t, file), ROZ_OK);
	text = t_read_file(file, &len);
	assert_non_null(text);
	assert_true(len > 56);

	/* torn anywhere: every shorter prefix */
	for (size_t cut = 0; cut < len; cut++) {
		write_bytes(bad, text, cut);
		if (roz_tree_load(bad, &u) != ROZ_ECORRUPT)
			fail_msg("a file cut to %zu of %zu bytes loaded", cut, len);
	}
	/* a byte too many */
	{
		char *more = malloc(len + 1);

		memcpy(more, text, len);
		more[len] = '\n';
		write_bytes(bad, more, len + 1);
		assert_int_equal(roz_tree_load(bad, &u), ROZ_ECORRUPT);
		free(more);
	}
	/* any bit flipped anywhere */
	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit += 3) {
			text[i] ^= (char)(1 << bit);
			write_bytes(bad, text, len);
			if (roz_tree_load(bad, &u) != ROZ_ECORRUPT)
				fail_msg("a file with bit %d of byte %zu flipped loaded", bit, i);
			text[i] ^= (char)(1 << bit);
		}
	}
	/* another magic, another version */
	text[0] = 'X';
	write_bytes(bad, text, len);
	assert_int_equal(roz_tree_load(bad, &u), ROZ_ECORRUPT);
	text[0] = 'R';
	text[8] = 1; /* the format before the watcher's stamp */
	write_bytes(bad, text, len);
	assert_int_equal(roz_tree_load(bad, &u), ROZ_ECORRUPT);
	text[8] = 3;
	write_bytes(bad, text, len);
	assert_int_equal(roz_tree_load(bad, &u), ROZ_ECORRUPT);
	text[8] = 2;
	/* the intact one still loads */
	write_bytes(bad, text, len);
	assert_int_equal(roz_tree_load(bad, &u), ROZ_OK);
	assert_same_tree(&t, &u);
	roz_tree_dispose(&u);
	/* something else in its place: empty, a directory, a link, text */
	write_bytes(bad, "", 0);
	assert_int_equal(roz_tree_load(bad, &u), ROZ_ECORRUPT);
	t_put(d, "bad", "ROZTREE is not what this is, and it is long enough to have a header\n");
	assert_int_equal(roz_tree_load(bad, &u), ROZ_ECORRUPT);
	unlink(bad);
	mkdirs(d, "bad");
	assert_int_equal(roz_tree_load(bad, &u), ROZ_ECORRUPT);
	rmdir(bad);
	assert_int_equal(symlink(file, bad), 0);
	assert_int_equal(roz_tree_load(bad, &u), ROZ_ECORRUPT);
	unlink(bad);
	/* nothing there */
	assert_int_equal(roz_tree_load(bad, &u), ROZ_ENOTFOUND);
	assert_null(u.items);
	{
		char *under = t_at(d, "snap/under-a-file");

		assert_int_equal(roz_tree_load(under, &u), ROZ_ENOTFOUND);
		free(under);
	}
	assert_int_equal(roz_tree_load(NULL, &u), ROZ_EINVALID);
	assert_int_equal(roz_tree_load(file, NULL), ROZ_EINVALID);
	roz_tree_dispose(&t);
	free(text);
	free(file);
	free(bad);
}

static void a_save_replaces_the_file_whole(void **state)
{
	const char *d = *state;
	char *file = t_at(d, "snap"), *missing_dir = t_at(d, "no/such/dir/snap");
	roz_tree big, small, u;

	t_put(d, "t/a", "");
	t_put(d, "t/b", "");
	{
		char *root = t_at(d, "t");

		t_tree_walk(root, NULL, &big);
		free(root);
	}
	small = big;
	small.n = 1;
	assert_int_equal(roz_tree_save(&big, file), ROZ_OK);
	assert_int_equal(roz_tree_save(&small, file), ROZ_OK);
	assert_int_equal(roz_tree_load(file, &u), ROZ_OK);
	assert_int_equal(u.n, 1);
	roz_tree_dispose(&u);
	/* no directory to write in */
	assert_int_equal(roz_tree_save(&big, missing_dir), ROZ_EIO);
	assert_int_equal(roz_tree_save(NULL, file), ROZ_EINVALID);
	assert_int_equal(roz_tree_save(&big, NULL), ROZ_EINVALID);
	roz_tree_dispose(&big);
	free(file);
	free(missing_dir);
}

static void every_allocation_failure_is_reported(void **state)
{
	const char *d = *state;
	char *root = t_at(d, "t"), *file = t_at(d, "snap");
	roz_tree good, t;
	long n;
	int rc;

	t_put(d, "t/.gitignore", "*.o\n");
	t_put(d, "t/.git/info/exclude", "x\n");
	t_put(d, "t/a/.gitignore", "b\n");
	t_put(d, "t/a/c", "");
	for (int i = 0; i < 30; i++) {
		char *name = t_sprintf("t/many/%d", i);

		t_put(d, name, "");
		free(name);
	}
	t_tree_walk(root, NULL, &good);
	assert_int_equal(roz_tree_save(&good, file), ROZ_OK);
	for (n = 0;; n++) {
		roz_alloc_fail_after(n);
		rc = roz_tree_walk(root, NULL, &t);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK)
			break;
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_null(t.items);
	}
	assert_true(n > 3);
	assert_same_entries(&good, &t);
	roz_tree_dispose(&t);
	for (n = 0;; n++) {
		roz_alloc_fail_after(n);
		rc = roz_tree_load(file, &t);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK)
			break;
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_null(t.items);
	}
	assert_same_tree(&good, &t);
	roz_tree_dispose(&t);
	for (n = 0;; n++) {
		roz_alloc_fail_after(n);
		rc = roz_tree_save(&good, file);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK)
			break;
		assert_int_equal(rc, ROZ_ENOMEM);
	}
	roz_tree_dispose(&good);
	free(root);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, t_setup_tmpdir, t_teardown_tmpdir)
		T(files_directories_and_links_are_listed_by_lstat),
		T(a_hard_link_counts_two),
		T(git_directories_and_files_are_skipped_at_any_depth),
		T(the_root_gitignore_and_info_exclude_are_applied),
		T(nested_gitignores_apply_below_their_directory),
		T(an_ignored_directory_is_pruned),
		T(orchestration_is_listed_whatever_the_rules_say),
		T(extra_rules_skip_whatever_git_says),
		T(rules_fold_case_when_asked),
		T(a_dir_only_rule_does_not_match_a_link),
		T(the_walk_judges_files_as_ignore_match_does),
		T(entries_are_in_strcmp_order),
		T(a_walk_stops_at_max_entries),
		T(deeper_than_the_bound_is_not_read),
		T(paths_longer_than_path_max_are_not_listed),
		T(changes_show_between_two_walks),
		T(a_walk_is_stamped_with_the_coarse_clock),
		T(a_root_that_is_not_a_directory_is_refused),
		T(an_unreadable_directory_is_listed_without_its_contents),
		T(a_saved_snapshot_loads_back_the_same),
		T(a_tree_built_by_hand_saves_too),
		T(paths_out_of_order_or_not_normal_are_corrupt),
		T(damaged_snapshots_are_corrupt),
		T(a_save_replaces_the_file_whole),
		T(every_allocation_failure_is_reported),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
