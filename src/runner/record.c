/*
 * record.c - the ledger half of the runner's governance step: after a
 * write ran (PostToolUse), one Agent Trace record per call in
 * .orchestration/agent_trace.jsonl (roz/ledger.h), appended whole
 * (roz/append.h).
 *
 * Each change is recorded as what it was: a file made or changed, with
 * the lines that are the call's; a file renamed, whole, with where it came
 * from; a file removed, with no lines. Detection (detect.c) says which in a
 * governed repository; elsewhere a Bash line's removal is taken at its word
 * only when the file is gone and was there (git had it, or the session saw
 * it). A file inside a repository nested in the root (a submodule) is that
 * repository's: recorded in its own ledger when it keeps one, else in the
 * root's (the root governs it: docs/governance.md, "Which repository").
 * The model is the session's, else the hook input's, else the one the
 * transcript's last assistant entry names (`claude -p` names none to the
 * hooks), then kept in the session.
 *
 * Recording is observability, so it never stands in the agent's way: a
 * record that cannot be made or appended is a warning on stderr and a
 * `record_failed` event in the session's trace, and the hook still
 * answers {}. The next append starts clean whatever this one left.
 */
#include "governance.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/append.h"
#include "roz/effect.h"
#include "roz/file.h"
#include "roz/git_run.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/utf8.h"
#include "roz/vcs.h"

/* Largest file whose ranges are worked out; a larger one is recorded without ranges. */
#define RECORD_MAX_FILE (16u * 1024u * 1024u)
/* How much of the transcript's end is read for the model: its last assistant entry is there. */
#define TRANSCRIPT_TAIL (256u * 1024u)
/* The longest model name taken from a transcript (the schema's model_id bound). */
#define MODEL_MAX 250u

/*
 * A repository nested in the root (a submodule, any work tree below it)
 * that keeps a ledger of its own: its files are recorded there.
 */
typedef struct nested {
	roz_orchestration orch; /* root, fold_case, has_dir, governed, its ignore rules */
} nested;

typedef struct target {
	char *rel;              /* relative to its repository's root */
	size_t repo;            /* 0: the root's; else nested[repo - 1] */
	roz_ledger_ranges ranges;
	bool removed;
	char *from;             /* renamed from (relative to the same root), or NULL */
} target;

/* What one gov_record works with. */
typedef struct recording {
	gov_run *g;
	const roz_hook_input *in;
	const roz_env *env;
	roz_session *s;
	const char *cwd;
	target *t;
	size_t n;
	nested *nested;
	size_t nnested;
} recording;

/* Only on the rare path where reading failed: was it a file too large to read, or no file? */
static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The root of repository `repo` (0: the root's own). */
static const roz_orchestration *repo_of(const recording *r, size_t repo)
{
	return repo ? &r->nested[repo - 1].orch : &r->g->orch;
}

/*
 * The nested repository at `root` (allocated, taken), kept when it has a
 * .orchestration/ of its own: *repo its number, else 0 (its files are
 * recorded in the root's ledger, under their path from the root).
 */
static int nested_at(recording *r, char *root, size_t *repo)
{
	char *p;
	nested *x;
	int rc;

	*repo = 0;
	for (size_t i = 0; i < r->nnested; i++)
		if (strcmp(r->nested[i].orch.root, root) == 0) {
			*repo = i + 1;
			roz_free(root);
			return ROZ_OK;
		}
	if (!(p = roz_asprintf("%s/" ROZ_ORCH_DIR, root))) {
		roz_free(root);
		return ROZ_ENOMEM;
	}
	if (!is_dir(p)) {
		roz_free(p);
		roz_free(root);
		return ROZ_OK;
	}
	roz_free(p);
	if (!(x = roz_realloc(r->nested, (r->nnested + 1) * sizeof *x))) {
		roz_free(root);
		return ROZ_ENOMEM;
	}
	r->nested = x;
	x = &r->nested[r->nnested++];
	memset(x, 0, sizeof *x);
	x->orch.root = root;
	x->orch.has_dir = true;
	x->orch.fold_case = r->g->orch.fold_case;
	if (!(p = roz_asprintf("%s/" ROZ_ORCH_INTENTS_FILE, root)))
		return ROZ_ENOMEM;
	x->orch.governed = regular(p);
	roz_free(p);
	/* its own ignore rules; one it cannot read is no rule (the root's ledger says the same) */
	if ((rc = roz_orchestration_load(&x->orch, ROZ_ORCH_IGNORE)) < 0)
		return rc;
	*repo = r->nnested;
	return ROZ_OK;
}

/*
 * Which repository `*rel` (relative to the root) belongs to: the nearest
 * directory between the file and the root that holds `.git` is a work tree
 * of its own (a submodule, a clone inside), and when it keeps a ledger the
 * file is its. On return *repo says which (0: the root's), and *rel is
 * relative to that repository's root.
 */

static int owner(recording *r, char **rel, size_t *repo)
{
	const char *root = r->g->orch.root;
	size_t len = strlen(*rel);

	*repo = 0;
	while (len > 0) {
		char *dot_git, *inner;
		struct stat st;
		int rc;

		/* the directory above what is left: rel[0..len) */
		while (len > 0 && (*rel)[len - 1] != '/')
			len--;
		if (len == 0)
			break;
		len--; /* the "/" */
		if (len == 0)
			break;
		dot_git = roz_asprintf("%s/%.*s/.git", strcmp(root, "/") ? root : "", (int)len, *rel);
		if (!dot_git)
			return ROZ_ENOMEM;
		rc = lstat(dot_git, &st);
		roz_free(dot_git);
		if (rc < 0)
			continue;
		if (!(dot_git = roz_asprintf("%s/%.*s", strcmp(root, "/") ? root : "", (int)len, *rel)) ||
		    !(inner = roz_strdup(*rel + len + 1))) {
			roz_free(dot_git);
			return ROZ_ENOMEM;
		}
		if ((rc = nested_at(r, dot_git, repo)) < 0 || !*repo) {
			/* a nested repository that keeps no ledger: the change stays in the root's, as the root governs it */
			roz_free(inner);
			return rc;
		}
		roz_free(*rel);
		*rel = inner;
		return ROZ_OK;
	}
	return ROZ_OK;
}

/*
 * Where one written path (relative to the root) stands: recorded (*rel
 * kept, *repo says in which repository's ledger), or not the ledger's
 * business (*rel freed and NULL: under .orchestration/, or ignored).
 */
static int settle_rel(recording *r, char **rel, size_t *repo)
{
	const roz_orchestration *o;
	int rc;

	if ((rc = owner(r, rel, repo)) < 0)
		return rc;
	o = repo_of(r, *repo);
	if (!**rel || roz_scope_is_orchestration(*rel, o->fold_case) ||
	    (o->have_ignore && roz_ignore_match(&o->ignore, *rel, o->fold_case))) {
		roz_free(*rel);
		*rel = NULL;
	}
	return ROZ_OK;
}

/* The same for a path as the call named it: resolved against cwd, outside the root not recorded. */
static int place(recording *r, const char *path, char **abs, char **rel, size_t *repo)
{
	gov_run *g = r->g;
	int rc;

	*abs = *rel = NULL;
	*repo = 0;
	if ((rc = roz_path_resolve(&r->env->paths, r->cwd, path, abs)) < 0)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK;
	rc = roz_scope_relpath(g->orch.root, *abs, g->orch.fold_case, rel);
	if (rc == ROZ_ENOMEM)
		return rc;
	if (rc < 0 || !*rel || !**rel) {
		roz_free(*rel);
		*rel = NULL;
		return ROZ_OK;
	}
	return settle_rel(r, rel, repo);
}

/* Already a target of this record (a Bash line can name a file twice: `> f` then `chmod +x f`)? */
static bool known(const recording *r, size_t repo, const char *rel)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].repo == repo && strcmp(r->t[i].rel, rel) == 0)
			return true;
	return false;
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
enum lines { LINES_OF_CALL, LINES_WHOLE, LINES_CHANGED, LINES_SINCE_INDEX, LINES_UNKNOWN };

/*
 * What git's index holds of `rel` (relative to `root`), for a Bash target
 * when no snapshot says what the file held before the line: *before set
 * (caller frees) when git has it, NULL when it does not (a new file, no
 * git). ROZ_OK or ROZ_ENOMEM.
 */
static int index_content(const char *root, const char *rel, char **before, size_t *blen)
{
	char *spec = roz_asprintf(":%s", rel);
	const char *args[] = {"cat-file", "blob", spec};
	int rc;

	*before = NULL;
	*blen = 0;
	if (!spec)
		return ROZ_ENOMEM;
	rc = roz_git_output(root, args, 3, NULL, 0, RECORD_MAX_FILE, before, blen);
	roz_free(spec);
	if (rc != ROZ_OK) {
		roz_free(*before);
		*before = NULL;
		*blen = 0;
	}
	return rc == ROZ_ENOMEM ? rc : ROZ_OK;
}

/* A new target for `rel` (taken) in `repo`; NULL when it is already one (rel freed). */
static target *new_target(recording *r, char *rel, size_t repo)
{
	target *x;

	if (known(r, repo, rel)) {
		roz_free(rel);
		return NULL;
	}
	x = &r->t[r->n];
	memset(x, 0, sizeof *x);
	x->rel = rel;
	x->repo = repo;
	return x;
}

static int add_target(recording *r, const char *path, enum lines which, const char *before, size_t blen,
		      const char *from)
{
	gov_run *g = r->g;
	const roz_hook_input *in = r->in;
	target *x = NULL;
	struct stat st1, st2;
	bool patched = false;
	char *abs = NULL, *rel = NULL, *text = NULL;
	size_t len = 0, repo;
	bool kept = false;
	int rc;

	if ((rc = place(r, path, &abs, &rel, &repo)) < 0 || !rel || !(x = new_target(r, rel, repo)))
		goto out;
	if (g->detects && stat(abs, &st1) < 0)
		st1.st_ino = 0;
	rc = roz_file_read_path(abs, 0, RECORD_MAX_FILE, &text, &len);
	/* read between two equal stats: a copy of what the session left, for the next in-place change */
	if (rc == ROZ_OK && g->detects && !repo && st1.st_ino && stat(abs, &st2) == 0 && same_stat(&st1, &st2) &&
	    (rc = gov_shadow_keep(g, in->session_id, x->rel, text, len, &st2)) < 0)
		goto out;
	if (rc == ROZ_ENOMEM)
		goto out;
	if (rc == ROZ_ENOTFOUND || (rc == ROZ_EINVALID && !regular(abs))) {
		rc = ROZ_OK; /* gone (rm, mv), or not a file (mkdir): nothing of it to attribute */
		goto out;
	}
	if (from) {
		/* renamed: where it came from, relative to the same repository */
		char *f = roz_strdup(from);
		size_t frepo;

		if (!f || settle_rel(r, &f, &frepo) < 0) {
			roz_free(f);
			rc = ROZ_ENOMEM;
			goto out;
		}
		if (f && frepo == repo)
			x->from = f;
		else
			roz_free(f); /* from another repository, or from what is not recorded: a file made */
	}
	if (rc != ROZ_OK) {
		rc = ROZ_OK; /* too large or unreadable: the file is recorded, without ranges */
	} else if (which == LINES_SINCE_INDEX) {
		/* an append to a file git has: the lines that differ from git's copy, not the whole file */
		char *idx = NULL;
		size_t ilen = 0;

		if ((rc = index_content(repo_of(r, repo)->root, x->rel, &idx, &ilen)) == ROZ_OK)
			rc = idx ? roz_ledger_ranges_of_change(idx, ilen, text, len, &x->ranges)
				 : roz_ledger_ranges_of_write(in->tool_name, in->tool_input, true, text, len, &x->ranges);
		roz_free(idx);
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
		r->n++;
	} else if (x) {
		roz_free(x->rel);
		roz_free(x->from);
		roz_ledger_ranges_dispose(&x->ranges);
		memset(x, 0, sizeof *x);
	}
	roz_free(abs);
	roz_free(text);
	return rc;
}

/* A file detection saw removed (relative to the root, judged in scope): recorded as removed. */
static int add_removed(recording *r, const char *rel_in_root)
{
	char *rel = roz_strdup(rel_in_root);
	size_t repo;
	target *x;
	int rc;

	if (!rel)
		return ROZ_ENOMEM;
	if ((rc = settle_rel(r, &rel, &repo)) < 0) {
		roz_free(rel);
		return rc;
	}
	if (rel && (x = new_target(r, rel, repo)) != NULL) {
		x->removed = true;
		r->n++;
	}
	return ROZ_OK;
}

/* ---- what a Bash line removed, without detection ------------------------------- */

/*
 * The effect reader's kinds of target that can take a file away: rm,
 * unlink, git rm and git clean (which write nothing), shred -u, mv's
 * sources, git mv's.
 */
static const char removing[][10] = {"rm", "unlink", "git rm", "git clean", "shred", "mv", "git mv"};
#define ONLY_REMOVE 4 /* the first four only remove */

static bool removes(const char *how, bool only)
{
	for (size_t i = 0; how && i < (only ? ONLY_REMOVE : sizeof removing / sizeof removing[0]); i++)
		if (strcmp(how, removing[i]) == 0)
			return true;
	return false;
}

/*
 * Of `rels` (relative to `root`), which git knows (HEAD or the index):
 * known[i] set. The line said it removes them and they are gone, but only
 * a file that was there was removed: one git never had (`rm -f` of what
 * does not exist) is not claimed. git cannot say: none is known.
 */
static int git_knows(const char *root, char *const *rels, size_t n, bool *known_out)
{
	const char **args = roz_calloc(n + 6, sizeof *args);
	char *out = NULL;
	size_t olen = 0, k = 0, first;
	int rc;

	if (!args)
		return ROZ_ENOMEM;
	args[k++] = "ls-files";
	args[k++] = "-z";
	first = k;
	args[k++] = "--with-tree=HEAD"; /* what `git rm` took from the index is still in HEAD */
	args[k++] = "--";
	for (size_t i = 0; i < n; i++)
		args[k++] = rels[i];
	rc = roz_git_output(root, args, k, NULL, 0, (size_t)n * 8192 + 4096, &out, &olen);
	if (rc == ROZ_EIO) {
		/* no commit yet: the index alone */
		memmove(&args[first], &args[first + 1], (k - first - 1) * sizeof *args);
		rc = roz_git_output(root, args, k - 1, NULL, 0, (size_t)n * 8192 + 4096, &out, &olen);
	}
	roz_free(args);
	if (rc != ROZ_OK)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK;
	for (size_t at = 0; at < olen;) {
		const char *name = out + at;
		size_t nlen = strnlen(name, olen - at);

		for (size_t i = 0; i < n; i++)
			if (strlen(rels[i]) == nlen && memcmp(rels[i], name, nlen) == 0)
				known_out[i] = true;
		at += nlen + 1;
	}
	roz_free(out);
	return ROZ_OK;
}

/*
 * The Bash line's targets it says it removes or moves away and that are
 * gone now: recorded as removed when they were files (git knew them, or
 * the session saw them). Directories and what cannot be told are left out.
 */
static int add_bash_removals(recording *r)
{
	const roz_effect *eff = &r->g->eff;
	char **rels = NULL;
	size_t *repos = NULL, m = 0;
	bool *was = NULL;
	int rc = ROZ_OK;

	if (!(rels = roz_calloc(eff->ntargets, sizeof *rels)) || !(repos = roz_calloc(eff->ntargets, sizeof *repos)) ||
	    !(was = roz_calloc(eff->ntargets, sizeof *was))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < eff->ntargets; i++) {
		const roz_effect_target *t = &eff->targets[i];
		char *abs = NULL, *rel = NULL;
		size_t repo, plen;
		struct stat st;
		bool dup = false;

		if (!t->path || !t->placed || !removes(t->how, false) || !(plen = strlen(t->path)) || t->path[plen - 1] == '/')
			continue;
		if ((rc = place(r, t->path, &abs, &rel, &repo)) < 0)
			goto out;
		if (rel && lstat(abs, &st) < 0 && errno == ENOENT && !known(r, repo, rel)) {
			for (size_t j = 0; j < m && !dup; j++)
				dup = repos[j] == repo && strcmp(rels[j], rel) == 0;
			/* seen by the session: it was a file */
			if (!dup && r->s && !repo && roz_session_gov_file(&r->s->gov, abs))
				was[m] = true;
			if (!dup) {
				rels[m] = rel;
				repos[m++] = repo;
				rel = NULL;
			}
		}
		roz_free(rel);
		roz_free(abs);
	}
	/* one question to git per repository */
	for (size_t i = 0; i < m && rc == ROZ_OK; i++) {
		char **ask;
		bool *got;
		size_t na = 0;

		if (i > 0 && repos[i - 1] == repos[i])
			continue;
		for (size_t j = 0; j < i && !na; j++)
			na = repos[j] == repos[i];
		if (na)
			continue; /* asked with an earlier one */
		ask = roz_calloc(m, sizeof *ask);
		got = roz_calloc(m, sizeof *got);
		if (!ask || !got) {
			roz_free(ask);
			roz_free(got);
			rc = ROZ_ENOMEM;
			break;
		}
		for (size_t j = i; j < m; j++)
			if (repos[j] == repos[i])
				ask[na++] = rels[j];
		rc = git_knows(repo_of(r, repos[i])->root, ask, na, got);
		for (size_t j = i, k = 0; rc == ROZ_OK && j < m; j++)
			if (repos[j] == repos[i] && got[k++])
				was[j] = true;
		roz_free(ask);
		roz_free(got);
	}
	for (size_t i = 0; i < m && rc == ROZ_OK; i++) {
		target *x;

		if (!was[i])
			continue;
		if ((x = new_target(r, rels[i], repos[i])) != NULL) {
			x->removed = true;
			r->n++;
		}
		rels[i] = NULL;
	}
out:
	for (size_t i = 0; rels && i < m; i++)
		roz_free(rels[i]);
	roz_free(rels);
	roz_free(repos);
	roz_free(was);
	return rc;
}

/* ---- the model ----------------------------------------------------------------- */

/* A model name as Claude Code writes one: printable UTF-8, not too long, not a placeholder ("<synthetic>"). */
static bool model_name(const char *m)
{
	size_t n = strlen(m);

	if (n == 0 || n > MODEL_MAX || m[0] == '<' || !roz_utf8_valid(m, n))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)m[i] < 0x20 || m[i] == 0x7f)
			return false;
	return true;
}

/* The model of one transcript line, when it is an assistant entry naming one; else NULL. */
static int line_model(const char *line, size_t len, char **out)
{
	cJSON *doc = NULL;
	const cJSON *type, *model;
	int rc;

	*out = NULL;
	/* most lines are not the assistant's: they are not parsed */
	if (!memmem(line, len, "\"assistant\"", 11) || !memmem(line, len, "\"model\"", 7))
		return ROZ_OK;
	if ((rc = roz_json_parse(line, len, &doc)) != ROZ_OK)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK;
	type = cJSON_GetObjectItemCaseSensitive(doc, "type");
	model = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "message"), "model");
	if (cJSON_IsString(type) && strcmp(type->valuestring, "assistant") == 0 && cJSON_IsString(model) &&
	    model_name(model->valuestring) && !(*out = roz_strdup(model->valuestring)))
		rc = ROZ_ENOMEM;
	cJSON_Delete(doc);
	return rc;
}

/*
 * The model of the transcript's last assistant entry (`message.model`),
 * read from its last TRANSCRIPT_TAIL bytes: a session run with `claude -p`
 * names no model to the hooks. A transcript that is not a regular file is
 * not read (opened non-blocking: a FIFO must not hang the hook). *out NULL
 * when none is found. ROZ_OK or ROZ_ENOMEM.
 */
static int transcript_model(const char *path, char **out)
{
	struct stat st;
	char *tail = NULL;
	size_t got = 0, want, end;
	off_t from;
	int fd, rc = ROZ_OK;

	*out = NULL;
	if (!path || path[0] != '/')
		return ROZ_OK;
	if (roz_file_open_regular(path, 0, &fd, &st) != ROZ_OK)
		return ROZ_OK;
	if (st.st_size <= 0)
		goto out;
	want = st.st_size > (off_t)TRANSCRIPT_TAIL ? TRANSCRIPT_TAIL : (size_t)st.st_size;
	from = st.st_size - (off_t)want;
	if (!(tail = roz_malloc(want + 1))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	while (got < want) {
		ssize_t k = pread(fd, tail + got, want - got, from + (off_t)got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	/* the newest line first; a first line cut by the window is not a line */
	end = got;
	while (end > 0 && rc == ROZ_OK && !*out) {
		size_t start = end;

		while (start > 0 && tail[start - 1] != '\n')
			start--;
		if (start > 0 || from == 0)
			rc = line_model(tail + start, end - start, out);
		end = start > 0 ? start - 1 : 0;
	}
out:
	roz_free(tail);
	close(fd);
	return rc;
}

/*
 * The model for the records: the session's (SessionStart's), else the
 * hook input's, else the transcript's, remembered in the session so it is
 * read once.
 */
static int model_of(recording *r, roz_hook_result *res, const char **model)
{
	char *m = NULL;
	int rc;

	*model = r->s && r->s->gov.model ? r->s->gov.model : r->in->model;
	if ((*model && **model) || !r->s)
		return ROZ_OK;
	if ((rc = transcript_model(r->in->transcript_path, &m)) < 0 || !m)
		return rc;
	r->s->gov.model = m;
	r->s->gov.present = true;
	res->save = true;
	*model = m;
	return ROZ_OK;
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
static void ledger_attributes(const char *root)
{
	char *p = roz_asprintf("%s/%s", strcmp(root, "/") ? root : "", ROZ_LEDGER_ATTRIBUTES_FILE);
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

/* One record of the targets in repository `repo`, appended to its ledger. */
static int record_in(recording *r, size_t repo, const char *model, roz_hook_result *res)
{
	const roz_orchestration *o = repo_of(r, repo);
	const roz_env *env = r->env;
	roz_session *s = r->s;
	char revision[ROZ_VCS_REVISION_SIZE], id[ROZ_UUID_SIZE];
	roz_ledger_file *files = NULL;
	roz_buf line = ROZ_BUF_INIT;
	char *path = NULL;
	size_t n = 0;
	int rc;

	if (!(files = roz_calloc(r->n, sizeof *files)))
		return ROZ_ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		if (r->t[i].repo != repo)
			continue;
		files[n].path = r->t[i].rel;
		files[n].ranges = &r->t[i].ranges;
		files[n].removed = r->t[i].removed;
		files[n++].from = r->t[i].from;
	}
	if (!n) {
		rc = ROZ_OK;
		goto out;
	}
	if ((rc = env->new_id(env->ud, id)) < 0)
		goto out;
	{
		const char *intent = s && o->governed ? roz_session_gov_intent_in(&s->gov, o->root) : NULL;
		roz_ledger_record_in rec = {
			.id = id,
			.timestamp = env->now,
			.revision = roz_vcs_git_head(o->root, revision) == ROZ_OK ? revision : NULL,
			.roz_version = r->g->version ? r->g->version : "unknown",
			.session_id = r->in->session_id,
			.transcript = r->in->transcript_path,
			.model_id = model,
			.intent_id = intent,
			.refactor = intent && s->gov.refactor,
			.tool_name = r->in->tool_name,
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
	if (!(path = roz_asprintf("%s/%s", strcmp(o->root, "/") ? o->root : "", ROZ_LEDGER_FILE))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	rc = roz_append_line(path, line.ptr, line.len, env->config->lock_timeout_ms);
	if (rc < 0 && rc != ROZ_ENOMEM)
		rc = note_failure(s, env, roz_error_last(), res);
	if (rc == ROZ_OK)
		ledger_attributes(o->root);
out:
	roz_free(files);
	roz_free(path);
	roz_buf_dispose(&line);
	return rc;
}

int gov_record(gov_run *g, const roz_hook_input *in, const roz_env *env, roz_session *s,
	       roz_hook_result *res)
{
	recording r = {
		.g = g,
		.in = in,
		.env = env,
		.s = s,
		.cwd = in->cwd && in->cwd[0] == '/' ? in->cwd : g->orch.root,
	};
	roz_tool_kind kind = roz_effect_tool_kind(in->tool_name);
	bool detected = g->detected_run && kind != ROZ_TOOL_WRITES_FILE;
	const roz_effect *eff = &g->eff;
	const char *model = NULL;
	size_t max = 1;
	int rc = ROZ_OK;

	if (detected) {
		/* what the tree shows a Bash line or an MCP tool changed, not what the line said */
		max = g->ndetected + g->nremoved;
	} else if (kind == ROZ_TOOL_BASH) {
		if (!g->have_sh)
			return ROZ_OK;
		max = eff->ntargets;
	}
	if (!max)
		return ROZ_OK;
	if (!(r.t = roz_calloc(max, sizeof *r.t)))
		return ROZ_ENOMEM;
	if (detected) {
		for (size_t i = 0; i < g->ndetected && rc == ROZ_OK; i++) {
			const gov_detected *d = &g->detected[i];
			char *abs = gov_path(g, d->path);

			/*
			 * a file the call made, or renamed, is its whole; one changed in place, the lines that
			 * differ from what it held before, when that is known (detect_before.c), else none are
			 * claimed
			 */
			rc = abs ? add_target(&r, abs,
					      d->is_new || d->from ? LINES_WHOLE
					      : d->before	  ? LINES_CHANGED
								  : LINES_UNKNOWN,
					      d->before, d->before_len, d->from)
				 : ROZ_ENOMEM;
			roz_free(abs);
		}
		for (size_t i = 0; i < g->nremoved && rc == ROZ_OK; i++)
			rc = add_removed(&r, g->removed[i]);
	} else if (kind == ROZ_TOOL_BASH) {
		/* a file `rm` left (it failed) is not the line's to claim */
		for (size_t i = 0; i < eff->ntargets && rc == ROZ_OK; i++)
			if (eff->targets[i].path && !removes(eff->targets[i].how, true))
				rc = add_target(&r, eff->targets[i].path, LINES_SINCE_INDEX, NULL, 0, NULL);
		if (rc == ROZ_OK)
			rc = add_bash_removals(&r);
	} else {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(in->tool_input, roz_effect_path_field(in->tool_name));

		if (cJSON_IsString(v) && v->valuestring[0])
			rc = add_target(&r, v->valuestring, LINES_OF_CALL, NULL, 0, NULL);
	}
	if (rc < 0 || !r.n)
		goto out;
	if ((rc = model_of(&r, res, &model)) < 0)
		goto out;
	/* the root's record, then one for each nested repository with files of the call */
	for (size_t repo = 0; repo <= r.nnested && rc == ROZ_OK; repo++)
		rc = record_in(&r, repo, model, res);
out:
	for (size_t i = 0; i < r.n; i++) {
		roz_free(r.t[i].rel);
		roz_free(r.t[i].from);
		roz_ledger_ranges_dispose(&r.t[i].ranges);
	}
	for (size_t i = 0; i < r.nnested; i++)
		roz_orchestration_dispose(&r.nested[i].orch);
	roz_free(r.nested);
	roz_free(r.t);
	return rc;
}
