/*
 * context_work.c - the task's work as `roz context` shows it to the
 * reviewer (context_work.h).
 */
#include "context_work.h"

#include <string.h>
#include <unistd.h>

#include "output.h"
#include "roz/json.h"
#include "roz/work_view.h"

void cli_work_dispose(cli_work_view *v)
{
	roz_worktree_stats_free(v->files, v->n);
	roz_work_paths_free(v->outside);
	roz_free(v->problem);
	memset(v, 0, sizeof *v);
}

void cli_work_load(const roz_session *s, const roz_config *config, cli_work_view *v)
{
	const roz_review_work *w = &s->review.work;
	roz_work_view view = {config->storage_path, s->session_id, NULL};
	char tree[ROZ_VCS_REVISION_SIZE], *index = NULL, *dir;
	int rc = ROZ_OK;

	memset(v, 0, sizeof *v);
	if (!w->base_set || !config->storage_path)
		return;
	v->have = true;
	if (w->root && w->base_tree) {
		/*
		 * An index of its own, so a hook looking at the same time is never
		 * kept from the session's (git would find it locked)
		 */
		if (!(dir = roz_work_index_path(&view, w->root)) ||
		    !(index = roz_asprintf("%s.context.%ld", dir, (long)getpid())))
			rc = ROZ_ENOMEM;
		roz_free(dir);
		if (rc == ROZ_OK && (rc = roz_worktree_tree(w->root, index, ROZ_WORK_GIT_TIMEOUT_MS * 5, tree)) == ROZ_OK)
			rc = roz_worktree_numstat(w->root, w->base_tree, tree, ROZ_WORK_GIT_TIMEOUT_MS * 5, CLI_WORK_MAX,
						  &v->files, &v->n, &v->more);
		if (index)
			(void)unlink(index);
		roz_free(index);
	}
	if (rc == ROZ_OK)
		rc = roz_work_touched(&view, w->base_touched, &v->outside, &v->n_outside);
	if (rc < 0)
		v->problem = roz_strdup(roz_error_last());
}

static void print_stat(FILE *f, const roz_worktree_stat *st)
{
	fprintf(f, "  %c  ", st->status);
	if (st->from) {
		cli_put_safe(f, st->from, false);
		fputs(" -> ", f);
	}
	cli_put_safe(f, st->path, false);
	if (st->binary)
		fputs("  (binary)\n", f);
	else
		fprintf(f, "  +%llu -%llu\n", (unsigned long long)st->added, (unsigned long long)st->removed);
}

void cli_work_print(FILE *f, const roz_session *s, const cli_work_view *v)
{
	const roz_review_work *w = &s->review.work;

	if (!v->have)
		return;
	fputs("\nThe task's work (changed since the review began", f);
	if (w->root) {
		fputs(", in ", f);
		cli_put_safe(f, w->root, false);
	}
	fputs("):", f);
	if (v->problem) {
		fputs(" cannot be listed: ", f);
		cli_put_safe(f, v->problem, false);
		fputc('\n', f);
	} else if (!v->n && !v->more && !v->n_outside) {
		fputs(" no file changed\n", f);
	} else {
		fputc('\n', f);
		for (size_t i = 0; i < v->n; i++)
			print_stat(f, &v->files[i]);
		if (v->more)
			fprintf(f, "  ... and %zu more\n", v->more);
		if (v->n_outside)
			fprintf(f, "  Written outside %s:\n", w->root ? "the repository" : "any repository");
		for (size_t i = 0; i < v->n_outside; i++) {
			fputs("    ", f);
			cli_put_safe(f, v->outside[i], false);
			fputc('\n', f);
		}
	}
	if (w->n_stale) {
		fprintf(f, "\nChanged since the last approval (review round %u): review these again\n",
			(unsigned)w->round + 1);
		for (size_t i = 0; i < w->n_stale; i++) {
			fputs("  ", f);
			cli_put_safe(f, w->stale[i], false);
			fputc('\n', f);
		}
	}
}

void cli_work_json(roz_buf *b, const roz_session *s, const cli_work_view *v)
{
	const roz_review_work *w = &s->review.work;

	roz_buf_adds(b, ",\"work\":");
	if (!v->have) {
		roz_buf_adds(b, "null");
		return;
	}
	roz_buf_adds(b, "{\"root\":");
	if (w->root)
		roz_json_add_string(b, w->root);
	else
		roz_buf_adds(b, "null");
	roz_buf_adds(b, ",\"problem\":");
	if (v->problem)
		roz_json_add_string(b, v->problem);
	else
		roz_buf_adds(b, "null");
	roz_buf_adds(b, ",\"files\":[");
	for (size_t i = 0; i < v->n; i++) {
		const roz_worktree_stat *st = &v->files[i];

		roz_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
		roz_json_add_string(b, st->path);
		if (st->from) {
			roz_buf_adds(b, ",\"from\":");
			roz_json_add_string(b, st->from);
		}
		roz_buf_addf(b, ",\"status\":\"%c\"", st->status);
		if (st->binary)
			roz_buf_adds(b, ",\"binary\":true");
		else
			roz_buf_addf(b, ",\"added\":%llu,\"removed\":%llu", (unsigned long long)st->added,
				     (unsigned long long)st->removed);
		roz_buf_addc(b, '}');
	}
	roz_buf_addf(b, "],\"more\":%zu,\"outside\":[", v->more);
	for (size_t i = 0; i < v->n_outside; i++) {
		if (i)
			roz_buf_addc(b, ',');
		roz_json_add_string(b, v->outside[i]);
	}
	roz_buf_adds(b, "],\"stale\":[");
	for (size_t i = 0; i < w->n_stale; i++) {
		if (i)
			roz_buf_addc(b, ',');
		roz_json_add_string(b, w->stale[i]);
	}
	roz_buf_addf(b, "],\"review_round\":%u}", (unsigned)w->round + 1);
}
