/*
 * support.c - test helpers: temp directories, file I/O and a runner for the
 * real roz executable that feeds stdin and captures stdout and stderr.
 */
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *t_sprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		fail_msg("vasprintf failed");
	return s;
}

char *t_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = t_sprintf("%s/roz-test-XXXXXX", base && *base ? base : "/tmp");

	if (!mkdtemp(tmpl))
		fail_msg("mkdtemp: %s", strerror(errno));
	return tmpl;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void t_rmtree(const char *path)
{
	if (path)
		nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *t_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				fail_msg("out of memory");
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void mkdirs_for(const char *path)
{
	char *p = strdup(path), *s;

	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0700);
		*s = '/';
	}
	free(p);
}

void t_write_file(const char *path, const char *text)
{
	FILE *f;

	mkdirs_for(path);
	f = fopen(path, "wb");
	if (!f)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	fwrite(text, 1, strlen(text), f);
	fclose(f);
}

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			fail_msg("out of memory");
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

void t_run_roz(t_run *r, const char *stdin_text, const char *const *env, const char *const *argv)
{
	int in[2], out[2], err[2], st;
	size_t in_len = stdin_text ? strlen(stdin_text) : 0, in_off = 0;
	size_t out_cap = 0, err_cap = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe(in) || pipe(out) || pipe(err))
		fail_msg("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		fail_msg("fork: %s", strerror(errno));
	if (pid == 0) {
		char *args[64];
		char *envp[64];
		int na = 0, ne = 0;
		const char *path = getenv("PATH"), *home = getenv("HOME");
		/* a watcher a hook starts (roz watch) outlives the test by at most this */
		const char *idle = "ROZ_WATCH_IDLE_S=60";

		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(in[1]);
		close(out[0]);
		close(err[0]);
		args[na++] = strdup(ROZ_BINARY);
		for (; argv && *argv && na < 63; argv++)
			args[na++] = strdup(*argv);
		args[na] = NULL;
		for (const char *const *e = env; e && *e; e++) {
			/* a variable the test sets replaces the inherited one */
			if (strncmp(*e, "PATH=", 5) == 0)
				path = NULL;
			if (strncmp(*e, "HOME=", 5) == 0)
				home = NULL;
			if (strncmp(*e, "ROZ_WATCH_IDLE_S=", 17) == 0)
				idle = NULL;
		}
		if (path)
			envp[ne++] = t_sprintf("PATH=%s", path);
		if (home)
			envp[ne++] = t_sprintf("HOME=%s", home);
		if (idle)
			envp[ne++] = strdup(idle);
		for (; env && *env && ne < 63; env++)
			envp[ne++] = strdup(*env);
		envp[ne] = NULL;
		execve(ROZ_BINARY, args, envp);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	signal(SIGPIPE, SIG_IGN);
	if (!in_len)
		close(in[1]);
	{
		struct pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in_len ? in[1] : -1, POLLOUT, 0}};
		int open_fds = 2;
		char buf[65536];

		while (open_fds > 0 || fds[2].fd >= 0) {
			if (poll(fds, 3, -1) < 0) {
				if (errno == EINTR)
					continue;
				fail_msg("poll: %s", strerror(errno));
			}
			for (int i = 0; i < 2; i++) {
				if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
					ssize_t n = read(fds[i].fd, buf, sizeof(buf));

					if (n <= 0) {
						close(fds[i].fd);
						fds[i].fd = -1;
						open_fds--;
					} else if (i == 0) {
						append(&r->out, &r->out_len, &out_cap, buf, (size_t)n);
					} else {
						append(&r->err, &r->err_len, &err_cap, buf, (size_t)n);
					}
				}
			}
			if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
				ssize_t n = write(fds[2].fd, stdin_text + in_off, in_len - in_off);

				if (n <= 0 || (in_off += (size_t)n) >= in_len) {
					close(fds[2].fd);
					fds[2].fd = -1;
				}
			}
		}
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (!r->out)
		r->out = strdup("");
	if (!r->err)
		r->err = strdup("");
}

void t_run_dispose(t_run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

int t_setup_tmpdir(void **state)
{
	*state = t_mkdtemp();
	return 0;
}

int t_teardown_tmpdir(void **state)
{
	t_rmtree(*state);
	free(*state);
	return 0;
}

char *t_at(const char *dir, const char *rel)
{
	return t_sprintf("%s/%s", dir, rel);
}

void t_put(const char *dir, const char *rel, const char *text)
{
	char *p = t_at(dir, rel);

	t_write_file(p, text);
	free(p);
}
