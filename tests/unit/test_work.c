/*
 * test_work.c - a COMPLETE verdict covers the work it reviewed (roz/work.h):
 * the baseline a review cycle takes, the fingerprint an approval is bound
 * to, and what a later stop or gated call gets when the work changed since.
 * The working tree is a fake roz_work_ops (no git, no files): its baseline,
 * fingerprint and "quiet" mark are scripted, and it counts what roz asks.
 */
#include "hookenv.h"

#include "roz/decide.h"
#include "roz/json.h"
#include "roz/work.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SID "sess-w"

/* Content hashes: git object ids (SHA-1), and SHA-256 for files outside the repository. */
#define H1 "1111111111111111111111111111111111111111"
#define H2 "2222222222222222222222222222222222222222"
#define H3 "3333333333333333333333333333333333333333"
#define HA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HB "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define REG 0100644u
#define EXE 0100755u

/* ---- the fake working tree ----------------------------------------------------- */

typedef struct fake_work {
	/* baseline(): root and base_tree (copied into the work), or this failure */
	int baseline_rc;
	const char *root, *base_tree;
	uint64_t base_touched;
	unsigned baseline_calls;
	/* now(): this fingerprint and tree (filled in even when it then fails with now_rc) */
	int now_rc;
	roz_fingerprint fp;
	const char *tree;
	unsigned now_calls;
	/* quiet() */
	bool quiet;
	unsigned quiet_calls;
	/* arm(): '1' for on, '0' for off, in the order asked */
	char arms[64];
	size_t n_arms;
} fake_work;

static int fake_baseline(void *ud, roz_review_work *w)
{
	fake_work *f = ud;

	f->baseline_calls++;
	assert_false(w->base_set);
	assert_null(w->root);
	/* as a real one might: part of it taken before a failure */
	if (f->root && !(w->root = roz_strdup(f->root)))
		return ROZ_ENOMEM;
	if (f->baseline_rc < 0) {
		if (f->baseline_rc != ROZ_ENOMEM)
			roz_error_set("not a git repository: /w");
		return f->baseline_rc;
	}
	if (f->base_tree && !(w->base_tree = roz_strdup(f->base_tree)))
		return ROZ_ENOMEM;
	w->base_touched = f->base_touched;
	return ROZ_OK;
}

static int fake_now(void *ud, const roz_review_work *w, roz_fingerprint *fp, char **tree)
{
	fake_work *f = ud;

	f->now_calls++;
	/* only a cycle with a baseline is looked at, and *fp comes empty */
	assert_true(w->base_set);
	assert_int_equal(fp->n, 0);
	assert_null(*tree);
	for (size_t i = 0; i < f->fp.n; i++)
		if (roz_fingerprint_put(fp, f->fp.items[i].path, f->fp.items[i].hash, f->fp.items[i].mode) < 0)
			return ROZ_ENOMEM;
	if (f->tree && !(*tree = roz_strdup(f->tree)))
		return ROZ_ENOMEM;
	if (f->now_rc < 0) {
		if (f->now_rc != ROZ_ENOMEM)
			roz_error_set("git write-tree failed");
		return f->now_rc;
	}
	return ROZ_OK;
}

static bool fake_quiet(void *ud)
{
	fake_work *f = ud;

	f->quiet_calls++;
	return f->quiet;
}

static void fake_arm(void *ud, bool on)
{
	fake_work *f = ud;

	assert_true(f->n_arms + 1 < sizeof(f->arms));
	f->arms[f->n_arms++] = on ? '1' : '0';
	f->arms[f->n_arms] = '\0';
}

/* What the working tree holds now (a hash of "" or NULL: the file is gone). */
static void fw_set(fake_work *f, const char *path, const char *hash, uint32_t mode)
{
	assert_int_equal(roz_fingerprint_put(&f->fp, path, hash, mode), ROZ_OK);
}

static void fw_clear(fake_work *f)
{
	roz_fingerprint_dispose(&f->fp);
}

static void fw_forget_arms(fake_work *f)
{
	f->n_arms = 0;
	f->arms[0] = '\0';
}

/* ---- fixture ------------------------------------------------------------------------ */

typedef struct t_work {
	t_hooks h; /* config, memory store, clock */
	fake_work fw;
	roz_work_ops ops;
	roz_session *s; /* the session the direct calls decide on */
} t_work;

static int setup(void **state)
{
	t_work *t = calloc(1, sizeof(*t));

	th_init(&t->h);
	t->fw.root = "/repo";
	t->fw.base_tree = "tree-base";
	t->fw.tree = "tree-now";
	t->ops = (roz_work_ops){fake_baseline, fake_now, fake_quiet, fake_arm, &t->fw};
	assert_int_equal(roz_session_new(SID, t->h.now, &t->s), ROZ_OK);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	t_work *t = *state;

	roz_session_free(t->s);
	fw_clear(&t->fw);
	th_dispose(&t->h);
	free(t);
	return 0;
}

static char **strv(const char *a, const char *b)
{
	char **v = roz_calloc(2, sizeof(*v));

	assert_non_null(v);
	v[0] = roz_strdup(a);
	v[1] = b ? roz_strdup(b) : NULL;
	return v;
}

static roz_review_work *work_of(t_work *t)
{
	return &t->s->review.work;
}

/* A cycle with a baseline whose approval saw what the fake holds now. */
static void begin_and_approve(t_work *t)
{
	const char *why = "unset";

	assert_int_equal(roz_work_begin(t->s, &t->ops, &why), ROZ_OK);
	assert_null(why);
	why = "unset";
	assert_int_equal(roz_work_approve(t->s, &t->ops, &why), ROZ_OK);
	assert_null(why);
	assert_true(work_of(t)->approved_set);
	fw_forget_arms(&t->fw);
}

static roz_work_verdict check(t_work *t, const char **why)
{
	roz_work_verdict v = (roz_work_verdict)-1;

	assert_int_equal(roz_work_check(t->s, &t->ops, &t->h.config, &v, why), ROZ_OK);
	return v;
}

static void expect_stale(t_work *t, const char *const *paths, size_t n)
{
	const roz_review_work *w = work_of(t);

	assert_int_equal(w->n_stale, n);
	assert_non_null(w->stale);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(w->stale[i], paths[i]);
	/* the approval is forgotten: the next check looks at nothing */
	assert_false(w->approved_set);
	assert_int_equal(w->approved.n, 0);
	assert_null(w->approved_tree);
}

/* ---- roz_work_begin ------------------------------------------------------------------ */

static void begin_takes_the_baseline_and_disarms(void **state)
{
	t_work *t = *state;
	roz_review_work *w = work_of(t);
	const char *why = "unset";

	/* what an earlier cycle left goes */
	w->approved_set = true;
	assert_int_equal(roz_fingerprint_put(&w->approved, "old.c", H1, REG), ROZ_OK);
	w->approved_tree = roz_strdup("tree-old");
	w->stale = strv("old.c", NULL);
	w->n_stale = 1;
	w->round = 4;
	w->root = roz_strdup("/old-repo");
	t->fw.base_touched = 7;

	assert_int_equal(roz_work_begin(t->s, &t->ops, &why), ROZ_OK);
	assert_null(why);
	assert_true(w->base_set);
	assert_string_equal(w->root, "/repo");
	assert_string_equal(w->base_tree, "tree-base");
	assert_int_equal(w->base_touched, 7);
	assert_false(w->approved_set);
	assert_int_equal(w->approved.n, 0);
	assert_null(w->approved_tree);
	assert_null(w->stale);
	assert_int_equal(w->n_stale, 0);
	assert_int_equal(w->round, 0);
	assert_int_equal(t->fw.baseline_calls, 1);
	assert_string_equal(t->fw.arms, "0");
	assert_int_equal(t->fw.now_calls, 0);
}

static void begin_outside_a_repository_keeps_no_tree(void **state)
{
	t_work *t = *state;
	const char *why = "unset";

	t->fw.root = NULL;
	t->fw.base_tree = NULL;
	assert_int_equal(roz_work_begin(t->s, &t->ops, &why), ROZ_OK);
	assert_null(why);
	assert_true(work_of(t)->base_set);
	assert_null(work_of(t)->root);
	assert_null(work_of(t)->base_tree);
}

static void begin_failing_baseline_leaves_none_and_says_why(void **state)
{
	t_work *t = *state;
	const char *why = NULL;

	t->fw.baseline_rc = ROZ_EIO;
	assert_int_equal(roz_work_begin(t->s, &t->ops, &why), ROZ_OK);
	assert_non_null(why);
	assert_string_equal(why, "not a git repository: /w");
	assert_false(work_of(t)->base_set);
	/* the part taken before the failure is released */
	assert_null(work_of(t)->root);
	assert_null(work_of(t)->base_tree);
	assert_int_equal(t->fw.baseline_calls, 1);

	/* and an approval in that cycle stays unbound, without a look */
	why = NULL;
	assert_int_equal(roz_work_approve(t->s, &t->ops, &why), ROZ_OK);
	assert_non_null(why);
	assert_string_equal(why, "the review cycle has no baseline");
	assert_false(work_of(t)->approved_set);
	assert_int_equal(t->fw.now_calls, 0);
}

static void begin_out_of_memory_propagates(void **state)
{
	t_work *t = *state;
	const char *why = NULL;

	t->fw.baseline_rc = ROZ_ENOMEM;
	assert_int_equal(roz_work_begin(t->s, &t->ops, &why), ROZ_ENOMEM);
	assert_false(work_of(t)->base_set);
	assert_null(work_of(t)->root);
}

static void begin_without_ops_says_why(void **state)
{
	t_work *t = *state;
	roz_work_ops no_baseline = t->ops;
	const char *why = NULL;

	assert_int_equal(roz_work_begin(t->s, NULL, &why), ROZ_OK);
	assert_non_null(why);
	assert_string_equal(why, "no view of the working tree");
	assert_false(work_of(t)->base_set);

	no_baseline.baseline = NULL;
	why = NULL;
	assert_int_equal(roz_work_begin(t->s, &no_baseline, &why), ROZ_OK);
	assert_non_null(why);
	assert_false(work_of(t)->base_set);
	assert_int_equal(t->fw.baseline_calls, 0);
}

/* ---- roz_work_approve ------------------------------------------------------------------- */

static void approve_binds_the_work_as_it_is(void **state)
{
	t_work *t = *state;
	roz_review_work *w = work_of(t);
	const char *why = "unset";

	assert_int_equal(roz_work_begin(t->s, &t->ops, &why), ROZ_OK);
	w->stale = strv("src/old.c", "src/older.c");
	w->n_stale = 2;
	w->round = 1;
	fw_forget_arms(&t->fw);
	fw_set(&t->fw, "src/b.c", H2, EXE);
	fw_set(&t->fw, "src/a.c", H1, REG);
	fw_set(&t->fw, "src/gone.c", "", 0);

	assert_int_equal(roz_work_approve(t->s, &t->ops, &why), ROZ_OK);
	assert_null(why);
	assert_true(w->approved_set);
	assert_string_equal(w->approved_tree, "tree-now");
	assert_int_equal(w->approved.n, 3);
	assert_string_equal(w->approved.items[0].path, "src/a.c");
	assert_string_equal(w->approved.items[0].hash, H1);
	assert_int_equal(w->approved.items[0].mode, REG);
	assert_string_equal(w->approved.items[1].path, "src/b.c");
	assert_string_equal(w->approved.items[1].hash, H2);
	assert_int_equal(w->approved.items[1].mode, EXE);
	assert_string_equal(w->approved.items[2].path, "src/gone.c");
	assert_string_equal(w->approved.items[2].hash, "");
	assert_int_equal(w->approved.items[2].mode, 0);
	/* what went stale before is answered by this approval; the round count stays */
	assert_null(w->stale);
	assert_int_equal(w->n_stale, 0);
	assert_int_equal(w->round, 1);
	assert_true(w->base_set);
	assert_string_equal(w->base_tree, "tree-base");
	assert_string_equal(t->fw.arms, "1");
	assert_int_equal(t->fw.now_calls, 1);
}

static void approve_again_replaces_the_binding(void **state)
{
	t_work *t = *state;
	roz_review_work *w = work_of(t);
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	fw_clear(&t->fw);
	fw_set(&t->fw, "src/b.c", H2, REG);
	t->fw.tree = NULL; /* outside a repository */
	assert_int_equal(roz_work_approve(t->s, &t->ops, &why), ROZ_OK);
	assert_null(why);
	assert_true(w->approved_set);
	assert_null(w->approved_tree);
	assert_int_equal(w->approved.n, 1);
	assert_string_equal(w->approved.items[0].path, "src/b.c");
}

static void approve_without_baseline_stays_unbound(void **state)
{
	t_work *t = *state;
	const char *why = NULL;

	fw_set(&t->fw, "src/a.c", H1, REG);
	assert_int_equal(roz_work_approve(t->s, &t->ops, &why), ROZ_OK);
	assert_non_null(why);
	assert_string_equal(why, "the review cycle has no baseline");
	assert_false(work_of(t)->approved_set);
	assert_int_equal(work_of(t)->approved.n, 0);
	assert_int_equal(t->fw.now_calls, 0);
	assert_int_equal(t->fw.n_arms, 0);
}

static void approve_without_ops_stays_unbound(void **state)
{
	t_work *t = *state;
	const char *why = NULL;

	assert_int_equal(roz_work_begin(t->s, &t->ops, &why), ROZ_OK);
	assert_int_equal(roz_work_approve(t->s, NULL, &why), ROZ_OK);
	assert_non_null(why);
	assert_string_equal(why, "no view of the working tree");
	assert_false(work_of(t)->approved_set);
	assert_true(work_of(t)->base_set);
}

static void approve_failing_look_stays_unbound_and_says_why(void **state)
{
	t_work *t = *state;
	roz_review_work *w = work_of(t);
	const char *why = NULL;

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	/* the look fails after it had filled in part: none of it is kept, the old binding goes */
	t->fw.now_rc = ROZ_EIO;
	fw_set(&t->fw, "src/b.c", H2, REG);
	assert_int_equal(roz_work_approve(t->s, &t->ops, &why), ROZ_OK);
	assert_non_null(why);
	assert_string_equal(why, "git write-tree failed");
	assert_false(w->approved_set);
	assert_int_equal(w->approved.n, 0);
	assert_null(w->approved_tree);
	assert_true(w->base_set);
	/* armed before the look (a call during it clears the mark), disarmed when it failed */
	assert_string_equal(t->fw.arms, "10");
	assert_int_equal(t->fw.now_calls, 2);

	t->fw.now_rc = ROZ_ENOMEM;
	assert_int_equal(roz_work_approve(t->s, &t->ops, &why), ROZ_ENOMEM);
	assert_false(w->approved_set);
	assert_int_equal(w->approved.n, 0);
}

/* ---- roz_work_check ------------------------------------------------------------------------ */

static void check_unbound_holds_without_a_look(void **state)
{
	t_work *t = *state;
	const char *why = "unset";

	assert_int_equal(roz_work_begin(t->s, &t->ops, &why), ROZ_OK);
	fw_set(&t->fw, "src/a.c", H1, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_HOLDS);
	assert_null(why);
	assert_int_equal(t->fw.now_calls, 0);
	assert_int_equal(t->fw.quiet_calls, 0);
	assert_int_equal(work_of(t)->n_stale, 0);
	assert_int_equal(work_of(t)->round, 0);
}

static void check_rereview_never_holds(void **state)
{
	t_work *t = *state;
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "src/a.c", H2, REG);
	fw_set(&t->fw, "src/new.c", H3, REG);
	t->h.config.rereview = ROZ_REREVIEW_NEVER;
	assert_int_equal(check(t, &why), ROZ_WORK_HOLDS);
	assert_null(why);
	assert_int_equal(t->fw.now_calls, 1); /* the approval's only */
	assert_true(work_of(t)->approved_set);
	assert_int_equal(work_of(t)->n_stale, 0);
	assert_int_equal(work_of(t)->round, 0);
}

static void check_quiet_holds_without_a_look(void **state)
{
	t_work *t = *state;
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "src/a.c", H2, REG); /* would be stale, were it looked at */
	t->fw.quiet = true;
	assert_int_equal(check(t, &why), ROZ_WORK_HOLDS);
	assert_null(why);
	assert_int_equal(t->fw.quiet_calls, 1);
	assert_int_equal(t->fw.now_calls, 1);
	assert_true(work_of(t)->approved_set);
	assert_int_equal(work_of(t)->n_stale, 0);
}

static void check_same_work_holds_and_rearms(void **state)
{
	t_work *t = *state;
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	fw_set(&t->fw, "src/b.c", "", 0);
	begin_and_approve(t);
	t->fw.tree = "tree-other"; /* the tree id is not what is compared */
	assert_int_equal(check(t, &why), ROZ_WORK_HOLDS);
	assert_null(why);
	assert_int_equal(t->fw.quiet_calls, 1);
	assert_int_equal(t->fw.now_calls, 2);
	assert_string_equal(t->fw.arms, "1");
	assert_true(work_of(t)->approved_set);
	assert_string_equal(work_of(t)->approved_tree, "tree-now");
	assert_int_equal(work_of(t)->n_stale, 0);
	assert_int_equal(work_of(t)->round, 0);
}

static void check_modified_file_is_stale(void **state)
{
	t_work *t = *state;
	static const char *const want[] = {"src/a.c"};
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	fw_set(&t->fw, "src/b.c", H2, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "src/a.c", H3, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	assert_null(why);
	expect_stale(t, want, 1);
	assert_int_equal(work_of(t)->round, 1);
	assert_string_equal(t->fw.arms, "10"); /* armed for the look, then not: the work is not as approved */
	assert_true(work_of(t)->base_set);
	assert_string_equal(work_of(t)->base_tree, "tree-base");

	/* with the approval forgotten, a later check holds without a look and keeps the list */
	assert_int_equal(check(t, &why), ROZ_WORK_HOLDS);
	assert_int_equal(t->fw.now_calls, 2);
	expect_stale(t, want, 1);
	assert_int_equal(work_of(t)->round, 1);
}

static void check_rounds_count_each_stale_approval(void **state)
{
	t_work *t = *state;
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "src/a.c", H2, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	assert_int_equal(work_of(t)->round, 1);
	assert_int_equal(roz_work_approve(t->s, &t->ops, &why), ROZ_OK);
	assert_int_equal(work_of(t)->n_stale, 0);
	fw_set(&t->fw, "src/c.c", H3, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	assert_int_equal(work_of(t)->round, 2);
	assert_int_equal(work_of(t)->n_stale, 1);
	assert_string_equal(work_of(t)->stale[0], "src/c.c");
}

static void check_changed_back_holds(void **state)
{
	t_work *t = *state;
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "src/a.c", H2, REG);
	fw_set(&t->fw, "src/a.c", H1, REG); /* edited, then edited back */
	assert_int_equal(check(t, &why), ROZ_WORK_HOLDS);
	assert_null(why);
	assert_int_equal(t->fw.now_calls, 2);
	assert_true(work_of(t)->approved_set);
	assert_int_equal(work_of(t)->n_stale, 0);
	assert_int_equal(work_of(t)->round, 0);
}

static void check_rename_names_both_paths(void **state)
{
	t_work *t = *state;
	static const char *const want[] = {"src/new.c", "src/old.c"};
	const char *why = "unset";

	fw_set(&t->fw, "src/x.c", H1, REG);
	begin_and_approve(t);
	/* git mv src/old.c src/new.c after the approval */
	fw_set(&t->fw, "src/old.c", "", 0);
	fw_set(&t->fw, "src/new.c", H2, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	expect_stale(t, want, 2);
}

static void check_deletion_is_stale(void **state)
{
	t_work *t = *state;
	static const char *const want[] = {"src/b.c"};
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	fw_set(&t->fw, "src/b.c", H2, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "src/b.c", NULL, 0);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	expect_stale(t, want, 1);
}

static void check_mode_change_alone_is_stale(void **state)
{
	t_work *t = *state;
	static const char *const want[] = {"run.sh"};
	const char *why = "unset";

	fw_set(&t->fw, "run.sh", H1, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "run.sh", H1, EXE); /* chmod +x */
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	expect_stale(t, want, 1);
}

static void check_reverted_to_baseline_is_stale(void **state)
{
	t_work *t = *state;
	static const char *const want[] = {"src/b.c"};
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	fw_set(&t->fw, "src/b.c", H2, REG);
	begin_and_approve(t);
	/* git checkout src/b.c: as at the baseline again, so no longer in the fingerprint */
	fw_clear(&t->fw);
	fw_set(&t->fw, "src/a.c", H1, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	expect_stale(t, want, 1);
}

static void check_absolute_paths_mix_with_relative(void **state)
{
	t_work *t = *state;
	static const char *const want[] = {"/tmp/x/new.txt", "/tmp/x/y.txt", "src/z.c"};
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	fw_set(&t->fw, "/tmp/x/y.txt", HA, REG);
	fw_set(&t->fw, "/tmp/x/same.txt", HA, REG);
	begin_and_approve(t);
	assert_string_equal(work_of(t)->approved.items[0].path, "/tmp/x/same.txt");
	assert_string_equal(work_of(t)->approved.items[1].hash, HA);
	fw_set(&t->fw, "/tmp/x/y.txt", HB, REG);
	fw_set(&t->fw, "/tmp/x/new.txt", HB, REG);
	fw_set(&t->fw, "src/z.c", H3, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	expect_stale(t, want, 3);
}

static void check_code_counts_only_code(void **state)
{
	t_work *t = *state;
	static const char *const want[] = {"src/a.c"};
	const char *why = "unset";

	/* the defaults: documentation does not count */
	assert_int_equal(t->h.config.rereview, ROZ_REREVIEW_ALWAYS);
	assert_int_equal(t->h.config.n_rereview_ignore, 2);
	assert_string_equal(t->h.config.rereview_ignore[0], "*.md");
	assert_string_equal(t->h.config.rereview_ignore[1], "docs/*");
	t->h.config.rereview = ROZ_REREVIEW_CODE;

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "README.md", H2, REG);
	fw_set(&t->fw, "docs/a.txt", H2, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_HOLDS);
	assert_null(why);
	assert_true(work_of(t)->approved_set);
	assert_int_equal(work_of(t)->n_stale, 0);
	assert_int_equal(work_of(t)->round, 0);
	assert_string_equal(t->fw.arms, "1");

	fw_set(&t->fw, "src/a.c", H3, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	expect_stale(t, want, 1);
	assert_int_equal(work_of(t)->round, 1);
}

static void check_always_counts_documentation(void **state)
{
	t_work *t = *state;
	static const char *const want[] = {"README.md", "docs/a.txt"};
	const char *why = "unset";

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "README.md", H2, REG);
	fw_set(&t->fw, "docs/a.txt", H2, REG);
	assert_int_equal(check(t, &why), ROZ_WORK_STALE);
	expect_stale(t, want, 2);
}

static void check_failing_look_holds_and_says_why(void **state)
{
	t_work *t = *state;
	roz_work_verdict v = ROZ_WORK_STALE;
	const char *why = NULL;

	fw_set(&t->fw, "src/a.c", H1, REG);
	begin_and_approve(t);
	fw_set(&t->fw, "src/a.c", H2, REG);
	t->fw.now_rc = ROZ_EIO;
	assert_int_equal(check(t, &why), ROZ_WORK_HOLDS);
	assert_non_null(why);
	assert_string_equal(why, "git write-tree failed");
	assert_true(work_of(t)->approved_set);
	assert_int_equal(work_of(t)->approved.n, 1);
	assert_string_equal(work_of(t)->approved.items[0].hash, H1);
	assert_int_equal(work_of(t)->n_stale, 0);
	assert_int_equal(work_of(t)->round, 0);
	assert_string_equal(t->fw.arms, "10"); /* the next stop looks again */

	t->fw.now_rc = ROZ_ENOMEM;
	assert_int_equal(roz_work_check(t->s, &t->ops, &t->h.config, &v, &why), ROZ_ENOMEM);
	assert_int_equal(v, ROZ_WORK_HOLDS);
	assert_true(work_of(t)->approved_set);
}

/* ---- through the hooks ------------------------------------------------------------------------ */

/* One hook as the runner runs it (hookenv: load, handle, save), with the fake working tree or none. */
static roz_output_kind run_json(t_work *t, roz_hook_event ev, bool with_work, t_out *out, const char *json)
{
	t->h.work = with_work ? &t->ops : NULL;
	return th_run(&t->h, ev, out, "%s", json);
}

static roz_output_kind run_hook(t_work *t, roz_hook_event ev, t_out *out, const char *json)
{
	return run_json(t, ev, true, out, json);
}

static roz_output_kind prompt(t_work *t, const char *text, t_out *out)
{
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"prompt\":\"%s\"}", SID, text);
	roz_output_kind k = run_hook(t, ROZ_HOOK_USER_PROMPT, out, json);

	free(json);
	return k;
}

static roz_output_kind stop(t_work *t, t_out *out)
{
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID);
	roz_output_kind k = run_hook(t, ROZ_HOOK_STOP, out, json);

	free(json);
	return k;
}

static roz_output_kind push(t_work *t, t_out *out)
{
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"Bash\","
			       "\"tool_input\":{\"command\":\"git push\"}}",
			       SID);
	roz_output_kind k = run_hook(t, ROZ_HOOK_PRE_TOOL_USE, out, json);

	free(json);
	return k;
}

static roz_output_kind reviewer(t_work *t, roz_hook_event ev, const char *agent)
{
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_id\":\"%s\","
			       "\"agent_type\":\"roz:roz\"}",
			       SID, agent);
	t_out out;
	roz_output_kind k = run_hook(t, ev, &out, json);

	th_out_dispose(&out);
	free(json);
	return k;
}

/*
 * A whole reviewer run that records this verdict and is vouched for at its
 * SubagentStop; a COMPLETE is bound to the work as `roz decide` does.
 */
static void verdict(t_work *t, roz_decision_kind kind, const char *summary, const char *message)
{
	roz_session *s;
	const char *why = "unset";
	char agent[32];

	snprintf(agent, sizeof(agent), "rv-%u", ++t->h.reviews);
	assert_int_equal(reviewer(t, ROZ_HOOK_SUBAGENT_START, agent), ROZ_OUTPUT_ALLOW);
	th_decide(&t->h, SID, kind, summary, message);
	if (kind == ROZ_DECISION_COMPLETE) {
		s = th_get(&t->h, SID);
		assert_int_equal(roz_work_approve(s, &t->ops, &why), ROZ_OK);
		assert_null(why);
		assert_true(s->review.work.approved_set);
		th_put(&t->h, s);
		roz_session_free(s);
	}
	assert_int_equal(reviewer(t, ROZ_HOOK_SUBAGENT_STOP, agent), ROZ_OUTPUT_ALLOW);
	s = th_get(&t->h, SID);
	assert_true(s->review.decision_trusted);
	assert_int_equal(s->review.decision.kind, kind);
	roz_session_free(s);
}

/* #roz, a blocked stop, and a vouched-for COMPLETE bound to src/a.c at H1. */
static void approved_cycle(t_work *t)
{
	roz_session *s;
	t_out out;

	assert_int_equal(prompt(t, "#roz fix the bug", &out), ROZ_OUTPUT_ALLOW);
	assert_null(strstr(out.notes, "cannot note the working tree"));
	th_out_dispose(&out);
	assert_int_equal(t->fw.baseline_calls, 1);
	assert_string_equal(t->fw.arms, "0");
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_BLOCK);
	assert_null(strstr(out.text, "changed after the reviewer approved"));
	th_out_dispose(&out);
	fw_set(&t->fw, "src/a.c", H1, REG);
	verdict(t, ROZ_DECISION_COMPLETE, "looks good", NULL);
	s = th_get(&t->h, SID);
	assert_true(s->review.work.base_set);
	assert_string_equal(s->review.work.base_tree, "tree-base");
	assert_true(s->review.work.approved_set);
	assert_string_equal(s->review.work.approved_tree, "tree-now");
	assert_int_equal(s->review.work.approved.n, 1);
	assert_string_equal(s->review.work.approved.items[0].hash, H1);
	assert_int_equal(s->review.block_count, 1);
	roz_session_free(s);
	assert_int_equal(t->fw.now_calls, 1);
	assert_string_equal(t->fw.arms, "01");
	fw_forget_arms(&t->fw);
}

/* The payload of the newest approval_stale event (caller deletes), and how many there are. */
static cJSON *stale_event(t_work *t, size_t *count)
{
	roz_session *s = th_get(&t->h, SID);
	cJSON *payload = NULL;

	*count = 0;
	assert_non_null(s);
	for (size_t i = 0; i < s->n_trace; i++) {
		roz_trace_event ev;

		assert_int_equal(roz_session_trace_event_parse(&s->trace[i], &ev), ROZ_OK);
		if (strcmp(ev.event_type, "approval_stale") == 0) {
			(*count)++;
			cJSON_Delete(payload);
			payload = ev.payload ? cJSON_Duplicate(ev.payload, 1) : NULL;
		}
		roz_session_trace_event_dispose(&ev);
	}
	roz_session_free(s);
	return payload;
}

static void expect_stale_event(t_work *t, size_t count, const char *file, unsigned round, const char *summary)
{
	size_t n = 0;
	cJSON *p = stale_event(t, &n), *files, *r, *sum;
	uint64_t got = 0;

	assert_int_equal(n, count);
	assert_non_null(p);
	files = cJSON_GetObjectItemCaseSensitive(p, "files");
	assert_true(cJSON_IsArray(files));
	assert_int_equal(cJSON_GetArraySize(files), 1);
	assert_string_equal(cJSON_GetArrayItem(files, 0)->valuestring, file);
	/* numbers come back as written (roz/json.h) */
	r = cJSON_GetObjectItemCaseSensitive(p, "round");
	assert_true(roz_json_uint(r, UINT32_MAX, &got));
	assert_int_equal(got, round);
	sum = cJSON_GetObjectItemCaseSensitive(p, "summary");
	assert_true(cJSON_IsString(sum));
	assert_string_equal(sum->valuestring, summary);
	cJSON_Delete(p);
}

static size_t stale_events(t_work *t)
{
	size_t n = 0;
	cJSON *p = stale_event(t, &n);

	cJSON_Delete(p);
	return n;
}

/* (a) */
static void hook_quiet_stop_after_approval_is_allowed(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	approved_cycle(t);
	fw_set(&t->fw, "src/a.c", H2, REG); /* would be stale: quiet says nothing ran */
	t->fw.quiet = true;
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_ALLOW);
	assert_null(out.text);
	assert_string_equal(out.json, "{}\n");
	assert_string_equal(out.notes, "");
	th_out_dispose(&out);
	assert_int_equal(t->fw.quiet_calls, 1);
	assert_int_equal(t->fw.now_calls, 1);
	assert_int_equal(stale_events(t), 0);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_true(s->review.decision_trusted);
	assert_true(s->review.work.approved_set);
	assert_int_equal(s->review.work.n_stale, 0);
	assert_int_equal(s->review.block_count, 1);
	roz_session_free(s);
}

static void hook_unchanged_stop_after_approval_is_allowed(void **state)
{
	t_work *t = *state;
	t_out out;

	approved_cycle(t);
	t->fw.quiet = false; /* a tool ran, but left src/a.c as approved */
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_ALLOW);
	assert_string_equal(out.json, "{}\n");
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 2);
	assert_string_equal(t->fw.arms, "1");
	assert_int_equal(stale_events(t), 0);
}

/* (b) */
static void stale_stop(t_work *t)
{
	roz_session *s;
	t_out out;

	approved_cycle(t);
	t->fw.quiet = false;
	fw_set(&t->fw, "src/a.c", H2, REG);
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_BLOCK);
	assert_non_null(out.text);
	assert_non_null(strstr(out.text, "changed after the reviewer approved"));
	assert_non_null(strstr(out.text, "\n  src/a.c\n"));
	assert_non_null(strstr(out.text, "SESSION_ID=" SID "\n"));
	assert_non_null(strstr(out.text, "ROUND=2\n"));
	assert_non_null(strstr(out.text, "Once the reviewer approves, you can stop."));
	assert_null(strstr(out.text, "run the action again"));
	assert_non_null(strstr(out.json, "\"decision\":\"block\""));
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 2);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	assert_false(s->review.decision_trusted);
	assert_false(s->review.gate_approved_at.set);
	assert_false(s->review.circuit_breaker_tripped);
	/* the review that approved came: this round's blocks are counted afresh */
	assert_int_equal(s->review.block_count, 1);
	assert_false(s->review.work.approved_set);
	assert_int_equal(s->review.work.n_stale, 1);
	assert_string_equal(s->review.work.stale[0], "src/a.c");
	assert_int_equal(s->review.work.round, 1);
	assert_true(s->review.work.base_set);
	roz_session_free(s);
	expect_stale_event(t, 1, "src/a.c", 2, "looks good");
}

static void hook_changed_work_blocks_the_stop(void **state)
{
	stale_stop(*state);
}

/* A reviewer already at work when the approval goes stale: the turn may end, as for any pending verdict. */
static void hook_stale_while_a_reviewer_works_waits(void **state)
{
	t_work *t = *state;
	roz_session *s;
	char *json;
	t_out out;

	approved_cycle(t);
	t->fw.quiet = false;
	fw_set(&t->fw, "src/a.c", H2, REG);
	json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"background_tasks\":[{\"type\":\"subagent\","
			 "\"status\":\"running\",\"agent_type\":\"roz:roz\"}]}",
			 SID);
	assert_int_equal(run_hook(t, ROZ_HOOK_STOP, &out, json), ROZ_OUTPUT_ALLOW);
	free(json);
	assert_null(out.text);
	assert_non_null(strstr(out.notes, "still working"));
	th_out_dispose(&out);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.block_count, 0);
	assert_int_equal(s->review.wait_blocks, 1);
	assert_int_equal(s->review.work.n_stale, 1);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	roz_session_free(s);
	expect_stale_event(t, 1, "src/a.c", 2, "looks good");
	/* the reviewer gone without a verdict: the next stop asks for the review of the change */
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "\n  src/a.c\n"));
	th_out_dispose(&out);
}

/* A long list: the block names the first 40, the trace keeps them all. */
static void hook_stale_block_lists_forty_files(void **state)
{
	t_work *t = *state;
	char path[32];
	size_t n = 0;
	cJSON *p, *files;
	roz_session *s;
	t_out out;

	approved_cycle(t);
	t->fw.quiet = false;
	for (int i = 0; i < 41; i++) {
		snprintf(path, sizeof(path), "src/f%02d.c", i);
		fw_set(&t->fw, path, H2, REG);
	}
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "\n  src/f00.c\n"));
	assert_non_null(strstr(out.text, "\n  src/f39.c\n"));
	assert_null(strstr(out.text, "src/f40.c"));
	assert_non_null(strstr(out.text, "... and 1 more (`roz context " SID "` lists them all)"));
	assert_null(strstr(out.text, "src/a.c")); /* as approved */
	th_out_dispose(&out);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.work.n_stale, 41);
	assert_string_equal(s->review.work.stale[40], "src/f40.c");
	roz_session_free(s);
	p = stale_event(t, &n);
	assert_int_equal(n, 1);
	assert_non_null(p);
	files = cJSON_GetObjectItemCaseSensitive(p, "files");
	assert_int_equal(cJSON_GetArraySize(files), 41);
	assert_string_equal(cJSON_GetArrayItem(files, 40)->valuestring, "src/f40.c");
	cJSON_Delete(p);
}

/* (c) */
static void hook_stale_block_repeats_until_reviewed(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	stale_stop(t);
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "changed after the reviewer approved"));
	assert_non_null(strstr(out.text, "\n  src/a.c\n"));
	assert_non_null(strstr(out.text, "ROUND=2\n"));
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 2); /* nothing approved to compare with */
	assert_int_equal(stale_events(t), 1);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.block_count, 2); /* the stale round's two */
	assert_int_equal(s->review.work.round, 1);
	assert_int_equal(s->review.work.n_stale, 1);
	roz_session_free(s);
}

/* (d) */
static void hook_new_approval_after_stale_lets_the_stop_through(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	stale_stop(t);
	verdict(t, ROZ_DECISION_COMPLETE, "the change is fine too", NULL);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.work.n_stale, 0);
	assert_null(s->review.work.stale);
	assert_true(s->review.work.approved_set);
	assert_string_equal(s->review.work.approved.items[0].hash, H2);
	assert_int_equal(s->review.work.round, 1);
	roz_session_free(s);
	t->fw.quiet = true;
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_ALLOW);
	assert_string_equal(out.json, "{}\n");
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 3);
	assert_int_equal(stale_events(t), 1);

	/* and a look that finds the newly approved work holds too */
	t->fw.quiet = false;
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 4);
	assert_int_equal(stale_events(t), 1);
}

/* (e) each round of review gets the breaker's bound afresh; one whose review never comes is let go */
static void hook_stale_at_the_breakers_bound_lets_the_stop_through(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	t->h.config.max_blocks = 1;
	approved_cycle(t);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.block_count, 1); /* the first round used its one block */
	roz_session_free(s);
	t->fw.quiet = false;
	fw_set(&t->fw, "src/a.c", H2, REG);
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "ROUND=2\n"));
	th_out_dispose(&out);
	s = th_get(&t->h, SID);
	assert_false(s->review.circuit_breaker_tripped);
	assert_int_equal(s->review.block_count, 1);
	roz_session_free(s);
	/* no review comes: the next stop trips the breaker */
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_ALLOW);
	assert_null(out.text);
	assert_non_null(strstr(out.notes, "circuit breaker tripped"));
	th_out_dispose(&out);
	s = th_get(&t->h, SID);
	assert_true(s->review.circuit_breaker_tripped);
	assert_int_equal(s->review.block_count, 1);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	assert_int_equal(s->review.work.n_stale, 1);
	roz_session_free(s);
	expect_stale_event(t, 1, "src/a.c", 2, "looks good");
}

/* (f) */
static void hook_issues_verdict_is_not_checked_against_the_work(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	approved_cycle(t);
	/* a later reviewer run finds problems; the work changed too */
	verdict(t, ROZ_DECISION_ISSUES, "broken", "fix the parser");
	t->fw.quiet = false;
	fw_set(&t->fw, "src/a.c", H2, REG);
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "the reviewer found problems to fix"));
	assert_non_null(strstr(out.text, "fix the parser"));
	assert_null(strstr(out.text, "changed after the reviewer approved"));
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 1);
	assert_int_equal(t->fw.quiet_calls, 0);
	assert_int_equal(stale_events(t), 0);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_ISSUES);
	assert_int_equal(s->review.work.n_stale, 0);
	assert_int_equal(s->review.work.round, 0);
	roz_session_free(s);
}

/* (g) */
static void gate_cycle(t_work *t)
{
	static const char *const pats[] = {"Bash:git push*", NULL};
	roz_session *s;
	t_out out;

	th_gates(&t->h, ROZ_SCOPE_PROMPT, pats);
	assert_int_equal(push(t, &out), ROZ_OUTPUT_DENY);
	assert_null(strstr(out.text, "changed after the reviewer approved"));
	th_out_dispose(&out);
	assert_int_equal(t->fw.baseline_calls, 1);
	fw_set(&t->fw, "src/a.c", H1, REG);
	verdict(t, ROZ_DECISION_COMPLETE, "ready to push", NULL);
	s = th_get(&t->h, SID);
	assert_true(s->review.work.approved_set);
	assert_true(s->review.gate_approved_at.set);
	roz_session_free(s);
	assert_int_equal(t->fw.now_calls, 1);
}

static void hook_gate_denies_a_retry_after_the_work_changed(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	gate_cycle(t);
	t->fw.quiet = false;
	fw_set(&t->fw, "src/a.c", H2, REG);
	assert_int_equal(push(t, &out), ROZ_OUTPUT_DENY);
	assert_non_null(strstr(out.text, "the work changed after the reviewer approved `Bash:git push`"));
	assert_non_null(strstr(out.text, "\n  src/a.c\n"));
	assert_non_null(strstr(out.text, "ROUND=2\n"));
	assert_non_null(strstr(out.text, "run the action again"));
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 2);
	expect_stale_event(t, 1, "src/a.c", 2, "ready to push");
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	assert_false(s->review.gate_approved_at.set);
	assert_int_equal(s->review.work.n_stale, 1);
	assert_int_equal(s->review.work.round, 1);
	roz_session_free(s);
	assert_int_equal(th_count_events(&t->h, SID, ROZ_EVENT_GATE_ALLOWED), 0);

	/* pushing again before a review: still the stale files, and no new cycle (same baseline) */
	assert_int_equal(push(t, &out), ROZ_OUTPUT_DENY);
	assert_non_null(strstr(out.text, "\n  src/a.c\n"));
	assert_non_null(strstr(out.text, "run the action again"));
	th_out_dispose(&out);
	assert_int_equal(t->fw.baseline_calls, 1);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.work.n_stale, 1);
	assert_int_equal(s->review.work.round, 1);
	assert_true(s->review.work.base_set);
	roz_session_free(s);

	/* reviewed again: the push goes through */
	verdict(t, ROZ_DECISION_COMPLETE, "still ready", NULL);
	t->fw.quiet = true;
	assert_int_equal(push(t, &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(th_count_events(&t->h, SID, ROZ_EVENT_GATE_ALLOWED), 1);
}

/* A gate denied during a #roz task under review keeps the task's baseline: its work began at the prompt. */
static void hook_gate_inside_an_open_task_keeps_its_baseline(void **state)
{
	static const char *const pats[] = {"Bash:git push*", NULL};
	t_work *t = *state;
	roz_session *s;
	t_out out;

	th_gates(&t->h, ROZ_SCOPE_PROMPT, pats);
	assert_int_equal(prompt(t, "#roz fix the parser", &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(t->fw.baseline_calls, 1);
	t->fw.base_tree = "tree-later";
	assert_int_equal(push(t, &out), ROZ_OUTPUT_DENY);
	th_out_dispose(&out);
	assert_int_equal(t->fw.baseline_calls, 1);
	s = th_get(&t->h, SID);
	assert_string_equal(s->review.work.base_tree, "tree-base");
	roz_session_free(s);
	/* once that task is approved, a later gate is a review of its own, from its own baseline */
	verdict(t, ROZ_DECISION_COMPLETE, "fixed", NULL);
	assert_int_equal(prompt(t, "now push it", &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(push(t, &out), ROZ_OUTPUT_DENY);
	th_out_dispose(&out);
	assert_int_equal(t->fw.baseline_calls, 2);
	s = th_get(&t->h, SID);
	assert_string_equal(s->review.work.base_tree, "tree-later");
	roz_session_free(s);
}

static void hook_gate_allows_a_quiet_retry(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	gate_cycle(t);
	t->fw.quiet = true;
	fw_set(&t->fw, "src/a.c", H2, REG); /* unseen: nothing ran that could write */
	assert_int_equal(push(t, &out), ROZ_OUTPUT_ALLOW);
	assert_null(out.text);
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 1);
	assert_int_equal(t->fw.quiet_calls, 1);
	assert_int_equal(stale_events(t), 0);
	assert_int_equal(th_count_events(&t->h, SID, ROZ_EVENT_GATE_ALLOWED), 1);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_true(s->review.work.approved_set);
	roz_session_free(s);
}

/* (h) */
static void hook_roz_prompt_after_stale_starts_a_new_cycle(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	stale_stop(t);
	t->fw.root = "/repo2";
	t->fw.base_tree = "tree-base-2";
	assert_int_equal(prompt(t, "#roz next task", &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(t->fw.baseline_calls, 2);
	s = th_get(&t->h, SID);
	assert_null(s->review.work.stale);
	assert_int_equal(s->review.work.n_stale, 0);
	assert_int_equal(s->review.work.round, 0);
	assert_false(s->review.work.approved_set);
	assert_true(s->review.work.base_set);
	assert_string_equal(s->review.work.root, "/repo2");
	assert_string_equal(s->review.work.base_tree, "tree-base-2");
	assert_int_equal(s->review.block_count, 0);
	roz_session_free(s);
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_BLOCK);
	assert_null(strstr(out.text, "changed after the reviewer approved"));
	th_out_dispose(&out);
}

/* A plain prompt does not start a cycle: the stale state stays. */
static void hook_plain_prompt_keeps_the_stale_state(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	stale_stop(t);
	assert_int_equal(prompt(t, "why did you change it?", &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(t->fw.baseline_calls, 1);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.work.n_stale, 1);
	assert_int_equal(s->review.work.round, 1);
	roz_session_free(s);
}

static void hook_baseline_failure_is_noted_and_approval_unbound(void **state)
{
	t_work *t = *state;
	roz_session *s;
	const char *why = NULL;
	t_out out;

	t->fw.baseline_rc = ROZ_EIO;
	assert_int_equal(prompt(t, "#roz fix the bug", &out), ROZ_OUTPUT_ALLOW);
	assert_non_null(strstr(out.notes, "cannot note the working tree for session " SID));
	assert_non_null(strstr(out.notes, "not a git repository: /w"));
	th_out_dispose(&out);
	s = th_get(&t->h, SID);
	assert_false(s->review.work.base_set);
	roz_session_free(s);
	/* a vouched-for verdict as `roz decide` records it: not bound, and so not checked later */
	th_review(&t->h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	s = th_get(&t->h, SID);
	assert_int_equal(roz_work_approve(s, &t->ops, &why), ROZ_OK);
	assert_non_null(why);
	assert_false(s->review.work.approved_set);
	th_put(&t->h, s);
	roz_session_free(s);
	t->fw.quiet = false;
	fw_set(&t->fw, "src/a.c", H2, REG);
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 0);
	assert_int_equal(stale_events(t), 0);
}

static void hook_without_a_view_is_silent(void **state)
{
	t_work *t = *state;
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"prompt\":\"#roz fix\"}", SID);
	roz_session *s;
	t_out out;

	assert_int_equal(run_json(t, ROZ_HOOK_USER_PROMPT, false, &out, json), ROZ_OUTPUT_ALLOW);
	assert_null(strstr(out.notes, "cannot note the working tree"));
	th_out_dispose(&out);
	free(json);
	s = th_get(&t->h, SID);
	assert_true(s->review.enabled);
	assert_false(s->review.work.base_set);
	roz_session_free(s);
	assert_int_equal(t->fw.baseline_calls, 0);
}

static void hook_failing_look_at_stop_lets_it_through_with_a_note(void **state)
{
	t_work *t = *state;
	roz_session *s;
	t_out out;

	approved_cycle(t);
	t->fw.quiet = false;
	t->fw.now_rc = ROZ_EIO;
	fw_set(&t->fw, "src/a.c", H2, REG);
	assert_int_equal(stop(t, &out), ROZ_OUTPUT_ALLOW);
	assert_non_null(strstr(out.notes, "cannot compare the work with what the reviewer approved"));
	assert_non_null(strstr(out.notes, "git write-tree failed"));
	th_out_dispose(&out);
	assert_int_equal(t->fw.now_calls, 2);
	assert_int_equal(stale_events(t), 0);
	s = th_get(&t->h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_true(s->review.work.approved_set);
	roz_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(begin_takes_the_baseline_and_disarms, setup, teardown),
		cmocka_unit_test_setup_teardown(begin_outside_a_repository_keeps_no_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(begin_failing_baseline_leaves_none_and_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(begin_out_of_memory_propagates, setup, teardown),
		cmocka_unit_test_setup_teardown(begin_without_ops_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(approve_binds_the_work_as_it_is, setup, teardown),
		cmocka_unit_test_setup_teardown(approve_again_replaces_the_binding, setup, teardown),
		cmocka_unit_test_setup_teardown(approve_without_baseline_stays_unbound, setup, teardown),
		cmocka_unit_test_setup_teardown(approve_without_ops_stays_unbound, setup, teardown),
		cmocka_unit_test_setup_teardown(approve_failing_look_stays_unbound_and_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(check_unbound_holds_without_a_look, setup, teardown),
		cmocka_unit_test_setup_teardown(check_rereview_never_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(check_quiet_holds_without_a_look, setup, teardown),
		cmocka_unit_test_setup_teardown(check_same_work_holds_and_rearms, setup, teardown),
		cmocka_unit_test_setup_teardown(check_modified_file_is_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(check_rounds_count_each_stale_approval, setup, teardown),
		cmocka_unit_test_setup_teardown(check_changed_back_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(check_rename_names_both_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(check_deletion_is_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(check_mode_change_alone_is_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(check_reverted_to_baseline_is_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(check_absolute_paths_mix_with_relative, setup, teardown),
		cmocka_unit_test_setup_teardown(check_code_counts_only_code, setup, teardown),
		cmocka_unit_test_setup_teardown(check_always_counts_documentation, setup, teardown),
		cmocka_unit_test_setup_teardown(check_failing_look_holds_and_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_quiet_stop_after_approval_is_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_unchanged_stop_after_approval_is_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_changed_work_blocks_the_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_stale_block_lists_forty_files, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_stale_block_repeats_until_reviewed, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_new_approval_after_stale_lets_the_stop_through, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_stale_while_a_reviewer_works_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_stale_at_the_breakers_bound_lets_the_stop_through, setup,
						teardown),
		cmocka_unit_test_setup_teardown(hook_issues_verdict_is_not_checked_against_the_work, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_gate_denies_a_retry_after_the_work_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_gate_inside_an_open_task_keeps_its_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_gate_allows_a_quiet_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_roz_prompt_after_stale_starts_a_new_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_plain_prompt_keeps_the_stale_state, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_baseline_failure_is_noted_and_approval_unbound, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_without_a_view_is_silent, setup, teardown),
		cmocka_unit_test_setup_teardown(hook_failing_look_at_stop_lets_it_through_with_a_note, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
