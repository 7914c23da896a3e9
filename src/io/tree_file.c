/*
 * tree_file.c - the snapshot file detection compares against (roz/tree.h):
 * a walk saved whole, and read back whole or not at all.
 *
 * The snapshot file, every integer little-endian:
 *
 *   offset      size  field
 *        0         8  magic "ROZTREE\0"
 *        8         4  format version, 2
 *       12         4  flags: bit 0 truncated, the others zero
 *       16         8  n, the entry count
 *       24         8  S, the size of the path table
 *       32         8  dev (the root's st_dev)
 *       40         8  taken_ns
 *       48         8  watch_id (roz/watch.h; 0: none)
 *       56         8  watch_gen
 *       64      48*n  the records, in path order, 48 bytes each: path length
 *                     u64, mode u32, nlink u32, size u64, ino u64,
 *                     mtime_ns i64, ctime_ns i64
 *  64+48*n         S  the path table: every path in record order, each
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

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/file.h"
#include "tree_int.h"


static const char MAGIC[8] = {'R', 'O', 'Z', 'T', 'R', 'E', 'E', '\0'};
#define FORMAT_VERSION 2u
#define FLAG_TRUNCATED 1u
#define HEADER_SIZE 64
#define RECORD_SIZE 48
#define TRAILER_SIZE 8
/* Records are encoded through a buffer this large on save. */
#define SAVE_CHUNK ((size_t)16 << 10)
/* A file larger than this is not a snapshot roz wrote (200,000 entries take about 16 MB). */
#define SNAPSHOT_MAX ((size_t)1 << 30)

/* A record is decoded into the entry that takes its place: an entry must fit in one. */
_Static_assert(sizeof(roz_tree_entry) <= RECORD_SIZE, "a tree entry is larger than its record");

/*
 * Little-endian writes and reads as one store or load each where the
 * machine is little-endian (the checksum reads every word of the file, so
 * this is most of a load's work): a byte loop is not always merged into
 * one by the compiler.
 */
static void put_u32(unsigned char *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, sizeof v);
}

static void put_u64(unsigned char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, sizeof v);
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
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
	put_u64(h + 48, t->watch_id);
	put_u64(h + 56, t->watch_gen);
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

/* A save's body written through one chunk: records, then paths, whatever order they come in. */
typedef struct writer {
	int fd;
	sum *s;
	unsigned char *chunk;
	size_t used;
	int rc;
} writer;

static void w_put(writer *w, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n && w->rc == ROZ_OK) {
		size_t take = SAVE_CHUNK - w->used < n ? SAVE_CHUNK - w->used : n;

		memcpy(w->chunk + w->used, p, take);
		w->used += take;
		p += take;
		n -= take;
		if (w->used == SAVE_CHUNK) {
			w->rc = put(w->fd, w->s, w->chunk, w->used);
			w->used = 0;
		}
	}
}

static void w_flush(writer *w)
{
	if (w->rc == ROZ_OK && w->used)
		w->rc = put(w->fd, w->s, w->chunk, w->used);
	w->used = 0;
}

static void w_record(void *ud, const roz_tree_entry *e)
{
	unsigned char r[RECORD_SIZE];

	record(e, strlen(e->path), r);
	w_put(ud, r, sizeof r);
}

static void w_path(void *ud, const roz_tree_entry *e)
{
	w_put(ud, e->path, strlen(e->path) + 1);
}

/* Where a save's entries come from: a tree, or a patch merged as it is written (tree_patch_each). */
typedef struct source {
	const roz_tree *t;
	const roz_tree *before, *part;
	const roz_tree_pick *picks;
	size_t npicks;
} source;

static int each_entry(const source *src, tree_each_fn fn, writer *w)
{
	size_t n, bytes;
	int rc;

	if (src->t) {
		for (size_t i = 0; i < src->t->n; i++)
			fn(w, &src->t->items[i]);
		return ROZ_OK;
	}
	rc = tree_patch_each(src->before, src->part, src->picks, src->npicks, fn, NULL, w, &n, &bytes);
	return rc;
}

/* Everything after the header: the records, the paths, the checksum. */
static int write_body(int fd, const source *src, size_t strings, bool pooled, sum *s)
{
	writer w = {fd, s, NULL, 0, ROZ_OK};
	unsigned char tail[TRAILER_SIZE];
	int rc;

	if (!(w.chunk = roz_malloc(SAVE_CHUNK)))
		return ROZ_ENOMEM;
	rc = each_entry(src, w_record, &w);
	w_flush(&w);
	if (rc == ROZ_OK && w.rc == ROZ_OK && pooled && strings) {
		/* the paths are one block already, as a walk or a load leaves them */
		w.rc = put(fd, s, src->t->items[0].path, strings);
	} else if (rc == ROZ_OK && w.rc == ROZ_OK) {
		rc = each_entry(src, w_path, &w);
		w_flush(&w);
	}
	roz_free(w.chunk);
	if (rc == ROZ_OK)
		rc = w.rc;
	if (rc == ROZ_OK) {
		put_u64(tail, sum_end(s));
		rc = roz_file_write_all(fd, (const char *)tail, sizeof tail);
	}
	return rc;
}

/* Write the snapshot `hdr` describes (its n, flags, stamp) with the entries of src, beside `file`, then rename. */
static int save(const roz_tree *hdr, const source *src, size_t strings, bool pooled, const char *file)
{
	unsigned char head[HEADER_SIZE];
	char *tmp;
	sum s;
	int fd, rc;

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
	header(hdr, strings, head);
	rc = put(fd, &s, head, sizeof head);
	if (rc == ROZ_OK)
		rc = write_body(fd, src, strings, pooled, &s);
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

int roz_tree_save(const roz_tree *t, const char *file)
{
	source src = {.t = t};
	size_t strings = 0;
	bool pooled = true;

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
	return save(t, &src, strings, pooled, file);
}

int roz_tree_save_patched(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks,
			  size_t npicks, const char *file)
{
	source src = {.before = before, .part = part, .picks = picks, .npicks = npicks};
	roz_tree hdr;
	size_t n, strings;
	int rc;

	if (!before || !part || !file || (npicks && !picks)) {
		roz_error_set("roz_tree_save_patched: nothing to save or nowhere to save it");
		return ROZ_EINVALID;
	}
	/* what roz_tree_patch would make of the header, counted by one merge without writing */
	if ((rc = tree_patch_each(before, part, picks, npicks, NULL, NULL, NULL, &n, &strings)) < 0) {
		roz_error_set("out of memory saving %s", file);
		return rc;
	}
	memset(&hdr, 0, sizeof hdr);
	hdr.n = n;
	hdr.dev = part->dev ? part->dev : before->dev;
	hdr.taken_ns = part->taken_ns;
	hdr.truncated = before->truncated || part->truncated;
	hdr.watch_id = part->watch_id;
	hdr.watch_gen = part->watch_gen;
	return save(&hdr, &src, strings, false, file);
}

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
	out->watch_id = get_u64(head + 48);
	out->watch_gen = get_u64(head + 56);
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
