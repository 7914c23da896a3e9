/*
 * cmd_watch.c - `roz watch ROOT [STORAGE]`: serve as the watcher of one
 * repository's working tree (roz/watch.h). The hooks start it; a person
 * has no need to, but may, to see why it will not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "roz/watch.h"

static void help(void)
{
	printf("usage: roz watch [--fold-case] [--max-entries=N] ROOT [STORAGE]\n"
	       "       roz watch --status ROOT [STORAGE]\n\n"
	       "Watch the working tree under ROOT (absolute) with inotify, so that governance\n"
	       "detection looks only at what moved after a tool call instead of walking the\n"
	       "whole tree. Started in the background by the hooks; ends when ROOT goes away,\n"
	       "after ROZ_WATCH_IDLE_S seconds without a question (default 1800), or when it\n"
	       "cannot watch (then STORAGE/trees/watch-*.off says why, and the hooks walk).\n"
	       "With --status, say whether a watcher of ROOT answers (exit 0) or not (exit 1).\n");
}

/* `--status`: whether the watcher of root answers, and if not, what the note says. */
static int status(const char *root, const char *storage)
{
	roz_watch_answer a;
	struct timespec now;
	char *why = NULL;
	int rc = roz_watch_ask(root, 0, 0, 2000, &a);

	if (rc == ROZ_OK) {
		printf("watching %s (watcher %016llx, generation %llu)\n", root, (unsigned long long)a.id,
		       (unsigned long long)a.gen);
		roz_watch_answer_dispose(&a);
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	if (rc != ROZ_ENOTFOUND) {
		cli_error("the watcher of %s: %s", root, roz_error_last());
		return ROZ_EXIT_FAILURE;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	if (storage && roz_watch_is_off(storage, root, (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec, &why))
		printf("not watching %s: %s\n", root, why ? why : "it could not");
	else
		printf("no watcher of %s is running (the next governed call starts one)\n", root);
	roz_free(why);
	(void)cli_finish_stdout(ROZ_EXIT_OK);
	return ROZ_EXIT_FAILURE;
}

int cmd_watch(int argc, char **argv)
{
	roz_watch_opts o = {.ready_fd = -1};
	const char *idle = getenv("ROZ_WATCH_IDLE_S");
	int i = 1, rc;
	bool want_status = false;

	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--status") == 0) {
			want_status = true;
		} else if (strcmp(argv[i], "--fold-case") == 0) {
			o.fold_case = true;
		} else if (strncmp(argv[i], "--max-entries=", 14) == 0) {
			char *end;
			unsigned long n = strtoul(argv[i] + 14, &end, 10);

			if (*end || !argv[i][14] || n == 0 || n > 10000000UL)
				return cli_usage_error("watch", "--max-entries must be 1 to 10000000, not '%s'",
						       argv[i] + 14);
			o.max_entries = n;
		} else {
			return cli_usage_error("watch", "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc || argc - i > 2)
		return cli_usage_error("watch", "give the repository's root, and the storage folder");
	o.root = argv[i];
	o.storage = i + 1 < argc && argv[i + 1][0] ? argv[i + 1] : NULL;
	if (o.root[0] != '/')
		return cli_usage_error("watch", "the root must be an absolute path, not '%s'", o.root);
	if (want_status)
		return status(o.root, o.storage);
	if (idle) {
		char *end;
		unsigned long s = strtoul(idle, &end, 10);

		if (*end || !idle[0] || s == 0 || s > 86400UL * 7)
			return cli_usage_error("watch", "ROZ_WATCH_IDLE_S must be 1 to 604800 seconds, not '%s'", idle);
		o.idle_ns = (int64_t)s * 1000000000LL;
	}
	/* whatever the starting hook's parent left open is not the watcher's to keep open for hours */
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
		for (int fd = 3; fd < 1024; fd++)
			(void)close(fd);
	if ((rc = roz_watch_serve(&o)) < 0) {
		cli_error("%s", roz_error_last());
		return ROZ_EXIT_FAILURE;
	}
	return ROZ_EXIT_OK;
}
