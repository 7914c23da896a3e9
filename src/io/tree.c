/*
 * tree.c - a repository's working tree by lstat (roz/tree.h): the walk and
 * the look-up. The snapshot file is tree_file.c's.
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
 * Picked paths. A walk given `only` lists, of what a whole walk would, the
 * picked paths, what is under a deep pick and the directories on the way
 * to a pick, and stats nothing else: its cost follows the picks (what a
 * watcher says moved, roz/watch.h), not the tree. A directory on the way
 * is read as in a whole walk, its names and its .gitignore (a path is
 * judged by its parents' rules), but of its children only those that are
 * picked or lead to a pick are judged and stat'ed. Which they are is two
 * binary searches: for the child's path, and for that path followed by
 * `/`, since every pick under a child starts with it and a `/`, and such
 * picks are contiguous in strcmp order (`a-b` and `a.b` sort between `a`
 * and `a/x`, so a search for `a` alone would stop short). Each directory on
 * the way keeps the range of picks under it, so a search looks only there
 * and compares only what follows the directory's own path. Under a deep
 * pick the walk is a whole walk; a shallow picked directory is listed but
 * not read, unless a pick lies under it. The order is the whole walk's, so
 * roz_tree_patch (tree_patch.c) merges the result into an earlier tree in
 * one pass.
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
 * The snapshot file's format and its save and load are in tree_file.c.
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
#include "tree_int.h"

#if defined(__linux__) && !defined(ROZ_TREE_READDIR)
#define TREE_GETDENTS 1
#endif

#ifndef CLOCK_REALTIME_COARSE
#define CLOCK_REALTIME_COARSE CLOCK_REALTIME
#endif

#define TREE_MAX_DEPTH 256
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
	KID_HAS_TREE = 4, /* a directory whose contents are to be read */
	KID_WHOLE = 8     /* picked deep: its contents are read as in a whole walk */
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
	size_t plo, phi;           /* picked walk, on the way: the picks under it, only[plo..phi) */
} level;

typedef struct walker {
	size_t max;
	bool fold;
	rules extra;        /* the caller's (borrowed) */
	rules exclude;      /* .git/info/exclude */
	const roz_tree_pick *only; /* the caller's picks, or NULL: the whole tree */
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
 * The first of only[lo..hi), picks under a directory whose path and '/'
 * are `off` bytes, that is not before the key of the child `name`.
 */
static size_t pick_bound(const walker *w, size_t lo, size_t hi, size_t off, const char *name, size_t len,
			 bool under)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tree_key_cmp(w->only[mid].path + off, name, len, under) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The picks under the child `name` of the directory at level l: l's picks
 * from the first not before name + '/' to the first that does not start
 * with it (those that do are contiguous), into [*lo, *hi).
 */
static void picks_under(const walker *w, const level *l, const char *name, size_t len, size_t *lo, size_t *hi)
{
	size_t a = pick_bound(w, l->plo, l->phi, l->prefix, name, len, true), b = l->phi;

	*lo = a;
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (tree_under(w->only[mid].path + l->prefix, name, len))
			a = mid + 1;
		else
			b = mid;
	}
	*hi = a;
}

/*
 * Judge and stat the children read into level `depth` (directory `fd`),
 * keeping those to list, then add the key of each child directory's
 * contents. Unless `whole`, only the children that are picked or on the way
 * to a pick are judged. ROZ_OK, ROZ_ENOMEM, or ROZ_EIO when the directory
 * cannot be searched (its contents are then not listed).
 */
static int judge(walker *w, int fd, size_t depth, bool forced, bool whole)
{
	level *l = &w->lv[depth];
	size_t keep = 0, trees = 0;

	for (size_t i = 0; i < l->n; i++) {
		kid k = l->kids[i];
		const char *name = l->names + k.name;
		bool force = forced || (depth == 0 && named(name, k.len, ".orchestration", w->fold));
		bool have = false, picked = false, deep = false, on_way = false;
		struct stat st;

		if (!whole) {
			size_t at = pick_bound(w, l->plo, l->phi, l->prefix, name, k.len, false);

			if (at < l->phi && tree_key_cmp(w->only[at].path + l->prefix, name, k.len, false) == 0) {
				picked = true;
				deep = w->only[at].deep;
				at++;
			}
			at = pick_bound(w, at, l->phi, l->prefix, name, k.len, true);
			on_way = at < l->phi && tree_under(w->only[at].path + l->prefix, name, k.len);
			/* only a directory leads to a pick: what its entry says is none is passed by unstat'ed */
			if (!picked && !(on_way && (k.type == DT_DIR || k.type == DT_UNKNOWN)))
				continue;
		}
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
		if ((uint64_t)st.st_dev != w->dev || (!whole && !picked && !S_ISDIR(st.st_mode)))
			continue;
		fill(&k.st, &st);
		k.flags = force ? KID_FORCED : 0;
		if (S_ISDIR(st.st_mode) && (whole || deep || on_way)) {
			if (depth + 1 < TREE_MAX_DEPTH) {
				k.flags |= (uint8_t)(KID_HAS_TREE | (deep ? KID_WHOLE : 0));
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
		t->flags = (uint8_t)(KID_SUBTREE | (l->kids[i].flags & (KID_FORCED | KID_WHOLE)));
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
 * w->path, lv[depth].prefix set) and, in key order, everything under it:
 * all of it when `whole`, else what is picked or on the way to a pick of
 * lv[depth]'s range.
 */
static int walk_dir(walker *w, int fd, size_t depth, bool forced, bool whole)
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
	if ((rc = judge(w, fd, depth, forced, whole)) < 0) {
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
		bool sub_whole = whole || (k->flags & KID_WHOLE);
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
		if (!sub_whole)
			picks_under(w, l, l->names + k->name, k->len, &w->lv[depth + 1].plo, &w->lv[depth + 1].phi);
		rc = walk_dir(w, sub, depth + 1, (k->flags & KID_FORCED) != 0, sub_whole);
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
	static const roz_tree_opts defaults = {0};
	walker *w = NULL;
	struct timespec now;
	struct stat st;
	int fd, gitfd, rc = ROZ_OK;

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
	w->only = o->only;
	w->lv[0].plo = 0;
	w->lv[0].phi = o->nonly;
	/* picks, but none: nothing to list, and nothing to read */
	if ((!o->only || o->nonly) && (rc = walk_dir(w, fd, 0, false, !o->only)) < 0) {
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
