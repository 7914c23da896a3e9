/*
 * cmd_ledger_compact.c - `roz ledger compact [--dry-run]`: keep the
 * active ledger small in git. Records that no longer speak for any line
 * (roz/compact.h) move to .orchestration/archive/agent_trace-YYYY-MM.jsonl,
 * by each record's own month (UTC), appended there; every other line stays
 * where it is.
 *
 * The ledger is read and planned without holding anything. Then, under
 * the lock every appender takes (roz/append.h: flock on the ledger itself),
 * what was appended meanwhile is read; when it leaves the plan's order as
 * it was it is kept as it is, else the plan is made again under the lock.
 * The archive is written first (and synced), then the active file is
 * written whole to a temporary file in .orchestration/, synced, and
 * renamed over the ledger; the directory is synced. A crash before the
 * rename leaves the ledger as it was (records then in both files are
 * repeated, never lost).
 *
 * An appender that opened the ledger before the rename and waited for the
 * lock finds, once it has the lock, that the name is another file now, and
 * opens it again (roz/append.h): nothing it appends is left in the file
 * that was replaced.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "roz/append.h"
#include "roz/clock.h"
#include "roz/compact.h"
#include "roz/file.h"
#include "roz/ledger.h"
#include "roz/lines.h"
#include "roz/orchestration.h"

#define ARCHIVE_DIR ".orchestration/archive"
/* The longest wait for the ledger's lock; attempts when the ledger changes under the plan. */
#define COMPACT_LOCK_MS 10000u
#define COMPACT_ATTEMPTS 3
/* What is written at once. */
#define CHUNK (1024u * 1024u)

static void help(void)
{
	printf("usage: roz ledger compact [--dry-run]\n\n"
	       "Move the records of .orchestration/agent_trace.jsonl that no longer speak for\n"
	       "any line to .orchestration/archive/agent_trace-YYYY-MM.jsonl (by each record's\n"
	       "own month, UTC), so the ledger committed with the code stays small. A record\n"
	       "moves when every one of its ranges was taken over by a later record's, or\n"
	       "retired by a later removal or acceptance, and nothing it took over or\n"
	       "retired belongs to a record that stays; this is decided from the records\n"
	       "alone. roz ledger verify reports the same afterwards, but for the superseded\n"
	       "ranges that moved. Lines that are not records stay where they are.\n\n"
	       "The ledger is rewritten whole (a temporary file renamed over it) under the\n"
	       "lock hooks take to append, so a record appended meanwhile is kept.\n\n"
	       "Options:\n"
	       "      --dry-run  say what would move, write nothing\n"
	       "  -h, --help     show this help\n\n"
	       "Exit status: 0 done (or nothing to move), 1 no ledger or it could not be\n"
	       "rewritten (it is then as it was), 2 usage error.\n");
}

typedef struct month {
	char name[8];
	size_t n;
} month;

typedef struct job {
	const char *root;
	char *ledger, *dir, *archive_dir;
	bool dry_run;
	roz_compact *plan;
	roz_lines *reader;
	const roz_compact_line *lines;
	size_t nlines, moved, records;
	uint64_t prefix;     /* the bytes the plan covers */
	month *months;
	size_t nmonths;
} job;

static void job_reset(job *j)
{
	roz_compact_free(j->plan);
	roz_lines_close(j->reader);
	roz_free(j->months);
	j->plan = NULL;
	j->reader = NULL;
	j->months = NULL;
	j->nmonths = 0;
	j->lines = NULL;
	j->nlines = j->moved = j->records = 0;
	j->prefix = 0;
}

/*
 * Read the ledger and plan. `whole`: every line, a last one without "\n"
 * too (under the lock, nothing is being written); else the lines up to
 * the last "\n" (a line without one may be a write under way). *ino is
 * the file read. ROZ_OK, ROZ_ENOTFOUND (no ledger), another error.
 */
static int plan_file(job *j, bool whole, struct stat *st)
{
	const char *s;
	size_t n;
	uint64_t off;
	bool ended;
	int rc;

	if (!(j->plan = roz_compact_new()))
		return ROZ_ENOMEM;
	if ((rc = roz_lines_open(j->ledger, ROZ_LEDGER_MAX_LINE, &j->reader)) != ROZ_OK)
		return rc;
	while ((rc = roz_lines_next(j->reader, &s, &n, &off, &ended)) == ROZ_OK) {
		if (!ended && !whole)
			break;
		if ((rc = roz_compact_add(j->plan, s, n, off, ended)) != ROZ_OK)
			return rc;
		j->prefix = off + n + (ended ? 1 : 0);
	}
	if (rc != ROZ_OK && rc != ROZ_ENOTFOUND)
		return rc;
	if (stat(j->ledger, st) < 0) {
		roz_error_set_errno(errno, "cannot read %s", j->ledger);
		return errno == ENOENT ? ROZ_ENOTFOUND : ROZ_EIO;
	}
	if ((rc = roz_compact_plan(j->plan, &j->lines, &j->nlines, &j->moved)) != ROZ_OK)
		return rc;
	for (size_t i = 0; i < j->nlines; i++) {
		const roz_compact_line *l = &j->lines[i];
		size_t k = 0;

		j->records += l->record;
		if (!l->move)
			continue;
		while (k < j->nmonths && strcmp(j->months[k].name, l->month) != 0)
			k++;
		if (k == j->nmonths) {
			month *m = roz_realloc(j->months, (j->nmonths + 1) * sizeof *m);

			if (!m)
				return ROZ_ENOMEM;
			j->months = m;
			memcpy(m[k].name, l->month, sizeof m[k].name);
			m[k].n = 0;
			j->nmonths++;
		}
		j->months[k].n++;
	}
	return ROZ_OK;
}

/* The lock every appender takes, waited for as they wait (polling, bounded). */
static int lock_wait(int fd, const char *path, uint32_t ms)
{
	int64_t deadline = roz_clock_monotonic_ms() + ms;

	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			roz_error_set_errno(errno, "cannot lock %s", path);
			return ROZ_EIO;
		}
		if (roz_clock_monotonic_ms() >= deadline) {
			roz_error_set("%s stayed locked for %u ms", path, (unsigned)ms);
			return ROZ_ETIMEOUT;
		}
		roz_clock_sleep_ms(2);
	}
	return ROZ_OK;
}

static int read_at(int fd, uint64_t off, size_t len, char *out)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, out + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ROZ_EIO;
		got += (size_t)n;
	}
	return ROZ_OK;
}

/* Do the lines appended after the plan's leave its order as it was? */
static bool tail_follows(const job *j, const char *tail, size_t len)
{
	const roz_ledger_order *o = roz_compact_order(j->plan);

	for (size_t pos = 0; pos < len;) {
		const char *s = tail + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		roz_ledger_rec rec;
		bool follows;

		pos += n + (nl ? 1 : 0);
		/* only records take part in the order; a line too long is none */
		if (n > ROZ_LEDGER_MAX_LINE || roz_ledger_line_parse(s, n, &rec) != ROZ_OK)
			continue;
		follows = roz_ledger_order_follows(o, rec.has_timestamp, rec.timestamp);
		roz_ledger_rec_dispose(&rec);
		if (!follows)
			return false;
	}
	return true;
}

/* A line of the plan, read again from the file it was read from. */
static int line_text(job *j, const roz_compact_line *l, const char **s)
{
	if (!l->len) {
		*s = "";
		return ROZ_OK;
	}
	if (l->len > ROZ_LEDGER_MAX_LINE) {
		roz_error_set("line %zu of the ledger is longer than a record can be", l->line);
		return ROZ_EINVALID;
	}
	return roz_lines_at(j->reader, l->offset, l->len, s);
}

/* Append the moved records of one month to its archive, in chunks of whole lines, and sync it. */
static int write_archive(job *j, const month *m)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_append_opts opts = {COMPACT_LOCK_MS, false, 0644};
	char *path = roz_asprintf("%s/agent_trace-%s.jsonl", j->archive_dir, m->name);
	int rc = ROZ_OK, fd;

	if (!path)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < j->nlines && rc == ROZ_OK; i++) {
		const roz_compact_line *l = &j->lines[i];
		const char *s;

		if (!l->move || strcmp(l->month, m->name) != 0)
			continue;
		if ((rc = line_text(j, l, &s)) != ROZ_OK)
			break;
		roz_buf_add(&b, s, l->len);
		roz_buf_addc(&b, '\n');
		if ((rc = roz_buf_failed(&b)) == ROZ_OK && b.len >= CHUNK) {
			rc = roz_append_lines(path, b.ptr, b.len, &opts);
			roz_buf_reset(&b);
		}
	}
	if (rc == ROZ_OK && b.len)
		rc = roz_append_lines(path, b.ptr, b.len, &opts);
	if (rc == ROZ_OK) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || fsync(fd) < 0) {
			roz_error_set_errno(errno, "cannot sync %s", path);
			rc = ROZ_EIO;
		}
		if (fd >= 0)
			close(fd);
	}
	if (rc != ROZ_OK && rc != ROZ_ENOMEM)
		roz_error_prefix("archive %s", path);
	roz_buf_dispose(&b);
	roz_free(path);
	return rc;
}

/* The active ledger as it will be: the lines that stay, then what was appended after the plan. */
static int write_active(job *j, int fd, const char *tail, size_t tlen)
{
	roz_buf b = ROZ_BUF_INIT;
	int rc = ROZ_OK;

	for (size_t i = 0; i < j->nlines && rc == ROZ_OK; i++) {
		const roz_compact_line *l = &j->lines[i];
		const char *s;

		if (l->move)
			continue;
		if ((rc = line_text(j, l, &s)) != ROZ_OK)
			break;
		roz_buf_add(&b, s, l->len);
		if (l->ended)
			roz_buf_addc(&b, '\n');
		if ((rc = roz_buf_failed(&b)) == ROZ_OK && b.len >= CHUNK) {
			rc = roz_file_write_all(fd, b.ptr, b.len);
			roz_buf_reset(&b);
		}
	}
	if (rc == ROZ_OK && b.len)
		rc = roz_file_write_all(fd, b.ptr, b.len);
	if (rc == ROZ_OK && tlen)
		rc = roz_file_write_all(fd, tail, tlen);
	if (rc == ROZ_OK && fsync(fd) < 0)
		rc = ROZ_EIO;
	if (rc == ROZ_EIO)
		roz_error_set_errno(errno, "cannot write the new ledger");
	roz_buf_dispose(&b);
	return rc;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = fd >= 0 && fsync(fd) == 0 ? ROZ_OK : ROZ_EIO;

	if (fd >= 0)
		close(fd);
	return rc;
}

enum { DONE = 0, AGAIN = 1 };

/*
 * One attempt: plan, lock, check, write. DONE with *status set, or AGAIN
 * when the ledger was replaced under the plan.
 */
static int attempt(job *j, int *status)
{
	struct stat st0, st1, st;
	char *tail = NULL, *tmp = NULL;
	size_t tlen = 0;
	int fd = -1, tfd = -1, rc, result = DONE;
	bool locked = false;

	*status = ROZ_EXIT_FAILURE;
	if (stat(j->ledger, &st0) < 0) {
		if (errno == ENOENT)
			cli_error("no ledger at %s: nothing has been recorded", j->ledger);
		else
			cli_error("ledger compact: cannot read %s: %s", j->ledger, strerror(errno));
		return DONE;
	}
	if ((rc = plan_file(j, j->dry_run, &st1)) != ROZ_OK) {
		cli_error("ledger compact: %s", rc == ROZ_ENOTFOUND ? "the ledger went away while it was read"
								   : roz_error_last());
		return DONE;
	}
	if (st0.st_ino != st1.st_ino || st0.st_dev != st1.st_dev)
		return AGAIN;
	if (j->dry_run || !j->moved) {
		*status = ROZ_EXIT_OK;
		return DONE;
	}
	fd = open(j->ledger, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		cli_error("ledger compact: cannot open %s: %s", j->ledger, strerror(errno));
		goto out;
	}
	if (st.st_ino != st1.st_ino || st.st_dev != st1.st_dev) {
		result = AGAIN;
		goto out;
	}
	if ((rc = lock_wait(fd, j->ledger, COMPACT_LOCK_MS)) != ROZ_OK) {
		cli_error("ledger compact: %s; nothing was changed", roz_error_last());
		goto out;
	}
	locked = true;
	/* replaced while we waited (another compaction): start again on the new file */
	if (stat(j->ledger, &st1) < 0 || st1.st_ino != st.st_ino || st1.st_dev != st.st_dev ||
	    fstat(fd, &st) < 0) {
		result = AGAIN;
		goto out;
	}
	if ((uint64_t)st.st_size < j->prefix) {
		cli_error("ledger compact: %s shrank while it was read; nothing was changed", j->ledger);
		goto out;
	}
	tlen = (size_t)((uint64_t)st.st_size - j->prefix);
	if (tlen && (!(tail = roz_malloc(tlen)) || read_at(fd, j->prefix, tlen, tail) != ROZ_OK)) {
		cli_error("ledger compact: cannot read the end of %s", j->ledger);
		goto out;
	}
	if (!tail_follows(j, tail, tlen)) {
		/* what came meanwhile changes the order: plan again, now that nobody writes */
		job_reset(j);
		roz_free(tail);
		tail = NULL;
		tlen = 0;
		if ((rc = plan_file(j, true, &st1)) != ROZ_OK) {
			cli_error("ledger compact: %s", roz_error_last());
			goto out;
		}
		if (!j->moved) {
			*status = ROZ_EXIT_OK;
			goto out;
		}
	}
	if (mkdir(j->archive_dir, 0755) < 0 && errno != EEXIST) {
		cli_error("ledger compact: cannot make %s: %s; nothing was changed", j->archive_dir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < j->nmonths; i++)
		if ((rc = write_archive(j, &j->months[i])) != ROZ_OK) {
			cli_error("ledger compact: %s; the ledger was not changed", roz_error_last());
			goto out;
		}
	if (!(tmp = roz_asprintf("%s/.agent_trace.jsonl.compact-XXXXXX", j->dir)) || (tfd = mkstemp(tmp)) < 0) {
		cli_error("ledger compact: cannot make a temporary file in %s: %s", j->dir, strerror(errno));
		goto out;
	}
	if (fchmod(tfd, st.st_mode & 0777) < 0 || write_active(j, tfd, tail, tlen) != ROZ_OK) {
		cli_error("ledger compact: %s; the ledger was not changed", roz_error_last());
		goto out;
	}
	if (close(tfd) < 0 || rename(tmp, j->ledger) < 0) {
		tfd = -1;
		cli_error("ledger compact: cannot replace %s: %s; it was not changed", j->ledger, strerror(errno));
		goto out;
	}
	tfd = -1;
	roz_free(tmp);
	tmp = NULL;
	if (sync_dir(j->dir) != ROZ_OK)
		cli_warning("ledger compact: cannot sync %s", j->dir);
	(void)flock(fd, LOCK_UN);
	locked = false;
	*status = ROZ_EXIT_OK;
out:
	if (tfd >= 0)
		close(tfd);
	if (tmp)
		(void)unlink(tmp);
	roz_free(tmp);
	roz_free(tail);
	if (locked)
		(void)flock(fd, LOCK_UN);
	if (fd >= 0)
		close(fd);
	return result;
}

static void report(const job *j)
{
	if (!j->moved) {
		printf("Nothing to move: each of the %zu record%s in %s still speaks for a line (or a record "
		       "that does).\n",
		       j->records, j->records == 1 ? "" : "s", ROZ_LEDGER_FILE);
		return;
	}
	printf("%s %zu record%s of %zu to the archive:\n", j->dry_run ? "Would move" : "Moved", j->moved,
	       j->moved == 1 ? "" : "s", j->records);
	for (size_t i = 0; i < j->nmonths; i++)
		printf("  %s/agent_trace-%s.jsonl  %zu record%s\n", ARCHIVE_DIR, j->months[i].name, j->months[i].n,
		       j->months[i].n == 1 ? "" : "s");
	printf("%zu record%s in %s.%s\n", j->records - j->moved, j->records - j->moved == 1 ? " stays" : "s stay",
	       ROZ_LEDGER_FILE, j->dry_run ? " Nothing was written (--dry-run)." : "");
}

static int compact(bool dry_run)
{
	roz_orchestration o;
	job j;
	char cwd[4096];
	int status = ROZ_EXIT_FAILURE;

	memset(&o, 0, sizeof o);
	memset(&j, 0, sizeof j);
	j.dry_run = dry_run;
	if (!getcwd(cwd, sizeof cwd)) {
		cli_error("ledger compact: cannot tell the current directory");
		return ROZ_EXIT_FAILURE;
	}
	if (roz_orchestration_find(cwd, &o) < 0) {
		cli_error("ledger compact: %s", roz_error_last());
		goto out;
	}
	j.root = o.root;
	j.ledger = roz_asprintf("%s/%s", strcmp(o.root, "/") ? o.root : "", ROZ_LEDGER_FILE);
	j.dir = roz_asprintf("%s/%s", strcmp(o.root, "/") ? o.root : "", ROZ_ORCH_DIR);
	j.archive_dir = roz_asprintf("%s/%s", strcmp(o.root, "/") ? o.root : "", ARCHIVE_DIR);
	if (!j.ledger || !j.dir || !j.archive_dir) {
		cli_error("ledger compact: out of memory");
		goto out;
	}
	for (int i = 0;; i++) {
		if (attempt(&j, &status) == DONE)
			break;
		job_reset(&j);
		status = ROZ_EXIT_FAILURE;
		if (i + 1 == COMPACT_ATTEMPTS) {
			cli_error("ledger compact: %s was replaced each time it was read; nothing was changed",
				  j.ledger);
			break;
		}
	}
	if (status == ROZ_EXIT_OK) {
		report(&j);
		status = cli_finish_stdout(status);
	}
out:
	job_reset(&j);
	roz_free(j.ledger);
	roz_free(j.dir);
	roz_free(j.archive_dir);
	roz_orchestration_dispose(&o);
	return status;
}

int cmd_ledger_compact(int argc, char **argv)
{
	bool dry_run = false;

	if (cli_wants_help(argc, argv)) {
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dry-run") == 0 || strcmp(argv[i], "-n") == 0)
			dry_run = true;
		else
			return cli_usage_error("ledger", "compact: unexpected argument '%s'", argv[i]);
	}
	return compact(dry_run);
}
