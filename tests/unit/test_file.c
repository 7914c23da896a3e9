/*
 * test_file.c - reading a file to its end through a descriptor: the whole
 * text however it arrives, the size limit, a hint that lies, a failed read
 * and memory running out.
 */
#include "support.h"

#include "roz/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fixture {
	char *dir;
	char *path;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = t_mkdtemp();
	f->path = t_sprintf("%s/file", f->dir);
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

/* `n` bytes that differ from their neighbours, so a lost or repeated block shows. */
static char *pattern(size_t n)
{
	char *p = malloc(n + 1);

	for (size_t i = 0; i < n; i++)
		p[i] = (char)('a' + (i * 7 + i / 4096) % 26);
	p[n] = '\0';
	return p;
}

static int open_with(const fixture *f, const char *text)
{
	int fd;

	t_write_file(f->path, text);
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static void test_whole_file_with_and_without_hint(void **state)
{
	fixture *f = *state;
	char *want = pattern(200000), *text;
	size_t len, hints[] = {0, 200000, 10, 1 << 20};

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		int fd = open_with(f, want);

		text = NULL;
		len = 0;
		assert_int_equal(roz_file_read_fd(fd, hints[i], 1 << 20, &text, &len), ROZ_OK);
		close(fd);
		assert_int_equal(len, 200000);
		assert_int_equal(strlen(text), len);
		assert_memory_equal(text, want, len);
		roz_free(text);
	}
	free(want);
}

static void test_empty_file_is_an_empty_string(void **state)
{
	fixture *f = *state;
	int fd = open_with(f, "");
	char *text = NULL;
	size_t len = 99;

	assert_int_equal(roz_file_read_fd(fd, 0, 100, &text, &len), ROZ_OK);
	close(fd);
	assert_non_null(text);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	roz_free(text);
}

static void test_limit(void **state)
{
	fixture *f = *state;
	char *at = pattern(5000), *over = pattern(5001), *text;
	size_t len = 0;
	int fd;

	fd = open_with(f, at);
	assert_int_equal(roz_file_read_fd(fd, 0, 5000, &text, &len), ROZ_OK);
	close(fd);
	assert_int_equal(len, 5000);
	roz_free(text);

	fd = open_with(f, over);
	text = (char *)"untouched";
	assert_int_equal(roz_file_read_fd(fd, 5001, 5000, &text, &len), ROZ_EINVALID);
	close(fd);
	assert_null(text);
	assert_non_null(strstr(roz_error_last(), "larger than 5000 bytes"));
	free(at);
	free(over);
}

/* A size from fstat is only a hint: one far beyond the limit must not be allocated. */
static void test_hint_beyond_limit_is_not_believed(void **state)
{
	fixture *f = *state;
	int fd = open_with(f, "small");
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(roz_file_read_fd(fd, SIZE_MAX / 2, 1024, &text, &len), ROZ_OK);
	close(fd);
	assert_string_equal(text, "small");
	roz_free(text);
}

static void test_pipe_read_to_its_end(void **state)
{
	char *want = pattern(30000), *text = NULL;
	size_t len = 0;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	/* fits the pipe's buffer, so the writer is done before the reader starts */
	assert_int_equal(write(p[1], want, 30000), 30000);
	close(p[1]);
	assert_int_equal(roz_file_read_fd(p[0], 0, 1 << 20, &text, &len), ROZ_OK);
	close(p[0]);
	assert_int_equal(len, 30000);
	assert_memory_equal(text, want, len);
	roz_free(text);
	free(want);
}

static void test_failed_read_keeps_errno(void **state)
{
	fixture *f = *state;
	char *text = (char *)"untouched";
	size_t len = 0;
	int fd;

	t_write_file(f->path, "text");
	fd = open(f->path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	errno = 0;
	assert_int_equal(roz_file_read_fd(fd, 0, 100, &text, &len), ROZ_EIO);
	assert_int_equal(errno, EBADF);
	close(fd);
	assert_null(text);
}

static void test_out_of_memory_at_every_allocation(void **state)
{
	fixture *f = *state;
	char *want = pattern(70000);
	long n;
	int rc;

	for (n = 0;; n++) {
		int fd = open_with(f, want);
		char *text = (char *)"untouched";
		size_t len = 0;

		roz_alloc_fail_after(n);
		rc = roz_file_read_fd(fd, 0, 1 << 20, &text, &len);
		roz_alloc_fail_after(-1);
		close(fd);
		if (rc == ROZ_OK) {
			assert_memory_equal(text, want, 70000);
			roz_free(text);
			break;
		}
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_null(text);
		assert_true(n < 100);
	}
	assert_true(n > 0);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_whole_file_with_and_without_hint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_file_is_an_empty_string, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_beyond_limit_is_not_believed, setup, teardown),
		cmocka_unit_test(test_pipe_read_to_its_end),
		cmocka_unit_test_setup_teardown(test_failed_read_keeps_errno, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_memory_at_every_allocation, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
