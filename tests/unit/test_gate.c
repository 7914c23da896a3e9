/*
 * test_gate.c - the gate module: which key a tool call is matched by (the
 * Bash line read command by command, with what it runs at run time asked
 * about), which writes it makes and whether they reach roz's storage, and
 * when a recorded approval lets a gated call through. The same attacks
 * driven through whole hooks are in test_hardening.c.
 */
#include "gates.h"

#include "roz/gate.h"
#include "roz/session.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Bash commands as gate keys ----------------------------------------------------- */


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

	t_gates(&c, &pattern, 1);
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
	t_gates(&c, &pat, 1);
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


static void test_gate_match_bash(void **state)
{
	static const char *const pats[] = {"Bash:git push*", "mcp__tissue__close*"};
	roz_config c;
	roz_gate_match m;
	cJSON *in = cJSON_Parse("{\"command\":\"echo y | GIT_SSH=x git push origin main\"}");

	(void)state;
	t_gates(&c, pats, 2);
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
	t_gates(&c, pats, 2);
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
	t_gates(&c, pats + 2, 1);
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


/* ---- what a call runs and writes ----------------------------------------------------- */

/* roz_gate_check on a Bash line, with the store at /home/u/.roz and this one gate. */
static void check_line(roz_config *c, const char *pattern, const char *command, roz_gate_match *m)
{
	cJSON *in = cJSON_CreateObject();

	t_gates(c, &pattern, pattern ? 1 : 0);
	c->storage_path = roz_strdup("/home/u/.roz");
	assert_non_null(c->storage_path);
	cJSON_AddStringToObject(in, "command", command);
	assert_int_equal(roz_gate_check(c, "Bash", in, "/w", m), ROZ_OK);
	cJSON_Delete(in);
}

static unsigned runs(const char *command)
{
	roz_config c;
	roz_gate_match m;
	unsigned r;

	check_line(&c, NULL, command, &m);
	r = m.roz_runs;
	roz_gate_match_dispose(&m);
	roz_config_dispose(&c);
	return r;
}

static void test_roz_own_commands_are_seen_without_gates(void **state)
{
	(void)state;
	assert_int_equal(runs("roz decide s1 COMPLETE ok"), ROZ_RUNS_DECIDE);
	assert_int_equal(runs("cd /w && /usr/local/bin/roz decide s1 ISSUES x"), ROZ_RUNS_DECIDE);
	assert_int_equal(runs("python3 -c 'import os; os.system(\"roz decide s1 COMPLETE x\")'"),
			 ROZ_RUNS_DECIDE);
	assert_int_equal(runs("echo '{}' | roz hook stop"), ROZ_RUNS_HOOK);
	assert_int_equal(runs("roz hook stop; roz decide s1 COMPLETE x"), ROZ_RUNS_HOOK | ROZ_RUNS_DECIDE);
	/* words in data, and roz's other commands, run neither */
	assert_int_equal(runs("echo roz decide s1 COMPLETE x"), 0);
	assert_int_equal(runs("roz context s1"), 0);
	assert_int_equal(runs("roz"), 0);
}

static void test_bash_writes_are_listed_with_how(void **state)
{
	roz_config c;
	roz_gate_match m;
	bool rm_seen = false, redirect_seen = false;

	(void)state;
	check_line(&c, NULL, "cd sub && rm -rf build; echo x > out.txt", &m);
	assert_false(m.matched);
	assert_int_equal(m.nwrites, 2);
	for (size_t i = 0; i < m.nwrites; i++) {
		const roz_gate_write *w = &m.writes[i];

		assert_non_null(w->by);
		if (!strcmp(w->path, "build")) {
			rm_seen = true;
			assert_true(w->how & ROZ_WRITE_TREE);
			assert_int_equal(w->known, strlen("build"));
		} else if (!strcmp(w->path, "out.txt")) {
			redirect_seen = true;
			assert_false(w->how & ROZ_WRITE_TREE);
		}
	}
	assert_true(rm_seen && redirect_seen);
	assert_int_equal(m.ndirs, 1);
	assert_string_equal(m.dirs[0], "sub");
	assert_false(m.dir_unknown);
	/* a Bash line no gate matched is judged later, with the file system */
	assert_false(m.touches_store);
	roz_gate_match_dispose(&m);
	assert_int_equal(m.nwrites, 0);
	assert_null(m.writes);
	roz_config_dispose(&c);

	check_line(&c, NULL, "cd \"$D\" && rm x", &m);
	assert_true(m.dir_unknown);
	roz_gate_match_dispose(&m);
	roz_config_dispose(&c);

	check_line(&c, NULL, "HOME=/tmp/h; rm ~/x", &m);
	assert_true(m.home_unknown);
	roz_gate_match_dispose(&m);
	roz_config_dispose(&c);

	/* with no storage configured there is nothing to guard, so nothing is collected */
	t_gates(&c, NULL, 0);
	{
		cJSON *in = cJSON_Parse("{\"command\":\"rm -rf /home/u/.roz\"}");

		assert_int_equal(roz_gate_check(&c, "Bash", in, "/w", &m), ROZ_OK);
		assert_int_equal(m.nwrites, 0);
		cJSON_Delete(in);
	}
	roz_gate_match_dispose(&m);
	roz_config_dispose(&c);
}

static void test_file_tools_touching_the_store_are_known_from_the_text(void **state)
{
	static const struct {
		const char *tool, *field, *path;
		bool writes, store;
	} cases[] = {
		{"Write", "file_path", "/home/u/.roz/sessions/s1.json", true, true},
		{"Edit", "file_path", "/tmp/../home/u/.roz/config.toml", true, true},
		{"MultiEdit", "file_path", "/home/u/.roz", true, true},
		{"NotebookEdit", "notebook_path", "/home/u/.roz/n.ipynb", true, true},
		{"Write", "file_path", "/home/u/.rozzy/notes.md", true, false},
		/* where `~` points is not known from the text */
		{"Write", "file_path", "~/.roz/sessions/s1.json", true, false},
		{"Read", "file_path", "/home/u/.roz/sessions/s1.json", false, false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		roz_config c;
		roz_gate_match m;
		cJSON *in = cJSON_CreateObject();

		t_gates(&c, NULL, 0);
		c.storage_path = roz_strdup("/home/u/.roz");
		cJSON_AddStringToObject(in, cases[i].field, cases[i].path);
		assert_int_equal(roz_gate_check(&c, cases[i].tool, in, "/w", &m), ROZ_OK);
		if ((m.nwrites == 1) != cases[i].writes || m.touches_store != cases[i].store)
			fail_msg("%s %s: %zu writes, touches_store %d", cases[i].tool, cases[i].path,
				 m.nwrites, m.touches_store);
		if (cases[i].writes) {
			assert_string_equal(m.writes[0].path, cases[i].path);
			assert_string_equal(m.writes[0].by, cases[i].tool);
		}
		roz_gate_match_dispose(&m);
		roz_config_dispose(&c);
		cJSON_Delete(in);
	}
}

/* ---- judging writes against the store ----------------------------------------------- */

static int one_link(void *ud, const char *path, char **target)
{
	(void)ud;
	if (!strcmp(path, "/tmp/r"))
		return (*target = roz_strdup("/home/u/.roz")) ? ROZ_OK : ROZ_ENOMEM;
	return ROZ_ENOTFOUND;
}

/* The verdict on a Bash line's writes, with the file system `fs` (NULL: nothing known). */
static roz_gate_store_verdict judged(const char *command, const roz_path_fs *fs, char *why, size_t size)
{
	roz_config c;
	roz_gate_match m;
	roz_gate_store_verdict v = (roz_gate_store_verdict)-1;

	check_line(&c, NULL, command, &m);
	assert_int_equal(roz_gate_check_store(&m, &c, "/w", fs, &v, why, size), ROZ_OK);
	roz_gate_match_dispose(&m);
	roz_config_dispose(&c);
	return v;
}

static void test_store_verdicts(void **state)
{
	static const roz_path_fs fs = {"/home/u", one_link, NULL};
	static const roz_path_fs no_links = {"/home/u", NULL, NULL};
	char why[256];

	(void)state;
	assert_int_equal(judged("rm /home/u/.roz/sessions/s1.json", &fs, why, sizeof(why)),
			 ROZ_GATE_STORE_DENY);
	assert_non_null(strstr(why, "rm /home/u/.roz/sessions/s1.json"));
	/* `~` needs the home directory; unknown, it is asked about */
	assert_int_equal(judged("rm ~/.roz/sessions/s1.json", &fs, NULL, 0), ROZ_GATE_STORE_DENY);
	assert_int_equal(judged("rm ~/.roz/sessions/s1.json", NULL, why, sizeof(why)), ROZ_GATE_STORE_ASK);
	assert_true(why[0] != '\0');
	/* removing a directory above the store takes the store with it */
	assert_int_equal(judged("rm -rf /home/u", &fs, NULL, 0), ROZ_GATE_STORE_DENY);
	assert_int_equal(judged("touch /home/u/new", &fs, NULL, 0), ROZ_GATE_STORE_NONE);
	/* through a link, only when links can be read */
	assert_int_equal(judged("rm /tmp/r/sessions/s1.json", &fs, NULL, 0), ROZ_GATE_STORE_DENY);
	assert_int_equal(judged("rm /tmp/r/sessions/s1.json", &no_links, NULL, 0), ROZ_GATE_STORE_NONE);
	/* a path known only at run time is asked about; the worst write decides */
	assert_int_equal(judged("rm \"$F\"", &fs, why, sizeof(why)), ROZ_GATE_STORE_ASK);
	assert_non_null(strstr(why, "known only when it runs"));
	assert_int_equal(judged("rm \"$F\"; rm /home/u/.roz/x", &fs, NULL, 0), ROZ_GATE_STORE_DENY);
	/* writes elsewhere, and reads of the store, are none of the store's concern */
	assert_int_equal(judged("rm -rf build; echo x > /tmp/out", &fs, why, sizeof(why)),
			 ROZ_GATE_STORE_NONE);
	assert_string_equal(why, "");
	assert_int_equal(judged("cat /home/u/.roz/sessions/s1.json", &fs, NULL, 0), ROZ_GATE_STORE_NONE);
}

static void test_store_reason_fits_the_buffer(void **state)
{
	static const roz_path_fs fs = {"/home/u", NULL, NULL};
	char why[16];

	(void)state;
	memset(why, 'x', sizeof(why));
	assert_int_equal(judged("rm /home/u/.roz/sessions/a-long-session-name.json", &fs, why, 8),
			 ROZ_GATE_STORE_DENY);
	assert_int_equal(strlen(why), 7);
	assert_int_equal(why[8], 'x');
}

static void test_no_storage_path_judges_nothing(void **state)
{
	roz_config c;
	roz_gate_match m;
	roz_gate_store_verdict v = ROZ_GATE_STORE_DENY;

	(void)state;
	check_line(&c, NULL, "rm -rf /home/u/.roz", &m);
	assert_true(m.nwrites > 0);
	roz_free(c.storage_path);
	c.storage_path = NULL;
	assert_int_equal(roz_gate_check_store(&m, &c, "/w", NULL, &v, NULL, 0), ROZ_OK);
	assert_int_equal(v, ROZ_GATE_STORE_NONE);
	roz_gate_match_dispose(&m);
	roz_config_dispose(&c);
}

/* ---- approvals ------------------------------------------------------------------------ */

#define T0 1767225600 /* 2026-01-01T00:00:00Z */

static roz_time at(int64_t s)
{
	return roz_time_make(T0 + s, 0);
}

/* A session whose trusted COMPLETE was recorded at t=100, after a review started at t=10. */
static roz_session *approved_session(void)
{
	roz_session *s;

	assert_int_equal(roz_session_new("s1", at(0), &s), ROZ_OK);
	s->review.decision.kind = ROZ_DECISION_COMPLETE;
	s->review.decision_trusted = true;
	s->review.gate_approved_at = (roz_opt_time){true, at(100)};
	s->review.review_started_at = (roz_opt_time){true, at(10)};
	return s;
}

static void test_approval_needs_a_complete_that_counts(void **state)
{
	roz_config c;
	roz_session *s = approved_session();

	(void)state;
	assert_int_equal(roz_config_init(&c), ROZ_OK);
	c.approval_scope = ROZ_SCOPE_SESSION;
	c.require_reviewer = true;
	assert_true(roz_gate_approved(s, &c, at(200)));
	s->review.decision_trusted = false;
	assert_false(roz_gate_approved(s, &c, at(200)));
	/* with no reviewer required, any COMPLETE counts */
	c.require_reviewer = false;
	assert_true(roz_gate_approved(s, &c, at(200)));
	s->review.decision.kind = ROZ_DECISION_ISSUES;
	assert_false(roz_gate_approved(s, &c, at(200)));
	s->review.decision.kind = ROZ_DECISION_COMPLETE;
	s->review.gate_approved_at.set = false;
	assert_false(roz_gate_approved(s, &c, at(200)));
	roz_session_free(s);
	roz_config_dispose(&c);
}

static void test_approval_ttl(void **state)
{
	roz_config c;
	roz_session *s = approved_session();

	(void)state;
	assert_int_equal(roz_config_init(&c), ROZ_OK);
	c.approval_scope = ROZ_SCOPE_SESSION;
	c.has_approval_ttl = true;
	c.approval_ttl_seconds = 60;
	assert_true(roz_gate_approved(s, &c, at(160)));
	assert_false(roz_gate_approved(s, &c, roz_time_make(T0 + 160, 1)));
	c.approval_ttl_seconds = UINT64_MAX; /* saturates: never expires */
	assert_true(roz_gate_approved(s, &c, at(100000000)));
	c.has_approval_ttl = false;
	c.approval_ttl_seconds = 1;
	assert_true(roz_gate_approved(s, &c, at(100000000)));
	roz_session_free(s);
	roz_config_dispose(&c);
}

static void test_approval_scopes(void **state)
{
	roz_config c;
	roz_session *s = approved_session();

	(void)state;
	assert_int_equal(roz_config_init(&c), ROZ_OK);
	/* a prompt after the approval (which ends the review's isolation) ends a prompt-scoped one */
	s->review.last_prompt_at = (roz_opt_time){true, at(150)};
	s->review.review_started_at.set = false;
	c.approval_scope = ROZ_SCOPE_PROMPT;
	assert_false(roz_gate_approved(s, &c, at(200)));
	c.approval_scope = ROZ_SCOPE_SESSION;
	assert_true(roz_gate_approved(s, &c, at(200)));
	c.approval_scope = ROZ_SCOPE_TOOL;
	assert_true(roz_gate_approved(s, &c, at(200)));
	/* a prompt before it, or one that arrived while the review ran, does not */
	c.approval_scope = ROZ_SCOPE_PROMPT;
	s->review.last_prompt_at = (roz_opt_time){true, at(5)};
	assert_true(roz_gate_approved(s, &c, at(200)));
	s->review.review_started_at = (roz_opt_time){true, at(10)};
	s->review.last_prompt_at = (roz_opt_time){true, at(50)};
	assert_true(roz_gate_approved(s, &c, at(200)));
	/* but one that came before the review started still counts */
	s->review.review_started_at = (roz_opt_time){true, at(120)};
	s->review.gate_approved_at = (roz_opt_time){true, at(110)};
	s->review.last_prompt_at = (roz_opt_time){true, at(115)};
	assert_false(roz_gate_approved(s, &c, at(200)));
	s->review.gate_approved_at = (roz_opt_time){true, at(100)};
	s->review.last_prompt_at.set = false;
	assert_true(roz_gate_approved(s, &c, at(200)));
	roz_session_free(s);
	roz_config_dispose(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
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
		cmocka_unit_test(test_gate_match_bash),
		cmocka_unit_test(test_gate_match_tool_names),
		cmocka_unit_test(test_gate_match_no_gates),
		cmocka_unit_test(test_roz_own_commands_are_seen_without_gates),
		cmocka_unit_test(test_bash_writes_are_listed_with_how),
		cmocka_unit_test(test_file_tools_touching_the_store_are_known_from_the_text),
		cmocka_unit_test(test_store_verdicts),
		cmocka_unit_test(test_store_reason_fits_the_buffer),
		cmocka_unit_test(test_no_storage_path_judges_nothing),
		cmocka_unit_test(test_approval_needs_a_complete_that_counts),
		cmocka_unit_test(test_approval_ttl),
		cmocka_unit_test(test_approval_scopes),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
