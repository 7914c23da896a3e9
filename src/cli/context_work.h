/*
 * context_work.h - the task's work in `roz context`: the files changed since
 * the review cycle began, with lines added and removed, and those changed
 * since the last approval (roz/work.h). Private to the CLI.
 */
#ifndef ROZ_CLI_CONTEXT_WORK_H
#define ROZ_CLI_CONTEXT_WORK_H

#include <stdio.h>

#include "roz/config.h"
#include "roz/session.h"
#include "roz/worktree.h"

/* Files listed at most; the rest are counted. */
#define CLI_WORK_MAX 200u

typedef struct cli_work_view {
	bool have;                 /* the cycle has a baseline */
	roz_worktree_stat *files;  /* changed in the repository since the baseline */
	size_t n, more;
	char **outside;            /* written outside it (absolute paths), NULL-terminated, or NULL */
	size_t n_outside;
	char *problem;             /* why the work could not be listed, or NULL */
} cli_work_view;

/* Look at the work of `s` (git in its repository; its list of files written outside it). */
void cli_work_load(const roz_session *s, const roz_config *config, cli_work_view *v);
void cli_work_print(FILE *f, const roz_session *s, const cli_work_view *v);
/* ,"work":{...} or ,"work":null */
void cli_work_json(roz_buf *b, const roz_session *s, const cli_work_view *v);
void cli_work_dispose(cli_work_view *v);

#endif
