/*
 * test_review_git.c - a COMPLETE covers the work it reviewed. The real roz
 * binary through its hooks, as Claude Code calls them, in a real (plain,
 * not governed) git repository of a throwaway world: a #roz task, the
 * reviewer's approval (its ticket, `roz decide`, its stop), then what the
 * agent does after it, and what the next stop or gated call is told.
 */
#include "agent_git.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The config of these tests: a reviewer must vouch for a verdict, as by default. */
#define CONFIG "[review]\nrequire_reviewer = true\n"

/* A plain repository at <world>/repo: a.txt, README.md, src.c, a .gitignore of "*.log", committed. */
static char *repo(const ag_world *w)
{
	char *root = ag_at(w, "repo");

	t_put(root, "a.txt", "alpha\n");
	t_put(root, "README.md", "# the project\n");
	t_put(root, "src.c", "int main(void) { return 0; }\n");
	t_put(root, ".gitignore", "*.log\n");
	ag_sh(root, "git init -q && git add -A && git commit -qm base");
	return root;
}

/* roz hook <which>: fails unless it exits 0; its stdout (caller frees). */
static char *hook_out(const ag_world *w, const char *cwd, const char *which, cJSON *in)
{
	t_run r;
	char *out;

	ag_hook(w, cwd, which, in, &r);
	if (r.status != 0)
		fail_msg("roz hook %s exited %d: %s%s", which, r.status, r.out, r.err);
	out = t_sprintf("%s", r.out);
	t_run_dispose(&r);
	return out;
}

static void expect_empty(const char *what, char *out)
{
	if (strcmp(out, "{}\n") != 0)
		fail_msg("%s answered %s (expected {})", what, out);
	free(out);
}

static void prompt(const ag_world *w, const char *cwd, const char *sid, const char *text)
{
	cJSON *in = ag_input("UserPromptSubmit", sid, cwd, NULL);

	cJSON_AddStringToObject(in, "prompt", text);
	expect_empty("user-prompt", hook_out(w, cwd, "user-prompt", in));
}

/* A stop: NULL when it is allowed ({}), else the reason it is blocked with (caller frees). */
static char *stop(const ag_world *w, const char *cwd, const char *sid)
{
	cJSON *in = ag_input("Stop", sid, cwd, NULL), *doc;
	char *out, *reason;
	const cJSON *d, *r;

	cJSON_AddFalseToObject(in, "stop_hook_active");
	out = hook_out(w, cwd, "stop", in);
	if (strcmp(out, "{}\n") == 0) {
		free(out);
		return NULL;
	}
	doc = cJSON_Parse(out);
	d = cJSON_GetObjectItemCaseSensitive(doc, "decision");
	r = cJSON_GetObjectItemCaseSensitive(doc, "reason");
	if (!cJSON_IsString(d) || strcmp(d->valuestring, "block") != 0 || !cJSON_IsString(r))
		fail_msg("the stop answered %s", out);
	reason = t_sprintf("%s", r->valuestring);
	cJSON_Delete(doc);
	free(out);
	return reason;
}

static void expect_stop_allowed(const ag_world *w, const char *cwd, const char *sid)
{
	char *reason = stop(w, cwd, sid);

	if (reason)
		fail_msg("the stop was blocked: %s", reason);
}

static char *expect_stop_blocked(const ag_world *w, const char *cwd, const char *sid)
{
	char *reason = stop(w, cwd, sid);

	if (!reason)
		fail_msg("the stop of session %s was allowed", sid);
	return reason;
}

/*
 * The roz:roz reviewer `agent` approves: its Bash call of roz decide (the
 * ticket), roz decide itself, its stop.
 */
static void approve(const ag_world *w, const char *cwd, const char *sid, const char *agent)
{
	cJSON *in = ag_input("PreToolUse", sid, cwd, "Bash"), *ti;
	char *cmd = t_sprintf("roz decide %s COMPLETE 'the work is right'", sid);
	char *use = t_sprintf("toolu_%s", agent), *want;
	const char *argv[] = {"decide", sid, "COMPLETE", "the work is right", NULL};
	t_run r;

	cJSON_AddStringToObject(in, "tool_use_id", use);
	ti = cJSON_AddObjectToObject(in, "tool_input");
	cJSON_AddStringToObject(ti, "command", cmd);
	cJSON_AddStringToObject(in, "agent_id", agent);
	cJSON_AddStringToObject(in, "agent_type", "roz:roz");
	expect_empty("the reviewer's pre-tool-use", hook_out(w, cwd, "pre-tool-use", in));

	ag_roz(w, cwd, NULL, argv, &r);
	want = t_sprintf("Recorded COMPLETE for session %s.\n", sid);
	if (r.status != 0 || strcmp(r.out, want) != 0 || strstr(r.err, "not bound"))
		fail_msg("roz decide exited %d: %s\nstderr: %s", r.status, r.out, r.err);
	t_run_dispose(&r);

	in = ag_input("SubagentStop", sid, cwd, NULL);
	cJSON_AddStringToObject(in, "agent_id", agent);
	cJSON_AddStringToObject(in, "agent_type", "roz:roz");
	cJSON_AddFalseToObject(in, "stop_hook_active");
	expect_empty("the reviewer's subagent-stop", hook_out(w, cwd, "subagent-stop", in));
	free(want);
	free(use);
	free(cmd);
}

/*
 * A #roz task of session `sid` in cwd: the agent writes `file` with `text`,
 * its stop asks for a review, the reviewer a1 approves, the stop is let go.
 */
static void reviewed_task(const ag_world *w, const char *cwd, const char *sid, const char *file, const char *text)
{
	char *reason;

	prompt(w, cwd, sid, "#roz do the task");
	ag_write(w, cwd, sid, file, text);
	reason = expect_stop_blocked(w, cwd, sid);
	assert_non_null(strstr(reason, "# Review required"));
	free(reason);
	approve(w, cwd, sid, "a1");
	assert_true(ag_tree_file(w, sid, ".armed"));
	expect_stop_allowed(w, cwd, sid);
}

/* The files a stale block names under "Changed since the approval:", a line each ("path\n..."). */
static char *named(const char *reason)
{
	const char *head = "Changed since the approval:\n", *p = strstr(reason, head);
	char *out = t_sprintf("%s", "");

	if (!p)
		fail_msg("the block names no changed files: %s", reason);
	for (p += strlen(head); strncmp(p, "  ", 2) == 0;) {
		const char *nl = strchr(p, '\n');
		char *next;

		if (!nl)
			break;
		next = t_sprintf("%s%.*s\n", out, (int)(nl - p - 2), p + 2);
		free(out);
		out = next;
		p = nl + 1;
	}
	return out;
}

/* The stop is blocked as stale, naming exactly `files` ("a\nb\n"), asking for review round `round`. */
static char *expect_stale(const ag_world *w, const char *cwd, const char *sid, const char *files, unsigned round)
{
	char *reason = expect_stop_blocked(w, cwd, sid), *names, *want;

	if (!strstr(reason, "roz: the work changed after the reviewer approved it, so that approval no "
			    "longer covers it."))
		fail_msg("not a stale block: %s", reason);
	names = named(reason);
	if (strcmp(names, files) != 0)
		fail_msg("the block names\n%s\ninstead of\n%s\nin: %s", names, files, reason);
	want = t_sprintf("SESSION_ID=%s\nROUND=%u\n", sid, round);
	if (!strstr(reason, want))
		fail_msg("no '%s' in: %s", want, reason);
	free(want);
	free(names);
	return reason;
}

/* review.work.stale of the session, a line each. */
static char *stored_stale(const ag_world *w, const char *sid)
{
	cJSON *doc = ag_session(w, sid);
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "review"), "work"), "stale"),
		    *it;
	char *out = t_sprintf("%s", "");

	cJSON_ArrayForEach(it, s)
	{
		char *next = t_sprintf("%s%s\n", out, cJSON_IsString(it) ? it->valuestring : "?");

		free(out);
		out = next;
	}
	cJSON_Delete(doc);
	return out;
}

static const char *decision(const cJSON *doc)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "review"), "decision"), "type");

	return cJSON_IsString(t) ? t->valuestring : "";
}

/* ---- the stop ------------------------------------------------------------------------------- */

static void test_no_change_after_approval(void **state)
{
	ag_world *w = *state;
	char *root = repo(w);
	cJSON *doc;
	const cJSON *work, *approved;

	reviewed_task(w, root, "s1", "task.txt", "the task\n");
	/* the approval is bound: the task's file, as approved */
	doc = ag_session(w, "s1");
	work = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "review"), "work");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(work, "approved_set")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(work, "root")->valuestring, root);
	approved = cJSON_GetObjectItemCaseSensitive(work, "approved");
	assert_int_equal(cJSON_GetArraySize(approved), 1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(approved, 0), "path")->valuestring,
			    "task.txt");
	assert_string_equal(decision(doc), "complete");
	cJSON_Delete(doc);
	/* stopping again and again with nothing run since */
	expect_stop_allowed(w, root, "s1");
	assert_true(ag_tree_file(w, "s1", ".armed"));
	free(root);
}

static void test_an_edit_after_approval_asks_for_round_two(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *reason, *stale;
	cJSON *doc;

	reviewed_task(w, root, "s2", "task.txt", "the task\n");
	ag_edit(w, root, "s2", "src.c", "return 0", "return 1");
	assert_false(ag_tree_file(w, "s2", ".armed"));
	reason = expect_stale(w, root, "s2", "src.c\n", 2);
	assert_non_null(strstr(reason, "## Changed since the last approval\nsrc.c\n"));
	free(reason);
	stale = stored_stale(w, "s2");
	assert_string_equal(stale, "src.c\n");
	free(stale);
	doc = ag_session(w, "s2");
	assert_string_equal(decision(doc), "pending");
	cJSON_Delete(doc);

	/* the reviewer looks at the change and approves it */
	approve(w, root, "s2", "a2");
	expect_stop_allowed(w, root, "s2");
	stale = stored_stale(w, "s2");
	assert_string_equal(stale, "");
	free(stale);
	/* and that approval is bound in turn: a later change is named alone, for round three */
	ag_edit(w, root, "s2", "a.txt", "alpha", "beta");
	reason = expect_stale(w, root, "s2", "a.txt\n", 3);
	free(reason);
	free(root);
}

static void test_a_git_mv_names_both_paths(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *reason;

	reviewed_task(w, root, "s3", "task.txt", "the task\n");
	ag_bash(w, root, "s3", "git mv a.txt b.txt");
	reason = expect_stale(w, root, "s3", "a.txt\nb.txt\n", 2);
	free(reason);
	free(root);
}

static void test_a_removal_and_a_mode_change(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *reason;

	reviewed_task(w, root, "s4", "task.txt", "the task\n");
	ag_bash(w, root, "s4", "rm task.txt");
	reason = expect_stale(w, root, "s4", "task.txt\n", 2);
	free(reason);

	/* the same of a committed file, in a session of its own */
	reviewed_task(w, root, "s5", "other.txt", "other\n");
	ag_bash(w, root, "s5", "chmod +x src.c");
	reason = expect_stale(w, root, "s5", "src.c\n", 2);
	free(reason);
	free(root);
}

static void test_changed_and_changed_back_holds(void **state)
{
	ag_world *w = *state;
	char *root = repo(w);

	reviewed_task(w, root, "s6", "task.txt", "the task\n");
	ag_bash(w, root, "s6", "printf 'something else\\n' > task.txt && printf 'x' >> src.c");
	ag_bash(w, root, "s6", "printf 'the task\\n' > task.txt && printf 'int main(void) { return 0; }\\n' > src.c");
	assert_false(ag_tree_file(w, "s6", ".armed"));
	expect_stop_allowed(w, root, "s6");
	/* looked, found it as approved, and marked it so: the next stop need not look */
	assert_true(ag_tree_file(w, "s6", ".armed"));
	expect_stop_allowed(w, root, "s6");
	free(root);
}

static void test_an_ignored_file_is_not_the_work(void **state)
{
	ag_world *w = *state;
	char *root = repo(w);

	reviewed_task(w, root, "s7", "task.txt", "the task\n");
	ag_write(w, root, "s7", "debug.log", "noise\n");
	assert_false(ag_tree_file(w, "s7", ".armed"));
	expect_stop_allowed(w, root, "s7");
	assert_true(ag_tree_file(w, "s7", ".armed"));
	free(root);
}

static void test_rereview_on_change_code_and_never(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *reason;

	ag_config(w, CONFIG "rereview_on_change = \"code\"\n");
	reviewed_task(w, root, "s8", "task.c", "int task;\n");
	ag_edit(w, root, "s8", "README.md", "the project", "the project, documented");
	expect_stop_allowed(w, root, "s8");
	ag_edit(w, root, "s8", "src.c", "return 0", "return 2");
	reason = expect_stale(w, root, "s8", "src.c\n", 2);
	free(reason);

	ag_config(w, CONFIG "rereview_on_change = \"never\"\n");
	reviewed_task(w, root, "s9", "task2.c", "int task2;\n");
	ag_edit(w, root, "s9", "task2.c", "task2", "task2_changed");
	ag_bash(w, root, "s9", "rm a.txt");
	expect_stop_allowed(w, root, "s9");
	free(root);
}

static void test_outside_any_repository(void **state)
{
	ag_world *w = *state;
	char *dir = ag_at(w, "plain"), *file = ag_at(w, "plain/notes.txt"), *reason, *want;
	cJSON *doc;
	const cJSON *work;

	t_put(dir, "keep", "");
	reviewed_task(w, dir, "s10", file, "first notes\n");
	assert_true(ag_tree_file(w, "s10", ".touched"));
	doc = ag_session(w, "s10");
	work = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "review"), "work");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(work, "base_set")));
	assert_null(cJSON_GetObjectItemCaseSensitive(work, "root"));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(work, "approved")), 1);
	cJSON_Delete(doc);

	ag_write(w, dir, "s10", file, "second notes\n");
	want = t_sprintf("%s\n", file);
	reason = expect_stale(w, dir, "s10", want, 2);
	free(reason);

	/* approved again; then the same content written again: the approval holds */
	approve(w, dir, "s10", "a2");
	expect_stop_allowed(w, dir, "s10");
	ag_write(w, dir, "s10", file, "second notes\n");
	assert_false(ag_tree_file(w, "s10", ".armed"));
	expect_stop_allowed(w, dir, "s10");
	free(want);
	free(file);
	free(dir);
}

static void test_the_persons_staged_work_is_untouched(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *cached0, *cached1, *files0, *files1, *reason;

	/* the person staged a change and a new file before asking */
	ag_sh(root, "printf 'staged by the person\\n' >> a.txt && printf 'new\\n' > staged.txt && "
		    "git add a.txt staged.txt && printf 'and not staged\\n' >> a.txt");
	cached0 = ag_sh_line(root, "git diff --cached | sha256sum");
	files0 = ag_sh_line(root, "git ls-files -s | sha256sum");

	reviewed_task(w, root, "s11", "task.txt", "the task\n");
	ag_edit(w, root, "s11", "src.c", "return 0", "return 3");
	reason = expect_stale(w, root, "s11", "src.c\n", 2);
	free(reason);
	approve(w, root, "s11", "a2");
	expect_stop_allowed(w, root, "s11");

	cached1 = ag_sh_line(root, "git diff --cached | sha256sum");
	files1 = ag_sh_line(root, "git ls-files -s | sha256sum");
	assert_string_equal(cached0, cached1);
	assert_string_equal(files0, files1);
	{
		char *st = ag_sh_line(root, "git status --porcelain | tr '\\n' '|'");

		assert_non_null(strstr(st, "MM a.txt|"));
		assert_non_null(strstr(st, "A  staged.txt|"));
		assert_non_null(strstr(st, "?? task.txt|"));
		free(st);
	}
	free(cached0);
	free(cached1);
	free(files0);
	free(files1);
	free(root);
}

/* ---- the gate ------------------------------------------------------------------------------- */

/* A PreToolUse of the agent's Bash `command`: NULL when let through ({}), else the denial's reason. */
static char *pre_bash(const ag_world *w, const char *cwd, const char *sid, const char *command)
{
	cJSON *in = ag_input("PreToolUse", sid, cwd, "Bash"), *ti, *doc;
	char *out, *reason;
	const cJSON *h, *d, *r;

	ti = cJSON_AddObjectToObject(in, "tool_input");
	cJSON_AddStringToObject(ti, "command", command);
	out = hook_out(w, cwd, "pre-tool-use", in);
	if (strcmp(out, "{}\n") == 0) {
		free(out);
		return NULL;
	}
	doc = cJSON_Parse(out);
	h = cJSON_GetObjectItemCaseSensitive(doc, "hookSpecificOutput");
	d = cJSON_GetObjectItemCaseSensitive(h, "permissionDecision");
	r = cJSON_GetObjectItemCaseSensitive(h, "permissionDecisionReason");
	if (!cJSON_IsString(d) || strcmp(d->valuestring, "deny") != 0 || !cJSON_IsString(r))
		fail_msg("the pre-tool-use of `%s` answered %s", command, out);
	reason = t_sprintf("%s", r->valuestring);
	cJSON_Delete(doc);
	free(out);
	return reason;
}

static void test_a_gated_push_after_a_change(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *reason;

	ag_config(w, CONFIG "[review.gates]\ntools = [\"Bash:git push*\"]\n");

	/* approved, nothing changed: the retry goes through */
	reason = pre_bash(w, root, "g1", "git push origin main");
	assert_non_null(reason);
	assert_non_null(strstr(reason, "roz: this action needs an independent review first."));
	free(reason);
	approve(w, root, "g1", "a1");
	assert_null(pre_bash(w, root, "g1", "git push origin main"));

	/* approved, then an edit: the retry is denied, naming the file */
	reason = pre_bash(w, root, "g2", "git push origin main");
	assert_non_null(reason);
	free(reason);
	approve(w, root, "g2", "a1");
	ag_edit(w, root, "g2", "src.c", "return 0", "return 4");
	reason = pre_bash(w, root, "g2", "git push origin main");
	if (!reason)
		fail_msg("the push after the edit was let through");
	if (!strstr(reason, "roz: the work changed after the reviewer approved `Bash:git push origin main`, so "
			    "that approval no longer covers it.") ||
	    !strstr(reason, "Changed since the approval:\n  src.c\n") || !strstr(reason, "ROUND=2\n") ||
	    !strstr(reason, "Once the reviewer approves, run the action again."))
		fail_msg("the denial does not say what changed: %s", reason);
	free(reason);
	/* asked again without a review: still denied */
	reason = pre_bash(w, root, "g2", "git push origin main");
	assert_non_null(reason);
	assert_non_null(strstr(reason, "  src.c\n"));
	free(reason);
	/* the reviewer approves the change: the push goes through */
	approve(w, root, "g2", "a2");
	assert_null(pre_bash(w, root, "g2", "git push origin main"));
	free(root);
}

/* ---- what the reviewer reads ---------------------------------------------------------------- */

/* roz context <sid> [--json] in cwd: its stdout (caller frees); fails unless it exits 0. */
static char *context(const ag_world *w, const char *cwd, const char *sid, bool json)
{
	const char *argv[] = {"context", sid, json ? "--json" : NULL, NULL};
	char *out;
	t_run r;

	ag_roz(w, cwd, NULL, argv, &r);
	if (r.status != 0)
		fail_msg("roz context %s exited %d: %s%s", sid, r.status, r.out, r.err);
	out = t_sprintf("%s", r.out);
	t_run_dispose(&r);
	return out;
}

static const cJSON *work_file(const cJSON *doc, const char *path)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "work"), "files"))
	{
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(f, "path");

		if (cJSON_IsString(p) && strcmp(p->valuestring, path) == 0)
			return f;
	}
	return NULL;
}

static void expect_work_file(const cJSON *doc, const char *path, const char *status, int added, int removed)
{
	const cJSON *f = work_file(doc, path);

	if (!f || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "status")) ||
	    strcmp(cJSON_GetObjectItemCaseSensitive(f, "status")->valuestring, status) != 0 ||
	    (added >= 0 && cJSON_GetObjectItemCaseSensitive(f, "added")->valueint != added) ||
	    (removed >= 0 && cJSON_GetObjectItemCaseSensitive(f, "removed")->valueint != removed)) {
		char *text = cJSON_PrintUnformatted(doc);

		fail_msg("no %s %s +%d -%d in the work of %s", status, path, added, removed, text);
	}
}

static void test_context_lists_the_work_since_the_task_began(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *text, *head, *reason;
	cJSON *doc;
	const cJSON *f;

	/* the person's change before the task is not the task's */
	ag_sh(root, "printf 'before the task\\n' >> README.md");
	prompt(w, root, "c1", "#roz do the task");
	ag_write(w, root, "c1", "task.txt", "t1\nt2\n");
	ag_edit(w, root, "c1", "src.c", "return 0", "return 5");
	ag_bash(w, root, "c1", "git mv a.txt b.txt");
	reason = expect_stop_blocked(w, root, "c1");
	free(reason);

	text = context(w, root, "c1", false);
	head = t_sprintf("changed since the review began, in %s):\n", root);
	if (!strstr(text, head) || !strstr(text, "task.txt") || !strstr(text, "src.c") || !strstr(text, "b.txt") ||
	    strstr(text, "README.md"))
		fail_msg("roz context does not list the task's work:\n%s", text);
	free(head);
	free(text);
	text = context(w, root, "c1", true);
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	expect_work_file(doc, "task.txt", "A", 2, 0);
	expect_work_file(doc, "src.c", "M", 1, 1);
	expect_work_file(doc, "b.txt", "R", 0, 0);
	f = cJSON_GetObjectItemCaseSensitive(work_file(doc, "b.txt"), "from");
	assert_true(cJSON_IsString(f));
	assert_string_equal(f->valuestring, "a.txt");
	assert_null(work_file(doc, "a.txt"));
	assert_null(work_file(doc, "README.md"));
	cJSON_Delete(doc);
	free(text);

	/* approved, then changed: what changed since the approval, for the next round */
	approve(w, root, "c1", "a1");
	ag_edit(w, root, "c1", "task.txt", "t2", "t2 again");
	reason = expect_stale(w, root, "c1", "task.txt\n", 2);
	free(reason);
	text = context(w, root, "c1", false);
	if (!strstr(text, "Changed since the last approval (review round 2)") || !strstr(text, "\n  task.txt\n"))
		fail_msg("roz context does not say what changed since the approval:\n%s", text);
	free(text);
	free(root);
}

static void test_a_file_outside_the_repository_it_works_in(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *file = ag_at(w, "elsewhere/out.txt"), *reason, *want, *text;
	cJSON *doc;
	const cJSON *o;

	/* the task writes inside its repository and a file outside it */
	reviewed_task(w, root, "s12", "task.txt", "the task\n");
	ag_write(w, root, "s12", file, "outside\n");
	want = t_sprintf("%s\n", file);
	reason = expect_stale(w, root, "s12", want, 2);
	free(reason);
	/* the reviewer is shown it beside the repository's files */
	text = context(w, root, "s12", true);
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	expect_work_file(doc, "task.txt", "A", 1, 0);
	o = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "work"), "outside");
	assert_int_equal(cJSON_GetArraySize(o), 1);
	assert_string_equal(cJSON_GetArrayItem(o, 0)->valuestring, file);
	cJSON_Delete(doc);
	free(text);
	approve(w, root, "s12", "a2");
	expect_stop_allowed(w, root, "s12");
	/* changed again outside, and inside: both named */
	ag_write(w, root, "s12", file, "outside, again\n");
	ag_write(w, root, "s12", "task.txt", "the task, again\n");
	free(want);
	want = t_sprintf("%s\ntask.txt\n", file);
	reason = expect_stale(w, root, "s12", want, 3);
	free(reason);
	free(want);
	free(file);
	free(root);
}

/* ---- the world ------------------------------------------------------------------------------ */

/*
 * A call that fails gets no PostToolUse (Claude Code sends PostToolUseFailure,
 * which roz is not given): its PreToolUse already cleared the mark, so what
 * it changed before failing is looked at.
 */
static void test_a_failed_call_is_looked_at(void **state)
{
	ag_world *w = *state;
	char *root = repo(w), *reason, *cmd;

	reviewed_task(w, root, "s13", "task.txt", "the task\n");
	assert_true(ag_tree_file(w, "s13", ".armed"));
	assert_null(pre_bash(w, root, "s13", "sed -i s/0/1/ src.c && false"));
	assert_false(ag_tree_file(w, "s13", ".armed"));
	cmd = t_sprintf("sed -i s/0/1/ '%s/src.c'", root);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	reason = expect_stale(w, root, "s13", "src.c\n", 2);
	free(reason);
	free(root);
}

static int world_up(void **state)
{
	if (ag_world_up(state) != 0)
		return -1;
	ag_config(*state, CONFIG);
	return 0;
}

#define T(f) cmocka_unit_test_setup_teardown(f, world_up, ag_world_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_no_change_after_approval),
		T(test_an_edit_after_approval_asks_for_round_two),
		T(test_a_git_mv_names_both_paths),
		T(test_a_removal_and_a_mode_change),
		T(test_changed_and_changed_back_holds),
		T(test_an_ignored_file_is_not_the_work),
		T(test_rereview_on_change_code_and_never),
		T(test_outside_any_repository),
		T(test_the_persons_staged_work_is_untouched),
		T(test_a_gated_push_after_a_change),
		T(test_context_lists_the_work_since_the_task_began),
		T(test_a_file_outside_the_repository_it_works_in),
		T(test_a_failed_call_is_looked_at),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
