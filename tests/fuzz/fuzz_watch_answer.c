/*
 * fuzz_watch_answer.c - what a hook reads from the socket it takes for the
 * repository's watcher (roz/watch.h): anything at all, from a watcher of
 * another version, a stranger bound to the name, or a torn write. An
 * answer that parses must hold what the picked walk relies on (non-empty,
 * NUL-terminated paths inside the text, strictly sorted, a count no larger
 * than the text, no picks when it does not know); one that does not parse
 * leaves the text the caller's and the answer empty.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/watch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roz_watch_answer a;
	char *text;
	int rc;

	fuzz_init();
	if (!(text = roz_malloc(size + 1)))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = roz_watch_answer_parse(text, size, &a);
	FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_EIO || rc == ROZ_ENOMEM);
	if (rc != ROZ_OK) {
		FUZZ_CHECK(a.picks == NULL && a.n == 0 && a.pool == NULL);
		roz_free(text);
		return 0;
	}
	FUZZ_CHECK(a.pool == text);
	FUZZ_CHECK(a.known || a.n == 0);
	FUZZ_CHECK(a.n <= size);
	for (size_t i = 0; i < a.n; i++) {
		const char *p = a.picks[i].path;

		FUZZ_CHECK(p > text && p < text + size);
		FUZZ_CHECK(p[0] != '\0' && p + strlen(p) < text + size);
		FUZZ_CHECK(i == 0 || strcmp(a.picks[i - 1].path, p) < 0);
	}
	roz_watch_answer_dispose(&a);
	return 0;
}
