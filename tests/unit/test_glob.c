/*
 * test_glob.c - gate patterns (stars, single characters, classes, the
 * prefix fallback for broken patterns, linear time) and whether a pattern
 * could still match text whose start alone is known. How a tool call
 * becomes the key a pattern is matched with is test_gate.c's.
 */
#include "support.h"

#include "roz/glob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void yes(const char *pattern, const char *text)
{
	if (!roz_glob_match(pattern, text))
		fail_msg("'%s' should match '%s'", pattern, text);
}

static void no(const char *pattern, const char *text)
{
	if (roz_glob_match(pattern, text))
		fail_msg("'%s' should not match '%s'", pattern, text);
}

/* ---- glob -------------------------------------------------------------------- */

static void test_exact(void **state)
{
	(void)state;
	yes("mcp__tissue__close_issue", "mcp__tissue__close_issue");
	yes("Edit", "Edit");
	yes("", "");
	no("Edit", "edit");
	no("Edit", "Edit2");
	no("Edit", "Edi");
	no("Edit", "");
	no("", "Edit");
	no("Bash:git push", "Bash:git push origin");
}

static void test_star_suffix(void **state)
{
	(void)state;
	yes("mcp__tissue__close*", "mcp__tissue__close_issue");
	yes("mcp__tissue__close*", "mcp__tissue__close_all");
	yes("mcp__tissue__close*", "mcp__tissue__close");
	no("mcp__tissue__close*", "mcp__tissue__list_issues");
	no("mcp__tissue__close*", "mcp__tissue__clos");
}

static void test_star_crosses_slash_and_space(void **state)
{
	(void)state;
	yes("Bash:git push*", "Bash:git push origin main --force");
	yes("*", "a/b/c d e");
	yes("*", "");
	yes("*/secret/*", "home/u/secret/key.pem");
	yes("Bash:rm -rf *", "Bash:rm -rf /var/lib/x y");
	yes("a*z", "a/ /z");
}

static void test_star_prefix_and_middle(void **state)
{
	(void)state;
	yes("*_issue", "mcp__tissue__close_issue");
	no("*_issue", "mcp__tissue__close_issues");
	yes("mcp__*__close_issue", "mcp__tissue__close_issue");
	yes("mcp__*__close_issue", "mcp__a__b__close_issue");
	no("mcp__*__close_issue", "mcp__tissue__close_issue2");
	/* a star may match nothing */
	yes("ab*cd", "abcd");
}

static void test_multiple_stars(void **state)
{
	(void)state;
	yes("a*b*c", "aXbYc");
	yes("a*b*c", "abc");
	yes("a*b*c", "abbbcbc");
	no("a*b*c", "aXbY");
	no("a*b*c", "acb");
	yes("**", "anything at all");
	yes("*a*", "bab");
	no("*a*", "bbb");
	yes("*x*y*", "..x..y..");
	no("*x*y*", "..y..x..");
}

static void test_star_needs_retry(void **state)
{
	(void)state;
	/* the first candidate for the text after a star is not the right one */
	yes("*ab", "aab");
	yes("*aab", "aaab");
	yes("*abc*abd", "abcabcabd");
	no("*abc*abd", "abcabcab");
	yes("a*ba*b", "abababab");
}

static void test_question_mark(void **state)
{
	(void)state;
	yes("Edi?", "Edit");
	no("Edi?", "Edi");
	no("Edi?", "Editt");
	yes("a?c", "a/c");
	yes("a?c", "a c");
	yes("???", "abc");
	no("???", "ab");
	yes("?*", "x");
	no("?*", "");
}

static void test_question_mark_is_one_character(void **state)
{
	(void)state;
	/* characters, not bytes: 2-byte and 4-byte UTF-8 each count once */
	yes("?", "\xc3\xa9");
	no("??", "\xc3\xa9");
	yes("?", "\xf0\x9f\x8e\x89");
	no("????", "\xf0\x9f\x8e\x89");
	yes("caf?", "caf\xc3\xa9");
	yes("?x?", "\xe2\x82\xacx\xe6\x97\xa5");
}

static void test_classes(void **state)
{
	(void)state;
	yes("[abc]", "a");
	yes("[abc]", "b");
	yes("[abc]", "c");
	no("[abc]", "d");
	no("[abc]", "");
	no("[abc]", "ab");
	yes("Bash:git [pP]ush*", "Bash:git Push -f");
	yes("x[0-9]", "x7");
	no("x[0-9]", "xa");
	yes("[a-cx-z]", "y");
	no("[a-cx-z]", "m");
	yes("[*]", "*");
	no("[*]", "a");
	yes("[?]", "?");
	no("[?]", "q");
}

static void test_negated_classes(void **state)
{
	(void)state;
	yes("[!x]", "y");
	no("[!x]", "x");
	yes("[!a-z]", "A");
	no("[!a-z]", "q");
	yes("file[!0-9].txt", "fileA.txt");
	no("file[!0-9].txt", "file5.txt");
}

static void test_bracket_first_in_class(void **state)
{
	(void)state;
	yes("[]]", "]");
	no("[]]", "a");
	yes("[]a]", "a");
	yes("[]a]", "]");
	no("[]a]", "b");
	yes("[!]]", "a");
	no("[!]]", "]");
	/* a trailing '-' is literal */
	yes("[a-]", "-");
	yes("[a-]", "a");
	no("[a-]", "b");
}

static void test_utf8_classes(void **state)
{
	(void)state;
	yes("[\xc3\xa9\xc3\xa8]", "\xc3\xa8");
	no("[\xc3\xa9\xc3\xa8]", "e");
	/* a range of code points: U+00E0..U+00FF */
	yes("[\xc3\xa0-\xc3\xbf]", "\xc3\xa9");
	no("[\xc3\xa0-\xc3\xbf]", "\xc4\x80");
	yes("[!\xc3\xa9]", "\xf0\x9f\x8e\x89");
}

static void test_bash_key_patterns(void **state)
{
	(void)state;
	yes("Bash:gh issue close*", "Bash:gh issue close 123");
	no("Bash:gh issue close*", "Bash:gh pr merge 123");
	yes("Bash:git push*", "Bash:git push");
	yes("Bash:git push*", "Bash:git push --force origin");
	no("Bash:git push*", "Bash:git pull");
	no("Bash:git push*", "Bash:echo git push");
	no("Bash:git push*", "Edit");
	yes("Bash:*", "Bash:ls");
	no("Bash:*", "Bashful");
}

static void test_valid(void **state)
{
	(void)state;
	assert_true(roz_glob_valid(""));
	assert_true(roz_glob_valid("Edit"));
	assert_true(roz_glob_valid("a*b?c"));
	assert_true(roz_glob_valid("[abc]"));
	assert_true(roz_glob_valid("[]]"));
	assert_true(roz_glob_valid("[!a-z]x[0-9]"));
	assert_false(roz_glob_valid("["));
	assert_false(roz_glob_valid("abc["));
	assert_false(roz_glob_valid("Bash:[git push*"));
	assert_false(roz_glob_valid("[]"));
	assert_false(roz_glob_valid("[!]"));
	assert_false(roz_glob_valid("[a][b"));
}

static void test_unclosed_bracket_falls_back_to_prefix(void **state)
{
	(void)state;
	/* the pattern minus trailing stars must start the key: a typo still gates */
	yes("Bash:[git push*", "Bash:[git push origin");
	yes("Bash:[git push*", "Bash:[git push");
	no("Bash:[git push*", "Bash:git push");
	no("Bash:[git push*", "Bash:[git pul");
	yes("abc[", "abc[");
	yes("abc[", "abc[def");
	no("abc[", "abd");
	yes("[", "[x");
	no("[", "");
	/* a star inside the broken pattern is literal */
	no("a*b[", "aXXb[");
	yes("a*b[", "a*b[c");
	/* the broken pattern never matches everything */
	no("[***", "anything");
}

static void test_pathological_pattern_finishes(void **state)
{
	size_t n = 10000;
	char *text = malloc(n + 2);

	(void)state;
	assert_non_null(text);
	memset(text, 'a', n);
	text[n] = '\0';
	/* exponential with naive backtracking; must simply complete */
	no("a*a*a*a*a*a*a*a*b", text);
	no("*a*a*a*a*a*a*a*a*a*a*a*a*b", text);
	no("*?*?*?*?*?*?*?*b", text);
	text[n] = 'b';
	text[n + 1] = '\0';
	yes("a*a*a*a*a*a*a*a*b", text);
	yes("*a*a*a*a*a*a*a*a*a*a*a*a*b", text);
	free(text);
}

static void test_invalid_utf8_text(void **state)
{
	(void)state;
	/* stray bytes are single characters: no crash, no overread */
	yes("?", "\xff");
	yes("a?b", "a\x80" "b");
	yes("*", "\xc3");
	no("??", "\xc3");
	yes("x*", "x\xf0\x9f");
}

/* ---- keys known only up to a point ------------------------------------------------- */

static void could(const char *pattern, const char *prefix)
{
	if (!roz_glob_could_match(pattern, prefix, strlen(prefix)))
		fail_msg("'%s' should be able to match something starting '%s'", pattern, prefix);
}

static void never(const char *pattern, const char *prefix)
{
	if (roz_glob_could_match(pattern, prefix, strlen(prefix)))
		fail_msg("'%s' cannot match anything starting '%s'", pattern, prefix);
}

static void test_could_match_a_known_start(void **state)
{
	(void)state;
	could("Bash:git push*", "Bash:git ");
	could("Bash:git push*", "Bash:git pus");
	could("Bash:git push*", "Bash:git push --force");
	could("Bash:git push*", "Bash:");
	could("Bash:git push*", "");
	could("Bash:git push", "Bash:git p");
	could("*", "anything at all");
	could("*--force*", "Bash:echo ");
	could("Bash:*rm -rf*", "Bash:ls ");
	could("Bash:git ?ush*", "Bash:git x");
	could("Bash:git [pP]ush*", "Bash:git P");
	could("Bash:git [!x]ush", "Bash:git p");
	could("Bash:gh issue close*", "Bash:gh issue ");
	never("Bash:git push*", "Bash:echo ");
	never("Bash:git push*", "Bash:git add ");
	never("Bash:git push*", "Bash:gitk ");
	never("Bash:git push*", "Bash:git pull");
	never("Bash:git push", "Bash:git push ");
	never("Bash:git [!p]ush*", "Bash:git p");
	never("mcp__tissue__*", "Bash:");
	never("Edit", "Editor");
}

static void test_could_match_counts_bytes_not_text(void **state)
{
	(void)state;
	/* only the first len bytes are known; what follows them is not looked at */
	assert_true(roz_glob_could_match("Bash:git push*", "Bash:git pull", 10));
	assert_false(roz_glob_could_match("Bash:git push*", "Bash:git pull", 12));
	assert_true(roz_glob_could_match("ab", "abc", 0));
	/* a character cut by the end of the known start could be any character */
	assert_true(roz_glob_could_match("x\xc3\xa9*", "x\xc3\xa9", 2));
	assert_true(roz_glob_could_match("x\xc3\xa9*", "x\xc3\xa9", 3));
	assert_false(roz_glob_could_match("x\xc3\xa9*", "x\xc3\xa8", 3));
	assert_true(roz_glob_could_match("?", "\xc3\xa9", 2));
}

static void test_could_match_with_an_unclosed_bracket(void **state)
{
	(void)state;
	/* an invalid pattern matches keys that start with it (stars aside) */
	could("Bash:git [push*", "Bash:git ");
	could("Bash:git [push*", "Bash:git [push now");
	never("Bash:git [push*", "Bash:git p");
}

static void test_could_match_is_linear(void **state)
{
	char *text = calloc(1, 200001), *pat = calloc(1, 100003);

	(void)state;
	memset(text, 'a', 200000);
	memset(pat, 'a', 100000);
	memcpy(pat + 100000, "b*", 2);
	assert_false(roz_glob_could_match(pat, text, 200000));
	assert_true(roz_glob_could_match(pat, text, 99999));
	free(text);
	free(pat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_star_suffix),
		cmocka_unit_test(test_star_crosses_slash_and_space),
		cmocka_unit_test(test_star_prefix_and_middle),
		cmocka_unit_test(test_multiple_stars),
		cmocka_unit_test(test_star_needs_retry),
		cmocka_unit_test(test_question_mark),
		cmocka_unit_test(test_question_mark_is_one_character),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_negated_classes),
		cmocka_unit_test(test_bracket_first_in_class),
		cmocka_unit_test(test_utf8_classes),
		cmocka_unit_test(test_bash_key_patterns),
		cmocka_unit_test(test_could_match_a_known_start),
		cmocka_unit_test(test_could_match_counts_bytes_not_text),
		cmocka_unit_test(test_could_match_with_an_unclosed_bracket),
		cmocka_unit_test(test_could_match_is_linear),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_unclosed_bracket_falls_back_to_prefix),
		cmocka_unit_test(test_pathological_pattern_finishes),
		cmocka_unit_test(test_invalid_utf8_text),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
