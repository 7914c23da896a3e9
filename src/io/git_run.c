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
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <time.h>
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

/* Write `in` to git's standard input; git gone early (a broken pipe) is an error, not the end of roz. */
static int feed(int fd, const char *in, size_t inlen)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	int rc;

	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	rc = roz_file_write_all(fd, in, inlen);
	sigaction(SIGPIPE, &old, NULL);
	return rc;
}

/*
 * The environment git gets: roz's own, less any setting `o` makes, then
 * `o`'s settings. An array of borrowed pointers (NULL-terminated), or
 * `environ` itself when there is nothing to add.
 */
static char **git_environ(const roz_git_opts *o, char ***own)
{
	size_t n = 0, k = 0;
	char **e;

	*own = NULL;
	if (!o || !o->nenv)
		return environ;
	while (environ[n])
		n++;
	if (!(e = roz_calloc(n + o->nenv + 1, sizeof *e)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t j = 0; j < o->nenv && !replaced; j++) {
			const char *eq = strchr(o->env[j], '=');
			size_t nl = eq ? (size_t)(eq - o->env[j]) : strlen(o->env[j]);

			replaced = strncmp(environ[i], o->env[j], nl) == 0 && environ[i][nl] == '=';
		}
		if (!replaced)
			e[k++] = environ[i];
	}
	for (size_t j = 0; j < o->nenv; j++)
		e[k++] = arg(o->env[j]);
	*own = e;
	return e;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Read all of fd within `timeout_ms` (0: however long): ROZ_OK,
 * ROZ_EINVALID (more than max), ROZ_ETIMEOUT, ROZ_EIO, ROZ_ENOMEM.
 */
static int read_bounded(int fd, uint32_t timeout_ms, size_t max, char **text, size_t *len)
{
	roz_buf b = ROZ_BUF_INIT;
	int64_t deadline = mono_ms() + timeout_ms;
	char chunk[16384];
	int rc = ROZ_OK;

	if (!timeout_ms)
		return roz_file_read_fd(fd, 0, max, text, len);
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - mono_ms();
		ssize_t n;
		int pr;

		if (left <= 0) {
			rc = ROZ_ETIMEOUT;
			break;
		}
		pr = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			rc = ROZ_EIO;
			break;
		}
		if (pr == 0)
			continue;
		n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ROZ_EIO;
			break;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
			rc = ROZ_EINVALID;
			break;
		}
		roz_buf_add(&b, chunk, (size_t)n);
		if (roz_buf_failed(&b) != ROZ_OK) {
			rc = ROZ_ENOMEM;
			break;
		}
	}
	if (rc == ROZ_OK) {
		if (roz_buf_failed(&b) != ROZ_OK || !(*text = roz_buf_detach(&b, len)))
			rc = ROZ_ENOMEM;
	}
	roz_buf_dispose(&b);
	return rc;
}

int roz_git_output(const char *root, const char *const *args, size_t nargs, const char *in, size_t inlen,
		   size_t max, char **text, size_t *len)
{
	return roz_git_run(root, NULL, args, nargs, in, inlen, max, text, len);
}

int roz_git_run(const char *root, const roz_git_opts *o, const char *const *args, size_t nargs, const char *in,
		size_t inlen, size_t max, char **text, size_t *len)
{
	char **argv = roz_calloc(nargs + NHARDEN + 4, sizeof *argv), **own_env = NULL;
	char **envp = git_environ(o, &own_env);
	char *r = roz_strdup(root);
	posix_spawn_file_actions_t fa;
	int fds[2] = {-1, -1}, ins[2] = {-1, -1}, status = 0, rc = ROZ_EIO, got;
	size_t k = 0;
	pid_t pid = -1;

	*text = NULL;
	*len = 0;
	if (!argv || !r || !envp) {
		roz_free(argv);
		roz_free(r);
		roz_free(own_env);
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
	if ((errno = posix_spawnp(&pid, "git", &fa, NULL, argv, envp)) != 0) {
		roz_error_set("cannot run git: %s", strerror(errno));
		pid = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (pid < 0)
		goto out;
	close(fds[1]);
	fds[1] = -1;
	if (in) {
		close(ins[0]);
		ins[0] = -1;
		/* all of it before reading: callers hand in less than a pipe holds, so this never waits */
		(void)feed(ins[1], in, inlen);
		close(ins[1]);
		ins[1] = -1;
	}
	got = read_bounded(fds[0], o ? o->timeout_ms : 0, max, text, len);
	if (got == ROZ_ETIMEOUT)
		kill(pid, SIGKILL);
	/* past the bound the rest is not read: closing the pipe ends git (SIGPIPE) instead of leaving it blocked */
	close(fds[0]);
	fds[0] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == ROZ_ENOMEM)
		rc = ROZ_ENOMEM;
	else if (got == ROZ_ETIMEOUT)
		rc = ROZ_ETIMEOUT, roz_error_set("git %s took longer than %u ms", nargs ? args[0] : "",
						  (unsigned)o->timeout_ms);
	else if (got == ROZ_EINVALID)
		roz_error_set("git %s said more than %zu bytes", nargs ? args[0] : "", max);
	else if (got == ROZ_OK && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		rc = ROZ_OK;
	else if (got == ROZ_OK)
		roz_error_set("git %s failed (status %d)", nargs ? args[0] : "",
			      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (rc != ROZ_OK) {
		roz_free(*text);
		*text = NULL;
		*len = 0;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		if (ins[i] >= 0)
			close(ins[i]);
	}
	roz_free(argv);
	roz_free(own_env);
	roz_free(r);
	return rc;
}
