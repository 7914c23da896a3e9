/*
 * test_shell_wrappers.c - roz_shell_parse on the ways a line runs a command
 * it does not spell out as one: shells reading scripts from descriptors and
 * process substitutions, other shells' -c, programs run from a path,
 * wrappers (ssh, tmux, uv run, nix develop, ...), task runners and the
 * escapes of editors and database shells (reported with `opaque`), option
 * spellings, and lexical spellings of a command word.
 */
#include "gates.h"

#include "roz/glob.h"
#include "roz/shell.h"

#include <stdio.h>
#include <string.h>

#define PUSH "git push*"

static void dump(const char *line, const roz_shell_result *r)
{
	print_error("line: %s\n  flags %u reason %s\n", line, r->flags, r->reason ? r->reason : "-");
	for (size_t i = 0; i < r->ncmds; i++)
		print_error("  [%u] %s%s%s\n", r->cmds[i].depth, r->cmds[i].line,
			    r->cmds[i].opaque ? "  -- opaque: " : "", r->cmds[i].opaque ? r->cmds[i].opaque : "");
}

/* Some reported command matches the pattern outright (no flags needed). */
static bool matched(const roz_shell_result *r, const char *pattern)
{
	for (size_t i = 0; i < r->ncmds; i++)
		if (roz_glob_match(pattern, r->cmds[i].line))
			return true;
	return false;
}

static bool any_opaque(const roz_shell_result *r)
{
	for (size_t i = 0; i < r->ncmds; i++)
		if (r->cmds[i].opaque)
			return true;
	return false;
}

/* Each line reports a command matching pattern, with no flag raised. */
static void expect_matched(const char *const *lines, const char *pattern)
{
	size_t bad = 0;

	for (; *lines; lines++) {
		roz_shell_result r = t_shell_parse_ok(*lines);

		if (!matched(&r, pattern) || r.flags) {
			print_error("NOT matched by %s:\n", pattern);
			dump(*lines, &r);
			bad++;
		}
		roz_shell_result_dispose(&r);
	}
	assert_int_equal(bad, 0);
}

/* No line reports a command matching pattern, nor raises a flag. */
static void expect_plain(const char *const *lines, const char *pattern)
{
	size_t bad = 0;

	for (; *lines; lines++) {
		roz_shell_result r = t_shell_parse_ok(*lines);

		if (matched(&r, pattern) || r.flags) {
			print_error("wrongly matched by %s:\n", pattern);
			dump(*lines, &r);
			bad++;
		}
		roz_shell_result_dispose(&r);
	}
	assert_int_equal(bad, 0);
}

static void expect_dynamic(const char *const *lines, const char *reason_part)
{
	size_t bad = 0;

	for (; *lines; lines++) {
		roz_shell_result r = t_shell_parse_ok(*lines);

		if (!(r.flags & ROZ_SHELL_DYNAMIC) || !r.reason ||
		    (reason_part && !strstr(r.reason, reason_part))) {
			print_error("NOT dynamic (%s):\n", reason_part ? reason_part : "any");
			dump(*lines, &r);
			bad++;
		}
		roz_shell_result_dispose(&r);
	}
	assert_int_equal(bad, 0);
}

/* The command reported as `cmd` in `line` is opaque, for a reason holding why_part. */
static void expect_opaque(const char *line, const char *cmd, const char *why_part)
{
	roz_shell_result r = t_shell_parse_ok(line);
	const roz_shell_cmd *c = t_shell_find_line(&r, cmd);

	if (!c || !c->opaque || (why_part && !strstr(c->opaque, why_part))) {
		dump(line, &r);
		fail_msg("`%s` should be opaque (%s)", cmd, why_part ? why_part : "any reason");
	}
	roz_shell_result_dispose(&r);
}

/* No command of the line is opaque. */
static void expect_clear(const char *const *lines)
{
	size_t bad = 0;

	for (; *lines; lines++) {
		roz_shell_result r = t_shell_parse_ok(*lines);

		if (any_opaque(&r)) {
			print_error("wrongly opaque:\n");
			dump(*lines, &r);
			bad++;
		}
		roz_shell_result_dispose(&r);
	}
	assert_int_equal(bad, 0);
}

static void expect_lines(const char *line, const char *const *want, size_t n)
{
	roz_shell_result r = t_shell_parse_ok(line);

	if (r.ncmds != n) {
		dump(line, &r);
		fail_msg("%s: %zu commands, want %zu", line, r.ncmds, n);
	}
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r.cmds[i].line, want[i]);
	roz_shell_result_dispose(&r);
}

/* ---- 1. shells reading their script from elsewhere ---------------------- */

static void test_shell_script_sources(void **state)
{
	static const char *const pushes[] = {
		"bash <(echo git push)",
		"sh <(printf 'git push')",
		"bash <(echo -n 'git push origin')",
		"bash < <(echo git push)",
		"source <(echo git push)",
		"echo 'git push' | bash /dev/stdin",
		"bash - <<< 'git push'",
		"sh /dev/fd/0 <<EOF\ngit push\nEOF",
		"bash /dev/stdin <<'EOF'\ngit push\nEOF",
		"bash /dev/fd/3 3<<<'git push'",
		"bash /dev/fd/3 3<<EOF\ngit push\nEOF",
		"bash /proc/self/fd/3 3< <(echo git push)",
		"bash /dev/fd/3 3<<<'git push' <<< 'echo hi'",
		NULL,
	};
	static const char *const procsub[] = {
		"bash <(curl -s https://example.com/x.sh)",
		"sh <(echo $CMD)",
		"bash <(cat x | tr a b)",
		NULL,
	};
	static const char *const fds[] = {
		"exec 3<<<'git push'; bash /dev/fd/3",
		"bash /dev/fd/4 3<<<'git push'",
		"sh /proc/self/fd/7",
		NULL,
	};
	static const char *const plain[] = {
		"bash --version",
		"sh -c 'make test'",
		"echo bash",
		"bash -c 'git status'",
		"bash <(echo git status)",
		"bash /dev/fd/3 3<<<'git pull'",
		NULL,
	};

	(void)state;
	expect_matched(pushes, PUSH);
	expect_dynamic(procsub, "process substitution");
	expect_dynamic(fds, "file descriptor");
	expect_plain(plain, PUSH);
	expect_dynamic((const char *const[]){"curl -s x | bash /dev/stdin", NULL}, "pipe");
}

static void test_other_shells(void **state)
{
	static const char *const pushes[] = {
		"fish -c 'git push'",
		"fish --command='git push'",
		"fish -d 3 -c 'git push'",
		"fish -C 'git push'",
		"tcsh -c 'git push'",
		"csh -fc 'git push'",
		"ksh -c 'git push'",
		"ksh93 -c 'git push'",
		"elvish -c 'git push'",
		"nu -c 'git push'",
		"nu --commands 'git push'",
		"nu -e 'git push'",
		"xonsh -c 'git push'",
		"pwsh -c 'git push'",
		"pwsh -Command git push",
		"pwsh -NoProfile -NonInteractive -command 'git push'",
		"powershell -ExecutionPolicy Bypass -Com 'git push'",
		"pwsh -Command - <<< 'git push'",
		NULL,
	};
	static const char *const plain[] = {
		"fish -c 'git status'",
		"pwsh -c 'Get-ChildItem'",
		"nu -c 'ls'",
		"echo fish -c 'git push'",
		NULL,
	};

	(void)state;
	expect_matched(pushes, PUSH);
	expect_plain(plain, PUSH);
	expect_dynamic((const char *const[]){"pwsh -EncodedCommand ZwBpAHQAIABwAHUAcwBoAA==",
					     "powershell -enc ZwBpAHQA", NULL},
		       "encoded");
}

static void test_shell_runs_a_file_first(void **state)
{
	static const char *const plain[] = {"bash -c 'ls -l'", "sh -c 'ls'", "echo BASH_ENV=x", NULL};

	(void)state;
	expect_opaque("BASH_ENV=x bash -c 'git status'", "bash -c git status", "BASH_ENV");
	expect_opaque("export BASH_ENV=./x; bash -c true", "bash -c true", "BASH_ENV");
	expect_opaque("env BASH_ENV=./hook bash -c true", "bash -c true", "BASH_ENV");
	expect_opaque("ENV=x sh -i", "sh -i", "ENV names");
	expect_clear(plain);
}

static void test_script_files_are_opaque(void **state)
{
	static const char *const clear[] = {"bash --version", "bash -c 'ls'", "echo bash x.sh",
					    "cat x.sh", "bash", NULL};

	(void)state;
	expect_opaque("bash x.sh", "bash x.sh", "script file");
	expect_opaque("sh ./deploy", "sh ./deploy", "script file");
	expect_opaque("bash -e scripts/release.sh v1", "bash -e scripts/release.sh v1", "script file");
	expect_opaque("source x.sh", "source x.sh", "script file");
	expect_opaque(". x.sh", ". x.sh", "script file");
	expect_opaque("bash < run.sh", "bash", "script file");
	expect_opaque("pwsh ./build.ps1", "pwsh ./build.ps1", "script file");
	expect_opaque("pwsh -File build.ps1", "pwsh -File build.ps1", "script file");
	expect_opaque("fish setup.fish", "fish setup.fish", "script file");
	expect_clear(clear);
}

/* ---- 2. programs run from a path ---------------------------------------- */

static void test_programs_from_paths(void **state)
{
	static const char *const clear[] = {"/usr/bin/git status", "ls ./x", "/bin/ls -la",
					    "/usr/local/bin/jq . f", "/usr/lib/git-core/git-status",
					    "git status", "cat ../x", NULL};

	(void)state;
	expect_opaque("./deploy.sh", "deploy.sh", "from a path");
	expect_opaque("../x --flag", "x --flag", "from a path");
	expect_opaque("~/bin/p", "p", "from a path");
	expect_opaque("/tmp/x", "x", "from a path");
	expect_opaque("scripts/release v2", "release v2", "from a path");
	expect_opaque("sudo ./install.sh", "install.sh", "from a path");
	expect_opaque("/usr/bin/../../tmp/x", "x", "from a path");
	expect_clear(clear);
}

/* ---- 3. wrappers -------------------------------------------------------- */

static void test_remote_and_session_wrappers(void **state)
{
	static const char *const pushes[] = {
		"ssh host git push",
		"ssh -p 22 -i ~/.ssh/key host 'git push'",
		"ssh -o StrictHostKeyChecking=no -- host 'cd /r && git push origin'",
		"ssh -tt -J bastion user@host git push",
		"tmux new-session -d -s work 'git push'",
		"tmux new -d 'git push'",
		"tmux split-window -h -c /r 'git push'",
		"tmux -L sock neww -n w 'git push'",
		"tmux run-shell 'git push'",
		"tmux -c 'git push'",
		"tmux new -d 'sleep 1' \\; split-window 'git push'",
		"screen -dmS name git push",
		"screen git push",
		"screen -S s -d -m bash -c 'git push'",
		"echo 'git push' | at now",
		"at now + 1 minute <<< 'git push'",
		"batch <<EOF\ngit push\nEOF",
		NULL,
	};
	static const char *const plain[] = {
		"ssh -T git@github.com",
		"ssh host",
		"ssh -p 22 host 'git status'",
		"tmux ls",
		"tmux attach -t push",
		"screen -ls",
		"screen -r push",
		"at -l",
		"docker push x",
		NULL,
	};

	(void)state;
	expect_matched(pushes, PUSH);
	expect_plain(plain, PUSH);
	expect_lines("ssh -T git@github.com", (const char *const[]){"ssh -T git@github.com"}, 1);
	expect_lines("screen -r push", (const char *const[]){"screen -r push"}, 1);
	expect_opaque("tmux send-keys -t x 'git push' Enter", "tmux send-keys -t x git push Enter", "keys");
	expect_opaque("tmux send -t x 'git push' C-m", "tmux send -t x git push C-m", "keys");
	expect_opaque("screen -S s -X stuff 'git push\n'", "screen -S s -X stuff git push\n", "keys");
	expect_opaque("at -f job.sh now", "at -f job.sh now", "script file");
	expect_clear((const char *const[]){"tmux ls", "screen -ls", "ssh -T git@github.com", NULL});
}

static void test_environment_wrappers(void **state)
{
	static const char *const pushes[] = {
		"npx -c 'git push'",
		"npx --call='git push'",
		"npm exec -c 'git push'",
		"npm exec -- git push",
		"npm x -- git push",
		"pnpm exec git push",
		"pnpm dlx git push",
		"yarn exec git push",
		"yarn dlx git push",
		"bunx git push",
		"bun x git push",
		"bun exec 'git push'",
		"uv run git push",
		"uv run --with requests -p 3.12 git push",
		"uvx --from pkg git push",
		"poetry run git push",
		"pipenv run git push",
		"pdm run git push",
		"hatch run git push",
		"rye run git push",
		"pixi run -e dev git push",
		"conda run -n env git push",
		"mamba run -n env git push",
		"micromamba run -p /opt/e git push",
		"bundle exec git push",
		"nix develop -c git push",
		"nix develop .#ci --command git push",
		"nix shell nixpkgs#git -c git push",
		"nix-shell --run 'git push'",
		"nix-shell -p git --command 'git push'",
		"direnv exec . git push",
		"mise exec -- git push",
		"mise x node@20 -- git push",
		"mise exec -c 'git push'",
		"asdf exec git push",
		"devbox run git push",
		"dotenv -- git push",
		"dotenv -e .env git push",
		"dotenvx run -f .env -- git push",
		"env-cmd -f .env git push",
		"cross-env A=1 B=2 git push",
		"cross-env-shell A=1 'git push'",
		"sandbox-exec -f p.sb git push",
		"bwrap --ro-bind / / --dev /dev --setenv A b --unshare-net git push",
		"perf stat -e cycles git push",
		"perf record -g -- git push",
		"hyperfine 'git push'",
		"hyperfine -w 3 'git status' 'git push'",
		"hyperfine --prepare 'git push' 'ls'",
		"heaptrack git push",
		"caffeinate git push",
		"gdb --args git push",
		NULL,
	};
	static const char *const plain[] = {
		"uv run pytest",
		"nix develop -c make test",
		"nix develop",
		"npm install",
		"npm exec -- eslint .",
		"cargo build",
		"poetry install",
		"uv pip install push",
		"pnpm install",
		"hyperfine 'git status'",
		"bwrap --bind /a /b ls",
		NULL,
	};

	(void)state;
	expect_matched(pushes, PUSH);
	expect_plain(plain, PUSH);
	expect_lines("uv run pytest", (const char *const[]){"uv run pytest", "pytest"}, 2);
	expect_lines("nix develop -c make test", (const char *const[]){"nix develop -c make test", "make test"}, 2);
	expect_lines("docker push x", (const char *const[]){"docker push x"}, 1);
	expect_clear((const char *const[]){"uv run pytest", "npm install", "cargo build", "docker push x",
					   "poetry run pytest", NULL});
}

static void test_task_runners_are_opaque(void **state)
{
	static const char *const tasks[][2] = {
		{"make", "make"},
		{"make test", "make test"},
		{"make --eval='x:;git push' x", "make --eval=x:;git push x"},
		{"just build", "just build"},
		{"task lint", "task lint"},
		{"rake db:migrate", "rake db:migrate"},
		{"npm run build", "npm run build"},
		{"npm test", "npm test"},
		{"npm start", "npm start"},
		{"yarn build", "yarn build"},
		{"yarn run lint", "yarn run lint"},
		{"pnpm lint", "pnpm lint"},
		{"bun run dev", "bun run dev"},
		{"cargo run --release", "cargo run --release"},
		{"go run .", "go run ."},
		{"go generate ./...", "go generate ./..."},
		{"gradle build", "gradle build"},
		{"./gradlew build", "gradlew build"},
		{"mvn package", "mvn package"},
		{"tox -e py", "tox -e py"},
		{"nox", "nox"},
		{"invoke deploy", "invoke deploy"},
		{"doit", "doit"},
		{"npm --prefix web run build", "npm --prefix web run build"},
	};
	static const char *const clear[] = {"npm install", "cargo build", "yarn add left-pad",
					    "pnpm install", "make --version", "go build ./...", "yarn",
					    "echo make", "bun install", NULL};

	(void)state;
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		expect_opaque(tasks[i][0], tasks[i][1], NULL);
	expect_opaque("make", "make", "task definitions");
	expect_clear(clear);
}

static void test_editor_and_database_escapes(void **state)
{
	static const char *const pushes[] = {
		"vim -c '!git push'",
		"vim +'!git push' f",
		"nvim --cmd ':!git push'",
		"ex -c '!git push' f",
		"gdb -batch -ex 'shell git push'",
		"gdb -ex '!git push'",
		"psql -c '\\! git push'",
		"sqlite3 db '.shell git push'",
		"sqlite3 -cmd '.system git push' db",
		"mysql -e 'system git push'",
		"mariadb --execute='\\! git push'",
		NULL,
	};
	static const char *const clear[] = {"vim file.c", "vim +10 f", "vim +/main f", "psql -c 'select 1'",
					    "sqlite3 db 'select 1'", "emacs file", "mysql -e 'show tables'",
					    "gdb -batch -ex bt ./core", "gdb --version", NULL};

	(void)state;
	expect_matched(pushes, PUSH);
	expect_opaque("vim -c '!git push'", "vim -c !git push", "editor");
	expect_opaque("vim -c 'call system(\"x\")' f", "vim -c call system(\"x\") f", "editor");
	expect_opaque("emacs --eval '(shell-command \"git push\")'", "emacs --eval (shell-command \"git push\")",
		      "editor");
	expect_opaque("emacs -batch -l build.el", "emacs -batch -l build.el", "editor");
	expect_opaque("psql -c '\\! git push'", "psql -c \\! git push", "shell");
	expect_opaque("psql -f setup.sql", "psql -f setup.sql", "script file");
	expect_opaque("sqlite3 db '.shell git push'", "sqlite3 db .shell git push", "shell");
	expect_opaque("mysql -e 'system git push'", "mysql -e system git push", "shell");
	expect_opaque("gdb -batch -ex 'python import os'", "gdb -batch -ex python import os", "debugger");
	expect_clear(clear);
}

/* ---- 4. option spellings ------------------------------------------------ */

static void test_abbreviated_long_options(void **state)
{
	static const char *const pushes[] = {
		"sudo --u=root git push",
		"sudo --us root git push",
		"sudo --user root git push",
		"timeout --sig KILL 5 git push",
		"timeout --k=1 5 git push",
		"env --split='git push'",
		"env --sp 'git push'",
		"nice --adj 5 git push",
		"bash --rcf x -c 'git push'",
		"xargs --repl=X git push X < list",
		NULL,
	};

	(void)state;
	expect_matched(pushes, PUSH);
	expect_lines("sudo --us root git push",
		     (const char *const[]){"sudo --us root git push", "git push"}, 2);
}

static void test_rm_option_spellings(void **state)
{
	static const char *const rmrf[] = {
		"rm -rf x", "rm -r -f x", "rm -fr x", "rm -Rf x", "rm -f -R x", "rm --recursive --force x",
		"rm --rec --fo x", "rm -rfv x", "sudo rm -fr /x", "rm -r --force -- -x", NULL,
	};
	static const char *const rmr[] = {"rm -r x", "rm -R x", "rm --recursive x", "rm -rv x", NULL};
	static const char *const neither[] = {"rm x.txt", "rm -f x.txt", "rmdir x", "rm -- -r", "rm -v x",
					      "echo rm -r -f x", NULL};

	(void)state;
	expect_matched(rmrf, "rm -rf *");
	expect_matched(rmr, "rm -r *");
	expect_plain(neither, "rm -r*");
	expect_lines("rm -fr a b", (const char *const[]){"rm -fr a b", "rm -rf a b"}, 2);
	expect_lines("rm -rf x", (const char *const[]){"rm -rf x"}, 1);
	expect_lines("rm -r --force -- -x", (const char *const[]){"rm -r --force -- -x", "rm -rf -- -x"}, 2);
}

/* ---- 5. lexical spellings ------------------------------------------------ */

static void test_lexical_spellings(void **state)
{
	static char forty[512];
	static const char *pushes[] = {
		"git pu\\\nsh",
		"gi\\\nt push",
		"$'git' push",
		"git $'\\x70ush'",
		"git $'\\160ush'",
		"$'\\x67\\x69\\x74' $'pu\\u0073h'",
		"x=$( # a comment\ngit push\n)",
		"echo $(true # note\ngit push)",
		"case x in x) git push;; esac",
		"case $a in (b|c) :;; *) git push ;; esac",
		forty,
		NULL,
	};
	static const char *const plain[] = {
		"echo $(true # git push\n)",
		"echo $'git push'",
		"case git in push) :;; esac",
		"# git push",
		NULL,
	};
	size_t at = 0;

	(void)state;
	for (int i = 0; i < 40; i++)
		at += (size_t)snprintf(forty + at, sizeof(forty) - at, "true; ");
	snprintf(forty + at, sizeof(forty) - at, "git push");
	expect_matched(pushes, PUSH);
	expect_plain(plain, PUSH);
}

/* Every new path gives up cleanly when memory runs out. */
static void test_allocation_failures(void **state)
{
	static const char line[] =
		"bash /dev/fd/3 3<<<'git push' 4<<EOF <<<'ls'\nx\nEOF\n"
		"bash <(echo git push); source < <(printf 'ls'); rm -fr a -- -b; ssh h git push\n"
		"uv run --with x git push; ./x; make; BASH_ENV=x bash -c true; vim -c '!ls'; tmux new 'ls'";

	(void)state;
	t_shell_parse_oom_sweep(line, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shell_script_sources),
		cmocka_unit_test(test_other_shells),
		cmocka_unit_test(test_shell_runs_a_file_first),
		cmocka_unit_test(test_script_files_are_opaque),
		cmocka_unit_test(test_programs_from_paths),
		cmocka_unit_test(test_remote_and_session_wrappers),
		cmocka_unit_test(test_environment_wrappers),
		cmocka_unit_test(test_task_runners_are_opaque),
		cmocka_unit_test(test_editor_and_database_escapes),
		cmocka_unit_test(test_abbreviated_long_options),
		cmocka_unit_test(test_rm_option_spellings),
		cmocka_unit_test(test_lexical_spellings),
		cmocka_unit_test(test_allocation_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
