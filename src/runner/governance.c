/*
 * governance.c - plugging intent governance into one hook run: find the
 * repository and its .orchestration/ files, parse a Bash line once, hand
 * the pure rules (roz/govern.h) the file system through callbacks, and
 * merge their answer with the review's.
 *
 * Costs are kept where governance has work: a read-only tool, or a Bash
 * line that changes nothing and selects nothing, never looks for the
 * repository; a repository without active_intents.yaml costs a few lstat
 * calls and is then left alone.
 */
#include "governance.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "roz/briefing.h"
#include "roz/effect.h"
#include "roz/json.h"

void gov_run_dispose(gov_run *g)
{
	roz_orchestration_dispose(&g->orch);
	if (g->have_sh) {
		roz_shell_result_dispose(&g->sh);
		roz_effect_dispose(&g->eff);
	}
	for (size_t i = 0; i < g->ntmp; i++)
		roz_free(g->tmp_dirs[i]);
	for (size_t i = 0; i < g->ndetected; i++) {
		roz_free(g->detected[i].path);
		roz_free(g->detected[i].from);
		roz_free(g->detected[i].before);
	}
	roz_free(g->detected);
	for (size_t i = 0; i < g->nremoved; i++)
		roz_free(g->removed[i]);
	roz_free(g->removed);
	roz_free(g->cache_dir);
	memset(g, 0, sizeof *g);
}

static const char *bash_command(const roz_hook_input *in)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(in->tool_input, "command");

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/*
 * The directory of the first file the call names (a file tool's path, a
 * Bash line's first visible target), lexically against cwd; NULL when it
 * names none.
 */
static char *target_dir(const gov_run *g, const roz_hook_input *in)
{
	const char *path = NULL;
	char *abs = NULL, *slash;

	if (in->tool_name && roz_effect_tool_kind(in->tool_name) == ROZ_TOOL_WRITES_FILE) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(in->tool_input, roz_effect_path_field(in->tool_name));

		path = cJSON_IsString(v) ? v->valuestring : NULL;
	} else if (g->have_sh) {
		for (size_t i = 0; i < g->eff.ntargets && !path; i++)
			path = g->eff.targets[i].path;
	}
	if (!path || !*path || roz_path_normalize(in->cwd, NULL, path, &abs) < 0 || !abs)
		return NULL;
	/* its directory: "/" itself for a file at the root */
	if ((slash = strrchr(abs, '/')) == abs)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	return abs;
}

static int find(gov_run *g, const roz_hook_input *in, unsigned what)
{
	int rc;

	if (!g->found) {
		char *dir;

		if (!in->cwd || in->cwd[0] != '/')
			return ROZ_OK; /* no repository to speak of: not governed */
		if ((rc = roz_orchestration_find(in->cwd, &g->orch)) < 0)
			return rc == ROZ_ENOMEM ? rc : ROZ_OK;
		/* working from above a governed repository (or from /): where the change lands governs it */
		if (!g->orch.governed && (dir = target_dir(g, in)) != NULL) {
			roz_orchestration there;

			if (roz_orchestration_find(dir, &there) == ROZ_OK && there.governed) {
				roz_orchestration_dispose(&g->orch);
				g->orch = there;
			} else {
				roz_orchestration_dispose(&there);
			}
			roz_free(dir);
		}
		g->found = true;
		if (g->storage && !(g->cache_dir = roz_asprintf("%s/intents", g->storage)))
			return ROZ_ENOMEM;
		g->orch.cache_dir = g->cache_dir;
	}
	return g->orch.has_dir ? roz_orchestration_load(&g->orch, what) : ROZ_OK;
}

/*
 * A temporary directory whose recursive removal needs no person. One that
 * holds the repository is still listed: a removal is judged by where its
 * path really leads and whether it holds the repository (roz/destructive.h).
 */
static int add_tmp(gov_run *g, const char *dir)
{
	if (!dir || dir[0] != '/' || g->ntmp >= sizeof g->tmp_dirs / sizeof g->tmp_dirs[0])
		return ROZ_OK;
	for (size_t i = 0; i < g->ntmp; i++)
		if (strcmp(g->tmp_dirs[i], dir) == 0)
			return ROZ_OK;
	return (g->tmp_dirs[g->ntmp] = roz_strdup(dir)) ? (g->ntmp++, ROZ_OK) : ROZ_ENOMEM;
}

int gov_prepare(gov_run *g, roz_hook_event ev, const roz_hook_input *in, const roz_config *c,
		roz_getenv_fn getenv_fn, void *env_ud, bool *needs_session)
{
	roz_tool_kind kind;
	int rc;

	memset(g, 0, sizeof *g);
	g->storage = c->storage_path;
	g->detect_max = c->gov_detect_max;
	switch (ev) {
	case ROZ_HOOK_SESSION_START:
		if ((rc = find(g, in, ROZ_ORCH_INTENTS | ROZ_ORCH_LESSONS)) < 0)
			return rc;
		g->active = g->orch.governed;
		break;
	case ROZ_HOOK_USER_PROMPT:
		if ((rc = find(g, in, ROZ_ORCH_INTENTS)) < 0)
			return rc;
		g->active = g->orch.governed;
		break;
	case ROZ_HOOK_PRE_TOOL_USE:
	case ROZ_HOOK_POST_TOOL_USE: {
		const char *cmd;
		bool changes = true;

		if (in->tool_name && strncmp(in->tool_name, "mcp__", 5) == 0 && c->gov_detect) {
			/* an MCP tool's server may write anything: no line to judge, detection looks */
			if ((rc = find(g, in, ROZ_ORCH_IGNORE)) < 0)
				return rc;
			g->detects = g->orch.governed && g->storage;
			if (g->detects && ev == ROZ_HOOK_POST_TOOL_USE)
				*needs_session = true;
			return ROZ_OK;
		}
		if (!in->tool_name || (kind = roz_effect_tool_kind(in->tool_name)) == ROZ_TOOL_READS) {
			/* a Read changes nothing, but teaches the stale check what the session saw */
			if (ev == ROZ_HOOK_PRE_TOOL_USE || !in->tool_name || strcmp(in->tool_name, "Read") != 0)
				return ROZ_OK;
		} else if (kind == ROZ_TOOL_BASH && (cmd = bash_command(in))) {
			if ((rc = roz_shell_parse(cmd, strlen(cmd), &g->sh)) < 0)
				return rc;
			g->have_sh = true;
			if ((rc = roz_effect_of_bash(&g->sh, &g->eff)) < 0)
				return rc;
			changes = !g->eff.read_only || g->eff.select_id;
		}
		if (ev == ROZ_HOOK_PRE_TOOL_USE) {
			const char *tmp = getenv_fn(env_ud, "TMPDIR");

			g->temp_roots[g->ntemp_roots++] = "/tmp";
			g->temp_roots[g->ntemp_roots++] = "/var/tmp";
			if (tmp && tmp[0] == '/')
				g->temp_roots[g->ntemp_roots++] = tmp;
		}
		if (ev == ROZ_HOOK_PRE_TOOL_USE && c->gov_destructive && g->have_sh) {
			const char *tmp = getenv_fn(env_ud, "TMPDIR");

			if ((rc = add_tmp(g, "/tmp")) < 0 || (rc = add_tmp(g, "/var/tmp")) < 0 || (rc = add_tmp(g, tmp)) < 0)
				return rc;
		}
		/* any Bash line or file tool can change more than it says: detection looks (detect.c) */
		if (!changes && !(kind != ROZ_TOOL_READS && c->gov_detect))
			return ROZ_OK;
		if ((rc = find(g, in, ev == ROZ_HOOK_PRE_TOOL_USE && changes ? ROZ_ORCH_INTENTS | ROZ_ORCH_IGNORE
									  : ROZ_ORCH_IGNORE)) < 0)
			return rc;
		g->detects = g->orch.governed && kind != ROZ_TOOL_READS && c->gov_detect && g->storage;
		if (g->detects && ev == ROZ_HOOK_POST_TOOL_USE)
			*needs_session = true;
		if (!changes)
			return ROZ_OK;
		g->active = g->orch.governed;
		g->judges_change = g->active && ev == ROZ_HOOK_PRE_TOOL_USE;
		/* a write that ran, in a repository that keeps a ledger: recorded, governed or not */
		g->records = ev == ROZ_HOOK_POST_TOOL_USE && g->orch.has_dir && kind != ROZ_TOOL_READS;
		if (g->records)
			*needs_session = true;
		break;
	}
	default:
		return ROZ_OK;
	}
	if (g->active)
		*needs_session = true;
	return ROZ_OK;
}

int gov_detected_add(gov_run *g, const roz_change *c)
{
	gov_detected *p, *d;

	if (c->kind == ROZ_CHANGE_REMOVED) {
		/* apart from the files still there, whose content detection and the ledger go on to read */
		char **r = roz_realloc(g->removed, (g->nremoved + 1) * sizeof *r);

		if (!r)
			return ROZ_ENOMEM;
		g->removed = r;
		return (r[g->nremoved] = roz_strdup(c->path)) ? (g->nremoved++, ROZ_OK) : ROZ_ENOMEM;
	}
	if (!(p = roz_realloc(g->detected, (g->ndetected + 1) * sizeof *p)))
		return ROZ_ENOMEM;
	g->detected = p;
	d = &p[g->ndetected];
	memset(d, 0, sizeof *d);
	/* a rename over a file that was there is, to detection, that file changed */
	d->is_new = c->kind == ROZ_CHANGE_CREATED || (c->kind == ROZ_CHANGE_RENAMED && !c->existed);
	if (!(d->path = roz_strdup(c->path)))
		return ROZ_ENOMEM;
	if (c->kind == ROZ_CHANGE_RENAMED && c->from && !(d->from = roz_strdup(c->from))) {
		roz_free(d->path);
		d->path = NULL;
		return ROZ_ENOMEM;
	}
	g->ndetected++;
	return ROZ_OK;
}

char *gov_path(const gov_run *g, const char *rel)
{
	return roz_asprintf("%s/%s", strcmp(g->orch.root, "/") ? g->orch.root : "", rel);
}

void world_of_run(const gov_run *g, roz_gov_world *w)
{
	memset(w, 0, sizeof *w);
	w->root = g->orch.root;
	w->governed = g->orch.governed;
	w->intents = g->orch.intents_ok ? &g->orch.intents : NULL;
	w->intents_problem = g->orch.intents_problem;
	w->ignore = g->orch.have_ignore ? &g->orch.ignore : NULL;
	w->fold_case = g->orch.fold_case;
	w->hash_file = roz_orchestration_hash_file;
	w->governed_elsewhere = roz_orchestration_governed_elsewhere;
	w->detects = g->detects;
}

/* Add `text` to the context the hook answers with (after the review's own). */
static int add_context(roz_hook_result *res, const char *event_name, const char *text)
{
	roz_hook_output *o = &res->output;

	if (o->kind == ROZ_OUTPUT_CONTEXT && o->text) {
		char *both = roz_asprintf("%s\n\n%s", o->text, text);

		if (!both)
			return ROZ_ENOMEM;
		roz_free(o->text);
		o->text = both;
		return ROZ_OK;
	}
	if (o->kind != ROZ_OUTPUT_ALLOW)
		return ROZ_OK;
	if (roz_hook_output_set(o, ROZ_OUTPUT_CONTEXT, text) < 0)
		return ROZ_ENOMEM;
	o->event_name = event_name;
	return ROZ_OK;
}

static int briefing(gov_run *g, roz_hook_event ev, const roz_session *s, roz_hook_result *res)
{
	roz_buf b = ROZ_BUF_INIT;
	int rc;

	if (!g->orch.intents_ok) {
		roz_buf_addf(&res->notes, "roz: warning: governance: %s; changes are refused until it is "
					  "fixed (roz doctor)\n",
			     g->orch.intents_problem ? g->orch.intents_problem : "the intents file cannot be read");
		roz_buf_addf(&b, "This repository governs changes by intent, but its intents file cannot be "
				 "used: %s. Until a person fixes it, every change (Write, Edit, or a Bash "
				 "command that changes files) is refused; reading stays free.",
			     g->orch.intents_problem ? g->orch.intents_problem : ROZ_ORCH_INTENTS_FILE);
	} else if (ev == ROZ_HOOK_SESSION_START) {
		roz_briefing_build(&g->orch.intents, g->orch.lessons, g->orch.lessons_len, &b);
	} else {
		if (s && roz_session_gov_intent_in(&s->gov, g->orch.root) &&
		    roz_intents_find(&g->orch.intents, roz_session_gov_intent_in(&s->gov, g->orch.root)))
			return ROZ_OK;
		roz_briefing_reminder(&g->orch.intents, &b);
	}
	if (roz_buf_failed(&b) || roz_buf_failed(&res->notes)) {
		roz_buf_dispose(&b);
		return ROZ_ENOMEM;
	}
	rc = add_context(res, ev == ROZ_HOOK_SESSION_START ? "SessionStart" : "UserPromptSubmit",
			 roz_buf_cstr(&b));
	roz_buf_dispose(&b);
	res->output.more = "`roz intent list` shows every intent, and the lessons are in "
			   ".orchestration/CLAUDE.md";
	return rc;
}

static int trace(roz_session *s, const roz_env *env, roz_event_type type, const roz_buf *payload)
{
	int rc;

	if (roz_buf_failed(payload))
		return ROZ_ENOMEM;
	rc = roz_hook_trace(s, env, type, payload->ptr);
	return rc == ROZ_EINVALID ? ROZ_OK : rc; /* an event that cannot be stored is left out */
}

/* Put governance's judgement beside the review's: the stricter answer stands, both reasons told. */
static int merge(roz_hook_result *res, roz_gov_result *gr)
{
	roz_hook_output *o = &res->output;
	roz_buf text = ROZ_BUF_INIT;
	int rc;

	if (gr->kind == ROZ_OUTPUT_ALLOW || o->kind == ROZ_OUTPUT_DENY)
		return ROZ_OK;
	if (o->kind == ROZ_OUTPUT_ASK && gr->kind == ROZ_OUTPUT_ASK && o->text) {
		roz_buf_adds(&text, o->text);
		roz_buf_adds(&text, "\n\n");
	}
	roz_denial_render(&gr->denial, &text);
	if (roz_buf_failed(&text)) {
		roz_buf_dispose(&text);
		return ROZ_ENOMEM;
	}
	rc = roz_hook_output_take(o, gr->kind, roz_buf_detach(&text, NULL));
	o->more = "`roz intent list` shows every intent and `roz intent show <ID>` one in full";
	return rc;
}

static int judge(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
		 roz_hook_result *res)
{
	const roz_config *c = env->config;
	roz_gov_world w;
	roz_gov_opts o = {
		.escalate_after = c->gov_escalate_after,
		.destructive = c->gov_destructive,
		.tmp_dirs = g->tmp_dirs, .ntmp = g->ntmp,
		.temp_roots = g->temp_roots, .ntemp_roots = g->ntemp_roots,
		.disabled = c->gov_destructive_disable, .ndisabled = c->n_gov_destructive_disable,
		.extra = c->gov_destructive_extra, .nextra = c->n_gov_destructive_extra,
	};
	roz_gov_result gr;
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	world_of_run(g, &w);
	w.paths = env->paths;
	rc = roz_govern_pre_tool_use(in, g->have_sh ? &g->sh : NULL, g->have_sh ? &g->eff : NULL, &w, &o,
				     env->now, s && g->active ? &s->gov : NULL, &gr);
	if (rc < 0)
		return rc;
	if (s && gr.selected) {
		roz_buf_adds(&p, "{\"intent_id\":");
		roz_json_add_string(&p, s->gov.intent_id);
		roz_buf_adds(&p, s->gov.refactor ? ",\"refactor\":true}" : "}");
		if ((rc = trace(s, env, ROZ_EVENT_INTENT_SELECTED, &p)) < 0)
			goto out;
		roz_buf_reset(&p);
	}
	if (s && g->active && gr.kind != ROZ_OUTPUT_ALLOW) {
		roz_buf_adds(&p, "{\"code\":");
		roz_json_add_string(&p, roz_denial_code_name(gr.denial.code));
		roz_buf_adds(&p, ",\"decision\":");
		roz_json_add_string(&p, gr.kind == ROZ_OUTPUT_DENY ? "deny" : "ask");
		roz_buf_adds(&p, ",\"tool\":");
		roz_json_add_string(&p, in->tool_name ? in->tool_name : "");
		if (gr.escalated)
			roz_buf_addf(&p, ",\"escalated\":true,\"in_a_row\":%u", (unsigned)s->gov.denials);
		roz_buf_addc(&p, '}');
		if ((rc = trace(s, env, ROZ_EVENT_GOVERNANCE_REFUSED, &p)) < 0)
			goto out;
		res->save = true;
	}
	if (gr.save)
		res->save = true;
	rc = merge(res, &gr);
out:
	roz_buf_dispose(&p);
	roz_gov_result_dispose(&gr);
	return rc;
}

/*
 * What only a person may run, by any path (the shell reader reduced it to
 * `roz`): `roz intent accept` releases changes governance does not allow,
 * `roz ledger accept` writes a person's record over the agent's lines, and
 * `roz ledger compact` rewrites the ledger. NULL when the line runs none.
 */
static const char *person_only(const roz_shell_result *sh)
{
	for (size_t i = 0; i < sh->ncmds; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];

		if (c->nwords < 3 || strcmp(c->words[0], "roz") != 0)
			continue;
		if (strcmp(c->words[1], "intent") == 0 && strcmp(c->words[2], "accept") == 0)
			return "roz intent accept";
		if (strcmp(c->words[1], "ledger") == 0 && strcmp(c->words[2], "accept") == 0)
			return "roz ledger accept";
		if (strcmp(c->words[1], "ledger") == 0 && strcmp(c->words[2], "compact") == 0)
			return "roz ledger compact";
	}
	return NULL;
}

static int refuse_person_only(const roz_hook_input *in, const char *what, roz_hook_result *res)
{
	roz_denial d = {0};
	roz_buf text = ROZ_BUF_INIT, why = ROZ_BUF_INIT;
	int rc;

	if (strcmp(what, "roz intent accept") == 0)
		roz_buf_adds(&why, "accepting a change governance does not allow is the person's decision: they "
				   "run `roz intent accept` in a terminal. Undo the change instead, or ask them.");
	else if (strcmp(what, "roz ledger accept") == 0)
		roz_buf_adds(&why, "`roz ledger accept` records a person's acceptance of lines in the ledger, so "
				   "only a person runs it, in a terminal; the agent's own changes are recorded as "
				   "the agent's.");
	else
		roz_buf_adds(&why, "`roz ledger compact` rewrites the ledger; a person runs it, in a terminal.");
	if (roz_buf_failed(&why)) {
		roz_buf_dispose(&why);
		return ROZ_ENOMEM;
	}
	rc = roz_denial_set(&d, ROZ_DENIAL_ORCHESTRATION, in->tool_name, NULL, "%s", roz_buf_cstr(&why));
	roz_buf_dispose(&why);
	if (rc < 0)
		return rc;
	roz_denial_render(&d, &text);
	roz_denial_dispose(&d);
	if (roz_buf_failed(&text)) {
		roz_buf_dispose(&text);
		return ROZ_ENOMEM;
	}
	roz_hook_output_dispose(&res->output);
	return roz_hook_output_take(&res->output, ROZ_OUTPUT_DENY, roz_buf_detach(&text, NULL));
}

int gov_apply(gov_run *g, roz_hook_event ev, const roz_hook_input *in, const roz_env *env,
	      const roz_hook_plan *plan, roz_session **session, roz_hook_result *res)
{
	int rc;

	switch (ev) {
	case ROZ_HOOK_SESSION_START:
		/* the model is named only here; the ledger's records need it later */
		if (g->orch.has_dir && *session && in->model && in->model[0] &&
		    (!(*session)->gov.model || strcmp((*session)->gov.model, in->model) != 0)) {
			char *m = roz_strdup(in->model);

			if (!m)
				return ROZ_ENOMEM;
			roz_free((*session)->gov.model);
			(*session)->gov.model = m;
			(*session)->gov.present = true;
			res->save = true;
		}
		return g->active ? briefing(g, ev, *session, res) : ROZ_OK;
	case ROZ_HOOK_USER_PROMPT:
		return g->active && !plan->is_notification ? briefing(g, ev, *session, res) : ROZ_OK;
	case ROZ_HOOK_PRE_TOOL_USE: {
		const char *only = g->have_sh ? person_only(&g->sh) : NULL;

		if (only)
			return refuse_person_only(in, only, res);
		if ((rc = gov_detect_pre(g, in, env, res)) < 0)
			return rc;
		if (!g->active && !g->have_sh)
			return ROZ_OK;
		if (g->active && !*session && (rc = roz_session_new(in->session_id, env->now, session)) < 0)
			return rc;
		return judge(g, in, env, *session, res);
	}
	case ROZ_HOOK_POST_TOOL_USE: {
		roz_gov_world w;
		bool save = false;

		if (!g->active && !g->records && !g->detects)
			return ROZ_OK;
		if (!*session && (rc = roz_session_new(in->session_id, env->now, session)) < 0)
			return rc;
		if ((rc = gov_detect_post(g, in, env, *session, res)) < 0)
			return rc;
		if (g->active) {
			world_of_run(g, &w);
			w.paths = env->paths;
			if ((rc = roz_govern_post_tool_use(in, g->have_sh ? &g->eff : NULL, &w, env->now,
							   &(*session)->gov, &save)) < 0)
				return rc;
			if (save)
				res->save = true;
		}
		return g->records || (g->detected_run && (g->ndetected || g->nremoved))
			       ? gov_record(g, in, env, *session, res)
			       : ROZ_OK;
	}
	case ROZ_HOOK_STOP:
		return gov_detect_stop(g, in, env, *session, res);
	default:
		return ROZ_OK;
	}
}

int gov_refuse_without_session(gov_run *g, const roz_hook_input *in, const char *why,
			       roz_hook_output *out)
{
	roz_denial d = {0};
	roz_buf text = ROZ_BUF_INIT;
	int rc;

	(void)g;
	if ((rc = roz_denial_set(&d, ROZ_DENIAL_HOOK_ERROR, in->tool_name, NULL,
				 "this repository governs changes by intent, and roz cannot judge this "
				 "change (%s); the person decides.",
				 why)) < 0)
		return rc;
	roz_denial_render(&d, &text);
	roz_denial_dispose(&d);
	if (roz_buf_failed(&text)) {
		roz_buf_dispose(&text);
		return ROZ_ENOMEM;
	}
	return roz_hook_output_take(out, ROZ_OUTPUT_ASK, roz_buf_detach(&text, NULL));
}
