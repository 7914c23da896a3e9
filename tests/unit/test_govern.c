/*
 * test_govern.c - the governance rules put together (roz/govern.h), on a
 * repository that exists only as tables: intents from YAML text, file
 * contents and symbolic links from lists. Each test is one thing an agent
 * could do and what it must be told.
 */
#include "support.h"

#include "roz/digest.h"
#include "roz/govern.h"

#include <stdlib.h>
#include <string.h>

#define INTENTS                                                                                        \
	"active_intents:\n"                                                                            \
	"  - id: INT-001\n"                                                                            \
	"    name: JWT Authentication Migration\n"                                                     \
	"    status: IN_PROGRESS\n"                                                                    \
	"    owned_scope: [\"src/auth/**\", \"src/middleware/jwt.ts\"]\n"                              \
	"    constraints: [\"Must not use external auth providers\"]\n"                                \
	"  - id: INT-002\n"                                                                            \
	"    name: Billing\n"                                                                          \
	"    status: DRAFT\n"                                                                          \
	"    owned_scope: [\"src/billing/**\"]\n"                                                      \
	"  - id: INT-003\n"                                                                            \
	"    name: Docs\n"                                                                             \
	"    status: IN_PROGRESS\n"                                                                    \
	"    owned_scope: [\"docs/**\"]\n"

typedef struct fake {
	const char *files[16][2]; /* path, content */
	const char *links[8][2];  /* path, target */
} fake;

typedef struct world {
	roz_intents intents;
	roz_ignore ignore;
	roz_gov_world w;
	roz_gov_opts o;
	roz_session_gov g;
	fake fs;
	roz_gov_result r;
	char *tmp[1];
} world;

static const char *const temp_roots[] = {"/tmp", "/var/tmp"};

static int fake_hash(void *ud, const char *path, char out[ROZ_GOV_HASH_SIZE])
{
	fake *f = ud;

	for (size_t i = 0; i < 16 && f->files[i][0]; i++)
		if (strcmp(f->files[i][0], path) == 0) {
			roz_digest_sha256_hex(f->files[i][1], strlen(f->files[i][1]), out);
			return ROZ_OK;
		}
	return ROZ_ENOTFOUND;
}

static int fake_link(void *ud, const char *path, char **target)
{
	fake *f = ud;

	*target = NULL;
	for (size_t i = 0; i < 8 && f->links[i][0]; i++)
		if (strcmp(f->links[i][0], path) == 0)
			return (*target = roz_strdup(f->links[i][1])) ? ROZ_OK : ROZ_ENOMEM;
	return ROZ_ENOTFOUND;
}

static void set_file(world *x, const char *path, const char *content)
{
	size_t i = 0;

	for (; i < 16 && x->fs.files[i][0]; i++)
		if (strcmp(x->fs.files[i][0], path) == 0)
			break;
	assert_true(i < 16);
	x->fs.files[i][0] = path;
	x->fs.files[i][1] = content;
}

static int setup(void **state)
{
	world *x = calloc(1, sizeof *x);
	roz_intents_error err = {0, 0, NULL};

	assert_non_null(x);
	assert_int_equal(roz_intents_parse(INTENTS, strlen(INTENTS), &x->intents, &err), ROZ_OK);
	roz_intents_error_dispose(&err);
	assert_int_equal(roz_ignore_parse("*.log\nvendor/\n", 14, &x->ignore, NULL), ROZ_OK);
	x->w.root = "/repo";
	x->w.governed = true;
	x->w.intents = &x->intents;
	x->w.ignore = &x->ignore;
	x->w.paths.home = "/home/u";
	x->w.paths.read_link = fake_link;
	x->w.paths.ud = &x->fs;
	x->w.hash_file = fake_hash;
	x->w.ud = &x->fs;
	x->tmp[0] = (char *)"/tmp";
	x->o.escalate_after = 3;
	x->o.destructive = true;
	x->o.tmp_dirs = x->tmp;
	x->o.ntmp = 1;
	x->o.temp_roots = temp_roots;
	x->o.ntemp_roots = 2;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	world *x = *state;

	roz_gov_result_dispose(&x->r);
	roz_session_gov_dispose(&x->g);
	roz_intents_dispose(&x->intents);
	roz_ignore_dispose(&x->ignore);
	free(x);
	return 0;
}

static roz_time at(int64_t s)
{
	return roz_time_make(1767225600 + s, 0);
}

/* Judge one call given as the tool name and tool_input JSON, from `cwd`. */
static roz_output_kind pre_in(world *x, const char *cwd, const char *tool, const char *input)
{
	char *json = t_sprintf("{\"session_id\":\"s1\",\"cwd\":\"%s\",\"tool_name\":\"%s\",\"tool_input\":%s}",
			       cwd, tool, input);
	roz_hook_input in;
	roz_shell_result sh;
	roz_effect eff;
	bool bash = strcmp(tool, "Bash") == 0;

	memset(&sh, 0, sizeof sh);
	memset(&eff, 0, sizeof eff);
	assert_int_equal(roz_hook_input_parse(json, strlen(json), &in), ROZ_OK);
	if (bash) {
		const char *cmd = strstr(input, "\"command\":\"");

		assert_non_null(cmd);
		/* the tests' commands hold no escapes: the text up to the closing quote is the line */
		cmd += 11;
		assert_int_equal(roz_shell_parse(cmd, (size_t)(strrchr(cmd, '"') - cmd), &sh), ROZ_OK);
		assert_int_equal(roz_effect_of_bash(&sh, &eff), ROZ_OK);
	}
	roz_gov_result_dispose(&x->r);
	assert_int_equal(roz_govern_pre_tool_use(&in, bash ? &sh : NULL, bash ? &eff : NULL, &x->w, &x->o,
						 at(10),
						 x->w.governed ? &x->g : NULL, &x->r),
			 ROZ_OK);
	if (bash) {
		roz_shell_result_dispose(&sh);
		roz_effect_dispose(&eff);
	}
	roz_hook_input_dispose(&in);
	free(json);
	return x->r.kind;
}

static roz_output_kind pre(world *x, const char *tool, const char *input)
{
	return pre_in(x, "/repo", tool, input);
}

static roz_output_kind write_to(world *x, const char *path)
{
	char *input = t_sprintf("{\"file_path\":\"%s\",\"content\":\"x\"}", path);
	roz_output_kind k = pre(x, "Write", input);

	free(input);
	return k;
}

static roz_output_kind bash(world *x, const char *line)
{
	char *input = t_sprintf("{\"command\":\"%s\"}", line);
	roz_output_kind k = pre(x, "Bash", input);

	free(input);
	return k;
}

static void post(world *x, const char *tool, const char *input)
{
	char *json = t_sprintf("{\"session_id\":\"s1\",\"cwd\":\"/repo\",\"tool_name\":\"%s\",\"tool_input\":%s}",
			       tool, input);
	roz_hook_input in;
	bool save = false;

	assert_int_equal(roz_hook_input_parse(json, strlen(json), &in), ROZ_OK);
	assert_int_equal(roz_govern_post_tool_use(&in, NULL, &x->w, at(20), &x->g, &save), ROZ_OK);
	assert_true(save);
	roz_hook_input_dispose(&in);
	free(json);
}

static void expect_code(world *x, roz_output_kind kind, roz_denial_code code)
{
	if (x->r.kind != kind || x->r.denial.code != code)
		fail_msg("got kind %d code %s (%s), expected kind %d code %s", x->r.kind,
			 roz_denial_code_name(x->r.denial.code), x->r.denial.message ? x->r.denial.message : "",
			 kind, roz_denial_code_name(code));
}

static void select_int1(world *x)
{
	assert_int_equal(bash(x, "roz intent select INT-001"), ROZ_OUTPUT_ALLOW);
	assert_true(x->r.selected);
	assert_string_equal(x->g.intent_id, "INT-001");
}

/* ---- the handshake ----------------------------------------------------------- */

static void a_change_before_selecting_is_refused_with_the_choices(void **state)
{
	world *x = *state;

	write_to(x, "/repo/src/auth/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_REQUIRED);
	assert_non_null(strstr(x->r.denial.message, "roz intent select"));
	assert_non_null(strstr(x->r.denial.message, "INT-001 (JWT Authentication Migration)"));
	assert_non_null(strstr(x->r.denial.message, "INT-003"));
	assert_null(strstr(x->r.denial.message, "INT-002")); /* a DRAFT is no choice */
	assert_non_null(strstr(x->r.denial.details, "\"choices\":[{\"id\":\"INT-001\""));
	assert_int_equal(x->g.phase, ROZ_GOV_BLOCKED);
	assert_int_equal(x->g.denials, 1);
	assert_true(x->r.save);
	/* a Bash line that changes files is a change too */
	bash(x, "touch src/auth/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_REQUIRED);
	bash(x, "make");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_REQUIRED);
	/* a path .intentignore takes is outside governance: no intent needed */
	x->o.escalate_after = 0; /* a table of refusals is not a run the person should see */
	assert_int_equal(write_to(x, "/repo/build.log"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(bash(x, "echo x > vendor/lib/a.c"), ROZ_OUTPUT_ALLOW);
	bash(x, "echo x > vendor/lib/a.c > src/auth/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_REQUIRED);
	/* with detection judging after, a program that names no target runs */
	x->w.detects = true;
	assert_int_equal(bash(x, "make"), ROZ_OUTPUT_ALLOW);
	bash(x, "touch src/auth/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_REQUIRED);
}

static void reading_is_never_refused(void **state)
{
	world *x = *state;

	assert_int_equal(pre(x, "Read", "{\"file_path\":\"/repo/src/billing/x.ts\"}"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(pre(x, "Grep", "{\"pattern\":\"x\"}"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(bash(x, "ls -la && git status && git log --oneline | head -5"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(bash(x, "cat src/billing/x.ts | grep total"), ROZ_OUTPUT_ALLOW);
	assert_false(x->r.save);
	/* even with the intents file broken */
	x->w.intents = NULL;
	x->w.intents_problem = ".orchestration/active_intents.yaml:3:5: bad";
	assert_int_equal(bash(x, "git diff"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(pre(x, "Read", "{\"file_path\":\"/repo/a\"}"), ROZ_OUTPUT_ALLOW);
}

static void selecting_an_intent_loads_it(void **state)
{
	world *x = *state;

	select_int1(x);
	assert_int_equal(x->g.phase, ROZ_GOV_CONTEXT_LOADED);
	assert_true(x->g.selected_at.set);
	assert_false(x->g.refactor);
	assert_int_equal(write_to(x, "/repo/src/auth/a.ts"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(x->g.phase, ROZ_GOV_ACTION_ALLOWED);
	assert_int_equal(bash(x, "roz intent select INT-003 --refactor"), ROZ_OUTPUT_ALLOW);
	assert_string_equal(x->g.intent_id, "INT-003");
	assert_true(x->g.refactor);
}

static void an_unknown_or_inactive_intent_is_refused_and_changes_nothing(void **state)
{
	world *x = *state;

	bash(x, "roz intent select INT-999");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_INVALID);
	assert_non_null(strstr(x->r.denial.message, "no intent INT-999"));
	assert_null(x->g.intent_id);
	bash(x, "roz intent select INT-002");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_INVALID);
	assert_non_null(strstr(x->r.denial.message, "DRAFT"));
	assert_null(x->g.intent_id);
	/* a good selection stays when a bad one follows */
	select_int1(x);
	bash(x, "roz intent select INT-002");
	assert_string_equal(x->g.intent_id, "INT-001");
}

static void a_selection_and_a_change_on_one_line(void **state)
{
	world *x = *state;

	assert_int_equal(bash(x, "roz intent select INT-001 && touch src/auth/new.ts"), ROZ_OUTPUT_ALLOW);
	assert_true(x->r.selected);
	bash(x, "roz intent select INT-003 && touch src/auth/new.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
	assert_string_equal(x->g.intent_id, "INT-003"); /* the selection itself was good */
}

static void an_intent_that_stops_being_in_progress_is_no_longer_selected(void **state)
{
	world *x = *state;
	roz_intents later;
	roz_intents_error err = {0, 0, NULL};
	const char *done = "active_intents:\n  - id: INT-001\n    name: JWT\n    status: COMPLETED\n"
			   "    owned_scope: [\"src/auth/**\"]\n";

	select_int1(x);
	assert_int_equal(roz_intents_parse(done, strlen(done), &later, &err), ROZ_OK);
	x->w.intents = &later;
	write_to(x, "/repo/src/auth/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_REQUIRED);
	assert_non_null(strstr(x->r.denial.message, "no longer IN_PROGRESS"));
	roz_intents_dispose(&later);
	roz_intents_error_dispose(&err);
}

/* ---- scope --------------------------------------------------------------------- */

static void writes_outside_the_scope_are_refused_naming_path_and_scope(void **state)
{
	world *x = *state;

	select_int1(x);
	write_to(x, "/repo/src/billing/invoice.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
	assert_non_null(strstr(x->r.denial.message, "src/billing/invoice.ts is outside INT-001's scope "
						    "(src/auth/**, src/middleware/jwt.ts)"));
	assert_non_null(strstr(x->r.denial.details, "\"path\":\"src/billing/invoice.ts\""));
	assert_non_null(strstr(x->r.denial.details, "\"owned_scope\":[\"src/auth/**\",\"src/middleware/jwt.ts\"]"));
	assert_int_equal(write_to(x, "/repo/src/middleware/jwt.ts"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(pre(x, "Edit", "{\"file_path\":\"/repo/src/auth/deep/er/x.ts\",\"old_string\":\"a\","
				      "\"new_string\":\"b\"}"),
			 ROZ_OUTPUT_ALLOW);
	pre(x, "NotebookEdit", "{\"notebook_path\":\"/repo/nb.ipynb\",\"new_source\":\"x\"}");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
	pre(x, "MultiEdit", "{\"file_path\":\"/repo/README.md\",\"edits\":[]}");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
}

static void path_tricks_are_judged_where_the_write_lands(void **state)
{
	static const struct {
		const char *cwd, *path;
		roz_output_kind want;
	} cases[] = {
		{"/repo/src", "auth/a.ts", ROZ_OUTPUT_ALLOW},
		{"/repo/src/auth", "./x/../y.ts", ROZ_OUTPUT_ALLOW},
		{"/repo/src/auth", "../billing/x.ts", ROZ_OUTPUT_DENY},
		{"/repo", "src/auth/../billing/x.ts", ROZ_OUTPUT_DENY},
		{"/repo", "/repo//src/./auth/../../src/billing/y", ROZ_OUTPUT_DENY},
		{"/repo", "//repo/src/auth//a.ts", ROZ_OUTPUT_ALLOW},
		{"/repo", "src/auth", ROZ_OUTPUT_DENY},          /* the directory is not under src/auth/ */
		{"/repo", "src/authx/a.ts", ROZ_OUTPUT_DENY},    /* a prefix is not a parent */
		{"/repo", "/repo/src/auth/link/x.ts", ROZ_OUTPUT_DENY}, /* a link into billing */
		{"/repo", "/repo/src/auth/out/passwd", ROZ_OUTPUT_DENY}, /* a link out of the repository */
		{"/repo", "/repo/docs/to-auth/a.ts", ROZ_OUTPUT_DENY},   /* into the scope, by a name it does not own */
		{"/repo", "SRC/Auth/a.ts", ROZ_OUTPUT_DENY},     /* case counts here */
		{"/repo", "/tmp/scratch.txt", ROZ_OUTPUT_ALLOW}, /* a temporary directory: free */
		{"/repo", "~/.claude/plans/p.md", ROZ_OUTPUT_ALLOW}, /* Claude Code's own: free */
		{"/repo", "~/notes.txt", ROZ_OUTPUT_ASK},        /* elsewhere outside the repository: asked */
		{"/repo", "/etc/profile", ROZ_OUTPUT_ASK},
		{"/repo", "/repo/../usr/local/bin/x", ROZ_OUTPUT_ASK},
		{"/repo", "build.log", ROZ_OUTPUT_ALLOW},        /* .intentignore: *.log */
		{"/repo", "vendor/lib/x.c", ROZ_OUTPUT_ALLOW},   /* .intentignore: vendor/ */
		{"/repo", "/repo/src/auth/vend/x.c", ROZ_OUTPUT_ALLOW}, /* owned, and led into ignored vendor/ */
		{"/repo", ".orchestration/notes.log", ROZ_OUTPUT_DENY}, /* protected whatever *.log says */
	};
	world *x = *state;

	x->fs.links[0][0] = "/repo/src/auth/link";
	x->fs.links[0][1] = "../billing";
	x->fs.links[1][0] = "/repo/src/auth/out";
	x->fs.links[1][1] = "/etc";
	x->fs.links[2][0] = "/repo/docs/to-auth";
	x->fs.links[2][1] = "/repo/src/auth";
	x->fs.links[3][0] = "/repo/src/auth/vend";
	x->fs.links[3][1] = "/repo/vendor";
	x->o.escalate_after = 0; /* a table of refusals is not a run the person should see */
	select_int1(x);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *input = t_sprintf("{\"file_path\":\"%s\",\"content\":\"x\"}", cases[i].path);
		roz_output_kind got = pre_in(x, cases[i].cwd, "Write", input);

		if (got != cases[i].want)
			fail_msg("%s from %s: got %d, want %d (%s)", cases[i].path, cases[i].cwd, got,
				 cases[i].want, x->r.denial.message ? x->r.denial.message : "");
		free(input);
	}
	/* the file system ignores case: the same path is owned */
	x->w.fold_case = true;
	assert_int_equal(write_to(x, "/repo/SRC/Auth/a.ts"), ROZ_OUTPUT_ALLOW);
}

static void orchestration_is_written_through_roz_only(void **state)
{
	world *x = *state;

	select_int1(x);
	x->intents.items[0].scope[0][0] = '*'; /* a scope of "*rc/auth" and more: still not .orchestration */
	write_to(x, "/repo/.orchestration/active_intents.yaml");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_ORCHESTRATION);
	bash(x, "echo x >> .orchestration/CLAUDE.md");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_ORCHESTRATION);
}

/* Another governed repository: a worktree of this one under /work/wt-b, and one in a temporary directory. */
static int fake_elsewhere(void *ud, const char *abs, const char *root, char **other)
{
	static const char *const roots[] = {"/work/wt-b", "/tmp/other"};

	(void)ud;
	*other = NULL;
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
		if (roz_path_under(abs, roots[i]) && strcmp(root, roots[i]) != 0)
			return (*other = roz_strdup(roots[i])) ? ROZ_OK : ROZ_ENOMEM;
	return ROZ_OK;
}

static void another_governed_repository_is_refused_wherever_it_lies(void **state)
{
	world *x = *state;

	x->w.governed_elsewhere = fake_elsewhere;
	select_int1(x);
	/* another worktree of this repository: its intents govern it, not this session's */
	write_to(x, "/work/wt-b/src/auth/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_OUTSIDE_REPOSITORY);
	assert_non_null(strstr(x->r.denial.message, "another governed repository (/work/wt-b)"));
	bash(x, "echo hi > /work/wt-b/.orchestration/active_intents.yaml");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_OUTSIDE_REPOSITORY);
	/* a temporary directory is free, but not a governed repository in it */
	write_to(x, "/tmp/other/src/x.c");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_OUTSIDE_REPOSITORY);
	assert_int_equal(write_to(x, "/tmp/scratch.txt"), ROZ_OUTPUT_ALLOW);
	/* elsewhere outside any governed repository: asked, as before */
	assert_int_equal(write_to(x, "/home/u/notes.txt"), ROZ_OUTPUT_ASK);
	/* this repository's own files are judged by its intents */
	assert_int_equal(write_to(x, "/repo/src/auth/a.ts"), ROZ_OUTPUT_ALLOW);
}

static void a_nested_repositorys_orchestration_is_protected_too(void **state)
{
	world *x = *state;

	select_int1(x);
	/* a submodule inside the scope: its files are the intent's, its .orchestration/ is not */
	assert_int_equal(write_to(x, "/repo/src/auth/sub/x.ts"), ROZ_OUTPUT_ALLOW);
	write_to(x, "/repo/src/auth/sub/.orchestration/agent_trace.jsonl");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_ORCHESTRATION);
	bash(x, "echo x > src/auth/sub/.orchestration/active_intents.yaml");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_ORCHESTRATION);
	/* a name that only starts like it is an ordinary directory */
	assert_int_equal(write_to(x, "/repo/src/auth/.orchestrations/x.ts"), ROZ_OUTPUT_ALLOW);
}

static void bash_targets_are_judged_and_unknown_ones_asked(void **state)
{
	world *x = *state;

	select_int1(x);
	assert_int_equal(bash(x, "echo ok > src/auth/a.ts && cp src/auth/a.ts src/auth/b.ts"),
			 ROZ_OUTPUT_ALLOW);
	bash(x, "echo ok > src/billing/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
	bash(x, "sed -i s/a/b/ src/auth/a.ts README.md");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
	assert_non_null(strstr(x->r.denial.message, "README.md"));
	bash(x, "echo ok > $TARGET");
	expect_code(x, ROZ_OUTPUT_ASK, ROZ_DENIAL_TARGET_UNKNOWN);
	/* what a build writes is not visible: it runs under the intent */
	assert_int_equal(bash(x, "make -j4"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(bash(x, "echo ok > /dev/null"), ROZ_OUTPUT_ALLOW);
}

/* ---- the stale-file lock --------------------------------------------------------- */

static void a_file_changed_since_it_was_read_is_stale(void **state)
{
	world *x = *state;

	select_int1(x);
	set_file(x, "/repo/src/auth/a.ts", "v1");
	post(x, "Read", "{\"file_path\":\"/repo/src/auth/a.ts\"}");
	assert_int_equal(pre(x, "Edit", "{\"file_path\":\"/repo/src/auth/a.ts\"}"), ROZ_OUTPUT_ALLOW);
	/* someone else writes it */
	set_file(x, "/repo/src/auth/a.ts", "v2 from another session");
	pre(x, "Edit", "{\"file_path\":\"/repo/src/auth/a.ts\"}");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_STALE_FILE);
	assert_non_null(strstr(x->r.denial.message, "Read it again"));
	assert_non_null(strstr(x->r.denial.details, "\"disk_sha256\":"));
	/* through a relative path and a doubled slash: the same file */
	pre_in(x, "/repo/src", "Write", "{\"file_path\":\"auth//a.ts\"}");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_STALE_FILE);
	/* read again: fine */
	post(x, "Read", "{\"file_path\":\"/repo/src/auth/a.ts\"}");
	assert_int_equal(pre(x, "Edit", "{\"file_path\":\"/repo/src/auth/a.ts\"}"), ROZ_OUTPUT_ALLOW);
	/* its own write is what it saw */
	set_file(x, "/repo/src/auth/a.ts", "v3 mine");
	post(x, "Edit", "{\"file_path\":\"/repo/src/auth/a.ts\"}");
	assert_int_equal(pre(x, "Edit", "{\"file_path\":\"/repo/src/auth/a.ts\"}"), ROZ_OUTPUT_ALLOW);
	/* a new file, and one never read, are fine */
	assert_int_equal(write_to(x, "/repo/src/auth/new.ts"), ROZ_OUTPUT_ALLOW);
	set_file(x, "/repo/src/auth/other.ts", "never read");
	assert_int_equal(write_to(x, "/repo/src/auth/other.ts"), ROZ_OUTPUT_ALLOW);
	/* deleted since it was read: writing it anew is no overwrite */
	x->fs.files[0][1] = "v3 mine";
	post(x, "Read", "{\"file_path\":\"/repo/src/auth/a.ts\"}");
	assert_non_null(roz_session_gov_file(&x->g, "/repo/src/auth/a.ts"));
}

/* What a Bash line visibly writes is held to the same lock as a file tool's write. */
static void a_bash_write_over_a_changed_file_is_stale(void **state)
{
	static const char *const lines[] = {
		"sed -i s/a/b/ src/auth/a.ts", "cat > src/auth/a.ts", "cp /tmp/x src/auth/a.ts",
		"echo x | tee src/auth/a.ts", "echo more >> src/auth/a.ts",
	};
	world *x = *state;
	x->o.escalate_after = 0; /* a table of refusals is not a run the person should see */
	select_int1(x);
	set_file(x, "/repo/src/auth/a.ts", "v1");
	post(x, "Read", "{\"file_path\":\"/repo/src/auth/a.ts\"}");
	assert_int_equal(bash(x, "sed -i s/a/b/ src/auth/a.ts"), ROZ_OUTPUT_ALLOW);
	set_file(x, "/repo/src/auth/a.ts", "v2 from a person");
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		bash(x, lines[i]);
		expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_STALE_FILE);
	}
}

/* ---- escalation ------------------------------------------------------------------ */

static void after_the_limit_the_person_decides(void **state)
{
	world *x = *state;

	select_int1(x);
	for (int i = 1; i <= 3; i++) {
		write_to(x, "/repo/src/billing/x.ts");
		expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
		assert_false(x->r.escalated);
		assert_int_equal(x->g.denials, (unsigned)i);
	}
	write_to(x, "/repo/src/billing/x.ts");
	expect_code(x, ROZ_OUTPUT_ASK, ROZ_DENIAL_SCOPE_VIOLATION);
	assert_true(x->r.escalated);
	assert_int_equal(x->g.escalations, 1);
	assert_non_null(strstr(x->r.denial.message, "refusal 4 in a row: the person decides"));
	assert_string_equal(x->g.last_code, "SCOPE_VIOLATION");
	/* a change that passes ends the run */
	assert_int_equal(write_to(x, "/repo/src/auth/x.ts"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(x->g.denials, 0);
	write_to(x, "/repo/src/billing/x.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
	/* 0 turns it off */
	x->o.escalate_after = 0;
	for (int i = 0; i < 6; i++)
		write_to(x, "/repo/src/billing/x.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION);
}

/* ---- destructive commands and broken input ------------------------------------------ */

static void destructive_commands_ask_governed_or_not(void **state)
{
	world *x = *state;

	select_int1(x);
	bash(x, "rm -rf src/auth");
	expect_code(x, ROZ_OUTPUT_ASK, ROZ_DENIAL_DESTRUCTIVE_BLOCKED);
	assert_non_null(strstr(x->r.denial.details, "\"rule\":"));
	x->w.governed = false;
	bash(x, "git push --force origin main");
	expect_code(x, ROZ_OUTPUT_ASK, ROZ_DENIAL_DESTRUCTIVE_BLOCKED);
	assert_int_equal(bash(x, "git push origin main"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(write_to(x, "/repo/src/billing/x.ts"), ROZ_OUTPUT_ALLOW);
	/* turned off */
	x->o.destructive = false;
	assert_int_equal(bash(x, "rm -rf src/auth"), ROZ_OUTPUT_ALLOW);
}

static void a_broken_intents_file_refuses_changes_naming_the_problem(void **state)
{
	world *x = *state;

	select_int1(x);
	x->w.intents = NULL;
	x->w.intents_problem = ".orchestration/active_intents.yaml:7:3: unknown status 'DONE'";
	write_to(x, "/repo/src/auth/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENTS_UNREADABLE);
	assert_non_null(strstr(x->r.denial.message, "active_intents.yaml:7:3: unknown status 'DONE'"));
	bash(x, "touch src/auth/a.ts");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENTS_UNREADABLE);
}

static void a_file_tool_without_a_path_is_refused(void **state)
{
	world *x = *state;

	select_int1(x);
	pre(x, "Write", "{\"content\":\"x\"}");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_TARGET_UNKNOWN);
	pre(x, "Edit", "{\"file_path\":7}");
	expect_code(x, ROZ_OUTPUT_DENY, ROZ_DENIAL_TARGET_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(a_change_before_selecting_is_refused_with_the_choices),
		T(reading_is_never_refused),
		T(selecting_an_intent_loads_it),
		T(an_unknown_or_inactive_intent_is_refused_and_changes_nothing),
		T(a_selection_and_a_change_on_one_line),
		T(an_intent_that_stops_being_in_progress_is_no_longer_selected),
		T(writes_outside_the_scope_are_refused_naming_path_and_scope),
		T(path_tricks_are_judged_where_the_write_lands),
		T(orchestration_is_written_through_roz_only),
		T(another_governed_repository_is_refused_wherever_it_lies),
		T(a_nested_repositorys_orchestration_is_protected_too),
		T(bash_targets_are_judged_and_unknown_ones_asked),
		T(a_file_changed_since_it_was_read_is_stale),
		T(a_bash_write_over_a_changed_file_is_stale),
		T(after_the_limit_the_person_decides),
		T(destructive_commands_ask_governed_or_not),
		T(a_broken_intents_file_refuses_changes_naming_the_problem),
		T(a_file_tool_without_a_path_is_refused),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
