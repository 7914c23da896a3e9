/*
 * detect.c - what detection found, judged by the rules prevention uses:
 * the change kinds, the verdict on one change, and the words the agent is
 * told (roz/detect.h).
 */
#include "roz/detect.h"

#include <string.h>

#include "roz/ledger.h"
#include "roz/scope.h"

static const char *const kind_names[] = {
	[ROZ_CHANGE_CREATED] = "created", [ROZ_CHANGE_MODIFIED] = "modified",
	[ROZ_CHANGE_REMOVED] = "removed", [ROZ_CHANGE_RENAMED] = "renamed",
	[ROZ_CHANGE_MODE] = "mode",       [ROZ_CHANGE_LINKED] = "linked",
};

const char *roz_change_kind_name(roz_change_kind k)
{
	return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "changed";
}

bool roz_change_kind_parse(const char *name, roz_change_kind *out)
{
	for (size_t i = 0; name && i < sizeof kind_names / sizeof kind_names[0]; i++)
		if (strcmp(name, kind_names[i]) == 0) {
			*out = (roz_change_kind)i;
			return true;
		}
	return false;
}

int roz_changes_add(roz_changes *c, roz_change_kind kind, const char *path, const char *from, bool dir,
		    bool existed)
{
	roz_change *x;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		roz_change *p = roz_realloc(c->items, cap * sizeof *p);

		if (!p)
			return ROZ_ENOMEM;
		c->items = p;
		c->cap = cap;
	}
	x = &c->items[c->n];
	memset(x, 0, sizeof *x);
	x->kind = kind;
	x->dir = dir;
	x->existed = existed;
	if (!(x->path = roz_strdup(path)) || (from && !(x->from = roz_strdup(from)))) {
		roz_free(x->path);
		return ROZ_ENOMEM;
	}
	c->n++;
	return ROZ_OK;
}

void roz_changes_dispose(roz_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		roz_free(c->items[i].path);
		roz_free(c->items[i].from);
	}
	roz_free(c->items);
	memset(c, 0, sizeof *c);
}

/* One path's verdict; the ledger and .orchestration/ itself are judged before any ignore rule. */
static roz_detect_verdict judge_path(const char *rel, const roz_gov_world *w, const roz_intent *it,
				     roz_denial_code *code)
{
	if (roz_scope_match(ROZ_LEDGER_FILE, rel, w->fold_case))
		return ROZ_DETECT_OUTSIDE;
	if (roz_scope_is_orchestration(rel, w->fold_case)) {
		*code = ROZ_DENIAL_ORCHESTRATION;
		return ROZ_DETECT_VIOLATION;
	}
	if (w->ignore && roz_ignore_match(w->ignore, rel, w->fold_case))
		return ROZ_DETECT_OUTSIDE;
	if (!it) {
		*code = ROZ_DENIAL_INTENT_REQUIRED;
		return ROZ_DETECT_VIOLATION;
	}
	if (!roz_scope_match_any(it->scope, it->nscope, rel, w->fold_case)) {
		*code = ROZ_DENIAL_SCOPE_VIOLATION;
		return ROZ_DETECT_VIOLATION;
	}
	return ROZ_DETECT_IN_SCOPE;
}

roz_detect_verdict roz_detect_judge(const roz_change *c, const roz_gov_world *w,
				    const roz_session_gov *g, roz_denial_code *code)
{
	const roz_intent *it = NULL;
	roz_detect_verdict v;

	*code = ROZ_DENIAL_NONE;
	if (w->intents && roz_session_gov_intent_in(g, w->root)) {
		it = roz_intents_find(w->intents, roz_session_gov_intent_in(g, w->root));
		if (it && it->status != ROZ_INTENT_IN_PROGRESS)
			it = NULL;
	}
	/* a directory is judged through the files in it; only .orchestration/ is protected as a place */
	if (c->dir && !roz_scope_is_orchestration(c->path, w->fold_case) &&
	    !(c->from && roz_scope_is_orchestration(c->from, w->fold_case)))
		return ROZ_DETECT_OUTSIDE;
	v = judge_path(c->path, w, it, code);
	if (c->kind == ROZ_CHANGE_RENAMED && c->from && v != ROZ_DETECT_VIOLATION) {
		roz_denial_code from_code = ROZ_DENIAL_NONE;
		roz_detect_verdict fv = judge_path(c->from, w, it, &from_code);

		if (fv == ROZ_DETECT_VIOLATION) {
			*code = from_code;
			return fv;
		}
		if (fv == ROZ_DETECT_IN_SCOPE)
			v = ROZ_DETECT_IN_SCOPE;
	}
	return v;
}

static const char *why(roz_denial_code code)
{
	switch (code) {
	case ROZ_DENIAL_ORCHESTRATION:
		return ".orchestration/ is changed through roz only";
	case ROZ_DENIAL_INTENT_REQUIRED:
		return "no intent was selected";
	case ROZ_DENIAL_SCOPE_VIOLATION:
		return "outside the selected intent's owned_scope";
	case ROZ_DENIAL_STALE_FILE:
		return "someone else changed it after this session last read or wrote it, and this call changed it "
		       "again without reading it";
	default:
		return "not allowed";
	}
}

void roz_detect_describe(const roz_change *c, roz_denial_code code, const char *intent_id, roz_buf *out)
{
	roz_buf_adds(out, c->path);
	if (c->dir)
		roz_buf_addc(out, '/');
	roz_buf_adds(out, ": ");
	roz_buf_adds(out, roz_change_kind_name(c->kind));
	if (c->kind == ROZ_CHANGE_RENAMED && c->from) {
		roz_buf_adds(out, " from ");
		roz_buf_adds(out, c->from);
	}
	roz_buf_adds(out, " - ");
	roz_buf_adds(out, why(code));
	if (code == ROZ_DENIAL_SCOPE_VIOLATION && intent_id)
		roz_buf_addf(out, " (%s)", intent_id);
}

void roz_detect_how_to_undo(roz_change_kind kind, bool existed, roz_denial_code code, const char *path,
			    roz_buf *out)
{
	if (code == ROZ_DENIAL_STALE_FILE)
		roz_buf_addf(out, "check that the other change to %s is still there (`git diff -- %s`), put it back if "
				  "it is lost, and ask the person to accept the file",
			     path, path);
	else if (!existed && kind != ROZ_CHANGE_RENAMED)
		roz_buf_addf(out, "remove %s", path);
	else if (kind == ROZ_CHANGE_RENAMED)
		roz_buf_addf(out, "move %s back", path);
	else
		roz_buf_addf(out, "restore %s (`git restore -- %s` when it was committed)", path, path);
}

bool roz_detect_stale(const char *seen_hash, int64_t seen_at_ns, const char *before_hash, int64_t before_ctime_ns)
{
	if (!seen_hash)
		return false;
	if (before_hash)
		return strcmp(seen_hash, before_hash) != 0;
	return before_ctime_ns > seen_at_ns;
}
