/*
 * git_run.c - one git command, its standard output collected
 * (roz/git_run.h). posix_spawnp, so git is found on PATH as a person's
 * shell would find it; nothing of roz's own descriptors is inherited
 * (they are all close-on-exec).
 */
#include "roz/git_run.h"
#include "roz/file.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What every run puts in front of the caller's arguments. */
static const char *const HARDEN[] = {
	"--no-optional-locks", "--literal-pathspecs", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false",
};
#define NHARDEN (sizeof HARDEN / sizeof HARDEN[0])

/* posix_spawn takes char *const argv[] for historical reasons and never writes through it. */
static char *arg(const char *s)
{
	char *p;

	memcpy(&p, &s, sizeof p);
	return p;
}

int roz_git_output(const char *root, const char *const *args, size_t nargs, size_t max, roz_buf *out)
{
	return roz_git_output_in(root, args, nargs, NULL, 0, max, out);
}

int roz_git_output_in(const char *root, const char *const *args, size_t nargs, const char *in, size_t inlen,
		      size_t max, roz_buf *out)
{
	char **argv = roz_calloc(nargs + NHARDEN + 4, sizeof *argv);
	char *r = roz_strdup(root);
	posix_spawn_file_actions_t fa;
	int fds[2] = {-1, -1}, ins[2] = {-1, -1}, status = 0, rc = ROZ_EIO;
	size_t k = 0, got_total = 0;
	bool over = false;
	pid_t pid = -1;

	if (!argv || !r) {
		roz_free(argv);
		roz_free(r);
		return ROZ_ENOMEM;
	}
	argv[k++] = "git";
	for (size_t i = 0; i < NHARDEN; i++)
		argv[k++] = arg(HARDEN[i]);
	argv[k++] = "-C";
	argv[k++] = r;
	for (size_t i = 0; i < nargs; i++)
		argv[k++] = arg(args[i]);
	if (pipe2(fds, O_CLOEXEC) < 0 || (in && pipe2(ins, O_CLOEXEC) < 0)) {
		roz_error_set("cannot run git: pipe: %s", strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	if (in)
		posix_spawn_file_actions_adddup2(&fa, ins[0], 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if ((errno = posix_spawnp(&pid, "git", &fa, NULL, argv, environ)) != 0) {
		roz_error_set("cannot run git: %s", strerror(errno));
		pid = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	fds[1] = -1;
	if (in) {
		close(ins[0]);
		ins[0] = -1;
		/* all of it before reading: callers hand in less than a pipe holds, so this never waits */
		if (pid > 0 && roz_file_write_all(ins[1], in, inlen) != ROZ_OK)
			roz_error_set("cannot write to git: %s", strerror(errno));
		close(ins[1]);
		ins[1] = -1;
	}
	if (pid > 0) {
		char buf[8192];
		ssize_t got;

		/* read to the end even past the bound, so git is never left blocked on a full pipe */
		while ((got = read(fds[0], buf, sizeof buf)) != 0) {
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				break;
			if (got_total + (size_t)got > max)
				over = true;
			else
				roz_buf_add(out, buf, (size_t)got);
			got_total += (size_t)got;
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (roz_buf_failed(out))
			rc = ROZ_ENOMEM;
		else if (over)
			roz_error_set("git %s said more than %zu bytes", nargs ? args[0] : "", max);
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			roz_error_set("git %s failed (status %d)", nargs ? args[0] : "",
				      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		else
			rc = ROZ_OK;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		if (ins[i] >= 0)
			close(ins[i]);
	}
	roz_free(argv);
	roz_free(r);
	return rc;
}
