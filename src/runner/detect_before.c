/*
 * detect_before.c - what a file the call changed in place held before it,
 * so the ledger can credit the call with the lines it really changed
 * (roz/linediff.h) and not the whole file.
 *
 * roz keeps no copy of the tree's contents. What it has is the snapshot's
 * stat of the file from before the call, and git: when git's index
 * recorded exactly that stat (modification time to the nanosecond, size,
 * inode) for a regular file, git had found the file holding the index's
 * blob at that stat, and the file had not changed since. That is the
 * content before the call, read with `git cat-file`. An entry written in
 * the same instant as the index itself could have changed unseen (git's
 * "racily clean" case), so it is used only when the index file is newer
 * than the file.
 *
 * A file the session itself changed is no longer as git holds it, so
 * every file the ledger records while detection runs is also copied, with
 * the stat it had when read, under the snapshot's folder
 * (<storage>/trees/<session>-<root>.files/<hash of the path>; files up to
 * 1 MiB, up to 1,024 of them per session and repository); when the
 * snapshot's stat before the call is the copy's, the copy is what the
 * file held. Anything else (a file git does not track that the session
 * never changed, one a person changed) stays unknown and is recorded
 * without ranges.
 *
 * The snapshot is the tree as the previous call left it, so a person's
 * edit between two calls to a file the second call changes too is not
 * told apart from the call's own (docs/governance.md, "What detection
 * cannot see").
 */
#include "governance.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "roz/digest.h"
#include "roz/file.h"
#include "roz/git_run.h"
#include "roz/tree.h"
#include "roz/vcs.h"

/* Files asked about in one call, and the largest content read back. */
#define BEFORE_MAX_FILES 64u
#define BEFORE_MAX_BYTES (16u * 1024u * 1024u)
#define BEFORE_MAX_TOTAL (64u * 1024u * 1024u)
/* The session's copies: none of a file larger than this, and at most this many files. */
#define SHADOW_MAX_BYTES (1024u * 1024u)
#define SHADOW_MAX_FILES 1024u
/* What `git ls-files --debug` says of one entry is a few hundred bytes. */
#define LS_BYTES_PER_FILE 1024u

typedef struct index_entry {
	const char *path;  /* into the output */
	char sha[65];
	unsigned mode;
	int stage;
	int64_t mtime_ns;
	uint64_t size;
	uint32_t ino;      /* git keeps 32 bits of it */
	bool complete;
} index_entry;

static bool parse_time(const char *s, int64_t *ns)
{
	char *end;
	long long sec = strtoll(s, &end, 10), nsec;

	if (end == s || *end != ':')
		return false;
	s = end + 1;
	nsec = strtoll(s, &end, 10);
	if (end == s || nsec < 0 || nsec >= 1000000000LL)
		return false;
	*ns = sec * 1000000000LL + nsec;
	return true;
}

/*
 * Entries of `git ls-files --stage --debug -z`: "<mode> <sha> <stage>\t<path>\0"
 * then lines "  ctime: s:ns", "  mtime: s:ns", "  dev: d\tino: i",
 * "  uid: u\tgid: g", "  size: n\tflags: f". At most max entries into e;
 * their paths point into text, which is cut into strings.
 */
static size_t parse_entries(char *text, size_t len, index_entry *e, size_t max)
{
	size_t n = 0;
	char *p = text, *end = text + len;

	while (p < end && n < max) {
		char *nul = memchr(p, '\0', (size_t)(end - p)), *tab, *line;
		index_entry *x = &e[n];

		if (!nul)
			break;
		memset(x, 0, sizeof *x);
		tab = strchr(p, '\t');
		if (!tab || sscanf(p, "%o %64s %d", &x->mode, x->sha, &x->stage) != 3)
			break;
		x->path = tab + 1;
		line = nul + 1;
		/* the debug lines run to the next entry's "<mode> " or the end */
		{
			char *next = line;
			bool t = false, sz = false, in = false;

			while (next < end && next[0] == ' ') {
				char *nl = memchr(next, '\n', (size_t)(end - next));
				char *v;

				if (!nl)
					nl = end;
				*nl = '\0';
				if ((v = strstr(next, "mtime: ")))
					t = parse_time(v + 7, &x->mtime_ns);
				if ((v = strstr(next, "ino: ")))
					in = sscanf(v + 5, "%u", &x->ino) == 1;
				if ((v = strstr(next, "size: ")))
					sz = sscanf(v + 6, "%" SCNu64, &x->size) == 1;
				next = nl + 1;
			}
			x->complete = t && sz && in;
			p = next;
		}
		n++;
	}
	return n;
}

static int64_t index_mtime(const char *root)
{
	char *dir = NULL, *path = NULL;
	struct stat st;
	int64_t t = -1;

	if (roz_vcs_git_dir(root, &dir) != ROZ_OK)
		return -1;
	if ((path = roz_asprintf("%s/index", dir)) && stat(path, &st) == 0)
		t = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	roz_free(path);
	roz_free(dir);
	return t;
}

/* ---- the session's own copies ------------------------------------------------ */

#define SHADOW_MAGIC "roz-shadow 1 "

/* <snapshot without ".tree">.files/<first 32 hex of sha256(rel)> */
static int shadow_path(const gov_run *g, const char *sid, const char *rel, char **out)
{
	char *snap = NULL, hex[ROZ_SHA256_HEX_SIZE];
	size_t len;
	int rc;

	*out = NULL;
	if ((rc = gov_snapshot_path(g, sid, &snap)) < 0)
		return rc;
	len = strlen(snap);
	if (len > 5)
		snap[len - 5] = '\0';
	roz_digest_sha256_hex(rel, strlen(rel), hex);
	hex[32] = '\0';
	*out = roz_asprintf("%s.files/%s", snap, hex);
	roz_free(snap);
	return *out ? ROZ_OK : ROZ_ENOMEM;
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

int gov_shadow_keep(const gov_run *g, const char *sid, const char *rel, const char *text, size_t len,
		    const struct stat *st)
{
	char *dir = NULL, *path = NULL, *tmp = NULL, head[128];
	int fd = -1, rc, n;

	if (len > SHADOW_MAX_BYTES)
		return ROZ_OK;
	if ((rc = shadow_path(g, sid, rel, &path)) < 0)
		goto out;
	if (!(dir = roz_strdup(path))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	*strrchr(dir, '/') = '\0';
	/* a new copy only while the folder is not full: the session's disk stays bounded */
	if (access(path, F_OK) < 0 && count_entries(dir) >= SHADOW_MAX_FILES)
		goto out;
	if (!(tmp = roz_asprintf("%s.tmp.%ld", path, (long)getpid()))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		goto out;
	n = snprintf(head, sizeof head, SHADOW_MAGIC "%lld %llu %llu\n",
		     (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec,
		     (unsigned long long)st->st_size, (unsigned long long)st->st_ino);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		goto out;
	{
		bool ok = roz_file_write_all(fd, head, (size_t)n) == ROZ_OK &&
			  roz_file_write_all(fd, text ? text : "", len) == ROZ_OK;

		if (close(fd) < 0)
			ok = false;
		fd = -1;
		/* whole or not at all: a torn copy is never renamed into place */
		if (!ok || rename(tmp, path) < 0)
			(void)unlink(tmp);
	}
out:
	if (fd >= 0)
		close(fd);
	roz_free(dir);
	roz_free(path);
	roz_free(tmp);
	return rc == ROZ_ENOMEM ? rc : ROZ_OK;
}

/* The copy of rel, when it was kept at exactly the stat b: its content into d. ROZ_OK or ROZ_ENOMEM. */
static int from_shadow(const gov_run *g, const char *sid, const roz_tree_entry *b, gov_detected *d)
{
	char *path = NULL, *text = NULL, *body;
	size_t len = 0;
	long long mtime;
	unsigned long long size, ino;
	int rc, used = 0;

	if ((rc = shadow_path(g, sid, d->path, &path)) < 0)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK;
	rc = roz_file_read_path(path, O_NOFOLLOW, SHADOW_MAX_BYTES + 128, &text, &len);
	roz_free(path);
	if (rc != ROZ_OK)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK;
	body = memchr(text, '\n', len);
	if (body && len > strlen(SHADOW_MAGIC) && memcmp(text, SHADOW_MAGIC, strlen(SHADOW_MAGIC)) == 0 &&
	    sscanf(text + strlen(SHADOW_MAGIC), "%lld %llu %llu%n", &mtime, &size, &ino, &used) == 3 &&
	    text + strlen(SHADOW_MAGIC) + used == body && (size_t)(text + len - (body + 1)) == size &&
	    S_ISREG(b->mode) && mtime == b->mtime_ns && size == b->size && ino == b->ino) {
		len = (size_t)size;
		memmove(text, body + 1, len);
		d->before = text;
		d->before_len = len;
		return ROZ_OK;
	}
	roz_free(text);
	return ROZ_OK;
}

/* ---- before the call -------------------------------------------------------- */

/*
 * The blobs of the files whose index entry vouches for what they held:
 * those with exactly the stat the snapshot saw before the call, as regular
 * files, not racily clean. One `git cat-file --batch` for all of them.
 */
static int read_blobs(gov_run *g, const roz_tree *before, const size_t *which, size_t n, const index_entry *e,
		      size_t ne, int64_t idx_t)
{
	static const char *const args[] = {"cat-file", "--batch"};
	const index_entry **x = roz_calloc(n, sizeof *x);
	roz_buf in = ROZ_BUF_INIT;
	char *out = NULL;
	size_t olen = 0;
	uint64_t total = 0;
	size_t asked = 0;
	int rc = ROZ_OK;

	if (!x)
		return ROZ_ENOMEM;
	for (size_t j = 0; j < n; j++) {
		const gov_detected *d = &g->detected[which[j]];
		const roz_tree_entry *b = roz_tree_find(before, d->path);
		const index_entry *y = NULL;

		for (size_t k = 0; k < ne; k++)
			if (strcmp(e[k].path, d->path) == 0 && e[k].stage == 0 && e[k].complete)
				y = &e[k];
		if (!b || !y || !S_ISREG(b->mode) || (y->mode != 0100644 && y->mode != 0100755) ||
		    y->mtime_ns != b->mtime_ns || y->size != b->size || y->ino != (uint32_t)b->ino ||
		    y->mtime_ns >= idx_t || y->size > BEFORE_MAX_BYTES || total + y->size > BEFORE_MAX_TOTAL)
			continue;
		x[j] = y;
		total += y->size;
		roz_buf_addf(&in, "%s\n", y->sha);
		asked++;
	}
	if (!asked)
		goto out;
	if (roz_buf_failed(&in)) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	/* each answer: "<sha> blob <size>\n", the content, "\n" */
	rc = roz_git_output(g->orch.root, args, 2, in.ptr, in.len, (size_t)total + asked * 128, &out, &olen);
	if (rc != ROZ_OK) {
		rc = rc == ROZ_ENOMEM ? rc : ROZ_OK; /* git cannot say: unknown */
		goto out;
	}
	{
		size_t at = 0;

		for (size_t j = 0; j < n && rc == ROZ_OK; j++) {
			gov_detected *d = &g->detected[which[j]];
			const char *nl;
			char sha[65];
			unsigned long long size;

			if (!x[j])
				continue;
			if (at >= olen || !(nl = memchr(out + at, '\n', olen - at)) ||
			    sscanf(out + at, "%64s blob %llu", sha, &size) != 2 || strcmp(sha, x[j]->sha) != 0 ||
			    size != x[j]->size || (size_t)(out + olen - (nl + 1)) < size + 1)
				break; /* not the answer asked for: the rest stays unknown */
			if (!(d->before = roz_malloc(size ? size : 1))) {
				rc = ROZ_ENOMEM;
				break;
			}
			memcpy(d->before, nl + 1, size);
			d->before_len = size;
			at = (size_t)(nl + 1 - out) + size + 1;
		}
	}
out:
	roz_buf_dispose(&in);
	roz_free(out);
	roz_free(x);
	return rc;
}

/*
 * What git's index says the files still unknown held: d->before for those
 * it can vouch for. ROZ_OK or ROZ_ENOMEM.
 */
static int from_index(gov_run *g, const roz_tree *before)
{
	const char **args = NULL;
	index_entry *e = NULL;
	size_t *which = NULL, n = 0, ne, olen = 0;
	char *out = NULL;
	int64_t idx_t;
	int rc = ROZ_OK;

	for (size_t i = 0; i < g->ndetected; i++)
		if (!g->detected[i].is_new && !g->detected[i].before)
			n++;
	if (!n)
		return ROZ_OK;
	if (n > BEFORE_MAX_FILES)
		n = BEFORE_MAX_FILES;
	if ((idx_t = index_mtime(g->orch.root)) < 0)
		return ROZ_OK; /* not the root of a git repository: nothing to ask */
	args = roz_calloc(n + 5, sizeof *args);
	which = roz_calloc(n, sizeof *which);
	e = roz_calloc(n, sizeof *e);
	if (!args || !which || !e) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	{
		size_t k = 0, m = 0;

		args[k++] = "ls-files";
		args[k++] = "--stage";
		args[k++] = "--debug";
		args[k++] = "-z";
		args[k++] = "--";
		for (size_t i = 0; i < g->ndetected && m < n; i++)
			if (!g->detected[i].is_new && !g->detected[i].before) {
				which[m++] = i;
				args[k++] = g->detected[i].path;
			}
		rc = roz_git_output(g->orch.root, args, k, NULL, 0, (size_t)n * LS_BYTES_PER_FILE, &out, &olen);
	}
	if (rc != ROZ_OK) {
		rc = rc == ROZ_ENOMEM ? rc : ROZ_OK; /* git cannot say: unknown */
		goto out;
	}
	ne = parse_entries(out, olen, e, n);
	rc = read_blobs(g, before, which, n, e, ne, idx_t);
out:
	roz_free(out);
	roz_free(args);
	roz_free(which);
	roz_free(e);
	return rc;
}

int gov_detect_before(gov_run *g, const char *sid, const roz_tree *before)
{
	/* the session's own copies first: they cost no process */
	for (size_t i = 0; i < g->ndetected; i++) {
		gov_detected *d = &g->detected[i];
		const roz_tree_entry *b;
		int rc;

		if (d->is_new || !(b = roz_tree_find(before, d->path)))
			continue;
		if ((rc = from_shadow(g, sid, b, d)) < 0)
			return rc;
	}
	return from_index(g, before);
}
