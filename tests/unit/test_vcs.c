/*
 * test_vcs.c - the commit HEAD names, read from .git without git
 * (roz/vcs.h), checked against what `git rev-parse HEAD` says in
 * repositories the real git made: a branch, a detached HEAD, packed refs,
 * a worktree, a branch with no commit; and what is not a repository or not
 * what git writes, including a FIFO where HEAD should be.
 *
 * Skipped, saying so, when git is not installed.
 */
#include "support.h"

#include "roz/vcs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool have_git;

static int setup(void **state)
{
	*state = t_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	t_rmtree(*state);
	free(*state);
	return 0;
}

/* Run a shell command in dir, quietly; fails the test when it fails. */
static void sh(const char *dir, const char *cmd)
{
	char *full = t_sprintf("cd '%s' && { %s ; } >/dev/null 2>&1", dir, cmd);
	int st = system(full);

	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("command failed in %s: %s", dir, cmd);
	free(full);
}

/* What a git command prints in dir, without its line end. Caller frees. */
static char *git_out(const char *dir, const char *cmd)
{
	char *full = t_sprintf("cd '%s' && git %s 2>/dev/null", dir, cmd), buf[256] = "";
	FILE *f = popen(full, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	assert_int_equal(pclose(f), 0);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	free(full);
	return strdup(buf);
}

#define GIT "git -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false "

/* A repository at dir/name on branch main with one commit; its path. Caller frees. */
static char *repo_with_commit(const char *dir, const char *name)
{
	char *r = t_sprintf("%s/%s", dir, name);

	assert_int_equal(mkdir(r, 0700), 0);
	sh(r, "git -c init.defaultBranch=main init -q . && echo one > a && git add a && " GIT "commit -q -m one");
	return r;
}

static void head_matches(const char *repo)
{
	char got[ROZ_VCS_REVISION_SIZE], *want = git_out(repo, "rev-parse HEAD");

	assert_int_equal(strlen(want), 40);
	assert_int_equal(roz_vcs_git_head(repo, got), ROZ_OK);
	assert_string_equal(got, want);
	free(want);
}

#define NEED_GIT()                                                   \
	do {                                                         \
		if (!have_git) {                                     \
			print_message("git is not installed: skipped\n"); \
			skip();                                      \
		}                                                    \
	} while (0)

static void a_branch_head_is_the_commit_git_names(void **state)
{
	char *r;

	NEED_GIT();
	r = repo_with_commit(*state, "r");
	head_matches(r);
	/* a second commit moves the branch, and what is read with it */
	sh(r, "echo two >> a && " GIT "commit -q -am two");
	head_matches(r);
	/* another branch */
	sh(r, "git checkout -q -b other && echo three >> a && " GIT "commit -q -am three");
	head_matches(r);
	free(r);
}

static void a_detached_head_is_its_own_commit(void **state)
{
	char *r, *first, got[ROZ_VCS_REVISION_SIZE];

	NEED_GIT();
	r = repo_with_commit(*state, "r");
	first = git_out(r, "rev-parse HEAD");
	sh(r, "echo two >> a && " GIT "commit -q -am two && git checkout -q --detach HEAD~1");
	head_matches(r);
	assert_int_equal(roz_vcs_git_head(r, got), ROZ_OK);
	assert_string_equal(got, first);
	free(first);
	free(r);
}

static void packed_refs_are_read_when_the_loose_ref_is_gone(void **state)
{
	char *r, *loose;
	struct stat st;

	NEED_GIT();
	r = repo_with_commit(*state, "r");
	/* a tag, so packed-refs holds a "^" line too */
	sh(r, GIT "tag -a -m t v1 && git pack-refs --all");
	loose = t_sprintf("%s/.git/refs/heads/main", r);
	assert_int_equal(stat(loose, &st), -1);
	head_matches(r);
	free(loose);
	/* a branch name that only begins like the one HEAD names is not taken for it */
	sh(r, "git branch main2 && git pack-refs --all && git checkout -q main2 && echo x >> a && " GIT
	      "commit -q -am x && git pack-refs --all && git checkout -q main");
	head_matches(r);
	free(r);
}

static void a_worktree_reads_its_head_and_the_shared_refs(void **state)
{
	char *r, *wt, got[ROZ_VCS_REVISION_SIZE], *main_head;

	NEED_GIT();
	r = repo_with_commit(*state, "r");
	wt = t_sprintf("%s/wt", (const char *)*state);
	sh(r, "git worktree add -q -b side ../wt");
	sh(wt, "echo side >> a && " GIT "commit -q -am side");
	head_matches(wt);
	head_matches(r);
	main_head = git_out(r, "rev-parse HEAD");
	assert_int_equal(roz_vcs_git_head(wt, got), ROZ_OK);
	assert_string_not_equal(got, main_head);
	/* and with the branch packed into the common directory */
	sh(r, "git pack-refs --all");
	head_matches(wt);
	free(main_head);
	free(wt);
	free(r);
}

static void an_unborn_branch_or_no_git_is_not_found(void **state)
{
	const char *d = *state;
	char *r = t_sprintf("%s/r", d), got[ROZ_VCS_REVISION_SIZE];

	NEED_GIT();
	assert_int_equal(mkdir(r, 0700), 0);
	sh(r, "git -c init.defaultBranch=main init -q .");
	assert_int_equal(roz_vcs_git_head(r, got), ROZ_ENOTFOUND);
	assert_string_equal(got, "");
	assert_non_null(strstr(roz_error_last(), "no commit yet"));
	/* a directory with no .git at all */
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_ENOTFOUND);
	free(r);
}

/* ---- made by hand: what git writes, and what it does not ----------------- */

#define SHA1 "0123456789abcdef0123456789abcdef01234567"
#define SHA256 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char *fake_repo(const char *d, const char *head)
{
	char *g = t_sprintf("%s/.git/HEAD", d);

	t_write_file(g, head);
	free(g);
	return t_sprintf("%s/.git", d);
}

static void put(const char *d, const char *rel, const char *text)
{
	char *p = t_sprintf("%s/%s", d, rel);

	t_write_file(p, text);
	free(p);
}

static void hand_made_layouts_are_read_as_git_reads_them(void **state)
{
	const char *d = *state;
	char got[ROZ_VCS_REVISION_SIZE], *g = fake_repo(d, "ref: refs/heads/main\n");

	put(d, ".git/refs/heads/main", SHA1 "\n");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_OK);
	assert_string_equal(got, SHA1);
	/* SHA-256 repositories, and upper case read as lower */
	put(d, ".git/refs/heads/main", "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\n");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_OK);
	assert_string_equal(got, SHA256);
	/* a symbolic ref naming another */
	put(d, ".git/refs/heads/main", "ref: refs/heads/real\n");
	put(d, ".git/refs/heads/real", SHA1 "\n");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_OK);
	assert_string_equal(got, SHA1);
	/* one naming itself ends, refused */
	put(d, ".git/refs/heads/main", "ref: refs/heads/main\n");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
	/* a .git file, relative to the directory holding it */
	{
		char *sub = t_sprintf("%s/sub", d);

		put(d, "sub/.git", "gitdir: ../.git\n");
		put(d, ".git/refs/heads/main", SHA1 "\n");
		assert_int_equal(roz_vcs_git_head(sub, got), ROZ_OK);
		assert_string_equal(got, SHA1);
		put(d, "sub/.git", "nonsense\n");
		assert_int_equal(roz_vcs_git_head(sub, got), ROZ_EINVALID);
		assert_non_null(strstr(roz_error_last(), "gitdir"));
		/* pointing nowhere: not a repository git can use */
		put(d, "sub/.git", "gitdir: /nonexistent/roz-test\n");
		assert_int_equal(roz_vcs_git_head(sub, got), ROZ_EINVALID);
		free(sub);
	}
	free(g);
}

static void garbage_is_invalid_and_said_so(void **state)
{
	const char *d = *state;
	static const char *const heads[] = {
		"garbage\n",
		"ref: refs/heads/../../../etc/passwd\n",
		"ref: /etc/passwd\n",
		"ref: HEAD\n",
		"ref: refs/heads/\n",
		"0123456789abcdef\n",                       /* too short */
		SHA1 "0\n",                                 /* 41 digits */
		"0123456789abcdef0123456789abcdef0123456g\n", /* not hex */
		SHA1 "\n" SHA1 "\n",                        /* two lines */
		"\n",
		"ref: refs/heads/.invalid\n", /* the refs are in a reftable */
	};
	char got[ROZ_VCS_REVISION_SIZE];
	char *g = fake_repo(d, "x");

	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
		put(d, ".git/HEAD", heads[i]);
		if (roz_vcs_git_head(d, got) != ROZ_EINVALID)
			fail_msg("HEAD '%s' was not refused", heads[i]);
		assert_string_equal(got, "");
		assert_true(strlen(roz_error_last()) > 0);
	}
	/* a NUL inside */
	{
		char *p = t_sprintf("%s/.git/HEAD", d);
		FILE *f = fopen(p, "w");

		assert_non_null(f);
		assert_int_equal(fwrite(SHA1 "\0x\n", 1, 43, f), 43);
		fclose(f);
		assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
		free(p);
	}
	/* a loose ref that is not a commit name, and a packed-refs line that is not */
	put(d, ".git/HEAD", "ref: refs/heads/main\n");
	put(d, ".git/refs/heads/main", "nope\n");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
	put(d, ".git/refs/heads/main", "");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
	{
		char *p = t_sprintf("%s/.git/refs/heads/main", d);

		assert_int_equal(unlink(p), 0);
		free(p);
	}
	put(d, ".git/packed-refs", "# pack-refs with: peeled\nxyz refs/heads/main\n");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
	/* the "^" line under a tag is skipped, and a comment, and CRLF */
	put(d, ".git/packed-refs", "# pack-refs with: peeled\r\n" SHA256 " refs/tags/v1\r\n^" SHA1 "\r\n" SHA1
				   " refs/heads/main\r\n");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_OK);
	assert_string_equal(got, SHA1);
	/* a branch only packed-refs could hold, and it does not */
	put(d, ".git/packed-refs", SHA1 " refs/heads/mainline\n");
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_ENOTFOUND);
	/* HEAD too large to be what git writes */
	{
		size_t n = 5000;
		char *big = malloc(n + 1);

		assert_non_null(big);
		memset(big, 'a', n);
		big[n] = '\0';
		put(d, ".git/HEAD", big);
		assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
		assert_non_null(strstr(roz_error_last(), "larger than"));
		free(big);
	}
	/* no HEAD in a .git directory */
	{
		char *p = t_sprintf("%s/.git/HEAD", d);

		assert_int_equal(unlink(p), 0);
		assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
		/* but HEAD as a link to a branch not made yet, as old git wrote it, is unborn */
		assert_int_equal(symlink("refs/heads/none", p), 0);
		assert_int_equal(roz_vcs_git_head(d, got), ROZ_ENOTFOUND);
		/* and a link to one that is there is read through */
		assert_int_equal(unlink(p), 0);
		assert_int_equal(symlink("refs/heads/real", p), 0);
		put(d, ".git/refs/heads/real", SHA1 "\n");
		assert_int_equal(roz_vcs_git_head(d, got), ROZ_OK);
		assert_string_equal(got, SHA1);
		free(p);
	}
	assert_int_equal(roz_vcs_git_head("", got), ROZ_EINVALID);
	assert_int_equal(roz_vcs_git_head(NULL, got), ROZ_EINVALID);
	free(g);
}

static void fifos_do_not_hang(void **state)
{
	const char *d = *state;
	char got[ROZ_VCS_REVISION_SIZE];
	char *g = fake_repo(d, "x"), *head = t_sprintf("%s/.git/HEAD", d),
	     *ref = t_sprintf("%s/.git/refs/heads/main", d), *packed = t_sprintf("%s/.git/packed-refs", d),
	     *dotgit = t_sprintf("%s/sub/.git", d), *sub = t_sprintf("%s/sub", d);

	/* a hang would be the failure: the alarm ends the test */
	alarm(20);
	assert_int_equal(unlink(head), 0);
	assert_int_equal(mkfifo(head, 0600), 0);
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
	assert_non_null(strstr(roz_error_last(), "not a regular file"));
	assert_int_equal(unlink(head), 0);
	put(d, ".git/HEAD", "ref: refs/heads/main\n");
	put(d, ".git/refs/heads/x", "");
	assert_int_equal(mkfifo(ref, 0600), 0);
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
	assert_int_equal(unlink(ref), 0);
	assert_int_equal(mkfifo(packed, 0600), 0);
	assert_int_equal(roz_vcs_git_head(d, got), ROZ_EINVALID);
	put(d, "sub/x", "");
	assert_int_equal(mkfifo(dotgit, 0600), 0);
	assert_int_equal(roz_vcs_git_head(sub, got), ROZ_EINVALID);
	alarm(0);
	free(g);
	free(head);
	free(ref);
	free(packed);
	free(dotgit);
	free(sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(a_branch_head_is_the_commit_git_names),
		T(a_detached_head_is_its_own_commit),
		T(packed_refs_are_read_when_the_loose_ref_is_gone),
		T(a_worktree_reads_its_head_and_the_shared_refs),
		T(an_unborn_branch_or_no_git_is_not_found),
		T(hand_made_layouts_are_read_as_git_reads_them),
		T(garbage_is_invalid_and_said_so),
		T(fifos_do_not_hang),
#undef T
	};

	/* git's own settings must not change what the tests make */
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	have_git = system("git --version >/dev/null 2>&1") == 0;
	if (!have_git)
		print_message("git is not installed: the tests that run it are skipped\n");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
