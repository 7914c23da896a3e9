/*
 * test_append.c - appending whole lines to a file many processes write at
 * once (roz/append.h), on real files and real processes: order, the heal
 * of a line a crash cut short, what is refused and that refusing never
 * blocks, the bounded wait for a lock another process holds, 64 writers
 * from two sessions at once, and writers killed in the middle of appends.
 *
 * Under valgrind (ROZ_UNDER_VALGRIND set) the process counts are smaller.
 */
#include "support.h"

#include "roz/append.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Longest a batch of child processes may take before the test gives up on it. */
#define DEADLINE_MS 120000
#define LOCK_MS 30000

static int setup(void **state)
{
	*state = t_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	t_rmtree(*state);
	free(*state);
	return 0;
}

static bool under_valgrind(void)
{
	return getenv("ROZ_UNDER_VALGRIND") != NULL;
}

/*
 * How much later than asked a timed wait may end: a loaded machine is slow
 * to wake a process, valgrind far slower.
 */
static int64_t late_ms(void)
{
	return under_valgrind() ? 20000 : 2000;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int append_s(const char *path, const char *line, uint32_t timeout_ms)
{
	return roz_append_line(path, line, strlen(line), timeout_ms);
}

static char *slurp(const char *path)
{
	size_t len;
	char *text = t_read_file(path, &len);

	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

/* Wait for a child, failing the test if it does not end by the deadline; its wait status. */
static int reap(pid_t pid, int64_t deadline)
{
	int st = 0;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			fail_msg("waitpid: %s", strerror(errno));
		if (now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fail_msg("child %d did not finish in time", (int)pid);
		}
		sleep_us(1000);
	}
}

/* ---- records the concurrent tests write and check ------------------------ */

/*
 * A record: "REC <who> <seq> <n> <payload>\n", the payload n letters that
 * depend on who and seq, so a line cut short or glued to another cannot
 * pass for a record.
 */
static size_t record_len(unsigned seq)
{
	/* a few records larger than PIPE_BUF and than a page, the rest short and varied */
	return seq % 7 == 3 ? 8192 + seq % 101 : 10 + (seq * 37u) % 300;
}

static char *record(const char *who, unsigned seq)
{
	size_t n = record_len(seq);
	char *head = t_sprintf("REC %s %u %zu ", who, seq, n);
	size_t hl = strlen(head);
	char *r = malloc(hl + n + 2);

	assert_non_null(r);
	memcpy(r, head, hl);
	for (size_t i = 0; i < n; i++)
		r[hl + i] = (char)('a' + (who[0] + who[1] + seq + i) % 26);
	r[hl + n] = '\n';
	r[hl + n + 1] = '\0';
	free(head);
	return r;
}

/* Whether line (without its "\n") is exactly the record it names; *who and *seq say which. */
static bool parse_record(const char *line, size_t len, char who[16], unsigned *seq)
{
	char *want, *copy = strndup(line, len);
	bool ok;

	assert_non_null(copy);
	ok = sscanf(copy, "REC %15s %u", who, seq) == 2 && strlen(who) >= 2;
	if (ok) {
		want = record(who, *seq);
		ok = strlen(want) == len + 1 && memcmp(want, line, len) == 0;
		free(want);
	}
	free(copy);
	return ok;
}

/* How many digits of an unsigned number, as %u prints it, start at line[*i]; *i moves past them. */
static size_t digits_at(const char *line, size_t len, size_t *i)
{
	size_t start = *i;

	while (*i < len && line[*i] >= '0' && line[*i] <= '9')
		(*i)++;
	/* no leading zero, and no more digits than a round or a seq has */
	if (*i - start > 9 || (*i - start > 1 && line[start] == '0'))
		return SIZE_MAX;
	return *i - start;
}

enum head { HEAD_BAD, HEAD_CUT, HEAD_NAMED };

/*
 * How far line (len bytes, no "\n") gets into a record's header
 * "REC <who> <seq> ": HEAD_NAMED when it names who ("K<round>" or "Zz") and
 * seq followed by a space (*who and *seq say which), HEAD_CUT when it ends
 * before that on a start of such a header, HEAD_BAD for anything else.
 */
static enum head record_head(const char *line, size_t len, char who[16], unsigned *seq)
{
	static const char rec[] = "REC ";
	size_t i = 0, n;

	for (; i < 4; i++) {
		if (i == len)
			return HEAD_CUT;
		if (line[i] != rec[i])
			return HEAD_BAD;
	}
	if (i == len)
		return HEAD_CUT;
	if (line[i] == 'Z') {
		if (++i == len)
			return HEAD_CUT;
		if (line[i++] != 'z')
			return HEAD_BAD;
	} else if (line[i] == 'K') {
		i++;
		if ((n = digits_at(line, len, &i)) == SIZE_MAX)
			return HEAD_BAD;
		if (i == len)
			return HEAD_CUT;
		if (n == 0)
			return HEAD_BAD;
	} else {
		return HEAD_BAD;
	}
	if (i == len)
		return HEAD_CUT;
	if (line[i] != ' ')
		return HEAD_BAD;
	snprintf(who, 16, "%.*s", (int)(i - 4), line + 4);
	i++;
	if ((n = digits_at(line, len, &i)) == SIZE_MAX)
		return HEAD_BAD;
	if (i == len)
		return HEAD_CUT;
	if (n == 0 || line[i] != ' ')
		return HEAD_BAD;
	*seq = (unsigned)strtoul(line + strlen(who) + 5, NULL, 10);
	return HEAD_NAMED;
}

/*
 * A line a crash cut short: a proper, non-empty start of one record and
 * nothing of another after it. A write cut by a kill stops anywhere, in the
 * header as well as in the payload; once the line names who and seq it is
 * byte for byte the start of that record, whose payload holds no "REC ".
 */
static bool torn_record(const char *line, size_t len)
{
	char who[16];
	unsigned seq = 0;
	char *want;
	bool ok;

	switch (record_head(line, len, who, &seq)) {
	case HEAD_CUT:
		return len > 0;
	case HEAD_NAMED:
		want = record(who, seq);
		ok = len < strlen(want) - 1 && memcmp(want, line, len) == 0;
		free(want);
		return ok;
	default:
		return false;
	}
}

/* The checker itself: a record cut anywhere stands alone; two records glued, or a changed one, do not. */
static void a_torn_line_is_a_cut_record_and_nothing_else(void **state)
{
	char *k = record("K151", 3), *z = record("Zz", 0), *head = t_sprintf("REC K151 3 %zu ", record_len(3));
	int kl = (int)strlen(k) - 1, zl = (int)strlen(z) - 1, hl = (int)strlen(head); /* lines without "\n" */
	char *wrong = t_sprintf("%.*s", kl - 1, k);
	struct {
		const char *what;
		char *line;
		bool torn;
	} cases[] = {
		/* cut in the header */
		{"the first byte", t_sprintf("R"), true},
		{"REC", t_sprintf("REC"), true},
		{"REC and a space", t_sprintf("REC "), true},
		{"who cut short", t_sprintf("REC K1"), true},
		{"who", t_sprintf("REC K151"), true},
		{"who and a space", t_sprintf("REC K151 "), true},
		{"seq", t_sprintf("REC K151 3"), true},
		{"the length cut short", t_sprintf("REC K151 3 8"), true},
		{"the other writer's who cut short", t_sprintf("REC Z"), true},
		{"the whole header", t_sprintf("%.*s", hl, k), true},
		/* cut in the payload */
		{"one payload byte", t_sprintf("%.*s", hl + 1, k), true},
		{"all but the last payload byte", t_sprintf("%.*s", kl - 1, k), true},
		{"the other writer's, halfway", t_sprintf("%.*s", zl / 2, z), true},
		/* not a torn record */
		{"an empty line", t_sprintf("%s", ""), false},
		{"a whole record", t_sprintf("%.*s", kl, k), false},
		{"a record glued in its who", t_sprintf("REC K1%.*s", zl, z), false},
		{"a record glued in the payload", t_sprintf("%.*s%.*s", hl + 5, k, zl, z), false},
		{"a header glued after its space", t_sprintf("REC K151 REC Zz 0"), false},
		{"a length the record does not have", t_sprintf("REC K151 3 4"), false},
		{"a round with a leading zero", t_sprintf("REC K0151"), false},
		{"who without a round", t_sprintf("REC K "), false},
		{"a writer the test has not", t_sprintf("REC X1"), false},
		{"a doubled space", t_sprintf("REC  K1"), false},
		{"a seq that is not a number", t_sprintf("REC K1 x"), false},
		{"lower case", t_sprintf("rec K1"), false},
		{"a wrong payload byte", wrong, false},
	};

	(void)state;
	/* the record's start with one payload letter changed */
	assert_memory_equal(k, head, (size_t)hl);
	wrong[hl + 7] = wrong[hl + 7] == 'a' ? 'b' : 'a';
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (torn_record(cases[i].line, strlen(cases[i].line)) != cases[i].torn)
			fail_msg("%s (\"%.40s\"): taken as %s", cases[i].what, cases[i].line,
				 cases[i].torn ? "not torn" : "torn");
		free(cases[i].line);
	}
	/* a whole record is one to parse_record, as a torn one is not */
	{
		char who[16];
		unsigned seq;

		assert_true(parse_record(k, (size_t)kl, who, &seq));
		assert_string_equal(who, "K151");
		assert_int_equal(seq, 3);
		assert_false(parse_record(k, (size_t)kl - 1, who, &seq));
	}
	free(k);
	free(z);
	free(head);
}

/* ---- one process --------------------------------------------------------- */

static void lines_land_whole_and_in_order(void **state)
{
	char *p = t_sprintf("%s/ledger.jsonl", (const char *)*state), *text;
	struct stat st;
	mode_t old = umask(022);

	/* created when missing, readable by others as the repository's files are */
	assert_int_equal(append_s(p, "{\"a\":1}\n", 1000), ROZ_OK);
	umask(old);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(append_s(p, "{\"b\":2}\n", 1000), ROZ_OK);
	/* a lesson may span lines: only the end must be a line end */
	assert_int_equal(append_s(p, "- one\n  two\n", 1000), ROZ_OK);
	text = slurp(p);
	assert_string_equal(text, "{\"a\":1}\n{\"b\":2}\n- one\n  two\n");
	free(text);
	free(p);
}

static void a_torn_tail_is_healed_in_the_same_write(void **state)
{
	char *p = t_sprintf("%s/f", (const char *)*state), *text;

	t_write_file(p, "abc");
	assert_int_equal(append_s(p, "x\n", 1000), ROZ_OK);
	text = slurp(p);
	assert_string_equal(text, "abc\nx\n");
	free(text);
	/* a whole last line is not followed by an empty one */
	assert_int_equal(append_s(p, "y\n", 1000), ROZ_OK);
	text = slurp(p);
	assert_string_equal(text, "abc\nx\ny\n");
	free(text);
	/* an empty file needs no heal */
	t_write_file(p, "");
	assert_int_equal(append_s(p, "z\n", 1000), ROZ_OK);
	text = slurp(p);
	assert_string_equal(text, "z\n");
	free(text);
	free(p);
}

static void a_line_without_its_end_is_refused(void **state)
{
	char *p = t_sprintf("%s/f", (const char *)*state), *text;

	t_write_file(p, "kept\n");
	assert_int_equal(append_s(p, "no end", 1000), ROZ_EINVALID);
	assert_non_null(strstr(roz_error_last(), "newline"));
	assert_int_equal(roz_append_line(p, "x\n", 0, 1000), ROZ_EINVALID);
	assert_int_equal(roz_append_line(p, NULL, 2, 1000), ROZ_EINVALID);
	/* the end must be the line's own last byte, not one past len */
	assert_int_equal(roz_append_line(p, "ab\n", 2, 1000), ROZ_EINVALID);
	text = slurp(p);
	assert_string_equal(text, "kept\n");
	free(text);
	free(p);
}

static void what_is_not_a_regular_file_is_refused_without_blocking(void **state)
{
	const char *d = *state;
	char *fifo = t_sprintf("%s/fifo", d), *link = t_sprintf("%s/link", d);
	char *dangling = t_sprintf("%s/dangling", d), *target = t_sprintf("%s/target", d);
	char *dir = t_sprintf("%s/dir", d), *gone = t_sprintf("%s/gone", d);
	char *nodir = t_sprintf("%s/no/such/dir/f", d), *text;
	struct stat st;

	/* a hang here would be the test's failure: the alarm ends it */
	alarm(20);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(append_s(fifo, "x\n", 1000), ROZ_EINVALID);
	assert_non_null(strstr(roz_error_last(), "not a regular file"));
	/* a link, even to a regular file, is not written through */
	t_write_file(target, "t\n");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(append_s(link, "x\n", 1000), ROZ_EINVALID);
	text = slurp(target);
	assert_string_equal(text, "t\n");
	free(text);
	/* nor does a dangling one create its target */
	assert_int_equal(symlink(gone, dangling), 0);
	assert_int_equal(append_s(dangling, "x\n", 1000), ROZ_EINVALID);
	assert_int_equal(lstat(gone, &st), -1);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(append_s(dir, "x\n", 1000), ROZ_EINVALID);
	/* a device */
	assert_int_equal(append_s("/dev/null", "x\n", 1000), ROZ_EINVALID);
	/* a directory that does not exist is not made */
	assert_int_equal(append_s(nodir, "x\n", 1000), ROZ_EIO);
	assert_non_null(strstr(roz_error_last(), "cannot open"));
	alarm(0);
	free(fifo);
	free(link);
	free(dangling);
	free(target);
	free(dir);
	free(gone);
	free(nodir);
}

/* ---- other processes ----------------------------------------------------- */

static void a_lock_held_elsewhere_is_waited_for_only_so_long(void **state)
{
	char *p = t_sprintf("%s/f", (const char *)*state), *text;
	int ready[2], release[2];
	char c = 0;
	pid_t pid;
	int64_t t0, took;
	int st;

	t_write_file(p, "");
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(release), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(p, O_RDWR);

		close(ready[0]);
		close(release[1]);
		if (fd < 0 || flock(fd, LOCK_EX) < 0)
			_exit(1);
		if (write(ready[1], "L", 1) != 1)
			_exit(1);
		/* hold the lock until the parent closes its end */
		while (read(release[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(release[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	t0 = now_ms();
	assert_int_equal(append_s(p, "late\n", 300), ROZ_ETIMEOUT);
	took = now_ms() - t0;
	assert_true(took >= 300);
	/* about the timeout, however late a loaded machine (or valgrind) wakes the waiter */
	if (took >= 300 + late_ms())
		fail_msg("gave up after %lld ms, with a timeout of 300 ms", (long long)took);
	assert_non_null(strstr(roz_error_last(), "timed out after 300 ms"));
	text = slurp(p);
	assert_string_equal(text, "");
	free(text);
	/* released: the next append goes through */
	close(release[1]);
	st = reap(pid, now_ms() + DEADLINE_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(append_s(p, "now\n", 300), ROZ_OK);
	text = slurp(p);
	assert_string_equal(text, "now\n");
	free(text);
	close(ready[0]);
	free(p);
}

/* Whether process `pid` has `path` open (its /proc/<pid>/fd links). */
static bool has_open(pid_t pid, const char *path)
{
	for (int fd = 0; fd < 64; fd++) {
		char link[64], target[4096];
		ssize_t n;

		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);
		n = readlink(link, target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			if (strcmp(target, path) == 0)
				return true;
		}
	}
	return false;
}

static void a_file_replaced_while_waiting_gets_the_line_in_its_new_self(void **state)
{
	char *p = t_sprintf("%s/f", (const char *)*state), *q = t_sprintf("%s/f.new", (const char *)*state);
	char *text;
	int64_t deadline;
	pid_t pid;
	int fd, st;

	/* what a rewrite does (roz ledger compact): hold the lock, rename a new file over the name, let go */
	t_write_file(p, "old\n");
	fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(append_s(p, "late\n", LOCK_MS) == ROZ_OK ? 0 : 1);
	/* the writer has opened the old file and waits for its lock */
	deadline = now_ms() + DEADLINE_MS;
	while (!has_open(pid, p) && now_ms() < deadline)
		sleep_us(1000);
	assert_true(has_open(pid, p));
	sleep_us(20000);
	t_write_file(q, "kept\n");
	assert_int_equal(rename(q, p), 0);
	assert_int_equal(flock(fd, LOCK_UN), 0);
	st = reap(pid, now_ms() + DEADLINE_MS);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	text = slurp(p);
	assert_string_equal(text, "kept\nlate\n");
	free(text);
	close(fd);
	free(p);
	free(q);
}

/* A child process's work: append records seq 0..n-1 as `who`; exits 0 when all were appended. */
static void append_records(const char *path, const char *who, unsigned n)
{
	for (unsigned seq = 0; seq < n; seq++) {
		char *r = record(who, seq);
		int rc = roz_append_line(path, r, strlen(r), LOCK_MS);

		free(r);
		if (rc != ROZ_OK)
			_exit(10);
	}
	_exit(0);
}

static void parallel_writers_from_two_sessions_keep_every_line_whole(void **state)
{
	unsigned procs = under_valgrind() ? 8 : 64, each = under_valgrind() ? 16 : 64;
	char *p = t_sprintf("%s/agent_trace.jsonl", (const char *)*state), *text;
	pid_t *pids = calloc(procs, sizeof *pids);
	unsigned *next = calloc(procs, sizeof *next), lines = 0;
	int64_t deadline = now_ms() + DEADLINE_MS;
	int go[2];

	assert_non_null(pids);
	assert_non_null(next);
	/* every child waits at the gate, so they all start appending together */
	assert_int_equal(pipe(go), 0);
	for (unsigned i = 0; i < procs; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char who[16], c;

			/* two sessions, each with half of the writers */
			snprintf(who, sizeof who, "%c%02u", i < procs / 2 ? 'A' : 'B', i);
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			append_records(p, who, each);
		}
	}
	close(go[0]);
	close(go[1]);
	for (unsigned i = 0; i < procs; i++) {
		int st = reap(pids[i], deadline);

		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	text = slurp(p);
	for (char *line = text, *eol; *line; line = eol + 1) {
		char who[16];
		unsigned seq, i;

		eol = strchr(line, '\n');
		assert_non_null(eol); /* nothing after the last line end */
		if (!parse_record(line, (size_t)(eol - line), who, &seq))
			fail_msg("line %u is not one writer's whole record: %.60s", lines + 1, line);
		i = (unsigned)atoi(who + 1);
		assert_true(i < procs);
		assert_int_equal(who[0], i < procs / 2 ? 'A' : 'B');
		/* one writer's records land in the order it appended them */
		assert_int_equal(seq, next[i]);
		next[i]++;
		lines++;
	}
	assert_int_equal(lines, procs * each);
	for (unsigned i = 0; i < procs; i++)
		assert_int_equal(next[i], each);
	free(text);
	free(pids);
	free(next);
	free(p);
}

/*
 * A child killed while appending, round after round. Some rounds end in a
 * crash in the middle of a write (half a record under the lock, then
 * SIGKILL), so there are torn tails for the next round to heal; the others
 * are killed at a random moment. Each record the child was told went in is
 * sent to the parent on a pipe.
 */
static void kill_loop_child(const char *path, unsigned round, bool crash, int acks)
{
	char who[16];

	snprintf(who, sizeof who, "K%u", round);
	for (unsigned seq = 0;; seq++) {
		char *r = record(who, seq);

		if (crash && seq == 3) {
			int fd = open(path, O_WRONLY | O_APPEND);

			if (fd < 0 || flock(fd, LOCK_EX) < 0 || write(fd, r, strlen(r) / 2) < 0)
				_exit(1);
			raise(SIGKILL);
		}
		if (roz_append_line(path, r, strlen(r), LOCK_MS) != ROZ_OK)
			_exit(1);
		free(r);
		if (write(acks, &seq, sizeof seq) != (ssize_t)sizeof seq)
			_exit(1);
	}
}

/*
 * The lines of the file: whole records or torn ones standing alone; counts
 * torn lines. found[r] counts round r's whole records below acked[r].
 */
static unsigned check_lines(const char *text, bool last_may_lack_end, unsigned *whole, const unsigned *acked,
			    unsigned *found, unsigned rounds)
{
	unsigned torn = 0, n = 0;

	*whole = 0;
	memset(found, 0, rounds * sizeof *found);
	for (const char *line = text, *eol; *line; line = eol + 1) {
		char who[16];
		unsigned seq;
		size_t len;

		eol = strchr(line, '\n');
		if (!eol) {
			assert_true(last_may_lack_end);
			eol = line + strlen(line) - 1; /* the loop ends on the NUL */
			len = strlen(line);
		} else {
			len = (size_t)(eol - line);
		}
		n++;
		if (parse_record(line, len, who, &seq)) {
			unsigned r = (unsigned)atoi(who + 1);

			(*whole)++;
			if (who[0] == 'K' && r < rounds && seq < acked[r])
				found[r]++;
		} else if (torn_record(line, len)) {
			torn++;
		} else {
			const char *again = len > 1 ? memmem(line + 1, len - 1, "REC ", 4) : NULL;

			if (again)
				fail_msg("line %u is neither a record nor a torn one alone: %.80s ... "
					 "at byte %zd of %zu, a second record: %.60s",
					 n, line, again - line, len, again);
			fail_msg("line %u (%zu bytes) is neither a record nor a torn one alone: %.80s", n, len, line);
		}
	}
	return torn;
}

static void writers_killed_mid_append_never_glue_a_torn_line_to_the_next(void **state)
{
	unsigned rounds = under_valgrind() ? 20 : 200, crashes = 0, whole = 0, torn;
	char *p = t_sprintf("%s/agent_trace.jsonl", (const char *)*state), *text;
	unsigned *acked = calloc(rounds, sizeof *acked), *found = calloc(rounds, sizeof *found);

	assert_non_null(acked);
	assert_non_null(found);
	srand((unsigned)getpid());
	for (unsigned round = 0; round < rounds; round++) {
		bool crash = round % 5 == 4;
		int acks[2], st;
		unsigned seq;
		pid_t pid;

		assert_int_equal(pipe(acks), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(acks[0]);
			kill_loop_child(p, round, crash, acks[1]);
		}
		close(acks[1]);
		if (!crash) {
			sleep_us(rand() % 2001);
			kill(pid, SIGKILL);
		}
		st = reap(pid, now_ms() + DEADLINE_MS);
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		crashes += crash;
		/* the child acknowledges its records in order: the first acked[round] went in */
		while (read(acks[0], &seq, sizeof seq) == (ssize_t)sizeof seq) {
			assert_int_equal(seq, acked[round]);
			acked[round]++;
		}
		close(acks[0]);
	}
	/* the file as the kills left it: at most its last line lacks an end */
	text = slurp(p);
	torn = check_lines(text, true, &whole, acked, found, rounds);
	free(text);
	/* every record the child was told went in is in the file, whole */
	for (unsigned r = 0; r < rounds; r++)
		if (found[r] != acked[r])
			fail_msg("round %u: %u records were appended but %u are whole in the file", r, acked[r],
				 found[r]);
	/* the crashes tore lines, and each was healed onto a line of its own */
	assert_true(torn >= crashes);
	/* one more append: it starts on a fresh line, and every line has its end */
	assert_int_equal(append_s(p, "REC Zz 0 10 ", 1000), ROZ_EINVALID);
	{
		char *r = record("Zz", 0), *last;

		assert_int_equal(roz_append_line(p, r, strlen(r), 1000), ROZ_OK);
		text = slurp(p);
		torn = check_lines(text, false, &whole, acked, found, rounds);
		assert_true(torn >= crashes);
		last = text + strlen(text) - strlen(r);
		assert_string_equal(last, r);
		assert_true(last == text || last[-1] == '\n');
		free(text);
		free(r);
	}
	free(acked);
	free(found);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(lines_land_whole_and_in_order),
		T(a_torn_tail_is_healed_in_the_same_write),
		T(a_line_without_its_end_is_refused),
		T(what_is_not_a_regular_file_is_refused_without_blocking),
		T(a_lock_held_elsewhere_is_waited_for_only_so_long),
		T(a_file_replaced_while_waiting_gets_the_line_in_its_new_self),
		T(parallel_writers_from_two_sessions_keep_every_line_whole),
		T(writers_killed_mid_append_never_glue_a_torn_line_to_the_next),
#undef T
		cmocka_unit_test(a_torn_line_is_a_cut_record_and_nothing_else),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
