/*
 * tree.c - a repository's working tree by lstat (roz/tree.h): the walk, the
 * look-up, and the snapshot file detection compares against.
 *
 * The walk. Governance walks the tree after every governed tool call, so
 * the walk is the cost users see; it makes one fstatat per listed entry and
 * otherwise only a handful of calls per directory. Each directory is opened
 * relative to its parent's descriptor (openat, O_DIRECTORY | O_NOFOLLOW), its
 * names read whole with getdents64 into one 64 KiB buffer (readdir where
 * there is no getdents64: fdopendir adds an fstat and an fcntl per
 * directory, measured in bench/README.md), and each entry stat'ed relative
 * to it (fstatat, AT_SYMLINK_NOFOLLOW). A name is judged by the ignore
 * rules before it is stat'ed, with the type its directory entry gives, so
 * an ignored directory such as node_modules/ costs a name comparison and
 * nothing under it is opened. An entry on another device than the root is
 * not listed (a mount point, and so what is under it). `.git` is skipped by
 * name at any depth. A directory that cannot be opened, read or searched is
 * listed without its contents.
 *
 * Ignore rules, as git stacks them: for a path, the `.gitignore` of its own
 * directory is asked first, then its parents' up to the root's, then
 * `.git/info/exclude`; the first that has a matching rule decides, ignored
 * or taken back with `!` (roz_ignore_verdict; each file's patterns are
 * matched against the path relative to its directory). The user's global
 * excludes file (core.excludesFile) is not read: it belongs to one user's
 * git configuration, not to the repository. The caller's `extra` rules are
 * asked apart: what they match is skipped, whatever git says. Everything in
 * `.orchestration/` (at the root) is listed and no rule is asked.
 *
 * Order. Entries come out sorted by strcmp of their paths without a sort
 * of the whole list: each directory's children are sorted with a directory
 * counted twice, as its own name (the directory's entry) and as its name
 * followed by `/` (its contents, read when the walk reaches that key). Every
 * path under `a` starts with `a/`, so among the siblings `a`, `a-b`, `a.b`
 * and `a0` the key `a/` puts a's contents exactly where strcmp puts them:
 * `a`, `a-b`, `a.b`, `a/...`, `a0`. Only small arrays are ever sorted.
 *
 * Bounds. At most max_entries entries: the walk stops at the first one over
 * and marks the snapshot truncated, and what was listed is exactly the
 * first max_entries paths of the whole tree. A path has at most
 * TREE_MAX_DEPTH (256) components: a directory that deep is listed but not
 * read. A path of PATH_MAX bytes or more is not listed. Either marks the
 * snapshot truncated, since it is then not the whole tree (roz/tree.h: the
 * caller cannot judge it). So at most TREE_MAX_DEPTH directories are open
 * at once, and the walk recurses no deeper.
 *
 * Memory. The walk keeps, per depth, the names and stat fields of one
 * directory's children, reused from directory to directory, and grows the
 * entries and one pool of paths geometrically; no allocation is made per
 * entry, and nothing is copied at the end. A hook is a fresh process, so
 * every page the walk touches costs a page fault (on the virtual machine
 * measured in bench/README.md, about as much as five stat calls), while
 * memory reserved and never touched costs nothing: so room for
 * FIRST_ENTRIES entries and their paths is made at once (glibc maps a block
 * that large, touched only as it is filled, and grows it by remapping, not
 * copying), rather than grown from small, copying and touching anew at
 * each step. A roz_tree is two allocations: `items`, and the pool that
 * holds every path in entry order, so that items[0].path is the pool's
 * start; roz_tree_load builds the same, and roz_tree_dispose frees both.
 *
 * The snapshot file, every integer little-endian:
 *
 *   offset      size  field
 *        0         8  magic "ROZTREE\0"
 *        8         4  format version, 1
 *       12         4  flags: bit 0 truncated, the others zero
 *       16         8  n, the entry count
 *       24         8  S, the size of the path table
 *       32         8  dev (the root's st_dev)
 *       40         8  taken_ns
 *       48      48*n  the records, in path order, 48 bytes each: path length
 *                     u64, mode u32, nlink u32, size u64, ino u64,
 *                     mtime_ns i64, ctime_ns i64
 *  48+48*n         S  the path table: every path in record order, each
 *                     followed by a NUL
 *      end         8  checksum of every byte before it (sum_* below)
 *
 * Records and paths are apart, rather than each path after its record, so
 * that a load reads the records straight into the entries (each decoded in
 * its own place) and the table straight into the entries' path pool, and a
 * save writes the walk's pool as it is: no buffer the size of the file is
 * ever made, whose pages would each cost a fault. A load checks all of
 * it: the magic, the version, the flags, that the sizes in the header add
 * up to the file's, the checksum, then every record's path length against
 * the table (ending exactly at a NUL), that each path is relative,
 * non-empty, free of NUL and of empty, `.` and `..` components, and that
 * the paths are strictly increasing; any failure is ROZ_ECORRUPT, so a torn
 * or foreign file reads as absent.
 */
#include "roz/tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "roz/file.h"

#if defined(__linux__) && !defined(ROZ_TREE_READDIR)
#define TREE_GETDENTS 1
#endif

#ifndef CLOCK_REALTIME_COARSE
#define CLOCK_REALTIME_COARSE CLOCK_REALTIME
#endif

#define TREE_MAX_DEPTH 256
#define TREE_PATH_MAX PATH_MAX
/* A .gitignore larger than this is not read (no real one comes close). */
#define IGNORE_FILE_MAX ((size_t)1 << 20)
#define DENTS_SIZE ((size_t)64 << 10)
/*
 * Room made for the entries and their paths before the walk (see Memory
 * above): enough for most repositories without growing, and large enough
 * that the allocator maps it lazily rather than carving it from the heap.
 */
#define FIRST_ENTRIES ((size_t)16384)
#define FIRST_PATH_BYTES ((size_t)64)
/* Directories of at most this many children are sorted by insertion. */
#define SMALL_SORT 16

/* ---- the walk ------------------------------------------------------------ */

enum {
	KID_SUBTREE = 1,  /* this key is the directory's contents: its name + "/" */
	KID_FORCED = 2,   /* in .orchestration/: listed whatever the rules say */
	KID_HAS_TREE = 4  /* a directory whose contents are to be read */
};

/* One child of a directory being listed, or the key of a child directory's contents. */
typedef struct kid {
	uint32_t name;     /* offset of its NUL-terminated name in the level's names */
	uint16_t len;
	uint8_t type;      /* d_type of its directory entry */
	uint8_t flags;     /* KID_* */
	roz_tree_entry st; /* what is listed (path unused) */
} kid;

enum {
	QUICK_GLOB = 0, /* asked of the glob matcher */
	QUICK_LITERAL,  /* no glob character: the subject is the pattern */
	QUICK_SUFFIX    /* `*` and a literal without `/`: the subject ends with it */
};

/* What lets most names be judged by a rule without the glob matcher. */
typedef struct quick {
	const char *lit; /* the literal: the pattern, or what follows its `*` */
	size_t len;
	int kind;        /* QUICK_* */
} quick;

/*
 * An ignore file's rules and, for each, its quick form. Every entry is
 * asked of every rule set above it, so this is the inner loop of a walk:
 * a literal rule (`node_modules/`, `.env`) or a suffix rule (`*.log`)
 * judges a name with a length check and a comparison, where the glob
 * matcher scans the pattern and the path. The answers are the same
 * (roz_ignore_verdict's): a literal pattern matches only the same
 * components, and `*` followed by a literal matches one component ending
 * in it.
 */
typedef struct rules {
	roz_ignore ig;   /* owned, except the caller's extra rules */
	quick *q;
	size_t q_cap;
} rules;

/* One depth of the walk: the directory being listed there. */
typedef struct level {
	char *names;
	size_t names_len, names_cap;
	kid *kids;
	size_t n, kids_cap;
	uint32_t *order, *scratch; /* kids in key order; room to merge */
	size_t order_cap;
	rules ign;                 /* its .gitignore (no rules: none) */
	size_t prefix;             /* length of its path and a "/" in walker.path (0 at the root) */
} level;

typedef struct walker {
	size_t max;
	bool fold;
	rules extra;        /* the caller's (borrowed) */
	rules exclude;      /* .git/info/exclude */
	uint64_t dev;
	level *lv;          /* TREE_MAX_DEPTH of them */
	char *dents;        /* DENTS_SIZE */
	roz_tree_entry *out;
	size_t n, cap;
	char *pool;         /* the entries' paths, one after the other */
	size_t pool_len, pool_cap;
	bool truncated, stop;
	char path[TREE_PATH_MAX]; /* the path being judged */
} walker;

static bool ascii_eq(const char *a, const char *b, size_t n, bool fold)
{
	if (!fold)
		return memcmp(a, b, n) == 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

		x = (unsigned char)(x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x);
		y = (unsigned char)(y >= 'A' && y <= 'Z' ? y - 'A' + 'a' : y);
		if (x != y)
			return false;
	}
	return true;
}

static bool named(const char *name, size_t len, const char *what, bool fold)
{
	return len == strlen(what) && ascii_eq(name, what, len, fold);
}

static int64_t ts_ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void fill(roz_tree_entry *e, const struct stat *st)
{
	e->path = NULL;
	e->mode = (uint32_t)st->st_mode;
	e->nlink = (uint32_t)st->st_nlink;
	e->size = (uint64_t)st->st_size;
	e->ino = (uint64_t)st->st_ino;
	e->mtime_ns = ts_ns(st->st_mtim);
	e->ctime_ns = ts_ns(st->st_ctim);
}

/* r->q from r->ig: ROZ_OK or ROZ_ENOMEM. */
static int compile(rules *r)
{
	if (!r->ig.n)
		return ROZ_OK;
	if (roz_alloc_array_reserve((void **)&r->q, &r->q_cap, sizeof *r->q, r->ig.n) < 0)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < r->ig.n; i++) {
		const char *p = r->ig.rules[i].pattern;
		quick *q = &r->q[i];

		q->kind = QUICK_GLOB;
		q->lit = p;
		q->len = strlen(p);
		if (!strpbrk(p, "*?[\\")) {
			q->kind = QUICK_LITERAL;
		} else if (p[0] == '*' && p[1] && !strpbrk(p + 1, "*?[\\/")) {
			q->kind = QUICK_SUFFIX;
			q->lit = p + 1;
			q->len--;
		}
	}
	return ROZ_OK;
}

static void rules_dispose(rules *r, bool owned)
{
	if (owned)
		roz_ignore_dispose(&r->ig);
	r->ig.rules = NULL;
	r->ig.n = 0;
	roz_free(r->q);
	r->q = NULL;
	r->q_cap = 0;
}

/*
 * What the rules say of `path` (len bytes, relative to their file's
 * directory; its last component `name`, nlen bytes): as roz_ignore_verdict.
 */
static int verdict(const rules *r, const char *path, size_t len, const char *name, size_t nlen,
		   bool is_dir, bool fold)
{
	for (size_t i = r->ig.n; i-- > 0;) {
		const roz_ignore_rule *rule = &r->ig.rules[i];
		const quick *q = &r->q[i];
		const char *subject = rule->anchored ? path : name;
		size_t sl = rule->anchored ? len : nlen;
		bool hit;

		if (rule->dir_only && !is_dir)
			continue;
		switch (q->kind) {
		case QUICK_LITERAL:
			hit = sl == q->len && ascii_eq(subject, q->lit, sl, fold);
			break;
		case QUICK_SUFFIX:
			hit = sl >= q->len && ascii_eq(subject + sl - q->len, q->lit, q->len, fold) &&
			      (subject == name || !memchr(subject, '/', sl));
			break;
		default: {
			roz_ignore one = {r->ig.rules + i, 1};

			hit = roz_ignore_verdict(&one, path, is_dir, fold) != 0;
			break;
		}
		}
		if (hit)
			return rule->negate ? -1 : 1;
	}
	return 0;
}

/*
 * An ignore file in the directory `dirfd` into *out: ROZ_OK (no rules when
 * there is none, or it is not a regular file, cannot be read or is too
 * large: git too goes on without it), or ROZ_ENOMEM.
 */
static int read_ignore(int dirfd, const char *name, rules *out)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	out->ig.rules = NULL;
	out->ig.n = 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return ROZ_OK;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ROZ_OK;
	}
	rc = roz_file_read_fd(fd, (size_t)st.st_size, IGNORE_FILE_MAX, &text, &len);
	close(fd);
	if (rc == ROZ_ENOMEM)
		return rc;
	if (rc < 0)
		return ROZ_OK;
	rc = roz_ignore_parse(text, len, &out->ig, NULL);
	roz_free(text);
	return rc < 0 ? rc : compile(out);
}

/* One name of the directory being read, unless it is ".", ".." or ".git". */
static int add_name(walker *w, level *l, const char *name, unsigned char type)
{
	size_t len = strlen(name);
	kid *k;

	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return ROZ_OK;
	if (named(name, len, ".git", w->fold))
		return ROZ_OK;
	if (len > UINT16_MAX || l->names_len + len + 1 > UINT32_MAX) {
		roz_error_set("a directory's names are too long to list");
		return ROZ_EIO;
	}
	if (roz_alloc_array_reserve((void **)&l->names, &l->names_cap, 1, l->names_len + len + 1) < 0 ||
	    roz_alloc_array_reserve((void **)&l->kids, &l->kids_cap, sizeof *l->kids, l->n + 1) < 0)
		return ROZ_ENOMEM;
	k = &l->kids[l->n++];
	k->name = (uint32_t)l->names_len;
	k->len = (uint16_t)len;
	k->type = type;
	k->flags = 0;
	memcpy(l->names + l->names_len, name, len + 1);
	l->names_len += len + 1;
	return ROZ_OK;
}

/*
 * Every name of the directory `fd` into l: ROZ_OK, ROZ_ENOMEM, or ROZ_EIO
 * with errno set (the directory cannot be read).
 */
static int read_names(walker *w, int fd, level *l)
{
#ifdef TREE_GETDENTS
	for (;;) {
		ssize_t got = getdents64(fd, w->dents, DENTS_SIZE);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return ROZ_EIO;
		if (got == 0)
			return ROZ_OK;
		for (size_t pos = 0; pos < (size_t)got;) {
			const struct dirent64 *d = (const struct dirent64 *)(const void *)(w->dents + pos);
			int rc;

			pos += d->d_reclen;
			if ((rc = add_name(w, l, d->d_name, d->d_type)) < 0)
				return rc;
		}
	}
#else
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *dir;
	int rc = ROZ_OK;

	if (dup_fd < 0)
		return ROZ_EIO;
	if (!(dir = fdopendir(dup_fd))) {
		int err = errno;

		close(dup_fd);
		errno = err;
		return ROZ_EIO;
	}
	for (;;) {
		struct dirent *d;

		errno = 0;
		if (!(d = readdir(dir))) {
			if (errno)
				rc = ROZ_EIO;
			break;
		}
		if ((rc = add_name(w, l, d->d_name, d->d_type)) < 0)
			break;
	}
	{
		int err = errno;

		closedir(dir);
		errno = err;
	}
	return rc;
#endif
}

/*
 * Whether the path in w->path (a child of the directory at `depth`) is
 * ignored: by the caller's extra rules, or else by the first of the
 * directory's and its parents' .gitignore files, then .git/info/exclude,
 * that has a matching rule.
 */
static bool ignored(const walker *w, size_t depth, size_t len, size_t nlen, bool is_dir)
{
	const char *name = w->path + len - nlen;
	int v;

	if (verdict(&w->extra, w->path, len, name, nlen, is_dir, w->fold) > 0)
		return true;
	for (size_t d = depth + 1; d-- > 0;) {
		const level *l = &w->lv[d];

		if (l->ign.ig.n && (v = verdict(&l->ign, w->path + l->prefix, len - l->prefix, name, nlen,
					       is_dir, w->fold)) != 0)
			return v > 0;
	}
	return verdict(&w->exclude, w->path, len, name, nlen, is_dir, w->fold) > 0;
}

/*
 * Judge and stat the children read into level `depth` (directory `fd`),
 * keeping those to list, then add the key of each child directory's
 * contents. ROZ_OK, ROZ_ENOMEM, or ROZ_EIO when the directory cannot be
 * searched (its contents are then not listed).
 */
static int judge(walker *w, int fd, size_t depth, bool forced)
{
	level *l = &w->lv[depth];
	size_t keep = 0, trees = 0;

	for (size_t i = 0; i < l->n; i++) {
		kid k = l->kids[i];
		const char *name = l->names + k.name;
		bool force = forced || (depth == 0 && named(name, k.len, ".orchestration", w->fold));
		bool have = false;
		struct stat st;

		if (l->prefix + k.len >= TREE_PATH_MAX) {
			w->truncated = true;
			continue;
		}
		if (!force) {
			bool is_dir = k.type == DT_DIR;

			if (k.type == DT_UNKNOWN) {
				if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
					if (errno == ENOENT)
						continue;
					return ROZ_EIO;
				}
				have = true;
				is_dir = S_ISDIR(st.st_mode);
			}
			memcpy(w->path + l->prefix, name, (size_t)k.len + 1);
			if (ignored(w, depth, l->prefix + k.len, k.len, is_dir))
				continue;
		}
		if (!have && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT) /* removed since the directory was read */
				continue;
			return ROZ_EIO;
		}
		if ((uint64_t)st.st_dev != w->dev)
			continue;
		fill(&k.st, &st);
		k.flags = force ? KID_FORCED : 0;
		if (S_ISDIR(st.st_mode)) {
			if (depth + 1 < TREE_MAX_DEPTH) {
				k.flags |= KID_HAS_TREE;
				trees++;
			} else {
				w->truncated = true;
			}
		}
		l->kids[keep++] = k;
	}
	l->n = keep;
	if (trees && roz_alloc_array_reserve((void **)&l->kids, &l->kids_cap, sizeof *l->kids, keep + trees) < 0)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < keep; i++) {
		if (!(l->kids[i].flags & KID_HAS_TREE))
			continue;
		kid *t = &l->kids[l->n++];

		*t = l->kids[i];
		t->flags = (uint8_t)(KID_SUBTREE | (l->kids[i].flags & KID_FORCED));
	}
	return ROZ_OK;
}

/* The keys of a and b: the name, and a "/" after it for a directory's contents. */
static int key_cmp(const char *names, const kid *a, const kid *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(names + a->name, names + b->name, n);
	unsigned x, y;

	if (c)
		return c;
	/* a name holds neither NUL nor '/': the byte after the shorter decides */
	x = a->len > n ? (unsigned char)names[a->name + n] : (a->flags & KID_SUBTREE) ? '/' : 0;
	y = b->len > n ? (unsigned char)names[b->name + n] : (b->flags & KID_SUBTREE) ? '/' : 0;
	return x < y ? -1 : x > y;
}

/* l->order: the kids in key order (insertion for a few, else a bottom-up merge sort). */
static int sort_kids(level *l)
{
	uint32_t *a, *b;
	size_t n = l->n;

	if (l->order_cap < n) {
		size_t cap = l->order_cap;

		if (roz_alloc_array_reserve((void **)&l->order, &cap, sizeof *l->order, n) < 0)
			return ROZ_ENOMEM;
		cap = l->order_cap;
		if (roz_alloc_array_reserve((void **)&l->scratch, &cap, sizeof *l->scratch, n) < 0)
			return ROZ_ENOMEM;
		l->order_cap = cap;
	}
	a = l->order;
	for (size_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	if (n <= SMALL_SORT) {
		for (size_t i = 1; i < n; i++) {
			uint32_t v = a[i];
			size_t j = i;

			for (; j > 0 && key_cmp(l->names, &l->kids[a[j - 1]], &l->kids[v]) > 0; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return ROZ_OK;
	}
	b = l->scratch;
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				b[o++] = key_cmp(l->names, &l->kids[a[j]], &l->kids[a[i]]) < 0 ? a[j++] : a[i++];
			while (i < mid)
				b[o++] = a[i++];
			while (j < hi)
				b[o++] = a[j++];
		}
		uint32_t *t = a;

		a = b;
		b = t;
	}
	if (a != l->order) {
		/* the sorted run is in scratch: swap the two arrays' roles */
		l->scratch = l->order;
		l->order = a;
	}
	return ROZ_OK;
}

/* List kid k of the directory at level l. */
static int emit(walker *w, const level *l, const kid *k)
{
	size_t need = l->prefix + k->len + 1;
	char *to;

	if (w->n >= w->max) {
		w->truncated = true;
		w->stop = true;
		return ROZ_OK;
	}
	if (w->n == w->cap &&
	    roz_alloc_array_reserve((void **)&w->out, &w->cap, sizeof *w->out, w->n + 1) < 0)
		return ROZ_ENOMEM;
	if (w->pool_cap - w->pool_len < need &&
	    roz_alloc_array_reserve((void **)&w->pool, &w->pool_cap, 1, w->pool_len + need) < 0)
		return ROZ_ENOMEM;
	/* the directory's own path is still in w->path: deeper levels write past it */
	to = w->pool + w->pool_len;
	memcpy(to, w->path, l->prefix);
	memcpy(to + l->prefix, l->names + k->name, (size_t)k->len + 1);
	w->pool_len += need;
	w->out[w->n++] = k->st;
	return ROZ_OK;
}

static bool fatal_open_errno(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/*
 * List the directory `fd` at `depth` (its path and a "/" already in
 * w->path, lv[depth].prefix set) and, in key order, everything under it.
 */
static int walk_dir(walker *w, int fd, size_t depth, bool forced)
{
	level *l = &w->lv[depth];
	int rc;

	l->names_len = 0;
	l->n = 0;
	roz_ignore_dispose(&l->ign.ig);
	if ((rc = read_names(w, fd, l)) < 0) {
		if (rc == ROZ_EIO && depth > 0)
			return ROZ_OK; /* listed, without its contents */
		if (rc == ROZ_EIO)
			roz_error_set_errno(errno, "cannot read the directory");
		return rc;
	}
	if (!forced) {
		for (size_t i = 0; i < l->n; i++) {
			if (named(l->names + l->kids[i].name, l->kids[i].len, ".gitignore", w->fold)) {
				if ((rc = read_ignore(fd, ".gitignore", &l->ign)) < 0)
					return rc;
				break;
			}
		}
	}
	if ((rc = judge(w, fd, depth, forced)) < 0) {
		if (rc == ROZ_EIO && depth > 0) {
			l->n = 0;
			return ROZ_OK;
		}
		if (rc == ROZ_EIO)
			roz_error_set_errno(errno, "cannot read the directory");
		return rc;
	}
	if ((rc = sort_kids(l)) < 0)
		return rc;
	for (size_t i = 0; i < l->n; i++) {
		const kid *k = &l->kids[l->order[i]];
		int sub;

		if (!(k->flags & KID_SUBTREE)) {
			if ((rc = emit(w, l, k)) < 0 || w->stop)
				return rc;
			continue;
		}
		sub = openat(fd, l->names + k->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			if (fatal_open_errno(errno)) {
				roz_error_set_errno(errno, "cannot open a directory");
				return ROZ_EIO;
			}
			continue; /* listed, without its contents */
		}
		memcpy(w->path + l->prefix, l->names + k->name, k->len);
		w->path[l->prefix + k->len] = '/';
		w->lv[depth + 1].prefix = l->prefix + k->len + 1;
		rc = walk_dir(w, sub, depth + 1, (k->flags & KID_FORCED) != 0);
		close(sub);
		if (rc < 0 || w->stop)
			return rc;
	}
	return ROZ_OK;
}

static void walker_dispose(walker *w)
{
	if (w->lv) {
		for (size_t d = 0; d < TREE_MAX_DEPTH; d++) {
			roz_free(w->lv[d].names);
			roz_free(w->lv[d].kids);
			roz_free(w->lv[d].order);
			roz_free(w->lv[d].scratch);
			rules_dispose(&w->lv[d].ign, true);
		}
		roz_free(w->lv);
	}
	rules_dispose(&w->exclude, true);
	rules_dispose(&w->extra, false);
	roz_free(w->dents);
	roz_free(w->out);
	roz_free(w->pool);
}

/* The walk's entries and paths handed to *out: the pool holds the paths in entry order. */
static void assemble(walker *w, roz_tree *out)
{
	char *p = w->pool;

	if (w->n == 0)
		return;
	for (size_t i = 0; i < w->n; i++) {
		w->out[i].path = p;
		p += strlen(p) + 1;
	}
	out->items = w->out;
	out->n = w->n;
	w->out = NULL;
	w->pool = NULL;
}

int roz_tree_walk(const char *root, const roz_tree_opts *o, roz_tree *out)
{
	static const roz_tree_opts defaults = {0, NULL, false};
	walker *w = NULL;
	struct timespec now;
	struct stat st;
	int fd, gitfd, rc;

	if (!out) {
		roz_error_set("roz_tree_walk: no place for the result");
		return ROZ_EINVALID;
	}
	memset(out, 0, sizeof *out);
	if (!root || root[0] != '/') {
		roz_error_set("roz_tree_walk: the root must be an absolute path");
		return ROZ_EINVALID;
	}
	if (!o)
		o = &defaults;
	if (clock_gettime(CLOCK_REALTIME_COARSE, &now) == 0)
		out->taken_ns = ts_ns(now);
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			roz_error_set("%s: no such directory", root);
			return ROZ_ENOTFOUND;
		}
		roz_error_set_errno(errno, "%s: cannot open", root);
		return ROZ_EIO;
	}
	if (fstat(fd, &st) < 0) {
		roz_error_set_errno(errno, "%s: cannot read", root);
		close(fd);
		return ROZ_EIO;
	}
	if (!(w = roz_calloc(1, sizeof *w)) || !(w->lv = roz_calloc(TREE_MAX_DEPTH, sizeof *w->lv)) ||
	    !(w->dents = roz_malloc(DENTS_SIZE))) {
		rc = ROZ_ENOMEM;
		goto done;
	}
	w->max = o->max_entries ? o->max_entries : ROZ_TREE_MAX_ENTRIES;
	{
		size_t first = w->max < FIRST_ENTRIES ? w->max : FIRST_ENTRIES;

		if (roz_alloc_array_reserve((void **)&w->out, &w->cap, sizeof *w->out, first) < 0 ||
		    roz_alloc_array_reserve((void **)&w->pool, &w->pool_cap, 1, first * FIRST_PATH_BYTES) < 0) {
			rc = ROZ_ENOMEM;
			goto done;
		}
	}
	w->fold = o->fold_case;
	if (o->extra) {
		w->extra.ig = *o->extra;
		if ((rc = compile(&w->extra)) < 0)
			goto done;
	}
	w->dev = (uint64_t)st.st_dev;
	gitfd = openat(fd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gitfd >= 0) {
		rc = read_ignore(gitfd, "info/exclude", &w->exclude);
		close(gitfd);
		if (rc < 0)
			goto done;
	}
	if ((rc = walk_dir(w, fd, 0, false)) < 0) {
		if (rc == ROZ_EIO)
			roz_error_prefix("%s", root);
		goto done;
	}
	out->dev = w->dev;
	out->truncated = w->truncated;
	assemble(w, out);
done:
	if (rc == ROZ_ENOMEM)
		roz_error_set("out of memory walking %s", root);
	if (w)
		walker_dispose(w);
	roz_free(w);
	close(fd);
	if (rc < 0)
		roz_tree_dispose(out);
	return rc;
}

const roz_tree_entry *roz_tree_find(const roz_tree *t, const char *path)
{
	size_t lo = 0, hi;

	if (!t || !path)
		return NULL;
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->items[mid].path, path);

		if (c == 0)
			return &t->items[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void roz_tree_dispose(roz_tree *t)
{
	if (!t)
		return;
	if (t->n && t->items)
		roz_free(t->items[0].path); /* the pool of every path */
	roz_free(t->items);
	memset(t, 0, sizeof *t);
}

/* ---- the snapshot file --------------------------------------------------- */

static const char MAGIC[8] = {'R', 'O', 'Z', 'T', 'R', 'E', 'E', '\0'};
#define FORMAT_VERSION 1u
#define FLAG_TRUNCATED 1u
#define HEADER_SIZE 48
#define RECORD_SIZE 48
#define TRAILER_SIZE 8
/* Records are encoded through a buffer this large on save. */
#define SAVE_CHUNK ((size_t)16 << 10)
/* A file larger than this is not a snapshot roz wrote (200,000 entries take about 16 MB). */
#define SNAPSHOT_MAX ((size_t)1 << 30)

/* A record is decoded into the entry that takes its place: an entry must fit in one. */
_Static_assert(sizeof(roz_tree_entry) <= RECORD_SIZE, "a tree entry is larger than its record");

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * The snapshot's checksum, taken as the file is written or read: four
 * lanes, each taking every fourth 64-bit word of each 32 bytes, the rest
 * folded in word by word, then the length. Each step (xor the word,
 * multiply by an odd constant, xor the high bits down) is a bijection of
 * the lane for a given word and of the word for a given lane, so a change
 * confined to one word always changes the result; other damage goes
 * unnoticed with a chance near 2^-64. Not cryptographic: it tells a torn or
 * damaged file from a whole one, not a forged one.
 */
#define MIX_A UINT64_C(0x9e3779b97f4a7c15)
#define MIX_B UINT64_C(0xbf58476d1ce4e5b9)

typedef struct sum {
	uint64_t lane[4];
	unsigned char part[32]; /* bytes short of a whole block */
	size_t part_len;
	uint64_t total;
} sum;

static uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= MIX_B;
	return h ^ (h >> 31);
}

static void sum_init(sum *s)
{
	for (int i = 0; i < 4; i++)
		s->lane[i] = MIX_A * (uint64_t)(2 * i + 1);
	s->part_len = 0;
	s->total = 0;
}

static void sum_blocks(sum *s, const unsigned char *p, size_t blocks)
{
	uint64_t a = s->lane[0], b = s->lane[1], c = s->lane[2], d = s->lane[3];

	for (; blocks; blocks--, p += 32) {
		a = mix(a, get_u64(p));
		b = mix(b, get_u64(p + 8));
		c = mix(c, get_u64(p + 16));
		d = mix(d, get_u64(p + 24));
	}
	s->lane[0] = a;
	s->lane[1] = b;
	s->lane[2] = c;
	s->lane[3] = d;
}

static void sum_add(sum *s, const void *data, size_t n)
{
	const unsigned char *p = data;

	s->total += n;
	if (s->part_len) {
		size_t take = 32 - s->part_len < n ? 32 - s->part_len : n;

		memcpy(s->part + s->part_len, p, take);
		s->part_len += take;
		p += take;
		n -= take;
		if (s->part_len < 32)
			return;
		sum_blocks(s, s->part, 1);
		s->part_len = 0;
	}
	sum_blocks(s, p, n / 32);
	p += n / 32 * 32;
	n %= 32;
	memcpy(s->part, p, n);
	s->part_len = n;
}

static uint64_t sum_end(const sum *s)
{
	uint64_t h = mix(mix(mix(s->lane[0], s->lane[1]), s->lane[2]), s->lane[3]), tail = 0;
	const unsigned char *p = s->part;
	size_t left = s->part_len;

	for (; left >= 8; p += 8, left -= 8)
		h = mix(h, get_u64(p));
	for (size_t i = 0; i < left; i++)
		tail |= (uint64_t)p[i] << (8 * i);
	h = mix(mix(h, tail), s->total);
	h *= MIX_A;
	return h ^ (h >> 29);
}

static void header(const roz_tree *t, size_t strings, unsigned char *h)
{
	memcpy(h, MAGIC, sizeof MAGIC);
	put_u32(h + 8, FORMAT_VERSION);
	put_u32(h + 12, t->truncated ? FLAG_TRUNCATED : 0);
	put_u64(h + 16, (uint64_t)t->n);
	put_u64(h + 24, (uint64_t)strings);
	put_u64(h + 32, t->dev);
	put_u64(h + 40, (uint64_t)t->taken_ns);
}

static void record(const roz_tree_entry *e, size_t len, unsigned char *r)
{
	put_u64(r, (uint64_t)len);
	put_u32(r + 8, e->mode);
	put_u32(r + 12, e->nlink);
	put_u64(r + 16, e->size);
	put_u64(r + 24, e->ino);
	put_u64(r + 32, (uint64_t)e->mtime_ns);
	put_u64(r + 40, (uint64_t)e->ctime_ns);
}

/* Write and checksum n bytes. */
static int put(int fd, sum *s, const void *data, size_t n)
{
	sum_add(s, data, n);
	return roz_file_write_all(fd, data, n);
}

/* Everything after the header: the records, the paths, the checksum. */
static int write_body(int fd, const roz_tree *t, size_t strings, bool pooled, sum *s)
{
	unsigned char *chunk, tail[TRAILER_SIZE];
	size_t used = 0;
	int rc = ROZ_OK;

	if (!(chunk = roz_malloc(SAVE_CHUNK)))
		return ROZ_ENOMEM;
	for (size_t i = 0; i < t->n && rc == ROZ_OK; i++) {
		record(&t->items[i], strlen(t->items[i].path), chunk + used);
		used += RECORD_SIZE;
		if (used + RECORD_SIZE > SAVE_CHUNK || i + 1 == t->n) {
			rc = put(fd, s, chunk, used);
			used = 0;
		}
	}
	if (rc == ROZ_OK && pooled && strings) {
		/* the paths are one block already, as a walk or a load leaves them */
		rc = put(fd, s, t->items[0].path, strings);
	} else if (rc == ROZ_OK) {
		for (size_t i = 0; i < t->n && rc == ROZ_OK; i++) {
			const char *p = t->items[i].path;
			size_t len = strlen(p) + 1;

			while (len && rc == ROZ_OK) {
				size_t take = SAVE_CHUNK - used < len ? SAVE_CHUNK - used : len;

				memcpy(chunk + used, p, take);
				used += take;
				p += take;
				len -= take;
				if (used == SAVE_CHUNK) {
					rc = put(fd, s, chunk, used);
					used = 0;
				}
			}
		}
		if (rc == ROZ_OK && used)
			rc = put(fd, s, chunk, used);
	}
	roz_free(chunk);
	if (rc == ROZ_OK) {
		put_u64(tail, sum_end(s));
		rc = roz_file_write_all(fd, (const char *)tail, sizeof tail);
	}
	return rc;
}

int roz_tree_save(const roz_tree *t, const char *file)
{
	unsigned char head[HEADER_SIZE];
	size_t strings = 0;
	bool pooled = true;
	char *tmp;
	sum s;
	int fd, rc;

	if (!t || !file || (t->n && !t->items)) {
		roz_error_set("roz_tree_save: nothing to save or nowhere to save it");
		return ROZ_EINVALID;
	}
	for (size_t i = 0; i < t->n; i++) {
		const char *p = t->items[i].path;
		size_t len = p ? strlen(p) : 0;

		if (len == 0 || len >= TREE_PATH_MAX) {
			roz_error_set("roz_tree_save: entry %zu has no path, or one too long", i);
			return ROZ_EINVALID;
		}
		/* whether the paths lie one after the other from the first, as walk and load leave them */
		pooled = pooled && p == t->items[0].path + strings;
		strings += len + 1;
	}
	if (!(tmp = roz_asprintf("%s.tmp.%ld", file, (long)getpid()))) {
		roz_error_set("out of memory saving %s", file);
		return ROZ_ENOMEM;
	}
	/* a leftover of a crashed process that had our pid is ours to replace */
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0) {
		roz_error_set_errno(errno, "cannot create %s", tmp);
		roz_free(tmp);
		return ROZ_EIO;
	}
	sum_init(&s);
	header(t, strings, head);
	rc = put(fd, &s, head, sizeof head);
	if (rc == ROZ_OK)
		rc = write_body(fd, t, strings, pooled, &s);
	if (rc == ROZ_EIO)
		roz_error_set_errno(errno, "cannot write %s", tmp);
	else if (rc == ROZ_ENOMEM)
		roz_error_set("out of memory saving %s", file);
	if (close(fd) < 0 && rc == ROZ_OK) {
		roz_error_set_errno(errno, "cannot write %s", tmp);
		rc = ROZ_EIO;
	}
	if (rc == ROZ_OK && rename(tmp, file) < 0) {
		roz_error_set_errno(errno, "cannot rename %s to %s", tmp, file);
		rc = ROZ_EIO;
	}
	if (rc < 0)
		(void)unlink(tmp);
	roz_free(tmp);
	return rc;
}

/* A stored path: non-empty, relative, no NUL, no empty, `.` or `..` component. */
static bool path_ok(const char *p, size_t len)
{
	const char *end = p + len;

	if (len == 0 || memchr(p, '\0', len))
		return false;
	for (;;) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = (size_t)((slash ? slash : end) - p);

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

/* Whether a (alen bytes) sorts strictly before b (blen bytes), bytewise. */
static bool before(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c < 0 || (c == 0 && alen < blen);
}

static int corrupt(const char *file, const char *why)
{
	roz_error_set("%s: not a whole tree snapshot (%s)", file, why);
	return ROZ_ECORRUPT;
}

/* Read exactly n bytes: ROZ_OK, ROZ_ECORRUPT (the file ends first), ROZ_EIO. */
static int read_full(int fd, const char *file, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t got = read(fd, p, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			roz_error_set_errno(errno, "%s: cannot read", file);
			return ROZ_EIO;
		}
		if (got == 0)
			return corrupt(file, "shorter than it says");
		p += got;
		n -= (size_t)got;
	}
	return ROZ_OK;
}

/*
 * Ask the kernel for the pages of [p, p + n) at once, where it can: a read
 * into fresh memory faults them in one by one, and on a virtual machine
 * each fault is dear (a 100,000-entry load took a quarter less time so,
 * bench/README.md). Only whole pages inside the block are asked for; where
 * it cannot be done, the read faults them in as before.
 */
static void prefault(void *p, size_t n)
{
#if defined(MADV_POPULATE_WRITE)
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t mask, first, end;

	if (page <= 0 || (page & (page - 1)) != 0)
		return;
	mask = (uintptr_t)page - 1;
	first = ((uintptr_t)p + mask) & ~mask;
	end = ((uintptr_t)p + n) & ~mask;
	if (end > first)
		(void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

/*
 * Turn the n records read into t->items into entries, in place (each entry
 * takes the place of the record it is decoded from, which is as large or
 * larger), pointing their paths into the table `pool` (strings bytes),
 * checking every length and path: ROZ_OK or ROZ_ECORRUPT.
 */
static int decode(const char *file, roz_tree *t, size_t n, char *pool, size_t strings)
{
	unsigned char *raw = (unsigned char *)(void *)t->items;
	const char *prev = NULL;
	size_t prev_len = 0, off = 0;

	for (size_t i = 0; i < n; i++) {
		const unsigned char *r = raw + i * RECORD_SIZE;
		uint64_t len = get_u64(r);
		roz_tree_entry e;

		if (len == 0 || len >= TREE_PATH_MAX || len >= strings - off || pool[off + len] != '\0')
			return corrupt(file, "a path's length does not match the table");
		if (!path_ok(pool + off, (size_t)len))
			return corrupt(file, "a path that is not relative and normal");
		if (prev && !before(prev, prev_len, pool + off, (size_t)len))
			return corrupt(file, "paths out of order or repeated");
		e.path = pool + off;
		e.mode = get_u32(r + 8);
		e.nlink = get_u32(r + 12);
		e.size = get_u64(r + 16);
		e.ino = get_u64(r + 24);
		e.mtime_ns = (int64_t)get_u64(r + 32);
		e.ctime_ns = (int64_t)get_u64(r + 40);
		t->items[i] = e;
		prev = pool + off;
		prev_len = (size_t)len;
		off += (size_t)len + 1;
	}
	if (off != strings)
		return corrupt(file, "path bytes no entry names");
	t->n = n;
	return ROZ_OK;
}

int roz_tree_load(const char *file, roz_tree *out)
{
	unsigned char head[HEADER_SIZE], tail[TRAILER_SIZE];
	char *pool = NULL;
	struct stat st;
	uint64_t n, strings, flags;
	sum s;
	int fd, rc;

	if (!out) {
		roz_error_set("roz_tree_load: no place for the result");
		return ROZ_EINVALID;
	}
	memset(out, 0, sizeof *out);
	if (!file) {
		roz_error_set("roz_tree_load: no file");
		return ROZ_EINVALID;
	}
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			roz_error_set("%s: no such file", file);
			return ROZ_ENOTFOUND;
		}
		if (errno == ELOOP)
			return corrupt(file, "a symbolic link");
		roz_error_set_errno(errno, "%s: cannot open", file);
		return ROZ_EIO;
	}
	if (fstat(fd, &st) < 0) {
		roz_error_set_errno(errno, "%s: cannot read", file);
		rc = ROZ_EIO;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = corrupt(file, "not a regular file");
		goto out;
	}
	if (st.st_size < HEADER_SIZE + TRAILER_SIZE || (uint64_t)st.st_size > SNAPSHOT_MAX) {
		rc = corrupt(file, st.st_size < HEADER_SIZE + TRAILER_SIZE ? "too short" : "too large");
		goto out;
	}
	if ((rc = read_full(fd, file, head, sizeof head)) < 0)
		goto out;
	if (memcmp(head, MAGIC, sizeof MAGIC) != 0) {
		rc = corrupt(file, "no snapshot header");
		goto out;
	}
	if (get_u32(head + 8) != FORMAT_VERSION) {
		rc = corrupt(file, "another format version");
		goto out;
	}
	flags = get_u32(head + 12);
	n = get_u64(head + 16);
	strings = get_u64(head + 24);
	/* the sizes it gives must add up to the file's, each path at least a byte and a NUL */
	if ((flags & ~(uint64_t)FLAG_TRUNCATED) || n > SNAPSHOT_MAX / RECORD_SIZE || strings > SNAPSHOT_MAX ||
	    strings < 2 * n || (n == 0) != (strings == 0) ||
	    HEADER_SIZE + n * RECORD_SIZE + strings + TRAILER_SIZE != (uint64_t)st.st_size) {
		rc = corrupt(file, "sizes that do not add up");
		goto out;
	}
	out->dev = get_u64(head + 32);
	out->taken_ns = (int64_t)get_u64(head + 40);
	out->truncated = (flags & FLAG_TRUNCATED) != 0;
	sum_init(&s);
	sum_add(&s, head, sizeof head);
	if (n) {
		/* read straight into place: the records into the entries, the paths into their pool */
		if (!(out->items = roz_malloc((size_t)n * RECORD_SIZE)) || !(pool = roz_malloc((size_t)strings))) {
			roz_error_set("out of memory reading %s", file);
			rc = ROZ_ENOMEM;
			goto out;
		}
		prefault(out->items, (size_t)n * RECORD_SIZE);
		prefault(pool, (size_t)strings);
		if ((rc = read_full(fd, file, out->items, (size_t)n * RECORD_SIZE)) < 0 ||
		    (rc = read_full(fd, file, pool, (size_t)strings)) < 0)
			goto out;
		sum_add(&s, out->items, (size_t)n * RECORD_SIZE);
		sum_add(&s, pool, (size_t)strings);
	}
	if ((rc = read_full(fd, file, tail, sizeof tail)) < 0)
		goto out;
	if (sum_end(&s) != get_u64(tail)) {
		rc = corrupt(file, "checksum mismatch");
		goto out;
	}
	if (n && (rc = decode(file, out, (size_t)n, pool, (size_t)strings)) == ROZ_OK)
		pool = NULL; /* out->items[0].path */
out:
	close(fd);
	if (rc < 0) {
		roz_free(out->items);
		out->items = NULL;
		out->n = 0;
		roz_free(pool);
		memset(out, 0, sizeof *out);
	}
	return rc;
}
