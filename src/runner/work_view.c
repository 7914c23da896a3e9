/*
 * work_view.c - the runner's view of the working tree for the review
 * (roz/work_view.h).
 */
#include "roz/work_view.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/digest.h"
#include "roz/file.h"
#include "roz/orchestration.h"
#include "roz/worktree.h"

/* The most of a session's list of files written outside its repository read back. */
#define TOUCHED_MAX (16u * 1024u * 1024u)

static char *trees_file(const char *storage, const char *sid, const char *suffix, bool make)
{
	char *dir = roz_asprintf("%s/trees", storage), *path = NULL;

	if (!dir)
		return NULL;
	if (make && mkdir(dir, 0700) < 0 && errno != EEXIST)
		roz_error_set_errno(errno, "cannot make '%s'", dir);
	else
		path = roz_asprintf("%s/%s%s", dir, sid, suffix);
	roz_free(dir);
	return path;
}

char *roz_work_index_path(const roz_work_view *v, const char *root)
{
	char hex[ROZ_SHA256_HEX_SIZE], suffix[32];

	roz_digest_sha256_hex(root, strlen(root), hex);
	snprintf(suffix, sizeof suffix, "-%.16s.index", hex);
	return trees_file(v->storage, v->sid, suffix, true);
}

/* The repository `cwd` is in (allocated), or NULL (also when out of memory: then there is no look). */
static char *repo_root(const char *cwd)
{
	char *root = NULL;

	return roz_orchestration_repo(cwd, &root) == ROZ_OK ? root : NULL;
}

static int view_baseline(void *ud, roz_review_work *w)
{
	roz_work_view *v = ud;
	char tree[ROZ_VCS_REVISION_SIZE], *index = NULL, *touched;
	struct stat st;
	int rc = ROZ_OK;

	if ((touched = trees_file(v->storage, v->sid, ".touched", false)) == NULL)
		return ROZ_ENOMEM;
	w->base_touched = lstat(touched, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	roz_free(touched);
	if (!(w->root = repo_root(v->cwd)))
		return ROZ_OK; /* outside a repository: the list of files written is the work */
	if (!(index = roz_work_index_path(v, w->root)))
		return ROZ_EIO;
	/* a fresh copy of the repository's index: what is staged now is part of the baseline */
	(void)unlink(index);
	rc = roz_worktree_tree(w->root, index, ROZ_WORK_GIT_TIMEOUT_MS, tree);
	roz_free(index);
	if (rc == ROZ_ENOTFOUND) {
		/* a .git that git does not take for a repository: treat the tree as outside one */
		roz_free(w->root);
		w->root = NULL;
		return ROZ_OK;
	}
	if (rc < 0)
		return rc;
	return (w->base_tree = roz_strdup(tree)) ? ROZ_OK : ROZ_ENOMEM;
}

void roz_work_paths_free(char **paths)
{
	for (size_t i = 0; paths && paths[i]; i++)
		roz_free(paths[i]);
	roz_free(paths);
}

int roz_work_touched(const roz_work_view *v, uint64_t from, char ***paths, size_t *n)
{
	char *file = trees_file(v->storage, v->sid, ".touched", false), *text = NULL, *p, *nl;
	char **out = NULL;
	size_t len = 0, cap = 0, k = 0;
	int fd, rc;
	struct stat st;

	*paths = NULL;
	*n = 0;
	if (!file)
		return ROZ_ENOMEM;
	rc = roz_file_open_regular(file, O_NOFOLLOW, &fd, &st);
	roz_free(file);
	if (rc == ROZ_ENOTFOUND)
		rc = ROZ_OK, fd = -1;
	if (rc < 0)
		return rc;
	if (fd >= 0 && (uint64_t)st.st_size > from) {
		if (lseek(fd, (off_t)from, SEEK_SET) < 0)
			rc = ROZ_EIO;
		else
			rc = roz_file_read_fd(fd, (size_t)((uint64_t)st.st_size - from), TOUCHED_MAX, &text, &len);
	}
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		return rc;
	for (p = text; p && p < text + len; p = nl + 1) {
		bool seen = false;

		if (!(nl = memchr(p, '\n', (size_t)(text + len - p))))
			break; /* a line still being written */
		*nl = '\0';
		if (p[0] != '/')
			continue;
		for (size_t i = 0; i < k && !seen; i++)
			seen = strcmp(out[i], p) == 0;
		if (seen)
			continue;
		if ((rc = roz_alloc_array_reserve((void **)&out, &cap, sizeof *out, k + 2)) < 0 ||
		    !(out[k] = roz_strdup(p))) {
			roz_work_paths_free(out);
			roz_free(text);
			return ROZ_ENOMEM;
		}
		out[++k] = NULL;
	}
	roz_free(text);
	*paths = out;
	*n = k;
	return ROZ_OK;
}

static int view_now(void *ud, const roz_review_work *w, roz_fingerprint *fp, char **tree)
{
	roz_work_view *v = ud;
	char t[ROZ_VCS_REVISION_SIZE], *index, **touched = NULL;
	size_t n = 0;
	int rc;

	*tree = NULL;
	if (w->root && w->base_tree) {
		if (!(index = roz_work_index_path(v, w->root)))
			return ROZ_EIO;
		rc = roz_worktree_tree(w->root, index, ROZ_WORK_GIT_TIMEOUT_MS, t);
		roz_free(index);
		if (rc == ROZ_OK && w->approved_set && w->approved_tree && strcmp(t, w->approved_tree) == 0) {
			/* the tree the approval saw: its files are the approval's, no diff to run */
			for (size_t i = 0; i < w->approved.n && rc == ROZ_OK; i++)
				if (w->approved.items[i].path[0] != '/')
					rc = roz_fingerprint_put(fp, w->approved.items[i].path, w->approved.items[i].hash,
								 w->approved.items[i].mode);
		} else if (rc == ROZ_OK) {
			rc = roz_worktree_changes(w->root, w->base_tree, t, ROZ_WORK_GIT_TIMEOUT_MS, fp);
		}
		if (rc < 0)
			return rc;
		if (!(*tree = roz_strdup(t)))
			return ROZ_ENOMEM;
	}
	if ((rc = roz_work_touched(v, w->base_touched, &touched, &n)) < 0)
		return rc;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		char hex[ROZ_SHA256_HEX_SIZE] = "";
		struct stat st;
		int h = roz_orchestration_hash_file(NULL, touched[i], hex);

		if (h == ROZ_ENOMEM)
			rc = h;
		else if (h < 0 || lstat(touched[i], &st) < 0)
			rc = roz_fingerprint_put(fp, touched[i], "", 0);
		else
			rc = roz_fingerprint_put(fp, touched[i], hex, (uint32_t)st.st_mode);
	}
	roz_work_paths_free(touched);
	return rc < 0 ? rc : ROZ_OK;
}

static bool view_quiet(void *ud)
{
	roz_work_view *v = ud;
	char *armed = trees_file(v->storage, v->sid, ".armed", false);
	struct stat st;
	bool quiet = armed && lstat(armed, &st) == 0;

	roz_free(armed);
	return quiet;
}

static void view_arm(void *ud, bool on)
{
	roz_work_view *v = ud;
	char *armed = trees_file(v->storage, v->sid, ".armed", on);
	int fd;

	if (!armed)
		return;
	if (!on)
		(void)unlink(armed);
	else if ((fd = open(armed, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) >= 0)
		close(fd);
	roz_free(armed);
}

void roz_work_view_ops(roz_work_view *v, roz_work_ops *ops)
{
	ops->baseline = view_baseline;
	ops->now = view_now;
	ops->quiet = view_quiet;
	ops->arm = view_arm;
	ops->ud = v;
}

static bool tool_is(const char *name, const char *want)
{
	return name && strcmp(name, want) == 0;
}

void roz_work_tool_call(const char *storage, bool after, const roz_hook_input *in)
{
	const char *tool = in->tool_name, *path = NULL;
	const cJSON *f;
	char *armed, *root, *line, *touched;
	int fd;

	/* reads, subagents' launches (their own calls come here themselves) and the reviewer change nothing */
	if (!storage || !tool || tool_is(tool, "Read") || tool_is(tool, "Agent") || tool_is(tool, "Task") ||
	    !roz_session_id_valid(in->session_id) || tool_is(in->agent_type, "roz:roz"))
		return;
	if ((armed = trees_file(storage, in->session_id, ".armed", false)) != NULL)
		(void)unlink(armed);
	roz_free(armed);
	if (!after || (!tool_is(tool, "Write") && !tool_is(tool, "Edit") && !tool_is(tool, "MultiEdit") &&
		       !tool_is(tool, "NotebookEdit")))
		return;
	f = cJSON_GetObjectItemCaseSensitive(in->tool_input, tool_is(tool, "NotebookEdit") ? "notebook_path" : "file_path");
	if (!cJSON_IsString(f) || f->valuestring[0] != '/' || strchr(f->valuestring, '\n'))
		return;
	path = f->valuestring;
	/* inside the session's repository, git sees it */
	if ((root = repo_root(in->cwd)) != NULL) {
		size_t rl = strlen(root);
		bool inside = strncmp(path, root, rl) == 0 && (path[rl] == '/' || (rl == 1 && root[0] == '/'));

		roz_free(root);
		if (inside)
			return;
	}
	if (!(touched = trees_file(storage, in->session_id, ".touched", true)))
		return;
	if ((line = roz_asprintf("%s\n", path)) != NULL &&
	    (fd = open(touched, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) >= 0) {
		/* one write of a line: appenders never interleave within it */
		if (roz_file_write_all(fd, line, strlen(line)) < 0) {
			/* a look outside the repository then misses this file; nothing else depends on it */
		}
		close(fd);
	}
	roz_free(line);
	roz_free(touched);
}
