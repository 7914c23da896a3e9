/*
 * fuzz_session_json.c - the session file reader on arbitrary bytes. Every
 * file roz accepts must save to text that loads again and saves to the very
 * same bytes: otherwise a session would drift, or be moved aside as corrupt,
 * a little more at every hook. A hook reads the same file with its long
 * lists kept as text: it accepts at least what the reader accepts, writes
 * back what it read, and once it parses the lists it holds what the reader
 * holds.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/json.h"
#include "roz/session.h"
#include "roz/session_json.h"

/* The caps a loaded session keeps, whatever the file held. */
static void check_caps(const roz_session *s)
{
	const roz_review_state *r = &s->review;

	FUZZ_CHECK(s->session_id != NULL);
	FUZZ_CHECK(r->n_prompts <= ROZ_MAX_PROMPTS);
	FUZZ_CHECK(r->n_history <= ROZ_MAX_HISTORY);
	FUZZ_CHECK(r->n_attempts <= ROZ_MAX_ATTEMPTS);
	FUZZ_CHECK(r->n_reviewers <= ROZ_MAX_REVIEWER_RUNS);
	for (size_t i = 0; i < s->n_trace; i++) {
		FUZZ_CHECK(s->trace[i].json != NULL);
		FUZZ_CHECK(roz_json_valid(s->trace[i].json, s->trace[i].len));
		FUZZ_CHECK(roz_json_span_is((roz_json_span){s->trace[i].json, s->trace[i].len}, '{'));
	}
}

/* A hook's read of a file the reader accepted, whose whole save is `whole`. */
static void check_lazy(const uint8_t *data, size_t size, const roz_buf *whole)
{
	roz_session *h = NULL, *again = NULL;
	roz_buf saved = ROZ_BUF_INIT, text = ROZ_BUF_INIT;
	int rc = roz_session_json_parse_state((const char *)data, size, &h);

	if (rc == ROZ_ENOMEM)
		return;
	FUZZ_CHECK(rc == ROZ_OK);
	/* saved before parsing anything: a file roz then reads as the reader did */
	FUZZ_CHECK(roz_session_json_write(h, &saved) == ROZ_OK);
	rc = roz_session_json_parse(saved.ptr, saved.len, &again);
	FUZZ_CHECK(rc == ROZ_OK);
	roz_session_free(again);
	rc = roz_session_json_lists_load(h);
	if (rc != ROZ_ENOMEM) {
		FUZZ_CHECK(rc == ROZ_OK);
		FUZZ_CHECK(roz_session_json_write(h, &text) == ROZ_OK);
		if (text.len != whole->len || memcmp(text.ptr, whole->ptr, text.len) != 0) {
			fprintf(stderr, "reader's save: %s\nhook's save:   %s\n", whole->ptr, text.ptr);
			FUZZ_CHECK(!"a hook's read, its lists parsed, saves otherwise than the reader's");
		}
	}
	roz_buf_dispose(&saved);
	roz_buf_dispose(&text);
	roz_session_free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	roz_session *s = NULL, *s2 = NULL;
	roz_buf first = ROZ_BUF_INIT, second = ROZ_BUF_INIT;
	int rc;

	fuzz_init();
	rc = roz_session_json_parse((const char *)data, size, &s);
	if (rc == ROZ_ENOMEM)
		return 0;
	FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_ECORRUPT);
	FUZZ_CHECK((rc == ROZ_OK) == (s != NULL));
	if (rc != ROZ_OK)
		return 0;
	check_caps(s);

	FUZZ_CHECK(roz_session_json_write(s, &first) == ROZ_OK);
	FUZZ_CHECK(roz_json_valid(first.ptr, first.len));
	/* what roz writes, roz must read */
	rc = roz_session_json_parse(first.ptr, first.len, &s2);
	FUZZ_CHECK(rc == ROZ_OK);
	check_caps(s2);
	FUZZ_CHECK(roz_session_json_write(s2, &second) == ROZ_OK);
	if (first.len != second.len || memcmp(first.ptr, second.ptr, first.len) != 0) {
		fprintf(stderr, "first save:  %s\nsecond save: %s\n", first.ptr, second.ptr);
		FUZZ_CHECK(!"a saved session does not save to the same text after loading");
	}

	check_lazy(data, size, &first);

	roz_buf_dispose(&first);
	roz_buf_dispose(&second);
	roz_session_free(s);
	roz_session_free(s2);
	return 0;
}
