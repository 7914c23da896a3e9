/*
 * proc.c - what the benchmarks share: small file helpers, and starting one
 * process the way Claude Code starts a hook (JSON on its stdin, stdout and
 * stderr read to EOF, then wait), timed from just before the spawn to just
 * after the wait.
 */
#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char work[PATH_CAP];
bool keep_work;

static uint64_t rng_state;

void proc_init(unsigned long seed)
{
	signal(SIGPIPE, SIG_IGN);
	for (int fd = open("/dev/null", O_RDWR); fd >= 0 && fd <= 2; fd = open("/dev/null", O_RDWR))
		;
	rng_state = 0x9E3779B97F4A7C15ULL ^ (seed * 0xBF58476D1CE4E5B9ULL);
	if (!rng_state)
		rng_state = 1;
}

uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

stats summarize(double *v, size_t n)
{
	stats s = {0, 0, 0};

	if (!n)
		return s;
	qsort(v, n, sizeof(*v), cmp_double);
	s.p50 = v[(size_t)ceil(0.50 * (double)n) - 1];
	s.p90 = v[(size_t)ceil(0.90 * (double)n) - 1];
	s.p99 = v[(size_t)ceil(0.99 * (double)n) - 1];
	return s;
}

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("bench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (work[0] && !keep_work)
		fprintf(stderr, "bench: the scratch directory %s is left for inspection\n", work);
	exit(1);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

/* Every path here is built from short fixed parts; one that does not fit is a bug. */
void fmt_path(char *dst, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, PATH_CAP, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_CAP)
		die("path too long: %s", dst);
}

double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void make_dir(const char *path)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

void write_file(const char *path, const char *text, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t off = 0;

	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("write %s: %s", path, strerror(errno));
		off += (size_t)n;
	}
	if (close(fd) < 0)
		die("close %s: %s", path, strerror(errno));
}

/*
 * Copy through a small buffer rather than holding files in memory: a child
 * started by posix_spawn shares this process's memory until it execs, and
 * the kernel folds that peak into the child's ru_maxrss.
 */
void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[16384];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		die("open %s: %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0)
		die("create %s: %s", to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read %s: %s", from, strerror(errno));
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				die("write %s: %s", to, strerror(errno));
			off += w;
		}
	}
	close(in);
	if (close(out) < 0)
		die("close %s: %s", to, strerror(errno));
}

bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

void rmtree(const char *path)
{
	if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		fprintf(stderr, "bench: warning: cannot remove %s: %s\n", path, strerror(errno));
}

static void keep_bytes(char *dst, size_t cap, size_t *len, const char *src, size_t n)
{
	size_t room = *len + 1 < cap ? cap - 1 - *len : 0;

	if (n > room)
		n = room;
	memcpy(dst + *len, src, n);
	*len += n;
	dst[*len] = '\0';
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void make_git_stub(const char *dir)
{
	char p[PATH_CAP];

	make_dir(dir);
	fmt_path(p, "%s/.git", dir);
	make_dir(p);
	fmt_path(p, "%s/.git/HEAD", dir);
	write_file(p, "ref: refs/heads/main\n", 21, 0600);
}

/*
 * Start argv[0] with input on its stdin, read its stdout and stderr to EOF
 * and reap it. The clock runs from just before the spawn to just after the
 * wait, so it covers what Claude Code waits for; the pipes are made first.
 */
void run_proc(char *const argv[], char *const envp[], const char *input, size_t len,
		     run_result *r)
{
	int in[2], out[2], err[2], st, rc;
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	size_t off = 0;
	double t0;
	pid_t pid;

	r->out_len = r->err_len = 0;
	r->out[0] = r->err[0] = '\0';
	r->status = -1;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	/* never block on a child that stops reading; poll says when it can take more */
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);

	t0 = now_us();
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (rc != 0) {
		close(in[1]);
		close(out[0]);
		close(err[0]);
		die("cannot start %s: %s", argv[0], strerror(rc));
	}
	if (len == 0)
		close_fd(&in[1]);
	while (in[1] >= 0 || out[0] >= 0 || err[0] >= 0) {
		struct pollfd p[3] = {{in[1], POLLOUT, 0}, {out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
		char chunk[4096];
		ssize_t n;

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (p[0].revents) {
			n = write(in[1], input + off, len - off);
			if (n > 0)
				off += (size_t)n;
			/* a child that exits without reading all its input is its own business */
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || off == len)
				close_fd(&in[1]);
		}
		for (int k = 1; k <= 2; k++) {
			int *fd = k == 1 ? &out[0] : &err[0];

			if (!p[k].revents)
				continue;
			n = read(*fd, chunk, sizeof(chunk));
			if (n > 0 && k == 1)
				keep_bytes(r->out, OUT_CAP, &r->out_len, chunk, (size_t)n);
			else if (n > 0)
				keep_bytes(r->err, ERR_CAP, &r->err_len, chunk, (size_t)n);
			else if (n == 0 || (errno != EINTR && errno != EAGAIN))
				close_fd(fd);
		}
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	r->us = now_us() - t0;
	r->cpu_us = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	r->rss_kib = ru.ru_maxrss;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

