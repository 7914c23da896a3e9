/*
 * test_orchestration.c - finding a repository's root and reading its
 * .orchestration/ files (roz/orchestration.h), on real directories: where
 * the root is, when a repository is governed, what a file that cannot be
 * used leaves for the caller, how much of a large lessons file is read, and
 * the hashes the stale-file check compares.
 */
#include "support.h"

#include "roz/digest.h"
#include "roz/orchestration.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GOOD "active_intents:\n  - id: INT-001\n    name: One\n    status: IN_PROGRESS\n" \
	     "    owned_scope: [\"src/**\"]\n"


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

static void find_from(const char *cwd, roz_orchestration *o)
{
	assert_int_equal(roz_orchestration_find(cwd, o), ROZ_OK);
}

static void the_root_is_the_nearest_git_directory_up(void **state)
{
	const char *d = *state;
	char *repo = t_at(d, "repo"), *deep = t_at(d, "repo/src/a/b"), *plain = t_at(d, "plain/x");
	roz_orchestration o;

	mkdirs(d, "repo/.git");
	mkdirs(d, "repo/src/a/b");
	mkdirs(d, "plain/x");
	find_from(deep, &o);
	assert_string_equal(o.root, repo);
	assert_false(o.governed);
	roz_orchestration_dispose(&o);
	/* no .git anywhere up: the working directory itself */
	find_from(plain, &o);
	assert_string_equal(o.root, plain);
	roz_orchestration_dispose(&o);
	/* a .git file, as in a worktree or a submodule, marks a root too */
	t_put(d, "plain/x/.git", "gitdir: /elsewhere\n");
	mkdirs(d, "plain/x/y");
	{
		char *y = t_at(d, "plain/x/y/");

		find_from(y, &o);
		assert_string_equal(o.root, plain);
		roz_orchestration_dispose(&o);
		free(y);
	}
	assert_int_equal(roz_orchestration_find("relative/path", &o), ROZ_EINVALID);
	roz_orchestration_dispose(&o);
	free(repo);
	free(deep);
	free(plain);
}

static void a_repository_with_intents_is_governed_and_read(void **state)
{
	const char *d = *state;
	roz_orchestration o;

	mkdirs(d, "r/.git");
	t_put(d, "r/.orchestration/active_intents.yaml", GOOD);
	t_put(d, "r/.orchestration/.intentignore", "*.log\n[broken\n");
	t_put(d, "r/.orchestration/CLAUDE.md", "- tests first\n");
	find_from(d, &o); /* the temp dir itself is not the repository */
	assert_false(o.governed);
	roz_orchestration_dispose(&o);
	{
		char *r = t_at(d, "r");

		find_from(r, &o);
		free(r);
	}
	assert_true(o.governed);
	assert_false(o.fold_case);
	assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS | ROZ_ORCH_IGNORE | ROZ_ORCH_LESSONS),
			 ROZ_OK);
	assert_true(o.intents_ok);
	assert_int_equal(o.intents.n, 1);
	assert_string_equal(o.intents.items[0].id, "INT-001");
	assert_true(o.have_ignore);
	assert_true(roz_ignore_match(&o.ignore, "a/b.log", false));
	assert_non_null(o.ignore_problem); /* the bad line is counted */
	assert_non_null(strstr(o.ignore_problem, "1 line(s)"));
	assert_int_equal(o.lessons_len, 14);
	assert_int_equal(o.lessons_skipped, 0);
	roz_orchestration_dispose(&o);
}

static void an_unusable_intents_file_is_a_problem_with_its_position(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"active_intents:\n  - id: A\n    name: x\n    status: DONE\n", ":4:"},
		{"active_intents: [\n", "active_intents.yaml:"},
		{"active_intents:\n  - id: A\n    name: \"\xff\"\n    status: DRAFT\n", ":3:"},
	};
	const char *d = *state;

	mkdirs(d, "r/.git");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		roz_orchestration o;
		char *r = t_at(d, "r");

		t_put(d, "r/.orchestration/active_intents.yaml", cases[i].text);
		find_from(r, &o);
		assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
		assert_true(o.governed);
		assert_false(o.intents_ok);
		assert_non_null(o.intents_problem);
		if (!strstr(o.intents_problem, ".orchestration/active_intents.yaml:") ||
		    !strstr(o.intents_problem, cases[i].want))
			fail_msg("case %zu: problem '%s' lacks '%s'", i, o.intents_problem, cases[i].want);
		roz_orchestration_dispose(&o);
		free(r);
	}
}

static void files_that_are_not_files_do_not_hang_or_pass(void **state)
{
	const char *d = *state;
	char *fifo = t_at(d, "r/.orchestration/active_intents.yaml"), *r = t_at(d, "r");
	roz_orchestration o;

	mkdirs(d, "r/.git");
	mkdirs(d, "r/.orchestration");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	find_from(r, &o);
	assert_true(o.governed);
	assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
	assert_false(o.intents_ok);
	assert_non_null(strstr(o.intents_problem, "not a regular file"));
	roz_orchestration_dispose(&o);
	unlink(fifo);
	/* a directory in its place: governed, and unusable */
	assert_int_equal(mkdir(fifo, 0700), 0);
	find_from(r, &o);
	assert_true(o.governed);
	assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
	assert_false(o.intents_ok);
	roz_orchestration_dispose(&o);
	free(fifo);
	free(r);
}

static void an_oversized_intents_file_is_refused(void **state)
{
	const char *d = *state;
	size_t n = ROZ_INTENTS_MAX_BYTES + 10;
	char *big = malloc(n + 1), *r = t_at(d, "r");
	roz_orchestration o;

	memset(big, '#', n);
	big[n] = '\0';
	mkdirs(d, "r/.git");
	t_put(d, "r/.orchestration/active_intents.yaml", big);
	find_from(r, &o);
	assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
	assert_false(o.intents_ok);
	assert_non_null(strstr(o.intents_problem, "larger than"));
	roz_orchestration_dispose(&o);
	free(big);
	free(r);
}

static void only_the_newest_lessons_of_a_huge_file_are_read(void **state)
{
	const char *d = *state;
	size_t n = ROZ_ORCH_LESSONS_MAX + 4096;
	char *big = malloc(n + 1), *r = t_at(d, "r");
	roz_orchestration o;

	for (size_t i = 0; i < n; i++)
		big[i] = i % 64 == 63 ? '\n' : 'a';
	memcpy(big + n - 6, "NEWEST", 6);
	big[n] = '\0';
	mkdirs(d, "r/.git");
	t_put(d, "r/.orchestration/active_intents.yaml", GOOD);
	t_put(d, "r/.orchestration/CLAUDE.md", big);
	find_from(r, &o);
	assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_LESSONS), ROZ_OK);
	assert_int_equal(o.lessons_len, ROZ_ORCH_LESSONS_MAX);
	assert_int_equal(o.lessons_skipped, 4096);
	assert_memory_equal(o.lessons + o.lessons_len - 6, "NEWEST", 6);
	roz_orchestration_dispose(&o);
	free(big);
	free(r);
}

/* Parsed intents are kept, used while the file is the same, and parsed again when it changes. */
static void parsed_intents_are_kept_until_the_file_changes(void **state)
{
	const char *d = *state;
	char *r = t_at(d, "r"), *cache = t_at(d, "cache"), *file = t_at(d, "r/.orchestration/active_intents.yaml");
	roz_orchestration o;
	struct stat st;

	mkdirs(d, "r/.git");
	t_put(d, "r/.orchestration/active_intents.yaml", GOOD);
	for (int round = 0; round < 2; round++) {
		find_from(r, &o);
		o.cache_dir = cache;
		assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
		assert_true(o.intents_ok);
		assert_int_equal(o.intents_cached, round == 1); /* the first parses and keeps */
		assert_string_equal(o.intents.items[0].id, "INT-001");
		roz_orchestration_dispose(&o);
	}
	assert_int_equal(stat(cache, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* a changed file is parsed again, whatever the cache holds */
	t_put(d, "r/.orchestration/active_intents.yaml",
	    "active_intents:\n  - id: INT-002\n    name: Two\n    status: DRAFT\n");
	find_from(r, &o);
	o.cache_dir = cache;
	assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
	assert_false(o.intents_cached);
	assert_string_equal(o.intents.items[0].id, "INT-002");
	roz_orchestration_dispose(&o);
	/* a broken file is never cached: its problem is found every time */
	t_put(d, "r/.orchestration/active_intents.yaml", "active_intents: [\n");
	for (int round = 0; round < 2; round++) {
		find_from(r, &o);
		o.cache_dir = cache;
		assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
		assert_false(o.intents_ok);
		assert_non_null(o.intents_problem);
		roz_orchestration_dispose(&o);
	}
	/* a cache that does not read back is no cache */
	t_put(d, "r/.orchestration/active_intents.yaml", GOOD);
	find_from(r, &o);
	o.cache_dir = cache;
	assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
	roz_orchestration_dispose(&o);
	{
		char cmd[1024];

		snprintf(cmd, sizeof cmd, "for f in '%s'/*.json; do printf 'garbage' > \"$f\"; done", cache);
		assert_int_equal(system(cmd), 0);
	}
	find_from(r, &o);
	o.cache_dir = cache;
	assert_int_equal(roz_orchestration_load(&o, ROZ_ORCH_INTENTS), ROZ_OK);
	assert_true(o.intents_ok);
	assert_false(o.intents_cached);
	roz_orchestration_dispose(&o);
	free(r);
	free(cache);
	free(file);
}

static void hashes_are_of_the_whole_content(void **state)
{
	const char *d = *state;
	size_t n = 300 * 1024 + 7; /* more than one read block */
	char *big = malloc(n + 1), *p = t_at(d, "f"), want[65], got[65];

	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 23);
	big[n] = '\0';
	t_put(d, "f", big);
	roz_digest_sha256_hex(big, n, want);
	assert_int_equal(roz_orchestration_hash_file(NULL, p, got), ROZ_OK);
	assert_string_equal(got, want);
	/* an empty file has the empty digest */
	t_put(d, "e", "");
	free(p);
	p = t_at(d, "e");
	assert_int_equal(roz_orchestration_hash_file(NULL, p, got), ROZ_OK);
	assert_string_equal(got, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	free(p);
	/* no file, or not a file: nothing to compare */
	p = t_at(d, "missing");
	assert_int_equal(roz_orchestration_hash_file(NULL, p, got), ROZ_ENOTFOUND);
	free(p);
	p = t_at(d, "f/under-a-file");
	assert_int_equal(roz_orchestration_hash_file(NULL, p, got), ROZ_ENOTFOUND);
	free(p);
	assert_int_equal(roz_orchestration_hash_file(NULL, d, got), ROZ_ENOTFOUND);
	free(big);
}

/* Which governed repository a path outside this one lies in, as a worktree's, a submodule's or a neighbour's. */
static void another_governed_repository_is_found_by_its_git_and_intents(void **state)
{
	const char *d = *state;
	char *a = t_at(d, "a"), *b = t_at(d, "b"), *p, *other;

	t_put(d, "a/.git/HEAD", "ref: refs/heads/main\n");
	t_put(d, "a/.orchestration/active_intents.yaml", "active_intents: []\n");
	/* a second worktree of a: .git is a file */
	t_put(d, "b/.git", "gitdir: ../a/.git/worktrees/b\n");
	t_put(d, "b/.orchestration/active_intents.yaml", "active_intents: []\n");
	/* a repository with no intents inside b, and one beside them */
	t_put(d, "b/plain/.git", "gitdir: x\n");
	t_put(d, "c/.git/HEAD", "ref: refs/heads/main\n");

	p = t_at(d, "b/src/new/file.c"); /* not there yet */
	assert_int_equal(roz_orchestration_governed_elsewhere(NULL, p, a, &other), ROZ_OK);
	assert_non_null(other);
	assert_string_equal(other, b);
	free(other);
	/* seen from b itself: its own, so none */
	assert_int_equal(roz_orchestration_governed_elsewhere(NULL, p, b, &other), ROZ_OK);
	assert_null(other);
	free(p);
	/* in b's ungoverned nested repository: b governs it, as "Which repository" says */
	p = t_at(d, "b/plain/x.c");
	assert_int_equal(roz_orchestration_governed_elsewhere(NULL, p, a, &other), ROZ_OK);
	assert_non_null(other);
	assert_string_equal(other, b);
	free(other);
	free(p);
	/* a repository without intents, or none at all: not governed elsewhere */
	p = t_at(d, "c/x.c");
	assert_int_equal(roz_orchestration_governed_elsewhere(NULL, p, a, &other), ROZ_OK);
	assert_null(other);
	free(p);
	assert_int_equal(roz_orchestration_governed_elsewhere(NULL, "/", a, &other), ROZ_OK);
	assert_null(other);
	assert_int_equal(roz_orchestration_governed_elsewhere(NULL, "relative/x", a, &other), ROZ_OK);
	assert_null(other);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, t_setup_tmpdir, t_teardown_tmpdir)
		T(the_root_is_the_nearest_git_directory_up),
		T(a_repository_with_intents_is_governed_and_read),
		T(an_unusable_intents_file_is_a_problem_with_its_position),
		T(files_that_are_not_files_do_not_hang_or_pass),
		T(an_oversized_intents_file_is_refused),
		T(only_the_newest_lessons_of_a_huge_file_are_read),
		T(parsed_intents_are_kept_until_the_file_changes),
		T(hashes_are_of_the_whole_content),
		T(another_governed_repository_is_found_by_its_git_and_intents),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
