/*
 * review_time.c - the timing loop of bench/review_stale.sh: a few hook
 * cases, each started the way Claude Code starts a hook (proc.c: JSON on
 * stdin, stdout and stderr read to EOF, wait4), interleaved with the floor
 * as bench.c does it. Each round visits every case once in a fresh random
 * order; a visit puts the case's state back (outside the timed interval)
 * and runs the floor and the case back to back, in a random order of the
 * two, with the same input and environment.
 *
 *   review_time SPEC
 *
 * SPEC is a file of lines "key<TAB>value[<TAB>value]":
 *
 *   runs N | warmup N | seed N | floor PATH       (before the first case)
 *   case NAME                                     starts a case
 *   arg VALUE                                     argv, in order (argv[0] a path)
 *   env NAME=VALUE                                its whole environment
 *   input FILE                                    its stdin
 *   restore SRC DST                               copied over DST before each run
 *   touch PATH | unlink PATH                      made empty / removed before each run
 *   expect TEXT                                   stdout must be TEXT (a final newline aside;
 *                                                 without it, what the probe run answered)
 *   after-exists PATH | after-absent PATH         must hold after each run
 *
 * One probe run per case before timing must pass every check, or nothing
 * is timed. Output, one line each, tab-separated, microseconds:
 *
 *   floor  p50 p90 p99 cpu_p50 runs
 *   case   NAME p50 p90 p99 cpu_p50 runs mismatches
 */
#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CASES 16
#define MAX_ITEMS 16
#define INPUT_MAX 65536

typedef struct rcase {
	char *name;
	char *argv[MAX_ITEMS + 1];
	char *envp[MAX_ITEMS + 1];
	size_t n_arg, n_env;
	char *input;
	size_t input_len;
	char *restore_src[MAX_ITEMS], *restore_dst[MAX_ITEMS];
	size_t n_restore;
	char *touch[MAX_ITEMS], *unlink_[MAX_ITEMS];
	size_t n_touch, n_unlink;
	char *expect;
	char *after_exists[MAX_ITEMS], *after_absent[MAX_ITEMS];
	size_t n_exists, n_absent;
	double *us, *cpu;
	size_t n;
	long mismatches;
} rcase;

static rcase cases[MAX_CASES];
static size_t n_cases;
static long runs = 100, warmup = 5;
static unsigned long seed = 1;
static char *floor_path;
static run_result res;

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

static void push(char **v, size_t *n, const char *s, const char *what)
{
	if (*n >= MAX_ITEMS)
		die("spec: too many %s lines in one case", what);
	v[(*n)++] = xstrdup(s);
}

static void read_input(rcase *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	c->input = xcalloc(1, INPUT_MAX);
	while ((n = read(fd, c->input + c->input_len, INPUT_MAX - 1 - c->input_len)) > 0)
		c->input_len += (size_t)n;
	if (n < 0)
		die("read %s: %s", path, strerror(errno));
	close(fd);
}

static void parse_spec(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[8192];
	rcase *c = NULL;

	if (!f)
		die("open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof line, f)) {
		char *key = line, *v1, *v2;
		size_t len = strlen(line);

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		if (!(v1 = strchr(line, '\t')))
			die("spec: no value: %s", line);
		*v1++ = '\0';
		v2 = strchr(v1, '\t');
		if (v2)
			*v2++ = '\0';
		if (strcmp(key, "case") == 0) {
			if (n_cases >= MAX_CASES)
				die("spec: too many cases");
			c = &cases[n_cases++];
			c->name = xstrdup(v1);
			continue;
		}
		if (!c) {
			if (strcmp(key, "runs") == 0)
				runs = strtol(v1, NULL, 10);
			else if (strcmp(key, "warmup") == 0)
				warmup = strtol(v1, NULL, 10);
			else if (strcmp(key, "seed") == 0)
				seed = strtoul(v1, NULL, 10);
			else if (strcmp(key, "floor") == 0)
				floor_path = xstrdup(v1);
			else
				die("spec: unknown key before the first case: %s", key);
			continue;
		}
		if (strcmp(key, "arg") == 0)
			push(c->argv, &c->n_arg, v1, "arg");
		else if (strcmp(key, "env") == 0)
			push(c->envp, &c->n_env, v1, "env");
		else if (strcmp(key, "input") == 0)
			read_input(c, v1);
		else if (strcmp(key, "restore") == 0) {
			if (!v2)
				die("spec: restore needs SRC and DST");
			push(c->restore_src, &c->n_restore, v1, "restore");
			c->restore_dst[c->n_restore - 1] = xstrdup(v2);
		} else if (strcmp(key, "touch") == 0)
			push(c->touch, &c->n_touch, v1, "touch");
		else if (strcmp(key, "unlink") == 0)
			push(c->unlink_, &c->n_unlink, v1, "unlink");
		else if (strcmp(key, "expect") == 0)
			c->expect = xstrdup(v1);
		else if (strcmp(key, "after-exists") == 0)
			push(c->after_exists, &c->n_exists, v1, "after-exists");
		else if (strcmp(key, "after-absent") == 0)
			push(c->after_absent, &c->n_absent, v1, "after-absent");
		else
			die("spec: unknown key: %s", key);
	}
	fclose(f);
	if (!floor_path || !n_cases || runs < 1 || warmup < 0)
		die("spec: needs a floor, runs >= 1 and a case");
	for (size_t k = 0; k < n_cases; k++)
		if (!cases[k].n_arg || !cases[k].input)
			die("spec: case '%s' needs arg and input lines", cases[k].name);
}

/* The case's state as its set-up left it; never inside the timed interval. */
static void put_back(const rcase *c)
{
	for (size_t i = 0; i < c->n_restore; i++)
		copy_file(c->restore_src[i], c->restore_dst[i], 0600);
	for (size_t i = 0; i < c->n_touch; i++)
		write_file(c->touch[i], "", 0, 0600);
	for (size_t i = 0; i < c->n_unlink; i++)
		if (unlink(c->unlink_[i]) < 0 && errno != ENOENT)
			die("unlink %s: %s", c->unlink_[i], strerror(errno));
}

/* NULL when the run did what the case is about, else what it did not. */
static const char *check(const rcase *c, const run_result *r)
{
	static char why[PATH_CAP + 64];
	size_t len = r->out_len;

	if (r->status != 0) {
		snprintf(why, sizeof why, "exit status %d", r->status);
		return why;
	}
	while (len && r->out[len - 1] == '\n')
		len--;
	if (c->expect && (strlen(c->expect) != len || memcmp(c->expect, r->out, len) != 0))
		return "another answer";
	for (size_t i = 0; i < c->n_exists; i++)
		if (!exists(c->after_exists[i])) {
			snprintf(why, sizeof why, "no %s after it", c->after_exists[i]);
			return why;
		}
	for (size_t i = 0; i < c->n_absent; i++)
		if (exists(c->after_absent[i])) {
			snprintf(why, sizeof why, "%s still there after it", c->after_absent[i]);
			return why;
		}
	return NULL;
}

static double median_of(double *v, size_t n)
{
	return summarize(v, n).p50;
}

int main(int argc, char **argv)
{
	double *floor_us, *floor_cpu;
	size_t n_floor = 0, *order;
	stats s;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SPEC (bench/review_stale.sh writes it)\n", argv[0]);
		return 2;
	}
	parse_spec(argv[1]);
	proc_init(seed);
	order = xcalloc(n_cases, sizeof *order);
	floor_us = xcalloc((size_t)runs * n_cases, sizeof(double));
	floor_cpu = xcalloc((size_t)runs * n_cases, sizeof(double));
	for (size_t k = 0; k < n_cases; k++) {
		rcase *c = &cases[k];
		const char *why;

		c->us = xcalloc((size_t)runs, sizeof(double));
		c->cpu = xcalloc((size_t)runs, sizeof(double));
		order[k] = k;
		/* the probe: what every timed run must also do */
		put_back(c);
		run_proc(c->argv, c->envp, c->input, c->input_len, &res);
		if (!c->expect) {
			size_t len = res.out_len;

			while (len && res.out[len - 1] == '\n')
				len--;
			c->expect = xcalloc(1, len + 1);
			memcpy(c->expect, res.out, len);
		}
		if ((why = check(c, &res)) != NULL)
			die("case '%s': the probe run did not do what the case measures (%s)\nstdout: %s\nstderr: %s",
			    c->name, why, res.out, res.err);
	}
	for (long round = 0; round < warmup + runs; round++) {
		bool measured = round >= warmup;

		for (size_t k = n_cases; k > 1; k--) {
			size_t m = (size_t)(rng_next() % k), t = order[k - 1];

			order[k - 1] = order[m];
			order[m] = t;
		}
		for (size_t k = 0; k < n_cases; k++) {
			rcase *c = &cases[order[k]];
			bool floor_first = rng_next() & 1;
			char *fargv[2] = {floor_path, NULL};

			put_back(c);
			for (int half = 0; half < 2; half++) {
				if ((half == 0) == floor_first) {
					run_proc(fargv, c->envp, c->input, c->input_len, &res);
					if (measured) {
						floor_us[n_floor] = res.us;
						floor_cpu[n_floor++] = res.cpu_us;
					}
					continue;
				}
				run_proc(c->argv, c->envp, c->input, c->input_len, &res);
				if (!measured)
					continue;
				c->us[c->n] = res.us;
				c->cpu[c->n++] = res.cpu_us;
				if (check(c, &res))
					c->mismatches++;
			}
		}
		if ((round + 1) % 50 == 0)
			fprintf(stderr, "review_time: %ld of %ld rounds\n", round + 1, warmup + runs);
	}
	s = summarize(floor_us, n_floor);
	printf("floor\t%.1f\t%.1f\t%.1f\t%.1f\t%zu\n", s.p50, s.p90, s.p99, median_of(floor_cpu, n_floor), n_floor);
	for (size_t k = 0; k < n_cases; k++) {
		rcase *c = &cases[k];

		s = summarize(c->us, c->n);
		printf("case\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%zu\t%ld\n", c->name, s.p50, s.p90, s.p99,
		       median_of(c->cpu, c->n), c->n, c->mismatches);
	}
	return 0;
}
