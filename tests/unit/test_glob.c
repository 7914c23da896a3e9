/*
 * test_glob.c - gate patterns (stars, single characters, classes, the
 * prefix fallback for broken patterns, linear time) and the Bash command
 * normalisation that turns a command line into the key gates match.
 */
#include "support.h"

#include "roz/gate.h"
#include "roz/glob.h"

#include <cjson/cJSON.h>
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

/* ---- Bash commands as gate keys ----------------------------------------------------- */

static void gates(roz_config *c, const char *const *patterns, size_t n);

/* Would a gate with this pattern hold this Bash command? (An unsure reading counts.) */
static bool holds(const char *pattern, const char *command)
{
	roz_config c;
	roz_gate_match m;
	cJSON *in = cJSON_CreateObject();
	bool hit;

	gates(&c, &pattern, 1);
	cJSON_AddStringToObject(in, "command", command);
	assert_int_equal(roz_gate_check(&c, "Bash", in, "/w", &m), ROZ_OK);
	hit = m.matched || m.unsure;
	roz_gate_match_dispose(&m);
	cJSON_Delete(in);
	roz_config_dispose(&c);
	return hit;
}

#define HOLDS(p, cmd) \
	do { if (!holds(p, cmd)) fail_msg("'%s' should be held by '%s'", cmd, p); } while (0)
#define PASSES(p, cmd) \
	do { if (holds(p, cmd)) fail_msg("'%s' should pass '%s'", cmd, p); } while (0)

static void test_bash_simple_commands(void **state)
{
	(void)state;
	HOLDS("Bash:gh issue close*", "gh issue close 123");
	HOLDS("Bash:git push", "  git push  \n");
	PASSES("Bash:git push*", "");
	PASSES("Bash:git push*", "git status");
}

static void test_bash_every_command_of_a_pipeline(void **state)
{
	(void)state;
	HOLDS("Bash:gh issue close*", "echo 'y' | gh issue close 123");
	HOLDS("Bash:head -5", "cat file | grep foo | head -5");
	HOLDS("Bash:grep foo", "cat file | grep foo | head -5");
	HOLDS("Bash:git push", "yes|git push");
	HOLDS("Bash:gh issue close*", "echo y | GH_TOKEN=abc gh issue close 123");
}

static void test_bash_quoted_pipes_are_data(void **state)
{
	(void)state;
	PASSES("Bash:world*", "echo 'hello | world'");
	PASSES("Bash:bar*", "echo \"foo | bar\"");
	HOLDS("Bash:echo hello | world", "echo 'hello | world'");
	HOLDS("Bash:git push", "echo 'a|b' | git push");
	HOLDS("Bash:wc -l", "echo \"a \\\" | b\" | wc -l");
}

static void test_bash_assignments_are_dropped(void **state)
{
	(void)state;
	HOLDS("Bash:gh issue close*", "GH_TOKEN=abc gh issue close 123");
	HOLDS("Bash:mycommand arg", "FOO=1 BAR=2 BAZ=3 mycommand arg");
	HOLDS("Bash:git push", "FOO=\"a b c\" git push");
	HOLDS("Bash:git push", "FOO='a b' git push");
	HOLDS("Bash:git push", "FOO=\"say \\\"hi\\\"\" git push");
	/* an empty value is still an assignment, not the command */
	HOLDS("Bash:git push", "FOO= git push");
	HOLDS("Bash:git push --force", "A=1 B= git push --force");
	HOLDS("Bash:git push", "FOO=\"a\\\\\" git push");
}

static void test_bash_backslash_inside_single_quotes(void **state)
{
	(void)state;
	/* inside '...' a backslash is an ordinary character, so the pipe is real */
	HOLDS("Bash:git push", "echo 'a\\' | git push");
}

static void test_bash_env_wrapper(void **state)
{
	(void)state;
	HOLDS("Bash:gh issue close 123", "env GH_TOKEN=abc gh issue close 123");
	HOLDS("Bash:git push origin", "env A=1 B='x y' git push origin");
	HOLDS("Bash:git push", "env git push");
}

static void test_bash_nested_shells(void **state)
{
	(void)state;
	HOLDS("Bash:gh issue close 123", "bash -c \"gh issue close 123\"");
	HOLDS("Bash:echo hello", "bash -c 'echo hello'");
	HOLDS("Bash:ls -la", "sh -c 'ls -la'");
	HOLDS("Bash:pwd", "/bin/bash -c 'pwd'");
	HOLDS("Bash:git push", "/bin/sh -c \"git push\"");
	HOLDS("Bash:pwd", "bash -c pwd");
	HOLDS("Bash:echo hello", "bash -c \"echo hello\" extra_stuff");
	HOLDS("Bash:inner cmd", "FOO=1 bash -c \"inner cmd\"");
	HOLDS("Bash:git push", "env X=1 sh -c 'git push'");
	HOLDS("Bash:git push", "echo y | bash -c 'git push'");
	HOLDS("Bash:x", "zsh -c 'x'");
	/* a program that merely starts with "bash" is not a shell */
	HOLDS("Bash:bashful -c x", "bashful -c 'x'");
	PASSES("Bash:x", "bashful -c 'x'");
}

static void test_bash_unreadable_lines_are_not_waved_through(void **state)
{
	(void)state;
	HOLDS("Bash:echo*", "bash -c \"echo hello");
	HOLDS("Bash:git push*", "sh -c 'git push");
	HOLDS("Bash:git push*", "$CMD push");
	/* with no Bash gate, an unreadable line is none of roz's business */
	PASSES("mcp__tissue__*", "$CMD push");
}

/* The gate's answer for a line: matched, asked about (unsure) or neither. */
static const char *verdict(const char *pattern, const char *command, char **why)
{
	roz_config c;
	roz_gate_match m;
	cJSON *in = cJSON_CreateObject();
	const char *v;

	gates(&c, &pattern, 1);
	cJSON_AddStringToObject(in, "command", command);
	assert_int_equal(roz_gate_check(&c, "Bash", in, "/w", &m), ROZ_OK);
	v = m.matched ? "matched" : m.unsure ? "unsure" : "none";
	if (why)
		*why = m.unsure ? strdup(m.unsure) : NULL;
	roz_gate_match_dispose(&m);
	cJSON_Delete(in);
	roz_config_dispose(&c);
	return v;
}

static void test_bash_run_time_arguments_are_asked_about(void **state)
{
	char *why = NULL;

	(void)state;
	assert_string_equal(verdict("Bash:git push*", "a=push; git $a origin main", &why), "unsure");
	assert_non_null(strstr(why, "`git $a origin main`"));
	assert_non_null(strstr(why, "`Bash:git push*`"));
	assert_non_null(strstr(why, "`$a`"));
	free(why);
	assert_string_equal(verdict("Bash:git push*", "git \"$(echo push)\"", &why), "unsure");
	assert_non_null(strstr(why, "`$(echo push)`"));
	free(why);
	assert_string_equal(verdict("Bash:git push*", "echo push | xargs git", &why), "unsure");
	assert_non_null(strstr(why, "xargs"));
	free(why);
	assert_string_equal(verdict("Bash:git push*", "git -c alias.p=push p", &why), "unsure");
	assert_non_null(strstr(why, "alias"));
	free(why);
	/* literal text that already matches is a match, as before */
	assert_string_equal(verdict("Bash:git push*", "git push $REMOTE", NULL), "matched");
	/* a known start no completion can turn into the pattern changes nothing */
	assert_string_equal(verdict("Bash:git push*", "echo $(date) && git status", NULL), "none");
	assert_string_equal(verdict("Bash:git push*", "git add \"$f\"", NULL), "none");
	assert_string_equal(verdict("Bash:git push origin", "git push $X", NULL), "unsure");
	assert_string_equal(verdict("Bash:git push", "git push $X", NULL), "unsure");
	assert_string_equal(verdict("Bash:*--force*", "git push $X", NULL), "unsure");
	/* roz's own commands stay ungated, computed or not */
	assert_string_equal(verdict("Bash:*", "roz context $SID", NULL), "none");
	/* with no gate on Bash, a computed argument is none of roz's business */
	assert_string_equal(verdict("mcp__x__*", "git $a", NULL), "none");
}

static void test_bash_matches_the_whole_command(void **state)
{
	char cmd[300];
	roz_config c;
	roz_gate_match m;
	cJSON *in;
	static const char *const pat = "Bash:*TAIL";

	(void)state;
	memset(cmd, 0, sizeof(cmd));
	memcpy(cmd, "echo ", 5);
	memset(cmd + 5, 'a', 250);
	memcpy(cmd + 255, " TAIL", 5);
	/* what matters for matching can sit far past any display limit */
	HOLDS(pat, cmd);
	gates(&c, &pat, 1);
	in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "command", cmd);
	assert_int_equal(roz_gate_check(&c, "Bash", in, "/w", &m), ROZ_OK);
	assert_true(m.matched);
	assert_int_equal(strlen(m.tool_key), ROZ_MAX_KEY_DISPLAY);
	roz_gate_match_dispose(&m);
	cJSON_Delete(in);
	roz_config_dispose(&c);
}

/* ---- matching a tool call against gates ------------------------------------------- */

static void gates(roz_config *c, const char *const *patterns, size_t n)
{
	assert_int_equal(roz_config_init(c), ROZ_OK);
	c->gate_tools = roz_calloc(n + 1, sizeof(char *));
	assert_non_null(c->gate_tools);
	for (size_t i = 0; i < n; i++)
		c->gate_tools[i] = roz_strdup(patterns[i]);
	c->n_gate_tools = n;
}

static void test_gate_match_bash(void **state)
{
	static const char *const pats[] = {"Bash:git push*", "mcp__tissue__close*"};
	roz_config c;
	roz_gate_match m;
	cJSON *in = cJSON_Parse("{\"command\":\"echo y | GIT_SSH=x git push origin main\"}");

	(void)state;
	gates(&c, pats, 2);
	assert_int_equal(roz_gate_check(&c, "Bash", in, "/w", &m), ROZ_OK);
	assert_true(m.matched);
	assert_string_equal(m.tool_key, "Bash:git push origin main");
	assert_string_equal(m.pattern, "Bash:git push*");
	roz_gate_match_dispose(&m);
	assert_false(m.matched);
	assert_null(m.tool_key);
	cJSON_Delete(in);
	roz_config_dispose(&c);
}

static void test_gate_match_tool_names(void **state)
{
	static const char *const pats[] = {"Bash:git push*", "mcp__tissue__close*", "*"};
	roz_config c;
	roz_gate_match m;
	cJSON *ls = cJSON_Parse("{\"command\":\"ls\"}");

	(void)state;
	gates(&c, pats, 2);
	assert_int_equal(roz_gate_check(&c, "mcp__tissue__close_issue", NULL, "/w", &m), ROZ_OK);
	assert_true(m.matched);
	assert_string_equal(m.tool_key, "mcp__tissue__close_issue");
	assert_string_equal(m.pattern, "mcp__tissue__close*");
	roz_gate_match_dispose(&m);
	assert_int_equal(roz_gate_check(&c, "Edit", NULL, "/w", &m), ROZ_OK);
	assert_false(m.matched);
	assert_null(m.pattern);
	roz_gate_match_dispose(&m);
	assert_int_equal(roz_gate_check(&c, "Bash", ls, "/w", &m), ROZ_OK);
	assert_false(m.matched);
	roz_gate_match_dispose(&m);
	roz_config_dispose(&c);
	/* the first pattern that matches wins */
	gates(&c, pats + 2, 1);
	assert_int_equal(roz_gate_check(&c, "Bash", ls, "/w", &m), ROZ_OK);
	assert_true(m.matched);
	assert_string_equal(m.tool_key, "Bash:ls");
	assert_string_equal(m.pattern, "*");
	roz_gate_match_dispose(&m);
	/* no tool name is matched as "unknown"; Bash without a command as "Bash" */
	assert_int_equal(roz_gate_check(&c, NULL, NULL, "/w", &m), ROZ_OK);
	assert_string_equal(m.tool_key, "unknown");
	roz_gate_match_dispose(&m);
	assert_int_equal(roz_gate_check(&c, "Bash", NULL, "/w", &m), ROZ_OK);
	assert_string_equal(m.tool_key, "Bash");
	roz_gate_match_dispose(&m);
	roz_config_dispose(&c);
	cJSON_Delete(ls);
}

static void test_gate_match_no_gates(void **state)
{
	roz_config c;
	roz_gate_match m;

	(void)state;
	assert_int_equal(roz_config_init(&c), ROZ_OK);
	assert_int_equal(roz_gate_check(&c, "Edit", NULL, "/w", &m), ROZ_OK);
	assert_false(m.matched);
	assert_null(m.tool_key);
	roz_config_dispose(&c);
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
		cmocka_unit_test(test_bash_simple_commands),
		cmocka_unit_test(test_bash_every_command_of_a_pipeline),
		cmocka_unit_test(test_bash_quoted_pipes_are_data),
		cmocka_unit_test(test_bash_assignments_are_dropped),
		cmocka_unit_test(test_bash_backslash_inside_single_quotes),
		cmocka_unit_test(test_bash_env_wrapper),
		cmocka_unit_test(test_bash_nested_shells),
		cmocka_unit_test(test_bash_unreadable_lines_are_not_waved_through),
		cmocka_unit_test(test_bash_run_time_arguments_are_asked_about),
		cmocka_unit_test(test_bash_matches_the_whole_command),
		cmocka_unit_test(test_could_match_a_known_start),
		cmocka_unit_test(test_could_match_counts_bytes_not_text),
		cmocka_unit_test(test_could_match_with_an_unclosed_bracket),
		cmocka_unit_test(test_could_match_is_linear),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_unclosed_bracket_falls_back_to_prefix),
		cmocka_unit_test(test_pathological_pattern_finishes),
		cmocka_unit_test(test_invalid_utf8_text),
		cmocka_unit_test(test_gate_match_bash),
		cmocka_unit_test(test_gate_match_tool_names),
		cmocka_unit_test(test_gate_match_no_gates),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
