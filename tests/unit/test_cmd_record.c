/*
 * test_cmd_record.c - the record through the real binary: `roz lesson add`,
 * `roz intent map`, `roz context` with the session's intent and ledger
 * entries, and an ISSUES verdict that becomes a lesson in CLAUDE.md.
 */
#include "support.h"

#include "roz/ledger.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fx {
	char *home, *repo;
	char *env[6];
} fx;

static const char intents[] = "active_intents:\n  - id: INT-001\n    name: Auth\n    status: IN_PROGRESS\n"
			      "    owned_scope: [\"src/**\"]\n"
			      "    constraints: [\"No external auth providers\"]\n"
			      "    acceptance_criteria: [\"Unit tests in tests/auth pass\"]\n";

static char *at(const fx *f, const char *rel)
{
	return t_sprintf("%s/%s", f->repo, rel);
}

static void put(const fx *f, const char *rel, const char *text)
{
	char *p = at(f, rel);

	t_write_file(p, text);
	free(p);
}

static char *get(const fx *f, const char *rel)
{
	char *p = at(f, rel), *s = t_read_file(p, NULL);

	free(p);
	return s;
}

/* A home with require_reviewer off (no ticket needed) and a governed repository. */
static void fx_make(fx *f, bool governed)
{
	char *p;

	f->home = t_mkdtemp();
	f->repo = t_mkdtemp();
	p = t_sprintf("%s/sessions", f->home);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = t_sprintf("%s/config.toml", f->home);
	t_write_file(p, "[review]\nrequire_reviewer = false\n");
	free(p);
	f->env[0] = t_sprintf("ROZ_HOME=%s", f->home);
	f->env[1] = t_sprintf("HOME=%s", f->home);
	f->env[2] = strdup("USER=tester");
	f->env[3] = NULL;
	p = at(f, ".git");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = at(f, ".orchestration");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = at(f, "src");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	if (governed)
		put(f, ".orchestration/active_intents.yaml", intents);
}

static void fx_dispose(fx *f)
{
	t_rmtree(f->home);
	t_rmtree(f->repo);
	free(f->home);
	free(f->repo);
	for (int i = 0; f->env[i]; i++)
		free(f->env[i]);
}

/* roz <argv> run in the repository. */
static void run(const fx *f, t_run *r, const char *in, const char *const *argv)
{
	char old[4096];

	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(f->repo), 0);
	t_run_roz(r, in, (const char *const *)f->env, argv);
	assert_int_equal(chdir(old), 0);
}

/* A session under review with INT-001 selected. */
static void session(const fx *f, const char *sid)
{
	const char *prompt[] = {"hook", "user-prompt", NULL}, *pre[] = {"hook", "pre-tool-use", NULL};
	char *in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"%s\",\"prompt\":\"#roz fix auth\"}", sid, f->repo);
	t_run r;

	run(f, &r, in, prompt);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	free(in);
	in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"%s\",\"tool_name\":\"Bash\","
		       "\"tool_input\":{\"command\":\"roz intent select INT-001\"}}",
		       sid, f->repo);
	run(f, &r, in, pre);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	free(in);
}

/* One ledger line for `path` lines [a, b] of `text`, by session `sid`. */
static char *record(const char *sid, const char *intent, const char *path, const char *text, unsigned long a,
		    unsigned long b)
{
	char hex[ROZ_SHA256_HEX_SIZE];

	roz_ledger_hash_lines(text, strlen(text), a, b, hex);
	return t_sprintf("{\"version\":\"0.1\",\"id\":\"r-%s-%lu\",\"timestamp\":\"2026-02-18T12:00:00Z\","
			 "\"files\":[{\"path\":\"%s\",\"conversations\":[{\"url\":\"urn:claude-code:session:%s\","
			 "\"ranges\":[{\"start_line\":%lu,\"end_line\":%lu,\"content_hash\":\"sha256:%s\"}]}]}],"
			 "\"metadata\":{\"roz\":{\"intent_id\":%s%s%s,\"session_id\":\"%s\"}}}\n",
			 path, a, path, sid, a, b, hex, intent ? "\"" : "", intent ? intent : "null",
			 intent ? "\"" : "", sid);
}

static void lesson_add_appends_one_line(void **state)
{
	const char *add[] = {"lesson", "add", "check tokens\nbefore use", "--intent", "INT-001", NULL},
		   *plain[] = {"lesson", "add", "second", NULL},
		   *unknown[] = {"lesson", "add", "x", "--intent", "INT-404", NULL},
		   *empty[] = {"lesson", "add", " \n ", NULL};
	char *s;
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, true);
	run(&f, &r, NULL, add);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, ".orchestration/CLAUDE.md"));
	t_run_dispose(&r);
	run(&f, &r, NULL, plain);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	s = get(&f, ".orchestration/CLAUDE.md");
	/* "- YYYY-MM-DD [INT-001] (tester): check tokens / before use\n- YYYY-MM-DD [no intent] (tester): second\n" */
	assert_int_equal(s[strlen(s) - 1], '\n');
	assert_ptr_equal(strchr(strchr(s, '\n') + 1, '\n'), s + strlen(s) - 1); /* two lines, no more */
	assert_true(strncmp(s, "- 20", 4) == 0 && s[6] == '-' && s[12] == ' ');
	assert_non_null(strstr(s, " [INT-001] (tester): check tokens / before use\n- "));
	assert_non_null(strstr(s, " [no intent] (tester): second\n"));
	/* run by the agent, through Claude Code's Bash tool: said to be the agent's, not a person's */
	f.env[3] = strdup("CLAUDE_CODE_SESSION_ID=sess-42");
	f.env[4] = NULL;
	run(&f, &r, NULL, plain);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	free(f.env[3]);
	f.env[3] = NULL;
	free(s);
	s = get(&f, ".orchestration/CLAUDE.md");
	assert_non_null(strstr(s, " [no intent] (the agent of session sess-42): second\n"));
	run(&f, &r, NULL, unknown);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "INT-404"));
	t_run_dispose(&r);
	run(&f, &r, NULL, empty);
	assert_int_equal(r.status, 2);
	t_run_dispose(&r);
	free(s);
	s = get(&f, ".orchestration/CLAUDE.md");
	assert_null(strstr(s, "INT-404"));
	free(s);
	/* without .orchestration/ there is nowhere to keep lessons, and roz does not make one */
	{
		char *dir = at(&f, ".orchestration");

		t_rmtree(dir);
		run(&f, &r, NULL, plain);
		assert_int_equal(r.status, 1);
		assert_non_null(strstr(r.err, ".orchestration/"));
		assert_int_equal(access(dir, F_OK), -1);
		t_run_dispose(&r);
		free(dir);
	}
	fx_dispose(&f);
}

static void intent_map_writes_the_file_and_verifies(void **state)
{
	const char *map[] = {"intent", "map", NULL}, *out[] = {"intent", "map", "--stdout", NULL};
	const char *code = "one\ntwo\nthree\n";
	char *rec = record("s1", "INT-001", "src/a.c", code, 1, 2), *ledger = t_sprintf("%s{\"torn", rec), *s;
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, true);
	put(&f, "src/a.c", code);
	put(&f, ".orchestration/agent_trace.jsonl", ledger);
	run(&f, &r, NULL, map);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Wrote "));
	assert_non_null(strstr(r.out, "intent_map.md: 1 intent, 1 record, 1 unreadable line skipped.\n"));
	t_run_dispose(&r);
	s = get(&f, ".orchestration/intent_map.md");
	assert_non_null(strstr(s, "## INT-001: Auth\n\n**Status:** IN_PROGRESS  \n**Scope:** src/\\*\\*\n"));
	assert_non_null(strstr(s, "| src/a.c | 1-2 | 2026-02-18T12:00:00Z | 1 intact |\n"));
	/* --stdout prints the same map and leaves the file alone */
	run(&f, &r, NULL, out);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, s);
	t_run_dispose(&r);
	free(s);
	put(&f, "src/a.c", "changed\n");
	run(&f, &r, NULL, map);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	s = get(&f, ".orchestration/intent_map.md");
	assert_non_null(strstr(s, "| src/a.c | 1-2 | 2026-02-18T12:00:00Z | 1 edited |\n"));
	free(s);
	/* no temporary file is left beside it */
	{
		char *tmpl = at(&f, ".orchestration");
		char *cmd = t_sprintf("ls -a '%s' | grep -c intent_map", tmpl);
		FILE *p = popen(cmd, "r");
		int n = -1;

		assert_non_null(p);
		assert_int_equal(fscanf(p, "%d", &n), 1);
		pclose(p);
		assert_int_equal(n, 1);
		free(cmd);
		free(tmpl);
	}
	free(rec);
	free(ledger);
	fx_dispose(&f);
}

static void context_shows_the_intent_and_the_sessions_entries(void **state)
{
	const char *ctx[] = {"context", "sess-1", NULL}, *json[] = {"context", "sess-1", "--json", NULL};
	char *mine = record("sess-1", "INT-001", "src/a.c", "x\ny\n", 1, 2),
	     *other = record("sess-2", "INT-001", "src/other.c", "z\n", 1, 1), *ledger;
	cJSON *doc;
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, true);
	session(&f, "sess-1");
	ledger = t_sprintf("%s%s", mine, other);
	put(&f, ".orchestration/agent_trace.jsonl", ledger);
	run(&f, &r, NULL, ctx);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "User prompts:")); /* what was there stays */
	assert_non_null(strstr(r.out, "Intent INT-001: Auth (IN_PROGRESS)\n  Constraints:\n"
				      "    - No external auth providers\n  Acceptance criteria:\n"
				      "    - Unit tests in tests/auth pass\n"));
	assert_non_null(strstr(r.out, "  2026-02-18T12:00:00Z  src/a.c  lines 1-2\n"));
	assert_null(strstr(r.out, "src/other.c"));
	t_run_dispose(&r);
	run(&f, &r, NULL, json);
	assert_int_equal(r.status, 0);
	assert_non_null(doc = cJSON_Parse(r.out));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "intent"), "id")->valuestring, "INT-001");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "intent"),
								     "acceptance_criteria"), 0)->valuestring,
			    "Unit tests in tests/auth pass");
	{
		cJSON *l = cJSON_GetObjectItem(doc, "ledger"), *e = cJSON_GetObjectItem(l, "entries");

		assert_int_equal(cJSON_GetArraySize(e), 1);
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(e, 0), "path")->valuestring, "src/a.c");
		assert_int_equal(cJSON_GetObjectItem(l, "total")->valueint, 1);
	}
	cJSON_Delete(doc);
	t_run_dispose(&r);
	free(ledger);
	/* past 50 entries the rest are counted */
	{
		roz_buf b = ROZ_BUF_INIT;

		for (int i = 0; i < 60; i++) {
			char *p = t_sprintf("src/f%02d.c", i), *line = record("sess-1", "INT-001", p, "x\n", 1, 1);

			roz_buf_adds(&b, line);
			free(p);
			free(line);
		}
		put(&f, ".orchestration/agent_trace.jsonl", roz_buf_cstr(&b));
		roz_buf_dispose(&b);
	}
	run(&f, &r, NULL, ctx);
	assert_non_null(strstr(r.out, "src/f49.c"));
	assert_null(strstr(r.out, "src/f50.c"));
	assert_non_null(strstr(r.out, "  ... and 10 more\n"));
	t_run_dispose(&r);
	free(mine);
	free(other);
	fx_dispose(&f);
}

static void issues_verdict_becomes_a_lesson(void **state)
{
	const char *issues[] = {"decide", "sess-1", "ISSUES", "tokens unchecked", "--message",
				"Check the token's expiry\nbefore trusting it", NULL},
		   *complete[] = {"decide", "sess-1", "COMPLETE", "all good", NULL};
	char *s;
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, true);
	session(&f, "sess-1");
	run(&f, &r, NULL, issues);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	s = get(&f, ".orchestration/CLAUDE.md");
	assert_non_null(strstr(s, " [INT-001] (roz:roz review of sess-1): Check the token's expiry / before "
				  "trusting it\n"));
	free(s);
	/* COMPLETE is no lesson */
	run(&f, &r, NULL, complete);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	s = get(&f, ".orchestration/CLAUDE.md");
	assert_null(strstr(s, "all good"));
	free(s);
	/* a lessons file that cannot be written costs a warning, never the verdict */
	{
		char *p = at(&f, ".orchestration/CLAUDE.md");

		assert_int_equal(unlink(p), 0);
		assert_int_equal(mkdir(p, 0755), 0);
		free(p);
	}
	run(&f, &r, NULL, issues);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Recorded ISSUES"));
	assert_non_null(strstr(r.err, "not as a lesson"));
	t_run_dispose(&r);
	fx_dispose(&f);
}

static void no_lesson_outside_a_governed_repository(void **state)
{
	const char *prompt[] = {"hook", "user-prompt", NULL},
		   *issues[] = {"decide", "sess-2", "ISSUES", "wrong", NULL};
	char *in, *p;
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, false);
	in = t_sprintf("{\"session_id\":\"sess-2\",\"cwd\":\"%s\",\"prompt\":\"#roz go\"}", f.repo);
	run(&f, &r, in, prompt);
	t_run_dispose(&r);
	run(&f, &r, NULL, issues);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	t_run_dispose(&r);
	p = at(&f, ".orchestration/CLAUDE.md");
	assert_int_equal(access(p, F_OK), -1);
	free(p);
	free(in);
	fx_dispose(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lesson_add_appends_one_line),
		cmocka_unit_test(intent_map_writes_the_file_and_verifies),
		cmocka_unit_test(context_shows_the_intent_and_the_sessions_entries),
		cmocka_unit_test(issues_verdict_becomes_a_lesson),
		cmocka_unit_test(no_lesson_outside_a_governed_repository),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
