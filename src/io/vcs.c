/*
 * vcs.c - the commit a git repository's HEAD names, read from its files
 * (roz/vcs.h): a hook records it in every ledger line, and starting git for
 * that would cost more than the rest of the hook.
 *
 * What is read, in git's own layout: `.git` (a directory, or a file
 * "gitdir: <path>" for worktrees and submodules), HEAD in that directory, a
 * worktree's "commondir" naming where the shared refs live, then the
 * branch HEAD names as a loose ref file, else as a line of packed-refs.
 * Every file is opened without blocking and must be a regular file (a
 * FIFO in its place must not hang a hook), and every read is bounded.
 */
#include "roz/vcs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/file.h"

/* HEAD, a loose ref, a .git file and commondir are one short line each. */
#define SMALL_MAX (4096 - 1)
/* packed-refs holds a line per branch and tag; beyond this it is not read. */
#define PACKED_MAX ((size_t)16 << 20)
/* A symbolic ref may name another; git itself stops after a handful. */
#define MAX_SYMREF_DEPTH 5

/* `rel` under `dir` (a relative path), or `rel` itself when absolute. Caller frees. */
static char *join(const char *dir, const char *rel)
{
	if (rel[0] == '/')
		return roz_strdup(rel);
	return roz_asprintf("%s%s%s", dir, strcmp(dir, "/") ? "/" : "", rel);
}

/*
 * The text of a file: ROZ_OK, ROZ_ENOTFOUND when it is not there,
 * ROZ_EINVALID when it is not a regular file or is larger than max, ROZ_EIO.
 */
static int read_small(const char *path, size_t max, char **text, size_t *len)
{
	/* links are followed (git can make them) */
	int rc = roz_file_read_path(path, 0, max, text, len);

	if (rc == ROZ_EINVALID && *roz_error_last() && strstr(roz_error_last(), "larger than"))
		roz_error_set("%s: larger than %zu bytes, which git does not write", path, max);
	return rc;
}

/* The one line a small git file holds, without its line end; NUL inside is refused. */
static int one_line(const char *path, char *text, size_t len)
{
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' ||
			   text[len - 1] == '\t'))
		len--;
	text[len] = '\0';
	if (len == 0 || memchr(text, '\n', len) || strlen(text) != len) {
		roz_error_set("%s: not one line of text as git writes it", path);
		return ROZ_EINVALID;
	}
	return ROZ_OK;
}

/* A commit name: 40 (SHA-1) or 64 (SHA-256) hex digits, copied out in lowercase. */
static bool take_hex(const char *s, size_t len, char out[ROZ_VCS_REVISION_SIZE])
{
	if (len != 40 && len != 64)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
		out[i] = c;
	}
	out[len] = '\0';
	return true;
}

/*
 * A branch name HEAD may point at: under refs/, and nothing that would
 * step out of the git directory or that git refuses in a name.
 */
static bool ref_name_ok(const char *ref)
{
	const char *c = ref;

	if (strncmp(ref, "refs/", 5) != 0)
		return false;
	for (const char *p = ref; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\' || *p == ':' || *p == ' ')
			return false;
	/* every component non-empty, not starting with '.' (so neither "." nor ".." either) */
	for (;;) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);

		if (n == 0 || c[0] == '.')
			return false;
		if (!slash)
			return true;
		c = slash + 1;
	}
}

/* The commit `ref` names in packed-refs: ROZ_OK, ROZ_ENOTFOUND, ROZ_EINVALID. */
static int packed_ref(const char *common, const char *ref, char out[ROZ_VCS_REVISION_SIZE])
{
	char *path = join(common, "packed-refs"), *text = NULL;
	size_t len = 0, reflen = strlen(ref);
	int rc;

	if (!path)
		return ROZ_ENOMEM;
	rc = read_small(path, PACKED_MAX, &text, &len);
	if (rc == ROZ_ENOTFOUND)
		roz_error_set("branch %s has no commit yet", ref);
	if (rc < 0)
		goto out;
	rc = ROZ_ENOTFOUND;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *stop = eol ? eol : end, *sp;
		size_t n;

		/* a "# pack-refs with:" header, and "^<hex>" the tag on the line above points to */
		if (p[0] == '#' || p[0] == '^')
			goto next;
		n = (size_t)(stop - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		sp = memchr(p, ' ', n);
		if (sp && (size_t)(p + n - (sp + 1)) == reflen && memcmp(sp + 1, ref, reflen) == 0) {
			if (take_hex(p, (size_t)(sp - p), out)) {
				rc = ROZ_OK;
			} else {
				roz_error_set("%s: the line for %s does not start with a commit name", path, ref);
				rc = ROZ_EINVALID;
			}
			break;
		}
	next:
		p = eol ? eol + 1 : end;
	}
	if (rc == ROZ_ENOTFOUND)
		roz_error_set("branch %s has no commit yet", ref);
out:
	roz_free(text);
	roz_free(path);
	return rc;
}

/*
 * What a loose ref file or HEAD says: a commit (ROZ_OK, out set) or
 * another ref (*next set, caller frees).
 */
static int parse_ref_text(const char *path, char *text, size_t len, char out[ROZ_VCS_REVISION_SIZE],
			  char **next)
{
	int rc = one_line(path, text, len);

	*next = NULL;
	if (rc < 0)
		return rc;
	if (strncmp(text, "ref:", 4) == 0) {
		const char *ref = text + 4;

		while (*ref == ' ' || *ref == '\t')
			ref++;
		if (strcmp(ref, "refs/heads/.invalid") == 0) {
			/* what git puts in HEAD when the refs are kept in a reftable */
			roz_error_set("%s: the refs are in a reftable, which roz does not read", path);
			return ROZ_EINVALID;
		}
		if (!ref_name_ok(ref)) {
			roz_error_set("%s: '%s' is not a branch name git writes", path, ref);
			return ROZ_EINVALID;
		}
		return (*next = roz_strdup(ref)) ? ROZ_OK : ROZ_ENOMEM;
	}
	if (!take_hex(text, strlen(text), out)) {
		roz_error_set("%s: neither 'ref: <branch>' nor a commit name", path);
		return ROZ_EINVALID;
	}
	return ROZ_OK;
}

/* The commit `ref` names: its loose file in the git directory, the common one, then packed-refs. */
static int resolve_ref(const char *gitdir, const char *common, char *ref, char out[ROZ_VCS_REVISION_SIZE])
{
	for (int depth = 0; depth < MAX_SYMREF_DEPTH; depth++) {
		const char *dirs[2] = {gitdir, common};
		char *next = NULL;
		int rc = ROZ_ENOTFOUND;

		for (size_t i = 0; i < 2 && rc == ROZ_ENOTFOUND; i++) {
			char *path, *text = NULL;
			size_t len = 0;

			if (i == 1 && strcmp(common, gitdir) == 0)
				break;
			if (!(path = join(dirs[i], ref)))
				return ROZ_ENOMEM;
			rc = read_small(path, SMALL_MAX, &text, &len);
			if (rc == ROZ_OK)
				rc = parse_ref_text(path, text, len, out, &next);
			roz_free(text);
			roz_free(path);
		}
		if (rc == ROZ_ENOTFOUND)
			rc = packed_ref(common, ref, out);
		if (rc < 0 || !next) {
			roz_free(ref);
			return rc;
		}
		roz_free(ref);
		ref = next;
	}
	roz_error_set("%s: symbolic refs nest deeper than %d", ref, MAX_SYMREF_DEPTH);
	roz_free(ref);
	return ROZ_EINVALID;
}

/* The git directory `.git` under root stands for: itself, or where its "gitdir:" line points. */
static int find_gitdir(const char *root, char **gitdir)
{
	char *dotgit = join(root, ".git"), *text = NULL, *dir = NULL;
	struct stat st;
	size_t len = 0;
	int rc;

	*gitdir = NULL;
	if (!dotgit)
		return ROZ_ENOMEM;
	if (stat(dotgit, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			roz_error_set("%s: no .git here", root);
			rc = ROZ_ENOTFOUND;
		} else {
			roz_error_set_errno(errno, "%s: cannot look", dotgit);
			rc = ROZ_EIO;
		}
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		*gitdir = dotgit;
		return ROZ_OK;
	}
	rc = read_small(dotgit, SMALL_MAX, &text, &len);
	if (rc == ROZ_ENOTFOUND) {
		roz_error_set("%s: disappeared while roz read it", dotgit);
		rc = ROZ_EINVALID;
	}
	if (rc < 0 || (rc = one_line(dotgit, text, len)) < 0)
		goto out;
	if (strncmp(text, "gitdir: ", 8) != 0 || text[8] == '\0') {
		roz_error_set("%s: a .git file holds 'gitdir: <path>'", dotgit);
		rc = ROZ_EINVALID;
		goto out;
	}
	/* relative to the directory holding the .git file */
	if (!(dir = join(root, text + 8))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	*gitdir = dir;
	rc = ROZ_OK;
out:
	roz_free(text);
	roz_free(dotgit);
	return rc;
}

int roz_vcs_git_dir(const char *root, char **out)
{
	return find_gitdir(root, out);
}

/* A worktree's git directory names the shared one in "commondir"; others are their own. */
static int find_common(const char *gitdir, char **common)
{
	char *path = join(gitdir, "commondir"), *text = NULL;
	size_t len = 0;
	int rc;

	*common = NULL;
	if (!path)
		return ROZ_ENOMEM;
	rc = read_small(path, SMALL_MAX, &text, &len);
	if (rc == ROZ_ENOTFOUND)
		rc = (*common = roz_strdup(gitdir)) ? ROZ_OK : ROZ_ENOMEM;
	else if (rc == ROZ_OK && (rc = one_line(path, text, len)) == ROZ_OK)
		rc = (*common = join(gitdir, text)) ? ROZ_OK : ROZ_ENOMEM; /* relative to the git directory */
	roz_free(text);
	roz_free(path);
	return rc;
}

/* HEAD is missing: a symbolic link to a branch not yet made (as old git wrote HEAD) is unborn. */
static int missing_head(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		roz_error_set("%s: the branch has no commit yet", path);
		return ROZ_ENOTFOUND;
	}
	roz_error_set("%s: missing, so this is not a repository git can use", path);
	return ROZ_EINVALID;
}

int roz_vcs_git_head(const char *root, char out[ROZ_VCS_REVISION_SIZE])
{
	char *gitdir = NULL, *common = NULL, *head = NULL, *text = NULL, *ref = NULL;
	size_t len = 0;
	int rc;

	out[0] = '\0';
	if (!root || !*root) {
		roz_error_set("no repository root given");
		return ROZ_EINVALID;
	}
	if ((rc = find_gitdir(root, &gitdir)) < 0)
		goto out;
	if (!(head = join(gitdir, "HEAD"))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	rc = read_small(head, SMALL_MAX, &text, &len);
	if (rc == ROZ_ENOTFOUND)
		rc = missing_head(head);
	if (rc < 0 || (rc = parse_ref_text(head, text, len, out, &ref)) < 0 || !ref)
		goto out;
	if ((rc = find_common(gitdir, &common)) < 0) {
		roz_free(ref);
		goto out;
	}
	rc = resolve_ref(gitdir, common, ref, out); /* takes ref */
out:
	if (rc < 0)
		out[0] = '\0';
	roz_free(text);
	roz_free(head);
	roz_free(common);
	roz_free(gitdir);
	return rc;
}
