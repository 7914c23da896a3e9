/*
 * detect.c - the runner's detection step (docs/governance.md,
 * "Detection"): in a governed repository, the working tree is
 * snapshotted by lstat (roz/tree.h) and what a tool call changed,
 * however it changed it, is judged like a visible write (roz/detect.h).
 *
 *   PreToolUse   the session's snapshot of this repository is touched, so
 *                its modification time marks when the call began (one
 *                utimensat); a session's first call takes the snapshot.
 *   PostToolUse  the tree is looked at again (detect_look.c: only what the
 *                repository's watcher says moved, else a whole walk) and
 *                compared with the snapshot: changes made since the call
 *                began are judged; a violation is told to the agent at
 *                once and kept in the session, in-scope files go to the
 *                ledger record; the snapshot is brought up to date.
 *   Stop         each kept violation is checked against the tree; while
 *                one stands (not undone, not accepted by a person with
 *                `roz intent accept`) the stop is held, at most
 *                circuit_breaker.max_blocks times in a row.
 *
 * Snapshots live under <storage>/trees/, one per session and repository.
 * Detection is observability's stricter half, so its own failures (a
 * snapshot that cannot be written, a tree too large to walk) are warnings,
 * never refusals: prevention still stands in front of every call.
 */
#include "governance.h"
#include "detect_int.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "roz/detect.h"
#include "roz/digest.h"
#include "roz/file.h"
#include "roz/git_run.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/tree.h"
#include "roz/tree_diff.h"

/* What `git status` may say about the paths of kept violations (more: every path counts as not undone). */
#define GIT_STATUS_MAX (4u * 1024u * 1024u)

/* How far before Claude Code's own start of the call (now - duration_ms) a change still counts. */
#define DETECT_SLACK_NS (250LL * 1000000LL)


int gov_snapshot_path(const gov_run *g, const char *sid, char **out)
{
	char hex[ROZ_SHA256_HEX_SIZE], *dir;
	int rc = ROZ_OK;

	*out = NULL;
	if (!g->storage || !sid)
		return ROZ_ENOTFOUND;
	if (!(dir = roz_asprintf("%s/trees", g->storage)))
		return ROZ_ENOMEM;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		roz_error_set("cannot make '%s': %s", dir, strerror(errno));
		rc = ROZ_EIO;
	} else {
		roz_digest_sha256_hex(g->orch.root, strlen(g->orch.root), hex);
		hex[16] = '\0';
		if (!(*out = roz_asprintf("%s/%s-%s.tree", dir, sid, hex)))
			rc = ROZ_ENOMEM;
	}
	roz_free(dir);
	return rc;
}


/* How long a repository found too large to walk is not walked again. */
#define DETECT_LARGE_RETRY_NS (3600LL * 1000000000LL)

/* Said once per session: this repository is judged by the command line only. */
static void too_large(const gov_run *g, roz_session *s, roz_hook_result *res)
{
	if (!s || s->gov.detect_off_said)
		return;
	roz_buf_addf(&res->notes,
		     "roz: warning: governance detection: %s holds more than %u entries past its ignore "
		     "files; its changes are judged by the command line only (roz doctor)\n",
		     g->orch.root, (unsigned)(g->detect_max ? g->detect_max : ROZ_TREE_MAX_ENTRIES));
	s->gov.detect_off_said = true;
	s->gov.present = true;
	res->save = true;
}


int gov_detect_pre(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_hook_result *res)
{
	char *path = NULL;
	gov_sight now = {0};
	roz_tree other = {0};
	bool have_other;
	int rc;

	if (!g->detects)
		return ROZ_OK;
	if ((rc = gov_snapshot_path(g, in->session_id, &path)) < 0)
		goto out;
	/* the mark: the snapshot's mtime is now, on the clock file times use */
	if (utimensat(AT_FDCWD, path, NULL, 0) == 0)
		goto out;
	if (errno != ENOENT) {
		roz_error_set("cannot mark '%s': %s", path, strerror(errno));
		rc = ROZ_EIO;
		goto out;
	}
	/*
	 * the session's first call here: what the tree holds before it (or that it is too large);
	 * another session's snapshot of it, stamped by the watcher, brought up to date, else a walk
	 */
	have_other = g->watch_exe && gov_sibling_snapshot(path, &other) == ROZ_OK;
	if ((rc = gov_look(g, env, have_other ? &other : NULL, &now, res, "pre-tool-use")) < 0 && rc != ROZ_EINVALID)
		goto out;
	rc = now.picks ? roz_tree_save_patched(&other, &now.t, now.picks, now.npicks, path) : roz_tree_save(&now.t, path);
out:
	if (rc < 0 && rc != ROZ_ENOMEM && rc != ROZ_EINVALID)
		gov_detect_warn(res, "pre-tool-use", roz_error_last());
	gov_sight_dispose(&now);
	roz_tree_dispose(&other);
	roz_free(path);
	return rc == ROZ_ENOMEM ? rc : ROZ_OK;
}

/*
 * When the call began: the mark PreToolUse left (the snapshot's mtime, on
 * the clock file times use). Without one, Claude Code's own account of the
 * call (now - duration_ms, less a margin for the hook's start), else
 * everything since the snapshot was taken.
 */
static int64_t call_start(const char *path, const roz_hook_input *in, const roz_env *env)
{
	struct stat st;
	const cJSON *d = in->root ? cJSON_GetObjectItemCaseSensitive(in->root, "duration_ms") : NULL;

	if (stat(path, &st) == 0)
		return gov_ns(st.st_mtim);
	if (cJSON_IsNumber(d) && d->valuedouble >= 0 && d->valuedouble < 1e9)
		return env->now.sec * 1000000000LL + env->now.nsec - (int64_t)(d->valuedouble * 1e6) -
		       DETECT_SLACK_NS;
	return INT64_MAX;
}

static int keep_violation(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
			  const roz_change *c, roz_denial_code code)
{
	roz_gov_violation_in v = {
		.root = g->orch.root,
		.path = c->path,
		.from = c->from,
		.change = roz_change_kind_name(c->kind),
		.code = roz_denial_code_name(code),
		.tool = in->tool_name,
		.existed = c->existed,
		.at = env->now,
	};
	int rc = roz_session_gov_violation_add(&s->gov, &v);

	return rc == ROZ_EINVALID ? ROZ_OK : rc; /* a path roz cannot store is still told */
}

/* .orchestration/.gitattributes holds exactly what roz writes there (roz/ledger.h). */
static bool roz_attributes(const gov_run *g)
{
	char *p = gov_path(g, ROZ_LEDGER_ATTRIBUTES_FILE), *text = NULL;
	size_t len = 0;
	bool same = p && roz_file_read_path(p, O_NOFOLLOW, 4096, &text, &len) == ROZ_OK &&
		    len == strlen(ROZ_LEDGER_ATTRIBUTES) && memcmp(text, ROZ_LEDGER_ATTRIBUTES, len) == 0;

	roz_free(text);
	roz_free(p);
	return same;
}

/* The Bash line runs roz itself (by any path: the shell reader reduced it to `roz`). */
static bool runs_roz(const gov_run *g)
{
	for (size_t i = 0; g->have_sh && i < g->sh.ncmds; i++)
		if (g->sh.cmds[i].nwords >= 2 && strcmp(g->sh.cmds[i].words[0], "roz") == 0)
			return true;
	return false;
}

/* A change at the place of a violation already kept: undoing it, or more of the same; the stop settles it. */
static bool standing(const gov_run *g, const roz_session_gov *sg, const roz_change *c)
{
	return roz_session_gov_violation_at(sg, g->orch.root, c->path) ||
	       (c->from && roz_session_gov_violation_at(sg, g->orch.root, c->from));
}

static int trace_detected(roz_session *s, const roz_env *env, const roz_hook_input *in, const roz_change *c,
			  roz_denial_code code)
{
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	roz_buf_adds(&p, "{\"code\":");
	roz_json_add_string(&p, roz_denial_code_name(code));
	roz_buf_adds(&p, ",\"decision\":\"detected\",\"tool\":");
	roz_json_add_string(&p, in->tool_name ? in->tool_name : "");
	roz_buf_adds(&p, ",\"path\":");
	roz_json_add_string(&p, c->path);
	roz_buf_adds(&p, ",\"change\":");
	roz_json_add_string(&p, roz_change_kind_name(c->kind));
	roz_buf_addc(&p, '}');
	if ((rc = roz_buf_failed(&p)) == ROZ_OK)
		rc = roz_hook_trace(s, env, ROZ_EVENT_GOVERNANCE_REFUSED, p.ptr);
	roz_buf_dispose(&p);
	return rc == ROZ_EINVALID ? ROZ_OK : rc;
}

/* The answer to a call that made changes governance does not allow: the tool ran, so the agent undoes. */
static int tell(roz_hook_result *res, const roz_buf *list, const roz_buf *undo)
{
	roz_buf t = ROZ_BUF_INIT;
	roz_hook_output *o = &res->output;

	roz_buf_adds(&t, "roz governance: this call made changes that governance does not allow. The working "
			 "tree shows:\n");
	roz_buf_add(&t, list->ptr, list->len);
	roz_buf_adds(&t, "\nUndo each change (");
	roz_buf_add(&t, undo->ptr, undo->len);
	roz_buf_adds(&t, "), or ask the person to accept it: they run `roz intent accept <path>` in a "
			 "terminal. The session cannot stop while a change stands.");
	if (o->text && (o->kind == ROZ_OUTPUT_CONTEXT || o->kind == ROZ_OUTPUT_BLOCK)) {
		roz_buf_adds(&t, "\n\n");
		roz_buf_adds(&t, o->text);
	}
	if (roz_buf_failed(&t)) {
		roz_buf_dispose(&t);
		return ROZ_ENOMEM;
	}
	o->more = "`roz intent violations` lists every change that stands";
	return roz_hook_output_take(o, ROZ_OUTPUT_BLOCK, roz_buf_detach(&t, NULL));
}

/* Keep, trace and tell one violation; the first three say how to undo them. */
static int report(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s, const roz_change *c,
		  roz_denial_code code, roz_buf *list, roz_buf *undo, size_t *nviol)
{
	int rc;

	if ((rc = keep_violation(g, in, env, s, c, code)) < 0 || (rc = trace_detected(s, env, in, c, code)) < 0)
		return rc;
	roz_buf_adds(list, "- ");
	roz_detect_describe(c, code, roz_session_gov_intent_in(&s->gov, g->orch.root), list);
	roz_buf_addc(list, '\n');
	if ((*nviol)++ < 3) {
		if (undo->len)
			roz_buf_adds(undo, "; ");
		roz_detect_how_to_undo(c->kind, c->existed, code, c->path, undo);
	}
	return ROZ_OK;
}

/*
 * The stale-file lock for what the line did not show: each in-scope file
 * the call changed in place that the session had read or written. If it
 * held something else just before the call (or, not knowing what it held,
 * changed after the session saw it), someone else's change was under this
 * one: a violation (a file tool's own target is prevention's, which hashed
 * it just before the call). When the session saw the file after the
 * snapshot was taken, the session's look is the newer one: what the
 * snapshot says the file held is kept only if it is what the session saw,
 * and nothing is judged stale. Either way the session now knows the file
 * as the call left it, so its own change is not taken for someone else's.
 */
static int stale_after_the_fact(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
				const roz_tree *before, roz_hook_result *res, roz_buf *list, roz_buf *undo,
				size_t *nviol)
{
	int rc = ROZ_OK;

	for (size_t i = 0; i < g->ndetected && rc == ROZ_OK; i++) {
		gov_detected *d = &g->detected[i];
		const roz_tree_entry *b;
		const roz_gov_file *seen;
		char *abs, bh[ROZ_SHA256_HEX_SIZE], now[ROZ_GOV_HASH_SIZE];

		if (d->is_new || !(b = roz_tree_find(before, d->path)))
			continue;
		if (!(abs = gov_path(g, d->path)))
			return ROZ_ENOMEM;
		if ((seen = roz_session_gov_file(&s->gov, abs)) != NULL) {
			int64_t seen_ns = seen->seen_at.sec * 1000000000LL + seen->seen_at.nsec;
			roz_change c = {.kind = ROZ_CHANGE_MODIFIED, .path = d->path, .existed = true};

			if (d->before)
				roz_digest_sha256_hex(d->before, d->before_len, bh);
			if (seen_ns > before->taken_ns) {
				if (d->before && strcmp(bh, seen->hash) != 0) {
					/* it changed after the snapshot and before the session seen: not known */
					roz_free(d->before);
					d->before = NULL;
					d->before_len = 0;
				}
			} else if (roz_detect_stale(seen->hash, seen_ns, d->before ? bh : NULL, b->ctime_ns) &&
				   !roz_session_gov_violation_at(&s->gov, g->orch.root, d->path)) {
				rc = report(g, in, env, s, &c, ROZ_DENIAL_STALE_FILE, list, undo, nviol);
			}
			if (rc == ROZ_OK && roz_orchestration_hash_file(NULL, abs, now) == ROZ_OK) {
				rc = roz_session_gov_remember(&s->gov, abs, now, env->now);
				res->save = true;
			}
		}
		roz_free(abs);
	}
	return rc == ROZ_EINVALID ? ROZ_OK : rc;
}

int gov_detect_post(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
		    roz_hook_result *res)
{
	roz_tree before = {0};
	gov_sight now = {0};
	roz_changes ch = {0};
	roz_gov_world w;
	roz_buf list = ROZ_BUF_INIT, undo = ROZ_BUF_INIT;
	char *path = NULL;
	struct stat root_st;
	size_t others = 0, nviol = 0, kept;
	int64_t since;
	bool moved;
	int rc, loaded;

	if (!g->detects || !s)
		return ROZ_OK;
	if ((rc = gov_snapshot_path(g, in->session_id, &path)) < 0)
		goto out;
	since = call_start(path, in, env);
	loaded = roz_tree_load(path, &before);
	if ((rc = loaded) == ROZ_ENOMEM)
		goto out;
	if (rc == ROZ_OK && before.truncated &&
	    env->now.sec * 1000000000LL + env->now.nsec - before.taken_ns < DETECT_LARGE_RETRY_NS) {
		too_large(g, s, res);
		rc = ROZ_OK;
		goto out;
	}
	rc = gov_look(g, env, loaded == ROZ_OK ? &before : NULL, &now, res, "post-tool-use");
	if (rc == ROZ_EINVALID) {
		too_large(g, s, res);
		rc = roz_tree_save(&now.t, path);
		goto out;
	}
	if (rc < 0)
		goto out;
	if (loaded != ROZ_OK) {
		/*
		 * No snapshot to compare with (removed, or never written): this walk is
		 * the first sight of the tree. Judging against nothing would take every
		 * file changed in place for one created, and tell the agent to delete it.
		 */
		rc = roz_tree_save(&now.t, path);
		goto out;
	}
	if (stat(g->orch.root, &root_st) < 0) {
		roz_error_set("cannot stat '%s': %s", g->orch.root, strerror(errno));
		rc = ROZ_EIO;
		goto out;
	}
	if (now.picks) {
		/* only what moved was walked: it is compared with what the snapshot held of it */
		roz_tree was = before;

		was.items = now.gone;
		was.n = now.ngone;
		rc = roz_tree_diff(&was, &now.t, gov_ns(root_st.st_ctim), since, &ch, &others);
		kept = now.kept;
	} else {
		rc = roz_tree_diff(&before, &now.t, gov_ns(root_st.st_ctim), since, &ch, &others);
		kept = now.t.n;
	}
	if (rc < 0)
		goto out;
	/* saved when it differs, or its stamp moved past paths that moved (not asked about again) */
	moved = now.moved != 0;
	if (ch.n || others || before.n != kept || now.t.watch_id != before.watch_id ||
	    (moved && now.t.watch_gen != before.watch_gen)) {
		rc = now.picks ? roz_tree_save_patched(&before, &now.t, now.picks, now.npicks, path)
			       : roz_tree_save(&now.t, path);
		if (rc < 0)
			goto out;
	}
	g->detected_run = true;
	/* judging needs the intents, read only when something changed */
	if (ch.n && (rc = roz_orchestration_load(&g->orch, ROZ_ORCH_INTENTS)) < 0)
		goto out;
	world_of_run(g, &w);
	for (size_t i = 0; i < ch.n; i++) {
		const roz_change *c = &ch.items[i];
		roz_denial_code code;
		roz_detect_verdict v;

		/* the lessons file is roz's to append to (an ISSUES verdict, `roz lesson add`) */
		if (runs_roz(g) && strcmp(c->path, ROZ_ORCH_LESSONS_FILE) == 0 && !c->from)
			continue;
		/* the ledger's merge attributes, as roz writes them beside its first record */
		if (strcmp(c->path, ROZ_LEDGER_ATTRIBUTES_FILE) == 0 && !c->from && c->kind == ROZ_CHANGE_CREATED &&
		    roz_attributes(g))
			continue;
		v = roz_detect_judge(c, &w, &s->gov, &code);

		if (v == ROZ_DETECT_IN_SCOPE && !c->dir) {
			/* removed and renamed files too: the ledger records each change as what it was */
			if ((rc = gov_detected_add(g, c)) < 0)
				goto out;
			continue;
		}
		if (v != ROZ_DETECT_VIOLATION || standing(g, &s->gov, c))
			continue;
		if ((rc = report(g, in, env, s, c, code, &list, &undo, &nviol)) < 0)
			goto out;
	}
	/*
	 * What files changed in place held before, for their lines and the stale lock: a file tool's own
	 * target has its lines from Claude Code and was hashed by prevention, so nothing is asked of git
	 */
	if (roz_effect_tool_kind(in->tool_name) != ROZ_TOOL_WRITES_FILE &&
	    ((rc = gov_detect_before(g, in->session_id, &before)) < 0 ||
	     (rc = stale_after_the_fact(g, in, env, s, &before, res, &list, &undo, &nviol)) < 0))
		goto out;
	if (nviol) {
		s->gov.present = true;
		res->save = true;
		if (nviol > 3)
			roz_buf_adds(&undo, "; and the same for the others");
		if (roz_buf_failed(&list) || roz_buf_failed(&undo)) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		rc = tell(res, &list, &undo);
	}
out:
	if (rc < 0 && rc != ROZ_ENOMEM && rc != ROZ_EINVALID)
		gov_detect_warn(res, "post-tool-use", roz_error_last());
	roz_buf_dispose(&list);
	roz_buf_dispose(&undo);
	roz_changes_dispose(&ch);
	gov_sight_dispose(&now);
	roz_tree_dispose(&before);
	roz_free(path);
	return rc == ROZ_ENOMEM ? rc : ROZ_OK;
}

/* ---- Stop ----------------------------------------------------------------------- */

/*
 * Which of `paths` git reports as different from the index or HEAD (or
 * untracked): dirty[i] set. ROZ_OK, or ROZ_EIO when git cannot say (then
 * every path counts as dirty).
 */
static int git_dirty(const char *root, char **paths, size_t n, bool *dirty)
{
	const char **args = roz_calloc(n + 6, sizeof *args);
	char *out = NULL;
	size_t k = 0, olen = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		dirty[i] = true;
	if (!args)
		return ROZ_ENOMEM;
	args[k++] = "status";
	args[k++] = "--porcelain=v1";
	args[k++] = "-z";
	args[k++] = "--untracked-files=all";
	args[k++] = "--no-renames";
	args[k++] = "--";
	for (size_t i = 0; i < n; i++)
		args[k++] = paths[i];
	rc = roz_git_output(root, args, k, NULL, 0, GIT_STATUS_MAX, &out, &olen);
	if (rc == ROZ_OK) {
		for (size_t i = 0; i < n; i++)
			dirty[i] = false;
		/* entries "XY path\0" */
		for (size_t at = 0; at + 3 < olen;) {
			const char *p = out + at + 3;
			size_t len = strnlen(p, olen - at - 3);

			for (size_t i = 0; i < n; i++)
				if (strlen(paths[i]) == len && memcmp(paths[i], p, len) == 0)
					dirty[i] = true;
			at += 3 + len + 1;
		}
	} else if (rc != ROZ_ENOMEM) {
		rc = ROZ_EIO;
	}
	roz_free(out);
	roz_free(args);
	return rc;
}

static bool exists(const char *root, const char *rel)
{
	struct stat st;
	char *p = roz_asprintf("%s/%s", strcmp(root, "/") ? root : "", rel);
	bool there = p && lstat(p, &st) == 0;

	roz_free(p);
	return there;
}

/*
 * Undone: what was created is gone; what was renamed is back where it was;
 * what existed stands again as git holds it (committed content, mode).
 * Something that existed but git does not track cannot be shown undone:
 * the person accepts it.
 */
static int check_undone(roz_session_gov *g, bool *undone)
{
	size_t nv = g->n_violations;
	char **paths = roz_calloc(nv, sizeof *paths);
	size_t *which = roz_calloc(nv, sizeof *which);
	bool *dirty = roz_calloc(nv, sizeof *dirty), *asked = roz_calloc(nv, sizeof *asked);
	int rc = ROZ_OK;

	if (!paths || !which || !dirty || !asked) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nv; i++) {
		const roz_gov_violation *v = &g->violations[i];

		if (v->code && strcmp(v->code, roz_denial_code_name(ROZ_DENIAL_STALE_FILE)) == 0)
			asked[i] = true; /* someone else's change was under it: only a person can say it is settled */
		else if (strcmp(v->change, "renamed") == 0)
			undone[i] = !exists(v->root, v->path) && v->from && exists(v->root, v->from);
		else if (!v->existed)
			undone[i] = !exists(v->root, v->path);
		else
			asked[i] = !exists(v->root, v->path); /* still gone: not undone, git need not say */
	}
	/* what existed and stands again: one git per repository says whether it is as committed */
	for (size_t i = 0; i < nv; i++) {
		const char *root = g->violations[i].root;
		size_t n = 0;

		if (asked[i] || undone[i] || !g->violations[i].existed || strcmp(g->violations[i].change, "renamed") == 0)
			continue;
		for (size_t j = i; j < nv; j++) {
			const roz_gov_violation *u = &g->violations[j];

			if (!asked[j] && !undone[j] && u->existed && strcmp(u->change, "renamed") != 0 &&
			    strcmp(u->root, root) == 0) {
				paths[n] = u->path;
				which[n++] = j;
				asked[j] = true;
			}
		}
		if ((rc = git_dirty(root, paths, n, dirty)) == ROZ_ENOMEM)
			goto out;
		for (size_t k = 0; rc == ROZ_OK && k < n; k++)
			undone[which[k]] = !dirty[k];
		rc = ROZ_OK;
	}
out:
	roz_free(paths);
	roz_free(which);
	roz_free(dirty);
	roz_free(asked);
	return rc;
}

int gov_detect_stop(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
		    roz_hook_result *res)
{
	roz_hook_output *o = &res->output;
	roz_buf t = ROZ_BUF_INIT;
	bool *undone;
	size_t before;
	int rc;

	(void)g;
	(void)in;
	if (!s || !s->gov.n_violations)
		return ROZ_OK;
	before = s->gov.n_violations;
	if (!(undone = roz_calloc(before, sizeof *undone)))
		return ROZ_ENOMEM;
	if ((rc = check_undone(&s->gov, undone)) < 0) {
		roz_free(undone);
		return rc;
	}
	for (size_t i = before; i-- > 0;)
		if (undone[i])
			roz_session_gov_violation_remove(&s->gov, i);
	roz_free(undone);
	if (s->gov.n_violations != before)
		res->save = true;
	if (!s->gov.n_violations) {
		if (s->gov.stop_holds)
			s->gov.stop_holds = 0, res->save = true;
		return ROZ_OK;
	}
	if (o->kind != ROZ_OUTPUT_ALLOW && o->kind != ROZ_OUTPUT_BLOCK)
		return ROZ_OK;
	if (o->kind == ROZ_OUTPUT_ALLOW && env->config->max_blocks &&
	    s->gov.stop_holds >= env->config->max_blocks) {
		roz_buf_addf(&res->notes,
			     "roz: warning: stop: %zu change(s) governance does not allow still stand after %u "
			     "held stops; letting the agent stop (circuit breaker). `roz intent violations` "
			     "lists them\n",
			     s->gov.n_violations, (unsigned)s->gov.stop_holds);
		s->gov.stop_holds = 0;
		res->save = true;
		return ROZ_OK;
	}
	roz_buf_adds(&t, "roz governance: changes this session made that its intent does not allow still stand:\n");
	for (size_t i = 0; i < s->gov.n_violations; i++) {
		const roz_gov_violation *v = &s->gov.violations[i];

		roz_buf_addf(&t, "- %s: %s (%s)\n", v->path, v->change, v->code);
	}
	roz_buf_adds(&t, "Undo each (remove what was created, move back what was renamed, `git restore -- "
			 "<path>` what was committed; for a STALE_FILE, check that the other change is still "
			 "there instead), or ask the person to run `roz intent accept <path>` in a terminal; then "
			 "stop again.");
	if (o->kind == ROZ_OUTPUT_BLOCK && o->text) {
		roz_buf_adds(&t, "\n\n");
		roz_buf_adds(&t, o->text);
	} else {
		s->gov.stop_holds++;
	}
	res->save = true;
	if (roz_buf_failed(&t)) {
		roz_buf_dispose(&t);
		return ROZ_ENOMEM;
	}
	o->more = "`roz intent violations` lists every change that stands";
	return roz_hook_output_take(o, ROZ_OUTPUT_BLOCK, roz_buf_detach(&t, NULL));
}
