/*
 * replay_main.c - runs a fuzz target over saved inputs without libFuzzer,
 * so every compiler (and the ASan/UBSan and valgrind passes) replays the
 * seed corpora and past crashes as ordinary tests.
 *
 * Usage: fuzz_replay_<name> PATH...   (a directory: every file in it; a file: itself)
 *
 * The inputs run in a child process. When one aborts (a known bug not fixed
 * yet), it is named and a new child carries on with the next, so a failure
 * neither hides the inputs after it nor stops the run; the exit status is 1.
 * One child per failure, not per input: forking an ASan process, or ending
 * one under valgrind's leak check, is costly. ROZ_FUZZ_REPLAY_NOFORK=1 runs
 * everything in this process instead, for a debugger.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

typedef struct path_list {
	char **v;
	size_t n, cap;
} path_list;

static int add_path(path_list *l, const char *dir, const char *name)
{
	char *p;

	if (l->n == l->cap) {
		char **v = realloc(l->v, (l->cap = l->cap ? l->cap * 2 : 64) * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
	}
	p = malloc(strlen(dir) + strlen(name) + 2);
	if (!p)
		return -1;
	sprintf(p, "%s%s%s", dir, *dir ? "/" : "", name);
	l->v[l->n++] = p;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file in the directory, in name order so runs are reproducible. */
static int add_dir(path_list *l, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = l->n;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		rc = add_path(l, dir, e->d_name);
		if (rc == 0 && (stat(l->v[l->n - 1], &st) < 0 || !S_ISREG(st.st_mode)))
			free(l->v[--l->n]);
	}
	closedir(d);
	qsort(l->v + first, l->n - first, sizeof(*l->v), name_cmp);
	return rc;
}

/* Read the whole file into a buffer of exactly its size, as libFuzzer hands it over. */
static uint8_t *read_input(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	struct stat st;

	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return NULL;
	}
	*len = (size_t)st.st_size;
	/* an exact-size block lets ASan see a read one past the input's end */
	data = malloc(*len ? *len : 1);
	if (data && fread(data, 1, *len, f) != *len) {
		fprintf(stderr, "%s: short read\n", path);
		free(data);
		data = NULL;
	}
	fclose(f);
	return data;
}

/* Run inputs from..n-1; *cur tells a watching parent which one is running. */
static int run_inputs(const path_list *l, size_t from, volatile size_t *cur)
{
	for (size_t i = from; i < l->n; i++) {
		size_t len;
		uint8_t *data;

		*cur = i;
		if (!(data = read_input(l->v[i], &len)))
			return -1;
		LLVMFuzzerTestOneInput(data, len);
		free(data);
	}
	*cur = l->n;
	return 0;
}

/* The inputs in children, a new one after each failure. Returns the number of failures. */
static size_t run_forked(const path_list *l)
{
	/* shared with the children: the index of the input running now */
	void *shared = mmap(NULL, sizeof(size_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	volatile size_t *cur = shared;
	size_t from = 0, failed = 0;

	if (shared == MAP_FAILED) {
		fprintf(stderr, "mmap: %s\n", strerror(errno));
		return 1;
	}
	while (from < l->n) {
		pid_t pid;
		int status;

		*cur = from;
		fflush(NULL);
		if ((pid = fork()) < 0) {
			fprintf(stderr, "fork: %s\n", strerror(errno));
			failed++;
			break;
		}
		if (pid == 0)
			/* exit, not _exit: LeakSanitizer checks as the process ends */
			exit(run_inputs(l, from, cur) < 0 ? 3 : 0);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			continue;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			break;
		failed++;
		if (*cur >= l->n) {
			/* every input ran; the failure came at exit, most likely a leak report above */
			fprintf(stderr, "FAILED: at exit after %s .. %s\n", l->v[from], l->v[l->n - 1]);
			break;
		}
		if (WIFSIGNALED(status))
			fprintf(stderr, "FAILED: %s (signal %d)\n", l->v[*cur], WTERMSIG(status));
		else
			fprintf(stderr, "FAILED: %s (exit %d)\n", l->v[*cur], WEXITSTATUS(status));
		from = *cur + 1;
	}
	munmap(shared, sizeof(size_t));
	return failed;
}

int main(int argc, char **argv)
{
	path_list l = {NULL, 0, 0};
	size_t failed = 0, dummy;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS-DIR-OR-FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			rc = 1;
		} else if (S_ISDIR(st.st_mode) ? add_dir(&l, argv[i]) < 0 : add_path(&l, "", argv[i]) < 0) {
			rc = 1;
		}
	}
	/* an empty corpus would make the test pass without testing anything */
	if (!l.n) {
		fprintf(stderr, "%s: no inputs found\n", argv[0]);
		rc = 1;
	} else if (getenv("ROZ_FUZZ_REPLAY_NOFORK")) {
		if (run_inputs(&l, 0, &dummy) < 0)
			rc = 1;
	} else {
		failed = run_forked(&l);
	}
	if (failed)
		rc = 1;
	printf("%s: replayed %zu input(s), %zu failed\n", argv[0], l.n, failed);
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	return rc;
}
