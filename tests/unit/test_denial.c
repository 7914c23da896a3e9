/*
 * test_denial.c - a governance refusal as the agent reads it: one sentence
 * with its code first, then the same error as one JSON object that parses,
 * whatever the message holds.
 */
#include "support.h"

#include "roz/denial.h"
#include "roz/json.h"

#include <cjson/cJSON.h>
#include <string.h>

static void codes_have_their_names(void **state)
{
	static const struct {
		roz_denial_code code;
		const char *name;
	} names[] = {
		{ROZ_DENIAL_NONE, "NONE"},
		{ROZ_DENIAL_INTENT_REQUIRED, "INTENT_REQUIRED"},
		{ROZ_DENIAL_SCOPE_VIOLATION, "SCOPE_VIOLATION"},
		{ROZ_DENIAL_STALE_FILE, "STALE_FILE"},
		{ROZ_DENIAL_DESTRUCTIVE_BLOCKED, "DESTRUCTIVE_BLOCKED"},
		{ROZ_DENIAL_INTENT_INVALID, "INTENT_INVALID"},
		{ROZ_DENIAL_INTENTS_UNREADABLE, "INTENTS_UNREADABLE"},
		{ROZ_DENIAL_TARGET_UNKNOWN, "TARGET_UNKNOWN"},
		{ROZ_DENIAL_ORCHESTRATION, "ORCHESTRATION_PROTECTED"},
		{ROZ_DENIAL_HOOK_ERROR, "HOOK_ERROR"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		assert_string_equal(roz_denial_code_name(names[i].code), names[i].name);
	/* a code from nowhere is still a code the agent can read */
	assert_string_equal(roz_denial_code_name((roz_denial_code)99), "HOOK_ERROR");
}

static void the_sentence_comes_first_then_json_that_parses(void **state)
{
	roz_denial d = {0};
	roz_buf b = ROZ_BUF_INIT;
	const char *nl;
	cJSON *doc, *err;

	(void)state;
	assert_int_equal(roz_denial_set(&d, ROZ_DENIAL_SCOPE_VIOLATION, "Write",
					"{\"path\":\"src/b.c\",\"owned_scope\":[\"src/a/**\"]}",
					"%s is outside %s's scope (\"quoted\", back\\slash, new\nline)", "src/b.c",
					"INT-001"),
			 ROZ_OK);
	roz_denial_render(&d, &b);
	assert_false(b.oom);
	assert_true(strncmp(b.ptr, "roz: SCOPE_VIOLATION: src/b.c is outside INT-001's scope", 56) == 0);
	/* the message's own newline is in the sentence; the JSON is the last line */
	nl = strrchr(b.ptr, '\n');
	assert_non_null(nl);
	doc = cJSON_Parse(nl + 1);
	assert_non_null(doc);
	err = cJSON_GetObjectItem(doc, "error");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(err, "code")), "SCOPE_VIOLATION");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(err, "message")),
			    "src/b.c is outside INT-001's scope (\"quoted\", back\\slash, new\nline)");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(err, "tool")), "Write");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(err, "details"), "path")),
			    "src/b.c");
	cJSON_Delete(doc);
	roz_buf_dispose(&b);
	roz_denial_dispose(&d);
	assert_null(d.message);
}

static void no_tool_and_no_details_still_make_an_object(void **state)
{
	roz_denial d = {0};
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	assert_int_equal(roz_denial_set(&d, ROZ_DENIAL_HOOK_ERROR, NULL, NULL, "plain"), ROZ_OK);
	roz_denial_render_json(&d, &b);
	assert_string_equal(roz_buf_cstr(&b),
			    "{\"error\":{\"code\":\"HOOK_ERROR\",\"message\":\"plain\",\"details\":{}}}");
	/* set again: the old text is released, the new one stands */
	assert_int_equal(roz_denial_set(&d, ROZ_DENIAL_STALE_FILE, "Edit", "{}", "second"), ROZ_OK);
	assert_string_equal(d.message, "second");
	assert_int_equal(d.code, ROZ_DENIAL_STALE_FILE);
	roz_buf_dispose(&b);
	roz_denial_dispose(&d);
	roz_denial_dispose(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(codes_have_their_names),
		cmocka_unit_test(the_sentence_comes_first_then_json_that_parses),
		cmocka_unit_test(no_tool_and_no_details_still_make_an_object),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
