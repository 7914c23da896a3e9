/*
 * test_intents.c - the intents file: the seeds' example read field by
 * field, what YAML leaves to roz (numbers as text, nulls, aliases, unknown
 * keys), every way a file is refused with the line and column a person
 * needs to fix it, bounded work on hostile files, and the <intent_context>
 * block with its escaping.
 */
#include "support.h"

#include "roz/intents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char seed_example[] =
	"active_intents:\n"
	"  - id: \"INT-001\"\n"
	"    name: \"JWT Authentication Migration\"\n"
	"    status: \"IN_PROGRESS\"            # DRAFT | IN_PROGRESS | COMPLETED | ARCHIVED\n"
	"    owned_scope:\n"
	"      - \"src/auth/**\"\n"
	"      - \"src/middleware/jwt.ts\"\n"
	"    constraints:\n"
	"      - \"Must not use external auth providers\"\n"
	"      - \"Must maintain backward compatibility with Basic Auth\"\n"
	"    acceptance_criteria:\n"
	"      - \"Unit tests in tests/auth/ pass\"\n"
	"    created_at: \"2026-02-18T12:00:00Z\"\n"
	"    updated_at: \"2026-02-18T14:30:00Z\"\n"
	"  - id: INT-002\n"
	"    name: Billing cleanup\n"
	"    status: DRAFT\n";

static int parse_len(const char *text, size_t len, roz_intents *out, roz_intents_error *err)
{
	return roz_intents_parse(text, len, out, err);
}

/* A file that must read: returns the intents, fails the test otherwise. */
static void must_parse(const char *text, roz_intents *out)
{
	roz_intents_error err;
	int rc = parse_len(text, strlen(text), out, &err);

	if (rc != ROZ_OK)
		fail_msg("expected the file to read, got %d at %u:%u: %s\n---\n%s", rc, err.line, err.col,
			 err.message ? err.message : "(null)", text);
	assert_null(err.message);
}

/*
 * A file that must be refused with `rc` at line:col, the message holding
 * `needle`; the whole file is refused (nothing in `out`).
 */
static void refused_len(const char *text, size_t len, int rc, unsigned line, unsigned col, const char *needle)
{
	roz_intents out = {(roz_intent *)1, 99};
	roz_intents_error err;
	int got = parse_len(text, len, &out, &err);
	char *where;

	if (got != rc || err.line != line || err.col != col || !err.message ||
	    !strstr(err.message, needle))
		fail_msg("expected %d at %u:%u with '%s', got %d at %u:%u: %s", rc, line, col, needle, got,
			 err.line, err.col, err.message ? err.message : "(null)");
	assert_null(out.items);
	assert_int_equal(out.n, 0);
	/* roz_error_last carries the same problem, with the position first */
	where = t_sprintf("%u:%u: %s", line, col, err.message);
	assert_string_equal(roz_error_last(), where);
	free(where);
	/* one sentence for a person: no newline in it */
	assert_null(strchr(err.message, '\n'));
	roz_intents_error_dispose(&err);
	assert_null(err.message);
}

static void refused(const char *text, int rc, unsigned line, unsigned col, const char *needle)
{
	refused_len(text, strlen(text), rc, line, col, needle);
}

/* ---- reading ----------------------------------------------------------------- */

static void test_seed_example_field_by_field(void **state)
{
	roz_intents ints;
	const roz_intent *a, *b;

	(void)state;
	must_parse(seed_example, &ints);
	assert_int_equal(ints.n, 2);
	a = &ints.items[0];
	assert_string_equal(a->id, "INT-001");
	assert_string_equal(a->name, "JWT Authentication Migration");
	assert_int_equal(a->status, ROZ_INTENT_IN_PROGRESS);
	assert_int_equal(a->nscope, 2);
	assert_string_equal(a->scope[0], "src/auth/**");
	assert_string_equal(a->scope[1], "src/middleware/jwt.ts");
	assert_int_equal(a->nconstraints, 2);
	assert_string_equal(a->constraints[0], "Must not use external auth providers");
	assert_string_equal(a->constraints[1], "Must maintain backward compatibility with Basic Auth");
	assert_int_equal(a->ncriteria, 1);
	assert_string_equal(a->criteria[0], "Unit tests in tests/auth/ pass");
	assert_string_equal(a->created_at, "2026-02-18T12:00:00Z");
	assert_string_equal(a->updated_at, "2026-02-18T14:30:00Z");
	assert_int_equal(a->line, 2);

	b = &ints.items[1];
	assert_string_equal(b->id, "INT-002");
	assert_string_equal(b->name, "Billing cleanup");
	assert_int_equal(b->status, ROZ_INTENT_DRAFT);
	assert_int_equal(b->nscope, 0);
	assert_null(b->scope);
	assert_int_equal(b->nconstraints, 0);
	assert_int_equal(b->ncriteria, 0);
	assert_null(b->created_at);
	assert_null(b->updated_at);
	assert_int_equal(b->line, 15);
	roz_intents_dispose(&ints);
	assert_int_equal(ints.n, 0);
	assert_null(ints.items);
	roz_intents_dispose(&ints); /* twice is harmless */
	roz_intents_dispose(NULL);
}

static void test_every_status(void **state)
{
	roz_intents ints;

	(void)state;
	must_parse("active_intents:\n"
		   "- {id: A, name: a, status: DRAFT}\n"
		   "- {id: B, name: b, status: IN_PROGRESS}\n"
		   "- {id: C, name: c, status: 'COMPLETED'}\n"
		   "- {id: D, name: d, status: \"ARCHIVED\"}\n",
		   &ints);
	assert_int_equal(ints.n, 4);
	assert_int_equal(ints.items[0].status, ROZ_INTENT_DRAFT);
	assert_int_equal(ints.items[1].status, ROZ_INTENT_IN_PROGRESS);
	assert_int_equal(ints.items[2].status, ROZ_INTENT_COMPLETED);
	assert_int_equal(ints.items[3].status, ROZ_INTENT_ARCHIVED);
	roz_intents_dispose(&ints);
	assert_string_equal(roz_intents_status_name(ROZ_INTENT_DRAFT), "DRAFT");
	assert_string_equal(roz_intents_status_name(ROZ_INTENT_IN_PROGRESS), "IN_PROGRESS");
	assert_string_equal(roz_intents_status_name(ROZ_INTENT_COMPLETED), "COMPLETED");
	assert_string_equal(roz_intents_status_name(ROZ_INTENT_ARCHIVED), "ARCHIVED");
	assert_string_equal(roz_intents_status_name((roz_intent_status)42), "UNKNOWN");
}

static void test_number_like_scalars_are_text(void **state)
{
	roz_intents ints;
	const roz_intent *it;

	(void)state;
	must_parse("active_intents:\n"
		   "  - id: 001\n"
		   "    name: 1.50\n"
		   "    status: IN_PROGRESS\n"
		   "    owned_scope: [2026]\n"
		   "    constraints: [yes, off, 0x1F, .inf]\n"
		   "    acceptance_criteria: [true]\n"
		   "    created_at: 2026-02-18\n",
		   &ints);
	it = &ints.items[0];
	assert_string_equal(it->id, "001");
	assert_string_equal(it->name, "1.50");
	assert_string_equal(it->scope[0], "2026");
	assert_string_equal(it->constraints[0], "yes");
	assert_string_equal(it->constraints[1], "off");
	assert_string_equal(it->constraints[2], "0x1F");
	assert_string_equal(it->constraints[3], ".inf");
	assert_string_equal(it->criteria[0], "true");
	assert_string_equal(it->created_at, "2026-02-18");
	roz_intents_dispose(&ints);
}

static void test_unknown_keys_are_ignored(void **state)
{
	roz_intents ints;

	(void)state;
	must_parse("version: 3\n"
		   "owners: {team: platform}\n"
		   "active_intents:\n"
		   "  - id: INT-1\n"
		   "    priority: [1, 2, {x: y}]\n"
		   "    name: n\n"
		   "    status: DRAFT\n"
		   "    review: {by: someone, \"with\\u0001control\": 1}\n"
		   "future: [a, b]\n",
		   &ints);
	assert_int_equal(ints.n, 1);
	assert_string_equal(ints.items[0].id, "INT-1");
	roz_intents_dispose(&ints);
}

static void test_empty_and_null_files(void **state)
{
	static const char *const empty[] = {
		"", "# only a comment\n", "\n\n", "---\n", "~\n", "active_intents: []\n",
		"active_intents:\n", "active_intents: ~\n", "active_intents: null # none yet\n",
	};
	roz_intents ints;

	(void)state;
	for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
		must_parse(empty[i], &ints);
		assert_int_equal(ints.n, 0);
		roz_intents_dispose(&ints);
	}
	/* no text at all */
	assert_int_equal(roz_intents_parse(NULL, 0, &ints, NULL), ROZ_OK);
	assert_int_equal(ints.n, 0);
}

static void test_null_lists_and_optional_fields(void **state)
{
	roz_intents ints;
	const roz_intent *it;

	(void)state;
	must_parse("active_intents:\n"
		   "  - id: A\n    name: a\n    status: DRAFT\n"
		   "    owned_scope:\n    constraints: ~\n    acceptance_criteria: []\n"
		   "    created_at:\n    updated_at: null\n",
		   &ints);
	it = &ints.items[0];
	assert_int_equal(it->nscope, 0);
	assert_int_equal(it->nconstraints, 0);
	assert_int_equal(it->ncriteria, 0);
	assert_null(it->created_at);
	assert_null(it->updated_at);
	roz_intents_dispose(&ints);
}

static void test_aliases_to_scalars_and_lists(void **state)
{
	roz_intents ints;

	(void)state;
	must_parse("shared:\n"
		   "  scope: &auth [\"src/auth/**\", docs/auth.md]\n"
		   "  rule: &rule Keep the public API\n"
		   "active_intents:\n"
		   "  - {id: A, name: a, status: IN_PROGRESS, owned_scope: *auth, constraints: [*rule]}\n"
		   "  - {id: B, name: *rule, status: DRAFT, owned_scope: *auth}\n",
		   &ints);
	assert_int_equal(ints.n, 2);
	assert_int_equal(ints.items[0].nscope, 2);
	assert_string_equal(ints.items[0].scope[1], "docs/auth.md");
	assert_string_equal(ints.items[0].constraints[0], "Keep the public API");
	assert_string_equal(ints.items[1].name, "Keep the public API");
	assert_string_equal(ints.items[1].scope[0], "src/auth/**");
	roz_intents_dispose(&ints);
}

static void test_crlf_and_bom(void **state)
{
	roz_intents ints;

	(void)state;
	must_parse("\xEF\xBB\xBF"
		   "active_intents:\r\n  - id: A\r\n    name: a b\r\n    status: DRAFT\r\n",
		   &ints);
	assert_string_equal(ints.items[0].name, "a b");
	roz_intents_dispose(&ints);
}

static void test_id_limits(void **state)
{
	char id[ROZ_INTENTS_ID_MAX + 2];
	char *text;
	roz_intents ints;

	(void)state;
	memset(id, 'x', ROZ_INTENTS_ID_MAX);
	id[ROZ_INTENTS_ID_MAX] = '\0';
	text = t_sprintf("active_intents:\n  - id: %s\n    name: n\n    status: DRAFT\n", id);
	must_parse(text, &ints);
	assert_int_equal(strlen(ints.items[0].id), ROZ_INTENTS_ID_MAX);
	roz_intents_dispose(&ints);
	free(text);

	strcat(id, "y");
	text = t_sprintf("active_intents:\n  - id: %s\n    name: n\n    status: DRAFT\n", id);
	refused(text, ROZ_EINVALID, 2, 9, "129 bytes long; an id has at most 128");
	free(text);

	refused("active_intents:\n  - id: \"INT 1\"\n    name: n\n    status: DRAFT\n", ROZ_EINVALID, 2, 9,
		"the id 'INT 1' holds a space");
	refused("active_intents:\n  - id: \"INT\\t1\"\n    name: n\n    status: DRAFT\n", ROZ_EINVALID, 2, 9,
		"holds a space");
	refused("active_intents:\n  - id: \"INT-\xC3\xA9\"\n    name: n\n    status: DRAFT\n", ROZ_EINVALID, 2,
		9, "other than visible ASCII");
	refused("active_intents:\n  - id: \"\"\n    name: n\n    status: DRAFT\n", ROZ_EINVALID, 2, 9,
		"id is empty");
}

/* ---- refused: not YAML ------------------------------------------------------------ */

static void test_malformed_yaml(void **state)
{
	(void)state;
	/* an unclosed quote: libyaml reports where the stream ended, and where the string began */
	refused("active_intents:\n  - id: \"INT-001\n    name: x\n", ROZ_EPARSE, 4, 1,
		"found unexpected end of stream while scanning a quoted scalar that starts at line 2, column 9");
	/* bad indentation: a key less indented than its siblings */
	refused("active_intents:\n  - id: A\n    name: a\n   status: DRAFT\n", ROZ_EPARSE, 4, 4,
		"did not find expected '-' indicator while parsing a block collection that starts at line 2, column 3");
	/* tabs cannot indent YAML */
	refused("active_intents:\n\t- id: A\n", ROZ_EPARSE, 2, 1, "found character that cannot start any token");
	/* an unclosed flow list */
	refused("active_intents: [\n", ROZ_EPARSE, 2, 1, "did not find expected node content");
	/* a raw control character: libyaml's reader refuses it, at its byte */
	refused("active_intents:\n  - id: A\x01\n", ROZ_EPARSE, 2, 10, "control characters are not allowed (byte 0x01)");
	/* an alias to an anchor never defined */
	refused("active_intents: *nowhere\n", ROZ_EPARSE, 1, 17, "found undefined alias");
}

/* Positions as an editor shows them, whatever libyaml takes for a line break. */
static void test_positions_count_like_an_editor(void **state)
{
	(void)state;
	/* a byte-order mark takes no column */
	refused("\xEF\xBB\xBF" "active_intents: x\n", ROZ_EINVALID, 1, 17, "not a single value");
	/* characters, not bytes: "é" is one column */
	refused("active_intents:\n  - {name: \xC3\xA9, id: [A]}\n", ROZ_EINVALID, 2, 19,
		"id must be a single value");
	/* CR LF and a lone CR end a line */
	refused("active_intents:\r\n  - id: [A]\r\n", ROZ_EINVALID, 2, 9, "id must be a single value");
	refused("active_intents:\r  - id: [A]\r", ROZ_EINVALID, 2, 9, "id must be a single value");
	/* U+2028 inside a quoted value is text to an editor, a line break to libyaml */
	refused("active_intents:\n  - {name: \"a\xE2\x80\xA8" "b\", id: [A]}\n", ROZ_EINVALID, 2, 23,
		"id must be a single value");
}

static void test_not_utf8(void **state)
{
	(void)state;
	/* the first bad byte, counted in characters: "  - id: é" then 0xFF */
	refused("active_intents:\n  - id: \xC3\xA9\xFF\n", ROZ_EPARSE, 2, 10,
		"the file is not valid UTF-8: byte 0xFF does not start a well-formed character");
	/* an overlong form and a lone continuation byte */
	refused("a: \xC0\xAF\n", ROZ_EPARSE, 1, 4, "byte 0xC0");
	refused("\n\n\x80", ROZ_EPARSE, 3, 1, "byte 0x80");
	/* a sequence cut off by the end of the file */
	refused("x: \xE2\x82", ROZ_EPARSE, 1, 4, "byte 0xE2");
	/* UTF-16 with its byte-order mark is not UTF-8 */
	refused_len("\xFF\xFE" "a\0", 4, ROZ_EPARSE, 1, 1, "byte 0xFF");
}

static void test_over_size(void **state)
{
	size_t len = ROZ_INTENTS_MAX_BYTES + 1;
	char *big = malloc(len);

	(void)state;
	assert_non_null(big);
	memset(big, ' ', len);
	memcpy(big, "active_intents: []", 18);
	refused_len(big, len, ROZ_EPARSE, 1, 1, "1048577 bytes; an intents file is read only up to 1048576 bytes");
	free(big);
}

static void test_nul_in_the_file(void **state)
{
	(void)state;
	refused_len("active_intents: []\n\0\n", 21, ROZ_EPARSE, 2, 1, "control characters are not allowed (byte 0x00)");
}

/*
 * A megabyte of `[`: refused at the first level too many. libyaml alone
 * would spend hours on it, far past the test's timeout.
 */
static void test_deep_nesting_is_refused_fast(void **state)
{
	size_t depth = ROZ_INTENTS_MAX_BYTES - 16;
	char *deep = malloc(depth + 16);

	(void)state;
	assert_non_null(deep);
	memcpy(deep, "active_intents: ", 16);
	memset(deep + 16, '[', depth);
	/* the root mapping is the first level, so the 64th `[` is the 65th */
	refused_len(deep, depth + 16, ROZ_EINVALID, 1, 17 + 63,
		    "lists and mappings are nested more than 64 deep here; an intents file needs a few levels");
	free(deep);
}

static void test_nesting_limit(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_intents ints;

	(void)state;
	/* 63 lists inside the root mapping: 64 levels, read (and the unknown key ignored) */
	roz_buf_adds(&b, "future: ");
	for (int i = 0; i < 63; i++)
		roz_buf_addc(&b, '[');
	/* a long list at the deepest level stays cheap */
	for (int i = 0; i < 20000; i++)
		roz_buf_adds(&b, "a,");
	for (int i = 0; i < 63; i++)
		roz_buf_addc(&b, ']');
	roz_buf_adds(&b, "\nactive_intents: []\n");
	must_parse(roz_buf_cstr(&b), &ints);
	roz_intents_dispose(&ints);
	roz_buf_reset(&b);
	roz_buf_adds(&b, "future:\n");
	for (int i = 0; i < 64; i++)
		roz_buf_addf(&b, "%*s- \n", 2 * i, "");
	roz_buf_adds(&b, "active_intents: []\n");
	/* block lists count the same: the 64th `-` under future is the 65th level */
	refused(roz_buf_cstr(&b), ROZ_EINVALID, 65, 127, "nested more than 64 deep");
	roz_buf_dispose(&b);
}

static void test_anchor_limit(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_intents ints;

	(void)state;
	roz_buf_adds(&b, "shared:\n");
	for (int i = 0; i < ROZ_INTENTS_ANCHORS_MAX; i++)
		roz_buf_addf(&b, "  k%d: &a%d v\n", i, i);
	roz_buf_adds(&b, "active_intents: [{id: A, name: *a99, status: DRAFT}]\n");
	must_parse(roz_buf_cstr(&b), &ints);
	assert_string_equal(ints.items[0].name, "v");
	roz_intents_dispose(&ints);
	roz_buf_reset(&b);
	roz_buf_adds(&b, "shared:\n");
	for (int i = 0; i <= ROZ_INTENTS_ANCHORS_MAX; i++)
		roz_buf_addf(&b, "  k%d: &a%d v\n", i, i);
	refused(roz_buf_cstr(&b), ROZ_EINVALID, 102, 9,
		"the file defines more than 100 anchors (&name); an intents file needs few");
	roz_buf_dispose(&b);
}

/* ---- refused: YAML that is not an intents file ------------------------------------- */

static void test_top_level_shapes(void **state)
{
	(void)state;
	refused("- id: A\n  name: a\n", ROZ_EINVALID, 1, 1,
		"the file must be a mapping with the key active_intents, not a list");
	refused("just text\n", ROZ_EINVALID, 1, 1, "not a single value");
	refused("intents:\n  - id: A\n", ROZ_EINVALID, 1, 1, "the file has no active_intents key");
	refused("{}\n", ROZ_EINVALID, 1, 1, "no active_intents key");
	refused("active_intents: []\nactive_intents: []\n", ROZ_EINVALID, 2, 1,
		"the key active_intents appears twice (first at line 1)");
	refused("? [a, b]\n: c\nactive_intents: []\n", ROZ_EINVALID, 1, 3, "a key must be a single value, not a list");
	refused("active_intents: []\n---\nactive_intents: []\n", ROZ_EINVALID, 2, 1,
		"the file holds a second YAML document");
}

static void test_wrong_types(void **state)
{
	(void)state;
	refused("active_intents:\n  id: A\n", ROZ_EINVALID, 2, 3,
		"active_intents must be a list of intents (each starting with '- '), not a mapping");
	refused("active_intents: INT-001\n", ROZ_EINVALID, 1, 17, "not a single value");
	refused("active_intents:\n  - INT-001\n", ROZ_EINVALID, 2, 5,
		"each entry of active_intents must be a mapping (id: ..., name: ...), not a single value");
	refused("active_intents:\n  - [a]\n", ROZ_EINVALID, 2, 5, "not a list");
	refused("active_intents:\n  - id: [A]\n", ROZ_EINVALID, 2, 9, "id must be a single value, not a list");
	refused("active_intents:\n  - id: A\n    name: {x: y}\n", ROZ_EINVALID, 3, 11,
		"name must be a single value, not a mapping");
	refused("active_intents:\n  - id: A\n    name: a\n    status: [DRAFT]\n", ROZ_EINVALID, 4, 13,
		"status must be a single value, not a list");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope: src/**\n",
		ROZ_EINVALID, 5, 18, "owned_scope must be a list of text, not a single value");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    constraints: {a: b}\n",
		ROZ_EINVALID, 5, 18, "constraints must be a list of text, not a mapping");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    acceptance_criteria:\n"
		"      - ok\n      - [nested]\n",
		ROZ_EINVALID, 7, 9, "entry 2 of acceptance_criteria must be text, not a list");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    constraints: [a, ~]\n",
		ROZ_EINVALID, 5, 22, "entry 2 of constraints is empty");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    created_at: [2026]\n",
		ROZ_EINVALID, 5, 17, "created_at must be a single value, not a list");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    updated_at: {d: 1}\n",
		ROZ_EINVALID, 5, 17, "updated_at must be a single value, not a mapping");
}

static void test_missing_fields(void **state)
{
	(void)state;
	refused("active_intents:\n  - name: a\n    status: DRAFT\n", ROZ_EINVALID, 2, 5, "this intent has no id");
	refused("active_intents:\n  - id: ~\n    name: a\n    status: DRAFT\n", ROZ_EINVALID, 2, 5, "no id");
	refused("active_intents:\n  - id: A\n    status: DRAFT\n", ROZ_EINVALID, 2, 5, "the intent 'A' has no name");
	refused("active_intents:\n  - id: A\n    name: \"  \"\n    status: DRAFT\n", ROZ_EINVALID, 3, 11,
		"the intent's name is empty");
	refused("active_intents:\n  - id: A\n    name: a\n", ROZ_EINVALID, 2, 5,
		"the intent 'A' has no status; give it one of DRAFT, IN_PROGRESS, COMPLETED or ARCHIVED");
	refused("active_intents:\n  - id: A\n    name: a\n    status:\n", ROZ_EINVALID, 2, 5, "has no status");
	refused("active_intents:\n  - id: A\n    id: B\n", ROZ_EINVALID, 3, 5,
		"the key id appears twice in this intent (first at line 2)");
}

static void test_unknown_status(void **state)
{
	(void)state;
	refused("active_intents:\n  - id: A\n    name: a\n    status: in_progress\n", ROZ_EINVALID, 4, 13,
		"unknown status 'in_progress'; the status is one of DRAFT, IN_PROGRESS, COMPLETED or "
		"ARCHIVED, spelt exactly so");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DONE\n", ROZ_EINVALID, 4, 13,
		"unknown status 'DONE'");
	refused("active_intents:\n  - id: A\n    name: a\n    status: \"IN_PROGRESS \"\n", ROZ_EINVALID, 4, 13,
		"unknown status 'IN_PROGRESS '");
}

static void test_duplicate_ids(void **state)
{
	(void)state;
	refused("active_intents:\n"
		"  - {id: INT-001, name: a, status: DRAFT}\n"
		"  - {id: INT-002, name: b, status: DRAFT}\n"
		"  - id: INT-001\n"
		"    name: c\n"
		"    status: DRAFT\n",
		ROZ_EINVALID, 4, 5, "the id 'INT-001' is used twice, by the intents at lines 2 and 4");
	/* ids compare exactly: case differs, both read */
	roz_intents ints;
	must_parse("active_intents:\n  - {id: a, name: a, status: DRAFT}\n  - {id: A, name: b, status: DRAFT}\n", &ints);
	assert_int_equal(ints.n, 2);
	roz_intents_dispose(&ints);
}

static void test_invalid_globs(void **state)
{
	(void)state;
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope:\n"
		"      - src/**\n      - /etc/**\n",
		ROZ_EINVALID, 7, 9, "the owned_scope pattern '/etc/**' cannot be used: ");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope: [\"../x\"]\n",
		ROZ_EINVALID, 5, 19, "the owned_scope pattern '../x' cannot be used: ");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope: [\"src/[a\"]\n",
		ROZ_EINVALID, 5, 19, "the owned_scope pattern 'src/[a' cannot be used: ");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope: [\"\"]\n",
		ROZ_EINVALID, 5, 19, "the owned_scope pattern '' cannot be used: ");
}

static void test_long_values_are_quoted_short(void **state)
{
	char status[300];
	char *text;
	roz_intents out;
	roz_intents_error err;

	(void)state;
	memset(status, 'Q', sizeof status - 1);
	status[sizeof status - 1] = '\0';
	text = t_sprintf("active_intents:\n  - id: A\n    name: a\n    status: %s\n", status);
	assert_int_equal(roz_intents_parse(text, strlen(text), &out, &err), ROZ_EINVALID);
	assert_non_null(strstr(err.message, "QQQ...'"));
	assert_true(strlen(err.message) < 200);
	roz_intents_error_dispose(&err);
	free(text);
}

static void test_control_characters_in_strings(void **state)
{
	(void)state;
	/* escapes reach the text that libyaml's reader never saw raw */
	refused_len("active_intents:\n  - id: A\n    name: \"a\\0b\"\n    status: DRAFT\n",
		    strlen("active_intents:\n  - id: A\n    name: \"a\\0b\"\n    status: DRAFT\n"), ROZ_EINVALID,
		    3, 11, "name holds a control character (U+0000); only tab is allowed in text");
	refused("active_intents:\n  - id: A\n    name: \"bell\\a\"\n    status: DRAFT\n", ROZ_EINVALID, 3, 11,
		"(U+0007)");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    constraints: [\"x\\ry\"]\n",
		ROZ_EINVALID, 5, 19, "constraints holds a control character (U+000D); only tab and newline");
	refused("active_intents:\n  - id: A\n    name: \"next\\Nline\"\n    status: DRAFT\n", ROZ_EINVALID, 3,
		11, "(U+0085)");
	refused("active_intents:\n  - id: A\n    name: \"del\\x7f\"\n    status: DRAFT\n", ROZ_EINVALID, 3, 11,
		"(U+007F)");
	refused("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    owned_scope: [\"src/\\e\"]\n",
		ROZ_EINVALID, 5, 19, "(U+001B)");
	/* a block scalar keeps its newline: text is one line */
	refused("active_intents:\n  - id: A\n    name: |\n      two\n      lines\n    status: DRAFT\n", ROZ_EINVALID,
		3, 11, "(U+000A)");

	/* tab is text */
	roz_intents ints;
	must_parse("active_intents:\n  - id: A\n    name: \"a\\tb\"\n    status: DRAFT\n", &ints);
	assert_string_equal(ints.items[0].name, "a\tb");
	roz_intents_dispose(&ints);
	/* constraints and criteria are prose: a block keeps its lines */
	must_parse("active_intents:\n  - id: A\n    name: a\n    status: DRAFT\n    constraints:\n      - |\n"
		   "        first line\n        second line\n    acceptance_criteria: [\"x\\ny\"]\n",
		   &ints);
	assert_string_equal(ints.items[0].constraints[0], "first line\nsecond line\n");
	assert_string_equal(ints.items[0].criteria[0], "x\ny");
	roz_intents_dispose(&ints);
}

/* ---- bounded work -------------------------------------------------------------------- */

static void test_too_many_intents(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_intents ints;

	(void)state;
	roz_buf_adds(&b, "active_intents:\n");
	for (int i = 1; i <= ROZ_INTENTS_MAX; i++)
		roz_buf_addf(&b, "  - {id: I%d, name: n, status: DRAFT}\n", i);
	must_parse(roz_buf_cstr(&b), &ints);
	assert_int_equal(ints.n, ROZ_INTENTS_MAX);
	assert_string_equal(ints.items[ROZ_INTENTS_MAX - 1].id, "I1000");
	roz_intents_dispose(&ints);

	roz_buf_adds(&b, "  - {id: I1001, name: n, status: DRAFT}\n");
	refused(roz_buf_cstr(&b), ROZ_EINVALID, 1002, 5,
		"the file lists 1001 intents; at most 1000 are read, so the file is refused");
	roz_buf_dispose(&b);
}

static void test_billion_laughs_fails_fast(void **state)
{
	static const char lol[] =
		"a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
		"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
		"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
		"f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
		"h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
		"i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
		"active_intents:\n"
		"  - {id: A, name: a, status: DRAFT, constraints: *i}\n";

	(void)state;
	/* an alias is reported where its value is written */
	refused(lol, ROZ_EINVALID, 8, 4, "entry 1 of constraints must be text, not a list");
}

/* Aliases each used many times, every use a real value: the count of values read stops it. */
static void test_alias_expansion_is_bounded(void **state)
{
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	roz_buf_adds(&b, "big: &big [");
	for (int i = 0; i < 1000; i++)
		roz_buf_adds(&b, i ? ",x" : "x");
	roz_buf_adds(&b, "]\nactive_intents:\n");
	for (int i = 0; i < 200; i++)
		roz_buf_addf(&b, "  - {id: I%d, name: n, status: DRAFT, constraints: *big}\n", i);
	/* 100 intents of 1000 values each reach the bound inside the 100th */
	refused(roz_buf_cstr(&b), ROZ_EINVALID, 1, 1010,
		"the file expands to more than 100000 values (aliases count each time they are used)");
	roz_buf_dispose(&b);
}

static void test_cycles_end(void **state)
{
	(void)state;
	refused("active_intents: &a [*a]\n", ROZ_EINVALID, 1, 17,
		"each entry of active_intents must be a mapping (id: ..., name: ...), not a list");
	refused("active_intents:\n  - &i {id: A, name: a, status: DRAFT, owned_scope: &s [*s]}\n", ROZ_EINVALID, 2,
		53, "entry 1 of owned_scope must be text, not a list");
}

/* Every allocation failing in turn: ROZ_ENOMEM or success, never a crash or leak. */
static void test_out_of_memory(void **state)
{
	roz_intents ints;
	roz_intents_error err;
	long n;

	(void)state;
	roz_alloc_fail_after(-1);
	roz_alloc_fail_after(0);
	roz_alloc_fail_after(-1);
	for (n = 0;; n++) {
		int rc;

		roz_alloc_fail_after(n);
		rc = roz_intents_parse(seed_example, strlen(seed_example), &ints, &err);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK) {
			assert_int_equal(ints.n, 2);
			roz_intents_dispose(&ints);
			break;
		}
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_int_equal(ints.n, 0);
		assert_null(err.message);
		roz_intents_error_dispose(&err);
	}
	assert_true(n > 10);
	/* and on the way to an error */
	for (n = 0; n < 40; n++) {
		int rc;

		roz_alloc_fail_after(n);
		rc = roz_intents_parse("active_intents:\n  - {id: A, name: a, status: NOPE}\n", 50, &ints, &err);
		roz_alloc_fail_after(-1);
		assert_true(rc == ROZ_ENOMEM || rc == ROZ_EINVALID);
		assert_int_equal(ints.n, 0);
		roz_intents_error_dispose(&err);
	}
}

/* ---- find ----------------------------------------------------------------------------- */

static void test_find(void **state)
{
	roz_intents ints;

	(void)state;
	must_parse(seed_example, &ints);
	assert_ptr_equal(roz_intents_find(&ints, "INT-001"), &ints.items[0]);
	assert_ptr_equal(roz_intents_find(&ints, "INT-002"), &ints.items[1]);
	assert_null(roz_intents_find(&ints, "int-001"));
	assert_null(roz_intents_find(&ints, "INT-00"));
	assert_null(roz_intents_find(&ints, ""));
	assert_null(roz_intents_find(&ints, NULL));
	assert_null(roz_intents_find(NULL, "INT-001"));
	roz_intents_dispose(&ints);
}

/* ---- <intent_context> -------------------------------------------------------------------- */

static void test_context_xml_of_the_seed(void **state)
{
	roz_intents ints;
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	must_parse(seed_example, &ints);
	roz_intents_context_xml(&ints.items[0], &b);
	assert_string_equal(roz_buf_cstr(&b),
			    "<intent_context>\n"
			    "  <intent id=\"INT-001\" name=\"JWT Authentication Migration\" status=\"IN_PROGRESS\">\n"
			    "    <owned_scope>\n"
			    "      <path>src/auth/**</path>\n"
			    "      <path>src/middleware/jwt.ts</path>\n"
			    "    </owned_scope>\n"
			    "    <constraints>\n"
			    "      <constraint>Must not use external auth providers</constraint>\n"
			    "      <constraint>Must maintain backward compatibility with Basic Auth</constraint>\n"
			    "    </constraints>\n"
			    "    <acceptance_criteria>\n"
			    "      <criterion>Unit tests in tests/auth/ pass</criterion>\n"
			    "    </acceptance_criteria>\n"
			    "  </intent>\n"
			    "</intent_context>\n");
	roz_buf_reset(&b);
	roz_intents_context_xml(&ints.items[1], &b);
	assert_string_equal(roz_buf_cstr(&b),
			    "<intent_context>\n"
			    "  <intent id=\"INT-002\" name=\"Billing cleanup\" status=\"DRAFT\">\n"
			    "    <owned_scope/>\n"
			    "    <constraints/>\n"
			    "    <acceptance_criteria/>\n"
			    "  </intent>\n"
			    "</intent_context>\n");
	roz_buf_dispose(&b);
	roz_intents_dispose(&ints);
}

static void test_context_xml_escapes(void **state)
{
	char *scope[] = {"src/<a>&'b'\"c\""};
	char *constraints[] = {"no <script> & no \"quotes\" or 'apostrophes'", "bell\a esc\x1b nul-free\x7f",
			       "tab\there\nnewline\rcr"};
	char *criteria[] = {"bad \xFF byte, cut \xE2\x82, nonchars \xEF\xBF\xBE\xEF\xBF\xBF, ok \xE2\x82\xAC"};
	roz_intent it = {
		.id = "A&B<1>",
		.name = "\"quoted\" 'single' <tag> & more\ttab\nline",
		.status = ROZ_INTENT_COMPLETED,
		.scope = scope, .nscope = 1,
		.constraints = constraints, .nconstraints = 3,
		.criteria = criteria, .ncriteria = 1,
	};
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	roz_intents_context_xml(&it, &b);
	assert_string_equal(roz_buf_cstr(&b),
			    "<intent_context>\n"
			    "  <intent id=\"A&amp;B&lt;1&gt;\" name=\"&quot;quoted&quot; &apos;single&apos; "
			    "&lt;tag&gt; &amp; more&#9;tab&#10;line\" status=\"COMPLETED\">\n"
			    "    <owned_scope>\n"
			    "      <path>src/&lt;a&gt;&amp;&apos;b&apos;&quot;c&quot;</path>\n"
			    "    </owned_scope>\n"
			    "    <constraints>\n"
			    "      <constraint>no &lt;script&gt; &amp; no &quot;quotes&quot; or &apos;apostrophes&apos;</constraint>\n"
			    "      <constraint>bell\xEF\xBF\xBD esc\xEF\xBF\xBD nul-free\x7f</constraint>\n"
			    "      <constraint>tab\there\nnewline\rcr</constraint>\n"
			    "    </constraints>\n"
			    "    <acceptance_criteria>\n"
			    "      <criterion>bad \xEF\xBF\xBD byte, cut \xEF\xBF\xBD\xEF\xBF\xBD, nonchars "
			    "\xEF\xBF\xBD\xEF\xBF\xBD, ok \xE2\x82\xAC</criterion>\n"
			    "    </acceptance_criteria>\n"
			    "  </intent>\n"
			    "</intent_context>\n");
	roz_buf_dispose(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_example_field_by_field),
		cmocka_unit_test(test_every_status),
		cmocka_unit_test(test_number_like_scalars_are_text),
		cmocka_unit_test(test_unknown_keys_are_ignored),
		cmocka_unit_test(test_empty_and_null_files),
		cmocka_unit_test(test_null_lists_and_optional_fields),
		cmocka_unit_test(test_aliases_to_scalars_and_lists),
		cmocka_unit_test(test_crlf_and_bom),
		cmocka_unit_test(test_id_limits),
		cmocka_unit_test(test_malformed_yaml),
		cmocka_unit_test(test_positions_count_like_an_editor),
		cmocka_unit_test(test_not_utf8),
		cmocka_unit_test(test_over_size),
		cmocka_unit_test(test_nul_in_the_file),
		cmocka_unit_test(test_deep_nesting_is_refused_fast),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_anchor_limit),
		cmocka_unit_test(test_top_level_shapes),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_missing_fields),
		cmocka_unit_test(test_unknown_status),
		cmocka_unit_test(test_duplicate_ids),
		cmocka_unit_test(test_invalid_globs),
		cmocka_unit_test(test_long_values_are_quoted_short),
		cmocka_unit_test(test_control_characters_in_strings),
		cmocka_unit_test(test_too_many_intents),
		cmocka_unit_test(test_billion_laughs_fails_fast),
		cmocka_unit_test(test_alias_expansion_is_bounded),
		cmocka_unit_test(test_cycles_end),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_context_xml_of_the_seed),
		cmocka_unit_test(test_context_xml_escapes),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
