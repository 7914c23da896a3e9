/*
 * fuzz_verify.c - roz ledger verify's engine on arbitrary bytes as the
 * ledger, against a small fixed table of files (one unreadable, one empty,
 * one without a final newline). Whatever the ledger holds, the run
 * succeeds; the counts add up to the items; every item names a record
 * line, a state and, when moved, a place of the same length inside a file
 * that exists; reasons are given only for missing files; the lines that
 * are not records are in order and say why. Run again with a revision as
 * --since, the run checks no more ranges and reads the same lines.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/verify.h"

static const struct {
	const char *path;
	const char *text;
	unsigned long lines;
} files[] = {
	{"a.c", "int a;\nint b;\n{\n}\nint a;\nint b;\n", 6},
	{"b.c", "{\n}\nint c;\n", 3},
	{"empty.c", "", 0},
	{"noeol.c", "x\r\ny", 2},
	{"locked.c", NULL, 0},
};

#define NFILES (sizeof files / sizeof files[0])

static int read_table(void *ud, const char *path, char **text, size_t *len)
{
	(void)ud;
	for (size_t i = 0; i < NFILES; i++) {
		if (strcmp(files[i].path, path) != 0)
			continue;
		if (!files[i].text) {
			roz_error_set("cannot open: permission denied");
			return ROZ_EIO;
		}
		if (!(*text = roz_strdup(files[i].text)))
			return ROZ_ENOMEM;
		*len = strlen(files[i].text);
		return ROZ_OK;
	}
	return ROZ_ENOTFOUND;
}

static long table_index(const char *path)
{
	for (size_t i = 0; i < NFILES; i++)
		if (strcmp(files[i].path, path) == 0)
			return (long)i;
	return -1;
}

static void check(const roz_verify_report *r, size_t lines)
{
	size_t sum = 0, last = 0;

	for (int s = ROZ_VERIFY_INTACT; s <= ROZ_VERIFY_SUPERSEDED; s++)
		sum += r->counts[s];
	FUZZ_CHECK(sum == r->n);
	FUZZ_CHECK(r->n <= r->cap);
	for (size_t i = 0; i < r->n; i++) {
		const roz_verify_item *it = &r->items[i];
		long f;

		FUZZ_CHECK(it->path && it->record_id);
		FUZZ_CHECK(it->line >= 1 && it->line <= lines && it->line >= last);
		last = it->line;
		FUZZ_CHECK((unsigned)it->state <= ROZ_VERIFY_SUPERSEDED);
		FUZZ_CHECK(!it->why || it->state == ROZ_VERIFY_MISSING);
		FUZZ_CHECK(!it->moved_path == (it->state != ROZ_VERIFY_MOVED));
		f = table_index(it->path);
		switch (it->state) {
		case ROZ_VERIFY_INTACT:
			FUZZ_CHECK(f >= 0 && files[f].text);
			FUZZ_CHECK(it->start_line >= 1 && it->start_line <= it->end_line &&
				   it->end_line <= files[f].lines);
			break;
		case ROZ_VERIFY_MISSING:
			FUZZ_CHECK(f < 0 || !files[f].text);
			FUZZ_CHECK(!it->why == (f < 0));
			break;
		case ROZ_VERIFY_MOVED: {
			long m = table_index(it->moved_path);

			FUZZ_CHECK(m >= 0 && files[m].text);
			FUZZ_CHECK(it->moved_start >= 1 && it->moved_start <= it->moved_end &&
				   it->moved_end <= files[m].lines);
			FUZZ_CHECK(it->moved_end - it->moved_start == it->end_line - it->start_line);
			FUZZ_CHECK(m != f || it->moved_start != it->start_line);
			break;
		}
		default:
			break;
		}
	}
	last = 0;
	for (size_t i = 0; i < r->nbad; i++) {
		FUZZ_CHECK(r->bad[i].line > last && r->bad[i].line <= lines);
		FUZZ_CHECK(r->bad[i].why && r->bad[i].why[0]);
		last = r->bad[i].line;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	roz_verify_report all, since;
	size_t lines = 0;

	fuzz_init();
	for (size_t i = 0; i < size; i++)
		if (data[i] == '\n')
			lines++;
	if (size && data[size - 1] != '\n')
		lines++;
	FUZZ_CHECK(roz_verify_run(text, size, NULL, read_table, NULL, &all) == ROZ_OK);
	check(&all, lines);
	FUZZ_CHECK(!all.since_found);
	FUZZ_CHECK(roz_verify_run(text, size, "abc", read_table, NULL, &since) == ROZ_OK);
	check(&since, lines);
	FUZZ_CHECK(since.n <= all.n && since.records == all.records && since.nbad == all.nbad);
	FUZZ_CHECK(since.since_found || since.n == 0);
	roz_verify_report_dispose(&all);
	roz_verify_report_dispose(&since);
	return 0;
}
