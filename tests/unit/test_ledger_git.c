/*
 * test_ledger_git.c - the ledger through a team's git. Each test is real
 * git in a throwaway world and the agent's calls through the real roz
 * hooks in a governed repository: branches that both recorded merged,
 * rebased, cherry-picked and squashed; a person's rename, edit and
 * acceptance; the agent's removal; a second worktree; submodules. What
 * counts is what `roz ledger verify --json` then says and how it exits.
 */
#include "agent_git.h"

#include <stdlib.h>
#include <string.h>

#define SRC "[\"src/**\"]"

static void expect_item(const cJSON *doc, const char *state, const char *path)
{
	if (!ag_item(doc, state, path)) {
		char *text = cJSON_PrintUnformatted(doc);

		fail_msg("no %s item of %s in %s", state, path, text);
	}
}

/* The document's items number n (of path, when not NULL). */
static void expect_items(const cJSON *doc, const char *path, int n)
{
	if (ag_items(doc, path) != n) {
		char *text = cJSON_PrintUnformatted(doc);

		fail_msg("not %d items%s%s in %s", n, path ? " of " : "", path ? path : "", text);
	}
}

/* summary.<name> is n. */
static void expect_count(const cJSON *doc, const char *name, int n)
{
	if (ag_summary(doc, name) != n) {
		char *text = cJSON_PrintUnformatted(doc);

		fail_msg("summary.%s is not %d in %s", name, n, text);
	}
}

static void expect_passed(const cJSON *doc)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "summary"), "passed");

	assert_true(cJSON_IsTrue(v));
}

/* Each branch of a repository got its own record; main has none yet. */
static char *two_recording_branches(ag_world *w)
{
	char *root = ag_repo(w, "repo", SRC);

	ag_sh(root, "git checkout -qb a");
	ag_select(w, root, "sA");
	ag_write(w, root, "sA", "src/a.txt", "alpha one\nalpha two\n");
	ag_sh(root, "git add -A && git commit -qm a && git checkout -q main && git checkout -qb b");
	ag_select(w, root, "sB");
	ag_write(w, root, "sB", "src/b.txt", "beta one\n");
	ag_sh(root, "git add -A && git commit -qm b");
	return root;
}

static void test_merge_of_two_recording_branches(void **state)
{
	ag_world *w = *state;
	char *root;
	cJSON *doc;

	root = two_recording_branches(w);
	ag_sh(root, "git merge -q --no-edit a");
	assert_true(ag_ledger_names(root, "src/a.txt"));
	assert_true(ag_ledger_names(root, "src/b.txt"));
	doc = ag_verify(w, root, 0, "--all", NULL);
	expect_passed(doc);
	expect_count(doc, "intact", 2);
	expect_count(doc, "edited", 0);
	expect_count(doc, "missing", 0);
	expect_item(doc, "intact", "src/a.txt");
	expect_item(doc, "intact", "src/b.txt");
	expect_items(doc, NULL, 2);
	cJSON_Delete(doc);
	free(root);
}

static void test_rebase_then_since_the_new_base(void **state)
{
	ag_world *w = *state;
	char *root, *base;
	cJSON *doc;

	root = two_recording_branches(w);
	ag_sh(root, "git rebase -q a");
	doc = ag_verify(w, root, 0, "--all", NULL);
	expect_count(doc, "intact", 2);
	cJSON_Delete(doc);

	/* the branch's own records: what the new base's ledger does not hold */
	base = ag_sh_line(root, "git rev-parse --short=7 a");
	assert_int_equal(strlen(base), 7);
	doc = ag_verify(w, root, 0, "--all", "--since", base, NULL);
	expect_items(doc, NULL, 1);
	expect_item(doc, "intact", "src/b.txt");
	expect_items(doc, "src/a.txt", 0);
	cJSON_Delete(doc);

	/* a person deletes the base's file: the whole ledger fails a strict check, the branch's records pass it */
	ag_sh(root, "rm src/a.txt");
	doc = ag_verify(w, root, 1, "--strict", NULL);
	expect_item(doc, "missing", "src/a.txt");
	cJSON_Delete(doc);
	doc = ag_verify(w, root, 0, "--strict", "--since", base, NULL);
	expect_count(doc, "missing", 0);
	expect_items(doc, "src/a.txt", 0);
	cJSON_Delete(doc);
	free(base);
	free(root);
}

/* main recorded src/base.txt; feat recorded src/one.txt then src/two.txt, one commit each. */
static char *feature_of_two_commits(ag_world *w)
{
	char *root = ag_repo(w, "repo", SRC);

	ag_select(w, root, "s0");
	ag_write(w, root, "s0", "src/base.txt", "base\n");
	ag_sh(root, "git add -A && git commit -qm base-record && git checkout -qb feat");
	ag_select(w, root, "s1");
	ag_write(w, root, "s1", "src/one.txt", "one\n");
	ag_sh(root, "git add -A && git commit -qm one");
	ag_write(w, root, "s1", "src/two.txt", "two\n");
	ag_sh(root, "git add -A && git commit -qm two && git checkout -q main");
	return root;
}

static void test_cherry_pick_of_one_recording_commit(void **state)
{
	ag_world *w = *state;
	char *root;
	cJSON *doc;

	root = feature_of_two_commits(w);
	ag_sh(root, "git cherry-pick feat");
	ag_sh(root, "test ! -e src/one.txt && test -e src/two.txt");
	doc = ag_verify(w, root, 0, "--all", NULL);
	expect_passed(doc);
	expect_item(doc, "intact", "src/base.txt");
	expect_item(doc, "intact", "src/two.txt");
	cJSON_Delete(doc);
	/*
	 * The ledger's union merge carries the record of the commit left
	 * behind (src/one.txt) into main; its file was never on main, so it is
	 * not missing here: a strict check passes too.
	 */
	doc = ag_verify(w, root, 0, "--strict", NULL);
	expect_count(doc, "missing", 0);
	expect_items(doc, "src/one.txt", 0);
	cJSON_Delete(doc);
	free(root);
}

static void test_squash_merge_and_since_its_parent(void **state)
{
	ag_world *w = *state;
	char *root, *parent;
	cJSON *doc;

	root = feature_of_two_commits(w);
	/* main moved on, with a record of its own */
	ag_write(w, root, "s0", "src/main.txt", "main\n");
	ag_sh(root, "git add -A && git commit -qm main-record");
	ag_sh(root, "git merge -q --squash feat && git commit -qm squashed");
	doc = ag_verify(w, root, 0, "--all", NULL);
	expect_count(doc, "intact", 4);
	expect_items(doc, NULL, 4);
	cJSON_Delete(doc);

	parent = ag_sh_line(root, "git rev-parse --short=7 HEAD~1");
	doc = ag_verify(w, root, 0, "--all", "--since", parent, NULL);
	expect_items(doc, NULL, 2);
	expect_item(doc, "intact", "src/one.txt");
	expect_item(doc, "intact", "src/two.txt");
	cJSON_Delete(doc);
	free(parent);
	free(root);
}

static void expect_moved_to(const cJSON *doc, const char *from, const char *to)
{
	const cJSON *item = ag_item(doc, "moved", from), *dest;

	if (!item) {
		char *text = cJSON_PrintUnformatted(doc);

		fail_msg("%s is not moved: %s", from, text);
	}
	dest = cJSON_GetObjectItemCaseSensitive(item, "moved_to");
	assert_non_null(dest);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(dest, "path")->valuestring, to);
	assert_int_equal(ag_int(dest, "start_line"), 1);
	assert_int_equal(ag_int(dest, "end_line"), 3);
}

static void test_a_persons_git_mv(void **state)
{
	ag_world *w = *state;
	char *root;
	cJSON *doc;

	root = ag_repo(w, "repo", SRC);
	ag_select(w, root, "s1");
	ag_write(w, root, "s1", "src/a.txt", "first\nsecond\nthird\n");
	ag_write(w, root, "s1", "src/c.txt", "uno\ndos\ntres\n");
	ag_sh(root, "git add -A && git commit -qm agent");
	/* renamed and committed; renamed and only staged */
	ag_sh(root, "git mv src/a.txt src/renamed.txt && git commit -qm rename");
	ag_sh(root, "git mv src/c.txt src/staged.txt");
	doc = ag_verify(w, root, 0, NULL);
	expect_passed(doc);
	expect_count(doc, "moved", 2);
	expect_count(doc, "missing", 0);
	expect_moved_to(doc, "src/a.txt", "src/renamed.txt");
	expect_moved_to(doc, "src/c.txt", "src/staged.txt");
	cJSON_Delete(doc);
	free(root);
}

static void test_the_agent_removes_its_file(void **state)
{
	ag_world *w = *state;
	char *root;
	cJSON *doc;

	root = ag_repo(w, "repo", SRC);
	ag_select(w, root, "s1");
	ag_write(w, root, "s1", "src/a.txt", "doomed\nlines\n");
	ag_write(w, root, "s1", "src/keep.txt", "kept\n");
	ag_sh(root, "git add -A && git commit -qm agent");
	ag_bash(w, root, "s1", "rm src/a.txt");
	ag_sh(root, "test ! -e src/a.txt");
	doc = ag_verify(w, root, 0, NULL);
	expect_passed(doc);
	expect_item(doc, "removed", "src/a.txt");
	expect_count(doc, "removed", 1);
	expect_count(doc, "missing", 0);
	expect_count(doc, "intact", 1);
	cJSON_Delete(doc);
	free(root);
}

static void test_a_persons_edit_then_acceptance(void **state)
{
	const char *accept[] = {"ledger", "accept", "src/a.txt", NULL};
	ag_world *w = *state;
	char *root;
	const cJSON *item;
	cJSON *doc;
	t_run r;

	root = ag_repo(w, "repo", SRC);
	ag_select(w, root, "s1");
	ag_write(w, root, "s1", "src/a.txt", "one\ntwo\nthree\n");
	ag_sh(root, "git add -A && git commit -qm agent");
	ag_sh(root, "sed -i 's/^two$/TWO, said the person/' src/a.txt");

	doc = ag_verify(w, root, 0, NULL);
	expect_count(doc, "edited", 1);
	item = ag_item(doc, "edited", "src/a.txt");
	assert_non_null(item);
	assert_int_equal(ag_int(item, "start_line"), 1);
	assert_int_equal(ag_int(item, "end_line"), 3);
	cJSON_Delete(doc);
	doc = ag_verify(w, root, 1, "--strict", NULL);
	expect_item(doc, "edited", "src/a.txt");
	cJSON_Delete(doc);

	/* the person takes the file as it is */
	ag_roz(w, root, NULL, accept, &r);
	if (r.status != 0)
		fail_msg("roz ledger accept exited %d:\n%s\n%s", r.status, r.out, r.err);
	t_run_dispose(&r);
	doc = ag_verify(w, root, 0, "--strict", "--all", NULL);
	expect_passed(doc);
	expect_item(doc, "accepted", "src/a.txt");
	expect_count(doc, "edited", 0);
	assert_true(ag_summary(doc, "accepted") >= 1);
	cJSON_Delete(doc);
	free(root);
}

static void test_a_second_worktree(void **state)
{
	ag_world *w = *state;
	char *root, *second;
	cJSON *doc;

	root = ag_repo(w, "repo", SRC);
	ag_select(w, root, "s1");
	ag_write(w, root, "s1", "src/first.txt", "first\n");
	ag_sh(root, "git add -A && git commit -qm first");
	ag_sh(root, "git worktree add -q ../second -b work");
	second = ag_at(w, "second");

	/* a session working in the second worktree records there */
	ag_select(w, second, "s2");
	ag_write(w, second, "s2", "src/second.txt", "second\n");
	assert_true(ag_ledger_names(second, "src/second.txt"));
	assert_false(ag_ledger_names(root, "src/second.txt"));
	doc = ag_verify(w, second, 0, "--all", NULL);
	expect_item(doc, "intact", "src/first.txt");
	expect_item(doc, "intact", "src/second.txt");
	cJSON_Delete(doc);
	doc = ag_verify(w, root, 0, "--all", NULL);
	expect_item(doc, "intact", "src/first.txt");
	expect_items(doc, "src/second.txt", 0);
	cJSON_Delete(doc);

	/* its branch merged into the first */
	ag_sh(second, "git add -A && git commit -qm second");
	ag_sh(root, "git merge -q work");
	doc = ag_verify(w, root, 0, "--all", NULL);
	expect_count(doc, "intact", 2);
	expect_item(doc, "intact", "src/second.txt");
	cJSON_Delete(doc);
	free(second);
	free(root);
}

/* A library repository at <dir>/<name>, with its own .orchestration/ when `recorded`. */
static char *library(const ag_world *w, const char *name, bool recorded)
{
	char *lib = ag_at(w, name), *p;

	p = t_sprintf("%s/src/lib.txt", lib);
	t_write_file(p, "library\n");
	free(p);
	if (recorded) {
		p = t_sprintf("%s/.orchestration/README", lib);
		t_write_file(p, "the library's own record\n");
		free(p);
	}
	ag_sh(lib, "git init -q && git add -A && git commit -qm lib");
	return lib;
}

static void test_submodules(void **state)
{
	ag_world *w = *state;
	char *root, *lib, *plain, *sub;
	cJSON *doc;

	lib = library(w, "lib", true);
	plain = library(w, "plain", false);
	root = ag_repo(w, "super", "[\"src/**\", \"sub/**\", \"vendor/**\"]");
	ag_sh(root, "git -c protocol.file.allow=always submodule add -q '%s' sub && "
		    "git -c protocol.file.allow=always submodule add -q '%s' vendor && git commit -qm submodules",
	      lib, plain);
	sub = t_sprintf("%s/sub", root);
	ag_select(w, root, "s1");
	ag_write(w, root, "s1", "src/top.txt", "top\n");
	ag_write(w, root, "s1", "sub/src/x.txt", "in the submodule\n");
	ag_write(w, root, "s1", "vendor/src/y.txt", "in the other submodule\n");

	/*
	 * the superproject's ledger holds its own files and those of the submodule that keeps no record (the
	 * superproject governs them), not those of the submodule with a record of its own, which holds its
	 * file relative to it
	 */
	assert_true(ag_ledger_names(root, "src/top.txt"));
	assert_false(ag_ledger_names(root, "sub/src/x.txt"));
	assert_true(ag_ledger_names(root, "vendor/src/y.txt"));
	assert_true(ag_ledger_names(sub, "src/x.txt"));

	doc = ag_verify(w, root, 0, "--all", NULL);
	expect_item(doc, "intact", "src/top.txt");
	expect_item(doc, "intact", "vendor/src/y.txt");
	expect_items(doc, NULL, 2);
	cJSON_Delete(doc);
	doc = ag_verify(w, sub, 0, "--all", NULL);
	expect_item(doc, "intact", "src/x.txt");
	expect_items(doc, NULL, 1);
	cJSON_Delete(doc);
	free(sub);
	free(root);
	free(plain);
	free(lib);
}

#define T(f) cmocka_unit_test_setup_teardown(f, ag_world_up, ag_world_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_merge_of_two_recording_branches),
		T(test_rebase_then_since_the_new_base),
		T(test_cherry_pick_of_one_recording_commit),
		T(test_squash_merge_and_since_its_parent),
		T(test_a_persons_git_mv),
		T(test_the_agent_removes_its_file),
		T(test_a_persons_edit_then_acceptance),
		T(test_a_second_worktree),
		T(test_submodules),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
