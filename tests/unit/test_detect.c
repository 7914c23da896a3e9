/*
 * test_detect.c - detection: what two snapshots say changed and since
 * when (roz_tree_diff), how each change is judged (roz_detect_judge), the
 * violations a session keeps, and the whole loop through the real binary
 * in a real git repository: a script's out-of-scope change is told at
 * once, holds the stop until it is undone or a person accepts it, and its
 * in-scope change is recorded in the ledger.
 */
#include "support.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/detect.h"
#include "roz/ledger.h"
#include "roz/tree.h"
#include "roz/watch.h"
#include "roz/session_gov.h"
#include "roz/tree_diff.h"

/* ---- the pure parts ------------------------------------------------------------ */

static roz_tree_entry E(const char *path, uint32_t mode, uint64_t ino, uint64_t size, int64_t mtime,
			int64_t ctime)
{
	roz_tree_entry e = {(char *)(uintptr_t)path, mode, 1, size, ino, mtime, ctime};

	return e;
}

#define F 0100644u
#define D 040755u

static const roz_change *find_change(const roz_changes *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->items[i].path, path) == 0)
			return &c->items[i];
	return NULL;
}

static void diff_counts_only_what_changed_since_the_call_began(void **state)
{
	/* before: a/ (dir), a/x, b, c, d; the call begins at 100 */
	roz_tree_entry before[] = {E("a", D, 1, 0, 10, 10), E("a/x", F, 2, 5, 10, 10), E("b", F, 3, 5, 10, 10),
				   E("c", F, 4, 5, 10, 10), E("d", F, 5, 5, 10, 10), E("p", F, 9, 5, 10, 10)};
	/* after: a/x gone (a changed at 150), b edited at 120, c chmod-ed at 130, d renamed to e,
	 * n new at 140, p edited by someone at 50 (before the call) */
	roz_tree_entry after[] = {E("a", D, 1, 0, 150, 150), E("b", F, 3, 9, 120, 120), E("c", 0100755u, 4, 5, 10, 130),
				  E("e", F, 5, 5, 10, 110), E("n", F, 8, 1, 140, 140), E("p", F, 9, 7, 50, 50)};
	roz_tree tb = {.items = before, .n = 6}, ta = {.items = after, .n = 6};
	roz_changes c = {0};
	size_t others = 0;
	const roz_change *x;

	(void)state;
	/* the root changed at 110 (d -> e, n created there) */
	assert_int_equal(roz_tree_diff(&tb, &ta, 110, 100, &c, &others), ROZ_OK);
	assert_non_null(x = find_change(&c, "a/x"));
	assert_int_equal(x->kind, ROZ_CHANGE_REMOVED);
	assert_true(x->existed);
	assert_non_null(x = find_change(&c, "b"));
	assert_int_equal(x->kind, ROZ_CHANGE_MODIFIED);
	assert_non_null(x = find_change(&c, "c"));
	assert_int_equal(x->kind, ROZ_CHANGE_MODE);
	assert_non_null(x = find_change(&c, "e"));
	assert_int_equal(x->kind, ROZ_CHANGE_RENAMED);
	assert_string_equal(x->from, "d");
	assert_null(find_change(&c, "d"));
	assert_non_null(x = find_change(&c, "n"));
	assert_int_equal(x->kind, ROZ_CHANGE_CREATED);
	assert_false(x->existed);
	/* someone else's edit before the call, and the directory's own mtime, are not the call's */
	assert_null(find_change(&c, "p"));
	assert_null(find_change(&c, "a"));
	assert_int_equal(c.n, 5);
	assert_int_equal(others, 1);
	roz_changes_dispose(&c);

	/* the same trees judged from a later start: only what changed after it */
	assert_int_equal(roz_tree_diff(&tb, &ta, 110, 135, &c, &others), ROZ_OK);
	assert_int_equal(c.n, 2); /* a/x (its directory changed at 150), n (140) */
	assert_non_null(find_change(&c, "a/x"));
	assert_non_null(find_change(&c, "n"));
	roz_changes_dispose(&c);
}

static void diff_sees_type_and_link_changes(void **state)
{
	roz_tree_entry before[] = {E("f", F, 1, 5, 10, 10), E("l", F, 2, 5, 10, 10)};
	roz_tree_entry after[] = {E("f", 0120777u, 3, 5, 110, 110), E("l", F, 2, 5, 10, 120)};
	roz_tree tb = {.items = before, .n = 2}, ta = {.items = after, .n = 2};
	roz_changes c = {0};

	(void)state;
	after[1].nlink = 2; /* a hard link made to it elsewhere */
	assert_int_equal(roz_tree_diff(&tb, &ta, 0, 100, &c, NULL), ROZ_OK);
	assert_int_equal(c.n, 2);
	assert_int_equal(find_change(&c, "f")->kind, ROZ_CHANGE_MODIFIED); /* a file became a link */
	assert_int_equal(find_change(&c, "l")->kind, ROZ_CHANGE_LINKED);
	roz_changes_dispose(&c);
}

static roz_intents *intents_of(const char *yaml)
{
	roz_intents *ints = calloc(1, sizeof *ints);
	roz_intents_error err;

	assert_int_equal(roz_intents_parse(yaml, strlen(yaml), ints, &err), ROZ_OK);
	return ints;
}

static void judge_follows_the_rules_of_prevention(void **state)
{
	roz_intents *ints = intents_of("active_intents:\n  - id: INT-1\n    name: A\n    status: IN_PROGRESS\n"
				       "    owned_scope: [\"src/**\"]\n  - id: INT-2\n    name: B\n"
				       "    status: COMPLETED\n    owned_scope: [\"**\"]\n");
	roz_ignore ig;
	roz_gov_world w = {.root = "/r", .governed = true, .intents = ints};
	roz_session_gov g = {0};
	roz_change c = {ROZ_CHANGE_MODIFIED, (char *)(uintptr_t)"src/a.ts", NULL, false, true};
	roz_denial_code code;

	(void)state;
	assert_int_equal(roz_ignore_parse("*.yaml\nbuild/\n", 14, &ig, NULL), ROZ_OK);
	w.ignore = &ig;
	/* no intent: any change is a violation */
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_VIOLATION);
	assert_int_equal(code, ROZ_DENIAL_INTENT_REQUIRED);
	g.intent_id = (char *)(uintptr_t)"INT-1";
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_IN_SCOPE);
	c.path = (char *)(uintptr_t)"docs/x.md";
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_VIOLATION);
	assert_int_equal(code, ROZ_DENIAL_SCOPE_VIOLATION);
	/* ignored paths are outside governance, but .orchestration/ never is */
	c.path = (char *)(uintptr_t)"build/out.o";
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_OUTSIDE);
	c.path = (char *)(uintptr_t)".orchestration/active_intents.yaml";
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_VIOLATION);
	assert_int_equal(code, ROZ_DENIAL_ORCHESTRATION);
	/* the ledger is roz's own to append to */
	c.path = (char *)(uintptr_t)".orchestration/agent_trace.jsonl";
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_OUTSIDE);
	/* a rename is judged at both ends: out of scope into scope is still a removal out of scope */
	c.kind = ROZ_CHANGE_RENAMED;
	c.path = (char *)(uintptr_t)"src/moved.md";
	c.from = (char *)(uintptr_t)"docs/x.md";
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_VIOLATION);
	assert_int_equal(code, ROZ_DENIAL_SCOPE_VIOLATION);
	c.from = (char *)(uintptr_t)"src/old.ts";
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_IN_SCOPE);
	/* an intent that is no longer IN_PROGRESS owns nothing */
	c.kind = ROZ_CHANGE_CREATED;
	c.from = NULL;
	g.intent_id = (char *)(uintptr_t)"INT-2";
	assert_int_equal(roz_detect_judge(&c, &w, &g, &code), ROZ_DETECT_VIOLATION);
	assert_int_equal(code, ROZ_DENIAL_INTENT_REQUIRED);
	roz_ignore_dispose(&ig);
	roz_intents_dispose(ints);
	free(ints);
}

static void stale_is_someone_elses_change_under_the_calls(void **state)
{
	(void)state;
	/* what it held before the call is known: the hashes say */
	assert_false(roz_detect_stale("aa", 100, "aa", 500));
	assert_true(roz_detect_stale("aa", 100, "bb", 50));
	/* not known: it changed after the session saw it, or not */
	assert_true(roz_detect_stale("aa", 100, NULL, 101));
	assert_false(roz_detect_stale("aa", 100, NULL, 100));
	assert_false(roz_detect_stale("aa", 100, NULL, 99));
	/* a file the session never read or wrote is nobody's to be stale against */
	assert_false(roz_detect_stale(NULL, 100, "bb", 500));
}

static void violations_are_kept_once_per_path_and_read_back(void **state)
{
	roz_session_gov g = {0}, back = {0};
	roz_gov_violation_in v = {"/r", "docs/x.md", NULL, "created", "SCOPE_VIOLATION", "Bash", false,
				  roz_time_make(1000, 0)};
	roz_buf b = ROZ_BUF_INIT;
	cJSON *j;

	(void)state;
	assert_int_equal(roz_session_gov_violation_add(&g, &v), ROZ_OK);
	/* changed again: still one, and it still did not exist before the first change */
	v.change = "modified";
	v.existed = true;
	assert_int_equal(roz_session_gov_violation_add(&g, &v), ROZ_OK);
	assert_int_equal(g.n_violations, 1);
	assert_false(g.violations[0].existed);
	assert_string_equal(g.violations[0].change, "modified");
	v.path = "a\"b";
	assert_int_equal(roz_session_gov_violation_add(&g, &v), ROZ_OK);
	g.stop_holds = 2;
	roz_session_gov_write(&g, &b);
	assert_non_null(j = cJSON_Parse(roz_buf_cstr(&b)));
	assert_int_equal(roz_session_gov_read(j, &back), ROZ_OK);
	assert_int_equal(back.n_violations, 2);
	assert_string_equal(back.violations[1].path, "a\"b");
	assert_true(back.violations[1].existed);
	assert_int_equal(back.stop_holds, 2);
	roz_session_gov_violation_remove(&back, 0);
	assert_int_equal(back.n_violations, 1);
	assert_string_equal(back.violations[0].path, "a\"b");
	cJSON_Delete(j);
	/* a stored entry without its fields is refused, not half read */
	assert_non_null(j = cJSON_Parse("{\"state\":\"awaiting\",\"violations\":[{\"path\":\"x\"}]}"));
	assert_int_equal(roz_session_gov_read(j, &back), ROZ_ECORRUPT);
	cJSON_Delete(j);
	roz_buf_dispose(&b);
	roz_session_gov_dispose(&g);
	roz_session_gov_dispose(&back);
}

/* ---- through the binary, in a real repository ------------------------------------ */

typedef struct fx {
	char *home, *repo;
	char *env[5];
} fx;

/*
 * Every test through the binary runs twice: detection walking the whole
 * tree after each call, and detection asking the repository's watcher
 * (roz watch, started here before the first call, so that every call
 * asks it) what moved. The answers must be the same.
 */
static bool watching;

static int walk_mode(void **state)
{
	(void)state;
	watching = false;
	return 0;
}

static int watch_mode(void **state)
{
	(void)state;
	watching = true;
	return 0;
}

/* The config: the test's lines, and whether the watcher may be asked. */
static void fx_config(const fx *f, const char *governance)
{
	char *p = t_sprintf("%s/config.toml", f->home);
	char *text = t_sprintf("[review]\nrequire_reviewer = false\n[governance]\ndetect_watch = %s\n%s",
			       watching ? "true" : "false", governance ? governance : "");

	t_write_file(p, text);
	free(text);
	free(p);
}

/* Start the repository's watcher and wait until it answers. */
static void start_watcher(const fx *f)
{
	char root[PATH_MAX];
	roz_watch_answer a;
	pid_t pid;
	int rc = ROZ_ENOTFOUND;

	assert_non_null(realpath(f->repo, root));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *const argv[] = {(char *)"roz", (char *)"watch", root, f->home, NULL};

		setenv("ROZ_WATCH_IDLE_S", "120", 1);
		if (freopen("/dev/null", "w", stdout) && freopen("/dev/null", "w", stderr))
			execv(ROZ_BINARY, argv);
		_exit(127);
	}
	for (int i = 0; i < 500 && rc == ROZ_ENOTFOUND; i++) {
		if ((rc = roz_watch_ask(root, 0, 0, 1000, &a)) == ROZ_ENOTFOUND)
			usleep(10000);
	}
	assert_int_equal(rc, ROZ_OK);
	assert_false(a.known);
	roz_watch_answer_dispose(&a);
}

/* In watch mode, the session's snapshot is stamped by the watcher: the hooks asked it. */
static void assert_asked_the_watcher(const fx *f)
{
	char root[PATH_MAX], *cmd, *file;
	roz_watch_answer a;
	roz_tree t;
	FILE *p;
	char line[4096];

	if (!watching)
		return;
	assert_non_null(realpath(f->repo, root));
	assert_int_equal(roz_watch_ask(root, 0, 0, 1000, &a), ROZ_OK);
	cmd = t_sprintf("ls '%s'/trees/s-1-*.tree", f->home);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(fgets(line, sizeof line, p));
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	file = line;
	assert_int_equal(roz_tree_load(file, &t), ROZ_OK);
	assert_true(t.watch_id == a.id);
	assert_true(t.watch_gen > 0 && t.watch_gen <= a.gen);
	roz_tree_dispose(&t);
	roz_watch_answer_dispose(&a);
	free(cmd);
}

static void sh(const fx *f, const char *cmd)
{
	char *c = t_sprintf("cd '%s' && { %s; } >/dev/null 2>&1", f->repo, cmd);

	assert_int_equal(system(c), 0);
	free(c);
}

static void fx_make(fx *f, const char *ignore)
{
	char *p;

	f->home = t_mkdtemp();
	f->repo = t_mkdtemp();
	fx_config(f, NULL);
	f->env[0] = t_sprintf("ROZ_HOME=%s", f->home);
	f->env[1] = t_sprintf("HOME=%s", f->home);
	f->env[2] = strdup("USER=tester");
	f->env[3] = strdup("ROZ_WATCH_IDLE_S=120");
	f->env[4] = NULL;
	sh(f, "git init -q && mkdir -p src docs .orchestration && echo a > src/a.ts && echo d > docs/d.md && "
	      "printf 'active_intents:\\n  - id: INT-001\\n    name: Auth\\n    status: IN_PROGRESS\\n"
	      "    owned_scope: [\"src/**\"]\\n' > .orchestration/active_intents.yaml && git add -A && "
	      "git -c user.email=t@e -c user.name=t commit -qm init");
	if (ignore) {
		p = t_sprintf("%s/.orchestration/.intentignore", f->repo);
		t_write_file(p, ignore);
		free(p);
	}
	if (watching)
		start_watcher(f);
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

static void hook(const fx *f, t_run *r, const char *event, const char *json_tail)
{
	const char *argv[] = {"hook", event, NULL};
	char *in = t_sprintf("{\"session_id\":\"s-1\",\"cwd\":\"%s\"%s}", f->repo, json_tail);

	t_run_roz(r, in, (const char *const *)f->env, argv);
	assert_int_equal(r->status, 0);
	free(in);
}

/* One Bash call prevention lets through: its PreToolUse, what it does (done here), its PostToolUse. */
static void bash(const fx *f, t_run *post, const char *command, const char *effect)
{
	char *tail = t_sprintf(",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"%s\"}", command);
	char *ptail = t_sprintf("%s,\"duration_ms\":20", tail);
	t_run r;

	hook(f, &r, "pre-tool-use", tail);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	if (effect)
		sh(f, effect);
	hook(f, post, "post-tool-use", ptail);
	free(tail);
	free(ptail);
}

static void stop(const fx *f, t_run *r)
{
	hook(f, r, "stop", ",\"stop_hook_active\":false");
}

/* The fixture, with INT-001 selected by the session's first call. */
static void fx_make_selected(fx *f)
{
	t_run r;

	fx_make(f, NULL);
	bash(f, &r, "roz intent select INT-001", NULL);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
}

static void a_scripts_out_of_scope_change_holds_the_stop_until_undone(void **state)
{
	fx f;
	t_run r;
	char *ledger, *p;

	(void)state;
	fx_make(&f, NULL);
	bash(&f, &r, "roz intent select INT-001", NULL);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	/* a script the agent wrote: the line shows no target, the tree shows three */
	bash(&f, &r, "python3 tool.py",
	     "echo changed >> docs/d.md && echo new > src/new.ts && echo more >> src/a.ts && echo x > top.txt");
	assert_non_null(strstr(r.out, "\"decision\":\"block\""));
	assert_non_null(strstr(r.out, "docs/d.md: modified"));
	assert_asked_the_watcher(&f);
	assert_non_null(strstr(r.out, "top.txt: created"));
	assert_null(strstr(r.out, "src/new.ts"));
	t_run_dispose(&r);
	/* the in-scope file is in the ledger, as a Bash write */
	p = t_sprintf("%s/.orchestration/agent_trace.jsonl", f.repo);
	ledger = t_read_file(p, NULL);
	assert_non_null(ledger);
	assert_non_null(strstr(ledger, "\"path\":\"src/new.ts\",\"conversations\":[{\"url\":\"urn:claude-code:session:s-1\","
				      "\"contributor\":{\"type\":\"ai\"},\"ranges\":[{\"start_line\":1,\"end_line\":1"));
	/* a committed file changed in place: the line the call added (git's index held the rest) */
	assert_non_null(strstr(ledger, "\"path\":\"src/a.ts\",\"conversations\":[{\"url\":\"urn:claude-code:session:s-1\","
				      "\"contributor\":{\"type\":\"ai\"},\"ranges\":[{\"start_line\":2,\"end_line\":2"));
	assert_null(strstr(ledger, "top.txt"));
	free(ledger);
	free(p);
	/* the stop is held, naming both */
	stop(&f, &r);
	assert_non_null(strstr(r.out, "\"decision\":\"block\""));
	assert_non_null(strstr(r.out, "docs/d.md"));
	assert_non_null(strstr(r.out, "top.txt"));
	t_run_dispose(&r);
	/* half undone (git restore asks the person first, who agrees): the rest still holds it */
	sh(&f, "git restore -- docs/d.md");
	stop(&f, &r);
	assert_null(strstr(r.out, "docs/d.md"));
	assert_non_null(strstr(r.out, "top.txt"));
	t_run_dispose(&r);
	bash(&f, &r, "rm top.txt", "rm top.txt");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	stop(&f, &r);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	fx_dispose(&f);
}

static void a_person_accepts_what_the_agent_may_not(void **state)
{
	const char *list[] = {"intent", "violations", NULL}, *accept[] = {"intent", "accept", "top.txt", NULL};
	char old[4096];
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, NULL);
	/* no intent selected: a line judged read-only whose program writes anyway (a git hook, say) */
	bash(&f, &r, "git status", "echo x > top.txt");
	assert_non_null(strstr(r.out, "top.txt: created - no intent was selected"));
	t_run_dispose(&r);
	/* the agent cannot accept its own change, nor write a person's acceptance into the ledger, nor rewrite it */
	hook(&f, &r, "pre-tool-use", ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz intent accept --all\"}");
	assert_non_null(strstr(r.out, "\"permissionDecision\":\"deny\""));
	t_run_dispose(&r);
	hook(&f, &r, "pre-tool-use",
	     ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"cd src && /usr/local/bin/roz ledger accept a.c --by Ada\"}");
	assert_non_null(strstr(r.out, "\"permissionDecision\":\"deny\""));
	assert_non_null(strstr(r.out, "only a person runs it"));
	t_run_dispose(&r);
	hook(&f, &r, "pre-tool-use", ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz ledger compact\"}");
	assert_non_null(strstr(r.out, "\"permissionDecision\":\"deny\""));
	t_run_dispose(&r);
	/* reading the ledger is anyone's */
	hook(&f, &r, "pre-tool-use", ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz ledger verify --json\"}");
	assert_null(strstr(r.out, "\"permissionDecision\":\"deny\""));
	t_run_dispose(&r);
	/* a person can, from the repository */
	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(f.repo), 0);
	t_run_roz(&r, NULL, (const char *const *)f.env, list);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "top.txt: created (INTENT_REQUIRED) by Bash in session s-1"));
	t_run_dispose(&r);
	t_run_roz(&r, NULL, (const char *const *)f.env, accept);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "accepted top.txt"));
	t_run_dispose(&r);
	t_run_roz(&r, NULL, (const char *const *)f.env, accept);
	assert_int_equal(r.status, 1); /* nothing left to accept */
	t_run_dispose(&r);
	/* doctor says what a whole walk costs here, and whether the watcher answers */
	{
		const char *doctor[] = {"doctor", NULL};

		t_run_roz(&r, NULL, (const char *const *)f.env, doctor);
		assert_non_null(strstr(r.out, "governance: detection sees "));
		if (watching)
			assert_non_null(strstr(r.out, "the watcher of "));
		else
			assert_non_null(strstr(r.out, "detect_watch = false"));
		t_run_dispose(&r);
	}
	assert_int_equal(chdir(old), 0);
	stop(&f, &r);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	fx_dispose(&f);
}

static void others_changes_and_ignored_paths_are_not_the_calls(void **state)
{
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, "*.yaml\nbuild/\n");
	bash(&f, &r, "roz intent select INT-001", NULL);
	t_run_dispose(&r);
	/* a person's edit between calls is not the next call's doing */
	sh(&f, "echo person >> docs/d.md && sleep 0.4");
	bash(&f, &r, "ls", NULL);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	assert_asked_the_watcher(&f);
	/* an ignored path costs nothing and says nothing; .orchestration/ is protected whatever the ignore file says */
	bash(&f, &r, "./gen.sh", "mkdir -p build && echo o > build/out.o && echo 'x: 1' >> .orchestration/active_intents.yaml");
	assert_non_null(strstr(r.out, ".orchestration/active_intents.yaml: modified - .orchestration/ is changed "
				      "through roz only"));
	assert_null(strstr(r.out, "build/"));
	t_run_dispose(&r);
	/* a rename out of scope is one change, undone by moving it back */
	sh(&f, "git checkout -q -- .orchestration/active_intents.yaml");
	bash(&f, &r, "./mv.sh", "mv docs/d.md src/d.md");
	assert_non_null(strstr(r.out, "src/d.md: renamed from docs/d.md"));
	t_run_dispose(&r);
	/* moving it back writes out of scope, which prevention allows for undoing a standing change */
	bash(&f, &r, "mv src/d.md docs/d.md", "mv src/d.md docs/d.md");
	t_run_dispose(&r);
	stop(&f, &r);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	fx_dispose(&f);
}

static void roz_s_own_lessons_are_not_the_agents_change(void **state)
{
	fx f;
	t_run r;

	(void)state;
	fx_make_selected(&f);
	/* roz appends a lesson (as `roz decide ... ISSUES` and `roz lesson add` do) */
	bash(&f, &r, "roz lesson add 'check tokens'", "echo '- check tokens' >> .orchestration/CLAUDE.md");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	/* a script writing the same file is a change into .orchestration/ */
	bash(&f, &r, "sh src/notes.sh", "echo '- mine' >> .orchestration/CLAUDE.md");
	assert_non_null(strstr(r.out, ".orchestration/CLAUDE.md: modified - .orchestration/ is changed through roz only"));
	t_run_dispose(&r);
	fx_dispose(&f);
}

/* A hard link in scope to the intents file: the write through it lands in .orchestration/, and is seen there. */
static void a_write_through_a_hard_link_is_seen_where_it_lands(void **state)
{
	fx f;
	t_run r;
	char *pre_in, *post_in;

	(void)state;
	fx_make_selected(&f);
	sh(&f, "ln .orchestration/active_intents.yaml src/intents.yaml");
	pre_in = t_sprintf(",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"%s/src/intents.yaml\","
			   "\"old_string\":\"IN_PROGRESS\",\"new_string\":\"IN_PROGRESS\\n    owned_scope: [\\\"**\\\"]\"}",
			   f.repo);
	post_in = t_sprintf("%s,\"duration_ms\":5", pre_in);
	hook(&f, &r, "pre-tool-use", pre_in);
	t_run_dispose(&r);
	sh(&f, "echo '# widened' >> src/intents.yaml");
	hook(&f, &r, "post-tool-use", post_in);
	assert_non_null(strstr(r.out, ".orchestration/active_intents.yaml: modified - .orchestration/ is changed "
				      "through roz only"));
	t_run_dispose(&r);
	free(pre_in);
	free(post_in);
	fx_dispose(&f);
}

/* Governance is found where the change lands, not only from where the agent stands. */
static void governance_is_found_from_the_target_and_past_nested_repositories(void **state)
{
	const char *pre[] = {"hook", "pre-tool-use", NULL};
	fx f;
	t_run r;
	char *in;

	(void)state;
	fx_make(&f, NULL);
	static const char *const cwds[] = {"", "/src/nested", "/docs", "/.."};

	sh(&f, "git init -q src/nested && printf 'gitdir: /nowhere\\n' > docs/.git");
	for (size_t i = 0; i < sizeof cwds / sizeof cwds[0]; i++) {
		/* no intent selected: every one of these is the governed repository's change */
		in = t_sprintf("{\"session_id\":\"s-1\",\"cwd\":\"%s%s\",\"tool_name\":\"Write\","
			       "\"tool_input\":{\"file_path\":\"%s/src/nested/x.ts\",\"content\":\"x\"}}",
			       f.repo, cwds[i], f.repo);
		t_run_roz(&r, in, (const char *const *)f.env, pre);
		if (!strstr(r.out, "INTENT_REQUIRED"))
			fail_msg("from %s%s: %s", f.repo, cwds[i], r.out);
		t_run_dispose(&r);
		free(in);
	}
	/* from /, with a Bash line naming the file */
	in = t_sprintf("{\"session_id\":\"s-1\",\"cwd\":\"/\",\"tool_name\":\"Bash\","
		       "\"tool_input\":{\"command\":\"echo x > %s/docs/y.md\"}}",
		       f.repo);
	t_run_roz(&r, in, (const char *const *)f.env, pre);
	assert_non_null(strstr(r.out, "INTENT_REQUIRED"));
	t_run_dispose(&r);
	free(in);
	fx_dispose(&f);
}

/* An intent selected in one repository does not count in another, even one with the same ids. */
static void an_intent_counts_only_where_it_was_selected(void **state)
{
	const char *pre[] = {"hook", "pre-tool-use", NULL};
	fx f, other;
	t_run r;
	char *in;

	(void)state;
	fx_make(&f, NULL);
	fx_make(&other, NULL);
	bash(&f, &r, "roz intent select INT-001", NULL);
	t_run_dispose(&r);
	/* the same session, in the other repository: its own INT-001 was never selected */
	in = t_sprintf("{\"session_id\":\"s-1\",\"cwd\":\"%s\",\"tool_name\":\"Write\","
		       "\"tool_input\":{\"file_path\":\"%s/src/x.ts\",\"content\":\"x\"}}",
		       other.repo, other.repo);
	t_run_roz(&r, in, (const char *const *)f.env, pre);
	assert_non_null(strstr(r.out, "INTENT_REQUIRED"));
	assert_non_null(strstr(r.out, "belongs to another repository"));
	t_run_dispose(&r);
	free(in);
	/* and where it was selected it still counts */
	in = t_sprintf("{\"session_id\":\"s-1\",\"cwd\":\"%s\",\"tool_name\":\"Write\","
		       "\"tool_input\":{\"file_path\":\"%s/src/x.ts\",\"content\":\"x\"}}",
		       f.repo, f.repo);
	t_run_roz(&r, in, (const char *const *)f.env, pre);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	free(in);
	fx_dispose(&other);
	fx_dispose(&f);
}

/* An MCP tool's server writes what it likes: no line to judge, the tree shows it. */
static void an_mcp_tools_changes_are_seen(void **state)
{
	fx f;
	t_run r;
	char *ledger, *p;
	const char *call = ",\"tool_name\":\"mcp__files__write\",\"tool_input\":{\"path\":\"notes\"}";

	(void)state;
	fx_make_selected(&f);
	hook(&f, &r, "pre-tool-use", call);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	sh(&f, "echo x > docs/mcp.md && echo y > src/mcp.ts");
	hook(&f, &r, "post-tool-use", call);
	assert_non_null(strstr(r.out, "docs/mcp.md: created - outside the selected intent's owned_scope"));
	t_run_dispose(&r);
	p = t_sprintf("%s/.orchestration/agent_trace.jsonl", f.repo);
	ledger = t_read_file(p, NULL);
	assert_non_null(ledger);
	assert_non_null(strstr(ledger, "\"path\":\"src/mcp.ts\""));
	assert_non_null(strstr(ledger, "\"tool_name\":\"mcp__files__write\""));
	free(ledger);
	free(p);
	fx_dispose(&f);
}

/* Past the walk's bound: prevention only, said once per session, the tree not walked call after call. */
static void a_repository_too_large_degrades_to_prevention_said_once(void **state)
{
	const char *doctor[] = {"doctor", NULL};
	char old[4096];
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, NULL);
	fx_config(&f, "detect_max_entries = 5\n");
	bash(&f, &r, "roz intent select INT-001", NULL);
	assert_non_null(strstr(r.err, "judged by the command line only")); /* the session's first look */
	t_run_dispose(&r);
	bash(&f, &r, "sh gen.sh", "echo x > top.txt");
	assert_string_equal(r.out, "{}\n"); /* not seen: judged by the command line only */
	assert_null(strstr(r.err, "command line only")); /* once per session */
	t_run_dispose(&r);
	bash(&f, &r, "sh gen.sh", "echo y > top2.txt");
	assert_string_equal(r.out, "{}\n");
	assert_null(strstr(r.err, "command line only")); /* once per session */
	t_run_dispose(&r);
	stop(&f, &r);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(f.repo), 0);
	t_run_roz(&r, NULL, (const char *const *)f.env, doctor);
	assert_non_null(strstr(r.out, "too many to walk after every call"));
	t_run_dispose(&r);
	assert_int_equal(chdir(old), 0);
	fx_dispose(&f);
}

/* A snapshot gone (roz clean, a full disk): that call is not judged against nothing, the next ones are judged. */
static void a_lost_snapshot_is_taken_again_not_judged_against_nothing(void **state)
{
	fx f;
	t_run r;
	char *cmd;

	(void)state;
	fx_make_selected(&f);
	cmd = t_sprintf("rm -f '%s'/trees/*.tree && echo more >> docs/d.md", f.home);
	bash(&f, &r, "sh fmt.sh", cmd);
	free(cmd);
	/* no "docs/d.md: created - ... remove docs/d.md": the file existed, the call is simply not judged */
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	bash(&f, &r, "sh fmt.sh", "echo again >> docs/d.md");
	assert_non_null(strstr(r.out, "docs/d.md: modified"));
	t_run_dispose(&r);
	fx_dispose(&f);
}

/* Lines whose targets are known only when they run: no question for the person, the tree judges them. */
static void lines_prevention_cannot_place_run_and_are_judged(void **state)
{
	/* (a computed path, `> $f`, is still asked by the review's storage guard: it could be roz's store) */
	static const char *const lines[] = {
		"cd src && echo x > new.ts", "cd src/ && cat a.ts > copy.ts", "cd src && sed -i s/a/b/ a.ts",
	};
	fx f;
	t_run r;

	(void)state;
	fx_make_selected(&f);
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		/* what each does, in scope: told nothing */
		bash(&f, &r, lines[i], "echo x >> src/a.ts");
		if (strcmp(r.out, "{}\n") != 0)
			fail_msg("%s: %s", lines[i], r.out);
		t_run_dispose(&r);
	}
	/* the same kind of line writing out of scope is caught after it ran */
	bash(&f, &r, "cd docs && echo x > new.md", "echo x > docs/new.md");
	assert_non_null(strstr(r.out, "docs/new.md: created"));
	t_run_dispose(&r);
	fx_dispose(&f);
}

/* One Bash line naming 600 files does not make the session forget what it read. */
static void a_line_naming_many_files_keeps_what_was_read(void **state)
{
	fx f;
	t_run r;
	char *read_in, *edit_in;
	roz_buf many = ROZ_BUF_INIT;

	(void)state;
	fx_make_selected(&f);
	read_in = t_sprintf(",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"%s/src/a.ts\"}", f.repo);
	edit_in = t_sprintf(",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"%s/src/a.ts\","
			    "\"old_string\":\"a\",\"new_string\":\"b\"}",
			    f.repo);
	hook(&f, &r, "post-tool-use", read_in);
	t_run_dispose(&r);
	sh(&f, "mkdir -p src/many && cd src/many && for i in $(seq 600); do : > f$i.ts; done");
	/* every name written out, as an agent's line would after a glob (the reader does not expand one) */
	for (int i = 1; i <= 600; i++)
		roz_buf_addf(&many, i == 1 ? "touch src/many/f%d.ts" : " src/many/f%d.ts", i);
	bash(&f, &r, roz_buf_cstr(&many), roz_buf_cstr(&many));
	t_run_dispose(&r);
	/* a person changes the file the session read: the Edit is stale, not forgotten */
	sh(&f, "echo person >> src/a.ts");
	hook(&f, &r, "pre-tool-use", edit_in);
	assert_non_null(strstr(r.out, "STALE_FILE"));
	t_run_dispose(&r);
	free(read_in);
	free(edit_in);
	roz_buf_dispose(&many);
	fx_dispose(&f);
}

static void the_circuit_breaker_still_lets_the_agent_go(void **state)
{
	fx f;
	t_run r;

	(void)state;
	fx_make(&f, NULL);
	bash(&f, &r, "git status", "echo x > top.txt");
	t_run_dispose(&r);
	/* the default max_blocks is 3: three held stops, then the fourth goes, with a warning */
	for (int i = 0; i < 3; i++) {
		stop(&f, &r);
		assert_non_null(strstr(r.out, "\"decision\":\"block\""));
		t_run_dispose(&r);
	}
	stop(&f, &r);
	assert_string_equal(r.out, "{}\n");
	assert_non_null(strstr(r.err, "circuit breaker"));
	t_run_dispose(&r);
	fx_dispose(&f);
}

/*
 * A second session's first call takes the tree as it is: from the first
 * session's snapshot brought up to date when the watcher stamped it, else by
 * a walk; either way what a whole walk lists now.
 */
static void a_second_sessions_first_snapshot_is_the_tree_now(void **state)
{
	char root[PATH_MAX], *cmd, line[4096];
	roz_tree mine, whole;
	roz_tree_opts o = {.max_entries = 0};
	fx f;
	t_run r;
	FILE *p;

	(void)state;
	fx_make_selected(&f);
	bash(&f, &r, "python3 tool.py", "echo more >> src/a.ts && mkdir -p src/n && echo n > src/n/x.ts");
	t_run_dispose(&r);
	/* changes after the first session's last look: the second must see them as they are */
	sh(&f, "echo again >> src/a.ts && rm -r src/n && echo t > src/t.ts && sleep 0.05");
	{
		const char *argv[] = {"hook", "pre-tool-use", NULL};
		char *in = t_sprintf("{\"session_id\":\"s-2\",\"cwd\":\"%s\",\"tool_name\":\"Bash\","
				     "\"tool_input\":{\"command\":\"roz intent select INT-001\"}}",
				     f.repo);

		t_run_roz(&r, in, (const char *const *)f.env, argv);
		assert_int_equal(r.status, 0);
		t_run_dispose(&r);
		free(in);
	}
	cmd = t_sprintf("ls '%s'/trees/s-2-*.tree", f.home);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(fgets(line, sizeof line, p));
	pclose(p);
	free(cmd);
	line[strcspn(line, "\n")] = '\0';
	assert_int_equal(roz_tree_load(line, &mine), ROZ_OK);
	assert_non_null(realpath(f.repo, root));
	assert_int_equal(roz_tree_walk(root, &o, &whole), ROZ_OK);
	assert_int_equal(mine.n, whole.n);
	for (size_t i = 0; i < whole.n; i++) {
		assert_string_equal(mine.items[i].path, whole.items[i].path);
		assert_true(mine.items[i].ctime_ns == whole.items[i].ctime_ns);
		assert_true(mine.items[i].size == whole.items[i].size);
		assert_true(mine.items[i].ino == whole.items[i].ino);
	}
	if (watching)
		assert_true(mine.watch_id != 0);
	roz_tree_dispose(&mine);
	roz_tree_dispose(&whole);
	fx_dispose(&f);
}

static void roz_clean_drops_snapshots_no_session_owns(void **state)
{
	const char *clean[] = {"clean", NULL};
	fx f;
	t_run r;
	char *trees, *owned = NULL, *cmd;
	DIR *d;
	struct dirent *de;

	(void)state;
	fx_make(&f, NULL);
	/* the session's first call takes its snapshot; the selection stores the session */
	bash(&f, &r, "roz intent select INT-001", NULL);
	t_run_dispose(&r);
	trees = t_sprintf("%s/trees", f.home);
	assert_non_null(d = opendir(trees));
	while ((de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".tree"))
			owned = strdup(de->d_name);
	closedir(d);
	assert_non_null(owned);
	/* an old orphan, an old torn save, a fresh orphan (a session's first call, not yet stored) */
	cmd = t_sprintf("cd '%s' && mkdir gone-0123456789abcdef.files && touch gone-0123456789abcdef.files/ab && "
			"touch -d '2 hours ago' gone-0123456789abcdef.tree gone-0123456789abcdef.files "
			"x.tree.tmp.42 '%s' && touch new-0123456789abcdef.tree && "
			"touch -d '2 days ago' watch-0123456789abcdef.off && touch watch-fedcba9876543210.off",
			trees, owned);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	t_run_roz(&r, NULL, (const char *const *)f.env, clean);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	cmd = t_sprintf("%s/%s", trees, owned);
	assert_int_equal(access(cmd, F_OK), 0);
	free(cmd);
	cmd = t_sprintf("%s/new-0123456789abcdef.tree", trees);
	assert_int_equal(access(cmd, F_OK), 0);
	free(cmd);
	cmd = t_sprintf("%s/gone-0123456789abcdef.tree", trees);
	assert_int_not_equal(access(cmd, F_OK), 0);
	free(cmd);
	cmd = t_sprintf("%s/gone-0123456789abcdef.files", trees);
	assert_int_not_equal(access(cmd, F_OK), 0);
	free(cmd);
	cmd = t_sprintf("%s/x.tree.tmp.42", trees);
	assert_int_not_equal(access(cmd, F_OK), 0);
	free(cmd);
	/* a watcher's note goes when a day old, not before */
	cmd = t_sprintf("%s/watch-0123456789abcdef.off", trees);
	assert_int_not_equal(access(cmd, F_OK), 0);
	free(cmd);
	cmd = t_sprintf("%s/watch-fedcba9876543210.off", trees);
	assert_int_equal(access(cmd, F_OK), 0);
	free(cmd);
	/* the review's view of the work goes with its session too, and only then */
	owned[strlen(owned) - 22] = '\0'; /* the session id */
	cmd = t_sprintf("cd '%s' && touch -d '2 hours ago' gone-0123456789abcdef.index gone.armed gone.touched "
			"'%s.armed' '%s.touched' '%s-0123456789abcdef.index' x-0123456789abcdef.index.context.7 && "
			"touch y-0123456789abcdef.index.context.8",
			trees, owned, owned, owned);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	t_run_roz(&r, NULL, (const char *const *)f.env, clean);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	{
		const char *gone[] = {"gone-0123456789abcdef.index", "gone.armed", "gone.touched",
				      "x-0123456789abcdef.index.context.7"};
		const char *kept[] = {".armed", ".touched", "-0123456789abcdef.index"};

		for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
			cmd = t_sprintf("%s/%s", trees, gone[i]);
			assert_int_not_equal(access(cmd, F_OK), 0);
			free(cmd);
		}
		for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
			cmd = t_sprintf("%s/%s%s", trees, owned, kept[i]);
			assert_int_equal(access(cmd, F_OK), 0);
			free(cmd);
		}
		cmd = t_sprintf("%s/y-0123456789abcdef.index.context.8", trees);
		assert_int_equal(access(cmd, F_OK), 0);
		free(cmd);
	}
	free(owned);
	free(trees);
	fx_dispose(&f);
}

/* The ledger's record of the last Bash call for `path`: its "ranges":[...] text, allocated. */
static char *ranges_of(const fx *f, const char *path)
{
	char *p = t_sprintf("%s/.orchestration/agent_trace.jsonl", f->repo), *ledger = t_read_file(p, NULL);
	char *key = t_sprintf("\"path\":\"%s\"", path), *at = NULL, *r, *end, *out;

	assert_non_null(ledger);
	for (char *q = ledger; (q = strstr(q, key)) != NULL; q++)
		at = q;
	assert_non_null(at);
	assert_non_null(r = strstr(at, "\"ranges\":["));
	assert_non_null(end = strchr(r, ']'));
	out = strndup(r, (size_t)(end - r) + 1);
	free(key);
	free(ledger);
	free(p);
	return out;
}

static void a_committed_file_changed_in_place_is_credited_with_its_changed_lines(void **state)
{
	fx f;
	t_run r;
	char *got, *want, *p, *text;
	char h4[ROZ_SHA256_HEX_SIZE], h9[ROZ_SHA256_HEX_SIZE];

	(void)state;
	fx_make(&f, NULL);
	sh(&f, "seq -f 'line %g' 10 > src/big.ts && seq -f 'c %g' 3 > src/c.ts && seq -f 'e %g' 3 > src/e.ts && "
	      "git add -A && git -c user.email=t@e -c user.name=t commit -qm big");
	bash(&f, &r, "roz intent select INT-001", NULL);
	t_run_dispose(&r);
	/* two separate lines of ten, by a program the line does not name: two ranges, not the file */
	bash(&f, &r, "python3 fix.py", "sed -i 's/^line 4$/LINE 4/; s/^line 9$/LINE 9/' src/big.ts && "
				       "sed -i 's/^e 3$/E 3/' src/e.ts");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	assert_asked_the_watcher(&f);
	/* two files of one call, each what git held (read from git in one go) */
	got = ranges_of(&f, "src/e.ts");
	assert_non_null(strstr(got, "\"ranges\":[{\"start_line\":3,\"end_line\":3,"));
	free(got);
	p = t_sprintf("%s/src/big.ts", f.repo);
	text = t_read_file(p, NULL);
	roz_ledger_hash_lines(text, strlen(text), 4, 4, h4);
	roz_ledger_hash_lines(text, strlen(text), 9, 9, h9);
	got = ranges_of(&f, "src/big.ts");
	/* each a line rewritten in place: a person's line the agent changed, so mixed */
	want = t_sprintf("\"ranges\":[{\"start_line\":4,\"end_line\":4,\"content_hash\":\"sha256:%s\","
			 "\"contributor\":{\"type\":\"mixed\"}},"
			 "{\"start_line\":9,\"end_line\":9,\"content_hash\":\"sha256:%s\","
			 "\"contributor\":{\"type\":\"mixed\"}}]",
			 h4, h9);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(text);
	/* changed again: no longer as committed, but roz kept what the session left, so again its own line */
	bash(&f, &r, "python3 fix.py", "sed -i 's/^line 6$/LINE 6/' src/big.ts");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	got = ranges_of(&f, "src/big.ts");
	assert_non_null(strstr(got, "\"ranges\":[{\"start_line\":6,\"end_line\":6,"));
	assert_null(strstr(got, "\"start_line\":4"));
	free(got);
	/* with no copy kept (removed here), what the file held is not known: no line is claimed */
	text = t_sprintf("rm -f '%s'/trees/*.files/*", f.home);
	assert_int_equal(system(text), 0);
	free(text);
	bash(&f, &r, "python3 fix.py", "sed -i 's/^line 7$/LINE 7/' src/big.ts");
	t_run_dispose(&r);
	got = ranges_of(&f, "src/big.ts");
	assert_string_equal(got, "\"ranges\":[]");
	free(got);
	free(p);
	/*
	 * a person's line, seen by the walk after a later call: the file was no longer as committed when
	 * the script ran, so what it held is not known and no line is claimed (the person's included)
	 */
	sh(&f, "echo person >> src/a.ts");
	bash(&f, &r, "ls", NULL);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	bash(&f, &r, "python3 fix.py", "sed -i '1s/a/A/' src/a.ts");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	got = ranges_of(&f, "src/a.ts");
	assert_string_equal(got, "\"ranges\":[]");
	free(got);
	/* a repository whose config would run a program for git (fsmonitor): roz's git never runs it */
	sh(&f, "git config core.fsmonitor \"touch $PWD/fsmonitor-ran; false\" && git config diff.external false");
	bash(&f, &r, "python3 fix.py", "sed -i 's/^c 2$/C 2/' src/c.ts && echo more >> docs/d.md");
	assert_non_null(strstr(r.out, "docs/d.md: modified"));
	t_run_dispose(&r);
	got = ranges_of(&f, "src/c.ts");
	assert_non_null(strstr(got, "\"start_line\":2,\"end_line\":2,"));
	free(got);
	stop(&f, &r); /* asks git whether docs/d.md is as committed */
	assert_non_null(strstr(r.out, "docs/d.md"));
	t_run_dispose(&r);
	p = t_sprintf("%s/fsmonitor-ran", f.repo);
	assert_int_not_equal(access(p, F_OK), 0);
	free(p);
	fx_dispose(&f);
}

static void read_tool(const fx *f, const char *rel)
{
	char *tail = t_sprintf(",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"%s/%s\"}", f->repo, rel);
	t_run r;

	hook(f, &r, "post-tool-use", tail);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	free(tail);
}

static void a_line_over_a_file_someone_changed_since_it_was_read_is_stale(void **state)
{
	const char *accept[] = {"intent", "accept", "src/a.ts", NULL};
	char old[4096];
	fx f;
	t_run r;

	(void)state;
	fx_make_selected(&f);
	/* the session's own changes, read or not, are never someone else's */
	read_tool(&f, "src/a.ts");
	bash(&f, &r, "python3 fix.py", "echo one >> src/a.ts");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	bash(&f, &r, "python3 fix.py", "echo two >> src/a.ts");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	stop(&f, &r);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	/*
	 * a person's change that no walk saw, then the session reads the file again: its look is newer than
	 * the snapshot, so nothing is stale, and since the snapshot's idea of the file is not what the session
	 * read, the person's lines are not claimed either
	 */
	sh(&f, "git checkout -- src/a.ts && echo person >> src/a.ts");
	read_tool(&f, "src/a.ts");
	bash(&f, &r, "python3 fix.py", "echo agent >> src/a.ts");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	{
		char *got = ranges_of(&f, "src/a.ts");

		assert_string_equal(got, "\"ranges\":[]");
		free(got);
	}
	/* a person's change after the read, seen by a later call's walk, then a script over the file */
	read_tool(&f, "src/a.ts");
	usleep(20000); /* the person's change lands after the read on the file-time clock, which is coarse */
	sh(&f, "echo person >> src/a.ts");
	bash(&f, &r, "ls", NULL);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	bash(&f, &r, "python3 fix.py", "sed -i '1s/a/A/' src/a.ts");
	assert_non_null(strstr(r.out, "\"decision\":\"block\""));
	assert_non_null(strstr(r.out, "src/a.ts: modified - someone else changed it"));
	assert_non_null(strstr(r.out, "git diff -- src/a.ts"));
	assert_null(strstr(r.out, "git restore"));
	t_run_dispose(&r);
	/* putting the file as committed does not settle it: only the person does */
	stop(&f, &r);
	assert_non_null(strstr(r.out, "\"decision\":\"block\""));
	assert_non_null(strstr(r.out, "src/a.ts: modified (STALE_FILE)"));
	t_run_dispose(&r);
	sh(&f, "git checkout -- src/a.ts");
	stop(&f, &r);
	assert_non_null(strstr(r.out, "STALE_FILE"));
	t_run_dispose(&r);
	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(f.repo), 0);
	t_run_roz(&r, NULL, (const char *const *)f.env, accept);
	assert_int_equal(chdir(old), 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "accepted src/a.ts"));
	t_run_dispose(&r);
	stop(&f, &r);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	fx_dispose(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(diff_counts_only_what_changed_since_the_call_began),
		cmocka_unit_test(diff_sees_type_and_link_changes),
		cmocka_unit_test(judge_follows_the_rules_of_prevention),
		cmocka_unit_test(stale_is_someone_elses_change_under_the_calls),
		cmocka_unit_test(violations_are_kept_once_per_path_and_read_back),
		cmocka_unit_test(a_scripts_out_of_scope_change_holds_the_stop_until_undone),
		cmocka_unit_test(a_person_accepts_what_the_agent_may_not),
		cmocka_unit_test(others_changes_and_ignored_paths_are_not_the_calls),
		cmocka_unit_test(roz_s_own_lessons_are_not_the_agents_change),
		cmocka_unit_test(a_write_through_a_hard_link_is_seen_where_it_lands),
		cmocka_unit_test(governance_is_found_from_the_target_and_past_nested_repositories),
		cmocka_unit_test(an_intent_counts_only_where_it_was_selected),
		cmocka_unit_test(an_mcp_tools_changes_are_seen),
		cmocka_unit_test(a_repository_too_large_degrades_to_prevention_said_once),
		cmocka_unit_test(a_lost_snapshot_is_taken_again_not_judged_against_nothing),
		cmocka_unit_test(lines_prevention_cannot_place_run_and_are_judged),
		cmocka_unit_test(a_line_naming_many_files_keeps_what_was_read),
		cmocka_unit_test(the_circuit_breaker_still_lets_the_agent_go),
		cmocka_unit_test(a_second_sessions_first_snapshot_is_the_tree_now),
		cmocka_unit_test(roz_clean_drops_snapshots_no_session_owns),
		cmocka_unit_test(a_committed_file_changed_in_place_is_credited_with_its_changed_lines),
		cmocka_unit_test(a_line_over_a_file_someone_changed_since_it_was_read_is_stale),
	};

	int failed = cmocka_run_group_tests_name("walking the tree", tests, walk_mode, NULL);

	return failed + cmocka_run_group_tests_name("asking the watcher", tests, watch_mode, NULL);
}
