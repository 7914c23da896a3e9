/*
 * tree_bench.c - what governance pays per tool call to see a working tree
 * (roz/tree.h): a walk, a save, a load, and the walk, load and comparison a
 * PostToolUse hook makes, on one tree, in one process, warm cache.
 *
 * Usage: roz_tree_bench [--extra FILE] [--file SNAPSHOT] ROOT [RUNS]
 *
 * ROOT is an absolute directory (bench/genrepo.sh makes realistic ones);
 * RUNS (default 20) is how many times each operation is timed, after one
 * unmeasured walk. --extra reads FILE as the caller's extra ignore rules
 * (a .intentignore); --file is where the snapshot is saved (default a file
 * under $TMPDIR or /tmp, removed at the end). It prints the tree's size and
 * the snapshot's, then the median and p90 (nearest rank) of each
 * operation in milliseconds, wall clock, and the median of the process's
 * CPU time (user and system) for it, which other work on a shared machine
 * disturbs less:
 *
 *   walk      roz_tree_walk
 *   save      roz_tree_save of the walked tree
 *   load      roz_tree_load of that file
 *   detect    a walk, a load, and one merge pass over both sorted lists
 *             counting the paths added, removed and changed
 *   ask       one question to the tree's watcher (roz/watch.h, run here in a
 *             child process) and its answer, one file having changed
 *   watched   the detection step with that watcher, as a PostToolUse hook
 *             makes it: a load of the snapshot, the question, a walk of
 *             only what the answer names (and .orchestration/, which the
 *             hook always looks at), what that takes out of the snapshot
 *             compared with it (roz_tree_diff), and the snapshot saved as
 *             it is merged; before each run (untimed) one file,
 *             `roz-tree-bench.touch` at the root, is rewritten
 *
 * A hook walks once, in a fresh process, where glibc maps every large block
 * afresh and each page it touches costs a fault. Repeated in one process,
 * glibc would instead raise its mapping threshold after the first free and
 * hand the same, already faulted heap pages to every later run, which a
 * hook never sees; so the threshold is pinned at glibc's initial value.
 */
#include <stdio.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <signal.h>
#include <sys/wait.h>

#include "roz/file.h"
#include "roz/tree.h"
#include "roz/tree_diff.h"
#include "roz/watch.h"

static double clock_ms(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One operation's samples: wall clock and CPU time. */
typedef struct samples {
	double *wall, *cpu;
	double w0, c0;
} samples;

static void start(samples *s)
{
	s->w0 = clock_ms(CLOCK_MONOTONIC);
	s->c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static void stop(samples *s, int r)
{
	s->wall[r] = clock_ms(CLOCK_MONOTONIC) - s->w0;
	s->cpu[r] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - s->c0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least p% of them at or below it. */
static double pct(double *v, int n, int p)
{
	int rank = (p * n + 99) / 100;

	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[rank > 0 ? rank - 1 : 0];
}

static void row(const char *name, samples *s, int n)
{
	double p50 = pct(s->wall, n, 50), p90 = pct(s->wall, n, 90), cpu = pct(s->cpu, n, 50);

	printf("%-8s %10.3f %10.3f %10.3f\n", name, p50, p90, cpu);
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "roz_tree_bench: %s: %s (%s)\n", what, roz_error_name(rc), roz_error_last());
	exit(1);
}

static bool same(const roz_tree_entry *a, const roz_tree_entry *b)
{
	return a->mode == b->mode && a->nlink == b->nlink && a->size == b->size && a->ino == b->ino &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

/* One merge pass over two sorted trees: paths only in a, only in b, in both but changed. */
static size_t compare(const roz_tree *a, const roz_tree *b, size_t *added, size_t *removed)
{
	size_t i = 0, j = 0, changed = 0;

	*added = *removed = 0;
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->items[i].path, b->items[j].path);

		if (c < 0) {
			(*removed)++;
			i++;
		} else if (c > 0) {
			(*added)++;
			j++;
		} else {
			changed += !same(&a->items[i], &b->items[j]);
			i++;
			j++;
		}
	}
	return changed;
}

/* Write `text` to `path` whole (the bench's own file, rewritten before each run). */
static bool put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;

	return f && fclose(f) == 0 && ok;
}

int main(int argc, char **argv)
{
	const char *root = NULL, *file = NULL, *extra_file = NULL;
	char *own_file = NULL, *text = NULL;
	roz_ignore extra = {NULL, 0};
	roz_tree_opts opts = {.max_entries = 0};
	roz_tree t, u;
	int runs = 20, rc;
	size_t len, added = 0, removed = 0, changed = 0;
	samples walk, save, load, detect, asked, watched;
	pid_t watcher = -1;
	uint64_t id = 0, gen = 0;
	char *touch = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--extra") && i + 1 < argc)
			extra_file = argv[++i];
		else if (!strcmp(argv[i], "--file") && i + 1 < argc)
			file = argv[++i];
		else if (!root && argv[i][0] != '-')
			root = argv[i];
		else if (root && atoi(argv[i]) > 0)
			runs = atoi(argv[i]);
		else
			root = NULL, i = argc;
	}
	if (!root) {
		fprintf(stderr, "usage: roz_tree_bench [--extra FILE] [--file SNAPSHOT] ROOT [RUNS]\n");
		return 2;
	}
	roz_alloc_init();
#if defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	if (extra_file) {
		if ((rc = roz_file_read_path(extra_file, 0, 1 << 20, &text, &len)) < 0)
			die(extra_file, rc);
		if ((rc = roz_ignore_parse(text, len, &extra, NULL)) < 0)
			die(extra_file, rc);
		opts.extra = &extra;
	}
	if (!file) {
		const char *tmp = getenv("TMPDIR");

		own_file = roz_asprintf("%s/roz-tree-bench.%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
		file = own_file;
	}
	{
		samples *all[] = {&walk, &save, &load, &detect, &asked, &watched};

		for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
			all[i]->wall = calloc((size_t)runs, sizeof(double));
			all[i]->cpu = calloc((size_t)runs, sizeof(double));
			if (!all[i]->wall || !all[i]->cpu)
				die("memory", ROZ_ENOMEM);
		}
	}
	if (!file)
		die("memory", ROZ_ENOMEM);

	if ((rc = roz_tree_walk(root, &opts, &t)) < 0)
		die("walk", rc);
	roz_tree_dispose(&t);
	for (int r = 0; r < runs; r++) {
		start(&walk);
		if ((rc = roz_tree_walk(root, &opts, &t)) < 0)
			die("walk", rc);
		stop(&walk, r);
		if (r + 1 < runs)
			roz_tree_dispose(&t);
	}
	for (int r = 0; r < runs; r++) {
		start(&save);
		if ((rc = roz_tree_save(&t, file)) < 0)
			die("save", rc);
		stop(&save, r);
	}
	for (int r = 0; r < runs; r++) {
		start(&load);
		if ((rc = roz_tree_load(file, &u)) < 0)
			die("load", rc);
		stop(&load, r);
		roz_tree_dispose(&u);
	}
	for (int r = 0; r < runs; r++) {
		roz_tree before, after;

		start(&detect);
		if ((rc = roz_tree_walk(root, &opts, &after)) < 0)
			die("walk", rc);
		if ((rc = roz_tree_load(file, &before)) < 0)
			die("load", rc);
		changed = compare(&before, &after, &added, &removed);
		stop(&detect, r);
		roz_tree_dispose(&before);
		roz_tree_dispose(&after);
	}
	/* the watcher, in a child; the snapshot stamped with its generation */
	{
		int ready[2];
		char byte;
		roz_watch_answer a;

		if (pipe(ready) < 0 || (watcher = fork()) < 0)
			die("fork", ROZ_EIO);
		if (watcher == 0) {
			roz_watch_opts wo = {.root = root, .idle_ns = 600LL * 1000000000LL, .ready_fd = ready[1]};

			close(ready[0]);
			_exit(roz_watch_serve(&wo) == ROZ_OK ? 0 : 1);
		}
		close(ready[1]);
		if (read(ready[0], &byte, 1) != 1)
			die("the watcher did not start", ROZ_EIO);
		close(ready[0]);
		if ((rc = roz_watch_ask(root, 0, 0, 5000, &a)) < 0)
			die("ask", rc);
		id = a.id;
		gen = a.gen;
		roz_watch_answer_dispose(&a);
		touch = roz_asprintf("%s/roz-tree-bench.touch", root);
		if (!touch || !put(touch, "0\n"))
			die("touch", ROZ_EIO);
		roz_tree_dispose(&t);
		if ((rc = roz_tree_walk(root, &opts, &t)) < 0)
			die("walk", rc);
		t.watch_id = id;
		t.watch_gen = gen;
		if ((rc = roz_tree_save(&t, file)) < 0)
			die("save", rc);
	}
	for (int r = 0; r < runs; r++) {
		roz_watch_answer a;
		char line[32];

		snprintf(line, sizeof line, "%d\n", r + 1);
		if (!put(touch, line))
			die("touch", ROZ_EIO);
		start(&asked);
		if ((rc = roz_watch_ask(root, id, gen, 5000, &a)) < 0)
			die("ask", rc);
		stop(&asked, r);
		if (!a.known)
			die("the watcher did not know what moved", ROZ_EIO);
		roz_watch_answer_dispose(&a);
	}
	for (int r = 0; r < runs; r++) {
		static const roz_tree_pick orch = {".orchestration", true};
		roz_tree before, part;
		roz_watch_answer a;
		roz_tree_pick *picks;
		roz_tree_opts po = opts;
		size_t n = 0;
		char line[32];

		snprintf(line, sizeof line, "%d\n", r + 1);
		if (!put(touch, line))
			die("touch", ROZ_EIO);
		start(&watched);
		if ((rc = roz_tree_load(file, &before)) < 0)
			die("load", rc);
		if ((rc = roz_watch_ask(root, before.watch_id, before.watch_gen, 5000, &a)) < 0)
			die("ask", rc);
		if (!a.known)
			die("the watcher did not know what moved", ROZ_EIO);
		if (!(picks = calloc(a.n + 1, sizeof *picks)))
			die("memory", ROZ_ENOMEM);
		for (size_t i = 0; i < a.n; i++)
			if (strcmp(a.picks[i].path, orch.path) != 0)
				picks[n++] = a.picks[i];
		picks[n++] = orch;
		qsort(picks, n, sizeof *picks, roz_tree_pick_cmp);
		po.only = picks;
		po.nonly = n;
		if ((rc = roz_tree_walk(root, &po, &part)) < 0)
			die("picked walk", rc);
		part.watch_id = a.id;
		part.watch_gen = a.gen;
		{
			roz_tree_entry *gone;
			size_t ngone, kept, others = 0;
			roz_tree was = before;
			roz_changes ch = {0};

			if ((rc = roz_tree_patch_dropped(&before, &part, picks, n, &gone, &ngone, &kept)) < 0)
				die("patch", rc);
			was.items = gone;
			was.n = ngone;
			if ((rc = roz_tree_diff(&was, &part, 0, before.taken_ns, &ch, &others)) < 0)
				die("diff", rc);
			changed = ch.n;
			added = removed = 0;
			roz_changes_dispose(&ch);
			roz_free(gone);
		}
		if ((rc = roz_tree_save_patched(&before, &part, picks, n, file)) < 0)
			die("save", rc);
		stop(&watched, r);
		free(picks);
		roz_watch_answer_dispose(&a);
		roz_tree_dispose(&before);
		roz_tree_dispose(&part);
	}
	{
		FILE *f = fopen(file, "rb");
		long bytes = -1;

		if (f && fseek(f, 0, SEEK_END) == 0)
			bytes = ftell(f);
		if (f)
			fclose(f);
		printf("# %s: %zu entries%s, snapshot %ld bytes, %d runs; last detect: %zu added, "
		       "%zu removed, %zu changed\n",
		       root, t.n, t.truncated ? " (truncated)" : "", bytes, runs, added, removed, changed);
	}
	printf("%-8s %10s %10s %10s\n", "op", "p50_ms", "p90_ms", "cpu_p50_ms");
	row("walk", &walk, runs);
	row("save", &save, runs);
	row("load", &load, runs);
	row("detect", &detect, runs);
	row("ask", &asked, runs);
	row("watched", &watched, runs);
	if (watcher > 0) {
		kill(watcher, SIGTERM);
		waitpid(watcher, NULL, 0);
	}
	if (touch)
		unlink(touch);
	roz_free(touch);

	roz_tree_dispose(&t);
	if (own_file)
		unlink(own_file);
	roz_free(own_file);
	roz_free(text);
	roz_ignore_dispose(&extra);
	free(walk.wall);
	free(walk.cpu);
	free(save.wall);
	free(save.cpu);
	free(load.wall);
	free(load.cpu);
	free(detect.wall);
	free(detect.cpu);
	free(asked.wall);
	free(asked.cpu);
	free(watched.wall);
	free(watched.cpu);
	return 0;
}
