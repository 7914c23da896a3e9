/*
 * failshim.c - LD_PRELOAD library for roz's fault tests: fails the Nth call of
 * one libc function with a chosen errno, counts every call it watches, and can
 * pin the wall clock and getrandom() so two runs of a hook write the same bytes.
 *
 * Environment (all optional; with none set the shim only counts):
 *   FAILSHIM_FUNC    open read write fsync fdatasync rename close flock mkdir
 *                    link unlink malloc calloc realloc
 *   FAILSHIM_NTH     first call to fail (1-based)
 *   FAILSHIM_TIMES   how many calls fail from there (default 1; 0 = all)
 *   FAILSHIM_ERRNO   ENOSPC, EIO, ... or a number; SHORT makes read/write
 *                    move half the bytes instead of failing
 *   FAILSHIM_REPORT  file to write per-function call counts and what failed
 *   FAILSHIM_REALTIME  seconds since the epoch for CLOCK_REALTIME
 *   FAILSHIM_SEED    getrandom() returns a fixed xorshift stream from this
 *
 * open counts open/open64/openat/openat64, write counts writev, rename counts renameat too, and so
 * on for mkdir, link and unlink. Calls are counted only in the process that
 * loaded the shim: a forked child would otherwise share the countdown.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum {
	F_OPEN, F_READ, F_WRITE, F_FSYNC, F_FDATASYNC, F_RENAME, F_CLOSE, F_FLOCK,
	F_MKDIR, F_LINK, F_UNLINK, F_MALLOC, F_CALLOC, F_REALLOC, F__COUNT
};

static const char *const family_names[F__COUNT] = {
	"open", "read", "write", "fsync", "fdatasync", "rename", "close", "flock",
	"mkdir", "link", "unlink", "malloc", "calloc", "realloc",
};

#define ERR_SHORT (-1)

static struct {
	bool ready, resolving;
	pid_t pid;
	int target; /* family to fail, or -1 */
	long nth, times;
	int err;
	long count[F__COUNT];
	long fired;
	char fired_call[512]; /* the first failed call, for the report */
	const char *report;
	bool fixed_clock;
	struct timespec realtime;
	bool fixed_random;
	uint64_t rng;
} S = {.target = -1};

/* The real functions, found with dlsym(RTLD_NEXT). */
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_close)(int);
static int (*real_flock)(int, int);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_mkdirat)(int, const char *, mode_t);
static int (*real_link)(const char *, const char *);
static int (*real_linkat)(int, const char *, int, const char *, int);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static ssize_t (*real_getrandom)(void *, size_t, unsigned int);

/*
 * dlsym() may itself allocate (calloc for its error state) before the real
 * allocator is known; those few requests are served from this buffer and
 * never freed.
 */
static _Alignas(16) unsigned char boot_heap[16384];
static size_t boot_used;

static void *boot_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n > sizeof(boot_heap) - boot_used)
		return NULL;
	p = boot_heap + boot_used;
	boot_used += n;
	return p; /* static storage starts zeroed, so this serves calloc too */
}

static bool from_boot(const void *p)
{
	return (const unsigned char *)p >= boot_heap && (const unsigned char *)p < boot_heap + sizeof(boot_heap);
}

static const struct {
	const char *name;
	int value;
} errno_names[] = {
	{"ENOSPC", ENOSPC}, {"EIO", EIO}, {"EACCES", EACCES}, {"EPERM", EPERM}, {"ENOMEM", ENOMEM},
	{"EINTR", EINTR}, {"EAGAIN", EAGAIN}, {"EWOULDBLOCK", EWOULDBLOCK}, {"ENOLCK", ENOLCK},
	{"EMFILE", EMFILE}, {"ENFILE", ENFILE}, {"EROFS", EROFS}, {"EXDEV", EXDEV}, {"EDQUOT", EDQUOT},
	{"ENOENT", ENOENT}, {"EEXIST", EEXIST}, {"EBADF", EBADF}, {"EFBIG", EFBIG}, {"EMLINK", EMLINK},
	{"ENAMETOOLONG", ENAMETOOLONG},
};

static int parse_errno(const char *s)
{
	if (!s || !*s)
		return EIO;
	if (strcmp(s, "SHORT") == 0)
		return ERR_SHORT;
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (strcmp(s, errno_names[i].name) == 0)
			return errno_names[i].value;
	return atoi(s) > 0 ? atoi(s) : EIO;
}

#define RESOLVE(name) (*(void **)&real_##name = dlsym(RTLD_NEXT, #name))

static void shim_init(void)
{
	const char *v;
	int saved = errno;

	if (S.ready || S.resolving)
		return;
	S.resolving = true;
	RESOLVE(malloc);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(free);
	RESOLVE(open);
	RESOLVE(open64);
	RESOLVE(openat);
	RESOLVE(openat64);
	RESOLVE(read);
	RESOLVE(write);
	RESOLVE(writev);
	RESOLVE(fsync);
	RESOLVE(fdatasync);
	RESOLVE(rename);
	RESOLVE(renameat);
	RESOLVE(close);
	RESOLVE(flock);
	RESOLVE(mkdir);
	RESOLVE(mkdirat);
	RESOLVE(link);
	RESOLVE(linkat);
	RESOLVE(unlink);
	RESOLVE(unlinkat);
	RESOLVE(clock_gettime);
	RESOLVE(getrandom);

	/* getenv and strtol do not allocate, so reading the settings cannot recurse */
	if ((v = getenv("FAILSHIM_FUNC")) && *v) {
		for (int i = 0; i < F__COUNT; i++)
			if (strcmp(v, family_names[i]) == 0)
				S.target = i;
	}
	v = getenv("FAILSHIM_NTH");
	S.nth = v ? strtol(v, NULL, 10) : 0;
	if (S.nth < 1)
		S.target = -1;
	v = getenv("FAILSHIM_TIMES");
	S.times = v ? strtol(v, NULL, 10) : 1;
	S.err = parse_errno(getenv("FAILSHIM_ERRNO"));
	S.report = getenv("FAILSHIM_REPORT");
	if ((v = getenv("FAILSHIM_REALTIME")) && *v) {
		S.fixed_clock = true;
		S.realtime.tv_sec = (time_t)strtoll(v, NULL, 10);
		S.realtime.tv_nsec = 0;
	}
	if ((v = getenv("FAILSHIM_SEED")) && *v) {
		S.fixed_random = true;
		S.rng = strtoull(v, NULL, 10) * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
		if (!S.rng)
			S.rng = 1;
	}
	S.pid = getpid();
	S.ready = true;
	S.resolving = false;
	errno = saved;
}

__attribute__((constructor)) static void shim_constructor(void)
{
	shim_init();
}

/* Count a call of `family`; true when this one is to fail. `what` names it in the report. */
static bool should_fail(int family, const char *what)
{
	long n;

	if (!S.ready) {
		shim_init();
		if (!S.ready)
			return false;
	}
	if (getpid() != S.pid)
		return false;
	n = ++S.count[family];
	if (family != S.target || n < S.nth || (S.times > 0 && n >= S.nth + S.times))
		return false;
	if (!S.fired++)
		snprintf(S.fired_call, sizeof(S.fired_call), "%s %ld %s", family_names[family], n,
			 what ? what : "-");
	return true;
}

static int fail_with(void)
{
	errno = S.err == ERR_SHORT ? EIO : S.err;
	return -1;
}

/* ---- the report, written at exit through the real functions ---------------- */

static void put(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = real_write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

__attribute__((destructor)) static void shim_report(void)
{
	char line[700];
	int fd;

	if (!S.ready || !S.report || !*S.report || getpid() != S.pid)
		return;
	fd = real_open(S.report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	for (int i = 0; i < F__COUNT; i++) {
		snprintf(line, sizeof(line), "count %s %ld\n", family_names[i], S.count[i]);
		put(fd, line);
	}
	snprintf(line, sizeof(line), "fired %ld\n", S.fired);
	put(fd, line);
	if (S.fired) {
		snprintf(line, sizeof(line), "call %s\n", S.fired_call);
		put(fd, line);
	}
	put(fd, "end\n");
	real_close(fd);
}

/* ---- file calls -------------------------------------------------------------- */

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (should_fail(F_OPEN, path))
		return fail_with();
	return real_open(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (should_fail(F_OPEN, path))
		return fail_with();
	return real_open64(path, flags, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (should_fail(F_OPEN, path))
		return fail_with();
	return real_openat(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (should_fail(F_OPEN, path))
		return fail_with();
	return real_openat64(dirfd, path, flags, mode);
}

static char *fd_name(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "fd %d", fd);
	return buf;
}

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	char what[32];

	if (should_fail(F_READ, fd_name(fd, what, sizeof(what)))) {
		/* a short read is legal and must simply be continued */
		if (S.err == ERR_SHORT && n > 1)
			return real_read(fd, buf, n / 2);
		return fail_with();
	}
	return real_read(fd, buf, n);
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	char what[32];

	if (should_fail(F_WRITE, fd_name(fd, what, sizeof(what)))) {
		if (S.err == ERR_SHORT && n > 1)
			return real_write(fd, buf, n / 2);
		return fail_with();
	}
	return real_write(fd, buf, n);
}

/* Counted as a write: the append-only files (trace, ledger) land with one writev. */
EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	char what[32];

	if (should_fail(F_WRITE, fd_name(fd, what, sizeof(what)))) {
		if (S.err == ERR_SHORT) {
			/* half of the first piece with bytes in it: a line cut short */
			for (int i = 0; i < cnt; i++)
				if (iov[i].iov_len > 1)
					return real_write(fd, iov[i].iov_base, iov[i].iov_len / 2);
		}
		return fail_with();
	}
	return real_writev(fd, iov, cnt);
}

EXPORT int fsync(int fd)
{
	char what[32];

	if (should_fail(F_FSYNC, fd_name(fd, what, sizeof(what))))
		return fail_with();
	return real_fsync(fd);
}

EXPORT int fdatasync(int fd)
{
	char what[32];

	if (should_fail(F_FDATASYNC, fd_name(fd, what, sizeof(what))))
		return fail_with();
	return real_fdatasync(fd);
}

EXPORT int rename(const char *from, const char *to)
{
	if (should_fail(F_RENAME, to))
		return fail_with();
	return real_rename(from, to);
}

EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	if (should_fail(F_RENAME, to))
		return fail_with();
	return real_renameat(fromfd, from, tofd, to);
}

EXPORT int close(int fd)
{
	char what[32];

	if (should_fail(F_CLOSE, fd_name(fd, what, sizeof(what)))) {
		/* Linux releases the descriptor even when close reports an error */
		real_close(fd);
		return fail_with();
	}
	return real_close(fd);
}

EXPORT int flock(int fd, int op)
{
	char what[32];

	if (should_fail(F_FLOCK, fd_name(fd, what, sizeof(what))))
		return fail_with();
	return real_flock(fd, op);
}

EXPORT int mkdir(const char *path, mode_t mode)
{
	if (should_fail(F_MKDIR, path))
		return fail_with();
	return real_mkdir(path, mode);
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	if (should_fail(F_MKDIR, path))
		return fail_with();
	return real_mkdirat(dirfd, path, mode);
}

EXPORT int link(const char *from, const char *to)
{
	if (should_fail(F_LINK, to))
		return fail_with();
	return real_link(from, to);
}

EXPORT int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	if (should_fail(F_LINK, to))
		return fail_with();
	return real_linkat(fromfd, from, tofd, to, flags);
}

EXPORT int unlink(const char *path)
{
	if (should_fail(F_UNLINK, path))
		return fail_with();
	return real_unlink(path);
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	if (should_fail(F_UNLINK, path))
		return fail_with();
	return real_unlinkat(dirfd, path, flags);
}

/* ---- memory -------------------------------------------------------------------- */

EXPORT void *malloc(size_t n)
{
	if (!real_malloc) {
		shim_init();
		if (!real_malloc)
			return boot_alloc(n);
	}
	if (should_fail(F_MALLOC, NULL)) {
		errno = ENOMEM;
		return NULL;
	}
	return real_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size)
{
	if (!real_calloc) {
		shim_init();
		if (!real_calloc)
			return size && n > SIZE_MAX / size ? NULL : boot_alloc(n * size);
	}
	if (should_fail(F_CALLOC, NULL)) {
		errno = ENOMEM;
		return NULL;
	}
	return real_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t n)
{
	if (!real_realloc) {
		shim_init();
		if (!real_realloc)
			return NULL; /* nothing reallocates this early */
	}
	if (should_fail(F_REALLOC, NULL)) {
		errno = ENOMEM;
		return NULL;
	}
	if (from_boot(p)) {
		/* moving out of the bootstrap buffer: the old size is unknown, but bounded by it */
		void *q = real_malloc(n);
		size_t avail = (size_t)(boot_heap + sizeof(boot_heap) - (unsigned char *)p);

		if (q)
			memcpy(q, p, n < avail ? n : avail);
		return q;
	}
	return real_realloc(p, n);
}

EXPORT void free(void *p)
{
	if (!p || from_boot(p))
		return;
	if (!real_free) {
		shim_init();
		if (!real_free)
			return; /* leak rather than hand a pointer to the wrong allocator */
	}
	real_free(p);
}

/* ---- determinism: the wall clock and randomness ---------------------------------- */

EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (!S.ready)
		shim_init();
	/* only the wall clock is pinned: lock deadlines run on CLOCK_MONOTONIC */
	if (S.fixed_clock && (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE)) {
		*ts = S.realtime;
		return 0;
	}
	return real_clock_gettime(clk, ts);
}

EXPORT ssize_t getrandom(void *buf, size_t n, unsigned int flags)
{
	unsigned char *p = buf;

	if (!S.ready)
		shim_init();
	if (!S.fixed_random)
		return real_getrandom(buf, n, flags);
	for (size_t i = 0; i < n; i++) {
		/* xorshift64*: any fixed stream will do, it only has to repeat */
		S.rng ^= S.rng >> 12;
		S.rng ^= S.rng << 25;
		S.rng ^= S.rng >> 27;
		p[i] = (unsigned char)((S.rng * 0x2545F4914F6CDD1Dull) >> 56);
	}
	return (ssize_t)n;
}
