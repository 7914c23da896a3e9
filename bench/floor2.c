/*
 * floor2.c - the least a hook that keeps state by atomic rename can do:
 * read stdin to EOF, write 1 KiB to a temp file in the session store's
 * directory ($ROZ_HOME/sessions), rename it over a state file, answer {}.
 * That is the physical limit of roz's store design: every hook that saves
 * a session does at least this, so the benchmark reports writing hooks
 * against it as well as against floor.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
	char buf[65536], dir[4096], tmp[4200], state[4200], body[1024];
	const char *home = getenv("ROZ_HOME");
	ssize_t n;
	int fd;

	while ((n = read(0, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		;
	if (!home || snprintf(dir, sizeof(dir), "%s/sessions", home) >= (int)sizeof(dir))
		return 1;
	(void)mkdir(dir, 0700);
	snprintf(tmp, sizeof(tmp), "%s/floor2.json.tmp", dir);
	snprintf(state, sizeof(state), "%s/floor2.json", dir);
	memset(body, 'x', sizeof(body));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, body, sizeof(body)) != (ssize_t)sizeof(body) || close(fd) < 0 ||
	    rename(tmp, state) < 0)
		return 1;
	fputs("{}\n", stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
