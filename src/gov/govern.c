/*
 * govern.c - the governance rules put together for one tool call: which
 * check runs, in which order, and what the session remembers
 * (roz/govern.h says what each rule does; docs/governance.md why).
 *
 * Order matters for what the agent is told: a destructive command is the
 * person's call whatever else is wrong with it; a broken intents file is
 * named before anything that depends on it; a selection is taken before
 * the rest of its line is judged, so `roz intent select X && touch f` works.
 */
#include "roz/govern.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "roz/effect.h"
#include "roz/json.h"

void roz_gov_result_dispose(roz_gov_result *r)
{
	if (!r)
		return;
	roz_denial_dispose(&r->denial);
	memset(r, 0, sizeof *r);
}

bool roz_govern_may_judge(const roz_hook_input *in)
{
	return in->tool_name && roz_effect_tool_kind(in->tool_name) != ROZ_TOOL_READS;
}

void roz_govern_choices_json(const roz_intents *ints, roz_buf *out)
{
	bool first = true;

	roz_buf_addc(out, '[');
	for (size_t i = 0; ints && i < ints->n; i++) {
		const roz_intent *it = &ints->items[i];

		if (it->status != ROZ_INTENT_IN_PROGRESS)
			continue;
		roz_buf_adds(out, first ? "{\"id\":" : ",{\"id\":");
		first = false;
		roz_json_add_string(out, it->id);
		roz_buf_adds(out, ",\"name\":");
		roz_json_add_string(out, it->name);
		roz_buf_adds(out, ",\"scope\":");
		roz_json_add_string_array(out, it->scope, it->nscope);
		roz_buf_addc(out, '}');
	}
	roz_buf_addc(out, ']');
}

/* "INT-001 (JWT migration), INT-002 (...)" or a sentence saying there is none. */
static void choices_text(const roz_intents *ints, roz_buf *out)
{
	size_t shown = 0;

	for (size_t i = 0; ints && i < ints->n; i++) {
		const roz_intent *it = &ints->items[i];

		if (it->status != ROZ_INTENT_IN_PROGRESS)
			continue;
		if (shown == 10) {
			roz_buf_adds(out, ", ... (roz intent list shows them all)");
			break;
		}
		roz_buf_addf(out, "%s%s (%s)", shown ? ", " : "", it->id, it->name);
		shown++;
	}
	if (!shown)
		roz_buf_adds(out, "none is IN_PROGRESS; a person must set one IN_PROGRESS in "
				  ".orchestration/active_intents.yaml");
}

static void scope_text(const roz_intent *it, roz_buf *out)
{
	for (size_t j = 0; j < it->nscope; j++)
		roz_buf_addf(out, "%s%s", j ? ", " : "", it->scope[j]);
	if (!it->nscope)
		roz_buf_adds(out, "no paths");
}

/* Fill out->denial; `details` is a JSON object's text or NULL. */
static int refuse(roz_gov_result *out, roz_output_kind kind, roz_denial_code code,
		  const roz_hook_input *in, const char *details, const char *message)
{
	int rc = roz_denial_set(&out->denial, code, in->tool_name, details, "%s", message);

	if (rc == ROZ_OK)
		out->kind = kind;
	return rc;
}

/*
 * The same, from a sentence and details built in buffers (details may be
 * NULL), which are released: a buffer that ran out of memory is ROZ_ENOMEM.
 */
static int refuse_built(roz_gov_result *out, roz_output_kind kind, roz_denial_code code,
			const roz_hook_input *in, roz_buf *msg, roz_buf *det)
{
	int rc = roz_buf_failed(msg) || (det && roz_buf_failed(det)) ? ROZ_ENOMEM : ROZ_OK;

	if (rc == ROZ_OK)
		rc = refuse(out, kind, code, in, det ? roz_buf_cstr(det) : NULL, roz_buf_cstr(msg));
	roz_buf_dispose(msg);
	if (det)
		roz_buf_dispose(det);
	return rc;
}

/* The selected intent, if it still exists and is IN_PROGRESS. */
static const roz_intent *current_intent(const roz_gov_world *w, const roz_session_gov *g)
{
	const char *id = roz_session_gov_intent_in(g, w->root);
	const roz_intent *it;

	if (!id || !w->intents)
		return NULL;
	it = roz_intents_find(w->intents, id);
	return it && it->status == ROZ_INTENT_IN_PROGRESS ? it : NULL;
}

static bool has_word(const roz_shell_cmd *c, const char *w)
{
	for (size_t i = 0; i < c->nwords; i++)
		if (strcmp(c->words[i], w) == 0)
			return true;
	return false;
}

/* The `roz intent select <ID>` command of the line, for its options. */
static const roz_shell_cmd *select_cmd(const roz_shell_result *sh)
{
	for (size_t i = 0; sh && i < sh->ncmds; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];

		if (c->nwords >= 3 && strcmp(c->words[0], "roz") == 0 && strcmp(c->words[1], "intent") == 0 &&
		    strcmp(c->words[2], "select") == 0)
			return c;
	}
	return NULL;
}

/* ---- targets ----------------------------------------------------------------- */

typedef enum verdict { V_OK, V_IGNORED, V_OUTSIDE_REPO, V_ORCHESTRATION, V_OUT_OF_SCOPE } verdict;

typedef struct judged {
	verdict v;
	char *abs;  /* where the write lands, links followed */
	char *rel;  /* relative to the root, for messages (lexical form when inside) */
} judged;

static void judged_dispose(judged *j)
{
	roz_free(j->abs);
	roz_free(j->rel);
	memset(j, 0, sizeof *j);
}

/* Where one form of the path stands: inside the repository (rel set) or not. */
static int place(const roz_gov_world *w, const char *abs, char **rel)
{
	int rc = roz_scope_relpath(w->root, abs, w->fold_case, rel);

	return rc == ROZ_ENOTFOUND ? ROZ_OK : rc;
}

/*
 * A path with an `.orchestration` directory below the root's: a nested
 * repository's (a submodule's) intents and ledger, which change only
 * through roz as the root's do.
 */
static bool nested_orchestration(const char *rel, bool fold_case)
{
	for (const char *p = strchr(rel, '/'); p; p = strchr(p + 1, '/'))
		if (roz_scope_is_orchestration(p + 1, fold_case))
			return true;
	return false;
}

static verdict judge_rel(const roz_gov_world *w, const roz_intent *it, const char *rel)
{
	/* protected whatever .intentignore says (`*.yaml` would otherwise open the intents file) */
	if (roz_scope_is_orchestration(rel, w->fold_case) || nested_orchestration(rel, w->fold_case))
		return V_ORCHESTRATION;
	if (w->ignore && roz_ignore_match(w->ignore, rel, w->fold_case))
		return V_IGNORED;
	if (!it || !roz_scope_match_any(it->scope, it->nscope, rel, w->fold_case))
		return V_OUT_OF_SCOPE;
	return V_OK;
}

/*
 * Judge one target in both its forms: as written (lexical) and where its
 * links lead (physical). Both outside the repository: not governed. One
 * inside and one outside: a link across the boundary, which no scope can
 * own. Otherwise the worse of the two stands, so an ignored or owned path
 * cannot lead somewhere that is neither.
 */
static verdict worse(verdict a, verdict b)
{
	static const int rank[] = {[V_OK] = 0, [V_IGNORED] = 0, [V_OUTSIDE_REPO] = 0,
				   [V_OUT_OF_SCOPE] = 1, [V_ORCHESTRATION] = 2};

	return rank[b] > rank[a] ? b : a;
}

static int judge_target(const roz_gov_world *w, const roz_intent *it, const char *cwd,
			const char *path, judged *j)
{
	char *lex = NULL, *lrel = NULL, *prel = NULL;
	verdict lv, pv;
	int rc;

	memset(j, 0, sizeof *j);
	if ((rc = roz_path_normalize(cwd, w->paths.home, path, &lex)) < 0)
		return rc;
	if ((rc = roz_path_resolve(&w->paths, cwd, path, &j->abs)) < 0)
		goto out;
	if ((rc = place(w, lex, &lrel)) < 0 || (rc = place(w, j->abs, &prel)) < 0)
		goto out;
	if (!lrel && !prel) {
		j->v = V_OUTSIDE_REPO;
		goto out;
	}
	lv = lrel ? judge_rel(w, it, lrel) : V_OUT_OF_SCOPE;
	pv = prel ? judge_rel(w, it, prel) : V_OUT_OF_SCOPE;
	j->v = worse(lv, pv);
	if (lv == V_IGNORED && pv == V_IGNORED)
		j->v = V_IGNORED;
	if (lrel) {
		j->rel = lrel;
		lrel = NULL;
	} else {
		j->rel = prel;
		prel = NULL;
	}
out:
	roz_free(lex);
	roz_free(lrel);
	roz_free(prel);
	return rc;
}

/* ---- PreToolUse -------------------------------------------------------------- */

static int deny_scope(roz_gov_result *out, const roz_hook_input *in, const roz_intent *it,
		      const judged *j, const char *path)
{
	roz_buf msg = ROZ_BUF_INIT, det = ROZ_BUF_INIT;

	if (j->v == V_ORCHESTRATION) {
		roz_buf_addf(&msg, "%s is under .orchestration/, which changes only through roz "
				   "(roz intent ..., or a person editing it).",
			     j->rel ? j->rel : path);
		roz_buf_adds(&det, "{\"path\":");
		roz_json_add_string(&det, j->rel ? j->rel : path);
		roz_buf_addc(&det, '}');
		return refuse_built(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_ORCHESTRATION, in, &msg, &det);
	}
	roz_buf_addf(&msg, "%s is outside %s's scope (", j->rel ? j->rel : path, it->id);
	scope_text(it, &msg);
	roz_buf_adds(&msg, "); change only paths the intent owns, or select the intent that owns "
			   "this one (roz intent list), or ask the person to widen the scope.");
	roz_buf_adds(&det, "{\"path\":");
	roz_json_add_string(&det, j->rel ? j->rel : path);
	if (j->abs) {
		roz_buf_adds(&det, ",\"resolved\":");
		roz_json_add_string(&det, j->abs);
	}
	roz_buf_adds(&det, ",\"intent_id\":");
	roz_json_add_string(&det, it->id);
	roz_buf_adds(&det, ",\"owned_scope\":");
	roz_json_add_string_array(&det, it->scope, it->nscope);
	roz_buf_addc(&det, '}');
	return refuse_built(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_SCOPE_VIOLATION, in, &msg, &det);
}

static int deny_stale(roz_gov_result *out, const roz_hook_input *in, const judged *j,
		      const char *path, const char *was, const char *now_hash)
{
	roz_buf msg = ROZ_BUF_INIT, det = ROZ_BUF_INIT;

	roz_buf_addf(&msg, "%s changed on disk since this session last read or wrote it (another "
			   "session, a subagent or a person changed it); Read it again, then make "
			   "the change.",
		     j->rel ? j->rel : path);
	roz_buf_adds(&det, "{\"path\":");
	roz_json_add_string(&det, j->rel ? j->rel : path);
	roz_buf_adds(&det, ",\"seen_sha256\":");
	roz_json_add_string(&det, was);
	roz_buf_adds(&det, ",\"disk_sha256\":");
	roz_json_add_string(&det, now_hash);
	roz_buf_addc(&det, '}');
	return refuse_built(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_STALE_FILE, in, &msg, &det);
}

/* Judge every target; the first refusal is kept in `out`. */
/* The target is the place of a change the session must undo (roz/detect.h), at either end of a rename. */
static bool undoes(const roz_gov_world *w, const roz_session_gov *g, const judged *j)
{
	return roz_session_gov_violation_at(g, w->root, j->rel);
}

/* A place outside the repository anyone may write: a temporary directory, Claude Code's own ~/.claude/. */
static bool free_outside(const roz_gov_world *w, const roz_gov_opts *o, const char *abs)
{
	const char *home = w->paths.home;
	size_t hl = home ? strlen(home) : 0;

	if (roz_path_under(abs, "/dev"))
		return true;
	for (size_t i = 0; i < o->ntemp_roots; i++)
		if (o->temp_roots[i] && roz_path_under(abs, o->temp_roots[i]))
			return true;
	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	return hl && home[0] == '/' && strncmp(abs, home, hl) == 0 && abs[hl] == '/' &&
	       roz_path_under(abs + hl, "/.claude");
}

/*
 * A target in another governed repository (another worktree of this one,
 * a repository beside it, wherever it lies, a temporary directory
 * included): its intents govern it, and this session's cannot. 1 when
 * refused, ROZ_OK when the target is in none, ROZ_ENOMEM.
 */
static int elsewhere(const roz_hook_input *in, const roz_gov_world *w, const judged *j, roz_gov_result *out)
{
	roz_buf msg = ROZ_BUF_INIT, det = ROZ_BUF_INIT;
	char *other = NULL;
	int rc;

	if ((rc = w->governed_elsewhere(w->ud, j->abs, w->root, &other)) < 0 || !other)
		return rc;
	roz_buf_addf(&msg, "%s is in another governed repository (%s): its own intents govern it, not this "
			   "session's; change it from a session working in that repository.",
		     j->abs, other);
	roz_buf_adds(&det, "{\"path\":");
	roz_json_add_string(&det, j->abs);
	roz_buf_adds(&det, ",\"repository\":");
	roz_json_add_string(&det, other);
	roz_buf_addc(&det, '}');
	roz_free(other);
	rc = refuse_built(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_OUTSIDE_REPOSITORY, in, &msg, &det);
	return rc < 0 ? rc : 1;
}

static int judge_targets(const roz_hook_input *in, const roz_gov_world *w, const roz_gov_opts *o,
			 const roz_intent *it, const char *cwd, const char *const *paths, size_t n,
			 const roz_session_gov *g, roz_gov_result *out)
{
	int rc = ROZ_OK;

	for (size_t i = 0; i < n && out->kind == ROZ_OUTPUT_ALLOW && rc == ROZ_OK; i++) {
		judged j;

		if ((rc = judge_target(w, it, cwd, paths[i], &j)) == ROZ_EINVALID) {
			roz_buf msg = ROZ_BUF_INIT;

			roz_buf_addf(&msg, "roz cannot tell where %s leads (%s); the person decides.",
				     paths[i], roz_error_last());
			rc = refuse_built(out, ROZ_OUTPUT_ASK, ROZ_DENIAL_TARGET_UNKNOWN, in, &msg, NULL);
			continue;
		}
		if (rc < 0)
			break;
		if (j.v == V_OUTSIDE_REPO && j.abs && w->governed_elsewhere &&
		    (rc = elsewhere(in, w, &j, out)) != ROZ_OK) {
			/* another governed repository's file: refused, or out of memory */
			if (rc > 0)
				rc = ROZ_OK;
		} else if (j.v == V_OUTSIDE_REPO && j.abs && !free_outside(w, o, j.abs)) {
			roz_buf msg = ROZ_BUF_INIT;

			roz_buf_addf(&msg, "%s is outside the repository and any temporary directory; no "
					   "intent owns it, so the person decides.",
				     j.abs);
			rc = refuse_built(out, ROZ_OUTPUT_ASK, ROZ_DENIAL_OUTSIDE_REPOSITORY, in, &msg, NULL);
		} else if ((j.v == V_ORCHESTRATION || j.v == V_OUT_OF_SCOPE) && undoes(w, g, &j)) {
			/* putting back what detection found changed is how the violation ends */
		} else if (j.v == V_ORCHESTRATION || j.v == V_OUT_OF_SCOPE) {
			rc = deny_scope(out, in, it, &j, paths[i]);
		} else if (j.v != V_OUTSIDE_REPO && w->hash_file) {
			/* a file tool's write, or a Bash line's visible target (sed -i, > f, cp, tee) */
			const roz_gov_file *seen = roz_session_gov_file(g, j.abs);
			char hash[ROZ_GOV_HASH_SIZE];
			int hr = ROZ_OK;

			if (seen && (hr = w->hash_file(w->ud, j.abs, hash)) == ROZ_OK &&
			    strcmp(hash, seen->hash) != 0)
				rc = deny_stale(out, in, &j, paths[i], seen->hash, hash);
			else if (seen && hr != ROZ_OK && hr != ROZ_ENOTFOUND && hr != ROZ_ENOMEM) {
				roz_buf msg = ROZ_BUF_INIT;

				roz_buf_addf(&msg, "roz cannot read %s to check it is not stale (%s).",
					     j.rel ? j.rel : paths[i], roz_error_last());
				rc = refuse_built(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_HOOK_ERROR, in, &msg, NULL);
			} else if (seen && hr == ROZ_ENOMEM) {
				rc = ROZ_ENOMEM;
			}
		}
		judged_dispose(&j);
	}
	return rc;
}

static const char *file_target(const roz_hook_input *in)
{
	const char *field = roz_effect_path_field(in->tool_name);
	const cJSON *v = field ? cJSON_GetObjectItemCaseSensitive(in->tool_input, field) : NULL;

	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

/*
 * 1 when the call names its targets and .intentignore takes every one of
 * them (as written and where its links lead), 0 when not, or ROZ_ENOMEM.
 */
static int all_ignored(const roz_hook_input *in, const roz_gov_world *w, const roz_effect *eff)
{
	const char *cwd = in->cwd && in->cwd[0] == '/' ? in->cwd : w->root;
	const char *one = eff ? NULL : file_target(in);
	size_t n = eff ? eff->ntargets : (one != NULL);

	if (!w->ignore || !n || (eff && eff->unknown_target))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *path = eff ? eff->targets[i].path : one;
		judged j;
		int rc;

		if (!path)
			return 0;
		if ((rc = judge_target(w, NULL, cwd, path, &j)) < 0)
			return rc == ROZ_ENOMEM ? rc : 0;
		rc = j.v == V_IGNORED;
		judged_dispose(&j);
		if (!rc)
			return 0;
	}
	return 1;
}

/* A refusal counts toward the limit; past it, the person decides. */
static int count_refusal(const roz_gov_opts *o, roz_session_gov *g, roz_gov_result *out)
{
	char *code;

	if (!g)
		return ROZ_OK;
	g->present = true;
	g->phase = ROZ_GOV_BLOCKED;
	if (out->denial.code != ROZ_DENIAL_DESTRUCTIVE_BLOCKED &&
	    out->denial.code != ROZ_DENIAL_TARGET_UNKNOWN) {
		if (g->denials < UINT32_MAX)
			g->denials++;
		if (o->escalate_after && g->denials > o->escalate_after && out->kind == ROZ_OUTPUT_DENY) {
			roz_buf msg = ROZ_BUF_INIT;

			roz_buf_addf(&msg, "%s (refusal %u in a row: the person decides)",
				     out->denial.message, (unsigned)g->denials);
			if (roz_buf_failed(&msg))
				return ROZ_ENOMEM;
			roz_free(out->denial.message);
			out->denial.message = roz_buf_detach(&msg, NULL);
			out->kind = ROZ_OUTPUT_ASK;
			out->escalated = true;
			g->escalations++;
		}
	}
	if (!(code = roz_strdup(roz_denial_code_name(out->denial.code))))
		return ROZ_ENOMEM;
	roz_free(g->last_code);
	g->last_code = code;
	out->save = true;
	return ROZ_OK;
}

static int destructive_check(const roz_hook_input *in, const roz_shell_result *sh,
			     const roz_gov_world *w, const roz_gov_opts *o, roz_gov_result *out)
{
	roz_destructive_opts d = {
		.cwd = in->cwd && in->cwd[0] == '/' ? in->cwd : (w->root ? w->root : "/"),
		.home = w->paths.home,
		.tmp_dirs = o->tmp_dirs, .ntmp = o->ntmp,
		.repo = w->root ? w->root : (in->cwd && in->cwd[0] == '/' ? in->cwd : NULL),
		.paths = w->paths.read_link ? &w->paths : NULL,
		.disabled = o->disabled, .ndisabled = o->ndisabled,
		.extra = o->extra, .nextra = o->nextra,
	};
	roz_destructive_hit hit;
	int rc;

	memset(&hit, 0, sizeof hit);
	if ((rc = roz_destructive_find(sh, &d, &hit)) < 0)
		return rc;
	if (hit.rule) {
		roz_buf msg = ROZ_BUF_INIT, det = ROZ_BUF_INIT;

		roz_buf_addf(&msg, "%s Run it only if the person agrees.",
			     hit.reason ? hit.reason : "This command destroys work.");
		roz_buf_adds(&det, "{\"rule\":");
		roz_json_add_string(&det, hit.rule);
		roz_buf_adds(&det, ",\"command\":");
		roz_json_add_string(&det, hit.command ? hit.command : "");
		roz_buf_addc(&det, '}');
		rc = refuse_built(out, ROZ_OUTPUT_ASK, ROZ_DENIAL_DESTRUCTIVE_BLOCKED, in, &msg, &det);
	}
	roz_destructive_hit_dispose(&hit);
	return rc;
}

static int refuse_intents_file(const roz_hook_input *in, const roz_gov_world *w, roz_gov_result *out)
{
	roz_buf msg = ROZ_BUF_INIT;

	roz_buf_addf(&msg, "the intents file cannot be used, so no change can be judged: %s; a "
			   "person must fix it (roz doctor says how). Reading stays free.",
		     w->intents_problem ? w->intents_problem : ".orchestration/active_intents.yaml");
	return refuse_built(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENTS_UNREADABLE, in, &msg, NULL);
}

static int refuse_selection(const roz_hook_input *in, const roz_gov_world *w, const char *id,
			    const roz_intent *it, roz_gov_result *out)
{
	roz_buf msg = ROZ_BUF_INIT, det = ROZ_BUF_INIT;

	if (it)
		roz_buf_addf(&msg, "intent %s is %s, not IN_PROGRESS; choose one of: ", id,
			     roz_intents_status_name(it->status));
	else
		roz_buf_addf(&msg, "there is no intent %s; choose one of: ", id);
	choices_text(w->intents, &msg);
	roz_buf_addc(&msg, '.');
	roz_buf_adds(&det, "{\"intent_id\":");
	roz_json_add_string(&det, id);
	roz_buf_adds(&det, ",\"choices\":");
	roz_govern_choices_json(w->intents, &det);
	roz_buf_addc(&det, '}');
	return refuse_built(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_INVALID, in, &msg, &det);
}

static int refuse_no_intent(const roz_hook_input *in, const roz_gov_world *w, const char *why,
			    roz_gov_result *out)
{
	roz_buf msg = ROZ_BUF_INIT, det = ROZ_BUF_INIT;

	roz_buf_addf(&msg, "select an intent before changing anything (%s): run `roz intent select "
			   "<ID>` with one of: ",
		     why);
	choices_text(w->intents, &msg);
	roz_buf_addc(&msg, '.');
	roz_buf_adds(&det, "{\"choices\":");
	roz_govern_choices_json(w->intents, &det);
	roz_buf_addc(&det, '}');
	return refuse_built(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_INTENT_REQUIRED, in, &msg, &det);
}

int roz_govern_pre_tool_use(const roz_hook_input *in, const roz_shell_result *sh,
			    const roz_effect *eff, const roz_gov_world *w, const roz_gov_opts *o,
			    roz_time now, roz_session_gov *g, roz_gov_result *out)
{
	roz_tool_kind kind = in->tool_name ? roz_effect_tool_kind(in->tool_name) : ROZ_TOOL_READS;
	const roz_intent *it;
	const char *cwd;
	int rc = ROZ_OK;

	memset(out, 0, sizeof *out);
	if (!eff)
		sh = NULL; /* a line whose effect is not known is judged as one that cannot be read */
	if (kind == ROZ_TOOL_READS)
		return ROZ_OK;
	if (kind == ROZ_TOOL_BASH && sh && o->destructive &&
	    (rc = destructive_check(in, sh, w, o, out)) < 0)
		return rc;
	if (out->kind != ROZ_OUTPUT_ALLOW || !w->governed || !g)
		return ROZ_OK;
	/* a line that changes nothing is free, whatever state the intents are in */
	if (kind == ROZ_TOOL_BASH && sh && eff->read_only && !eff->select_id)
		return ROZ_OK;
	g->present = true;
	if (!w->intents) {
		rc = refuse_intents_file(in, w, out);
		goto counted;
	}
	if (kind == ROZ_TOOL_BASH) {
		if (!sh) {
			rc = refuse_no_intent(in, w, "the command could not be read", out);
			goto counted;
		}
		if (eff->select_id) {
			const roz_intent *sel = roz_intents_find(w->intents, eff->select_id);
			const roz_shell_cmd *c = select_cmd(sh);

			if (!sel || sel->status != ROZ_INTENT_IN_PROGRESS) {
				rc = refuse_selection(in, w, eff->select_id, sel, out);
				goto counted;
			}
			if ((rc = roz_session_gov_select(g, sel->id, c && has_word(c, "--refactor"), now)) < 0 ||
			    (w->root && (rc = roz_session_gov_select_root(g, w->root)) == ROZ_ENOMEM))
				goto out;
			rc = ROZ_OK; /* a root roz cannot store: the intent counts everywhere, as before */
			out->selected = true;
			out->save = true;
		}
		if (eff->read_only)
			goto out;
	}
	if (!(it = current_intent(w, g))) {
		/* a program that shows no target of its own: what it changes, detection judges */
		if (kind == ROZ_TOOL_BASH && w->detects && eff->ntargets == 0)
			goto out;
		/* every target outside governance (.intentignore): no intent is needed for it */
		if ((rc = all_ignored(in, w, kind == ROZ_TOOL_BASH ? eff : NULL)) != 0) {
			rc = rc < 0 ? rc : ROZ_OK;
			goto out;
		}
		rc = refuse_no_intent(in, w,
				      !g->intent_id ? "none is selected"
				      : !roz_session_gov_intent_in(g, w->root)
					      ? "the intent selected belongs to another repository"
					      : "the selected intent is no longer IN_PROGRESS",
				      out);
		goto counted;
	}
	cwd = in->cwd && in->cwd[0] == '/' ? in->cwd : w->root;
	if (kind == ROZ_TOOL_WRITES_FILE) {
		const char *path = file_target(in);

		if (!path) {
			rc = refuse(out, ROZ_OUTPUT_DENY, ROZ_DENIAL_TARGET_UNKNOWN, in, NULL,
				    "the call names no file to write, so its scope cannot be judged.");
			goto counted;
		}
		rc = judge_targets(in, w, o, it, cwd, &path, 1, g, out);
	} else {
		const char **paths;
		size_t n = 0;

		if (eff->unknown_target && !w->detects) {
			roz_buf msg = ROZ_BUF_INIT;

			roz_buf_addf(&msg, "where this command writes is known only when it runs (%s); "
					   "the person decides.",
				     eff->why ? eff->why : "a computed path");
			rc = refuse_built(out, ROZ_OUTPUT_ASK, ROZ_DENIAL_TARGET_UNKNOWN, in, &msg, NULL);
			goto counted;
		}
		if (!(paths = roz_calloc(eff->ntargets + 1, sizeof *paths))) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		/* a path that does not say where it lands is judged after, from the tree */
		for (size_t i = 0; i < eff->ntargets; i++)
			if (eff->targets[i].path && eff->targets[i].placed)
				paths[n++] = eff->targets[i].path;
		rc = judge_targets(in, w, o, it, cwd, paths, n, g, out);
		roz_free(paths);
	}
counted:
	if (rc < 0)
		goto out;
	if (out->kind != ROZ_OUTPUT_ALLOW) {
		rc = count_refusal(o, g, out);
	} else if (g->phase != ROZ_GOV_ACTION_ALLOWED || g->denials) {
		/* only a change of state is saved: a run of allowed changes writes nothing */
		g->phase = ROZ_GOV_ACTION_ALLOWED;
		g->denials = 0;
		out->save = true;
	}
out:
	return rc;
}

/* ---- PostToolUse ------------------------------------------------------------- */

/* The most visible targets of one Bash line learnt for the stale check; the rest are not remembered. */
#define GOV_BASH_LEARN_MAX 32

/* Remember what `path` holds now, or forget it when it is gone. */
static int learn(const roz_gov_world *w, const char *cwd, const char *path, roz_time now,
		 roz_session_gov *g)
{
	char *abs = NULL, hash[ROZ_GOV_HASH_SIZE];
	int rc;

	if ((rc = roz_path_resolve(&w->paths, cwd, path, &abs)) < 0)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK; /* a path that cannot be followed teaches nothing */
	rc = w->hash_file(w->ud, abs, hash);
	if (rc == ROZ_OK)
		rc = roz_session_gov_remember(g, abs, hash, now);
	else if (rc == ROZ_ENOTFOUND)
		roz_session_gov_forget(g, abs), rc = ROZ_OK;
	if (rc == ROZ_EINVALID || (rc < 0 && rc != ROZ_ENOMEM))
		rc = ROZ_OK; /* unreadable or unstorable: nothing is remembered, the next write is judged as new */
	roz_free(abs);
	return rc;
}

int roz_govern_post_tool_use(const roz_hook_input *in, const roz_effect *eff,
			     const roz_gov_world *w, roz_time now, roz_session_gov *g, bool *save)
{
	const char *cwd = in->cwd && in->cwd[0] == '/' ? in->cwd : w->root;
	roz_tool_kind kind;
	int rc = ROZ_OK;

	*save = false;
	if (!w->governed || !g || !in->tool_name || !w->hash_file)
		return ROZ_OK;
	kind = roz_effect_tool_kind(in->tool_name);
	if (strcmp(in->tool_name, "Read") == 0 || kind == ROZ_TOOL_WRITES_FILE) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(
			in->tool_input, kind == ROZ_TOOL_WRITES_FILE ? roz_effect_path_field(in->tool_name)
								     : "file_path");

		if (cJSON_IsString(v) && v->valuestring[0])
			rc = learn(w, cwd, v->valuestring, now, g);
		*save = true;
	} else if (kind == ROZ_TOOL_BASH && eff) {
		/* a line naming many files (touch *.c) must not push out what the session read */
		for (size_t i = 0, learnt = 0; i < eff->ntargets && rc == ROZ_OK && learnt < GOV_BASH_LEARN_MAX;
		     i++)
			if (eff->targets[i].path) {
				rc = learn(w, cwd, eff->targets[i].path, now, g);
				learnt++;
			}
		*save = !eff->read_only;
	}
	if (*save && kind != ROZ_TOOL_READS) {
		/* a change ran: the run of refusals is over */
		g->denials = 0;
		g->phase = g->intent_id ? ROZ_GOV_CONTEXT_LOADED : ROZ_GOV_AWAITING;
	}
	if (*save)
		g->present = true;
	return rc;
}
