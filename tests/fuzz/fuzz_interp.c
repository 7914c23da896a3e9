/*
 * fuzz_interp.c - the interpreter scan behind gates on what a script
 * starts, on arbitrary bytes read as a Bash line: every command the shell
 * reader reports is scanned against the whole line. The scan must stay
 * inside its caps, report an interpreter only by a static name, list
 * non-blank, distinct lines, and answer the same twice.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/interp.h"
#include "roz/shell.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void check_scan(const roz_interp_scan *s)
{
	FUZZ_CHECK(s->nlines <= ROZ_INTERP_LINES_MAX);
	FUZZ_CHECK(s->nlines <= s->cap);
	FUZZ_CHECK(s->nlines == 0 || s->lines != NULL);
	FUZZ_CHECK(!s->whole || s->interpreter);
	FUZZ_CHECK(s->nlines == 0 || s->interpreter);
	FUZZ_CHECK(!s->interpreter || s->interpreter[0]);
	for (size_t i = 0; i < s->nlines; i++) {
		size_t n;

		FUZZ_CHECK(s->lines[i] != NULL);
		n = strlen(s->lines[i]);
		FUZZ_CHECK(n > 0 && n <= ROZ_INTERP_LINE_MAX);
		FUZZ_CHECK(!blank(s->lines[i][0]) && !blank(s->lines[i][n - 1]));
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(s->lines[i], s->lines[j]) != 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roz_shell_result r;
	char *line;

	fuzz_init();
	if (roz_shell_parse((const char *)data, size, &r) != ROZ_OK)
		return 0;
	/* the gate hands over the line as a C string: up to its first NUL */
	line = roz_strndup((const char *)data, size);
	for (size_t i = 0; line && i < r.ncmds; i++) {
		roz_interp_scan a, b;
		int rc = roz_interp_scan_cmd(&r.cmds[i], line, &a);

		if (rc == ROZ_ENOMEM) {
			roz_interp_scan_dispose(&a);
			continue;
		}
		FUZZ_CHECK(rc == ROZ_OK);
		check_scan(&a);
		/* the same command and line scan the same way */
		if (roz_interp_scan_cmd(&r.cmds[i], line, &b) == ROZ_OK) {
			FUZZ_CHECK(a.interpreter == b.interpreter && a.whole == b.whole && a.dynamic == b.dynamic);
			FUZZ_CHECK(a.nlines == b.nlines);
			for (size_t k = 0; k < a.nlines; k++)
				FUZZ_CHECK(strcmp(a.lines[k], b.lines[k]) == 0);
		}
		roz_interp_scan_dispose(&b);
		roz_interp_scan_dispose(&a);
		/* without the line, too */
		if (roz_interp_scan_cmd(&r.cmds[i], NULL, &a) == ROZ_OK)
			check_scan(&a);
		roz_interp_scan_dispose(&a);
	}
	roz_free(line);
	roz_shell_result_dispose(&r);
	return 0;
}
