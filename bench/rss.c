/*
 * rss.c - run a command and say what it cost, where GNU time is not there:
 *
 *   rss OUT COMMAND [ARG...]
 *
 * writes to OUT one line, as `/usr/bin/time -f "%e %U %S %M"` would: wall
 * seconds, user and system CPU seconds, peak resident set in KiB, of the
 * command and whatever it waited for (getrusage(RUSAGE_CHILDREN)), and
 * exits with the command's status (128 + the signal that ended it). This
 * program is small, so the peak it hands the command at exec, which Linux
 * folds into the child's maximum, is its own few hundred KiB.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double secs(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: rss OUT COMMAND [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("rss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("rss: waitpid");
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_CHILDREN, &ru);
	if (!(out = fopen(argv[1], "w"))) {
		perror(argv[1]);
		return 2;
	}
	fprintf(out, "%.2f %.2f %.2f %ld\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, secs(ru.ru_utime),
		secs(ru.ru_stime), ru.ru_maxrss);
	fclose(out);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
