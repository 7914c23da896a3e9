/*
 * floor.c - the least a hook can do: read stdin to EOF, as Claude Code's
 * hooks must, and answer {}. The benchmark times it exactly like roz, so its
 * time is what process start-up and the pipes cost on this machine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	char buf[65536];
	ssize_t n;

	/* drain all of it: a writer cut off early would see EPIPE, not a hook */
	while ((n = read(0, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		;
	/* stdio, as roz answers with it, so both pay for the same library start */
	fputs("{}\n", stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
