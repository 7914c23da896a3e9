/*
 * test_shell_git.c - git's and gh's own ways of running or renaming a
 * command (src/core/shell_git.c): configuration values git hands to a
 * shell, options whose value git runs, other spellings of a push, aliases
 * and configuration changed on the line, gh's repository flag, api calls
 * and aliases. Each class has spellings that must be seen and look-alikes
 * that must not be.
 */
#include "gates.h"

#include "roz/gate.h"
#include "roz/glob.h"
#include "roz/shell.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PUSH "Bash:git push*"
#define MERGE "Bash:gh pr merge*"
#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

static const char alias_opaque[] = "a git subcommand roz does not know, which could be an alias";

/* ---- helpers --------------------------------------------------------------- */

struct seen {
	const char *text; /* the Bash line */
	const char *line; /* a command it must report, fully known */
};

/* Every line reports its command, known whole. */
static void check_seen(const struct seen *cases, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		roz_shell_result r = t_shell_parse_ok(cases[i].text);
		const roz_shell_cmd *c = t_shell_find_line(&r, cases[i].line);

		if (!c || c->known != strlen(c->line)) {
			print_error("NOT seen: `%s`\n  in %s\n", cases[i].line, cases[i].text);
			for (size_t k = 0; k < r.ncmds; k++)
				print_error("    got `%s` (known %zu)\n", r.cmds[k].line, r.cmds[k].known);
			bad++;
		}
		roz_shell_result_dispose(&r);
	}
	assert_int_equal(bad, 0);
}

struct gate_case {
	const char *pattern;
	const char *line;
};

static void check_held(const struct gate_case *cases, size_t n, bool want)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		if (t_shell_held(cases[i].line, cases[i].pattern) != want) {
			print_error("%s: %s\n  %s\n", want ? "NOT held" : "wrongly held", cases[i].pattern,
				    cases[i].line);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* The command `line` of `text`: known up to `known`, its why containing `why` (or NULL). */
static void expect_known(const char *text, const char *line, size_t known, const char *why)
{
	roz_shell_result r = t_shell_parse_ok(text);
	const roz_shell_cmd *c = t_shell_find_line(&r, line);

	if (!c)
		fail_msg("%s: no command `%s`", text, line);
	if (c->known != known)
		fail_msg("%s: `%s` known up to %zu, want %zu", text, line, c->known, known);
	if (why && (!c->why || !strstr(c->why, why)))
		fail_msg("%s: `%s` why `%s`, want `%s`", text, line, c->why ? c->why : "(none)", why);
	roz_shell_result_dispose(&r);
}

/* The command `line` of `text` says what it runs unseen (opaque containing `what`), or nothing (NULL). */
static void expect_opaque(const char *text, const char *line, const char *what)
{
	roz_shell_result r = t_shell_parse_ok(text);
	const roz_shell_cmd *c = t_shell_find_line(&r, line);

	if (!c)
		fail_msg("%s: no command `%s`", text, line);
	if (what && (!c->opaque || !strstr(c->opaque, what)))
		fail_msg("%s: `%s` opaque `%s`, want `%s`", text, line, c->opaque ? c->opaque : "(none)",
			 what);
	if (!what && c->opaque)
		fail_msg("%s: `%s` opaque `%s`, want none", text, line, c->opaque);
	roz_shell_result_dispose(&r);
}

/* The line reports no command `line`. */
static void expect_absent(const char *text, const char *line)
{
	roz_shell_result r = t_shell_parse_ok(text);

	if (t_shell_find_line(&r, line))
		fail_msg("%s: reports `%s`", text, line);
	roz_shell_result_dispose(&r);
}


/* ---- 1. configuration values git runs through a shell ------------------------- */

static const struct seen config_runs[] = {
	{"git -c core.fsmonitor='git push' status", "git push"},
	{"git -c core.sshCommand='git push origin' fetch", "git push origin"},
	{"git -c core.editor='git push' commit", "git push"},
	{"git -c Core.Editor='git push' commit", "git push"},
	{"git -c sequence.editor='git push' rebase -i main", "git push"},
	{"git -c core.pager='git push' log", "git push"},
	{"git -c pager.log='git push' log", "git push"},
	{"git -c diff.external='git push' diff", "git push"},
	{"git -c diff.x.command='git push' diff", "git push"},
	{"git -c diff.x.textconv='git push' log -p", "git push"},
	{"git -c merge.m.driver='git push' merge topic", "git push"},
	{"git -c filter.f.clean='git push' add .", "git push"},
	{"git -c filter.f.smudge='git push' checkout .", "git push"},
	{"git -c filter.f.process='git push' checkout .", "git push"},
	{"git -c 'credential.helper=!git push' fetch", "git push"},
	{"git -c credential.https://h.helper='!git push' fetch", "git push"},
	{"git -c gpg.program='git push' commit -S", "git push"},
	{"git -c 'alias.x=!git push' x", "git push"},
	{"git -c core.editor='sh -c \"git push\"' commit", "git push"},
	{"git -c core.editor='gh pr merge 3' commit", "gh pr merge 3"},
	{"git clone -c core.sshCommand='git push' https://h/r", "git push"},
	{"git config core.pager 'git push'", "git push"},
	{"env GIT_EDITOR='git push' git commit", "git push"},
	{"export GIT_SSH_COMMAND='git push'; git fetch", "git push"},
	{"sudo env GIT_PAGER='git push' git log", "git push"},
};

static const struct gate_case config_lookalikes[] = {
	{PUSH, "git -c core.editor=vim commit"},
	{PUSH, "git -c color.ui=always log"},
	{PUSH, "git -c core.pager=cat log"},
	{PUSH, "git -c pager.log=false log"},
	{PUSH, "git -c core.fsmonitor=true status"},
	{PUSH, "git -c credential.helper=store fetch"},
	{PUSH, "git -c user.name=push commit -m push"},
	{PUSH, "export GIT_PAGER=cat; git log"},
};

static void test_config_values_run(void **state)
{
	(void)state;
	check_seen(config_runs, NCASES(config_runs));
	check_held(config_lookalikes, NCASES(config_lookalikes), false);
	/* the editor is a command of its own, and nothing else appears */
	expect_known("git -c core.editor=vim commit", "vim", 3, NULL);
	expect_opaque("git -c core.editor=vim commit", "git commit", NULL);
	expect_opaque("git -c color.ui=always log", "git log", NULL);
	expect_absent("git -c credential.helper=store fetch", "store");
	/* a value from the environment: only `git ` is known, and what runs is not shown */
	expect_known("git --config-env=core.editor=ED commit", "git commit", 4, "environment");
	expect_opaque("git --config-env=core.editor=ED commit", "git commit", "environment");
	expect_known("git --config-env core.pager=PG log", "git log", 4, "environment");
	expect_known("git --config-env=alias.p=CMD p", "git p", 4, "alias");
	expect_known("git --config-env=color.ui=C log", "git log", 7, NULL);
	/* an assignment before git whose value the line does not show */
	expect_opaque("GIT_EDITOR=x git commit", "git commit", "variable");
	expect_opaque("GIT_SSH_COMMAND=x git fetch", "git fetch", "variable");
	expect_opaque("GIT_TRACE=1 git fetch", "git fetch", NULL);
	/* hooks from elsewhere */
	expect_opaque("git -c core.hooksPath=/tmp/h commit", "git commit", "hooks");
	expect_opaque("git clone --template=/tmp/t https://h/r", "git clone --template=/tmp/t https://h/r",
		      "template");
	/* through the gate */
	HOLDS(PUSH, "git -c core.editor='git push' commit");
	HOLDS(MERGE, "git -c core.sshCommand='gh pr merge 1' fetch");
	PASSES(PUSH, "git -c core.editor=vim commit");
	PASSES(PUSH, "git -c color.ui=always log");
}

/* ---- 2. options whose value git runs ---------------------------------------------- */

static const struct seen option_runs[] = {
	{"git fetch --upload-pack='git push' origin", "git push"},
	{"git fetch --upload-pack 'git push' origin", "git push"},
	{"git pull --upload-pack='git push' origin", "git push"},
	{"git clone -u 'git push' /r d", "git push"},
	{"git clone --upload-pack='git push' /r d", "git push"},
	{"git clone --upload='git push' /r d", "git push"},
	{"git ls-remote --upload-pack='git push' /r", "git push"},
	{"git push --receive-pack='gh pr merge 1' /r", "gh pr merge 1"},
	{"git push --exec='gh pr merge 1' /r", "gh pr merge 1"},
	{"git archive --exec='git push' --remote=/r HEAD", "git push"},
	{"git clone 'ext::sh -c git% push' d", "git push"},
	{"git fetch 'ext::git% push% origin'", "git push origin"},
	{"git -c 'url.ext::git% push.insteadOf=https://h/' clone https://h/r", "git push"},
	{"git rebase --exec 'git push' main", "git push"},
	{"git rebase --exec='git push' main", "git push"},
	{"git rebase -x 'git push' main", "git push"},
	{"git rebase -i -x'git push' main", "git push"},
	{"git rebase main -ix 'git push'", "git push"},
	{"git submodule foreach 'git push'", "git push"},
	{"git submodule foreach --recursive git push origin", "git push origin"},
	{"git submodule --quiet foreach 'cd x && git push'", "git push"},
	{"git bisect run git push", "git push"},
	{"git bisect run sh -c 'git push'", "git push"},
	{"git difftool -x 'git push'", "git push"},
	{"git difftool --extcmd='git push' HEAD", "git push"},
	{"git filter-branch --tree-filter 'git push' HEAD", "git push"},
	{"git filter-branch --msg-filter='git push' HEAD", "git push"},
	{"git filter-branch --env-filter 'git push' -- --all", "git push"},
	{"git filter-branch --index-filter 'git push' --commit-filter 'x' HEAD", "git push"},
	{"git grep -O'git push' TODO", "git push"},
	{"git send-email --sendmail-cmd='git push' x.patch", "git push"},
};

static const struct gate_case option_lookalikes[] = {
	{PUSH, "git bisect run make test"},
	{PUSH, "git rebase --exec 'make test' main"},
	{PUSH, "git submodule foreach git status"},
	{PUSH, "git fetch -u origin main"},
	{PUSH, "git log --exec=push"},
	{PUSH, "git grep -O push"},
	{PUSH, "git clone https://h/push.git"},
};

static void test_options_run(void **state)
{
	(void)state;
	check_seen(option_runs, NCASES(option_runs));
	check_held(option_lookalikes, NCASES(option_lookalikes), false);
	/* what they run is reported, and only that */
	expect_known("git bisect run make test", "make test", 9, NULL);
	expect_known("git rebase --exec 'make test' main", "make test", 9, NULL);
	expect_known("git submodule foreach git status", "git status", 10, NULL);
	expect_absent("git fetch -u origin main", "origin");
	expect_absent("git grep -O push", "push");
	/* one level down */
	{
		roz_shell_result r = t_shell_parse_ok("git bisect run git push");

		assert_int_equal(r.ncmds, 2);
		assert_int_equal(r.cmds[1].depth, 1);
		roz_shell_result_dispose(&r);
	}
	HOLDS(PUSH, "git rebase -x 'git push' main");
	HOLDS(PUSH, "git clone 'ext::sh -c git% push' d");
	PASSES(PUSH, "git bisect run make test");
	PASSES(PUSH, "git submodule foreach git status");
}

/* ---- 3. other spellings of a push ------------------------------------------------- */

static const struct seen push_spellings[] = {
	{"git send-pack host:/r main", "git push host:/r main"},
	{"/usr/lib/git-core/git-send-pack host:/r", "git push host:/r"},
	{"git subtree push --prefix=lib origin main", "git push --prefix=lib origin main"},
	{"git subtree -P lib push origin main", "git push origin main"},
	{"git http-push https://h/r main", "git push https://h/r main"},
	{"git --no-literal-pathspecs push", "git push"},
	{"git --shallow-file=x --no-lazy-fetch push", "git push"},
	{"git --frobnicate --not-yet-invented=1 push origin", "git push origin"},
};

static const struct gate_case push_lookalikes[] = {
	{PUSH, "git stash push"},
	{PUSH, "docker push img"},
	{PUSH, "helm push chart.tgz oci://r"},
	{PUSH, "git log --grep=push"},
	{PUSH, "git --help push"},
	{PUSH, "git subtree pull --prefix=lib origin main"},
	{PUSH, "git subtree split -P push"},
};

static void test_push_spellings(void **state)
{
	(void)state;
	check_seen(push_spellings, NCASES(push_spellings));
	check_held(push_lookalikes, NCASES(push_lookalikes), false);
	HOLDS(PUSH, "git send-pack host:/r main");
	HOLDS(PUSH, "git subtree push -P lib origin main");
	PASSES(PUSH, "git stash push");
	PASSES(PUSH, "helm push chart.tgz oci://r");
}

/* ---- 4. aliases, and configuration changed on the line ---------------------------- */

static void test_unknown_subcommands(void **state)
{
	(void)state;
	expect_opaque("git p", "git p", alias_opaque);
	expect_opaque("git -C /r pu origin", "git pu origin", alias_opaque);
	expect_opaque("git -C /r pu origin", "git -C /r pu origin", alias_opaque);
	expect_opaque("git lfs push", "git lfs push", alias_opaque);
	/* git's own commands cannot be renamed */
	expect_opaque("git status", "git status", NULL);
	expect_opaque("git stash push", "git stash push", NULL);
	expect_opaque("git -C /r log", "git log", NULL);
	expect_opaque("git send-pack h:/r", "git send-pack h:/r", NULL);
	expect_opaque("git \"$SUB\"", "git $SUB", NULL);
}

static const struct gate_case config_changes[] = {
	{PUSH, "git config alias.p push && git p"},
	{PUSH, "git config --global alias.p push; git p origin"},
	{PUSH, "git config set alias.p push; git p"},
	{PUSH, "git config --file .git/config alias.p push; git p"},
	{PUSH, "echo '[alias] p = push' >> .git/config && git p"},
	{PUSH, "printf '[alias]\\np=push\\n' > ~/.gitconfig; git p"},
	{PUSH, "cat x > ~/.config/git/config && git p"},
	{PUSH, "HOME=/tmp/h git status && git p"},
	{PUSH, "export XDG_CONFIG_HOME=/x; git status; git p"},
	{PUSH, "git -c include.path=/tmp/c status; git p"},
	{PUSH, "git -c include.path=/tmp/c p"},
};

static void test_config_changed_on_the_line(void **state)
{
	(void)state;
	check_held(config_changes, NCASES(config_changes), true);
	expect_known("git config alias.p push && git p", "git p", 4, "configuration changed");
	/* only an alias or an include can rename a later subcommand */
	expect_known("git config user.name x && git commit -m y", "git commit -m y", 15, NULL);
	expect_known("git config include.path /tmp/c && git commit -m y", "git commit -m y", 4,
		     "configuration changed");
	expect_known("echo x >> .git/config; git log", "git log", 4, "configuration changed");
	expect_opaque("echo x >> .git/config; git log", "git log", "configuration changed");
	expect_known("HOME=/tmp/h git status && git log", "git log", 4, "configuration changed");
	/* the first git run is not after the change */
	expect_known("HOME=/tmp/h git status && git log", "git status", 10, NULL);
	expect_known("git -C /r config alias.p push", "git config alias.p push", 23, NULL);
	/* reads change nothing */
	expect_known("git config --get alias.p && git status", "git status", 10, NULL);
	expect_known("git config -l; git status", "git status", 10, NULL);
	expect_known("git config get alias.p; git status", "git status", 10, NULL);
	expect_known("git config user.name; git status", "git status", 10, NULL);
	expect_known("GIT_DIR=/x git status", "git status", 10, NULL);
	expect_opaque("GIT_DIR=/x git status", "git status", NULL);
	expect_known("echo x > notes/config; git status", "git status", 10, NULL);
	HOLDS(PUSH, "git config alias.p push && git p");
	PASSES(PUSH, "git config --get alias.p && git status");
	PASSES(PUSH, "git config -l && git status");
}

/* ---- 5. gh ---------------------------------------------------------------------- */

static const struct seen gh_seen[] = {
	{"gh pr -R o/r merge 1", "gh pr merge 1"},
	{"gh -R o/r pr merge 1", "gh pr merge 1"},
	{"gh pr --repo=o/r merge 1", "gh pr merge 1"},
	{"gh pr --repo o/r merge 1", "gh pr merge 1"},
	{"gh pr -Ro/r merge 1", "gh pr merge 1"},
	{"gh api -X PUT repos/o/r/pulls/7/merge", "gh pr merge 7"},
	{"gh api --method=PUT /repos/{owner}/{repo}/pulls/7/merge", "gh pr merge 7"},
	{"gh api --method PUT repos/o/r/pulls/7/merge", "gh pr merge 7"},
	{"gh api -XPUT repos/o/r/pulls/7/merge", "gh pr merge 7"},
	{"gh api -X=PUT repos/o/r/pulls/7/merge/", "gh pr merge 7"},
	{"gh api repos/o/r/pulls/7/merge -f merge_method=squash", "gh pr merge 7"},
	{"gh api -X PATCH repos/o/r/issues/5 -f state=closed", "gh issue close 5"},
	{"gh api graphql -f query='mutation { mergePullRequest(input: {}) { clientMutationId } }'",
	 "gh pr merge"},
	{"gh alias set --shell m 'gh pr merge 1'", "gh pr merge 1"},
	{"gh alias set m '!gh pr merge 1'", "gh pr merge 1"},
};

static const struct gate_case gh_lookalikes[] = {
	{MERGE, "gh api repos/o/r/pulls"},
	{MERGE, "gh api repos/o/r/pulls/7/merge"},
	{MERGE, "gh api -X GET repos/o/r/pulls/7/merge"},
	{MERGE, "gh pr view 1"},
	{MERGE, "gh pr list --repo o/r"},
	{MERGE, "gh api -X PATCH repos/o/r/issues/5 -f state=closed"},
	{MERGE, "gh api -X POST repos/o/r/pulls/7/comments -f body=merge"},
};

static void test_gh(void **state)
{
	(void)state;
	check_seen(gh_seen, NCASES(gh_seen));
	check_held(gh_lookalikes, NCASES(gh_lookalikes), false);
	expect_known("gh api -XPUT repos/o/r/pulls/$N/merge", "gh pr merge $N", 11, NULL);
	expect_absent("gh api -X PATCH repos/o/r/issues/5 -f title=closed", "gh issue close 5");
	/* an alias defined on the line makes later gh commands unknown past `gh ` */
	expect_known("gh alias set pm 'pr merge' && gh pm 1", "gh pm 1", 3, "gh alias");
	expect_known("gh alias set pm 'pr merge' && gh pr view 1", "gh pr view 1", 3, "gh alias");
	expect_known("gh pr view 1 && gh alias set pm 'pr merge'", "gh pr view 1", 12, NULL);
	/* commands gh does not have */
	expect_opaque("gh pm 1", "gh pm 1", "alias or extension");
	expect_opaque("gh -R o/r pm 1", "gh pm 1", "alias or extension");
	expect_opaque("gh pr view 1", "gh pr view 1", NULL);
	expect_opaque("gh api -X POST \"$URL\"", "gh api -X POST $URL", "endpoint");
	expect_opaque("gh api repos/o/r/pulls", "gh api repos/o/r/pulls", NULL);
	HOLDS(MERGE, "gh -R o/r pr merge 1");
	HOLDS(MERGE, "gh api -X PUT repos/o/r/pulls/7/merge");
	HOLDS(MERGE, "gh alias set pm 'pr merge' && gh pm 1");
	PASSES(MERGE, "gh pr list --repo o/r");
	PASSES(MERGE, "gh api repos/o/r/pulls");
}

/* ---- hostile input ----------------------------------------------------------------- */

static void test_deep_and_empty(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_shell_result r;
	static const char *const empty[] = {"git -c", "git -c alias.", "git -c =x p", "git config",
					    "gh", "gh api", "gh alias set", "git bisect run",
					    "git submodule foreach", "git clone ext::", "git clone 'ext::a%'",
					    "gh pr merge -R", "git rebase -x", "git --config-env",
					    "gh api -X", "gh api graphql -f query=@q.graphql"};

	(void)state;
	for (size_t i = 0; i < NCASES(empty); i++) {
		r = t_shell_parse_ok(empty[i]);
		roz_shell_result_dispose(&r);
	}
	for (int i = 0; i < 500; i++)
		roz_buf_adds(&b, "git submodule foreach ");
	roz_buf_adds(&b, "git push");
	assert_false(b.oom);
	r = t_shell_parse_ok(b.ptr);
	assert_true(r.flags & ROZ_SHELL_UNPARSED); /* nested too deep: asked about, not followed */
	roz_shell_result_dispose(&r);
	roz_buf_dispose(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_values_run),
		cmocka_unit_test(test_options_run),
		cmocka_unit_test(test_push_spellings),
		cmocka_unit_test(test_unknown_subcommands),
		cmocka_unit_test(test_config_changed_on_the_line),
		cmocka_unit_test(test_gh),
		cmocka_unit_test(test_deep_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
