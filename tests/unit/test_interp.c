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


/* ---- roz_interp_scan_cmd --------------------------------------------- */

/* The scan of the first command of `line` that runs an interpreter (or of the last command). */
static void scan_line(const char *line, roz_interp_scan *out)
{
	roz_shell_result sh;

	assert_int_equal(roz_shell_parse(line, strlen(line), &sh), ROZ_OK);
	assert_true(sh.ncmds > 0);
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sh.ncmds; i++) {
		roz_interp_scan_dispose(out);
		assert_int_equal(roz_interp_scan_cmd(&sh.cmds[i], line, out), ROZ_OK);
		if (out->interpreter)
			break;
	}
	roz_shell_result_dispose(&sh);
}

static bool has_line(const roz_interp_scan *s, const char *want)
{
	for (size_t i = 0; i < s->nlines; i++)
		if (strcmp(s->lines[i], want) == 0)
			return true;
	return false;
}

/* Does any listed line start with `prefix` (what a `Bash:git push*` gate would see)? */
static bool has_line_prefix(const roz_interp_scan *s, const char *prefix)
{
	for (size_t i = 0; i < s->nlines; i++)
		if (strncmp(s->lines[i], prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

typedef struct scan_case {
	const char *line;
	const char *want; /* a listed line, or NULL: none starting with `git push`/`gh pr merge` */
	bool dynamic;
} scan_case;

static void check_cases(const scan_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		roz_interp_scan s;

		scan_line(cases[i].line, &s);
		if (!s.interpreter)
			fail_msg("no interpreter seen: %s", cases[i].line);
		if (cases[i].want && !has_line(&s, cases[i].want))
			fail_msg("no line \"%s\" (%zu lines%s%s): %s", cases[i].want, s.nlines, s.nlines ? ", first " : "",
				 s.nlines ? s.lines[0] : "", cases[i].line);
		if (!cases[i].want && (has_line_prefix(&s, "git push") || has_line_prefix(&s, "gh pr merge")))
			fail_msg("a look-alike listed as run: %s", cases[i].line);
		if (s.dynamic != cases[i].dynamic)
			fail_msg("dynamic is %d: %s", s.dynamic, cases[i].line);
		roz_interp_scan_dispose(&s);
	}
}

static void scan_python(void **state)
{
	static const scan_case cases[] = {
		{"python3 -c 'import os; os.system(\"git push\")'", "git push", false},
		{"python3 -c 'import subprocess; subprocess.run([\"git\", \"push\"])'", "git push", false},
		{"python -c 'import subprocess as sp; sp.check_call([\"git\",\"push\"], cwd=\"/x\")'", "git push", false},
		{"python3.12 -c 'from subprocess import run; run(\"git push\", shell=True)'", "git push", false},
		{"python3 -c 'import os; os.execvp(\"git\", [\"git\", \"push\"])'", "git push", false},
		{"python3 -c 'import os; os.spawnlp(os.P_WAIT, \"git\", \"git\", \"push\")'", "git push", false},
		{"python3 -c 'import os; os.popen(\"gh pr merge 1\").read()'", "gh pr merge 1", false},
		{"python3 -c 'import pty; pty.spawn([\"git\", \"push\"])'", "git push", false},
		{"python3 -c 'import os; os.system(\"git \" \"push\")'", "git push", false},
		{"python3 -c 'import os; os.system(\"git \" + \"push\")'", "git push", false},
		{"python3 -c \"import os; os.system('git \\\\x70ush')\"", "git push", false},
		{"python3 -c 'import subprocess; subprocess.run([\"pytest\"])'", "pytest", false},
		{"python3 -c 'import subprocess; subprocess.run([\"git\", \"commit\", \"-m\", \"a b\"])'",
		 "git commit -m 'a b'", false},
		/* computed */
		{"python3 -c 'import os; c=\"git \"+\"push\"; os.system(c)'", NULL, true},
		{"python3 -c \"import os; os.system(f'git push {b}')\"", "git push", true},
		{"python3 -c 'import os; os.system(\"git push %s\" % b)'", "git push %s", true},
		{"python3 -c 'import os; f = os.system; f(\"x\")'", NULL, true},
		{"python3 -c 'exec(open(\"x\").read())'", NULL, true},
		{"python3 -c 'import os,sys; os.execvp(sys.argv[1], sys.argv[1:])' git push", NULL, true},
		/* look-alikes */
		{"python3 -c 'print(\"git push\")'", NULL, false},
		{"python3 -c 'import asyncio; asyncio.run(main())'", NULL, false},
		{"python3 -c 'import re; re.compile(p); x.run(\"git push\")'", NULL, false},
	};

	(void)state;
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void scan_javascript(void **state)
{
	static const scan_case cases[] = {
		{"node -e 'require(\"child_process\").execSync(\"git push\")'", "git push", false},
		{"node -e 'const {execSync} = require(\"child_process\"); execSync(\"git push\", {stdio: \"inherit\"})'",
		 "git push", false},
		{"nodejs -e 'const cp = require(\"node:child_process\"); cp.spawnSync(\"git\", [\"push\"])'", "git push", false},
		{"node --eval 'require(\"child_process\").execFileSync(\"gh\", [\"pr\", \"merge\", \"1\"])'", "gh pr merge 1",
		 false},
		{"deno eval 'new Deno.Command(\"git\", {args: [\"push\"]}).outputSync()'", "git push", false},
		{"deno eval 'Deno.run({cmd: [\"git\", \"push\"]})'", "git push", false},
		{"bun -e 'Bun.spawn([\"git\", \"push\"])'", "git push", false},
		{"bun -e 'await Bun.$`git push`'", "git push", false},
		{"bun -e 'import { $ } from \"bun\"; await $`gh pr merge 1`'", "gh pr merge 1", false},
		{"node -e 'require(\"child_process\").execSync(`git push ${b}`)'", "git push", true},
		{"node -e 'console.log(\"git push\")'", NULL, false},
		{"node -e 'const r = /x/; r.exec(\"git push\")'", NULL, false},
	};

	(void)state;
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void scan_ruby(void **state)
{
	static const scan_case cases[] = {
		{"ruby -e 'system(\"git push\")'", "git push", false},
		{"ruby -e 'system(\"git\", \"push\")'", "git push", false},
		{"ruby -e 'system \"git push\" if true'", "git push", false},
		{"ruby -e '`git push`'", "git push", false},
		{"ruby -e '%x(git push)'", "git push", false},
		{"ruby -e 'require \"open3\"; Open3.capture2(\"git\", \"push\")'", "git push", false},
		{"ruby -e 'IO.popen([\"gh\", \"pr\", \"merge\", \"1\"]).read'", "gh pr merge 1", false},
		{"ruby -e 'system(%w[git push])'", "git push", false},
		{"ruby -e 'system(\"git push #{b}\")'", "git push", true},
		{"ruby -e 'puts \"git push\"'", NULL, false},
		{"ruby -e 'conn.exec(\"git push\")'", NULL, false},
	};

	(void)state;
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void scan_perl(void **state)
{
	static const scan_case cases[] = {
		{"perl -e 'system(\"git push\")'", "git push", false},
		{"perl -e 'system \"git\", \"push\"'", "git push", false},
		{"perl -le 'print `git push`'", "git push", false},
		{"perl -e 'qx{git push}'", "git push", false},
		{"perl -e 'system qq(gh pr merge 1)'", "gh pr merge 1", false},
		{"perl -e 'open(my $f, \"-|\", \"git\", \"push\")'", "git push", false},
		{"perl -e 'open(F, \"git push|\")'", "git push", false},
		{"perl -e 'system(qw(git push))'", "git push", false},
		{"perl -e 'system(\"git push $b\") or die'", "git push", true},
		{"perl -e 'my $c = \"git push\"; system($c)'", NULL, true},
		{"perl -e 'print \"git push\\n\"'", NULL, false},
		{"perl -ne 'print if /git push/' log", NULL, false},
	};

	(void)state;
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void scan_php_lua_r(void **state)
{
	static const scan_case cases[] = {
		{"php -r 'system(\"git push\");'", "git push", false},
		{"php -r 'echo shell_exec(\"git push\");'", "git push", false},
		{"php -r 'echo `git push`;'", "git push", false},
		{"php -r 'proc_open([\"git\", \"push\"], [], $p);'", "git push", false},
		{"php -r 'echo \"git push\";'", NULL, false},
		{"php -r '$pdo->exec(\"git push\");'", NULL, false},
		{"lua -e 'os.execute(\"git push\")'", "git push", false},
		{"lua -e 'io.popen(\"git push\")'", "git push", false},
		{"lua -e 'os.execute[[git push]]'", "git push", false},
		{"lua -e 'os.execute(\"git \" .. b)'", "git", true},
		{"lua -e 'print(\"git push\")'", NULL, false},
		{"lua -e 'x = \"os.execute\"'", NULL, false},
		{"Rscript -e 'system(\"git push\")'", "git push", false},
		{"Rscript -e 'system2(\"git\", c(\"push\"))'", "git push", false},
		{"Rscript -e 'system2(\"git\", args = c(\"push\"))'", "git push", false},
		{"Rscript -e 'print(\"git push\")'", NULL, false},
		{"Rscript -e 'cat(\"git push\\n\")'", NULL, false},
	};

	(void)state;
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void scan_awk(void **state)
{
	static const scan_case cases[] = {
		{"awk 'BEGIN { system(\"git push\") }'", "git push", false},
		{"gawk 'BEGIN { \"git push\" | getline x }'", "git push", false},
		{"echo | mawk '{ print | \"git push\" }'", "git push", false},
		{"nawk 'BEGIN { printf \"x\" |& \"gh pr merge 1\" }'", "gh pr merge 1", false},
		{"awk 'BEGIN { system(\"git \" $1) }'", "git", true},
		{"awk '{ c | getline }'", NULL, true},
		{"awk '{print \"git push\"}'", NULL, false},
		{"awk '/a|b/ { print \"git push\" > \"out\" }'", NULL, false},
	};

	(void)state;
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void scan_other_languages(void **state)
{
	static const scan_case cases[] = {
		{"osascript -e 'do shell script \"git push\"'", "git push", false},
		{"osascript -e 'do shell script \"git push\" with administrator privileges'", "git push", false},
		{"osascript -e 'Do Shell  Script \"gh pr merge 1\"'", "gh pr merge 1", false},
		{"osascript -e 'do shell script \"git push \" & quoted form of b'", "git push", true},
		{"osascript -e 'display dialog \"git push\"'", NULL, false},
		{"osascript -e 'say \"do shell script\"'", NULL, false},
		{"pwsh -c 'git push'", "git push", false},
		{"powershell -NoProfile -Command git push origin", "git push origin", false},
		{"pwsh -command 'cd x; gh pr merge 1'", "gh pr merge 1", false},
		{"pwsh -Command 'Write-Host \"git push\"'", NULL, false},
		{"groovy -e '\"git push\".execute()'", "git push", false},
		{"groovy -e '[\"git\", \"push\"].execute()'", "git push", false},
		{"groovy -e 'new ProcessBuilder(\"git\", \"push\").start()'", "git push", false},
		{"groovy -e 'println \"git push\"'", NULL, false},
		{"elixir -e 'System.cmd(\"git\", [\"push\"])'", "git push", false},
		{"elixir -e ':os.cmd(~c\"git push\")'", "git push", false},
		{"elixir -e 'System.shell(\"git push\")'", "git push", false},
		{"elixir -e 'IO.puts \"git push\"'", NULL, false},
		{"julia -e 'run(`git push`)'", "git push", false},
		{"julia -e 'run(Cmd([\"git\", \"push\"]))'", "git push", false},
		{"julia -e 'read(`gh pr merge 1`, String)'", "gh pr merge 1", false},
		{"julia -e 'run(`git push $b`)'", "git push", true},
		{"julia -e 'println(\"git push\")'", NULL, false},
		{"expect -c 'spawn git push; expect eof'", "git push", false},
		{"expect -c 'spawn -noecho gh pr merge 1'", "gh pr merge 1", false},
		{"tclsh <<'EOF'\nexec git push\nEOF", "git push", false},
		{"tclsh <<'EOF'\nset x [exec gh pr merge 1]\nEOF", "gh pr merge 1", false},
		{"tclsh <<'EOF'\nputs \"git push\"\nEOF", NULL, false},
		{"expect -c 'spawn $cmd'", NULL, true},
	};

	(void)state;
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void scan_flags(void **state)
{
	roz_interp_scan s;

	(void)state;
	scan_line("python3 script.py", &s);
	assert_string_equal(s.interpreter, "python");
	assert_false(s.whole);
	assert_int_equal(s.nlines, 0);
	roz_interp_scan_dispose(&s);

	scan_line("python3 -m pytest -c x", &s);
	assert_string_equal(s.interpreter, "python");
	assert_false(s.whole);
	roz_interp_scan_dispose(&s);

	static const char *const none[] = {"python3 --version", "python3 -V", "node -v", "perl -v", "ruby --version",
					   "awk --version", "deno -V", "deno fmt", "bun install", "pwsh -v", "git push",
					   "ls -l", "echo python3 -c x"};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		scan_line(none[i], &s);
		if (s.interpreter)
			fail_msg("seen as running a program: %s", none[i]);
		roz_interp_scan_dispose(&s);
	}

	static const char *const files[] = {"node app.js", "ruby -S rake", "awk -f prog.awk x", "deno run x.ts",
					    "bun x.ts", "pwsh -File x.ps1", "pwsh -EncodedCommand ZQBjAGgAbwA=",
					    "node -r ./hook.js -e 'x'", "ruby -r./lib.rb -e 'x'", "lua -e 'x' script.lua",
					    "echo 'system(\"git push\")' | ruby"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		scan_line(files[i], &s);
		if (!s.interpreter || s.whole)
			fail_msg("not an interpreter running code off the line: %s", files[i]);
		roz_interp_scan_dispose(&s);
	}

	scan_line("node -e 'x'", &s);
	assert_string_equal(s.interpreter, "node");
	assert_true(s.whole);
	assert_false(s.dynamic);
	assert_int_equal(s.nlines, 0);
	roz_interp_scan_dispose(&s);

	scan_line("python3 - <<EOF\nimport os\nos.system(\"git push\")\nEOF", &s);
	assert_string_equal(s.interpreter, "python");
	assert_true(s.whole);
	assert_true(has_line(&s, "git push"));
	roz_interp_scan_dispose(&s);

	scan_line("python3 <<< 'import os; os.system(\"gh pr merge 1\")'", &s);
	assert_true(s.whole);
	assert_true(has_line(&s, "gh pr merge 1"));
	roz_interp_scan_dispose(&s);

	/* a pipe: judged by the line's text, as roz_interp_runs_decide does */
	scan_line("echo 'system(\"git push\")' | ruby", &s);
	assert_string_equal(s.interpreter, "ruby");
	assert_true(has_line(&s, "git push"));
	roz_interp_scan_dispose(&s);

	scan_line("python3 -c 'import os; c=\"git \"+\"push\"; os.system(c)'", &s);
	assert_true(s.whole);
	assert_true(s.dynamic);
	roz_interp_scan_dispose(&s);

	/* behind wrappers and substitutions, as the shell reader reports them */
	scan_line("timeout 5 python3 -c 'import os; os.system(\"git push\")'", &s);
	assert_true(has_line(&s, "git push"));
	roz_interp_scan_dispose(&s);
	scan_line("x=$(node -e 'require(\"child_process\").execSync(\"git push\")')", &s);
	assert_true(has_line(&s, "git push"));
	roz_interp_scan_dispose(&s);
}

/* Hand-made commands: odd words, bounds, NULLs. */
static void scan_bounds(void **state)
{
	roz_interp_scan s;
	roz_buf prog = ROZ_BUF_INIT;
	char *words[] = {"python3", "-c", NULL};
	roz_shell_cmd cmd = {.words = words, .nwords = 3};

	(void)state;
	assert_int_equal(roz_interp_scan_cmd(NULL, "x", &s), ROZ_OK);
	assert_null(s.interpreter);
	roz_interp_scan_dispose(&s);
	roz_interp_scan_dispose(NULL);

	/* more calls than lines: capped, and dynamic */
	roz_buf_adds(&prog, "import os\n");
	for (int i = 0; i < ROZ_INTERP_LINES_MAX + 10; i++)
		roz_buf_addf(&prog, "os.system(\"git push r%d\")\n", i);
	words[2] = prog.ptr;
	assert_int_equal(roz_interp_scan_cmd(&cmd, NULL, &s), ROZ_OK);
	assert_int_equal(s.nlines, ROZ_INTERP_LINES_MAX);
	assert_true(s.dynamic);
	roz_interp_scan_dispose(&s);

	/* a line longer than the cap: cut, and dynamic */
	roz_buf_reset(&prog);
	roz_buf_adds(&prog, "import os; os.system(\"git push ");
	for (int i = 0; i < ROZ_INTERP_LINE_MAX; i++)
		roz_buf_addc(&prog, 'x');
	roz_buf_adds(&prog, "\")");
	words[2] = prog.ptr;
	assert_int_equal(roz_interp_scan_cmd(&cmd, NULL, &s), ROZ_OK);
	assert_int_equal(s.nlines, 1);
	assert_true(strlen(s.lines[0]) <= ROZ_INTERP_LINE_MAX);
	assert_true(s.dynamic);
	roz_interp_scan_dispose(&s);

	/* unterminated strings and calls never read past the program */
	static const char *const cut[] = {"import os; os.system(\"git push", "import os; os.system(", "os.system([\"git\",",
					  "import subprocess; subprocess.run([\"a\", [\"b\", {\"c\": [", "\"\"\"", "f\"{"};
	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		roz_buf_reset(&prog);
		roz_buf_adds(&prog, cut[i]);
		words[2] = prog.ptr;
		assert_int_equal(roz_interp_scan_cmd(&cmd, NULL, &s), ROZ_OK);
		roz_interp_scan_dispose(&s);
	}
	roz_buf_dispose(&prog);
}

/* Every allocation the scan makes can fail; it says so and leaks nothing. */
static void scan_out_of_memory(void **state)
{
	const char *line = "python3 -c 'import os, subprocess; os.system(\"git push\"); subprocess.run([\"gh\", \"pr\", "
			   "\"merge\", \"1\"])'";
	roz_shell_result sh;
	long n;

	(void)state;
	assert_int_equal(roz_shell_parse(line, strlen(line), &sh), ROZ_OK);
	for (n = 0;; n++) {
		roz_interp_scan s;
		int rc;

		roz_alloc_fail_after(n);
		rc = roz_interp_scan_cmd(&sh.cmds[0], line, &s);
		roz_alloc_fail_after(-1);
		roz_interp_scan_dispose(&s);
		if (rc == ROZ_OK)
			break;
		assert_int_equal(rc, ROZ_ENOMEM);
	}
	assert_true(n > 0);
	roz_shell_result_dispose(&sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interpreters_running_roz_decide_are_seen),
		cmocka_unit_test(ordinary_interpreter_lines_are_not),
		cmocka_unit_test(interp_judges_one_command),
		cmocka_unit_test(scan_python),
		cmocka_unit_test(scan_javascript),
		cmocka_unit_test(scan_ruby),
		cmocka_unit_test(scan_perl),
		cmocka_unit_test(scan_php_lua_r),
		cmocka_unit_test(scan_awk),
		cmocka_unit_test(scan_other_languages),
		cmocka_unit_test(scan_flags),
		cmocka_unit_test(scan_bounds),
		cmocka_unit_test(scan_out_of_memory),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
