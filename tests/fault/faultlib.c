/*
 * faultlib.c - helpers for the fault and crash tests: homes, running roz as
 * Claude Code does (a fresh process, stdin in, stdout and stderr out), and
 * reading the session directory back.
 */
#include "faultlib.h"

#include "roz/json.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "roz/session_json.h"

int64_t fl_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void fl_sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

bool fl_under_valgrind(void)
{
	const char *v = getenv("ROZ_UNDER_VALGRIND");

	return v && *v && strcmp(v, "0") != 0;
}

uint64_t fl_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static const char *scratch_base(void)
{
	const char *v = getenv("ROZ_FAULT_TMPDIR");
	struct stat st;

	if (v && *v)
		return v;
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	v = getenv("TMPDIR");
	return v && *v ? v : "/tmp";
}

static char *make_temp_dir(const char *parent)
{
	char *tmpl = t_sprintf("%s/roz-fault-XXXXXX", parent);

	if (!mkdtemp(tmpl))
		fail_msg("mkdtemp %s: %s", tmpl, strerror(errno));
	return tmpl;
}

void fl_home_make_in(fl_home *h, const char *parent, const char *id, const char *config)
{
	char *path;

	h->dir = make_temp_dir(parent ? parent : scratch_base());
	/* the runs' streams live apart, so a home on a full file system can still be watched */
	h->io = make_temp_dir(scratch_base());
	h->sessions = t_sprintf("%s/sessions", h->dir);
	h->file = t_sprintf("%s/%s.json", h->sessions, id);
	h->trace = t_sprintf("%s/%s.trace.jsonl", h->sessions, id);
	h->id = t_sprintf("%s", id);
	if (mkdir(h->sessions, 0700) < 0)
		fail_msg("mkdir %s: %s", h->sessions, strerror(errno));
	if (config) {
		path = t_sprintf("%s/config.toml", h->dir);
		t_write_file(path, config);
		free(path);
	}
}

void fl_home_make(fl_home *h, const char *id, const char *config)
{
	fl_home_make_in(h, NULL, id, config);
}

void fl_home_dispose(fl_home *h)
{
	if (!h->dir)
		return;
	t_rmtree(h->dir);
	t_rmtree(h->io);
	free(h->dir);
	free(h->sessions);
	free(h->io);
	free(h->file);
	free(h->trace);
	free(h->id);
	memset(h, 0, sizeof(*h));
}

static void write_bytes(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n <= 0)
			fail_msg("cannot write %s: %s", path, strerror(errno));
		text += n;
		len -= (size_t)n;
	}
	close(fd);
}

void fl_set_session(const fl_home *h, const char *text, size_t len)
{
	struct dirent *de;
	DIR *d;

	if (mkdir(h->sessions, 0700) < 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", h->sessions, strerror(errno));
	d = opendir(h->sessions);
	if (!d)
		fail_msg("cannot list %s: %s", h->sessions, strerror(errno));
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	if (text)
		write_bytes(h->file, text, len);
}

char *fl_get_session(const fl_home *h, size_t *len)
{
	return t_read_file(h->file, len);
}

void fl_set_trace(const fl_home *h, const char *text, size_t len)
{
	if (unlink(h->trace) < 0 && errno != ENOENT)
		fail_msg("unlink %s: %s", h->trace, strerror(errno));
	if (text)
		write_bytes(h->trace, text, len);
}

char *fl_get_trace(const fl_home *h, size_t *len)
{
	return t_read_file(h->trace, len);
}

void fl_trace_count(const char *text, size_t len, fl_trace_lines *out)
{
	size_t start = 0;

	memset(out, 0, sizeof(*out));
	while (text && start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (!nl)
			out->torn = true;
		else if (end > start && text[start] == '{' && roz_json_valid(text + start, end - start))
			out->events++;
		else
			out->bad++;
		start = end + 1;
	}
}

static bool starts(const char *s, const char *prefix, size_t n)
{
	return strncmp(s, prefix, n) == 0;
}

void fl_leftovers_scan(const fl_home *h, fl_leftovers *l)
{
	size_t idlen = strlen(h->id);
	struct dirent *de;
	DIR *d = opendir(h->sessions);

	memset(l, 0, sizeof(*l));
	if (!d && errno == ENOENT)
		return; /* not created yet: nothing left behind either */
	if (!d)
		fail_msg("cannot list %s: %s", h->sessions, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name, *rest = n + idlen;

		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (starts(n, h->id, idlen) && (strcmp(rest, ".json") == 0 || strcmp(rest, ".trace.jsonl") == 0))
			continue;
		if (starts(n, h->id, idlen) && (starts(rest, ".json.tmp-", 10) || starts(rest, ".trace.jsonl.tmp-", 17))) {
			l->tmp++;
			l->trace_tmp += starts(rest, ".trace.jsonl.tmp-", 17);
		}
		else if (starts(n, h->id, idlen) && strcmp(rest, ".lock") == 0)
			l->lock++;
		else if (starts(n, h->id, idlen) &&
			 (starts(rest, ".json.corrupt-", 14) || starts(rest, ".trace.jsonl.corrupt-", 21)))
			l->corrupt++;
		else
			l->other++;
		if (strlen(l->names) + strlen(n) + 2 < sizeof(l->names)) {
			strcat(l->names, " ");
			strcat(l->names, n);
		}
	}
	closedir(d);
}

pid_t fl_spawn(const fl_home *h, int slot, const fl_cmd *c)
{
	char *in = t_sprintf("%s/in-%d", h->io, slot), *out = t_sprintf("%s/out-%d", h->io, slot);
	char *err = t_sprintf("%s/err-%d", h->io, slot);
	char *argv[32], *envp[40];
	int na = 0, ne = 0;
	pid_t pid;

	write_bytes(in, c->stdin_text ? c->stdin_text : "", c->stdin_text ? strlen(c->stdin_text) : 0);
	argv[na++] = t_sprintf("%s", ROZ_BINARY);
	for (const char *const *a = c->argv; a && *a && na < 31; a++)
		argv[na++] = t_sprintf("%s", *a);
	argv[na] = NULL;
	/* built from scratch, so nothing of the caller's (ROZ_CONFIG, LD_PRELOAD, ...) leaks in */
	envp[ne++] = t_sprintf("PATH=/usr/bin:/bin");
	envp[ne++] = t_sprintf("HOME=%s", h->dir);
	envp[ne++] = t_sprintf("ROZ_HOME=%s", h->dir);
	envp[ne++] = t_sprintf("ROZ_WATCH_IDLE_S=60"); /* a watcher a hook starts outlives the test by at most this */
	for (const char *const *e = c->env; e && *e && ne < 39; e++)
		envp[ne++] = t_sprintf("%s", *e);
	envp[ne] = NULL;
	pid = fork();
	if (pid < 0)
		fail_msg("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd0 = open(in, O_RDONLY);
		int fd1 = open(c->stdout_path ? c->stdout_path : out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fd2 = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd0 < 0 || fd1 < 0 || fd2 < 0 || dup2(fd0, 0) < 0 || dup2(fd1, 1) < 0 || dup2(fd2, 2) < 0)
			_exit(126);
		execve(ROZ_BINARY, argv, envp);
		_exit(127);
	}
	for (int i = 0; i < na; i++)
		free(argv[i]);
	for (int i = 0; i < ne; i++)
		free(envp[i]);
	if (c->stdout_path)
		write_bytes(out, "", 0); /* nothing captured */
	free(in);
	free(out);
	free(err);
	return pid;
}

void fl_reap(const fl_home *h, int slot, pid_t pid, int64_t started_us, fl_result *r)
{
	char *out = t_sprintf("%s/out-%d", h->io, slot), *err = t_sprintf("%s/err-%d", h->io, slot);
	int st;

	memset(r, 0, sizeof(*r));
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			fail_msg("waitpid: %s", strerror(errno));
	}
	r->usec = fl_now_us() - started_us;
	r->signaled = WIFSIGNALED(st);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->out = t_read_file(out, NULL);
	r->err = t_read_file(err, NULL);
	if (!r->out)
		r->out = strdup("");
	if (!r->err)
		r->err = strdup("");
	free(out);
	free(err);
}

void fl_run(const fl_home *h, const fl_cmd *c, fl_result *r)
{
	int64_t t0 = fl_now_us();
	pid_t pid = fl_spawn(h, 0, c);

	fl_reap(h, 0, pid, t0, r);
}

void fl_result_dispose(fl_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

bool fl_one_json_object(const char *text)
{
	size_t n = strlen(text);
	const char *end = NULL;
	cJSON *doc;
	bool ok;

	if (n < 3 || text[n - 1] != '\n')
		return false;
	doc = cJSON_ParseWithLengthOpts(text, n - 1, &end, false);
	ok = cJSON_IsObject(doc) && end == text + n - 1;
	cJSON_Delete(doc);
	return ok;
}

bool fl_session_parses(const char *text, size_t len)
{
	roz_session *s = NULL;
	int rc = roz_session_json_parse(text, len, &s);

	roz_session_free(s);
	return rc == ROZ_OK;
}

/* "2026-01-01T00:00:00.123Z" and the like. */
static bool is_time(const char *s, size_t n)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	if (n < 20 || s[n - 1] != 'Z')
		return false;
	for (i = 0; i < 19; i++) {
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	}
	if (i == n - 1)
		return true;
	if (s[i++] != '.')
		return false;
	for (; i < n - 1; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* 8-4-4-4-12 hex digits. */
static bool is_uuid(const char *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return true;
}

char *fl_normalize(const char *text)
{
	size_t n = strlen(text), o = 0;
	char *out = malloc(n + 1);

	if (!out)
		fail_msg("out of memory");
	for (size_t i = 0; i < n;) {
		size_t j;

		if (text[i] != '"') {
			out[o++] = text[i++];
			continue;
		}
		/* a JSON string: find its end, skipping escapes */
		for (j = i + 1; j < n && text[j] != '"'; j++)
			if (text[j] == '\\' && j + 1 < n)
				j++;
		if (is_time(text + i + 1, j - i - 1)) {
			memcpy(out + o, "\"T\"", 3);
			o += 3;
		} else if (is_uuid(text + i + 1, j - i - 1)) {
			memcpy(out + o, "\"U\"", 3);
			o += 3;
		} else {
			size_t len = (j < n ? j + 1 : n) - i;

			memcpy(out + o, text + i, len);
			o += len;
		}
		i = j < n ? j + 1 : n;
	}
	out[o] = '\0';
	return out;
}
