/*
 * test_session_gov.c - a session's governance state: the selection, the
 * files it remembers, its limits, and the "governance" object in the
 * session file, which must read back exactly and never be written for a
 * session governance did not touch.
 */
#include "support.h"

#include "roz/session_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HASH_B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static roz_session *fresh(void)
{
	roz_session *s = NULL;

	assert_int_equal(roz_session_new("gov-1", roz_time_make(1767225600, 0), &s), ROZ_OK);
	return s;
}

static char *written(const roz_session *s)
{
	roz_buf b = ROZ_BUF_INIT;

	assert_int_equal(roz_session_json_write(s, &b), ROZ_OK);
	return roz_buf_detach(&b, NULL);
}

static roz_session *read_back(const char *text)
{
	roz_session *s = NULL;

	assert_int_equal(roz_session_json_parse(text, strlen(text), &s), ROZ_OK);
	return s;
}

static void untouched_session_has_no_governance_object(void **state)
{
	roz_session *s = fresh();
	char *text = written(s);

	assert_null(strstr(text, "governance"));
	roz_free(text);
	roz_session_free(s);
}

static void selection_and_files_read_back(void **state)
{
	roz_session *s = fresh(), *r;
	roz_time now = roz_time_make(1767225700, 500000000);
	char *text, *again;

	assert_int_equal(roz_session_gov_select(&s->gov, "INT-001", true, now), ROZ_OK);
	assert_int_equal(roz_session_gov_remember(&s->gov, "/repo/src/a.c", HASH_A, now), ROZ_OK);
	assert_int_equal(roz_session_gov_remember(&s->gov, "/repo/src/\"odd\" b.c", HASH_B, now), ROZ_OK);
	s->gov.denials = 2;
	s->gov.escalations = 1;
	s->gov.phase = ROZ_GOV_BLOCKED;
	s->gov.last_code = roz_strdup("SCOPE_VIOLATION");
	text = written(s);
	assert_non_null(strstr(text, "\"governance\":{\"state\":\"blocked\",\"intent_id\":\"INT-001\""));
	r = read_back(text);
	assert_true(r->gov.present);
	assert_int_equal(r->gov.phase, ROZ_GOV_BLOCKED);
	assert_string_equal(r->gov.intent_id, "INT-001");
	assert_true(r->gov.refactor);
	assert_true(r->gov.selected_at.set);
	assert_int_equal(roz_time_cmp(r->gov.selected_at.t, now), 0);
	assert_int_equal(r->gov.denials, 2);
	assert_int_equal(r->gov.escalations, 1);
	assert_string_equal(r->gov.last_code, "SCOPE_VIOLATION");
	assert_int_equal(r->gov.n_files, 2);
	assert_string_equal(roz_session_gov_file(&r->gov, "/repo/src/\"odd\" b.c")->hash, HASH_B);
	/* written again, the same text: nothing is lost or reordered */
	again = written(r);
	assert_string_equal(text, again);
	roz_free(text);
	roz_free(again);
	roz_session_free(r);
	roz_session_free(s);
}

static void selecting_resets_refusals_in_a_row(void **state)
{
	roz_session_gov g;

	memset(&g, 0, sizeof g);
	g.denials = 3;
	g.phase = ROZ_GOV_BLOCKED;
	assert_int_equal(roz_session_gov_select(&g, "INT-002", false, roz_time_make(5, 0)), ROZ_OK);
	assert_int_equal(g.denials, 0);
	assert_int_equal(g.phase, ROZ_GOV_CONTEXT_LOADED);
	assert_true(g.present);
	assert_int_equal(roz_session_gov_select(&g, "", false, roz_time_make(5, 0)), ROZ_EINVALID);
	assert_int_equal(roz_session_gov_select(&g, "bad\xff", false, roz_time_make(5, 0)), ROZ_EINVALID);
	assert_string_equal(g.intent_id, "INT-002");
	roz_session_gov_dispose(&g);
}

static void remembering_keeps_the_newest_within_the_limit(void **state)
{
	roz_session_gov g;
	char path[64];

	memset(&g, 0, sizeof g);
	for (unsigned i = 0; i < ROZ_GOV_MAX_FILES + 10; i++) {
		snprintf(path, sizeof path, "/r/f%u", i);
		assert_int_equal(roz_session_gov_remember(&g, path, HASH_A, roz_time_make(i, 0)), ROZ_OK);
		/* f0 is seen again and again: it stays */
		assert_int_equal(roz_session_gov_remember(&g, "/r/f0", HASH_B, roz_time_make(i, 0)), ROZ_OK);
	}
	assert_int_equal(g.n_files, ROZ_GOV_MAX_FILES);
	assert_non_null(roz_session_gov_file(&g, "/r/f0"));
	assert_string_equal(roz_session_gov_file(&g, "/r/f0")->hash, HASH_B);
	assert_null(roz_session_gov_file(&g, "/r/f1"));
	assert_non_null(roz_session_gov_file(&g, "/r/f520"));
	roz_session_gov_forget(&g, "/r/f520");
	assert_null(roz_session_gov_file(&g, "/r/f520"));
	assert_int_equal(g.n_files, ROZ_GOV_MAX_FILES - 1);
	roz_session_gov_dispose(&g);
}

/* What could not be read back is refused before it is stored. */
static void unstorable_files_are_refused(void **state)
{
	roz_session_gov g;

	memset(&g, 0, sizeof g);
	assert_int_equal(roz_session_gov_remember(&g, "/r/bad\xff", HASH_A, roz_time_make(1, 0)), ROZ_EINVALID);
	assert_int_equal(roz_session_gov_remember(&g, "/r/a", "abc", roz_time_make(1, 0)), ROZ_EINVALID);
	assert_int_equal(roz_session_gov_remember(&g, "/r/a", HASH_A "0", roz_time_make(1, 0)), ROZ_EINVALID);
	assert_int_equal(roz_session_gov_remember(&g, "", HASH_A, roz_time_make(1, 0)), ROZ_EINVALID);
	assert_int_equal(g.n_files, 0);
	roz_session_gov_dispose(&g);
}

static void corrupt_governance_objects_are_refused(void **state)
{
	static const char *const bad[] = {
		"\"governance\":[]",
		"\"governance\":{\"state\":\"flying\"}",
		"\"governance\":{\"state\":7}",
		"\"governance\":{\"denials\":-1}",
		"\"governance\":{\"refactor\":\"yes\"}",
		"\"governance\":{\"files\":{}}",
		"\"governance\":{\"files\":[{\"path\":\"/a\"}]}",
		"\"governance\":{\"files\":[{\"path\":\"/a\",\"sha256\":\"zz\"}]}",
		"\"governance\":{\"selected_at\":\"yesterday\"}",
		"\"governance\":{},\"governance\":{}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *text = t_sprintf("{\"session_id\":\"g\",\"review\":{\"enabled\":false},%s,"
				       "\"trace\":[],\"created_at\":\"2026-01-01T00:00:00Z\","
				       "\"updated_at\":\"2026-01-01T00:00:00Z\"}",
				       bad[i]);
		roz_session *s = NULL;

		if (roz_session_json_parse(text, strlen(text), &s) != ROZ_ECORRUPT)
			fail_msg("accepted %s", bad[i]);
		assert_null(s);
		free(text);
	}
}

static void null_governance_reads_as_untouched(void **state)
{
	const char *text = "{\"session_id\":\"g\",\"review\":{\"enabled\":false},\"governance\":null,"
			   "\"trace\":[],\"created_at\":\"2026-01-01T00:00:00Z\","
			   "\"updated_at\":\"2026-01-01T00:00:00Z\"}";
	roz_session *s = read_back(text);

	assert_false(s->gov.present);
	roz_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(untouched_session_has_no_governance_object),
		cmocka_unit_test(selection_and_files_read_back),
		cmocka_unit_test(selecting_resets_refusals_in_a_row),
		cmocka_unit_test(remembering_keeps_the_newest_within_the_limit),
		cmocka_unit_test(unstorable_files_are_refused),
		cmocka_unit_test(corrupt_governance_objects_are_refused),
		cmocka_unit_test(null_governance_reads_as_untouched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
