/*
 * record.c - the ledger half of the runner's governance step: after a
 * write ran (PostToolUse), one Agent Trace record per call in
 * .orchestration/agent_trace.jsonl (roz/ledger.h), appended whole
 * (roz/append.h).
 *
 * Recording is observability, so it never stands in the agent's way: a
 * record that cannot be made or appended is a warning on stderr and a
 * `record_failed` event in the session's trace, and the hook still
 * answers {}. The next append starts clean whatever this one left.
 */
#include "governance.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/append.h"
#include "roz/effect.h"
#include "roz/file.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/vcs.h"

/* Largest file whose ranges are worked out; a larger one is recorded without ranges. */
#define RECORD_MAX_FILE (16u * 1024u * 1024u)

typedef struct target {
	char *rel;
	roz_ledger_ranges ranges;
} target;

/* Only on the rare path where reading failed: was it a file too large to read, or no file? */
static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Where one written path stands: recorded (rel set), or not the ledger's
 * business (outside the repository, under .orchestration/, ignored).
 */
static int place(const gov_run *g, const roz_env *env, const char *cwd, const char *path, char **abs,
		 char **rel)
{
	int rc;

	*abs = *rel = NULL;
	if ((rc = roz_path_resolve(&env->paths, cwd, path, abs)) < 0)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK;
	rc = roz_scope_relpath(g->orch.root, *abs, g->orch.fold_case, rel);
	if (rc == ROZ_ENOMEM)
		return rc;
	if (rc < 0 || !*rel || !**rel || roz_scope_is_orchestration(*rel, g->orch.fold_case) ||
	    (g->orch.have_ignore && roz_ignore_match(&g->orch.ignore, *rel, g->orch.fold_case))) {
		roz_free(*rel);
		*rel = NULL;
	}
	return ROZ_OK;
}

static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * Which lines of a target are the call's: as its tool input says, the whole
 * file, those that differ from what it held before, or not known.
 */
enum lines { LINES_OF_CALL, LINES_WHOLE, LINES_CHANGED, LINES_UNKNOWN };

static int add_target(const gov_run *g, const roz_hook_input *in, const roz_env *env, const char *cwd,
		      const char *path, enum lines which, const char *before, size_t blen, target *t, size_t *n)
{
	target *x = &t[*n];
	struct stat st1, st2;
	bool patched = false;
	char *abs = NULL, *text = NULL;
	size_t len = 0;
	bool kept = false;
	int rc;

	memset(x, 0, sizeof *x);
	if ((rc = place(g, env, cwd, path, &abs, &x->rel)) < 0 || !x->rel)
		goto out;
	if (g->detects && stat(abs, &st1) < 0)
		st1.st_ino = 0;
	rc = roz_file_read_path(abs, 0, RECORD_MAX_FILE, &text, &len);
	/* read between two equal stats: a copy of what the session left, for the next in-place change */
	if (rc == ROZ_OK && g->detects && st1.st_ino && stat(abs, &st2) == 0 && same_stat(&st1, &st2) &&
	    (rc = gov_shadow_keep(g, in->session_id, x->rel, text, len, &st2)) < 0)
		goto out;
	if (rc == ROZ_ENOMEM)
		goto out;
	if (rc == ROZ_ENOTFOUND || (rc == ROZ_EINVALID && !regular(abs))) {
		rc = ROZ_OK; /* gone (rm, mv), or not a file (mkdir): nothing of it to attribute */
		goto out;
	}
	if (rc != ROZ_OK) {
		rc = ROZ_OK; /* too large or unreadable: the file is recorded, without ranges */
	} else if (which == LINES_CHANGED) {
		rc = roz_ledger_ranges_of_change(before, blen, text, len, &x->ranges);
	} else if (which == LINES_OF_CALL || which == LINES_WHOLE) {
		/* where Claude Code's own patch says the call's lines landed, else as the tool input says */
		if (which == LINES_OF_CALL && in->tool_response)
			rc = roz_ledger_ranges_of_patch(in->tool_response, text, len, &x->ranges, &patched);
		if (rc == ROZ_OK && !patched)
			rc = roz_ledger_ranges_of_write(in->tool_name, in->tool_input, which == LINES_WHOLE, text, len,
							&x->ranges);
	}
	kept = rc == ROZ_OK;
out:
	if (kept) {
		(*n)++;
	} else {
		roz_free(x->rel);
		roz_ledger_ranges_dispose(&x->ranges);
		memset(x, 0, sizeof *x);
	}
	roz_free(abs);
	roz_free(text);
	return rc;
}

static int note_failure(roz_session *s, const roz_env *env, const char *why, roz_hook_result *res)
{
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	roz_buf_addf(&res->notes, "roz: warning: post-tool-use: the change could not be recorded in %s: %s\n",
		     ROZ_LEDGER_FILE, why);
	if (!s)
		return ROZ_OK;
	roz_buf_adds(&p, "{\"file\":");
	roz_json_add_string(&p, ROZ_LEDGER_FILE);
	roz_buf_adds(&p, ",\"reason\":");
	roz_json_add_string(&p, why);
	roz_buf_addc(&p, '}');
	if ((rc = roz_buf_failed(&p)) == ROZ_OK)
		rc = roz_hook_trace(s, env, ROZ_EVENT_RECORD_FAILED, p.ptr);
	roz_buf_dispose(&p);
	if (rc == ROZ_OK)
		res->save = true;
	return rc == ROZ_ENOMEM ? rc : ROZ_OK;
}

/*
 * The ledger's merge attributes (ROZ_LEDGER_ATTRIBUTES), written when
 * .orchestration/ has no .gitattributes: created whole or not at all (a
 * person's own file is never touched). Failing to is no failure of the record.
 */
static void ledger_attributes(const gov_run *g)
{
	char *p = gov_path(g, ROZ_LEDGER_ATTRIBUTES_FILE);
	int fd;

	if (!p)
		return;
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		bool ok = roz_file_write_all(fd, ROZ_LEDGER_ATTRIBUTES, strlen(ROZ_LEDGER_ATTRIBUTES)) == ROZ_OK;

		if (close(fd) < 0 || !ok)
			(void)unlink(p);
	}
	roz_free(p);
}

int gov_record(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
	       roz_hook_result *res)
{
	const char *cwd = in->cwd && in->cwd[0] == '/' ? in->cwd : g->orch.root;
	char revision[ROZ_VCS_REVISION_SIZE], id[ROZ_UUID_SIZE];
	roz_ledger_file *files = NULL;
	target *t = NULL;
	size_t n = 0, max = 1;
	roz_buf line = ROZ_BUF_INIT;
	const roz_effect *eff = &g->eff;
	char *path = NULL;
	int rc = ROZ_OK;

	if (g->detected_run && roz_effect_tool_kind(in->tool_name) != ROZ_TOOL_WRITES_FILE) {
		/* what the tree shows a Bash line or an MCP tool changed, not what the line said */
		max = g->ndetected;
	} else if (roz_effect_tool_kind(in->tool_name) == ROZ_TOOL_BASH) {
		if (!g->have_sh)
			return ROZ_OK;
		max = eff->ntargets;
	}
	if (!max || !(t = roz_calloc(max, sizeof *t)))
		goto out;
	if (g->detected_run && roz_effect_tool_kind(in->tool_name) != ROZ_TOOL_WRITES_FILE) {
		for (size_t i = 0; i < g->ndetected && rc == ROZ_OK; i++) {
			const gov_detected *d = &g->detected[i];
			char *abs = gov_path(g, d->path);

			/*
			 * a file the call made is its whole; one changed in place, the lines that differ from
			 * what it held before, when that is known (detect_before.c), else none are claimed
			 */
			rc = abs ? add_target(g, in, env, cwd, abs,
					      d->is_new ? LINES_WHOLE : d->before ? LINES_CHANGED : LINES_UNKNOWN,
					      d->before, d->before_len, t, &n)
				 : ROZ_ENOMEM;
			roz_free(abs);
		}
	} else if (roz_effect_tool_kind(in->tool_name) == ROZ_TOOL_BASH) {
		for (size_t i = 0; i < eff->ntargets && rc == ROZ_OK; i++)
			if (eff->targets[i].path)
				rc = add_target(g, in, env, cwd, eff->targets[i].path, LINES_WHOLE, NULL, 0, t, &n);
	} else {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(in->tool_input,
								  roz_effect_path_field(in->tool_name));

		if (cJSON_IsString(v) && v->valuestring[0])
			rc = add_target(g, in, env, cwd, v->valuestring, LINES_OF_CALL, NULL, 0, t, &n);
	}
	if (rc < 0 || !n)
		goto out;
	if (!(files = roz_calloc(n, sizeof *files))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		files[i].path = t[i].rel;
		files[i].ranges = &t[i].ranges;
	}
	if ((rc = env->new_id(env->ud, id)) < 0)
		goto out;
	{
		roz_ledger_record_in rec = {
			.id = id,
			.timestamp = env->now,
			.revision = roz_vcs_git_head(g->orch.root, revision) == ROZ_OK ? revision : NULL,
			.roz_version = g->version ? g->version : "unknown",
			.session_id = in->session_id,
			.transcript = in->transcript_path,
			.model_id = s && s->gov.model ? s->gov.model : in->model,
			.intent_id = s && g->orch.governed ? roz_session_gov_intent_in(&s->gov, g->orch.root) : NULL,
			.refactor = s && g->orch.governed && s->gov.refactor,
			.tool_name = in->tool_name,
			.files = files,
			.nfiles = n,
		};

		rc = roz_ledger_record_write(&rec, &line);
	}
	if (rc == ROZ_EINVALID) {
		rc = note_failure(s, env, "the record would be larger than the ledger allows", res);
		goto out;
	}
	if (rc < 0)
		goto out;
	if (!(path = gov_path(g, ROZ_LEDGER_FILE))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	rc = roz_append_line(path, line.ptr, line.len, env->config->lock_timeout_ms);
	if (rc < 0 && rc != ROZ_ENOMEM)
		rc = note_failure(s, env, roz_error_last(), res);
	if (rc == ROZ_OK)
		ledger_attributes(g);
out:
	for (size_t i = 0; i < n; i++) {
		roz_free(t[i].rel);
		roz_ledger_ranges_dispose(&t[i].ranges);
	}
	roz_free(t);
	roz_free(files);
	roz_free(path);
	roz_buf_dispose(&line);
	return rc;
}
