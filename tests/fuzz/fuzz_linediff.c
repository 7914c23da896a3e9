/*
 * fuzz_linediff.c - the lines a change added (roz/linediff.h) and the
 * ledger ranges made of them, on arbitrary text. The input is split at its
 * first NUL into the text before and the text after (no NUL: after is the
 * input with its first half's lines shuffled into before). Whatever the
 * bytes: the spans are sorted, disjoint, not touching and within the new
 * text's lines; the new text's lines outside them, in order, are a
 * subsequence of the old text's lines (what the change kept); a text
 * against itself adds nothing; the ranges hash lines that exist. Input that
 * parses as JSON is also read as a file tool's tool_response: the ranges
 * its patch gives are sorted, in bounds, and none when it is not used.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/linediff.h"

typedef struct span_line {
	const char *p;
	size_t len;
} span_line;

/* Line `no` (1-based) of text: its start and length without "\n". */
static span_line line_at(const char *text, size_t len, unsigned long no)
{
	span_line l = {text, 0};
	unsigned long at = 1;
	const char *p = text, *end = text + len;

	while (at < no && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl) {
			p = end;
			break;
		}
		p = nl + 1;
		at++;
	}
	l.p = p;
	{
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		l.len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	}
	return l;
}

static void check(const char *a, size_t alen, const char *b, size_t blen)
{
	roz_line_span *s = NULL;
	size_t n = 0, k = 0;
	unsigned long nb = roz_ledger_line_count(b, blen), na = roz_ledger_line_count(a, alen), x = 1;
	roz_ledger_ranges r;
	bool found;

	FUZZ_CHECK(roz_line_diff_added(a, alen, b, blen, &s, &n) == ROZ_OK);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(s[i].start >= 1 && s[i].start <= s[i].end && s[i].end <= nb);
		FUZZ_CHECK(i == 0 || s[i].start > s[i - 1].end + 1);
	}
	/* what is not added is kept: a subsequence of the old lines */
	for (unsigned long y = 1; y <= nb; y++) {
		span_line l;

		while (k < n && s[k].end < y)
			k++;
		if (k < n && y >= s[k].start)
			continue;
		l = line_at(b, blen, y);
		found = false;
		while (!found && x <= na) {
			span_line o = line_at(a, alen, x++);

			found = o.len == l.len && memcmp(o.p, l.p, l.len) == 0;
		}
		FUZZ_CHECK(found); /* else a kept line the old text never had, or not in its order */
	}
	roz_free(s);
	FUZZ_CHECK(roz_ledger_ranges_of_change(a, alen, b, blen, &r) == ROZ_OK);
	for (size_t i = 0; i < r.n; i++)
		FUZZ_CHECK(r.items[i].end_line <= nb && strlen(r.items[i].hash) == 64);
	roz_ledger_ranges_dispose(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(text, '\0', size);
	roz_line_span *s = NULL;
	size_t n = 0;

	fuzz_init();
	if (nul) {
		check(text, (size_t)(nul - text), nul + 1, size - (size_t)(nul - text) - 1);
	} else {
		/* the first half's lines dropped, the second half kept: a deletion, then the reverse */
		check(text, size, text + size / 2, size - size / 2);
		check(text + size / 2, size - size / 2, text, size);
	}
	FUZZ_CHECK(roz_line_diff_added(text, size, text, size, &s, &n) == ROZ_OK);
	FUZZ_CHECK(n == 0);
	roz_free(s);
	{
		static const char content[] = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
		cJSON *resp = NULL;
		roz_ledger_ranges r;
		bool used;

		if (roz_json_parse(text, size, &resp) == ROZ_OK) {
			FUZZ_CHECK(roz_ledger_ranges_of_patch(resp, content, sizeof content - 1, &r, &used) == ROZ_OK);
			FUZZ_CHECK(used || r.n == 0);
			for (size_t i = 0; i < r.n; i++) {
				FUZZ_CHECK(r.items[i].start_line >= 1 && r.items[i].start_line <= r.items[i].end_line &&
					   r.items[i].end_line <= 10);
				FUZZ_CHECK(i == 0 || r.items[i].start_line > r.items[i - 1].end_line);
			}
			roz_ledger_ranges_dispose(&r);
			cJSON_Delete(resp);
		}
	}
	return 0;
}
