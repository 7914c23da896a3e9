/*
 * test_intent_map.c - .orchestration/intent_map.md from hand-written ledger
 * records: each intent's section in the intents file's order, its files
 * sorted with merged ranges and the latest change, the verify counts, the
 * writes with no intent, and text that cannot break the Markdown.
 */
#include "support.h"

#include "roz/intent_map.h"

#include <stdlib.h>
#include <string.h>

static const char intents_yaml[] = "active_intents:\n"
				   "  - id: INT-002\n"
				   "    name: Rate limits\n"
				   "    status: DRAFT\n"
				   "    owned_scope: [\"src/api/**\"]\n"
				   "  - id: INT-001\n"
				   "    name: JWT | auth\n"
				   "    status: IN_PROGRESS\n"
				   "    owned_scope: [\"src/auth/**\", \"src/middleware/jwt.ts\"]\n";

static void load(roz_intents *ints, const char *yaml)
{
	assert_int_equal(roz_intents_parse(yaml, strlen(yaml), ints, NULL), ROZ_OK);
}

static roz_ledger_range R(unsigned long a, unsigned long b)
{
	roz_ledger_range r;

	memset(&r, 0, sizeof(r));
	r.start_line = a;
	r.end_line = b;
	return r;
}

/* Records built by hand, as the ledger reader would give them. */
typedef struct fixture {
	roz_ledger_range r1[2], r2[2], r3[1], r4[1];
	roz_ledger_rfile f1[2], f2[1], f3[1], f4[1];
	roz_ledger_rec recs[4];
} fixture;

static void fixture_make(fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->r1[0] = R(10, 20);
	f->r1[1] = R(1, 3);
	f->f1[0] = (roz_ledger_rfile){.path = "src/auth/z.ts", .ranges = {f->r1, 2, 2}};
	f->f1[1] = (roz_ledger_rfile){.path = "src/auth/a.ts", .ranges = {NULL, 0, 0}};
	f->recs[0] = (roz_ledger_rec){.intent_id = "INT-001", .session_id = "s1", .has_timestamp = true,
				      .timestamp = {1771425000, 0}, .files = f->f1, .nfiles = 2};
	/* a later write of z.ts under the same intent: ranges merge, the date is the later one */
	f->r2[0] = R(15, 25);
	f->r2[1] = R(40, 40);
	f->f2[0] = (roz_ledger_rfile){.path = "src/auth/z.ts", .ranges = {f->r2, 2, 2}};
	f->recs[1] = (roz_ledger_rec){.intent_id = "INT-001", .session_id = "s2", .has_timestamp = true,
				      .timestamp = {1771511400, 0}, .files = f->f2, .nfiles = 1};
	f->r3[0] = R(1, 5);
	f->f3[0] = (roz_ledger_rfile){.path = "notes|x\n_y_.md", .ranges = {f->r3, 1, 1}};
	f->recs[2] = (roz_ledger_rec){.intent_id = NULL, .session_id = "s3", .has_timestamp = false,
				      .files = f->f3, .nfiles = 1};
	f->r4[0] = R(7, 7);
	f->f4[0] = (roz_ledger_rfile){.path = "src/old.c", .ranges = {f->r4, 1, 1}};
	f->recs[3] = (roz_ledger_rec){.intent_id = "INT-000", .session_id = "s4", .has_timestamp = true,
				      .timestamp = {1771425000, 0}, .files = f->f4, .nfiles = 1};
}

static char *render(const roz_intents *ints, const roz_ledger_rec *recs, size_t n, size_t bad,
		    const roz_verify_report *v)
{
	roz_buf b = ROZ_BUF_INIT;

	assert_int_equal(roz_intent_map_render(ints, recs, n, bad, v, &b), ROZ_OK);
	return roz_buf_detach(&b, NULL);
}

static const char expected[] =
	"# Intent Map\n\n"
	"Written by `roz intent map` from .orchestration/agent_trace.jsonl: 4 records and 1 "
	"unreadable line, skipped. Ranges are the lines the agent's writes put in each file.\n"
	"\n## INT-002: Rate limits\n\n**Status:** DRAFT  \n**Scope:** src/api/\\*\\*\n"
	"\nNo recorded changes.\n"
	"\n## INT-001: JWT \\| auth\n\n**Status:** IN_PROGRESS  \n**Scope:** src/auth/\\*\\*, src/middleware/jwt.ts\n"
	"\n| File | Ranges | Last Modified |\n"
	"|------|--------|---------------|\n"
	"| src/auth/a.ts | - | 2026-02-18T14:30:00Z |\n"
	"| src/auth/z.ts | 1-3, 10-25, 40 | 2026-02-19T14:30:00Z |\n"
	"\n## INT-000: (not in active_intents.yaml)\n\n**Status:** unknown  \n**Scope:** unknown\n"
	"\n| File | Ranges | Last Modified |\n"
	"|------|--------|---------------|\n"
	"| src/old.c | 7 | 2026-02-18T14:30:00Z |\n"
	"\n## No intent\n\nWrites made while no intent was selected.\n"
	"\n| File | Ranges | Last Modified |\n"
	"|------|--------|---------------|\n"
	"| notes\\|x \\_y\\_.md | 1-5 | - |\n";

static void intents_in_file_order_files_sorted_ranges_merged(void **state)
{
	roz_intents ints;
	fixture f;
	char *s;

	(void)state;
	load(&ints, intents_yaml);
	fixture_make(&f);
	s = render(&ints, f.recs, 4, 1, NULL);
	assert_string_equal(s, expected);
	roz_free(s);
	/* the records' order does not matter: the same map, byte for byte */
	{
		roz_ledger_rec rev[4] = {f.recs[3], f.recs[2], f.recs[1], f.recs[0]};

		s = render(&ints, rev, 4, 1, NULL);
		assert_string_equal(s, expected);
		roz_free(s);
	}
	roz_intents_dispose(&ints);
}

static void verify_counts_per_file_under_its_intent(void **state)
{
	roz_intents ints;
	fixture f;
	roz_verify_item items[6];
	roz_verify_report v;
	char *s;

	(void)state;
	load(&ints, intents_yaml);
	fixture_make(&f);
	memset(items, 0, sizeof(items));
	memset(&v, 0, sizeof(v));
	items[0] = (roz_verify_item){.intent_id = "INT-001", .path = "src/auth/z.ts", .state = ROZ_VERIFY_INTACT};
	items[1] = (roz_verify_item){.intent_id = "INT-001", .path = "src/auth/z.ts", .state = ROZ_VERIFY_MOVED};
	items[2] = (roz_verify_item){.intent_id = "INT-001", .path = "src/auth/z.ts", .state = ROZ_VERIFY_INTACT};
	items[3] = (roz_verify_item){.intent_id = "INT-001", .path = "src/auth/z.ts", .state = ROZ_VERIFY_SUPERSEDED};
	/* the same file under no intent counts there, not here */
	items[4] = (roz_verify_item){.intent_id = NULL, .path = "src/auth/z.ts", .state = ROZ_VERIFY_EDITED};
	items[5] = (roz_verify_item){.intent_id = "INT-000", .path = "src/old.c", .state = ROZ_VERIFY_MISSING};
	v.items = items;
	v.n = v.cap = 6;
	s = render(&ints, f.recs, 4, 0, &v);
	assert_non_null(strstr(s, "records. Ranges are the lines the agent's writes put in each file; Verifies is "
				  "what `roz ledger verify` finds in them now.\n"));
	assert_non_null(strstr(s, "| File | Ranges | Last Modified | Verifies |\n"
				  "|------|--------|---------------|----------|\n"
				  "| src/auth/a.ts | - | 2026-02-18T14:30:00Z | - |\n"
				  "| src/auth/z.ts | 1-3, 10-25, 40 | 2026-02-19T14:30:00Z | 2 intact, 1 moved |\n"));
	assert_non_null(strstr(s, "| src/old.c | 7 | 2026-02-18T14:30:00Z | 1 missing |\n"));
	assert_non_null(strstr(s, "| notes\\|x \\_y\\_.md | 1-5 | - | - |\n"));
	roz_free(s);
	roz_intents_dispose(&ints);
}

static void an_empty_ledger_lists_every_intent(void **state)
{
	roz_intents ints;
	char *s;

	(void)state;
	load(&ints, intents_yaml);
	s = render(&ints, NULL, 0, 0, NULL);
	assert_non_null(strstr(s, "0 records. "));
	assert_non_null(strstr(s, "## INT-002: Rate limits"));
	assert_non_null(strstr(s, "## INT-001: JWT \\| auth"));
	assert_null(strstr(s, "No intent"));
	assert_null(strstr(s, "| File"));
	roz_free(s);
	roz_intents_dispose(&ints);
}

static void markdown_cannot_be_broken_by_names_or_paths(void **state)
{
	roz_intents ints;
	roz_ledger_rfile file = {.path = "a`b*c<d>[e](f)~&g\\h\x01\xff.c", .ranges = {NULL, 0, 0}};
	roz_ledger_rec rec = {.intent_id = "X|\n## Y", .files = &file, .nfiles = 1};
	char *s;

	(void)state;
	load(&ints, "active_intents: []\n");
	s = render(&ints, &rec, 1, 0, NULL);
	assert_non_null(strstr(s, "## X\\| ## Y: (not in"));
	assert_non_null(strstr(s, "| a\\`b\\*c\\<d\\>\\[e\\](f)\\~\\&g\\\\h\xef\xbf\xbd\xef\xbf\xbd.c | - | - |\n"));
	/* every line of the table has its four bars */
	assert_null(strstr(s, "\n## Y"));
	roz_free(s);
	roz_intents_dispose(&ints);
}

static void many_ranges_are_counted_past_the_limit(void **state)
{
	roz_ledger_range r[30];
	roz_ledger_rfile file = {.path = "f.c", .ranges = {r, 30, 30}};
	roz_ledger_rec rec = {.intent_id = NULL, .files = &file, .nfiles = 1};
	char *s;

	(void)state;
	for (unsigned long i = 0; i < 30; i++)
		r[i] = R(i * 10 + 1, i * 10 + 2);
	s = render(NULL, &rec, 1, 0, NULL);
	assert_non_null(strstr(s, "| f.c | 1-2, 11-12, "));
	assert_non_null(strstr(s, ", 191-192, ... and 10 more | - |\n"));
	assert_null(strstr(s, "201-202"));
	roz_free(s);
}

static void memory_running_out_is_reported(void **state)
{
	roz_intents ints;
	fixture f;
	roz_buf b = ROZ_BUF_INIT;
	long total;

	(void)state;
	load(&ints, intents_yaml);
	fixture_make(&f);
	roz_alloc_fail_after(1000000);
	assert_int_equal(roz_intent_map_render(&ints, f.recs, 4, 0, NULL, &b), ROZ_OK);
	total = roz_alloc_count();
	roz_buf_dispose(&b);
	for (long k = 0; k < total; k++) {
		roz_buf o = ROZ_BUF_INIT;

		roz_alloc_fail_after(k);
		assert_int_equal(roz_intent_map_render(&ints, f.recs, 4, 0, NULL, &o), ROZ_ENOMEM);
		roz_alloc_fail_after(-1);
		roz_buf_dispose(&o);
	}
	roz_alloc_fail_after(-1);
	roz_intents_dispose(&ints);
}

static void the_ledger_is_read_line_by_line_skipping_what_is_not_a_record(void **state)
{
	static const char rec[] = "{\"version\":\"0.1\",\"id\":\"r%d\",\"timestamp\":\"2026-02-18T12:00:00Z\","
				  "\"files\":[{\"path\":\"src/a.c\",\"conversations\":[{\"url\":\"u\","
				  "\"ranges\":[{\"start_line\":1,\"end_line\":4,\"content_hash\":\"sha256:00\"}]}]}],"
				  "\"metadata\":{\"roz\":{\"intent_id\":\"INT-001\",\"session_id\":\"s1\"}}}";
	char *one = t_sprintf(rec, 1), *two = t_sprintf(rec, 2);
	/* a blank line, a malformed one, and a torn tail with no newline */
	char *ledger = t_sprintf("%s\n\n  \r\nnot json\n%s\n{\"version\":\"0.1\",\"id\"", one, two);
	roz_intent_map_records r;

	(void)state;
	assert_int_equal(roz_intent_map_records_parse(ledger, strlen(ledger), &r), ROZ_OK);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.bad, 2);
	assert_string_equal(r.items[0].id, "r1");
	assert_string_equal(r.items[1].id, "r2");
	assert_string_equal(r.items[1].intent_id, "INT-001");
	assert_int_equal(r.items[1].files[0].ranges.items[0].end_line, 4);
	roz_intent_map_records_dispose(&r);
	roz_intent_map_records_dispose(NULL);
	assert_int_equal(roz_intent_map_records_parse("", 0, &r), ROZ_OK);
	assert_int_equal(r.n + r.bad, 0);
	roz_intent_map_records_dispose(&r);
	free(one);
	free(two);
	free(ledger);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intents_in_file_order_files_sorted_ranges_merged),
		cmocka_unit_test(verify_counts_per_file_under_its_intent),
		cmocka_unit_test(an_empty_ledger_lists_every_intent),
		cmocka_unit_test(markdown_cannot_be_broken_by_names_or_paths),
		cmocka_unit_test(many_ranges_are_counted_past_the_limit),
		cmocka_unit_test(memory_running_out_is_reported),
		cmocka_unit_test(the_ledger_is_read_line_by_line_skipping_what_is_not_a_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
