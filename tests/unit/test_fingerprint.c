/*
 * test_fingerprint.c - whether an approval still covers the work: the
 * fingerprint the verdict recorded against the one taken now, file by file
 * (content, mode, presence), and which changes count under each
 * rereview_on_change setting.
 */
#include "support.h"

#include "roz/fingerprint.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define FILE_MODE (S_IFREG | 0644)
#define EXEC_MODE (S_IFREG | 0755)

/* A fingerprint from "path=content" pairs ("path=" with nothing after the '=' and a '-' mode: removed). */
static void fp_of(roz_fingerprint *fp, const char *const *spec, size_t n)
{
	memset(fp, 0, sizeof *fp);
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(spec[i], '=');
		char path[256], hash[ROZ_SHA256_HEX_SIZE] = "";
		bool exec = eq && eq[1] == '!';
		const char *content = eq ? eq + 1 + exec : "";

		assert_non_null(eq);
		snprintf(path, sizeof path, "%.*s", (int)(eq - spec[i]), spec[i]);
		if (*content)
			roz_digest_sha256_hex(content, strlen(content), hash);
		assert_int_equal(roz_fingerprint_put(fp, path, hash, exec ? EXEC_MODE : FILE_MODE), ROZ_OK);
	}
}

/* The comparison as "path:change" joined by spaces ("" when the approval holds). */
static char *compare(const char *const *a, size_t na, const char *const *b, size_t nb, roz_rereview mode,
		     const char *const *ignore, size_t nignore)
{
	roz_fingerprint x, y;
	roz_fp_diff d;
	static char out[1024];
	size_t len = 0;

	fp_of(&x, a, na);
	fp_of(&y, b, nb);
	assert_int_equal(roz_fingerprint_compare(&x, &y, mode, ignore, nignore, &d), ROZ_OK);
	out[0] = '\0';
	for (size_t i = 0; i < d.n; i++)
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s:%s", i ? " " : "", d.items[i].path,
					roz_fp_change_name(d.items[i].change));
	roz_fp_diff_dispose(&d);
	roz_fingerprint_dispose(&x);
	roz_fingerprint_dispose(&y);
	return out;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define CMP(a, b) compare(a, N(a), b, N(b), ROZ_REREVIEW_ALWAYS, NULL, 0)

static void test_unchanged_holds(void **state)
{
	const char *const approved[] = {"src/a.c=one\n", "src/b.c=two\n"};

	(void)state;
	assert_string_equal(CMP(approved, approved), "");
}

static void test_a_further_edit_is_named(void **state)
{
	const char *const approved[] = {"src/a.c=one\n", "src/b.c=two\n"};
	const char *const now[] = {"src/a.c=one\nmore\n", "src/b.c=two\n"};

	(void)state;
	assert_string_equal(CMP(approved, now), "src/a.c:modified");
}

static void test_a_new_file_after_approval_is_named(void **state)
{
	const char *const approved[] = {"src/a.c=one\n"};
	const char *const now[] = {"src/a.c=one\n", "src/new.c=x\n"};

	(void)state;
	assert_string_equal(CMP(approved, now), "src/new.c:added");
}

static void test_changed_and_changed_back_holds(void **state)
{
	/* the file was edited after approval and then restored: the fingerprint is the same again */
	const char *const approved[] = {"src/a.c=one\n"};
	const char *const restored[] = {"src/a.c=one\n"};

	(void)state;
	assert_string_equal(CMP(approved, restored), "");
}

static void test_deletion_and_revert(void **state)
{
	/* a file the task wrote is deleted after approval; another's change is undone (back to the baseline) */
	const char *const approved[] = {"src/a.c=one\n", "src/b.c=two\n"};
	const char *const now[] = {"src/a.c=", "src/c.c=three\n"};

	(void)state;
	assert_string_equal(CMP(approved, now), "src/a.c:removed src/b.c:reverted src/c.c:added");
}

static void test_a_file_the_task_removed_brought_back(void **state)
{
	const char *const approved[] = {"old.c="};
	const char *const now[] = {"old.c=back\n"};

	(void)state;
	assert_string_equal(CMP(approved, now), "old.c:added");
	/* removed then and still removed: as approved */
	assert_string_equal(CMP(approved, approved), "");
}

static void test_rename_names_both_paths(void **state)
{
	const char *const approved[] = {"src/a.c=one\n"};
	const char *const now[] = {"src/a.c=", "src/z.c=one\n"};

	(void)state;
	assert_string_equal(CMP(approved, now), "src/a.c:removed src/z.c:added");
}

static void test_mode_change_alone_is_a_change(void **state)
{
	const char *const approved[] = {"run.sh=echo hi\n"};
	const char *const now[] = {"run.sh=!echo hi\n"};

	(void)state;
	assert_string_equal(CMP(approved, now), "run.sh:modified");
}

static void test_files_outside_the_repository(void **state)
{
	const char *const approved[] = {"/home/u/notes.txt=a\n", "src/a.c=one\n"};
	const char *const now[] = {"/home/u/notes.txt=b\n", "src/a.c=one\n"};

	(void)state;
	assert_string_equal(CMP(approved, now), "/home/u/notes.txt:modified");
}

static void test_code_mode_ignores_docs(void **state)
{
	const char *const approved[] = {"README.md=a\n", "docs/x/guide.txt=g\n", "src/a.c=one\n"};
	const char *const now[] = {"README.md=b\n", "docs/x/guide.txt=h\n", "src/a.c=one\n"};
	const char *const now_code[] = {"README.md=b\n", "docs/x/guide.txt=h\n", "src/a.c=two\n"};
	const char *const ignore[] = {"*.md", "docs/*"};

	(void)state;
	assert_string_equal(compare(approved, 3, now, 3, ROZ_REREVIEW_CODE, ignore, 2), "");
	assert_string_equal(compare(approved, 3, now_code, 3, ROZ_REREVIEW_CODE, ignore, 2), "src/a.c:modified");
	assert_string_equal(compare(approved, 3, now, 3, ROZ_REREVIEW_ALWAYS, ignore, 2),
			    "README.md:modified docs/x/guide.txt:modified");
	assert_string_equal(compare(approved, 3, now_code, 3, ROZ_REREVIEW_NEVER, NULL, 0), "");
}

static void test_put_keeps_order_and_replaces(void **state)
{
	roz_fingerprint fp = {0};
	char h[ROZ_SHA256_HEX_SIZE];

	(void)state;
	roz_digest_sha256_hex("x", 1, h);
	assert_int_equal(roz_fingerprint_put(&fp, "b", h, FILE_MODE), ROZ_OK);
	assert_int_equal(roz_fingerprint_put(&fp, "a", h, FILE_MODE), ROZ_OK);
	assert_int_equal(roz_fingerprint_put(&fp, "c", h, FILE_MODE), ROZ_OK);
	assert_int_equal(roz_fingerprint_put(&fp, "b", "", FILE_MODE), ROZ_OK);
	assert_int_equal(fp.n, 3);
	assert_string_equal(fp.items[0].path, "a");
	assert_string_equal(fp.items[1].path, "b");
	assert_string_equal(fp.items[2].path, "c");
	/* replaced by "not there": no hash, no mode */
	assert_string_equal(fp.items[1].hash, "");
	assert_int_equal(fp.items[1].mode, 0);
	/* a git object id fits; a hash longer than a SHA-256's hex is "not there", never half a hash */
	assert_int_equal(roz_fingerprint_put(&fp, "d", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", FILE_MODE), ROZ_OK);
	assert_string_equal(fp.items[3].hash, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	assert_int_equal(roz_fingerprint_put(&fp, "e", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0",
					     FILE_MODE), ROZ_OK);
	assert_string_equal(fp.items[4].hash, "");
	assert_int_equal(fp.items[4].mode, 0);
	roz_fingerprint_dispose(&fp);
}

static void test_names(void **state)
{
	roz_rereview r;

	(void)state;
	for (int i = ROZ_REREVIEW_ALWAYS; i <= ROZ_REREVIEW_NEVER; i++) {
		assert_int_equal(roz_rereview_parse(roz_rereview_name((roz_rereview)i), &r), ROZ_OK);
		assert_int_equal(r, i);
	}
	assert_int_equal(roz_rereview_parse("sometimes", &r), ROZ_EINVALID);
	assert_int_equal(roz_rereview_parse(NULL, &r), ROZ_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged_holds),
		cmocka_unit_test(test_a_further_edit_is_named),
		cmocka_unit_test(test_a_new_file_after_approval_is_named),
		cmocka_unit_test(test_changed_and_changed_back_holds),
		cmocka_unit_test(test_deletion_and_revert),
		cmocka_unit_test(test_a_file_the_task_removed_brought_back),
		cmocka_unit_test(test_rename_names_both_paths),
		cmocka_unit_test(test_mode_change_alone_is_a_change),
		cmocka_unit_test(test_files_outside_the_repository),
		cmocka_unit_test(test_code_mode_ignores_docs),
		cmocka_unit_test(test_put_keeps_order_and_replaces),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
