/*
 * test_ignore_dir.c - roz_ignore_verdict (roz/scope.h): what one ignore file
 * says of one path, file or directory, its parents not asked; the three
 * answers a walk needs to stack ignore files as git does.
 */
#include "support.h"

#include "roz/scope.h"

#include <stdio.h>
#include <string.h>

static roz_ignore parse(const char *text)
{
	roz_ignore ig;

	assert_int_equal(roz_ignore_parse(text, strlen(text), &ig, NULL), ROZ_OK);
	return ig;
}

typedef struct verdict_case {
	const char *path;
	bool dir;
	int want;
} verdict_case;

static void check(const char *rules, bool fold, const verdict_case *cases, size_t n)
{
	roz_ignore ig = parse(rules);

	for (size_t i = 0; i < n; i++) {
		int got = roz_ignore_verdict(&ig, cases[i].path, cases[i].dir, fold);

		if (got != cases[i].want)
			fail_msg("rules \"%s\": %s%s is %d, not %d", rules, cases[i].path, cases[i].dir ? "/" : "", got,
				 cases[i].want);
	}
	roz_ignore_dispose(&ig);
}

#define CHECK(rules, fold, cases) check(rules, fold, cases, sizeof cases / sizeof cases[0])

static void the_last_matching_rule_decides(void **state)
{
	static const verdict_case cases[] = {
		{"a.log", false, 1},
		{"keep.log", false, -1},
		{"src/keep.log", false, -1},
		{"a.txt", false, 0},
		/* re-ignored by a later line */
		{"keep.log.bak", false, 0},
		{"x/again.log", false, 1},
	};

	(void)state;
	CHECK("*.log\n!keep.log\nagain.log\n", false, cases);
}

static void a_trailing_slash_rule_matches_directories_only(void **state)
{
	static const verdict_case cases[] = {
		{"build", true, 1},
		{"build", false, 0},
		{"src/build", true, 1},
		{"out", true, 1},
		{"out", false, 0},
		{"src/out", true, 0},
	};

	(void)state;
	CHECK("build/\n/out/\n", false, cases);
}

static void parents_are_not_asked(void **state)
{
	static const verdict_case cases[] = {
		/* roz_ignore_match would say yes for both: their parent is ignored */
		{"build/x", false, 0},
		{"build/sub", true, 0},
		{"build", true, 1},
	};
	roz_ignore ig = parse("build/\n");

	(void)state;
	CHECK("build/\n", false, cases);
	assert_true(roz_ignore_match(&ig, "build/x", false));
	roz_ignore_dispose(&ig);
}

static void anchored_rules_match_the_whole_path(void **state)
{
	static const verdict_case cases[] = {
		{"top", false, 1},
		{"a/top", false, 0},
		{"docs/x.html", false, 1},
		{"docs/api/x.html", false, 0},
		{"a/docs/x.html", false, 0},
		{"deep/er/z", false, 1},
		{"z", false, 1},
	};

	(void)state;
	CHECK("/top\ndocs/*.html\n**/z\n", false, cases);
}

static void case_folds_when_asked(void **state)
{
	static const verdict_case folded[] = {
		{"A.LOG", false, 1},
		{"Build", true, 1},
	};
	static const verdict_case exact[] = {
		{"A.LOG", false, 0},
		{"Build", true, 0},
		{"a.log", false, 1},
	};

	(void)state;
	CHECK("*.log\nbuild/\n", true, folded);
	CHECK("*.log\nbuild/\n", false, exact);
}

static void no_rules_or_no_normal_path_say_nothing(void **state)
{
	roz_ignore ig = parse("*\n"), none = {NULL, 0};

	(void)state;
	assert_int_equal(roz_ignore_verdict(&ig, "x", false, false), 1);
	assert_int_equal(roz_ignore_verdict(&ig, "", false, false), 0);
	assert_int_equal(roz_ignore_verdict(&ig, "/x", false, false), 0);
	assert_int_equal(roz_ignore_verdict(&ig, "a//x", false, false), 0);
	assert_int_equal(roz_ignore_verdict(&ig, "a/../x", false, false), 0);
	assert_int_equal(roz_ignore_verdict(&ig, NULL, false, false), 0);
	assert_int_equal(roz_ignore_verdict(NULL, "x", false, false), 0);
	assert_int_equal(roz_ignore_verdict(&none, "x", true, false), 0);
	roz_ignore_dispose(&ig);
}

/*
 * For a file whose parents no rule ignores, the verdict and
 * roz_ignore_match agree: the verdict is the same judgement without the
 * parents.
 */
static void it_agrees_with_ignore_match_for_files(void **state)
{
	static const char *rules = "*.o\n!keep.o\nbuild/\n/top\nsrc/*.gen\n**/deep\na?c\n[xy]z\n\\#h\n";
	static const char *paths[] = {"a.o", "keep.o", "src/a.o", "top", "src/top", "src/x.gen",
				      "src/sub/x.gen", "a/b/deep", "deep", "abc", "src/axc", "xz", "zz",
				      "#h", "build", "plain", "src/plain"};
	roz_ignore ig = parse(rules);

	(void)state;
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		bool matched = roz_ignore_match(&ig, paths[i], false);
		bool judged = roz_ignore_verdict(&ig, paths[i], false, false) > 0;

		if (matched != judged)
			fail_msg("%s: roz_ignore_match says %d, the verdict %d", paths[i], matched, judged);
	}
	roz_ignore_dispose(&ig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_last_matching_rule_decides),
		cmocka_unit_test(a_trailing_slash_rule_matches_directories_only),
		cmocka_unit_test(parents_are_not_asked),
		cmocka_unit_test(anchored_rules_match_the_whole_path),
		cmocka_unit_test(case_folds_when_asked),
		cmocka_unit_test(no_rules_or_no_normal_path_say_nothing),
		cmocka_unit_test(it_agrees_with_ignore_match_for_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
