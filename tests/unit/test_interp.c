/*
 * test_interp.c - `roz decide` handed to a script interpreter: every
 * interpreter and option spelling, programs fed on standard input, and
 * the lines that merely mention the words. The tables are run twice: on
 * one command at a time as the shell reader gives them, and through a
 * main-agent PreToolUse, whose refusal is what a user sees.
 */
#include "hookenv.h"

#include "roz/interp.h"
#include "roz/json.h"
#include "roz/shell.h"

#include <stdlib.h>
#include <string.h>

#define SID "sess-d"

static char *quoted(const char *s)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_json_add_string(&b, s);
	return roz_buf_detach(&b, NULL);
}


/* Does the hook refuse this main-agent line as running `roz decide`? (no gates are configured) */
static bool refused_as_decide(const char *command)
{
	t_hooks h;
	t_out out;
	char *q;
	bool refused;

	th_init(&h);
	q = quoted(command);
	th_run(&h, ROZ_HOOK_PRE_TOOL_USE, &out,
	       "{\"session_id\":\"" SID "\",\"cwd\":\"/w\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":%s}}",
	       q);
	refused = out.kind == ROZ_OUTPUT_DENY && out.text && strstr(out.text, "only the roz:roz reviewer");
	th_out_dispose(&out);
	roz_free(q);
	th_dispose(&h);
	return refused;
}

/* Does any simple command of the line, as the shell reader reports it, hand `roz decide` to an interpreter? */
static bool interp_sees(const char *line)
{
	roz_shell_result sh;
	bool seen = false;

	assert_int_equal(roz_shell_parse(line, strlen(line), &sh), ROZ_OK);
	for (size_t i = 0; i < sh.ncmds && !seen; i++)
		seen = roz_interp_runs_decide(&sh.cmds[i], line);
	roz_shell_result_dispose(&sh);
	return seen;
}

static void interpreters_running_roz_decide_are_seen(void **state)
{
	static const char *const lines[] = {
		/* the issue's own spellings */
		"python3 -c 'import os; os.system(\"roz decide s1 COMPLETE ok --override\")'",
		"env -u CLAUDE_CODE_SESSION_ID perl -e 'system(\"roz\", \"decide\", \"s1\", \"COMPLETE\", \"ok\")'",
		/* every interpreter and option spelling */
		"python -c 'import subprocess; subprocess.run([\"roz\",\"decide\",\"s1\",\"COMPLETE\",\"x\"])'",
		"python3.12 -Ic 'import os; os.system(\"roz decide s1 COMPLETE x\")'",
		"python3 -W ignore -c 'import os; os.system(\"roz decide s1 COMPLETE x\")'",
		"/usr/bin/python3 -c\"import os; os.system('ROZ DECIDE s1 complete x'.lower())\"",
		"pypy3 -c 'import os; os.system(\"roz decide s1 COMPLETE x\")'",
		"perl -E 'system qq(roz decide s1 COMPLETE x)'",
		"perl -le 'print `roz decide s1 COMPLETE x`'",
		"ruby -e 'system(\"roz decide s1 COMPLETE x\")'",
		"ruby -rjson -e '`roz decide s1 COMPLETE x`'",
		"node -e 'require(\"child_process\").execSync(\"roz decide s1 COMPLETE x\")'",
		"node --eval 'require(\"child_process\").execSync(\"roz decide s1 COMPLETE x\")'",
		"node --eval='require(\"child_process\").execSync(\"roz decide s1 COMPLETE x\")'",
		"nodejs -p 'require(\"child_process\").execSync(\"roz decide s1 COMPLETE x\")'",
		"bun -e 'Bun.spawnSync([\"roz\",\"decide\",\"s1\",\"COMPLETE\",\"x\"])'",
		"deno eval 'new Deno.Command(\"roz\",{args:[\"decide\",\"s1\",\"COMPLETE\",\"x\"]}).outputSync()'",
		"php -r 'system(\"roz decide s1 COMPLETE x\");'",
		"php8.2 -r 'passthru(\"roz decide s1 COMPLETE x\");'",
		"lua -e 'os.execute(\"roz decide s1 COMPLETE x\")'",
		"luajit -e 'os.execute(\"roz decide s1 COMPLETE x\")'",
		"Rscript -e 'system(\"roz decide s1 COMPLETE x\")'",
		"awk 'BEGIN { system(\"roz decide s1 COMPLETE x\") }'",
		"gawk 'BEGIN { \"roz decide s1 COMPLETE x\" | getline r }'",
		"echo | mawk '{ print | \"roz decide s1 COMPLETE x\" }'",
		"expect -c 'spawn roz decide s1 COMPLETE x; expect eof'",
		/* the program's words handed over as arguments */
		"python3 -c 'import os,sys; os.execvp(sys.argv[1], sys.argv[1:])' roz decide s1 COMPLETE x",
		/* programs fed on standard input */
		"python3 <<'EOF'\nimport os\nos.system('roz decide s1 COMPLETE x')\nEOF",
		"python3 - <<< 'import os; os.system(\"roz decide s1 COMPLETE x\")'",
		"echo 'system(\"roz decide s1 COMPLETE x\")' | perl",
		"printf 'os.execute(\"roz decide s1 COMPLETE x\")' | lua -",
		"tclsh <<'EOF'\nexec roz decide s1 COMPLETE x\nEOF",
		/* behind wrappers and inside substitutions */
		"cd /w && timeout 5 python3 -c 'import os; os.system(\"roz decide s1 COMPLETE x\")'",
		"x=$(python3 -c 'import os; os.system(\"roz decide s1 COMPLETE x\")')",
		"bash -c \"perl -e 'system(qq(roz decide s1 COMPLETE x))'\"",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!refused_as_decide(lines[i]))
			fail_msg("not seen as running roz decide: %s", lines[i]);
		else if (!interp_sees(lines[i]))
			fail_msg("no command of the line seen as running roz decide: %s", lines[i]);
}

static void ordinary_interpreter_lines_are_not(void **state)
{
	static const char *const lines[] = {
		"python3 -c 'print(1)'",
		"python3 manage.py migrate",
		"python3 -m pytest -k decide",
		"python3 scripts/roz_decide_report.py",
		"perl -ne 'print if /decide/' notes.txt",
		"node -e 'console.log(process.version)'",
		"awk '/roz decide/ { n++ } END { print n }' history.log",
		"awk -F: '{ print $1 }' /etc/passwd",
		"grep -r 'roz decide' docs/",
		"echo 'roz decide' > note.txt",
		"ruby script.rb roz decide",
		"lua -e 'print(\"roz\")'",
		"php -r 'echo PHP_VERSION;'",
		"cat <<'EOF' > notes.md\nroz decide is run by the reviewer\nEOF",
		"python3 build.py <<< 'roz decide'",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (refused_as_decide(lines[i]) || interp_sees(lines[i]))
			fail_msg("seen as running roz decide: %s", lines[i]);
}

static void interp_judges_one_command(void **state)
{
	char *words[] = {"python3", "-c", "import os; os.system('roz decide s COMPLETE x')"};
	roz_shell_cmd cmd = {.words = words, .nwords = 3};
	char *plain[] = {"python3"};
	roz_shell_cmd bare = {.words = plain, .nwords = 1};

	(void)state;
	assert_true(roz_interp_runs_decide(&cmd, NULL));
	assert_false(roz_interp_runs_decide(&bare, NULL));
	assert_true(roz_interp_runs_decide(&bare, "python3 <<< 'roz decide s COMPLETE x'"));
	assert_false(roz_interp_runs_decide(NULL, "roz decide"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interpreters_running_roz_decide_are_seen),
		cmocka_unit_test(ordinary_interpreter_lines_are_not),
		cmocka_unit_test(interp_judges_one_command),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
