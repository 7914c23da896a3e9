/*
 * test_watch.c - the repository's watcher (roz/watch.h) through the real
 * binary: what it answers after each kind of change, when it says it does
 * not know, when it ends and the note it leaves when it cannot watch; and
 * the hooks' side with a stand-in watcher: a hook looks only where the
 * watcher points, and walks the whole tree when the watcher does not know
 * or answers nonsense.
 */
#include "support.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "roz/digest.h"
#include "roz/watch.h"

typedef struct w_fx {
	char *home, *repo;
	char root[PATH_MAX];
	pid_t pid;
	uint64_t id, gen;
} w_fx;

static void sh_in(const char *dir, const char *cmd)
{
	char *c = t_sprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);

	assert_int_equal(system(c), 0);
	free(c);
}

/* Run `roz watch [opts] root home` in the background (not waited for here). */
static pid_t spawn_watch(const char *root, const char *home, const char *opt, const char *idle)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[6];
		int k = 0;

		argv[k++] = (char *)"roz";
		argv[k++] = (char *)"watch";
		if (opt)
			argv[k++] = strdup(opt);
		argv[k++] = strdup(root);
		argv[k++] = strdup(home);
		argv[k] = NULL;
		setenv("ROZ_WATCH_IDLE_S", idle ? idle : "60", 1);
		if (freopen("/dev/null", "w", stdout) && freopen("/dev/null", "w", stderr))
			execv(ROZ_BINARY, argv);
		_exit(127);
	}
	return pid;
}

/* Ask, waiting for the watcher to be up; fails the test after 5 s. */
static void ask(const w_fx *f, uint64_t id, uint64_t since, roz_watch_answer *a)
{
	int rc = ROZ_ENOTFOUND;

	for (int i = 0; i < 500 && rc == ROZ_ENOTFOUND; i++)
		if ((rc = roz_watch_ask(f->root, id, since, 2000, a)) == ROZ_ENOTFOUND)
			usleep(10000);
	assert_int_equal(rc, ROZ_OK);
}

static void w_make(w_fx *f)
{
	roz_watch_answer a;

	memset(f, 0, sizeof *f);
	f->home = t_mkdtemp();
	f->repo = t_mkdtemp();
	assert_non_null(realpath(f->repo, f->root));
	sh_in(f->repo, "git init -q && mkdir -p src/lib docs && echo a > src/a.ts && echo b > src/lib/b.ts && "
		       "echo d > docs/d.md && printf 'build/\\n*.log\\n' > .gitignore");
	f->pid = spawn_watch(f->root, f->home, NULL, NULL);
	ask(f, 0, 0, &a);
	assert_false(a.known);
	assert_int_equal(a.n, 0);
	assert_true(a.id != 0);
	f->id = a.id;
	f->gen = a.gen;
	roz_watch_answer_dispose(&a);
}

/* Wait for the watcher process to end, at most `ms`; true if it did. */
static bool ended(pid_t pid, int ms, int *status)
{
	for (int i = 0; i < ms / 10; i++) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	return false;
}

static void w_dispose(w_fx *f)
{
	int st;

	t_rmtree(f->repo);
	/* its root gone, the watcher ends */
	if (f->pid > 0 && !ended(f->pid, 5000, &st)) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, &st, 0);
		fail_msg("the watcher did not end when its root was removed");
	}
	t_rmtree(f->home);
	free(f->home);
	free(f->repo);
}

/* What moved since the last question, as "d path" / "s path" lines; the generation moves on. */
static char *moved(w_fx *f)
{
	roz_watch_answer a;
	roz_buf b = ROZ_BUF_INIT;

	ask(f, f->id, f->gen, &a);
	assert_true(a.known);
	assert_true(a.id == f->id);
	assert_true(a.gen >= f->gen);
	for (size_t i = 0; i < a.n; i++)
		roz_buf_addf(&b, "%c %s\n", a.picks[i].deep ? 'd' : 's', a.picks[i].path);
	f->gen = a.gen;
	roz_watch_answer_dispose(&a);
	roz_buf_addc(&b, '\0'); /* an empty answer is "" too */
	return roz_buf_detach(&b, NULL);
}

static void assert_moved(w_fx *f, const char *want)
{
	char *got = moved(f);

	if (strcmp(got, want) != 0)
		fail_msg("the watcher answered\n%s\nnot\n%s", got, want);
	free(got);
}

/* What moved since the last question names `line` (or, when !named, does not). */
static void assert_moved_names(w_fx *f, const char *line, bool named)
{
	char *got = moved(f);

	if ((strstr(got, line) != NULL) != named)
		fail_msg("the watcher answered\n%s\nwhich %s %s", got, named ? "lacks" : "holds", line);
	free(got);
}

static void each_kind_of_change_is_named(void **state)
{
	w_fx f;

	(void)state;
	w_make(&f);
	assert_moved(&f, "");
	sh_in(f.repo, "echo more >> src/a.ts");
	assert_moved(&f, "s src/a.ts\n");
	/* nothing since: nothing named again */
	assert_moved(&f, "");
	sh_in(f.repo, "echo n > src/new.ts && rm docs/d.md && chmod +x src/lib/b.ts && ln -s a.ts src/l");
	assert_moved(&f, "s docs/d.md\ns src/l\ns src/lib/b.ts\ns src/new.ts\n");
	/* a directory made with files in it: the directory, deep */
	sh_in(f.repo, "mkdir -p src/x/y && echo 1 > src/x/y/f.ts");
	assert_moved_names(&f, "d src/x\n", true);
	/* a file made later inside it is seen: the new directories are watched */
	sh_in(f.repo, "echo 2 > src/x/y/g.ts");
	assert_moved(&f, "s src/x/y/g.ts\n");
	/* a directory moved: both names, deep */
	sh_in(f.repo, "mv src/x src/z");
	assert_moved(&f, "d src/x\nd src/z\n");
	sh_in(f.repo, "echo 3 > src/z/y/h.ts");
	assert_moved(&f, "s src/z/y/h.ts\n");
	/* ignored: a log file is named (its directory is watched), nothing under an ignored directory is */
	sh_in(f.repo, "mkdir build && echo o > build/out.o");
	assert_moved_names(&f, "build/out.o", false);
	sh_in(f.repo, "echo p > build/out2.o && echo q > build/out.o");
	assert_moved(&f, "");
	/* git's own store is not the working tree */
	sh_in(f.repo, "git add -A");
	assert_moved(&f, "");
	w_dispose(&f);
}

/*
 * A file inside with another name outside (or in an ignored directory):
 * a write through that name comes to no directory watched, so the
 * watcher watches such a file itself. (A second name made while the
 * watcher runs is not told to it: the kernel tells only the file's own
 * watchers of a link count that changed. docs/governance.md says so.)
 */
static void a_file_with_another_name_outside_is_seen_when_written_there(void **state)
{
	w_fx f;
	char *outside = t_mkdtemp(), *cmd;
	pid_t pid;
	int st;

	(void)state;
	w_make(&f);
	/* the first watcher is replaced by one that starts with the link in place */
	cmd = t_sprintf("ln src/a.ts '%s/alias'", outside);
	sh_in(f.repo, cmd);
	free(cmd);
	kill(f.pid, SIGTERM);
	assert_true(ended(f.pid, 5000, &st));
	f.pid = pid = spawn_watch(f.root, f.home, NULL, NULL);
	{
		roz_watch_answer a;

		ask(&f, 0, 0, &a);
		f.id = a.id;
		f.gen = a.gen;
		roz_watch_answer_dispose(&a);
	}
	cmd = t_sprintf("echo through >> '%s/alias'", outside);
	sh_in(f.repo, cmd);
	free(cmd);
	assert_moved(&f, "s src/a.ts\n");
	t_rmtree(outside);
	free(outside);
	w_dispose(&f);
}

static void what_the_watcher_does_not_know_it_says(void **state)
{
	w_fx f;
	roz_watch_answer a;

	(void)state;
	w_make(&f);
	/* another watcher's generation, a generation it never had */
	ask(&f, f.id ^ 1, f.gen, &a);
	assert_false(a.known);
	assert_true(a.id == f.id);
	roz_watch_answer_dispose(&a);
	ask(&f, f.id, f.gen + 1000, &a);
	assert_false(a.known);
	roz_watch_answer_dispose(&a);
	/* an ignore file changed: what the tree lists changed with it */
	sh_in(f.repo, "echo 'docs/' >> .gitignore");
	ask(&f, f.id, f.gen, &a);
	assert_false(a.known);
	/* from the generation it names on, it knows again */
	f.gen = a.gen;
	roz_watch_answer_dispose(&a);
	sh_in(f.repo, "echo c >> src/a.ts && echo e >> docs/d.md");
	assert_moved(&f, "s src/a.ts\n");
	/* a question that is not one gets no answer; the watcher goes on */
	{
		struct sockaddr_un addr;
		char hex[ROZ_SHA256_HEX_SIZE];
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		char buf[64];
		socklen_t len;

		roz_digest_sha256_hex(f.root, strlen(f.root), hex);
		hex[32] = '\0';
		memset(&addr, 0, sizeof addr);
		addr.sun_family = AF_UNIX;
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				  (size_t)snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "roz-watch-%lu-%s",
						   (unsigned long)getuid(), hex));
		assert_int_equal(connect(fd, (struct sockaddr *)&addr, len), 0);
		assert_int_equal(write(fd, "gimme\n", 6), 6);
		assert_int_equal(read(fd, buf, sizeof buf), 0);
		close(fd);
	}
	assert_moved(&f, "");
	w_dispose(&f);
}

static void one_watcher_per_root_and_it_ends_when_idle(void **state)
{
	w_fx f;
	pid_t second, idle;
	int st;
	char *other = t_mkdtemp(), root2[PATH_MAX];
	roz_watch_answer a;

	(void)state;
	w_make(&f);
	/* a second watcher of the same root ends at once; the first still answers */
	second = spawn_watch(f.root, f.home, NULL, NULL);
	assert_true(ended(second, 5000, &st));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_moved(&f, "");
	/* a watcher asked nothing for its idle spell ends */
	assert_non_null(realpath(other, root2));
	idle = spawn_watch(root2, f.home, NULL, "1");
	for (int i = 0; i < 500 && roz_watch_ask(root2, 0, 0, 1000, &a) == ROZ_ENOTFOUND; i++)
		usleep(10000);
	roz_watch_answer_dispose(&a);
	assert_true(ended(idle, 5000, &st));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(roz_watch_ask(root2, 0, 0, 1000, &a), ROZ_ENOTFOUND);
	t_rmtree(other);
	free(other);
	w_dispose(&f);
}

static void a_watcher_that_cannot_watch_says_why_and_is_not_started_again(void **state)
{
	char *home = t_mkdtemp(), *repo = t_mkdtemp(), root[PATH_MAX], *why = NULL;
	struct timespec now;
	int64_t now_ns;
	pid_t pid;
	int st;

	(void)state;
	assert_non_null(realpath(repo, root));
	sh_in(repo, "for i in 1 2 3 4 5 6 7 8; do echo $i > f$i; done");
	pid = spawn_watch(root, home, "--max-entries=3", NULL);
	assert_true(ended(pid, 5000, &st));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	clock_gettime(CLOCK_REALTIME, &now);
	now_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	assert_true(roz_watch_is_off(home, root, now_ns, &why));
	assert_non_null(why);
	assert_non_null(strstr(why, "more than 3 entries"));
	free(why);
	/* the hooks do not start another for an hour */
	assert_int_equal(roz_watch_start(ROZ_BINARY, root, home, false, 0, now_ns), 0);
	assert_false(roz_watch_is_off(home, root, now_ns + 3601LL * 1000000000LL, NULL));
	t_rmtree(repo);
	t_rmtree(home);
	free(repo);
	free(home);
}

/* ---- the hooks' side, with a stand-in watcher ------------------------------------ */

/*
 * A stand-in for the watcher of `root`: to a question about generation 0
 * it answers "not known, I am watcher 1 at generation 5"; to any other, the
 * text of the file `answer` (the test writes it before each call).
 */
static pid_t stand_in(const char *root, const char *answer)
{
	struct sockaddr_un addr;
	char hex[ROZ_SHA256_HEX_SIZE];
	socklen_t len;
	int lsn = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	pid_t pid;

	roz_digest_sha256_hex(root, strlen(root), hex);
	hex[32] = '\0';
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			  (size_t)snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "roz-watch-%lu-%s",
					   (unsigned long)getuid(), hex));
	assert_int_equal(bind(lsn, (struct sockaddr *)&addr, len), 0);
	assert_int_equal(listen(lsn, 16), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;) {
			int c = accept(lsn, NULL, NULL);
			char q[128] = {0};
			ssize_t got;

			if (c < 0)
				_exit(0);
			got = read(c, q, sizeof q - 1);
			if (got > 0 && strncmp(q, "since 0 ", 8) == 0) {
				(void)!write(c, "roz-watch 1 1 5 0 0\n", 20);
			} else if (got > 0) {
				size_t n = 0;
				char *text = t_read_file(answer, &n);

				if (text)
					(void)!write(c, text, n);
				free(text);
			}
			close(c);
		}
	}
	close(lsn);
	return pid;
}

static void hook_in(const char *repo, const char *const *env, t_run *r, const char *event, const char *tail)
{
	const char *argv[] = {"hook", event, NULL};
	char *in = t_sprintf("{\"session_id\":\"s-1\",\"cwd\":\"%s\"%s}", repo, tail);

	t_run_roz(r, in, env, argv);
	assert_int_equal(r->status, 0);
	free(in);
}

static void bash_in(const char *repo, const char *const *env, t_run *post, const char *command, const char *effect)
{
	char *tail = t_sprintf(",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"%s\"}", command);
	char *ptail = t_sprintf("%s,\"duration_ms\":20", tail);
	t_run r;

	hook_in(repo, env, &r, "pre-tool-use", tail);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	if (effect)
		sh_in(repo, effect);
	hook_in(repo, env, post, "post-tool-use", ptail);
	free(tail);
	free(ptail);
}

static void a_hook_looks_where_the_watcher_points_and_walks_when_it_cannot_say(void **state)
{
	char *home = t_mkdtemp(), *repo = t_mkdtemp(), root[PATH_MAX], *answer, *p, *env[5];
	t_run r;
	pid_t fake;
	int st;

	(void)state;
	assert_non_null(realpath(repo, root));
	sh_in(repo, "git init -q && mkdir -p src docs .orchestration && echo a > src/a.ts && echo d > docs/d.md && "
		    "printf 'active_intents:\\n  - id: INT-001\\n    name: Auth\\n    status: IN_PROGRESS\\n"
		    "    owned_scope: [\"src/**\"]\\n' > .orchestration/active_intents.yaml");
	p = t_sprintf("%s/config.toml", home);
	t_write_file(p, "[review]\nrequire_reviewer = false\n");
	free(p);
	env[0] = t_sprintf("ROZ_HOME=%s", home);
	env[1] = t_sprintf("HOME=%s", home);
	env[2] = strdup("USER=tester");
	env[3] = NULL;
	answer = t_sprintf("%s/answer", home);
	t_write_file(answer, "roz-watch 1 1 5 1 0\n");
	fake = stand_in(root, answer);
	/* the first call: the snapshot is taken, stamped watcher 1, generation 5 */
	bash_in(root, (const char *const *)env, &r, "roz intent select INT-001", NULL);
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	/* the watcher names only src/a.ts: docs/d.md, changed too, is not looked at */
	{
		static const char text[] = "roz-watch 1 1 6 1 1\nssrc/a.ts";

		p = t_sprintf("%s.tmp", answer);
		{
			FILE *fp = fopen(p, "w");

			assert_non_null(fp);
			assert_int_equal(fwrite(text, 1, sizeof text, fp), sizeof text); /* the path's NUL too */
			fclose(fp);
		}
		assert_int_equal(rename(p, answer), 0);
		free(p);
	}
	bash_in(root, (const char *const *)env, &r, "python3 tool.py", "echo x >> docs/d.md && echo y >> src/a.ts");
	assert_string_equal(r.out, "{}\n");
	t_run_dispose(&r);
	p = t_sprintf("%s/.orchestration/agent_trace.jsonl", root);
	{
		char *ledger = t_read_file(p, NULL);

		assert_non_null(ledger);
		assert_non_null(strstr(ledger, "src/a.ts"));
		assert_null(strstr(ledger, "docs/d.md"));
		free(ledger);
	}
	free(p);
	/* the watcher does not know: the whole tree is walked, and docs/d.md is seen */
	t_write_file(answer, "roz-watch 1 1 7 0 0\n");
	bash_in(root, (const char *const *)env, &r, "python3 tool.py", "echo z >> docs/d.md");
	assert_non_null(strstr(r.out, "docs/d.md: modified"));
	t_run_dispose(&r);
	/* an answer that is not one: walked, seen */
	t_write_file(answer, "roz-watch 1 1 8 1 2\nsdocs/d.md");
	bash_in(root, (const char *const *)env, &r, "python3 tool.py", "echo w >> src/b.ts && echo v > top.txt");
	assert_non_null(strstr(r.out, "top.txt: created"));
	t_run_dispose(&r);
	kill(fake, SIGKILL);
	waitpid(fake, &st, 0);
	t_rmtree(repo);
	t_rmtree(home);
	for (int i = 0; env[i]; i++)
		free(env[i]);
	free(answer);
	free(repo);
	free(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_kind_of_change_is_named),
		cmocka_unit_test(a_file_with_another_name_outside_is_seen_when_written_there),
		cmocka_unit_test(what_the_watcher_does_not_know_it_says),
		cmocka_unit_test(one_watcher_per_root_and_it_ends_when_idle),
		cmocka_unit_test(a_watcher_that_cannot_watch_says_why_and_is_not_started_again),
		cmocka_unit_test(a_hook_looks_where_the_watcher_points_and_walks_when_it_cannot_say),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
