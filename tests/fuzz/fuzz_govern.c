/*
 * fuzz_govern.c - the governance rules on hostile tool calls. A repository
 * that exists only as tables (intents from fixed YAML, two files, a link
 * out of the scope) is judged for a tool call whose target path or Bash
 * line is the fuzzer's bytes, from a session with no intent and from one
 * that selected INT-001, then the PostToolUse step learns from it.
 *
 * Input layout:
 *
 *   byte 0    the tool (mod 6): Write, Edit, MultiEdit, NotebookEdit, Bash, Read
 *   byte 1    the working directory (mod 4): /repo, /repo/src, /elsewhere, none
 *   rest      the file path, or the Bash command
 *
 * Whatever the bytes, the rules must: return ROZ_OK or ROZ_ENOMEM; answer
 * allow, deny or ask, a refusal always with a code, a sentence and JSON
 * that parses; never let a file tool write under /repo/src/ (as written,
 * with no `.` or `..` component) before an intent is selected; and leave a
 * governance state that writes out and reads back whole.
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "fuzz.h"
#include "roz/path.h"
#include "roz/digest.h"
#include "roz/govern.h"
#include "roz/json.h"

static const char intents_yaml[] =
	"active_intents:\n"
	"  - id: INT-001\n    name: Auth\n    status: IN_PROGRESS\n"
	"    owned_scope: [\"src/auth/**\", \"docs/*.md\"]\n"
	"  - id: INT-002\n    name: Billing\n    status: DRAFT\n    owned_scope: [\"src/billing/**\"]\n";

static const char *const tools[] = {"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "Read"};
static const char *const cwds[] = {"/repo", "/repo/src", "/elsewhere", NULL};

static int fake_hash(void *ud, const char *path, char out[ROZ_GOV_HASH_SIZE])
{
	(void)ud;
	if (strcmp(path, "/repo/src/auth/a.c") == 0 || strcmp(path, "/repo/docs/x.md") == 0) {
		roz_digest_sha256_hex(path, strlen(path), out);
		return ROZ_OK;
	}
	return ROZ_ENOTFOUND;
}

static int fake_link(void *ud, const char *path, char **target)
{
	(void)ud;
	*target = NULL;
	if (strcmp(path, "/repo/src/auth/out") == 0)
		return (*target = roz_strdup("../../src/billing")) ? ROZ_OK : ROZ_ENOMEM;
	return ROZ_ENOTFOUND;
}

/* The path as written is under /repo/src/ with no `.` or `..` component. */
static bool plainly_under_src(const char *p, const char *cwd)
{
	if (strncmp(p, "/repo/src/", 10) != 0 || strlen(p) != strnlen(p, 4096))
		return false;
	(void)cwd;
	for (const char *c = p; *c; c++)
		if (*c == '.' && (c[-1] == '/') && (c[1] == '/' || c[1] == '\0' || (c[1] == '.' && (c[2] == '/' || !c[2]))))
			return false;
	return true;
}

static void check_result(const roz_gov_result *r)
{
	roz_buf b = ROZ_BUF_INIT;
	const char *nl;

	FUZZ_CHECK(r->kind == ROZ_OUTPUT_ALLOW || r->kind == ROZ_OUTPUT_DENY || r->kind == ROZ_OUTPUT_ASK);
	if (r->kind == ROZ_OUTPUT_ALLOW)
		return;
	FUZZ_CHECK(r->denial.code != ROZ_DENIAL_NONE && r->denial.message);
	roz_denial_render(&r->denial, &b);
	if (b.oom) {
		roz_buf_dispose(&b);
		return;
	}
	nl = strrchr(b.ptr, '\n');
	FUZZ_CHECK(nl && roz_json_valid(nl + 1, strlen(nl + 1)));
	roz_buf_dispose(&b);
}

static void check_state_reads_back(const roz_session_gov *g)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_session_gov back;
	cJSON *doc = NULL;
	int rc;

	if (!g->present)
		return;
	memset(&back, 0, sizeof back);
	roz_session_gov_write(g, &b);
	if (b.oom) {
		roz_buf_dispose(&b);
		return;
	}
	rc = roz_json_parse(b.ptr, b.len, &doc);
	FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_ENOMEM);
	if (rc == ROZ_OK) {
		rc = roz_session_gov_read(doc, &back);
		FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_ENOMEM);
		if (rc == ROZ_OK)
			FUZZ_CHECK(back.n_files == g->n_files && back.denials == g->denials);
	}
	cJSON_Delete(doc);
	roz_session_gov_dispose(&back);
	roz_buf_dispose(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static roz_intents intents;
	static roz_ignore ignore;
	static bool ready;
	roz_gov_world w;
	roz_gov_opts o = {.escalate_after = 2, .destructive = true};
	char *tmp[] = {(char *)"/tmp"};
	const char *tool, *cwd;
	roz_buf json = ROZ_BUF_INIT;
	roz_hook_input in;
	roz_shell_result sh;
	roz_effect eff;
	roz_session_gov g;
	roz_gov_result r;
	bool bash, have_sh = false, save = false;
	char *text = NULL;
	int rc;

	if (!ready) {
		roz_intents_error err = {0, 0, NULL};

		FUZZ_CHECK(roz_intents_parse(intents_yaml, sizeof intents_yaml - 1, &intents, &err) == ROZ_OK);
		FUZZ_CHECK(roz_ignore_parse("*.log\n", 6, &ignore, NULL) == ROZ_OK);
		ready = true;
	}
	if (size < 2)
		return 0;
	tool = tools[data[0] % 6];
	cwd = cwds[data[1] % 4];
	bash = strcmp(tool, "Bash") == 0;
	data += 2;
	size -= 2;

	memset(&w, 0, sizeof w);
	w.root = "/repo";
	w.governed = true;
	w.intents = &intents;
	w.ignore = &ignore;
	w.paths.home = "/home/u";
	w.paths.read_link = fake_link;
	w.hash_file = fake_hash;
	o.tmp_dirs = tmp;
	o.ntmp = 1;

	roz_buf_adds(&json, "{\"session_id\":\"fz\"");
	if (cwd) {
		roz_buf_adds(&json, ",\"cwd\":");
		roz_json_add_string(&json, cwd);
	}
	roz_buf_adds(&json, ",\"tool_name\":");
	roz_json_add_string(&json, tool);
	roz_buf_adds(&json, bash ? ",\"tool_input\":{\"command\":" :
			     strcmp(tool, "NotebookEdit") == 0 ? ",\"tool_input\":{\"notebook_path\":" :
								  ",\"tool_input\":{\"file_path\":");
	roz_json_add_stringn(&json, (const char *)data, size);
	roz_buf_adds(&json, "}}");
	if (json.oom || roz_hook_input_parse(json.ptr, json.len, &in) != ROZ_OK) {
		roz_buf_dispose(&json);
		return 0;
	}
	memset(&sh, 0, sizeof sh);
	if (bash) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(in.tool_input, "command");

		memset(&eff, 0, sizeof eff);
		if (cJSON_IsString(c) && roz_shell_parse(c->valuestring, strlen(c->valuestring), &sh) == ROZ_OK) {
			have_sh = true;
			if (roz_effect_of_bash(&sh, &eff) != ROZ_OK)
				goto done;
		}
	} else {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(
			in.tool_input, strcmp(tool, "NotebookEdit") == 0 ? "notebook_path" : "file_path");

		if (cJSON_IsString(p))
			text = roz_strdup(p->valuestring);
	}

	/* no intent selected */
	memset(&g, 0, sizeof g);
	rc = roz_govern_pre_tool_use(&in, have_sh ? &sh : NULL, have_sh ? &eff : NULL, &w, &o,
				     roz_time_make(1, 0), &g, &r);
	FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_ENOMEM);
	if (rc == ROZ_OK) {
		check_result(&r);
		/* (a path .intentignore takes, `*.log`, is outside governance: no intent needed) */
		if (!bash && strcmp(tool, "Read") != 0 && text && plainly_under_src(text, cwd)) {
			char *norm = NULL;

			/* as governance reads the path: normalized (a trailing slash folded) */
			if (roz_path_normalize("/repo", NULL, text, &norm) == ROZ_OK && norm &&
			    strncmp(norm, "/repo/", 6) == 0 && !roz_ignore_match(&ignore, norm + 6, false))
				FUZZ_CHECK(r.kind != ROZ_OUTPUT_ALLOW);
			roz_free(norm);
		}
	}
	roz_gov_result_dispose(&r);
	check_state_reads_back(&g);

	/* INT-001 selected, one file remembered with a hash that no longer matches */
	if (roz_session_gov_select(&g, "INT-001", false, roz_time_make(2, 0)) == ROZ_OK &&
	    roz_session_gov_remember(&g, "/repo/src/auth/a.c",
				     "0000000000000000000000000000000000000000000000000000000000000000",
				     roz_time_make(2, 0)) == ROZ_OK) {
		rc = roz_govern_pre_tool_use(&in, have_sh ? &sh : NULL, have_sh ? &eff : NULL, &w, &o,
					     roz_time_make(3, 0), &g, &r);
		FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_ENOMEM);
		if (rc == ROZ_OK) {
			check_result(&r);
			if (text && strcmp(text, "/repo/src/auth/a.c") == 0 && strcmp(tool, "Read") != 0 &&
			    !bash)
				FUZZ_CHECK(r.kind == ROZ_OUTPUT_DENY && r.denial.code == ROZ_DENIAL_STALE_FILE);
		}
		roz_gov_result_dispose(&r);
		rc = roz_govern_post_tool_use(&in, have_sh ? &eff : NULL, &w, roz_time_make(4, 0), &g, &save);
		FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_ENOMEM);
		check_state_reads_back(&g);
	}

	roz_session_gov_dispose(&g);
done:
	roz_free(text);
	if (have_sh) {
		roz_shell_result_dispose(&sh);
		roz_effect_dispose(&eff);
	}
	roz_hook_input_dispose(&in);
	roz_buf_dispose(&json);
	return 0;
}
