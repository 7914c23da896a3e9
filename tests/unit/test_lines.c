/*
 * test_lines.c - a file read line by line: every line, with its offset and
 * whether it ended, whatever the size of the blocks it is read in; lines
 * too long to keep; a last line without "\n"; reading a line again by its
 * offset; what is not a regular file refused without blocking; memory
 * running out.
 */
#include "support.h"

#include "roz/lines.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fixture {
	char *dir;
	char *path;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = t_mkdtemp();
	f->path = t_sprintf("%s/agent_trace.jsonl", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	roz_alloc_fail_after(-1);
	t_rmtree(f->dir);
	free(f->dir);
	free(f->path);
	free(f);
	return 0;
}

/* Write `len` bytes, NULs included. */
static void put_bytes(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static void add_bytes(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "ab");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/*
 * Read `path` with blocks of `block` bytes (0: the default) and check every
 * line against `text` split at "\n" by hand: the bytes (or NULL beyond
 * max_line), the length, the offset, whether it ended, and the NUL after it.
 */
static void check_against(const char *path, const char *text, size_t len, size_t max_line, size_t block)
{
	roz_lines *l = NULL;
	size_t at = 0, lines = 0;

	assert_int_equal(roz_lines_open(path, max_line, &l), ROZ_OK);
	if (block)
		roz_lines_set_block(l, block);
	assert_int_equal(roz_lines_size(l), len);
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t want = nl ? (size_t)(nl - (text + at)) : len - at;
		const char *line = (const char *)"untouched";
		size_t n = 0;
		uint64_t offset = 0;
		bool ended = !nl;

		assert_int_equal(roz_lines_next(l, &line, &n, &offset, &ended), ROZ_OK);
		assert_int_equal(n, want);
		assert_int_equal(offset, at);
		assert_int_equal(ended, nl != NULL);
		if (want > max_line) {
			assert_null(line);
		} else {
			assert_non_null(line);
			assert_memory_equal(line, text + at, want);
			assert_int_equal(line[want], '\0');
		}
		at += want + (nl ? 1 : 0);
		lines++;
	}
	for (int i = 0; i < 2; i++) {
		const char *line = (const char *)"untouched";
		size_t n = 7;
		uint64_t offset = 7;
		bool ended = true;

		assert_int_equal(roz_lines_next(l, &line, &n, &offset, &ended), ROZ_ENOTFOUND);
		assert_null(line);
		assert_int_equal(n, 0);
	}
	roz_lines_close(l);
	assert_true(lines > 0 || len == 0);
}

/* Lines of every length from 0 to 40, a "\r\n", NULs inside, and a last line without "\n". */
static char *mixed_text(size_t *len)
{
	roz_buf b = ROZ_BUF_INIT;

	for (size_t n = 0; n <= 40; n++) {
		for (size_t i = 0; i < n; i++)
			roz_buf_addc(&b, (char)('a' + (n + i) % 26));
		roz_buf_adds(&b, "\n");
	}
	roz_buf_adds(&b, "\n\n{\"crlf\":true}\r\n");
	roz_buf_add(&b, "nul\0inside\0\n", 12);
	roz_buf_adds(&b, "torn tail {\"id\":");
	assert_int_equal(roz_buf_failed(&b), ROZ_OK);
	return roz_buf_detach(&b, len);
}

static void test_every_block_boundary(void **state)
{
	fixture *f = *state;
	size_t len = 0;
	char *text = mixed_text(&len);

	put_bytes(f->path, text, len);
	/* each block size puts the ends of blocks at other places in the lines */
	for (size_t block = 1; block <= 50; block++) {
		check_against(f->path, text, len, 1000, block);
		/* lines of more than 20 bytes are skipped, whether they span blocks or not */
		check_against(f->path, text, len, 20, block);
		check_against(f->path, text, len, 0, block);
	}
	check_against(f->path, text, len, 1000, 0);
	check_against(f->path, text, len, 20, 0);
	roz_free(text);
}

static void test_crlf_and_nul_stay_in_the_line(void **state)
{
	fixture *f = *state;
	roz_lines *l = NULL;
	const char *line;
	size_t n;
	uint64_t off;
	bool ended;

	put_bytes(f->path, "a\r\nb\0c\n", 7);
	assert_int_equal(roz_lines_open(f->path, 100, &l), ROZ_OK);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_OK);
	assert_int_equal(n, 2);
	assert_memory_equal(line, "a\r", 2);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_OK);
	assert_int_equal(n, 3);
	assert_int_equal(off, 3);
	assert_memory_equal(line, "b\0c", 3);
	assert_true(ended);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_ENOTFOUND);
	roz_lines_close(l);
}

static void test_empty_file_and_lone_newline(void **state)
{
	fixture *f = *state;
	roz_lines *l = NULL;
	const char *line;
	size_t n;
	uint64_t off;
	bool ended;

	put_bytes(f->path, "", 0);
	assert_int_equal(roz_lines_open(f->path, 100, &l), ROZ_OK);
	assert_int_equal(roz_lines_size(l), 0);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_ENOTFOUND);
	roz_lines_close(l);

	put_bytes(f->path, "\n", 1);
	assert_int_equal(roz_lines_open(f->path, 100, &l), ROZ_OK);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_OK);
	assert_non_null(line);
	assert_int_equal(n, 0);
	assert_int_equal(off, 0);
	assert_true(ended);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_ENOTFOUND);
	roz_lines_close(l);
}

static void test_last_line_without_newline(void **state)
{
	fixture *f = *state;
	roz_lines *l = NULL;
	const char *line;
	size_t n;
	uint64_t off;
	bool ended;

	put_bytes(f->path, "{\"a\":1}\n{\"b\":", 13);
	assert_int_equal(roz_lines_open(f->path, 100, &l), ROZ_OK);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_OK);
	assert_string_equal(line, "{\"a\":1}");
	assert_true(ended);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_OK);
	assert_string_equal(line, "{\"b\":");
	assert_int_equal(off, 8);
	assert_false(ended);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_ENOTFOUND);
	roz_lines_close(l);
}

/* Lines longer than a whole block of the default size, kept and skipped, around short ones. */
static void test_lines_longer_than_a_block(void **state)
{
	fixture *f = *state;
	size_t big = 3u * 1024u * 1024u + 17u, len = 0;
	roz_buf b = ROZ_BUF_INIT;
	char *text;

	roz_buf_adds(&b, "{\"first\":1}\n");
	for (size_t i = 0; i < big; i++)
		roz_buf_addc(&b, (char)('A' + i % 23));
	roz_buf_adds(&b, "\n{\"after\":2}\n");
	for (size_t i = 0; i < big; i++)
		roz_buf_addc(&b, (char)('a' + i % 19));
	assert_int_equal(roz_buf_failed(&b), ROZ_OK);
	text = roz_buf_detach(&b, &len);
	put_bytes(f->path, text, len);

	check_against(f->path, text, len, 4u * 1024u * 1024u, 0); /* kept across four blocks */
	check_against(f->path, text, len, 1024, 0);               /* skipped */
	check_against(f->path, text, len, 1024, 4096);
	roz_free(text);
}

static void test_line_read_again_by_offset(void **state)
{
	fixture *f = *state;
	roz_lines *l = NULL;
	const char *line, *again;
	size_t n, lens[3];
	uint64_t off, offs[3];
	bool ended;

	put_bytes(f->path, "one\ntwo two\n\nthree", 18);
	assert_int_equal(roz_lines_open(f->path, 8, &l), ROZ_OK);
	roz_lines_set_block(l, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_OK);
		offs[i] = off;
		lens[i] = n;
	}
	assert_non_null(line); /* the empty line, kept */
	assert_int_equal(lens[2], 0);
	assert_int_equal(roz_lines_at(l, offs[0], lens[0], &again), ROZ_OK);
	assert_string_equal(again, "one");
	assert_int_equal(roz_lines_at(l, offs[2], lens[2], &again), ROZ_OK);
	assert_string_equal(again, "");
	/* "two two" is 7 bytes, within max_line */
	assert_int_equal(roz_lines_at(l, offs[1], lens[1], &again), ROZ_OK);
	assert_string_equal(again, "two two");
	/* reading again does not move the stream */
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_OK);
	assert_string_equal(line, "three");
	assert_false(ended);
	/* more than max_line is refused, not read */
	assert_int_equal(roz_lines_at(l, 0, 9, &again), ROZ_EINVALID);
	assert_null(again);
	/* past the end of the file (it shrank since): an I/O error, not a short line */
	assert_int_equal(roz_lines_at(l, 15, 5, &again), ROZ_EIO);
	assert_non_null(strstr(roz_error_last(), "shorter than when it was opened"));
	roz_lines_close(l);
}

/* Records appended after the open are not read: the reader sees the file as it was. */
static void test_reads_the_file_as_opened(void **state)
{
	fixture *f = *state;
	roz_lines *l = NULL;
	const char *line;
	size_t n;
	uint64_t off;
	bool ended;

	put_bytes(f->path, "{\"a\":1}\n", 8);
	assert_int_equal(roz_lines_open(f->path, 100, &l), ROZ_OK);
	add_bytes(f->path, "{\"b\":2}\n", 8);
	assert_int_equal(roz_lines_size(l), 8);
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_OK);
	assert_string_equal(line, "{\"a\":1}");
	assert_int_equal(roz_lines_next(l, &line, &n, &off, &ended), ROZ_ENOTFOUND);
	roz_lines_close(l);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("opening a FIFO blocked");
}

static void test_fifo_refused_without_blocking(void **state)
{
	fixture *f = *state;
	roz_lines *l = (roz_lines *)&l;

	assert_int_equal(mkfifo(f->path, 0600), 0);
	/* no writer ever opens it: a blocking open would wait forever */
	signal(SIGALRM, on_alarm);
	alarm(10);
	assert_int_equal(roz_lines_open(f->path, 100, &l), ROZ_EINVALID);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	assert_null(l);
	assert_non_null(strstr(roz_error_last(), "not a regular file"));
	assert_non_null(strstr(roz_error_last(), f->path));
}

static void test_directory_refused(void **state)
{
	fixture *f = *state;
	roz_lines *l = (roz_lines *)&l;

	assert_int_equal(roz_lines_open(f->dir, 100, &l), ROZ_EINVALID);
	assert_null(l);
	assert_non_null(strstr(roz_error_last(), "not a regular file"));
}

static void test_missing_file(void **state)
{
	fixture *f = *state;
	roz_lines *l = (roz_lines *)&l;
	char *under = t_sprintf("%s/x", f->path);

	assert_int_equal(roz_lines_open(f->path, 100, &l), ROZ_ENOTFOUND);
	assert_null(l);
	assert_non_null(strstr(roz_error_last(), "no such file"));
	/* a file where a directory was expected is as missing */
	put_bytes(f->path, "x\n", 2);
	assert_int_equal(roz_lines_open(under, 100, &l), ROZ_ENOTFOUND);
	assert_null(l);
	free(under);
}

static void test_unreadable_file(void **state)
{
	fixture *f = *state;
	roz_lines *l = (roz_lines *)&l;

	if (geteuid() == 0)
		skip(); /* root reads it anyway */
	put_bytes(f->path, "x\n", 2);
	assert_int_equal(chmod(f->path, 0), 0);
	assert_int_equal(roz_lines_open(f->path, 100, &l), ROZ_EIO);
	assert_null(l);
	assert_non_null(strstr(roz_error_last(), "cannot open"));
}

/* Every allocation failing in turn: ROZ_ENOMEM, then, given memory, every line. */
static void test_out_of_memory_at_every_allocation(void **state)
{
	fixture *f = *state;
	size_t len = 0;
	char *text = mixed_text(&len);
	long n;

	put_bytes(f->path, text, len);
	for (n = 0;; n++) {
		roz_lines *l = NULL;
		const char *line = NULL;
		size_t got = 0, lines = 0;
		uint64_t off;
		bool ended;
		int rc;

		roz_alloc_fail_after(n);
		rc = roz_lines_open(f->path, 30, &l);
		if (rc == ROZ_OK) {
			roz_lines_set_block(l, 7);
			while ((rc = roz_lines_next(l, &line, &got, &off, &ended)) == ROZ_OK)
				lines++;
			if (rc == ROZ_ENOTFOUND)
				rc = roz_lines_at(l, 0, 0, &line);
		}
		roz_alloc_fail_after(-1);
		roz_lines_close(l);
		if (rc == ROZ_OK) {
			assert_int_equal(lines, 41 + 2 + 3);
			break;
		}
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_true(n < 100);
	}
	assert_true(n > 2);
	roz_free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_block_boundary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crlf_and_nul_stay_in_the_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_file_and_lone_newline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_line_without_newline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lines_longer_than_a_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_read_again_by_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reads_the_file_as_opened, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_refused_without_blocking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_memory_at_every_allocation, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
