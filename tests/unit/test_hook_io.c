/*
 * test_hook_io.c - what Claude Code hands a hook (each field judged on its
 * own, flaws C cannot carry rewritten and reported) and the exact JSON
 * answers roz prints.
 */
#include "support.h"

#include "roz/hook_io.h"
#include "roz/utf8.h"
#include "roz/json.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Parse from a heap block of exactly `len` bytes, so overreads are caught. */
static int parse_n(const char *text, size_t len, roz_hook_input *in)
{
	char *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	if (len)
		memcpy(copy, text, len);
	rc = roz_hook_input_parse(copy, len, in);
	/* the parsed strings live in in->root, not in the caller's text */
	memset(copy, 'X', len);
	free(copy);
	return rc;
}

static void parse_ok(const char *text, roz_hook_input *in)
{
	int rc = parse_n(text, strlen(text), in);

	if (rc != ROZ_OK)
		fail_msg("hook input rejected (%d): %s\n%s", rc, roz_error_last(), text);
	assert_non_null(in->root);
}

static void assert_rejected_n(const char *text, size_t len, const char *mentions)
{
	roz_hook_input in;
	int rc;

	roz_error_clear();
	rc = parse_n(text, len, &in);
	if (rc != ROZ_EINVALID) {
		roz_hook_input_dispose(&in); /* a known failure should not also leak */
		fail_msg("expected ROZ_EINVALID, got %d for: %.*s", rc, (int)len, text);
	}
	/* a failed parse leaves nothing behind */
	assert_null(in.root);
	assert_null(in.session_id);
	assert_null(in.cwd);
	assert_int_equal(in.stop_hook_active, -1);
	if (!strstr(roz_error_last(), mentions))
		fail_msg("error '%s' does not mention '%s'", roz_error_last(), mentions);
	roz_hook_input_dispose(&in);
}

static void assert_rejected(const char *text, const char *mentions)
{
	assert_rejected_n(text, strlen(text), mentions);
}

/* Every optional string field, by JSON name and place in the struct. */
static const struct {
	const char *name;
	size_t offset;
} string_fields[] = {
	{"transcript_path", offsetof(roz_hook_input, transcript_path)},
	{"permission_mode", offsetof(roz_hook_input, permission_mode)},
	{"hook_event_name", offsetof(roz_hook_input, hook_event_name)},
	{"prompt", offsetof(roz_hook_input, prompt)},
	{"tool_name", offsetof(roz_hook_input, tool_name)},
	{"source", offsetof(roz_hook_input, source)},
	{"model", offsetof(roz_hook_input, model)},
	{"agent_type", offsetof(roz_hook_input, agent_type)},
	{"agent_id", offsetof(roz_hook_input, agent_id)},
	{"agent_transcript_path", offsetof(roz_hook_input, agent_transcript_path)},
	{"last_assistant_message", offsetof(roz_hook_input, last_assistant_message)},
	{"reason", offsetof(roz_hook_input, reason)},
};
#define N_STRING_FIELDS (sizeof(string_fields) / sizeof(string_fields[0]))

static const char *field_at(const roz_hook_input *in, size_t i)
{
	const char *const *p = (const char *const *)(const void *)((const char *)in + string_fields[i].offset);

	return *p;
}

/* ---- input: accepted ------------------------------------------------------------ */

static void test_parse_minimal(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\": \"test-123\", \"cwd\": \"/tmp\"}", &in);
	assert_string_equal(in.session_id, "test-123");
	assert_string_equal(in.cwd, "/tmp");
	for (size_t i = 0; i < N_STRING_FIELDS; i++)
		if (field_at(&in, i))
			fail_msg("'%s' should be absent", string_fields[i].name);
	assert_null(in.tool_input);
	assert_null(in.tool_response);
	assert_null(in.background_tasks);
	assert_null(in.effort);
	assert_int_equal(in.stop_hook_active, -1);
	roz_hook_input_dispose(&in);
	assert_null(in.root);
	assert_null(in.session_id);
	assert_int_equal(in.stop_hook_active, -1);
}

static void test_parse_each_optional_field(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_STRING_FIELDS; i++) {
		roz_hook_input in;
		char *text = t_sprintf("{\"session_id\":\"s\",\"cwd\":\"/w\",\"%s\":\"value of %s\"}",
				       string_fields[i].name, string_fields[i].name);
		char *want = t_sprintf("value of %s", string_fields[i].name);

		parse_ok(text, &in);
		for (size_t k = 0; k < N_STRING_FIELDS; k++) {
			if (k == i)
				assert_string_equal(field_at(&in, k), want);
			else if (field_at(&in, k))
				fail_msg("setting '%s' also set '%s'", string_fields[i].name, string_fields[k].name);
		}
		roz_hook_input_dispose(&in);
		free(text);
		free(want);
	}
}

static void test_parse_all_fields_together(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\n"
		 "  \"session_id\": \"abc-123\",\n"
		 "  \"cwd\": \"/home/user/project\",\n"
		 "  \"transcript_path\": \"/home/user/.claude/projects/abc/transcript.jsonl\",\n"
		 "  \"permission_mode\": \"default\",\n"
		 "  \"hook_event_name\": \"PreToolUse\",\n"
		 "  \"tool_name\": \"Bash\",\n"
		 "  \"tool_input\": {\"command\": \"git push\", \"timeout\": 5},\n"
		 "  \"tool_response\": \"ok\",\n"
		 "  \"tool_use_id\": \"toolu_01\",\n"
		 "  \"stop_hook_active\": false\n"
		 "}\n",
		 &in);
	assert_string_equal(in.transcript_path, "/home/user/.claude/projects/abc/transcript.jsonl");
	assert_string_equal(in.permission_mode, "default");
	assert_string_equal(in.hook_event_name, "PreToolUse");
	assert_string_equal(in.tool_name, "Bash");
	assert_true(cJSON_IsObject(in.tool_input));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(in.tool_input, "command")->valuestring, "git push");
	assert_true(cJSON_IsString(in.tool_response));
	assert_string_equal(in.tool_use_id, "toolu_01");
	assert_int_equal(in.stop_hook_active, 0);
	roz_hook_input_dispose(&in);
}

static void test_parse_agent_fields(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\":\"test-123\",\"cwd\":\"/tmp\",\"agent_type\":\"roz:roz\",\"agent_id\":"
		 "\"agent-abc-123\",\"agent_transcript_path\":\"/tmp/transcript.json\",\"last_assistant_message\":"
		 "\"Review complete. All changes verified.\",\"stop_hook_active\":false}",
		 &in);
	assert_string_equal(in.agent_type, "roz:roz");
	assert_string_equal(in.agent_id, "agent-abc-123");
	assert_string_equal(in.agent_transcript_path, "/tmp/transcript.json");
	assert_string_equal(in.last_assistant_message, "Review complete. All changes verified.");
	assert_int_equal(in.stop_hook_active, 0);
	roz_hook_input_dispose(&in);
}

static void test_parse_session_start_fields(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/tmp\",\"source\":\"startup\",\"model\":\"claude-sonnet-4-6\","
		 "\"hook_event_name\":\"SessionStart\"}",
		 &in);
	assert_string_equal(in.source, "startup");
	assert_string_equal(in.model, "claude-sonnet-4-6");
	assert_string_equal(in.hook_event_name, "SessionStart");
	roz_hook_input_dispose(&in);
}

static void test_parse_newer_claude_code_fields(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/tmp\",\"prompt_id\":\"p-9\",\"tool_use_id\":\"toolu_9\","
		 "\"agent_id\":\"a-1\",\"agent_type\":\"general-purpose\",\"background_tasks\":[{\"id\":\"b1\","
		 "\"status\":\"running\"},{\"id\":\"b2\"}],\"effort\":{\"level\":\"high\"}}",
		 &in);
	assert_string_equal(in.prompt_id, "p-9");
	assert_string_equal(in.tool_use_id, "toolu_9");
	assert_string_equal(in.agent_id, "a-1");
	assert_string_equal(in.agent_type, "general-purpose");
	assert_true(cJSON_IsArray(in.background_tasks));
	assert_int_equal(cJSON_GetArraySize(in.background_tasks), 2);
	assert_true(cJSON_IsObject(in.effort));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(in.effort, "level")->valuestring, "high");
	roz_hook_input_dispose(&in);
	/* effort may be a plain string and background_tasks empty */
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/tmp\",\"effort\":\"low\",\"background_tasks\":[]}", &in);
	assert_true(cJSON_IsString(in.effort));
	assert_int_equal(cJSON_GetArraySize(in.background_tasks), 0);
	roz_hook_input_dispose(&in);
}

static void test_stop_hook_active_values(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/\",\"stop_hook_active\":true}", &in);
	assert_int_equal(in.stop_hook_active, 1);
	roz_hook_input_dispose(&in);
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/\",\"stop_hook_active\":false}", &in);
	assert_int_equal(in.stop_hook_active, 0);
	roz_hook_input_dispose(&in);
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/\"}", &in);
	assert_int_equal(in.stop_hook_active, -1);
	roz_hook_input_dispose(&in);
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/\",\"stop_hook_active\":null}", &in);
	assert_int_equal(in.stop_hook_active, -1);
	roz_hook_input_dispose(&in);
}

static void test_null_optional_fields(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_hook_input in;

	(void)state;
	roz_buf_adds(&b, "{\"session_id\":\"s\",\"cwd\":\"/tmp\"");
	for (size_t i = 0; i < N_STRING_FIELDS; i++)
		roz_buf_addf(&b, ",\"%s\":null", string_fields[i].name);
	roz_buf_adds(&b, ",\"tool_input\":null,\"tool_response\":null,\"background_tasks\":null,\"effort\":null}");
	parse_ok(roz_buf_cstr(&b), &in);
	for (size_t i = 0; i < N_STRING_FIELDS; i++)
		if (field_at(&in, i))
			fail_msg("null '%s' should read as absent", string_fields[i].name);
	assert_null(in.tool_input);
	assert_null(in.tool_response);
	assert_null(in.background_tasks);
	assert_null(in.effort);
	roz_hook_input_dispose(&in);
	roz_buf_dispose(&b);
}

static void test_unknown_fields_ignored(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\":\"test-123\",\"cwd\":\"/tmp\",\"unknown_field\":\"ignored\",\"nested\":"
		 "{\"deep\":[1,2,{\"x\":null}]},\"number\":1.5e3,\"flag\":true,\"prompt_id\":\"p\"}",
		 &in);
	assert_string_equal(in.session_id, "test-123");
	assert_string_equal(in.prompt_id, "p");
	roz_hook_input_dispose(&in);
}

static void test_permission_modes(void **state)
{
	static const char *const modes[] = {"default", "plan", "acceptEdits", "dontAsk", "bypassPermissions"};

	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		roz_hook_input in;
		char *text = t_sprintf("{\"session_id\":\"s\",\"cwd\":\"/tmp\",\"permission_mode\":\"%s\"}", modes[i]);

		parse_ok(text, &in);
		assert_string_equal(in.permission_mode, modes[i]);
		roz_hook_input_dispose(&in);
		free(text);
	}
}

static void test_escapes_decoded(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"C:\\\\work\",\"prompt\":\"#roz line1\\nsays \\\"hi\\\" "
		 "\\u00e9 \\ud83c\\udf89 \xe6\x97\xa5\"}",
		 &in);
	assert_string_equal(in.cwd, "C:\\work");
	assert_string_equal(in.prompt, "#roz line1\nsays \"hi\" \xc3\xa9 \xf0\x9f\x8e\x89 \xe6\x97\xa5");
	roz_hook_input_dispose(&in);
}

static void test_surrounding_whitespace(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("\n\t {\"session_id\":\"s\",\"cwd\":\"/\"} \r\n", &in);
	assert_string_equal(in.session_id, "s");
	roz_hook_input_dispose(&in);
}

static void test_length_is_honoured(void **state)
{
	static const char text[] = "{\"session_id\":\"s\",\"cwd\":\"/\"}garbage";
	roz_hook_input in;

	(void)state;
	assert_int_equal(parse_n(text, 28, &in), ROZ_OK);
	assert_string_equal(in.cwd, "/");
	roz_hook_input_dispose(&in);
	assert_int_equal(parse_n(text, 30, &in), ROZ_EINVALID);
	assert_null(in.root);
}

static void test_clear_is_idempotent(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/\"}", &in);
	roz_hook_input_dispose(&in);
	roz_hook_input_dispose(&in);
	assert_null(in.root);
}

/* ---- input: rejected ------------------------------------------------------------ */

static void test_reject_empty(void **state)
{
	(void)state;
	assert_rejected("", "empty");
	assert_rejected("   \n\t\r ", "empty");
}

static void test_reject_not_json(void **state)
{
	(void)state;
	assert_rejected("not json", "JSON");
	assert_rejected("{\"session_id\": \"test-123\", cwd: /tmp}", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"cwd\":\"/\"", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"cwd\":\"/\",}", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"cwd\":\"/\"} {}", "JSON");
	assert_rejected("{'session_id':'s','cwd':'/'}", "JSON");
}

static void test_reject_not_an_object(void **state)
{
	(void)state;
	assert_rejected("[{\"session_id\":\"s\",\"cwd\":\"/\"}]", "object");
	assert_rejected("\"session\"", "object");
	assert_rejected("null", "object");
	assert_rejected("42", "object");
}

/* session_id is the one field every hook needs: without it the input is unusable. */
static void test_reject_missing_session_id(void **state)
{
	(void)state;
	assert_rejected("{}", "session_id");
	assert_rejected("{\"cwd\":\"/tmp\"}", "session_id");
	assert_rejected("{\"session_id\":null,\"cwd\":\"/\"}", "session_id");
	assert_rejected("{\"session_id\":123,\"cwd\":\"/tmp\"}", "'session_id' must be a string");
	assert_rejected("{\"session_id\":[\"s\"],\"cwd\":\"/tmp\"}", "'session_id' must be a string");
}

/* One that cannot be read as sent names a different session, or none: rejected, never cut. */
static void test_reject_flawed_session_id(void **state)
{
	(void)state;
	assert_rejected("{\"session_id\":\"abc\\u0000../x\",\"cwd\":\"/\"}", "'session_id' has a NUL");
	assert_rejected("{\"session_id\":\"s\\ud800\",\"cwd\":\"/\"}", "'session_id' has a lone");
	assert_rejected("{\"session_id\":\"s\xc3\",\"cwd\":\"/\"}", "'session_id' has bytes that are not UTF-8");
	/* a flaw in its key names the field too */
	assert_rejected("{\"session_id\\u0000\":\"s\",\"cwd\":\"/\"}", "session_id");
}

/* The parser's warning lines, joined, for matching. */
static const char *warnings_of(const roz_hook_input *in)
{
	return in->warnings.len ? in->warnings.ptr : "";
}

static void assert_warned(const roz_hook_input *in, const char *mentions)
{
	if (!strstr(warnings_of(in), mentions))
		fail_msg("warnings do not mention '%s':\n%s", mentions, warnings_of(in));
}

/*
 * A field roz does not need for a decision, of the wrong type, reads as
 * absent with a warning naming it; the rest of the input is used as sent
 * (issue 12: `stop_hook_active: "yes"` used to answer {} and let a pending
 * review go).
 */
static void test_wrong_types_cost_only_their_field(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/\",\"stop_hook_active\":\"yes\",\"model\":7,"
		 "\"permission_mode\":[\"x\"],\"agent_type\":3,\"agent_id\":{},\"prompt_id\":true,"
		 "\"background_tasks\":{},\"last_assistant_message\":\"done\"}",
		 &in);
	assert_string_equal(in.session_id, "s");
	assert_string_equal(in.last_assistant_message, "done");
	assert_int_equal(in.stop_hook_active, -1);
	assert_null(in.model);
	assert_null(in.permission_mode);
	assert_null(in.agent_type);
	assert_null(in.agent_id);
	assert_null(in.prompt_id);
	assert_null(in.background_tasks);
	assert_null(in.tool_unreadable);
	assert_warned(&in, "'stop_hook_active' is a string, not true or false; ignored\n");
	assert_warned(&in, "'model' is a number, not a string; ignored\n");
	assert_warned(&in, "'permission_mode' is an array, not a string; ignored\n");
	assert_warned(&in, "'agent_type' is a number, not a string; taken as not the reviewer\n");
	assert_warned(&in, "'agent_id' is an object, not a string; taken as not the reviewer\n");
	assert_warned(&in, "'background_tasks' is an object, not an array; read as no tasks\n");
	assert_warned(&in, "'prompt_id' is true or false, not a string; ignored\n");
	roz_hook_input_dispose(&in);
	/* cwd is not needed for any decision either */
	parse_ok("{\"session_id\":\"s\"}", &in);
	assert_null(in.cwd);
	assert_int_equal(in.warnings.len, 0);
	roz_hook_input_dispose(&in);
	parse_ok("{\"session_id\":\"s\",\"cwd\":[\"/\"]}", &in);
	assert_null(in.cwd);
	assert_warned(&in, "'cwd' is an array");
	roz_hook_input_dispose(&in);
}

static void test_each_optional_string_wrong_type_warns(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_STRING_FIELDS; i++) {
		roz_hook_input in;
		char *text = t_sprintf("{\"session_id\":\"s\",\"cwd\":\"/\",\"%s\":true}", string_fields[i].name);
		char *want = t_sprintf("hook input field '%s' is true or false, not a string;",
				       string_fields[i].name);

		parse_ok(text, &in);
		assert_warned(&in, want);
		if (strcmp(string_fields[i].name, "prompt") == 0)
			assert_string_equal(field_at(&in, i), ""); /* still a prompt, but no #roz */
		else
			assert_null(field_at(&in, i));
		/* only a tool name that cannot be read keeps a gate from judging the call */
		if (strcmp(string_fields[i].name, "tool_name") == 0)
			assert_string_equal(in.tool_unreadable, "'tool_name' is true or false, not a string");
		else
			assert_null(in.tool_unreadable);
		roz_hook_input_dispose(&in);
		free(text);
		free(want);
	}
}

/* What a Bash gate sees of a call whose other members JSON cannot carry into C. */
static void parse_bash(const char *tool_input, roz_hook_input *in)
{
	char *text = t_sprintf("{\"session_id\":\"s\",\"cwd\":\"/w\",\"tool_name\":\"Bash\",\"tool_input\":%s}",
			       tool_input);

	parse_ok(text, in);
	free(text);
}

static const char *member(const roz_hook_input *in, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(in->tool_input, name);

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

/*
 * Issue 12: with a `Bash:git push*` gate, a \u0000 or a lone surrogate in
 * `description` made the whole input unreadable and the call answered {}.
 * Now the rest of the input is read, the flaw replaced by U+FFFD and named
 * in a warning, and the command stays what the gate judges.
 */
static void test_flaws_outside_the_command_are_replaced(void **state)
{
	static const struct {
		const char *spelling, *reads_as, *what;
	} cases[] = {
		{"a\\u0000b", "a\xef\xbf\xbd" "b", "a NUL character (\\u0000)"},
		{"\\ud800", "\xef\xbf\xbd", "a lone UTF-16 surrogate"},
		{"x\\udfffy", "x\xef\xbf\xbdy", "a lone UTF-16 surrogate"},
		{"\\ud800\\ud83d\\ude00", "\xef\xbf\xbd\xf0\x9f\x98\x80", "a lone UTF-16 surrogate"},
		{"\\ud800\\u0041", "\xef\xbf\xbd" "A", "a lone UTF-16 surrogate"},
		{"bad \xff byte", "bad \xef\xbf\xbd byte", "bytes that are not UTF-8"},
		{"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "bytes that are not UTF-8"},
		{"tab\there", "tab\there", "a raw control character"},
		{"raw \x01", "raw \x01", "a raw control character"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		roz_hook_input in;
		char *ti = t_sprintf("{\"command\":\"git push origin main\",\"description\":\"%s\"}",
				     cases[i].spelling);

		parse_bash(ti, &in);
		assert_string_equal(member(&in, "command"), "git push origin main");
		assert_string_equal(member(&in, "description"), cases[i].reads_as);
		assert_warned(&in, "hook input field 'tool_input.description' has ");
		assert_warned(&in, cases[i].what);
		assert_null(in.tool_unreadable);
		roz_hook_input_dispose(&in);
		free(ti);
	}
}

/* The same flaw in what the gate reads leaves the call unreadable to it. */
static void test_flaw_in_what_the_gate_reads(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_bash("{\"command\":\"git push\\u0000\"}", &in);
	assert_string_equal(in.tool_unreadable, "'tool_input.command' has a NUL character (\\u0000)");
	roz_hook_input_dispose(&in);
	parse_bash("{\"command\":\"git \\udc00push\"}", &in);
	assert_non_null(strstr(in.tool_unreadable, "'tool_input.command' has a lone UTF-16 surrogate"));
	roz_hook_input_dispose(&in);
	/* tool_input that is not an object carries its flaws itself */
	parse_bash("[\"git push\\u0000\"]", &in);
	assert_non_null(strstr(in.tool_unreadable, "'tool_input' has a NUL"));
	roz_hook_input_dispose(&in);
	parse_ok("{\"session_id\":\"s\",\"tool_name\":\"Bas\\u0000h\",\"tool_input\":{\"command\":\"x\"}}", &in);
	assert_non_null(strstr(in.tool_unreadable, "'tool_name' has a NUL"));
	roz_hook_input_dispose(&in);
	/* a file tool's path is read by the store guard; its command means nothing */
	parse_ok("{\"session_id\":\"s\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/a\\ud800\","
		 "\"command\":\"\\u0000\"}}",
		 &in);
	assert_non_null(strstr(in.tool_unreadable, "'tool_input.file_path' has a lone"));
	roz_hook_input_dispose(&in);
	parse_ok("{\"session_id\":\"s\",\"tool_name\":\"Read\",\"tool_input\":{\"command\":\"\\u0000\"}}", &in);
	assert_null(in.tool_unreadable);
	roz_hook_input_dispose(&in);
	/* and a Bash call's file_path is nobody's business */
	parse_bash("{\"command\":\"ls\",\"file_path\":\"\\u0000\"}", &in);
	assert_null(in.tool_unreadable);
	roz_hook_input_dispose(&in);
}

/* A flaw in a key belongs to the member it names. */
static void test_flaw_in_a_key(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_bash("{\"command\":\"git push\",\"descr\\u0000iption\":\"d\"}", &in);
	assert_warned(&in, "'tool_input.descr\xef\xbf\xbdiption' has a NUL");
	assert_null(in.tool_unreadable);
	assert_string_equal(member(&in, "descr\xef\xbf\xbdiption"), "d");
	roz_hook_input_dispose(&in);
	parse_ok("{\"session_id\":\"s\",\"mo\\ud800del\":1,\"prompt\":\"#roz\"}", &in);
	assert_warned(&in, "'mo\xef\xbf\xbd" "del' has a lone");
	assert_string_equal(in.prompt, "#roz");
	roz_hook_input_dispose(&in);
}

/* Nested deeper than the parser takes: that member is cut to a note, the rest is read. */
static char *nested(const char *prefix, int depth, const char *suffix)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_buf_adds(&b, prefix);
	for (int i = 0; i < depth; i++)
		roz_buf_adds(&b, i % 2 ? "{\"k\":" : "[");
	roz_buf_adds(&b, "1");
	for (int i = depth; i-- > 0;)
		roz_buf_adds(&b, i % 2 ? "}" : "]");
	roz_buf_adds(&b, suffix);
	assert_false(b.oom);
	return roz_buf_detach(&b, NULL);
}

static int depth_of(const cJSON *v)
{
	int deepest = 0;
	const cJSON *c;

	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return 0;
	cJSON_ArrayForEach(c, v) {
		int d = depth_of(c);

		if (d > deepest)
			deepest = d;
	}
	return deepest + 1;
}

static void test_nesting_past_the_limit(void **state)
{
	static const int depths[] = {509, 510, 511, 512, 600, 5000};

	(void)state;
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		roz_hook_input in;
		char *text = nested("{\"session_id\":\"s\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":"
				    "\"git push\",\"x\":",
				    depths[i], "},\"prompt\":\"after\"}");

		parse_ok(text, &in);
		assert_string_equal(member(&in, "command"), "git push");
		assert_string_equal(in.prompt, "after");
		assert_null(in.tool_unreadable);
		/* root, tool_input and x's own levels: 512 in all at most */
		assert_true(depth_of(in.root) <= ROZ_JSON_MAX_DEPTH);
		if (depths[i] + 2 > ROZ_JSON_MAX_DEPTH) {
			assert_warned(&in, "'tool_input.x' has nesting deeper than 512 levels; read with the "
					   "deeper part left out");
			assert_int_equal(depth_of(in.root), ROZ_JSON_MAX_DEPTH);
		} else {
			assert_int_equal(in.warnings.len, 0);
			assert_int_equal(depth_of(in.root), depths[i] + 2);
		}
		roz_hook_input_dispose(&in);
		free(text);
	}
}

/* "\\u0000" is a backslash and five characters, not a NUL: no flaw, text as sent. */
static void test_escaped_backslash_is_not_a_nul(void **state)
{
	roz_hook_input in;

	(void)state;
	parse_bash("{\"command\":\"printf '\\\\u0000'\"}", &in);
	assert_string_equal(member(&in, "command"), "printf '\\u0000'");
	assert_int_equal(in.warnings.len, 0);
	assert_null(in.tool_unreadable);
	roz_hook_input_dispose(&in);
}

/* Forgiving string contents is all the rewrite forgives: the grammar is as strict as ever. */
static void test_rewrite_keeps_the_grammar(void **state)
{
	(void)state;
	assert_rejected("{\"session_id\":\"s\",\"p\":\"\\u0000\",}", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"p\":\"\\u0000\"", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"p\":\"\\ud800\\x\"}", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"p\":\"\\u00g0\"}", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"p\":[1,]}", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"p\":\xff}", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"p\":[}", "JSON");
	assert_rejected("{\"session_id\":\"s\",\"p\":\"\\u0000\"} x", "JSON");
	/* and deep nesting that never closes is no object at all */
	{
		char *text = nested("{\"session_id\":\"s\",\"x\":", 2000, "");

		assert_rejected(text, "JSON");
		free(text);
	}
}

/* Flaws at the top level and in prompts: each field for itself, every warning on its own line. */
static void test_warnings_are_lines(void **state)
{
	roz_hook_input in;
	size_t lines = 0;

	(void)state;
	parse_ok("{\"session_id\":\"s\",\"cwd\":\"/tmp\\u0000/etc\",\"prompt\":\"#roz \\ud800\",\"model\":1}", &in);
	assert_string_equal(in.cwd, "/tmp\xef\xbf\xbd/etc");
	assert_string_equal(in.prompt, "#roz \xef\xbf\xbd");
	for (const char *p = warnings_of(&in); *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 3);
	assert_int_equal(in.warnings.ptr[in.warnings.len - 1], '\n');
	assert_null(strstr(warnings_of(&in), "roz:"));
	roz_hook_input_dispose(&in);
	assert_int_equal(in.warnings.len, 0);
	assert_null(in.tool_unreadable);
}

/* The rewrite's every allocation may fail: ROZ_ENOMEM and nothing left behind. */
static void test_rewrite_out_of_memory(void **state)
{
	static const char text[] = "{\"session_id\":\"s\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":"
				   "\"git push\\u0000\",\"d\":\"\\ud800\"},\"model\":5}";
	roz_hook_input in;
	long n;
	int rc = ROZ_ENOMEM;

	(void)state;
	for (n = 0; rc != ROZ_OK; n++) {
		assert_true(n < 10000);
		roz_alloc_fail_after(n);
		rc = roz_hook_input_parse(text, sizeof(text) - 1, &in);
		roz_alloc_fail_after(-1);
		if (rc != ROZ_OK) {
			assert_int_equal(rc, ROZ_ENOMEM);
			assert_null(in.root);
			assert_null(in.tool_unreadable);
			assert_null(in.warnings.ptr);
		}
	}
	assert_true(n > 5);
	assert_non_null(in.tool_unreadable);
	roz_hook_input_dispose(&in);
}

static void test_parse_out_of_memory(void **state)
{
	static const char text[] = "{\"session_id\":\"s\",\"cwd\":\"/w\",\"tool_input\":{\"command\":\"ls\"},"
				   "\"background_tasks\":[1,2,3],\"prompt\":\"p\"}";
	roz_hook_input in;
	long n;
	int rc = ROZ_ENOMEM;

	(void)state;
	for (n = 0; rc != ROZ_OK; n++) {
		assert_true(n < 10000);
		roz_alloc_fail_after(n);
		rc = roz_hook_input_parse(text, sizeof(text) - 1, &in);
		roz_alloc_fail_after(-1);
		if (rc != ROZ_OK) {
			assert_int_equal(rc, ROZ_ENOMEM);
			assert_null(in.root);
		}
	}
	assert_true(n > 3);
	assert_string_equal(in.cwd, "/w");
	roz_hook_input_dispose(&in);
}

/* ---- output ----------------------------------------------------------------------- */

static char *written(roz_output_kind kind, const char *text, const char *event)
{
	roz_hook_output out;
	roz_buf b = ROZ_BUF_INIT;

	memset(&out, 0, sizeof(out));
	roz_hook_output_dispose(&out);
	out.event_name = event;
	assert_int_equal(roz_hook_output_set(&out, kind, text), ROZ_OK);
	assert_int_equal(out.kind, kind);
	assert_ptr_equal(out.event_name, event);
	assert_int_equal(roz_hook_output_write(&out, &b), ROZ_OK);
	roz_hook_output_dispose(&out);
	return roz_buf_detach(&b, NULL);
}

static void assert_written(roz_output_kind kind, const char *text, const char *event, const char *want)
{
	char *got = written(kind, text, event);

	assert_string_equal(got, want);
	roz_free(got);
}

static void test_write_allow(void **state)
{
	(void)state;
	assert_written(ROZ_OUTPUT_ALLOW, NULL, NULL, "{}\n");
	/* a stray text does not change an allow */
	assert_written(ROZ_OUTPUT_ALLOW, "ignored", NULL, "{}\n");
}

static void test_write_block(void **state)
{
	(void)state;
	assert_written(ROZ_OUTPUT_BLOCK, "Review required", NULL,
		       "{\"decision\":\"block\",\"reason\":\"Review required\"}\n");
}

static void test_write_context(void **state)
{
	(void)state;
	assert_written(ROZ_OUTPUT_CONTEXT, "roz second opinion sources: codex", "SessionStart",
		       "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\","
		       "\"additionalContext\":\"roz second opinion sources: codex\"}}\n");
	assert_written(ROZ_OUTPUT_CONTEXT, "extra context", "UserPromptSubmit",
		       "{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\","
		       "\"additionalContext\":\"extra context\"}}\n");
}

static void test_write_deny(void **state)
{
	(void)state;
	assert_written(ROZ_OUTPUT_DENY, "Review required before this action.", NULL,
		       "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\","
		       "\"permissionDecisionReason\":\"Review required before this action.\"}}\n");
}

static void test_write_ask(void **state)
{
	(void)state;
	assert_written(ROZ_OUTPUT_ASK, "This tool requires user approval.", NULL,
		       "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\","
		       "\"permissionDecisionReason\":\"This tool requires user approval.\"}}\n");
}

/* The reason survives a JSON round trip exactly, wherever it is placed. */
static void check_reason_round_trip(roz_output_kind kind, const char *reason)
{
	char *text = written(kind, reason, "UserPromptSubmit");
	cJSON *root = cJSON_Parse(text), *hso;
	const cJSON *got;

	assert_non_null(root);
	hso = cJSON_GetObjectItemCaseSensitive(root, "hookSpecificOutput");
	if (kind == ROZ_OUTPUT_BLOCK)
		got = cJSON_GetObjectItemCaseSensitive(root, "reason");
	else if (kind == ROZ_OUTPUT_CONTEXT)
		got = cJSON_GetObjectItemCaseSensitive(hso, "additionalContext");
	else
		got = cJSON_GetObjectItemCaseSensitive(hso, "permissionDecisionReason");
	assert_true(cJSON_IsString(got));
	assert_string_equal(got->valuestring, reason);
	/* one JSON line: no raw newline before the terminating one */
	assert_null(memchr(text, '\n', strlen(text) - 1));
	cJSON_Delete(root);
	roz_free(text);
}

static void test_reasons_escaped(void **state)
{
	static const char *const reasons[] = {
		"say \"no\"",
		"line one\nline two\r\n\tindented",
		"back\\slash and /slash",
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\x89",
		"bell\x07 escape\x1b[1m",
		"",
	};
	static const roz_output_kind kinds[] = {ROZ_OUTPUT_BLOCK, ROZ_OUTPUT_CONTEXT, ROZ_OUTPUT_DENY, ROZ_OUTPUT_ASK};

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
			check_reason_round_trip(kinds[k], reasons[i]);
}

static void test_block_escape_exact(void **state)
{
	(void)state;
	assert_written(ROZ_OUTPUT_BLOCK, "a \"q\"\nb\\c\x01", NULL,
		       "{\"decision\":\"block\",\"reason\":\"a \\\"q\\\"\\nb\\\\c\\u0001\"}\n");
}

/* ---- the bound on what an answer says ----------------------------------------- */

/* Characters as Claude Code counts them: UTF-16 code units. */
static size_t units(const char *s)
{
	return roz_utf8_utf16_len(s, strlen(s));
}

/* Cut `text` to max with `more`; checks what every cut must be and returns the result. */
static char *clipped(const char *text, size_t max, const char *more, size_t *left)
{
	roz_buf b = ROZ_BUF_INIT;
	char *got;

	*left = roz_hook_text_add_clipped(&b, text, max, more);
	got = roz_buf_detach(&b, NULL);
	assert_non_null(got);
	assert_true(roz_utf8_valid(got, strlen(got)));
	if (units(got) > max && units(text) > max)
		fail_msg("cut to %zu characters, over the bound of %zu", units(got), max);
	return got;
}

static void test_text_within_the_bound_is_whole(void **state)
{
	size_t left;
	char *got;

	(void)state;
	got = clipped("short\ntext\n", 100, "see elsewhere", &left);
	assert_string_equal(got, "short\ntext\n");
	assert_int_equal(left, 0);
	roz_free(got);
}

static void test_long_text_is_cut_at_a_line(void **state)
{
	roz_buf text = ROZ_BUF_INIT;
	size_t left, kept;
	char *got, *note;

	(void)state;
	for (int i = 0; i < 1000; i++)
		roz_buf_addf(&text, "line %04d: caf\xc3\xa9 and more words\n", i);
	got = clipped(roz_buf_cstr(&text), 9000, "`roz context s1` shows the rest", &left);
	note = strstr(got, "\n\n[roz: ");
	assert_non_null(note);
	kept = (size_t)(note - got);
	/* whole lines of the text, and as many as fit */
	assert_memory_equal(got, roz_buf_cstr(&text), kept);
	assert_int_equal(roz_buf_cstr(&text)[kept], '\n');
	assert_true(units(got) > 9000 - 60);
	/* the note counts what was left out exactly, and says where it is */
	{
		size_t lines = 0, chars = units(roz_buf_cstr(&text)) - roz_utf8_utf16_len(got, kept);
		char *want;

		for (const char *p = roz_buf_cstr(&text) + kept; *p; p++)
			lines += *p == '\n';
		want = roz_asprintf("\n\n[roz: %zu more lines (%zu characters) not shown here; `roz context s1` "
				    "shows the rest.]",
				    lines, chars);
		assert_string_equal(note, want);
		assert_int_equal(left, chars);
		roz_free(want);
	}
	roz_free(got);
	roz_buf_dispose(&text);
}

static void test_one_long_line_is_cut_at_a_character(void **state)
{
	roz_buf text = ROZ_BUF_INIT;
	size_t left;
	char *got;

	(void)state;
	/* 3-byte and 4-byte characters: a 4-byte one counts as two */
	for (int i = 0; i < 4000; i++)
		roz_buf_adds(&text, i % 2 ? "\xe2\x82\xac" : "\xf0\x9f\x8e\x89");
	got = clipped(roz_buf_cstr(&text), 1000, NULL, &left);
	assert_non_null(strstr(got, "\n\n[roz: 1 more line ("));
	assert_non_null(strstr(got, "not shown here; they are left out of this answer.]"));
	assert_true(units(got) >= 1000 - 10);
	assert_int_equal(left + units(got) - units(strstr(got, "\n\n[roz: ")), units(roz_buf_cstr(&text)));
	roz_free(got);
	roz_buf_dispose(&text);
}

/* Every answer's text, whatever its kind, stays within ROZ_OUTPUT_MAX_CHARS and says how to see the rest. */
static void test_every_answer_is_bounded(void **state)
{
	static const roz_output_kind kinds[] = {ROZ_OUTPUT_BLOCK, ROZ_OUTPUT_CONTEXT, ROZ_OUTPUT_DENY, ROZ_OUTPUT_ASK};
	roz_buf big = ROZ_BUF_INIT;

	(void)state;
	for (int i = 0; i < 3000; i++)
		roz_buf_addf(&big, "item %d of a long list\n", i);
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		roz_hook_output out = {ROZ_OUTPUT_ALLOW, NULL, "SessionStart", NULL};
		roz_buf b = ROZ_BUF_INIT;
		cJSON *root, *hso;
		const cJSON *got;

		assert_int_equal(roz_hook_output_set(&out, kinds[k], roz_buf_cstr(&big)), ROZ_OK);
		out.more = "`roz intent list` shows them all";
		assert_int_equal(roz_hook_output_write(&out, &b), ROZ_OK);
		root = cJSON_Parse(roz_buf_cstr(&b));
		assert_non_null(root);
		hso = cJSON_GetObjectItemCaseSensitive(root, "hookSpecificOutput");
		got = kinds[k] == ROZ_OUTPUT_BLOCK	 ? cJSON_GetObjectItemCaseSensitive(root, "reason")
		      : kinds[k] == ROZ_OUTPUT_CONTEXT ? cJSON_GetObjectItemCaseSensitive(hso, "additionalContext")
						       : cJSON_GetObjectItemCaseSensitive(hso, "permissionDecisionReason");
		assert_true(cJSON_IsString(got));
		assert_true(units(got->valuestring) <= ROZ_OUTPUT_MAX_CHARS);
		assert_true(strncmp(got->valuestring, "item 0 of a long list\nitem 1", 28) == 0);
		assert_non_null(strstr(got->valuestring, "not shown here; `roz intent list` shows them all.]"));
		cJSON_Delete(root);
		roz_buf_dispose(&b);
		roz_hook_output_dispose(&out);
	}
	roz_buf_dispose(&big);
}

static void test_never_allow_or_approve(void **state)
{
	static const roz_output_kind kinds[] = {ROZ_OUTPUT_ALLOW, ROZ_OUTPUT_BLOCK, ROZ_OUTPUT_CONTEXT,
						ROZ_OUTPUT_DENY, ROZ_OUTPUT_ASK};

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		char *text = written(kinds[k], "Review required", "SessionStart");

		assert_null(strstr(text, "\"allow\""));
		assert_null(strstr(text, "approve"));
		roz_free(text);
	}
}

static void test_deny_has_no_legacy_fields(void **state)
{
	char *text = written(ROZ_OUTPUT_DENY, "test reason", NULL);
	cJSON *root = cJSON_Parse(text);
	const cJSON *hso = cJSON_GetObjectItemCaseSensitive(root, "hookSpecificOutput");

	(void)state;
	assert_non_null(hso);
	assert_null(cJSON_GetObjectItemCaseSensitive(hso, "reason"));
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "decision"));
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "reason"));
	cJSON_Delete(root);
	roz_free(text);
}

static void test_context_not_at_top_level(void **state)
{
	char *text = written(ROZ_OUTPUT_CONTEXT, "ctx", "SessionStart");
	cJSON *root = cJSON_Parse(text);

	(void)state;
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "additionalContext"));
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "decision"));
	cJSON_Delete(root);
	roz_free(text);
}

static void test_output_set_copies(void **state)
{
	roz_hook_output out;
	char reason[] = "original";

	(void)state;
	memset(&out, 0, sizeof(out));
	assert_int_equal(roz_hook_output_set(&out, ROZ_OUTPUT_BLOCK, reason), ROZ_OK);
	reason[0] = 'X';
	assert_string_equal(out.text, "original");
	roz_hook_output_dispose(&out);
	assert_int_equal(out.kind, ROZ_OUTPUT_ALLOW);
	assert_null(out.text);
}

static void test_output_take(void **state)
{
	roz_hook_output out;

	(void)state;
	memset(&out, 0, sizeof(out));
	out.event_name = "UserPromptSubmit";
	assert_int_equal(roz_hook_output_take(&out, ROZ_OUTPUT_CONTEXT, roz_strdup("owned")), ROZ_OK);
	assert_string_equal(out.text, "owned");
	assert_string_equal(out.event_name, "UserPromptSubmit");
	/* replacing frees the old text (checked by the leak checkers) */
	assert_int_equal(roz_hook_output_take(&out, ROZ_OUTPUT_DENY, roz_strdup("second")), ROZ_OK);
	assert_int_equal(out.kind, ROZ_OUTPUT_DENY);
	/* a failed build (NULL text) falls back to allow */
	assert_int_equal(roz_hook_output_take(&out, ROZ_OUTPUT_BLOCK, NULL), ROZ_ENOMEM);
	assert_int_equal(out.kind, ROZ_OUTPUT_ALLOW);
	assert_null(out.text);
	roz_hook_output_dispose(&out);
}

static void test_output_set_out_of_memory(void **state)
{
	roz_hook_output out;

	(void)state;
	memset(&out, 0, sizeof(out));
	assert_int_equal(roz_hook_output_set(&out, ROZ_OUTPUT_ASK, "before"), ROZ_OK);
	roz_alloc_fail_after(0);
	assert_int_equal(roz_hook_output_set(&out, ROZ_OUTPUT_BLOCK, "reason"), ROZ_ENOMEM);
	roz_alloc_fail_after(-1);
	assert_int_equal(out.kind, ROZ_OUTPUT_ALLOW);
	assert_null(out.text);
	roz_hook_output_dispose(&out);
}

static void test_output_write_appends(void **state)
{
	roz_hook_output out;
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	memset(&out, 0, sizeof(out));
	roz_hook_output_dispose(&out);
	roz_buf_adds(&b, "x");
	assert_int_equal(roz_hook_output_write(&out, &b), ROZ_OK);
	assert_int_equal(roz_hook_output_set(&out, ROZ_OUTPUT_BLOCK, "r"), ROZ_OK);
	assert_int_equal(roz_hook_output_write(&out, &b), ROZ_OK);
	assert_string_equal(roz_buf_cstr(&b), "x{}\n{\"decision\":\"block\",\"reason\":\"r\"}\n");
	roz_hook_output_dispose(&out);
	roz_buf_dispose(&b);
}

static void test_output_write_out_of_memory(void **state)
{
	roz_hook_output out;
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	memset(&out, 0, sizeof(out));
	assert_int_equal(roz_hook_output_set(&out, ROZ_OUTPUT_DENY, "r"), ROZ_OK);
	roz_alloc_fail_after(0);
	assert_int_equal(roz_hook_output_write(&out, &b), ROZ_ENOMEM);
	roz_alloc_fail_after(-1);
	roz_hook_output_dispose(&out);
	roz_buf_dispose(&b);
}

/* An answer quoting bytes that are not UTF-8 is repaired: Claude Code reads JSON. */
static void test_output_text_is_always_utf8(void **state)
{
	roz_hook_output out = {ROZ_OUTPUT_ALLOW, NULL, NULL, NULL};
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	assert_int_equal(roz_hook_output_set(&out, ROZ_OUTPUT_DENY, "no: '\xff' and \xc3"), ROZ_OK);
	assert_string_equal(out.text, "no: '\xef\xbf\xbd' and \xef\xbf\xbd");
	assert_int_equal(roz_hook_output_write(&out, &b), ROZ_OK);
	assert_true(roz_json_valid(b.ptr, b.len - 1));
	roz_buf_dispose(&b);
	roz_hook_output_dispose(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_minimal),
		cmocka_unit_test(test_parse_each_optional_field),
		cmocka_unit_test(test_parse_all_fields_together),
		cmocka_unit_test(test_parse_agent_fields),
		cmocka_unit_test(test_parse_session_start_fields),
		cmocka_unit_test(test_parse_newer_claude_code_fields),
		cmocka_unit_test(test_stop_hook_active_values),
		cmocka_unit_test(test_null_optional_fields),
		cmocka_unit_test(test_unknown_fields_ignored),
		cmocka_unit_test(test_permission_modes),
		cmocka_unit_test(test_escapes_decoded),
		cmocka_unit_test(test_surrounding_whitespace),
		cmocka_unit_test(test_length_is_honoured),
		cmocka_unit_test(test_clear_is_idempotent),
		cmocka_unit_test(test_reject_empty),
		cmocka_unit_test(test_reject_not_json),
		cmocka_unit_test(test_reject_not_an_object),
		cmocka_unit_test(test_reject_missing_session_id),
		cmocka_unit_test(test_reject_flawed_session_id),
		cmocka_unit_test(test_wrong_types_cost_only_their_field),
		cmocka_unit_test(test_each_optional_string_wrong_type_warns),
		cmocka_unit_test(test_flaws_outside_the_command_are_replaced),
		cmocka_unit_test(test_flaw_in_what_the_gate_reads),
		cmocka_unit_test(test_flaw_in_a_key),
		cmocka_unit_test(test_nesting_past_the_limit),
		cmocka_unit_test(test_escaped_backslash_is_not_a_nul),
		cmocka_unit_test(test_rewrite_keeps_the_grammar),
		cmocka_unit_test(test_warnings_are_lines),
		cmocka_unit_test(test_rewrite_out_of_memory),
		cmocka_unit_test(test_parse_out_of_memory),
		cmocka_unit_test(test_write_allow),
		cmocka_unit_test(test_write_block),
		cmocka_unit_test(test_write_context),
		cmocka_unit_test(test_write_deny),
		cmocka_unit_test(test_write_ask),
		cmocka_unit_test(test_reasons_escaped),
		cmocka_unit_test(test_block_escape_exact),
		cmocka_unit_test(test_text_within_the_bound_is_whole),
		cmocka_unit_test(test_long_text_is_cut_at_a_line),
		cmocka_unit_test(test_one_long_line_is_cut_at_a_character),
		cmocka_unit_test(test_every_answer_is_bounded),
		cmocka_unit_test(test_never_allow_or_approve),
		cmocka_unit_test(test_deny_has_no_legacy_fields),
		cmocka_unit_test(test_context_not_at_top_level),
		cmocka_unit_test(test_output_set_copies),
		cmocka_unit_test(test_output_take),
		cmocka_unit_test(test_output_set_out_of_memory),
		cmocka_unit_test(test_output_write_appends),
		cmocka_unit_test(test_output_write_out_of_memory),
		cmocka_unit_test(test_output_text_is_always_utf8),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
