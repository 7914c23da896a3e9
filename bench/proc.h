/*
 * proc.h - what the benchmarks share (bench.c, replay.c): small helpers
 * that end the program with a message when the system refuses, and running
 * one process the way Claude Code runs a hook.
 */
#ifndef ROZ_BENCH_PROC_H
#define ROZ_BENCH_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PATH_CAP 1024
#define OUT_CAP 8192 /* answer bytes kept for classifying; the rest is read and dropped */
#define ERR_CAP 2048

extern char work[PATH_CAP]; /* the run's scratch directory */
extern bool keep_work;      /* keep it at the end */

/*
 * Before any process is run: SIGPIPE ignored (a child may exit without
 * reading its input), fds 0-2 open (else a pipe could land on one and be
 * shut by the dup2 in a child), and the run order's generator seeded.
 */
void proc_init(unsigned long seed);
/* xorshift64*: plenty for shuffling a run order, and reproducible from the seed. */
uint64_t rng_next(void);

typedef struct stats {
	double p50, p90, p99;
} stats;

/* Nearest-rank percentiles; sorts the samples in place. */
stats summarize(double *v, size_t n);

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xcalloc(size_t n, size_t size);
/* Every path here is built from short fixed parts; one that does not fit is a bug. */
void fmt_path(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double now_us(void);
void make_dir(const char *path);
void write_file(const char *path, const char *text, size_t len, mode_t mode);
void copy_file(const char *from, const char *to, mode_t mode);
bool exists(const char *path);
void rmtree(const char *path);
/* `dir` made a git work tree as far as roz looks: a .git whose HEAD names main. */
void make_git_stub(const char *dir);

typedef struct run_result {
	double us;
	double cpu_us; /* user + system time: unlike wall time, not stretched by waiting for a CPU */
	long rss_kib;
	int status; /* exit status, 128 + signal, or -1 if it could not start */
	char out[OUT_CAP];
	size_t out_len;
	char err[ERR_CAP];
	size_t err_len;
} run_result;

/*
 * Start argv[0] with input on its stdin, read its stdout and stderr to EOF
 * and reap it. The clock runs from just before the spawn to just after the
 * wait, so it covers what Claude Code waits for; the pipes are made first.
 */
void run_proc(char *const argv[], char *const envp[], const char *input, size_t len, run_result *r);

#endif
