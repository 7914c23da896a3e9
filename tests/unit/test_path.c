/*
 * test_path.c - roz_path_*: every way a tool call can spell a path folds to
 * the place the kernel would reach, `..`, `//`, `~`, relative paths and
 * symbolic links (through a table standing in for the file system) included.
 */
#include "support.h"

#include "roz/path.h"

#include <string.h>

#define HOME "/home/u"

static void norm(const char *base, const char *path, const char *want)
{
	char *out = NULL;
	int rc = roz_path_normalize(base, HOME, path, &out);

	if (rc != ROZ_OK)
		fail_msg("'%s' from '%s': %s", path, base ? base : "(none)", roz_error_last());
	if (strcmp(out, want))
		fail_msg("'%s' from '%s' folds to '%s', want '%s'", path, base ? base : "(none)", out, want);
	roz_free(out);
}

static void norm_fails(const char *base, const char *home, const char *path)
{
	char *out = (char *)"x";

	assert_int_equal(roz_path_normalize(base, home, path, &out), ROZ_EINVALID);
	assert_null(out);
	assert_true(roz_error_last()[0] != '\0');
}

static void test_absolute_paths_fold(void **state)
{
	(void)state;
	norm("/w", "/a/b/c", "/a/b/c");
	norm("/w", "/a//b///c/", "/a/b/c");
	norm("/w", "/a/./b/.", "/a/b");
	norm("/w", "/a/b/../c", "/a/c");
	norm("/w", "/tmp/../home/u/.roz/sessions/x.json", "/home/u/.roz/sessions/x.json");
	norm("/w", "/../../etc", "/etc");
	norm("/w", "/..", "/");
	norm("/w", "/", "/");
	norm("/w", "//", "/");
	norm("/w", "/a/b/../../..", "/");
	norm("/w", "/a/...", "/a/...");
	norm("/w", "/a/..b/.c", "/a/..b/.c");
}

static void test_relative_paths_join_the_base(void **state)
{
	(void)state;
	norm("/w", "x", "/w/x");
	norm("/w", "./x", "/w/x");
	norm("/w/sub", "../x", "/w/x");
	norm("/w", "../../../x", "/x");
	norm("/w/", "a//b", "/w/a/b");
	norm("/w", ".", "/w");
	norm("/w", "..", "/");
	norm("/home/u/proj", "../.roz/sessions/s.json", "/home/u/.roz/sessions/s.json");
	norm("/w", "~+/x", "/w/x");
}

static void test_home_is_expanded_at_the_start_only(void **state)
{
	(void)state;
	norm("/w", "~", HOME);
	norm("/w", "~/", HOME);
	norm("/w", "~/.roz", HOME "/.roz");
	norm("/w", "~/../u/.roz", HOME "/.roz");
	norm("/w", "$HOME/.roz", HOME "/.roz");
	norm("/w", "${HOME}/.roz/sessions", HOME "/.roz/sessions");
	norm("/w", "$HOME", HOME);
	/* elsewhere a tilde is an ordinary character */
	norm("/w", "a/~/b", "/w/a/~/b");
	norm("/w", "$HOMEDIR/x", "/w/$HOMEDIR/x");
}

static void test_unknowable_paths_are_errors(void **state)
{
	(void)state;
	norm_fails("/w", HOME, "");
	norm_fails("/w", NULL, "~/.roz");
	norm_fails("/w", "relative/home", "~");
	norm_fails("/w", HOME, "~root/.roz");
	norm_fails("/w", HOME, "~-/x");
	norm_fails(NULL, HOME, "x");
	norm_fails("w", HOME, "x");
}

static void test_under(void **state)
{
	(void)state;
	assert_true(roz_path_under("/home/u/.roz", "/home/u/.roz"));
	assert_true(roz_path_under("/home/u/.roz/sessions/x.json", "/home/u/.roz"));
	assert_true(roz_path_under("/home/u/.roz/x", "/home/u/.roz/"));
	assert_false(roz_path_under("/home/u/.rozzy/x", "/home/u/.roz"));
	assert_false(roz_path_under("/home/u", "/home/u/.roz"));
	assert_false(roz_path_under("/home/u/.ro", "/home/u/.roz"));
	assert_true(roz_path_under("/anything", "/"));
	assert_true(roz_path_under("/", "/"));
}

/* ---- symbolic links through a table ------------------------------------------ */

struct link {
	const char *path, *target;
};

struct fake_fs {
	const struct link *links;
	unsigned calls;
	bool fail;
};

static int fake_read_link(void *ud, const char *path, char **target)
{
	struct fake_fs *f = ud;

	f->calls++;
	if (f->fail)
		return ROZ_ENOMEM;
	for (const struct link *l = f->links; l->path; l++) {
		if (!strcmp(l->path, path)) {
			*target = roz_strdup(l->target);
			return *target ? ROZ_OK : ROZ_ENOMEM;
		}
	}
	return ROZ_ENOTFOUND;
}

static const struct link world[] = {
	{"/tmp/into", "/home/u/.roz"},              /* a way into the store from outside */
	{"/tmp/rel", "../home/u/.roz/sessions"},     /* relative to its directory */
	{"/home/u/.roz/out", "/srv/elsewhere"},      /* a way out of the store */
	{"/w/up", "/home/u/.roz/sessions"},          /* `..` after it goes up from the target */
	{"/loop/a", "/loop/b"},
	{"/loop/b", "/loop/a"},
	{"/chain/1", "2"},
	{"/chain/2", "3"},
	{"/chain/3", "/home/u/.roz"},
	{"/w/self", "."},
	{"/w/empty", ""},
	{NULL, NULL},
};

static void resolves(const char *base, const char *path, const char *want)
{
	struct fake_fs f = {world, 0, false};
	roz_path_fs fs = {HOME, fake_read_link, &f};
	char *out = NULL;
	int rc = roz_path_resolve(&fs, base, path, &out);

	if (rc != ROZ_OK)
		fail_msg("'%s' from '%s' does not resolve: %s", path, base, roz_error_last());
	if (strcmp(out, want))
		fail_msg("'%s' from '%s' resolves to '%s', want '%s'", path, base, out, want);
	roz_free(out);
}

static void test_links_into_the_store(void **state)
{
	(void)state;
	resolves("/w", "/tmp/into/sessions/s.json", "/home/u/.roz/sessions/s.json");
	resolves("/tmp", "into/sessions/s.json", "/home/u/.roz/sessions/s.json");
	resolves("/w", "/tmp/rel/s.json", "/home/u/.roz/sessions/s.json");
	resolves("/w", "/tmp//./into", "/home/u/.roz");
	resolves("/w", "/chain/1/config.toml", "/home/u/.roz/config.toml");
	/* the kernel reads `..` after a link from where the link points */
	resolves("/w", "up/../config.toml", "/home/u/.roz/config.toml");
	resolves("/w", "/w/up/../../.roz/x", "/home/u/.roz/x");
}

static void test_links_out_of_the_store(void **state)
{
	(void)state;
	resolves("/w", "/home/u/.roz/out/file", "/srv/elsewhere/file");
	resolves("/w", "~/.roz/out/../x", "/srv/x");
	resolves("/w", "$HOME/.roz/sessions/s.json", "/home/u/.roz/sessions/s.json");
}

static void test_odd_links(void **state)
{
	struct fake_fs f = {world, 0, false};
	roz_path_fs fs = {HOME, fake_read_link, &f};
	roz_path_fs lexical = {HOME, NULL, NULL};
	char *out = NULL;

	(void)state;
	resolves("/w", "self/self/x", "/w/x");
	resolves("/w", "empty/x", "/w/empty/x");
	resolves("/w", "/no/such/../dir", "/no/dir");
	/* a loop is an error, not a hang */
	assert_int_equal(roz_path_resolve(&fs, "/w", "/loop/a/x", &out), ROZ_EINVALID);
	assert_null(out);
	assert_non_null(strstr(roz_error_last(), "symbolic links"));
	/* a failing callback is passed on */
	f.fail = true;
	assert_int_equal(roz_path_resolve(&fs, "/w", "/tmp/into", &out), ROZ_ENOMEM);
	assert_null(out);
	/* without a callback, resolution is folding */
	assert_int_equal(roz_path_resolve(&lexical, "/w", "/tmp/into/../x", &out), ROZ_OK);
	assert_string_equal(out, "/tmp/x");
	roz_free(out);
	assert_int_equal(roz_path_resolve(NULL, "/w", "a/../b", &out), ROZ_OK);
	assert_string_equal(out, "/w/b");
	roz_free(out);
}

static void test_one_call_per_component(void **state)
{
	struct fake_fs f = {world, 0, false};
	roz_path_fs fs = {HOME, fake_read_link, &f};
	char *out = NULL;

	(void)state;
	assert_int_equal(roz_path_resolve(&fs, "/w", "/a/b/c/d", &out), ROZ_OK);
	assert_int_equal(f.calls, 4);
	roz_free(out);
}

static void test_allocation_failures(void **state)
{
	struct fake_fs f = {world, 0, false};
	roz_path_fs fs = {HOME, fake_read_link, &f};
	int rc = ROZ_ENOMEM;
	char *out;
	long n;

	(void)state;
	for (n = 0; rc != ROZ_OK; n++) {
		roz_alloc_fail_after(n);
		rc = roz_path_resolve(&fs, "/w", "/chain/1/../x/./y//z", &out);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK) {
			assert_string_equal(out, "/home/u/x/y/z");
			roz_free(out);
		} else {
			assert_int_equal(rc, ROZ_ENOMEM);
			assert_null(out);
		}
		assert_true(n < 1000);
	}
	assert_true(n > 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absolute_paths_fold),
		cmocka_unit_test(test_relative_paths_join_the_base),
		cmocka_unit_test(test_home_is_expanded_at_the_start_only),
		cmocka_unit_test(test_unknowable_paths_are_errors),
		cmocka_unit_test(test_under),
		cmocka_unit_test(test_links_into_the_store),
		cmocka_unit_test(test_links_out_of_the_store),
		cmocka_unit_test(test_odd_links),
		cmocka_unit_test(test_one_call_per_component),
		cmocka_unit_test(test_allocation_failures),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
