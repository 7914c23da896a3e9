/*
 * cmd_hook.c - `roz hook <event>`: what Claude Code runs. Reads the whole
 * of stdin, runs the hook, prints the answer. Always exits 0 with a JSON
 * answer, because any other status would make Claude Code block or report
 * an error to the user for roz's own trouble.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "roz/version.h"
#include "roz/hook_io.h"
#include "roz/runner.h"

static void help(void)
{
	printf("usage: roz hook <event>\n\n"
	       "Run one Claude Code hook: hook input as JSON on stdin, the answer as JSON on\n"
	       "stdout. Claude Code calls this through the roz plugin's hooks.json.\n\n"
	       "Events: session-start, user-prompt, pre-tool-use, post-tool-use, stop,\n"
	       "        subagent-start, subagent-stop, session-end\n\n"
	       "roz hook always exits 0 and prints {} when it cannot decide, so a problem in\n"
	       "roz never blocks Claude Code; warnings go to stderr.\n");
}

/* Read all of stdin; beyond the limit keep draining so the writer is not cut off. */
static int read_stdin(roz_buf *b, bool *too_big)
{
	char chunk[65536];

	*too_big = false;
	for (;;) {
		ssize_t n = read(0, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ROZ_EIO;
		if (n == 0)
			break;
		if (b->len + (size_t)n > ROZ_MAX_INPUT_BYTES)
			*too_big = true;
		if (!*too_big)
			roz_buf_add(b, chunk, (size_t)n);
	}
	return roz_buf_failed(b);
}

int cmd_hook(int argc, char **argv)
{
	roz_buf in = ROZ_BUF_INIT, out = ROZ_BUF_INIT, err = ROZ_BUF_INIT;
	const char *event = argc > 1 ? argv[1] : NULL;
	bool too_big;
	int rc;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	rc = read_stdin(&in, &too_big);
	if (!event || argc > 2) {
		cli_warning("usage: roz hook <event>; answering {}");
	} else {
		roz_runner_opts opts = {.open_store = cli_store_open, .version = ROZ_VERSION,
					.watch_exe = "/proc/self/exe"};

		/*
		 * Input that cannot be had is handed on as no input: the runner
		 * answers a tool call it cannot read as it answers one that is not
		 * JSON (`ask` while gates are configured), never as a call let through.
		 */
		if (rc < 0 || too_big) {
			if (rc < 0)
				cli_warning("%s: cannot read hook input: %s", event,
					    rc == ROZ_ENOMEM ? "out of memory" : strerror(errno));
			else
				cli_warning("%s: hook input is larger than %u bytes", event, ROZ_MAX_INPUT_BYTES);
			roz_buf_reset(&in);
			in.oom = false;
		}
		rc = roz_runner_hook(event, roz_buf_cstr(&in), in.len, &out, &err, &opts);
		if (err.len && !err.oom)
			fwrite(err.ptr, 1, err.len, stderr);
		/* the warnings themselves may not have fitted in memory: say the least */
		if (err.oom || (rc == ROZ_ENOMEM && !err.len))
			cli_warning("%s: out of memory; answering {}", event);
	}
	roz_buf_dispose(&in);
	if (out.len && !out.oom)
		fwrite(out.ptr, 1, out.len, stdout);
	else
		fputs("{}\n", stdout);
	roz_buf_dispose(&out);
	roz_buf_dispose(&err);
	/* nothing useful can be told to Claude Code if stdout itself failed */
	return cli_finish_stdout(ROZ_EXIT_OK);
}
