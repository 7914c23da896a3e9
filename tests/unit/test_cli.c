/*
 * test_cli.c - roz doctor, one test per check that can fail, and the output
 * conventions every command shares: no colour off a terminal, a failed write
 * to stdout is an error, usage mistakes exit 2.
 */
#include "support.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct home {
	char *dir;
	char *env[6];
	char *bin; /* a directory holding a `roz` that is this build */
} home;

/* A throwaway home whose storage exists and is private, with roz on PATH. */
static void home_make(home *h)
{
	char *sessions, *link, *exe = strdup(ROZ_BINARY);

	h->dir = t_mkdtemp();
	sessions = t_sprintf("%s/sessions", h->dir);
	assert_int_equal(mkdir(sessions, 0700), 0);
	h->bin = t_sprintf("%s/bin", h->dir);
	assert_int_equal(mkdir(h->bin, 0700), 0);
	link = t_sprintf("%s/roz", h->bin);
	assert_int_equal(symlink(ROZ_BINARY, link), 0);
	h->env[0] = t_sprintf("ROZ_HOME=%s", h->dir);
	h->env[1] = t_sprintf("PATH=%s:/usr/bin:/bin", h->bin);
	h->env[2] = t_sprintf("HOME=%s", h->dir);
	h->env[3] = NULL;
	free(sessions);
	free(link);
	free(exe);
}

static void home_free(home *h)
{
	t_rmtree(h->dir);
	free(h->dir);
	free(h->bin);
	for (int i = 0; h->env[i]; i++)
		free(h->env[i]);
}

static t_run doctor(home *h, const char *plugin)
{
	char *dir = plugin ? strdup(plugin) : t_sprintf("%s/plugin", ROZ_SOURCE_DIR);
	const char *argv[] = {"doctor", "--plugin-dir", dir, NULL};
	t_run r;

	t_run_roz(&r, NULL, (const char *const *)h->env, argv);
	free(dir);
	return r;
}

static void expect_failure(t_run *r, const char *what, const char *fix)
{
	if (r->status != 1 || !strstr(r->out, what) || !strstr(r->out, fix))
		fail_msg("expected a failed check with '%s' and fix '%s'; exit %d, output:\n%s", what, fix,
			 r->status, r->out);
	assert_non_null(strstr(r->out, "FAIL"));
}

static void doctor_passes_on_a_good_install(void **state)
{
	home h;
	t_run r;

	(void)state;
	home_make(&h);
	r = doctor(&h, NULL);
	if (r.status != 0)
		fail_msg("doctor failed on a good setup:\n%s%s", r.out, r.err);
	assert_null(strstr(r.out, "FAIL"));
	assert_non_null(strstr(r.out, "ok roz on PATH"));
	assert_non_null(strstr(r.out, "ok storage"));
	assert_non_null(strstr(r.out, "ok plugin hooks"));
	/* off a terminal there is no colour */
	assert_null(strchr(r.out, '\033'));
	t_run_free(&r);
	home_free(&h);
}

static void doctor_reports_roz_missing_from_path(void **state)
{
	home h;
	t_run r;

	(void)state;
	home_make(&h);
	free(h.env[1]);
	h.env[1] = strdup("PATH=/usr/bin:/bin");
	r = doctor(&h, NULL);
	expect_failure(&r, "roz is not on PATH", "cmake --install");
	t_run_free(&r);
	home_free(&h);
}

static void doctor_reports_another_roz_on_path(void **state)
{
	home h;
	t_run r;
	char *fake;

	(void)state;
	home_make(&h);
	fake = t_sprintf("%s/roz", h.bin);
	unlink(fake);
	t_write_file(fake, "#!/bin/sh\necho 'roz 0.0.1'\n");
	chmod(fake, 0755);
	r = doctor(&h, NULL);
	expect_failure(&r, "(roz 0.0.1)", "install this build");
	t_run_free(&r);
	free(fake);
	home_free(&h);
}

static void doctor_reports_missing_storage(void **state)
{
	home h;
	t_run r;
	char *sessions;

	(void)state;
	home_make(&h);
	sessions = t_sprintf("%s/sessions", h.dir);
	rmdir(sessions);
	r = doctor(&h, NULL);
	expect_failure(&r, "does not exist yet", "mkdir -p -m 700");
	t_run_free(&r);
	free(sessions);
	home_free(&h);
}

static void doctor_reports_storage_others_can_read(void **state)
{
	home h;
	t_run r;
	char *sessions;

	(void)state;
	home_make(&h);
	sessions = t_sprintf("%s/sessions", h.dir);
	chmod(sessions, 0755);
	r = doctor(&h, NULL);
	expect_failure(&r, "readable by others (mode 755)", "chmod 700");
	t_run_free(&r);
	free(sessions);
	home_free(&h);
}

static void doctor_reports_a_bad_config_with_position(void **state)
{
	home h;
	t_run r;
	char *cfg;

	(void)state;
	home_make(&h);
	cfg = t_sprintf("%s/config.toml", h.dir);
	t_write_file(cfg, "[review]\nmode = always\n");
	r = doctor(&h, NULL);
	expect_failure(&r, "config.toml:2:8:", "correct the file");
	t_run_free(&r);
	/* unknown keys are shown but do not fail the check */
	t_write_file(cfg, "[review]\nmood = \"always\"\n");
	r = doctor(&h, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "unknown key 'mood'"));
	t_run_free(&r);
	free(cfg);
	home_free(&h);
}

static void doctor_reports_templates_it_cannot_use(void **state)
{
	home h;
	t_run r;
	char *cfg, *tmpl;

	(void)state;
	home_make(&h);
	cfg = t_sprintf("%s/config.toml", h.dir);
	t_write_file(cfg, "[templates]\nactive = \"terse\"\n");
	r = doctor(&h, NULL);
	expect_failure(&r, "template 'terse' not found", "block-terse.md");
	t_run_free(&r);
	tmpl = t_sprintf("%s/templates/block-terse.md", h.dir);
	t_write_file(tmpl, "");
	r = doctor(&h, NULL);
	expect_failure(&r, "template 'terse' at", "non-empty UTF-8");
	t_run_free(&r);
	t_write_file(tmpl, "Review please: {{session_id}}\n");
	r = doctor(&h, NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	free(tmpl);
	free(cfg);
	home_free(&h);
}

static void doctor_reports_a_miswired_plugin(void **state)
{
	home h;
	t_run r;
	char *plugin, *hooks, *src, *text, *bad;

	(void)state;
	home_make(&h);
	plugin = t_sprintf("%s/plugin", h.dir);
	hooks = t_sprintf("%s/hooks/hooks.json", plugin);
	t_write_file(hooks, "{not json");
	r = doctor(&h, plugin);
	expect_failure(&r, "not a valid hooks file", "restore hooks.json");
	t_run_free(&r);
	/* the real file with PreToolUse limited to Bash and SubagentStop's matcher lost */
	src = t_sprintf("%s/plugin/hooks/hooks.json", ROZ_SOURCE_DIR);
	text = t_read_file(src, NULL);
	assert_non_null(text);
	bad = strstr(text, "\"PreToolUse\": [\n      {");
	assert_non_null(bad);
	{
		char *edited = t_sprintf("%.*s\"PreToolUse\": [\n      {\"matcher\": \"Bash\", %s", (int)(bad - text),
					 text, bad + strlen("\"PreToolUse\": [\n      {"));
		char *m = strstr(edited, "\"^roz:roz$\", \"hooks\": [{\"type\": \"command\", \"command\": \"roz hook subagent-stop\"");

		assert_non_null(m);
		memcpy(m, "\"^roz:ro.$\"", 10);
		t_write_file(hooks, edited);
		free(edited);
	}
	r = doctor(&h, plugin);
	expect_failure(&r, "2 hooks not wired to roz", "restore hooks.json");
	assert_non_null(strstr(r.out, "PreToolUse: a matcher (\"Bash\")"));
	assert_non_null(strstr(r.out, "SubagentStop: matcher should be \"^roz:roz$\""));
	t_run_free(&r);
	free(text);
	free(src);
	free(plugin);
	free(hooks);
	home_free(&h);
}

/* Run roz with stdout on /dev/full: the write fails and roz must say so. */
/* Make a file look `secs` old. */
static void age_file(const char *path, long secs)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= secs;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/*
 * A session's lock file stays while the session does. One whose session was
 * never saved, and a temp file a killed writer left, go with `roz clean`
 * once they are old; a live session's lock file and a fresh one stay.
 */
static void clean_sweeps_orphaned_lock_and_temp_files(void **state)
{
	home h;
	const char *prompt[] = {"hook", "user-prompt", NULL}, *clean[] = {"clean", "--all", NULL};
	char *live = NULL, *orphan = NULL, *fresh = NULL, *temp = NULL;
	t_run r;

	(void)state;
	home_make(&h);
	t_run_roz(&r, "{\"session_id\":\"live\",\"cwd\":\"/w\",\"prompt\":\"#roz go\"}",
		  (const char *const *)h.env, prompt);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	live = t_sprintf("%s/sessions/live.lock", h.dir);
	orphan = t_sprintf("%s/sessions/gone.lock", h.dir);
	fresh = t_sprintf("%s/sessions/new.lock", h.dir);
	temp = t_sprintf("%s/sessions/live.json.tmp-locked", h.dir);
	assert_int_equal(access(live, F_OK), 0);
	t_write_file(orphan, "");
	t_write_file(fresh, "");
	t_write_file(temp, "{\"half");
	age_file(live, 3600);
	age_file(orphan, 3600);
	age_file(temp, 3600);
	t_run_roz(&r, NULL, (const char *const *)h.env, clean);
	assert_int_equal(r.status, 0);
	/* the live session is still under review: kept, with its lock file */
	if (!strstr(r.out, "gone.lock") || !strstr(r.out, "live.json.tmp-locked") || strstr(r.out, "new.lock") ||
	    strstr(r.out, "live.lock"))
		fail_msg("clean said:\n%s", r.out);
	t_run_free(&r);
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(access(fresh, F_OK), 0);
	assert_int_not_equal(access(orphan, F_OK), 0);
	assert_int_not_equal(access(temp, F_OK), 0);
	free(live);
	free(orphan);
	free(fresh);
	free(temp);
	home_free(&h);
}

/*
 * A corrupt file moved aside keeps the time of its last write. `roz clean
 * --before` must not take that for the time of the move: evidence moved
 * aside a moment ago stays for the whole age, and goes after it.
 */
static void clean_keeps_evidence_it_just_moved_aside(void **state)
{
	home h;
	const char *prompt[] = {"hook", "user-prompt", NULL};
	const char *clean_week[] = {"clean", "--before", "7d", NULL}, *clean_all[] = {"clean", "--all", NULL};
	char *json, *sessions, *moved = NULL, *old;
	t_run r;

	(void)state;
	home_make(&h);
	sessions = t_sprintf("%s/sessions", h.dir);
	json = t_sprintf("%s/q1.json", sessions);
	t_write_file(json, "{\"session_id\": \"q1\", \"review\": ");
	age_file(json, 30 * 86400);
	/* moved aside by roz long ago, by its name, and untouched since */
	old = t_sprintf("%s/q0.json.corrupt-20200101T000000Z", sessions);
	t_write_file(old, "garbage");
	age_file(old, 30 * 86400);
	t_run_roz(&r, "{\"session_id\":\"q1\",\"cwd\":\"/w\",\"prompt\":\"#roz again\"}",
		  (const char *const *)h.env, prompt);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "moved it to"));
	t_run_free(&r);
	{
		DIR *d = opendir(sessions);
		struct dirent *de;

		assert_non_null(d);
		while ((de = readdir(d)) != NULL)
			if (strncmp(de->d_name, "q1.json.corrupt-", 16) == 0)
				moved = t_sprintf("%s/%s", sessions, de->d_name);
		closedir(d);
	}
	assert_non_null(moved);

	t_run_roz(&r, NULL, (const char *const *)h.env, clean_week);
	assert_int_equal(r.status, 0);
	if (access(moved, F_OK) != 0 || strstr(r.out, "q1.json.corrupt-"))
		fail_msg("clean --before 7d removed what was moved aside just now:\n%s", r.out);
	if (access(old, F_OK) == 0 || !strstr(r.out, "q0.json.corrupt-20200101T000000Z"))
		fail_msg("clean --before 7d kept what was moved aside years ago:\n%s", r.out);
	t_run_free(&r);
	t_run_roz(&r, NULL, (const char *const *)h.env, clean_all);
	assert_int_equal(r.status, 0);
	assert_int_not_equal(access(moved, F_OK), 0);
	t_run_free(&r);
	free(old);
	free(moved);
	free(json);
	free(sessions);
	home_free(&h);
}

/*
 * A FIFO where a session file belongs used to hang `roz hook stop` for
 * good. The hook answers {} at once with a warning naming the FIFO, which
 * stays where it was.
 */
static void hook_answers_at_once_on_a_fifo(void **state)
{
	home h;
	const char *stop[] = {"hook", "stop", NULL};
	char *fifo;
	struct stat st;
	t_run r;

	(void)state;
	home_make(&h);
	fifo = t_sprintf("%s/sessions/ff.json", h.dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(20); /* a hook that hangs fails the test instead of the suite's timeout */
	t_run_roz(&r, "{\"session_id\":\"ff\",\"cwd\":\"/w\"}", (const char *const *)h.env, stop);
	alarm(0);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "{}\n");
	if (!strstr(r.err, "roz: warning:") || !strstr(r.err, "is a FIFO, not a session file"))
		fail_msg("stderr was:\n%s", r.err);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	t_run_free(&r);
	free(fifo);
	home_free(&h);
}

/*
 * A sessions directory anyone could write to was used as it was. The first
 * hook makes it private and says so on stderr; the next says nothing.
 */
static void hook_makes_an_open_sessions_dir_private(void **state)
{
	home h;
	const char *prompt[] = {"hook", "user-prompt", NULL};
	const char *in = "{\"session_id\":\"p1\",\"cwd\":\"/w\",\"prompt\":\"#roz go\"}";
	char *sessions;
	struct stat st;
	t_run r;

	(void)state;
	home_make(&h);
	sessions = t_sprintf("%s/sessions", h.dir);
	assert_int_equal(chmod(sessions, 0777), 0);
	t_run_roz(&r, in, (const char *const *)h.env, prompt);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "{}\n");
	if (!strstr(r.err, "roz: warning:") || !strstr(r.err, "was writable by group or others (mode 777); "
								 "made it private (mode 700)"))
		fail_msg("stderr was:\n%s", r.err);
	t_run_free(&r);
	assert_int_equal(stat(sessions, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	t_run_roz(&r, in, (const char *const *)h.env, prompt);
	assert_string_equal(r.err, "");
	t_run_free(&r);
	free(sessions);
	home_free(&h);
}

/* Bytes a terminal may act on: C0 but newline and tab, DEL, C1 (UTF-8), bidi controls, bytes not UTF-8. */
static const char *raw_control(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len; i++) {
		if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f || p[i] == 0xff)
			return s + i;
		if (p[i] == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
			return s + i;
		if (p[i] == 0xe2 && i + 2 < len && ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
						    (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)))
			return s + i;
	}
	return NULL;
}

static t_run run_cmd(home *h, const char *a, const char *b, const char *c)
{
	const char *argv[] = {a, b, c, NULL};
	t_run r;

	t_run_roz(&r, NULL, (const char *const *)h->env, argv);
	return r;
}

/*
 * What people read is shown with controls escaped; what scripts read
 * (--json) is the stored text exactly, escaped only as JSON must be.
 */
static void views_escape_controls_and_json_keeps_them(void **state)
{
	/* views of text say \x1b; views of JSON keep JSON's own \u001b for what it escapes */
	static const char *const text_form = "\\x1b]0;t\\x07b\\rc\\u009b2Jd\\u202ee";
	static const char *const json_form = "\\u001b]0;t\\u0007b\\rc\\u009b2Jd\\u202ee";
	const char *const human[][4] = {
		{"list", NULL, NULL, text_form},  {"context", "e1", NULL, text_form},
		{"trace", "e1", NULL, json_form}, {"trace", "e1", "-v", json_form},
		{"debug", "e1", NULL, json_form},
	};
	home h;
	const char *prompt[] = {"hook", "user-prompt", NULL};
	t_run r;

	(void)state;
	home_make(&h);
	/* ESC ] title BEL, CR, CSI as C1 (U+009B), a right-to-left override, a tab, a newline */
	t_run_roz(&r, "{\"session_id\":\"e1\",\"cwd\":\"/w\",\"prompt\":\"#roz a\\u001b]0;t\\u0007b\\rc"
		      "\\u009b2Jd\\u202ee\\tf\\ng\"}",
		  (const char *const *)h.env, prompt);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	for (size_t i = 0; i < sizeof(human) / sizeof(human[0]); i++) {
		const char *bad;

		r = run_cmd(&h, human[i][0], human[i][1], human[i][2]);
		assert_int_equal(r.status, 0);
		if ((bad = raw_control(r.out, r.out_len)) != NULL)
			fail_msg("roz %s printed byte 0x%02x raw:\n%s", human[i][0], (unsigned char)*bad, r.out);
		if (!strstr(r.out, human[i][3]))
			fail_msg("roz %s did not show the escapes:\n%s", human[i][0], r.out);
		t_run_free(&r);
	}
	/* context keeps the prompt's lines and its tab */
	r = run_cmd(&h, "context", "e1", NULL);
	assert_non_null(strstr(r.out, "\\u202ee\tf\n    g\n"));
	t_run_free(&r);
	r = run_cmd(&h, "list", "--json", NULL);
	assert_non_null(strstr(r.out, "\"first_prompt\":\"#roz a\\u001b]0;t\\u0007b\\rc\xc2\x9b" "2Jd\xe2\x80\xae"
				      "e\\tf\\ng\""));
	t_run_free(&r);
	r = run_cmd(&h, "context", "e1", "--json");
	assert_non_null(strstr(r.out, "\"user_prompts\":[\"#roz a\\u001b]0;t\\u0007b\\rc\xc2\x9b" "2Jd\xe2\x80\xae"
				      "e\\tf\\ng\"]"));
	t_run_free(&r);
	r = run_cmd(&h, "debug", "e1", "--json");
	assert_non_null(strstr(r.out, "\"#roz a\\u001b]0;t\\u0007b\\rc\xc2\x9b" "2Jd\xe2\x80\xae" "e\\tf\\ng\""));
	t_run_free(&r);
	home_free(&h);
}

/* A file name in the sessions directory is whatever its maker chose: clean shows it escaped. */
static void clean_shows_file_names_escaped(void **state)
{
	home h;
	char *name;
	t_run r;

	(void)state;
	home_make(&h);
	name = t_sprintf("%s/sessions/x\x1b[2J\xff.json.corrupt-20200101T000000Z", h.dir);
	t_write_file(name, "garbage");
	r = run_cmd(&h, "clean", "--all", NULL);
	assert_int_equal(r.status, 0);
	if (raw_control(r.out, r.out_len) || !strstr(r.out, "  x\\x1b[2J\\xff.json.corrupt-20200101T000000Z\n"))
		fail_msg("clean said:\n%s", r.out);
	assert_int_not_equal(access(name, F_OK), 0);
	t_run_free(&r);
	free(name);
	home_free(&h);
}

static int run_to_full(const char *arg, char *err, size_t errsize)
{
	int pipefd[2], st;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		int full = open("/dev/full", O_WRONLY);

		dup2(full, 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execl(ROZ_BINARY, "roz", arg, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	/* stderr is unbuffered: the message may come in several writes */
	for (size_t got = 0;;) {
		n = read(pipefd[0], err + got, errsize - 1 - got);
		if (n <= 0) {
			err[got] = '\0';
			break;
		}
		got += (size_t)n;
	}
	close(pipefd[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void a_failed_write_to_stdout_is_an_error(void **state)
{
	char err[512];

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	assert_int_equal(run_to_full("--version", err, sizeof(err)), 1);
	if (!strstr(err, "roz: error: cannot write to standard output"))
		fail_msg("stderr was: '%s'", err);
	assert_int_equal(run_to_full("--help", err, sizeof(err)), 1);
}

static void usage_mistakes_exit_2(void **state)
{
	static const char *const cases[][3] = {
		{"list", "--limit", "x"}, {"stats", "--days", "-1"}, {"clean", "--before", "soon"},
		{"trace", NULL, NULL},    {"debug", "a", "b"},      {"doctor", "--frob", NULL},
	};
	home h;

	(void)state;
	home_make(&h);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[4] = {cases[i][0], cases[i][1], cases[i][1] ? cases[i][2] : NULL, NULL};
		t_run r;

		t_run_roz(&r, NULL, (const char *const *)h.env, argv);
		if (r.status != 2 || !strstr(r.err, "roz: error:") || !strstr(r.err, "--help"))
			fail_msg("roz %s: exit %d, stderr:\n%s", cases[i][0], r.status, r.err);
		t_run_free(&r);
	}
	home_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doctor_passes_on_a_good_install),
		cmocka_unit_test(doctor_reports_roz_missing_from_path),
		cmocka_unit_test(doctor_reports_another_roz_on_path),
		cmocka_unit_test(doctor_reports_missing_storage),
		cmocka_unit_test(doctor_reports_storage_others_can_read),
		cmocka_unit_test(doctor_reports_a_bad_config_with_position),
		cmocka_unit_test(doctor_reports_templates_it_cannot_use),
		cmocka_unit_test(doctor_reports_a_miswired_plugin),
		cmocka_unit_test(clean_sweeps_orphaned_lock_and_temp_files),
		cmocka_unit_test(clean_keeps_evidence_it_just_moved_aside),
		cmocka_unit_test(hook_answers_at_once_on_a_fifo),
		cmocka_unit_test(hook_makes_an_open_sessions_dir_private),
		cmocka_unit_test(views_escape_controls_and_json_keeps_them),
		cmocka_unit_test(clean_shows_file_names_escaped),
		cmocka_unit_test(a_failed_write_to_stdout_is_an_error),
		cmocka_unit_test(usage_mistakes_exit_2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
