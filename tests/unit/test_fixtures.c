/*
 * test_fixtures.c - every hook input captured from a real Claude Code
 * (tests/e2e/fixtures/hook-inputs/<version>[/<mode>]/<Event>[-variant].json)
 * must still parse, and roz must read from it what the event carries, so a
 * release that changes what it sends is caught here before it reaches a user.
 */
#include "support.h"

#include "roz/hook_io.h"

#include <cjson/cJSON.h>
#include <ftw.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE_ROOT ROZ_SOURCE_DIR "/tests/e2e/fixtures/hook-inputs"

/*
 * Directories that must hold fixtures: the oldest supported and the newest
 * release, the newest in every mode. A capture that silently wrote nothing
 * would otherwise leave this test with nothing to check.
 */
static const char *const required_dirs[] = {
	"2.1.197",
	"2.1.332",
	"2.1.332/stream-json",
	"2.1.332/interactive",
};
#define N_REQUIRED (sizeof(required_dirs) / sizeof(required_dirs[0]))

/* String fields roz reads, by JSON name and place in the struct. */
static const struct {
	const char *name;
	size_t offset;
} string_fields[] = {
	{"session_id", offsetof(roz_hook_input, session_id)},
	{"cwd", offsetof(roz_hook_input, cwd)},
	{"transcript_path", offsetof(roz_hook_input, transcript_path)},
	{"permission_mode", offsetof(roz_hook_input, permission_mode)},
	{"hook_event_name", offsetof(roz_hook_input, hook_event_name)},
	{"prompt", offsetof(roz_hook_input, prompt)},
	{"prompt_id", offsetof(roz_hook_input, prompt_id)},
	{"tool_name", offsetof(roz_hook_input, tool_name)},
	{"tool_use_id", offsetof(roz_hook_input, tool_use_id)},
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

/* What the walk found; nftw's callback has no user pointer. */
static struct {
	size_t files;
	size_t per_dir[N_REQUIRED];
	size_t stops_with_tasks; /* Stop/SubagentStop whose background_tasks is not empty */
	size_t failures;
	roz_buf report;
} seen;

/* One line of the final report: the fixture (relative to the root) and what is wrong. */
static void complain(const char *file, const char *what, const char *detail)
{
	roz_buf_addf(&seen.report, "%s: %s%s%s\n", file + strlen(FIXTURE_ROOT) + 1, what,
		     detail ? " " : "", detail ? detail : "");
	seen.failures++;
}

/* The event a fixture is named after: "Stop-background-running.json" -> "Stop". */
static char *event_of_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strcspn(base, "-.");
	char *ev = malloc(n + 1);

	assert_non_null(ev);
	memcpy(ev, base, n);
	ev[n] = '\0';
	return ev;
}

static int is_tool_event(const char *ev)
{
	return strcmp(ev, "PreToolUse") == 0 || strcmp(ev, "PostToolUse") == 0 ||
	       strcmp(ev, "PostToolUseFailure") == 0;
}

static void count_dir(const char *path)
{
	const char *rel = path + strlen(FIXTURE_ROOT) + 1;
	const char *slash = strrchr(rel, '/');
	size_t dir_len = slash ? (size_t)(slash - rel) : 0;

	for (size_t i = 0; i < N_REQUIRED; i++)
		if (strlen(required_dirs[i]) == dir_len && strncmp(rel, required_dirs[i], dir_len) == 0)
			seen.per_dir[i]++;
}

/* Compare what roz read with the fixture's own JSON, field by field. */
static void check_fixture(const char *path, const char *text, size_t len)
{
	roz_hook_input in;
	cJSON *json = cJSON_ParseWithLength(text, len);
	char *ev = event_of_name(path);
	const cJSON *tasks;
	const cJSON *active;

	if (!json) {
		complain(path, "the fixture itself is not JSON", NULL);
		free(ev);
		return;
	}
	if (roz_hook_input_parse(text, len, &in) != ROZ_OK) {
		complain(path, "roz rejected it:", roz_error_last());
		cJSON_Delete(json);
		free(ev);
		return;
	}
	if (!in.session_id)
		complain(path, "no session_id", NULL);
	if (!in.cwd)
		complain(path, "no cwd", NULL);
	if (!in.hook_event_name || strcmp(in.hook_event_name, ev) != 0)
		complain(path, "hook_event_name is not the event in the file name:", ev);
	for (size_t i = 0; i < N_STRING_FIELDS; i++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(json, string_fields[i].name);
		const char *got = field_at(&in, i);

		if (cJSON_IsString(f) && (!got || strcmp(got, f->valuestring) != 0))
			complain(path, "roz did not read this field as sent:", string_fields[i].name);
	}
	if (is_tool_event(ev)) {
		if (!in.tool_name)
			complain(path, "a tool event without tool_name", NULL);
		if (!cJSON_IsObject(in.tool_input))
			complain(path, "a tool event without a tool_input object", NULL);
		if (!in.tool_use_id)
			complain(path, "a tool event without tool_use_id", NULL);
	}
	if (strcmp(ev, "PostToolUse") == 0 && !in.tool_response)
		complain(path, "PostToolUse without tool_response", NULL);
	if ((strcmp(ev, "SubagentStart") == 0 || strcmp(ev, "SubagentStop") == 0) && (!in.agent_id || !in.agent_type))
		complain(path, "a subagent event without agent_id and agent_type", NULL);
	if (strcmp(ev, "UserPromptSubmit") == 0 && !in.prompt)
		complain(path, "UserPromptSubmit without prompt", NULL);
	active = cJSON_GetObjectItemCaseSensitive(json, "stop_hook_active");
	if (cJSON_IsBool(active) && in.stop_hook_active != (cJSON_IsTrue(active) ? 1 : 0))
		complain(path, "stop_hook_active read wrong", NULL);
	if ((strcmp(ev, "Stop") == 0 || strcmp(ev, "SubagentStop") == 0) && !cJSON_IsBool(active))
		complain(path, "a stop without a stop_hook_active boolean", NULL);
	tasks = cJSON_GetObjectItemCaseSensitive(json, "background_tasks");
	if (tasks) {
		if (!cJSON_IsArray(in.background_tasks) ||
		    cJSON_GetArraySize(in.background_tasks) != cJSON_GetArraySize(tasks))
			complain(path, "background_tasks not read as the array sent", NULL);
		else if (cJSON_GetArraySize(tasks) > 0)
			seen.stops_with_tasks++;
	}
	roz_hook_input_dispose(&in);
	cJSON_Delete(json);
	free(ev);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t len;
	size_t n = strlen(path);
	char *text;

	(void)st;
	(void)ftw;
	if (type != FTW_F || n < 5 || strcmp(path + n - 5, ".json") != 0)
		return 0;
	text = t_read_file(path, &len);
	if (!text) {
		complain(path, "unreadable", NULL);
		return 0;
	}
	seen.files++;
	count_dir(path);
	check_fixture(path, text, len);
	free(text);
	return 0;
}

static void test_every_captured_input_parses(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof(seen));
	roz_buf_init(&seen.report);
	if (nftw(FIXTURE_ROOT, visit, 16, FTW_PHYS) != 0)
		fail_msg("cannot walk %s", FIXTURE_ROOT);
	for (size_t i = 0; i < N_REQUIRED; i++) {
		if (seen.per_dir[i] == 0) {
			roz_buf_addf(&seen.report, "%s: no fixtures (tests/e2e/capture/capture-hooks.sh writes them)\n",
				     required_dirs[i]);
			seen.failures++;
		}
	}
	/* the captures include stops while a background reviewer runs */
	if (seen.stops_with_tasks == 0) {
		roz_buf_adds(&seen.report, "no fixture has a non-empty background_tasks\n");
		seen.failures++;
	}
	if (roz_buf_failed(&seen.report) != ROZ_OK)
		fail_msg("out of memory");
	if (seen.failures)
		fail_msg("%zu problem(s) in %zu fixtures:\n%s", seen.failures, seen.files, roz_buf_cstr(&seen.report));
	roz_buf_dispose(&seen.report);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_captured_input_parses),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
