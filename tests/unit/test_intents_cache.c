/*
 * test_intents_cache.c - parsed intents written as roz's compact JSON and
 * read back to the same intents; anything else is refused, so the caller
 * parses the YAML again.
 */
#include "support.h"

#include "roz/intents_cache.h"

#include <string.h>

static const char yaml[] =
	"active_intents:\n"
	"  - id: INT-001\n    name: \"Auth \\\"quoted\\\" \\u00e9\"\n    status: IN_PROGRESS\n"
	"    owned_scope: [\"src/auth/**\", \"src/x.c\"]\n"
	"    constraints:\n      - |\n        two\n        lines\n"
	"    acceptance_criteria: [\"tests pass\"]\n    created_at: \"2026-02-18T12:00:00Z\"\n"
	"  - id: INT-002\n    name: Empty\n    status: ARCHIVED\n";

static void intents_read_back_the_same(void **state)
{
	roz_intents a, b;
	roz_intents_error err = {0, 0, NULL};
	roz_buf text = ROZ_BUF_INIT;

	(void)state;
	assert_int_equal(roz_intents_parse(yaml, sizeof yaml - 1, &a, &err), ROZ_OK);
	roz_intents_cache_write(&a, &text);
	assert_false(text.oom);
	assert_int_equal(roz_intents_cache_read(text.ptr, text.len, &b), ROZ_OK);
	assert_int_equal(b.n, a.n);
	for (size_t i = 0; i < a.n; i++) {
		const roz_intent *x = &a.items[i], *y = &b.items[i];

		assert_string_equal(x->id, y->id);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->status, y->status);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->nscope, y->nscope);
		for (size_t k = 0; k < x->nscope; k++)
			assert_string_equal(x->scope[k], y->scope[k]);
		assert_int_equal(x->nconstraints, y->nconstraints);
		for (size_t k = 0; k < x->nconstraints; k++)
			assert_string_equal(x->constraints[k], y->constraints[k]);
		assert_int_equal(x->ncriteria, y->ncriteria);
		assert_true((x->created_at == NULL) == (y->created_at == NULL));
		if (x->created_at)
			assert_string_equal(x->created_at, y->created_at);
		assert_null(y->updated_at);
	}
	assert_string_equal(b.items[0].constraints[0], "two\nlines\n");
	roz_intents_dispose(&a);
	roz_intents_dispose(&b);
	roz_buf_dispose(&text);
}

static void anything_roz_did_not_write_is_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"not json",
		"[]",
		"{\"v\":2,\"intents\":[]}",
		"{\"intents\":[]}",
		"{\"v\":1}",
		"{\"v\":1,\"intents\":[{\"id\":\"A\",\"name\":\"a\",\"status\":\"DONE\",\"line\":1,\"scope\":[],"
		"\"constraints\":[],\"criteria\":[]}]}",
		"{\"v\":1,\"intents\":[{\"id\":\"A\",\"name\":\"a\",\"status\":\"DRAFT\",\"line\":-1,\"scope\":[],"
		"\"constraints\":[],\"criteria\":[]}]}",
		"{\"v\":1,\"intents\":[{\"id\":\"A\",\"name\":\"a\",\"status\":\"DRAFT\",\"line\":1,\"scope\":[7],"
		"\"constraints\":[],\"criteria\":[]}]}",
		"{\"v\":1,\"intents\":[{\"id\":\"A\",\"status\":\"DRAFT\",\"line\":1,\"scope\":[],"
		"\"constraints\":[],\"criteria\":[]}]}",
		"{\"v\":1,\"intents\":[{\"id\":\"A\",\"name\":\"a\",\"status\":\"DRAFT\",\"line\":1,\"scope\":[],"
		"\"constraints\":[]}]}",
		"{\"v\":1,\"intents\":[7]}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		roz_intents ints;

		if (roz_intents_cache_read(bad[i], strlen(bad[i]), &ints) != ROZ_EPARSE)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(ints.n, 0);
		assert_null(ints.items);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intents_read_back_the_same),
		cmocka_unit_test(anything_roz_did_not_write_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
