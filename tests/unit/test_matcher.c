/*
 * test_matcher.c - hook matchers read as Claude Code reads them, the plugin's
 * matchers as roz ships them, and the gates a matcher leaves without a hook
 * (a gate on a tool Claude Code never starts roz for cannot hold).
 */
#include "support.h"

#include "roz/json.h"
#include "roz/matcher.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void selects(const char *matcher, bool pre, const char *name, int want)
{
	int got = roz_matcher_selects(matcher, pre, name);

	if (got != want)
		fail_msg("matcher %s%s%s on '%s': %d, expected %d (%s)", matcher ? "\"" : "",
			 matcher ? matcher : "NULL", matcher ? "\"" : "", name, got, want, roz_error_last());
}

static void test_every_tool(void **state)
{
	(void)state;
	selects(NULL, true, "WebFetch", 1);
	selects("", true, "WebFetch", 1);
	selects("*", false, "Read", 1);
}

static void test_lists_are_exact_names(void **state)
{
	(void)state;
	selects("Bash", true, "Bash", 1);
	selects("Bash", true, "BashOutput", 0);
	selects("Write|Edit", false, "Edit", 1);
	selects("Write|Edit", false, "MultiEdit", 0);
	/* PreToolUse reads commas and spaces in a list; other events read them as a pattern */
	selects("Write, Edit", true, "Edit", 1);
	selects("Write, Edit", false, "Edit", 0);
	selects("Write, Edit", false, "Write, Edit", 1);
}

static void test_patterns_are_searched(void **state)
{
	(void)state;
	selects(ROZ_MATCHER_PRE_TOOL_USE, true, "Bash", 1);
	selects(ROZ_MATCHER_PRE_TOOL_USE, true, "mcp__github__merge_pull_request", 1);
	selects(ROZ_MATCHER_PRE_TOOL_USE, true, "Agent", 1);
	selects(ROZ_MATCHER_PRE_TOOL_USE, true, "Read", 0);
	selects(ROZ_MATCHER_PRE_TOOL_USE, true, "BashOutput", 0);
	selects(ROZ_MATCHER_PRE_TOOL_USE, true, "WebFetch", 0);
	selects(ROZ_MATCHER_POST_TOOL_USE, false, "Read", 1);
	selects(ROZ_MATCHER_POST_TOOL_USE, false, "Agent", 0);
	selects(ROZ_MATCHER_REVIEWER, false, "roz:roz", 1);
	selects(ROZ_MATCHER_REVIEWER, false, "roz:roz2", 0);
	/* unanchored, as Claude Code's search is */
	selects("Edit$", false, "MultiEdit", 1);
	selects("mcp__.*", true, "x_mcp__y", 1);
}

static void test_an_unreadable_matcher_is_an_error(void **state)
{
	(void)state;
	selects("^(Bash", true, "Bash", ROZ_EINVALID);
	assert_non_null(strstr(roz_error_last(), "^(Bash"));
}

/* Is `name` one of the ", "-separated names of `list`? */
static bool listed(const char *list, const char *name)
{
	char *padded = t_sprintf(", %s, ", list), *want = t_sprintf(", %s, ", name);
	bool yes = strstr(padded, want) != NULL;

	free(padded);
	free(want);
	return yes;
}

/* The gaps a gate leaves under these matchers, as the list roz_matcher_gate_gaps() writes. */
static void gaps(const char *const *matchers, size_t n, const char *gate, const char *want)
{
	roz_buf b = ROZ_BUF_INIT;
	int rc = roz_matcher_gate_gaps(matchers, n, gate, &b);

	if (rc < 0)
		fail_msg("gate '%s': %s", gate, roz_error_last());
	if (strcmp(roz_buf_cstr(&b), want) != 0)
		fail_msg("gate '%s': gaps '%s', expected '%s'", gate, roz_buf_cstr(&b), want);
	assert_int_equal(rc == 0, *want == '\0');
	roz_buf_dispose(&b);
}

static void test_gates_the_plugin_matcher_covers(void **state)
{
	const char *const plugin[] = {ROZ_MATCHER_PRE_TOOL_USE};

	(void)state;
	gaps(plugin, 1, "Bash:git push*", "");
	gaps(plugin, 1, "Bash:*", "");
	gaps(plugin, 1, "mcp__tissue__close*", "");
	gaps(plugin, 1, "mcp__github__merge_pull_request", "");
	gaps(plugin, 1, "Write", "");
	gaps(plugin, 1, "Agent", "");
	gaps(plugin, 1, "*Edit", "");
}

static void test_gates_the_plugin_matcher_leaves_out(void **state)
{
	const char *const plugin[] = {ROZ_MATCHER_PRE_TOOL_USE};
	const char *const two[] = {ROZ_MATCHER_PRE_TOOL_USE, "^(WebFetch)$"};
	const char *const all[] = {ROZ_MATCHER_PRE_TOOL_USE, NULL};

	(void)state;
	gaps(plugin, 1, "WebFetch", "WebFetch");
	gaps(plugin, 1, "Web*", "WebFetch, WebSearch");
	/* a tool Claude Code does not have yet, named outright */
	gaps(plugin, 1, "Deploy", "Deploy");
	/* a wildcard naming none of Claude Code's tools: its example stands for it */
	gaps(plugin, 1, "deploy_*", "deploy_");
	/* a second hook's matcher covers what it names; one with no matcher covers all */
	gaps(two, 2, "WebFetch", "");
	gaps(two, 2, "Web*", "WebSearch");
	gaps(all, 2, "*", "");
	/* no hook at all: nothing is covered */
	gaps(NULL, 0, "Bash:git push*", "Bash");
	/* a star names every tool the plugin leaves out */
	{
		roz_buf b = ROZ_BUF_INIT;

		assert_true(roz_matcher_gate_gaps(plugin, 1, "*", &b) > 10);
		assert_true(listed(roz_buf_cstr(&b), "Read"));
		assert_true(listed(roz_buf_cstr(&b), "BashOutput"));
		assert_false(listed(roz_buf_cstr(&b), "Bash"));
		assert_false(listed(roz_buf_cstr(&b), "Write"));
		roz_buf_dispose(&b);
	}
}

static void test_gaps_are_listed_once(void **state)
{
	const char *const plugin[] = {ROZ_MATCHER_PRE_TOOL_USE};
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	assert_int_equal(roz_matcher_gate_gaps(plugin, 1, "WebFetch", &b), 1);
	assert_int_equal(roz_matcher_gate_gaps(plugin, 1, "Web*", &b), 1);
	assert_int_equal(roz_matcher_gate_gaps(plugin, 1, "WebFetch", &b), 0);
	assert_string_equal(roz_buf_cstr(&b), "WebFetch, WebSearch");
	roz_buf_dispose(&b);
}

static void test_a_matcher_of_names(void **state)
{
	char *m;

	(void)state;
	m = roz_matcher_of_names("WebFetch, WebSearch");
	assert_string_equal(m, "^(WebFetch|WebSearch)$");
	selects(m, true, "WebFetch", 1);
	selects(m, true, "WebFetchX", 0);
	free(m);
	/* characters a pattern would read are escaped */
	m = roz_matcher_of_names("a.b, c+d");
	assert_string_equal(m, "^(a\\.b|c\\+d)$");
	selects(m, true, "a.b", 1);
	selects(m, true, "axb", 0);
	free(m);
}

/* The plugin's hooks.json: exec form for every hook, and the matchers this header names. */
static void test_the_plugin_ships_these_matchers(void **state)
{
	static const struct {
		const char *event, *name, *matcher;
	} want[] = {
		{"SessionStart", "session-start", NULL},
		{"UserPromptSubmit", "user-prompt", NULL},
		{"PreToolUse", "pre-tool-use", ROZ_MATCHER_PRE_TOOL_USE},
		{"PostToolUse", "post-tool-use", ROZ_MATCHER_POST_TOOL_USE},
		{"Stop", "stop", NULL},
		{"SubagentStart", "subagent-start", ROZ_MATCHER_REVIEWER},
		{"SubagentStop", "subagent-stop", ROZ_MATCHER_REVIEWER},
		{"SessionEnd", "session-end", NULL},
	};
	char *path = t_sprintf("%s/plugin/hooks/hooks.json", ROZ_SOURCE_DIR), *text;
	const cJSON *hooks;
	cJSON *doc = NULL;
	size_t len;

	(void)state;
	text = t_read_file(path, &len);
	assert_non_null(text);
	assert_int_equal(roz_json_parse(text, len, &doc), ROZ_OK);
	hooks = cJSON_GetObjectItemCaseSensitive(doc, "hooks");
	assert_int_equal(cJSON_GetArraySize(hooks), sizeof want / sizeof want[0]);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const cJSON *groups = cJSON_GetObjectItemCaseSensitive(hooks, want[i].event), *g, *h, *m, *args;

		assert_int_equal(cJSON_GetArraySize(groups), 1);
		g = cJSON_GetArrayItem(groups, 0);
		m = cJSON_GetObjectItemCaseSensitive(g, "matcher");
		if (want[i].matcher)
			assert_string_equal(cJSON_GetStringValue(m), want[i].matcher);
		else
			assert_null(m);
		h = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "hooks"), 0);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "command")), "roz");
		args = cJSON_GetObjectItemCaseSensitive(h, "args");
		assert_int_equal(cJSON_GetArraySize(args), 2);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(args, 0)), "hook");
		assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(args, 1)), want[i].name);
	}
	cJSON_Delete(doc);
	free(text);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_tool),
		cmocka_unit_test(test_lists_are_exact_names),
		cmocka_unit_test(test_patterns_are_searched),
		cmocka_unit_test(test_an_unreadable_matcher_is_an_error),
		cmocka_unit_test(test_gates_the_plugin_matcher_covers),
		cmocka_unit_test(test_gates_the_plugin_matcher_leaves_out),
		cmocka_unit_test(test_gaps_are_listed_once),
		cmocka_unit_test(test_a_matcher_of_names),
		cmocka_unit_test(test_the_plugin_ships_these_matchers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
