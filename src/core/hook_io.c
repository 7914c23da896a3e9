/*
 * hook_io.c - parsing Claude Code's hook input and writing the JSON answers
 * it accepts. Strict about the fields roz uses, blind to the rest.
 */
#include "roz/hook_io.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "roz/json.h"
#include "roz/utf8.h"

void roz_hook_input_clear(roz_hook_input *in)
{
	cJSON_Delete(in->root);
	memset(in, 0, sizeof(*in));
	in->stop_hook_active = -1;
}

static int field_error(const char *name, const char *want)
{
	roz_error_set("hook input field '%s' must be %s", name, want);
	return ROZ_EINVALID;
}

/* Optional string: absent and null both leave *out NULL. */
static int opt_string(const cJSON *root, const char *name, const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);

	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return ROZ_OK;
	if (!cJSON_IsString(v))
		return field_error(name, "a string");
	*out = v->valuestring;
	return ROZ_OK;
}

static int req_string(const cJSON *root, const char *name, const char **out)
{
	int rc = opt_string(root, name, out);

	if (rc == ROZ_OK && !*out) {
		roz_error_set("hook input has no '%s'", name);
		return ROZ_EINVALID;
	}
	return rc;
}

static const char *loose_string(const cJSON *root, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *opt_value(const cJSON *root, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);

	return v && !cJSON_IsNull(v) ? v : NULL;
}

/* Name the top-level field whose value holds a \u0000 escape. */
static int find_nul(void *ud, roz_json_span key, roz_json_span value)
{
	(void)ud;
	if (!memmem(value.ptr, value.len, "\\u0000", 6))
		return 0;
	roz_error_set("hook input field '%.*s' contains a NUL character (\\u0000)", (int)key.len,
		      key.ptr);
	return ROZ_EINVALID;
}

int roz_hook_input_parse(const char *text, size_t len, roz_hook_input *in)
{
	const cJSON *v;
	int rc;

	memset(in, 0, sizeof(*in));
	in->stop_hook_active = -1;
	if (len == 0 || roz_json_skip_ws(text, len, 0) == len) {
		roz_error_set("hook input is empty");
		return ROZ_EINVALID;
	}
	if (len > ROZ_MAX_INPUT_BYTES) {
		roz_error_set("hook input is larger than %u bytes", ROZ_MAX_INPUT_BYTES);
		return ROZ_EINVALID;
	}
	if (!roz_utf8_valid(text, len)) {
		roz_error_set("hook input is not valid UTF-8");
		return ROZ_EINVALID;
	}
	if (!roz_json_valid(text, len)) {
		roz_error_prefix("hook input is not valid JSON");
		return ROZ_EINVALID;
	}
	/* cJSON ends strings at a NUL, so "abc\u0000../x" would read as "abc" */
	if (memmem(text, len, "\\u0000", 6)) {
		roz_json_span doc = {text, len};

		if (roz_json_each_member(doc, find_nul, NULL) != ROZ_EINVALID)
			roz_error_set("hook input contains a NUL character (\\u0000)");
		return ROZ_EINVALID;
	}
	if ((rc = roz_json_parse(text, len, &in->root)) < 0) {
		if (rc != ROZ_ENOMEM)
			roz_error_prefix("hook input is not valid JSON");
		return rc == ROZ_ENOMEM ? ROZ_ENOMEM : ROZ_EINVALID;
	}
	if (!cJSON_IsObject(in->root)) {
		roz_error_set("hook input is not a JSON object");
		rc = ROZ_EINVALID;
		goto fail;
	}
	if ((rc = req_string(in->root, "session_id", &in->session_id)) < 0 ||
	    (rc = req_string(in->root, "cwd", &in->cwd)) < 0 ||
	    (rc = opt_string(in->root, "transcript_path", &in->transcript_path)) < 0 ||
	    (rc = opt_string(in->root, "permission_mode", &in->permission_mode)) < 0 ||
	    (rc = opt_string(in->root, "hook_event_name", &in->hook_event_name)) < 0 ||
	    (rc = opt_string(in->root, "prompt", &in->prompt)) < 0 ||

	    (rc = opt_string(in->root, "tool_name", &in->tool_name)) < 0 ||

	    (rc = opt_string(in->root, "source", &in->source)) < 0 ||
	    (rc = opt_string(in->root, "model", &in->model)) < 0 ||
	    (rc = opt_string(in->root, "agent_type", &in->agent_type)) < 0 ||
	    (rc = opt_string(in->root, "agent_id", &in->agent_id)) < 0 ||
	    (rc = opt_string(in->root, "agent_transcript_path", &in->agent_transcript_path)) < 0 ||
	    (rc = opt_string(in->root, "last_assistant_message", &in->last_assistant_message)) < 0 ||
	    (rc = opt_string(in->root, "reason", &in->reason)) < 0)
		goto fail;
	/* fields roz only passes along: a wrong type is no reason to drop the call */
	in->prompt_id = loose_string(in->root, "prompt_id");
	in->tool_use_id = loose_string(in->root, "tool_use_id");
	in->tool_input = opt_value(in->root, "tool_input");
	in->tool_response = opt_value(in->root, "tool_response");
	in->effort = opt_value(in->root, "effort");
	in->background_tasks = opt_value(in->root, "background_tasks");
	if (!cJSON_IsArray(in->background_tasks))
		in->background_tasks = NULL;
	v = opt_value(in->root, "stop_hook_active");
	if (v) {
		if (!cJSON_IsBool(v)) {
			rc = field_error("stop_hook_active", "true or false");
			goto fail;
		}
		in->stop_hook_active = cJSON_IsTrue(v) ? 1 : 0;
	}
	return ROZ_OK;
fail:
	roz_hook_input_clear(in);
	return rc;
}

void roz_hook_output_clear(roz_hook_output *out)
{
	roz_free(out->text);
	memset(out, 0, sizeof(*out));
	out->kind = ROZ_OUTPUT_ALLOW;
}

int roz_hook_output_take(roz_hook_output *out, roz_output_kind kind, char *text)
{
	const char *event = out->event_name;

	roz_hook_output_clear(out);
	if (kind != ROZ_OUTPUT_ALLOW && !text)
		return ROZ_ENOMEM;
	out->kind = kind;
	out->text = text;
	out->event_name = event;
	return ROZ_OK;
}

int roz_hook_output_set(roz_hook_output *out, roz_output_kind kind, const char *text)
{
	char *copy = NULL;

	if (text && !(copy = roz_strdup(text))) {
		roz_hook_output_clear(out);
		return ROZ_ENOMEM;
	}
	return roz_hook_output_take(out, kind, copy);
}

int roz_hook_output_write(const roz_hook_output *out, roz_buf *b)
{
	const char *text = out->text ? out->text : "";

	switch (out->kind) {
	case ROZ_OUTPUT_BLOCK:
		roz_buf_adds(b, "{\"decision\":\"block\",\"reason\":");
		roz_json_add_string(b, text);
		roz_buf_adds(b, "}\n");
		break;
	case ROZ_OUTPUT_CONTEXT:
		roz_buf_adds(b, "{\"hookSpecificOutput\":{\"hookEventName\":");
		roz_json_add_string(b, out->event_name ? out->event_name : "SessionStart");
		roz_buf_adds(b, ",\"additionalContext\":");
		roz_json_add_string(b, text);
		roz_buf_adds(b, "}}\n");
		break;
	case ROZ_OUTPUT_DENY:
	case ROZ_OUTPUT_ASK:
		roz_buf_addf(b,
			     "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
			     "\"permissionDecision\":\"%s\",\"permissionDecisionReason\":",
			     out->kind == ROZ_OUTPUT_DENY ? "deny" : "ask");
		roz_json_add_string(b, text);
		roz_buf_adds(b, "}}\n");
		break;
	default:
		roz_buf_adds(b, "{}\n");
	}
	return roz_buf_failed(b);
}
