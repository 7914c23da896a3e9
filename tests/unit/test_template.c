/*
 * test_template.c - the block message's template: a pinned id, a weighted
 * draw (each id gets exactly its share of the random range), the fallbacks
 * when no weights or only zero weights are given, the loader's text or the
 * built-in one, and the session id filled in everywhere it is asked for.
 * Stops that use these are test_hooks.c's.
 */
#include "support.h"

#include "roz/template.h"

#include <stdlib.h>
#include <string.h>

typedef struct fake {
	uint64_t roll;        /* what random() returns */
	uint64_t last_bound;  /* the bound it was last asked for */
	int calls;
	const char *text;     /* what load_template() returns, or NULL */
	char *asked;          /* the id it was last asked for */
} fake;

static uint64_t fake_random(void *ud, uint64_t bound)
{
	fake *f = ud;

	f->calls++;
	f->last_bound = bound;
	return f->roll;
}

static char *fake_load(void *ud, const char *id)
{
	fake *f = ud;

	free(f->asked);
	f->asked = strdup(id);
	return f->text ? roz_strdup(f->text) : NULL;
}

static void env_for(roz_env *env, const roz_config *c, fake *f)
{
	memset(env, 0, sizeof(*env));
	env->config = c;
	env->random = fake_random;
	env->load_template = fake_load;
	env->ud = f;
}

static void weights(roz_config *c, const char *active, const char *const *ids, const uint32_t *w, size_t n)
{
	assert_int_equal(roz_config_init(c), ROZ_OK);
	roz_free(c->template_active);
	c->template_active = roz_strdup(active);
	/* replace the defaults */
	for (size_t i = 0; i < c->n_weights; i++)
		roz_free(c->weights[i].id);
	roz_free(c->weights);
	c->weights = roz_calloc(n ? n : 1, sizeof(*c->weights));
	for (size_t i = 0; i < n; i++) {
		c->weights[i].id = roz_strdup(ids[i]);
		c->weights[i].weight = w[i];
	}
	c->n_weights = n;
}

static char *select_with(const roz_config *c, uint64_t roll, fake *f)
{
	roz_env env;

	f->roll = roll;
	env_for(&env, c, f);
	return roz_template_select(c, &env);
}

#define SELECTS(c, roll, want) \
	do { \
		char *got_ = select_with(c, roll, &f); \
		assert_non_null(got_); \
		if (strcmp(got_, want) != 0) \
			fail_msg("roll %d chose %s, not %s", (int)(roll), got_, want); \
		roz_free(got_); \
	} while (0)

static void test_a_pinned_id_is_used_without_a_draw(void **state)
{
	static const char *const ids[] = {"a", "b"};
	static const uint32_t w[] = {1, 1};
	fake f = {0};
	roz_config c;

	(void)state;
	weights(&c, "strict", ids, w, 2);
	SELECTS(&c, 0, "strict");
	assert_int_equal(f.calls, 0);
	roz_config_dispose(&c);
}

static void test_a_draw_gives_each_id_its_share(void **state)
{
	static const char *const ids[] = {"a", "b", "c"};
	static const uint32_t w[] = {2, 0, 3};
	fake f = {0};
	roz_config c;

	(void)state;
	weights(&c, "random", ids, w, 3);
	SELECTS(&c, 0, "a");
	assert_int_equal(f.last_bound, 5);
	SELECTS(&c, 1, "a");
	/* a zero weight is never drawn */
	SELECTS(&c, 2, "c");
	SELECTS(&c, 4, "c");
	roz_config_dispose(&c);
}

static void test_draw_fallbacks(void **state)
{
	static const char *const ids[] = {"first", "second"};
	static const uint32_t zero[] = {0, 0};
	static const uint32_t w[] = {1, 1};
	fake f = {0};
	roz_config c;

	(void)state;
	/* no weights: the built-in default */
	weights(&c, "random", ids, w, 0);
	SELECTS(&c, 0, "default");
	roz_config_dispose(&c);
	/* all weights zero: the first, without asking for a number in [0, 0) */
	weights(&c, "random", ids, zero, 2);
	SELECTS(&c, 0, "first");
	assert_int_equal(f.calls, 0);
	roz_config_dispose(&c);
	/* a random source that answers out of range still picks a configured id */
	weights(&c, "random", ids, w, 2);
	SELECTS(&c, 99, "second");
	roz_config_dispose(&c);
}

static void test_weights_that_add_past_32_bits(void **state)
{
	static const char *const ids[] = {"a", "b"};
	static const uint32_t w[] = {UINT32_MAX, UINT32_MAX};
	fake f = {0};
	roz_config c;

	(void)state;
	weights(&c, "random", ids, w, 2);
	SELECTS(&c, UINT32_MAX, "b");
	assert_true(f.last_bound == 2 * (uint64_t)UINT32_MAX);
	SELECTS(&c, (uint64_t)UINT32_MAX - 1, "a");
	roz_config_dispose(&c);
}

static void test_block_message_fills_the_session_id(void **state)
{
	fake f = {0};
	roz_config c;
	roz_session *s;
	roz_env env;
	char *id = NULL, *msg;

	(void)state;
	weights(&c, "mine", NULL, NULL, 0);
	assert_int_equal(roz_session_new("sess-42", roz_time_make(0, 0), &s), ROZ_OK);
	env_for(&env, &c, &f);
	f.text = "review {{session_id}} now; SESSION_ID={{session_id}} {{other}}";
	msg = roz_template_block_message(s, &env, &id);
	assert_string_equal(id, "mine");
	assert_string_equal(f.asked, "mine");
	assert_string_equal(msg, "review sess-42 now; SESSION_ID=sess-42 {{other}}");
	roz_free(msg);
	roz_free(id);
	/* no text from the loader: the built-in message, filled in too */
	f.text = NULL;
	msg = roz_template_block_message(s, &env, &id);
	assert_non_null(strstr(roz_template_default, "{{session_id}}"));
	assert_non_null(strstr(msg, "SESSION_ID=sess-42"));
	assert_null(strstr(msg, "{{session_id}}"));
	roz_free(msg);
	roz_free(id);
	/* and without a loader at all */
	env.load_template = NULL;
	msg = roz_template_block_message(s, &env, &id);
	assert_non_null(strstr(msg, "SESSION_ID=sess-42"));
	roz_free(msg);
	roz_free(id);
	roz_session_free(s);
	roz_config_dispose(&c);
	free(f.asked);
}

static void test_block_message_out_of_memory(void **state)
{
	fake f = {0};
	roz_config c;
	roz_session *s;
	roz_env env;
	char *id, *msg;

	(void)state;
	weights(&c, "mine", NULL, NULL, 0);
	assert_int_equal(roz_session_new("s1", roz_time_make(0, 0), &s), ROZ_OK);
	env_for(&env, &c, &f);
	env.load_template = NULL;
	/* every allocation in turn fails; each gives NULL, nothing leaks */
	for (long n = 0; n < 8; n++) {
		id = (char *)1;
		roz_alloc_fail_after(n);
		msg = roz_template_block_message(s, &env, &id);
		roz_alloc_fail_after(-1);
		if (msg) {
			assert_non_null(id);
			roz_free(msg);
			roz_free(id);
			break;
		}
		roz_free(id);
	}
	roz_session_free(s);
	roz_config_dispose(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_pinned_id_is_used_without_a_draw),
		cmocka_unit_test(test_a_draw_gives_each_id_its_share),
		cmocka_unit_test(test_draw_fallbacks),
		cmocka_unit_test(test_weights_that_add_past_32_bits),
		cmocka_unit_test(test_block_message_fills_the_session_id),
		cmocka_unit_test(test_block_message_out_of_memory),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
