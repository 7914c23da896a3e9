/*
 * test_ledger.c - the ledger's record of a write: which lines a write put
 * in a file and their hashes, the record as one Agent Trace line any
 * reader accepts, and a line read back, from roz or from another tool.
 *
 * Expected hashes were computed outside roz, with `printf '<text>' | sha256sum`
 * over the lines joined by "\n".
 */
#include "support.h"

#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/utf8.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H_A_NL_B "7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78" /* "a\nb" */
#define H_A "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"      /* "a" */
#define H_B "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"      /* "b" */
#define H_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  /* "" */
#define H_A_CR "961a57df036f6c4f44ca8a054271c45e823f469bcc439f0255c40974c3e3d131"   /* "a\r" */
#define H_ALPHA_BETA "1dc5bb42beb4125acff48fad903c5dae81244cf6429b8b1a6df71469c315d3c3" /* "α\nβ" */
#define H_TWO_THREE "43fc3d02ea6e854a19e994c75467d8163dde2464c83a12a5c56c59f47f75e253" /* "two\nthree" */
#define H_TWO "3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3"    /* "two" */
#define H_ONE "7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed"    /* "one" */
#define H_LAST "3547cb112ac4489af2310c0626cdba6f3097a2ad5a3b42ddd3b59c76c7a079a3"   /* "last" */
#define H_FOO "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"    /* "foo" */
#define H_FOO_FOO "1456b9f18ad2eb4f9f0ac61c68d54b1e92f5f4b0097cb6572dd1739cd0143426" /* "foo foo" */

#define UUID "0b7c6f0e-3d1a-4c2b-9e8f-5a4b3c2d1e0f"

static void hash_is(const char *text, unsigned long start, unsigned long end, const char *want)
{
	char out[ROZ_SHA256_HEX_SIZE];

	roz_ledger_hash_lines(text, strlen(text), start, end, out);
	assert_string_equal(out, want);
}

static void hashes_join_lines_without_their_terminators(void **state)
{
	(void)state;
	/* with or without the final newline, the same two lines */
	hash_is("a\nb\n", 1, 2, H_A_NL_B);
	hash_is("a\nb", 1, 2, H_A_NL_B);
	hash_is("a\nb\n", 1, 1, H_A);
	hash_is("a\nb\n", 2, 2, H_B);
	hash_is("a\nb", 2, 2, H_B);
	/* one empty line */
	hash_is("\n", 1, 1, H_EMPTY);
	hash_is("x\n\ny\n", 2, 2, H_EMPTY);
	/* a CR before the LF belongs to its line */
	hash_is("a\r\nb\r\n", 1, 1, H_A_CR);
	hash_is("\xce\xb1\n\xce\xb2\n", 1, 2, H_ALPHA_BETA);
	hash_is("one\ntwo\nthree\nfour\n", 2, 3, H_TWO_THREE);
	/* lines past the end are not there */
	hash_is("a\nb\n", 1, 9, H_A_NL_B);
	hash_is("a\nb\n", 5, 6, H_EMPTY);
	hash_is("", 1, 1, H_EMPTY);
}

static void lines_are_counted_as_an_editor_shows_them(void **state)
{
	(void)state;
	assert_int_equal(roz_ledger_line_count("a\nb\n", 4), 2);
	assert_int_equal(roz_ledger_line_count("a\nb", 3), 2);
	assert_int_equal(roz_ledger_line_count("", 0), 0);
	assert_int_equal(roz_ledger_line_count(NULL, 0), 0);
	assert_int_equal(roz_ledger_line_count("\n", 1), 1);
	assert_int_equal(roz_ledger_line_count("\n\n", 2), 2);
	assert_int_equal(roz_ledger_line_count("x", 1), 1);
	assert_int_equal(roz_ledger_line_count("a\r\nb\r\n", 6), 2);
	/* a NUL is a byte like any other */
	assert_int_equal(roz_ledger_line_count("a\0b\nc", 5), 2);
}

/* ---- ranges of a write ---------------------------------------------------- */

struct want {
	unsigned long start, end;
	const char *hash;
};

static void ranges_are(const char *tool, const char *input_json, bool whole, const char *content,
		       const struct want *want, size_t n)
{
	cJSON *input = NULL;
	roz_ledger_ranges r;

	if (input_json)
		assert_int_equal(roz_json_parse(input_json, strlen(input_json), &input), ROZ_OK);
	assert_int_equal(roz_ledger_ranges_of_write(tool, input, whole, content, content ? strlen(content) : 0, &r),
			 ROZ_OK);
	assert_int_equal(r.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(r.items[i].start_line, want[i].start);
		assert_int_equal(r.items[i].end_line, want[i].end);
		if (want[i].hash)
			assert_string_equal(r.items[i].hash, want[i].hash);
	}
	roz_ledger_ranges_dispose(&r);
	assert_null(r.items);
	cJSON_Delete(input);
}

static void a_write_owns_the_whole_file(void **state)
{
	static const struct want ab = {1, 2, H_A_NL_B};

	(void)state;
	ranges_are("Write", "{\"file_path\":\"a.txt\",\"content\":\"a\\nb\\n\"}", false, "a\nb\n", &ab, 1);
	ranges_are("Write", "{}", false, "a\nb", &ab, 1);
	/* an empty file has no lines to attribute */
	ranges_are("Write", "{}", false, "", NULL, 0);
	ranges_are("Write", NULL, false, NULL, NULL, 0);
	ranges_are("NotebookEdit", "{\"notebook_path\":\"n.ipynb\",\"new_source\":\"b\"}", false, "a\nb\n", &ab,
		   1);
	/* a Bash target is the whole file; Bash alone names no lines */
	ranges_are("Bash", "{\"command\":\"printf 'a\\\\nb' > f\"}", true, "a\nb", &ab, 1);
	ranges_are("Bash", "{\"command\":\"make\"}", false, "a\nb", NULL, 0);
	ranges_are("Read", "{}", false, "a\nb", NULL, 0);
	ranges_are(NULL, NULL, false, "a\nb", NULL, 0);
	ranges_are(NULL, NULL, true, "a\nb", &ab, 1);
}

static const char FILE4[] = "one\ntwo\nthree\nfour\n";

static void an_edit_owns_the_lines_its_new_text_spans(void **state)
{
	static const struct want middle = {2, 3, H_TWO_THREE}, start = {1, 1, H_ONE}, nl = {2, 2, H_TWO},
				 last = {3, 3, H_LAST}, two_three = {2, 3, H_TWO_THREE};

	(void)state;
	ranges_are("Edit", "{\"old_string\":\"2\\n3\",\"new_string\":\"two\\nthree\"}", false, FILE4, &middle, 1);
	ranges_are("Edit", "{\"new_string\":\"one\"}", false, FILE4, &start, 1);
	/* part of a line is its whole line */
	ranges_are("Edit", "{\"new_string\":\"ne\"}", false, FILE4, &start, 1);
	/* a new text ending in "\n" ends on the line of that "\n" */
	ranges_are("Edit", "{\"new_string\":\"two\\n\"}", false, FILE4, &nl, 1);
	/* starting with one: it starts on the line that "\n" ends */
	ranges_are("Edit", "{\"new_string\":\"\\nthree\"}", false, FILE4, &two_three, 1);
	ranges_are("Edit", "{\"new_string\":\"last\"}", false, "a\nb\nlast", &last, 1);
}

static void edits_that_name_nothing_give_no_range(void **state)
{
	(void)state;
	/* not found: the file changed again since */
	ranges_are("Edit", "{\"new_string\":\"seven\"}", false, FILE4, NULL, 0);
	/* a deletion */
	ranges_are("Edit", "{\"old_string\":\"two\\n\",\"new_string\":\"\"}", false, FILE4, NULL, 0);
	ranges_are("Edit", "{\"old_string\":\"two\"}", false, FILE4, NULL, 0);
	ranges_are("Edit", "{\"new_string\":17}", false, FILE4, NULL, 0);
	ranges_are("Edit", "{\"new_string\":null}", false, FILE4, NULL, 0);
	ranges_are("Edit", "[\"two\"]", false, FILE4, NULL, 0);
	ranges_are("Edit", "\"two\"", false, FILE4, NULL, 0);
	ranges_are("Edit", NULL, false, FILE4, NULL, 0);
	ranges_are("Edit", "{\"new_string\":\"two\"}", false, "", NULL, 0);
	ranges_are("Edit", "{\"new_string\":\"two\"}", false, NULL, NULL, 0);
	/* longer than the file */
	ranges_are("Edit", "{\"new_string\":\"one\\ntwo\\nthree\\nfour\\nfive\"}", false, FILE4, NULL, 0);
}

static void replace_all_owns_every_occurrence(void **state)
{
	static const struct want three[] = {{2, 2, H_FOO}, {4, 4, H_FOO_FOO}, {6, 6, H_FOO}};
	static const char text[] = "x\nfoo\ny\nfoo foo\nz\nfoo\n";

	(void)state;
	/* four occurrences on three lines: the two sharing a line are one range */
	ranges_are("Edit", "{\"new_string\":\"foo\",\"replace_all\":true}", false, text, three, 3);
	/* without replace_all, only the first */
	ranges_are("Edit", "{\"new_string\":\"foo\",\"replace_all\":false}", false, text, three, 1);
	ranges_are("Edit", "{\"new_string\":\"foo\",\"replace_all\":\"yes\"}", false, text, three, 1);
	ranges_are("Edit", "{\"new_string\":\"foo\"}", false, text, three, 1);
	{
		/* occurrences do not overlap: "x\nx" in "x\nx\nx" is there once, not at lines 2-3 too */
		static const struct want once = {1, 2, NULL};

		ranges_are("Edit", "{\"new_string\":\"x\\nx\",\"replace_all\":true}", false, "x\nx\nx\n", &once, 1);
	}
	{
		/* ranges on adjacent lines stay apart */
		static const struct want lines[] = {{1, 1, NULL}, {2, 2, NULL}, {3, 3, NULL}};
		static const struct want pairs[] = {{1, 2, NULL}, {3, 4, NULL}};

		ranges_are("Edit", "{\"new_string\":\"q\",\"replace_all\":true}", false, "q\nq\nq\n", lines, 3);
		ranges_are("Edit", "{\"new_string\":\"q\\nq\",\"replace_all\":true}", false, "q\nq\nq\nq", pairs, 2);
	}
}

static void multiedit_ranges_are_sorted_and_overlaps_merged(void **state)
{
	static const struct want merged[] = {{1, 1, H_ONE}, {2, 3, H_TWO_THREE}};
	static const struct want apart[] = {{1, 1, H_ONE}, {3, 3, NULL}};

	(void)state;
	/* given last line first; "two\nthree" and "three" overlap; "one" only touches them */
	ranges_are("MultiEdit",
		   "{\"file_path\":\"f\",\"edits\":[{\"old_string\":\"3\",\"new_string\":\"three\"},"
		   "{\"new_string\":\"two\\nthree\"},{\"new_string\":\"one\"}]}",
		   false, FILE4, merged, 2);
	/* edits that name nothing are skipped, the others still count */
	ranges_are("MultiEdit",
		   "{\"edits\":[{\"new_string\":\"three\"},7,{\"new_string\":\"\"},{\"new_string\":\"gone\"},"
		   "{\"new_string\":\"one\"},{\"new_string\":\"one\",\"replace_all\":true}]}",
		   false, FILE4, apart, 2);
	ranges_are("MultiEdit", "{\"edits\":{\"new_string\":\"one\"}}", false, FILE4, NULL, 0);
	ranges_are("MultiEdit", "{}", false, FILE4, NULL, 0);
	ranges_are("MultiEdit", "{\"edits\":[]}", false, FILE4, NULL, 0);
}

/* ---- writing a record ------------------------------------------------------ */

/* "s-e" of each range, "m" after the lines the agent rewrote (MIXED): "1-2 4-4m". */
static char *ranges_text(const roz_ledger_ranges *r, char *out, size_t cap)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < r->n; i++)
		at += (size_t)snprintf(out + at, cap - at, "%s%lu-%lu%s", i ? " " : "", r->items[i].start_line,
				       r->items[i].end_line, r->items[i].who == ROZ_LEDGER_WHO_MIXED ? "m" : "");
	return out;
}

/* The spans roz_ledger_ranges_of_patch finds as "s-e s-e", or "unused" when it does not go by the patch. */
static char *patch_ranges(const char *response_json, const char *content)
{
	static char out[256];
	cJSON *resp = NULL;
	roz_ledger_ranges r;
	bool used = true;

	assert_int_equal(roz_json_parse(response_json, strlen(response_json), &resp), ROZ_OK);
	assert_int_equal(roz_ledger_ranges_of_patch(resp, content, strlen(content), &r, &used), ROZ_OK);
	ranges_text(&r, out, sizeof out);
	if (!used) {
		assert_int_equal(r.n, 0);
		strcpy(out, "unused");
	}
	roz_ledger_ranges_dispose(&r);
	cJSON_Delete(resp);
	return out;
}

static void an_edit_is_credited_where_claude_codes_patch_says_it_landed(void **state)
{
	/*
	 * What Claude Code 2.1.332 hands PostToolUse for an Edit (captured by the e2e scenario
	 * capture-session-mix, bench/session-mix.tsv): the file before, and the patch, whose lines are
	 * shown as the terminal shows them (a tab as spaces), so only its shape is relied on
	 */
	const char *captured =
		"{\"filePath\":\"/tmp/roz-e2e/work/src/mod0.c\",\"oldString\":\"/* TODO 0: compute it */\","
		"\"newString\":\"/* computed: 0 */\",\"originalFile\":\"/* mod0.c - part 0 of the example */\\n"
		"#include \\\"mod.h\\\"\\n\\nint mod0_value(void)\\n{\\n\\treturn 0; /* TODO 0: compute it */\\n}\\n\","
		"\"structuredPatch\":[{\"oldStart\":3,\"oldLines\":5,\"newStart\":3,\"newLines\":5,\"lines\":["
		"\" \",\" int mod0_value(void)\",\" {\",\"-  return 0; /* TODO 0: compute it */\","
		"\"+  return 0; /* computed: 0 */\",\" }\"]}],\"userModified\":false,\"replaceAll\":false}";
	const char *after = "/* mod0.c - part 0 of the example */\n#include \"mod.h\"\n\nint mod0_value(void)\n{\n"
			    "\treturn 0; /* computed: 0 */\n}\n";
	/* a person's identical line above: the first occurrence is theirs, the patch says line 6 */
	const char *twice = "{\"structuredPatch\":[{\"oldStart\":5,\"oldLines\":3,\"newStart\":5,\"newLines\":3,"
			    "\"lines\":[\" e\",\"-f\",\"+x = 1;\",\" g\"]}]}";
	const char *replace_all = "{\"structuredPatch\":[{\"oldStart\":1,\"oldLines\":2,\"newStart\":1,\"newLines\":2,"
				  "\"lines\":[\" a\",\"-b\",\"+B\"]},{\"oldStart\":8,\"oldLines\":2,\"newStart\":8,"
				  "\"newLines\":3,\"lines\":[\" h\",\"+I1\",\"+I2\",\"-i\"]}]}";
	const char *ten = "a\nB\nc\nd\ne\nf\ng\nh\nI1\nI2\n";

	(void)state;
	/* each replaces a line that was there: the agent rewrote it (mixed) */
	assert_string_equal(patch_ranges(captured, after), "6-6m");
	assert_string_equal(patch_ranges(twice, "a\nx = 1;\nc\nd\ne\nx = 1;\ng\n"), "6-6m");
	/* every hunk; added lines side by side make one range */
	assert_string_equal(patch_ranges(replace_all, ten), "2-2m 9-10m");
	/* a deletion adds nothing, and says so */
	assert_string_equal(patch_ranges("{\"structuredPatch\":[{\"oldStart\":2,\"oldLines\":1,\"newStart\":1,"
					 "\"newLines\":0,\"lines\":[\"-b\",\"\\\\ No newline at end of file\"]}]}",
					 "a\n"),
			    "");
	/* a Write that made the file: its patch is empty, the whole file is the caller's to claim */
	assert_string_equal(patch_ranges("{\"type\":\"create\",\"structuredPatch\":[]}", "a\n"), "unused");
	/* a Write over a file with the same text: nothing added */
	assert_string_equal(patch_ranges("{\"type\":\"update\",\"structuredPatch\":[]}", "a\n"), "");
	/* not Claude Code's patch: nothing is taken from it */
	assert_string_equal(patch_ranges("{}", "a\n"), "unused");
	assert_string_equal(patch_ranges("{\"structuredPatch\":{}}", "a\n"), "unused");
	assert_string_equal(patch_ranges("{\"structuredPatch\":[{\"newStart\":1,\"newLines\":1,\"lines\":[\"+a\",\"+b\"]}]}",
					 "a\nb\n"),
			    "unused"); /* the counts do not add up */
	assert_string_equal(patch_ranges("{\"structuredPatch\":[{\"newStart\":5,\"newLines\":1,\"lines\":[\"+a\"]}]}",
					 "a\nb\n"),
			    "unused"); /* past the file's end */
	assert_string_equal(patch_ranges("{\"structuredPatch\":[{\"newStart\":1,\"newLines\":1,\"lines\":[\"*a\"]}]}",
					 "a\n"),
			    "unused");
	assert_string_equal(patch_ranges("{\"structuredPatch\":[{\"newStart\":-1,\"newLines\":1,\"lines\":[\"+a\"]}]}",
					 "a\n"),
			    "unused");
}

static void rewritten_lines_are_mixed_inserted_lines_the_agents(void **state)
{
	/* an Edit that inserts a line after "b": nothing was there, the line is the agent's */
	const char *insert = "{\"structuredPatch\":[{\"oldStart\":1,\"oldLines\":3,\"newStart\":1,\"newLines\":4,"
			     "\"lines\":[\" a\",\" b\",\"+new\",\" c\"]}]}";
	/* one that replaces "b" with two lines: both stand where b stood */
	const char *replace = "{\"structuredPatch\":[{\"oldStart\":1,\"oldLines\":3,\"newStart\":1,\"newLines\":4,"
			      "\"lines\":[\" a\",\"-b\",\"+B1\",\"+B2\",\" c\"]}]}";
	/* a MultiEdit: a rewrite, then an insertion right after it; and a hunk whose removal comes last */
	const char *both = "{\"structuredPatch\":[{\"oldStart\":1,\"oldLines\":4,\"newStart\":1,\"newLines\":5,"
			   "\"lines\":[\" a\",\"-b\",\"+B\",\" c\",\"+ins\",\" d\"]},{\"oldStart\":9,\"oldLines\":2,"
			   "\"newStart\":10,\"newLines\":2,\"lines\":[\" h\",\"+I\",\"-i\"]}]}";
	char out[128];
	roz_ledger_ranges r;

	(void)state;
	assert_string_equal(patch_ranges(insert, "a\nb\nnew\nc\n"), "3-3");
	assert_string_equal(patch_ranges(replace, "a\nB1\nB2\nc\n"), "2-3m");
	/* side by side but of different contributors: two ranges */
	assert_string_equal(patch_ranges(both, "a\nB\nc\nins\nd\ne\nf\ng\nx\nh\nI\n"), "2-2m 4-4 11-11m");

	/* the same from the file's content before and after a change in place */
	assert_int_equal(roz_ledger_ranges_of_change("a\nb\nc\n", 6, "a\nb\nnew\nc\n", 10, &r), ROZ_OK);
	assert_string_equal(ranges_text(&r, out, sizeof out), "3-3");
	roz_ledger_ranges_dispose(&r);
	assert_int_equal(roz_ledger_ranges_of_change("a\nb\nc\n", 6, "a\nB1\nB2\nc\n", 10, &r), ROZ_OK);
	assert_string_equal(ranges_text(&r, out, sizeof out), "2-3m");
	roz_ledger_ranges_dispose(&r);
	/* a line rewritten at the top, one inserted further down, one removed at the end */
	assert_int_equal(roz_ledger_ranges_of_change("a\nb\nc\nd\ne\n", 10, "A\nb\nc\nnew\nd\n", 12, &r), ROZ_OK);
	assert_string_equal(ranges_text(&r, out, sizeof out), "1-1m 4-4");
	roz_ledger_ranges_dispose(&r);
	/* nothing before: every line inserted */
	assert_int_equal(roz_ledger_ranges_of_change(NULL, 0, "x\ny\n", 4, &r), ROZ_OK);
	assert_string_equal(ranges_text(&r, out, sizeof out), "1-2");
	roz_ledger_ranges_dispose(&r);
}

static roz_ledger_ranges three_ranges(void)
{
	roz_ledger_ranges r = {0};
	static const roz_ledger_range items[] = {{1, 2, H_A_NL_B, 0, 0}, {4, 4, H_B, 0, 0}, {7, 9, "", 0, 0}};

	r.items = roz_malloc(sizeof items);
	assert_non_null(r.items);
	memcpy(r.items, items, sizeof items);
	r.n = r.cap = 3;
	return r;
}

static roz_ledger_record_in full_record(const roz_ledger_file *files, size_t n)
{
	roz_ledger_record_in in = {0};

	in.id = UUID;
	in.timestamp = roz_time_make(1767609000, 500000000); /* 2026-01-05T10:30:00.5Z */
	in.revision = "4f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c";
	in.roz_version = "0.2.0";
	in.session_id = "sess-42";
	in.model_id = "claude-opus-4-5";
	in.intent_id = "INT-001";
	in.refactor = false;
	in.tool_name = "Edit";
	in.files = files;
	in.nfiles = n;
	return in;
}

/* The line without its "\n": exactly one, at the end. */
static cJSON *written(const roz_ledger_record_in *in, roz_buf *b)
{
	cJSON *doc = NULL;

	roz_buf_reset(b);
	assert_int_equal(roz_ledger_record_write(in, b), ROZ_OK);
	assert_true(b->len > 1);
	assert_int_equal(b->ptr[b->len - 1], '\n');
	assert_null(memchr(b->ptr, '\n', b->len - 1));
	assert_true(roz_utf8_valid(b->ptr, b->len));
	assert_true(roz_json_valid(b->ptr, b->len - 1));
	assert_int_equal(roz_json_parse(b->ptr, b->len - 1, &doc), ROZ_OK);
	return doc;
}

static const char *str_at(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void only_keys(const cJSON *o, const char *const *keys)
{
	const cJSON *m;

	assert_true(cJSON_IsObject(o));
	cJSON_ArrayForEach(m, o) {
		bool known = false;

		for (const char *const *k = keys; *k; k++)
			known = known || !strcmp(*k, m->string);
		if (!known)
			fail_msg("unexpected member %s", m->string);
	}
}

static bool hex_run(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
			return false;
	return true;
}

/* A URI as RFC 3986 has it: a scheme, then only unreserved, reserved and %XX. */
static void is_uri(const char *s)
{
	assert_non_null(s);
	assert_true((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'));
	assert_non_null(strchr(s, ':'));
	for (const char *p = s; *p; p++) {
		if (*p == '%') {
			assert_true(hex_run(p + 1, 2));
			continue;
		}
		assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
				       ":/?#[]@!$&'()*+,;=",
				       *p));
	}
}

/* What the Agent Trace JSON schema (0.1.0) asks of a record. */
static void follows_the_schema(const cJSON *doc)
{
	static const char *const top[] = {"version", "id", "timestamp", "vcs", "tool", "files", "metadata", NULL};
	static const char *const file[] = {"path", "conversations", NULL};
	static const char *const conv[] = {"url", "contributor", "ranges", "related", NULL};
	static const char *const who[] = {"type", "model_id", NULL};
	static const char *const range[] = {"start_line", "end_line", "content_hash", "contributor", NULL};
	static const char *const rel[] = {"type", "url", NULL};
	static const char *const tv[] = {"type", "revision", NULL};
	static const char *const tool[] = {"name", "version", NULL};
	const char *version = str_at(doc, "version"), *id = str_at(doc, "id"), *ts = str_at(doc, "timestamp");
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files"), *f, *vcs, *t;
	size_t dot;
	roz_time when;

	only_keys(doc, top);
	/* ^[0-9]+\.[0-9]+\.[0-9]+$ */
	assert_non_null(version);
	dot = strspn(version, "0123456789");
	assert_true(dot > 0 && version[dot] == '.');
	version += dot + 1;
	dot = strspn(version, "0123456789");
	assert_true(dot > 0 && version[dot] == '.');
	assert_true(strspn(version + dot + 1, "0123456789") == strlen(version + dot + 1) && version[dot + 1]);
	/* a UUID: 8-4-4-4-12 hex, version 1-8, variant 8-b */
	assert_non_null(id);
	assert_int_equal(strlen(id), 36);
	assert_true(hex_run(id, 8) && id[8] == '-' && hex_run(id + 9, 4) && id[13] == '-' && hex_run(id + 14, 4) &&
		    id[18] == '-' && hex_run(id + 19, 4) && id[23] == '-' && hex_run(id + 24, 12));
	assert_non_null(strchr("12345678", id[14]));
	assert_non_null(strchr("89abAB", id[19]));
	/* RFC 3339 in UTC, as the schema's pattern wants */
	assert_non_null(ts);
	assert_int_equal(roz_time_parse(ts, &when), ROZ_OK);
	assert_int_equal(ts[strlen(ts) - 1], 'Z');
	assert_int_equal(ts[10], 'T');
	if ((vcs = cJSON_GetObjectItemCaseSensitive(doc, "vcs"))) {
		only_keys(vcs, tv);
		assert_string_equal(str_at(vcs, "type"), "git");
		assert_non_null(str_at(vcs, "revision"));
	}
	if ((t = cJSON_GetObjectItemCaseSensitive(doc, "tool"))) {
		only_keys(t, tool);
		assert_non_null(str_at(t, "name"));
		assert_non_null(str_at(t, "version"));
	}
	assert_true(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "metadata")));
	assert_true(cJSON_IsArray(files));
	cJSON_ArrayForEach(f, files) {
		const cJSON *convs = cJSON_GetObjectItemCaseSensitive(f, "conversations"), *c;

		only_keys(f, file);
		assert_non_null(str_at(f, "path"));
		assert_true(cJSON_IsArray(convs));
		cJSON_ArrayForEach(c, convs) {
			const cJSON *ranges = cJSON_GetObjectItemCaseSensitive(c, "ranges"), *g, *w, *rl, *x;

			only_keys(c, conv);
			if (str_at(c, "url"))
				is_uri(str_at(c, "url"));
			if ((w = cJSON_GetObjectItemCaseSensitive(c, "contributor"))) {
				only_keys(w, who);
				assert_non_null(str_at(w, "type"));
				assert_non_null(strstr(" ai human mixed unknown ", str_at(w, "type")));
				if (cJSON_GetObjectItemCaseSensitive(w, "model_id"))
					assert_true(strlen(str_at(w, "model_id")) <= 250);
			}
			assert_true(cJSON_IsArray(ranges));
			cJSON_ArrayForEach(g, ranges) {
				uint64_t s, e;
				const char *h = str_at(g, "content_hash");

				only_keys(g, range);
				if ((w = cJSON_GetObjectItemCaseSensitive(g, "contributor"))) {
					only_keys(w, who);
					assert_non_null(str_at(w, "type"));
					assert_non_null(strstr(" ai human mixed unknown ", str_at(w, "type")));
				}
				assert_true(roz_json_uint(cJSON_GetObjectItemCaseSensitive(g, "start_line"), UINT64_MAX, &s));
				assert_true(roz_json_uint(cJSON_GetObjectItemCaseSensitive(g, "end_line"), UINT64_MAX, &e));
				assert_true(s >= 1 && e >= s);
				if (h) {
					assert_int_equal(strlen(h), 71);
					assert_true(!strncmp(h, "sha256:", 7) && hex_run(h + 7, 64));
				}
			}
			if ((rl = cJSON_GetObjectItemCaseSensitive(c, "related"))) {
				assert_true(cJSON_IsArray(rl));
				cJSON_ArrayForEach(x, rl) {
					only_keys(x, rel);
					assert_non_null(str_at(x, "type"));
					is_uri(str_at(x, "url"));
				}
			}
		}
	}
}

/* The first file's first conversation of a record. */
static cJSON *first_conversation(const cJSON *doc)
{
	return cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "files"), 0),
						 "conversations"),
		0);
}

static void a_record_is_one_agent_trace_line(void **state)
{
	roz_ledger_ranges r = three_ranges();
	roz_ledger_ranges none = {0};
	roz_ledger_file files[] = {{.path = "src/a.c", .ranges = &r}, {.path = "docs/b.md", .ranges = &none}, {.path = "c", .ranges = NULL}};
	roz_ledger_record_in in = full_record(files, 3);
	roz_buf b = ROZ_BUF_INIT;
	cJSON *doc, *conv, *meta, *g;

	(void)state;
	doc = written(&in, &b);
	follows_the_schema(doc);
	assert_string_equal(str_at(doc, "version"), "0.1.0");
	assert_string_equal(str_at(doc, "id"), UUID);
	assert_string_equal(str_at(doc, "timestamp"), "2026-01-05T10:30:00.500Z");
	assert_string_equal(str_at(cJSON_GetObjectItemCaseSensitive(doc, "vcs"), "revision"), in.revision);
	assert_string_equal(str_at(cJSON_GetObjectItemCaseSensitive(doc, "tool"), "name"), "roz");
	assert_string_equal(str_at(cJSON_GetObjectItemCaseSensitive(doc, "tool"), "version"), "0.2.0");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "files")), 3);
	conv = first_conversation(doc);
	assert_string_equal(str_at(conv, "url"), "urn:claude-code:session:sess-42");
	assert_string_equal(str_at(cJSON_GetObjectItemCaseSensitive(conv, "contributor"), "model_id"),
			    "anthropic/claude-opus-4-5");
	g = cJSON_GetObjectItemCaseSensitive(conv, "ranges");
	assert_int_equal(cJSON_GetArraySize(g), 3);
	assert_string_equal(str_at(cJSON_GetArrayItem(g, 0), "content_hash"), "sha256:" H_A_NL_B);
	/* a range without a hash roz can check is written without one */
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(g, 2), "content_hash"));
	g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(conv, "related"), 0);
	assert_string_equal(str_at(g, "type"), "specification");
	assert_string_equal(str_at(g, "url"), "urn:roz:intent:INT-001");
	meta = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "roz");
	assert_string_equal(str_at(meta, "intent_id"), "INT-001");
	assert_string_equal(str_at(meta, "mutation_class"), "INTENT_EVOLUTION");
	assert_string_equal(str_at(meta, "session_id"), "sess-42");
	assert_string_equal(str_at(meta, "tool_name"), "Edit");
	cJSON_Delete(doc);

	/* the line is appended to what the buffer holds */
	roz_buf_reset(&b);
	roz_buf_adds(&b, "before\n");
	assert_int_equal(roz_ledger_record_write(&in, &b), ROZ_OK);
	assert_true(!strncmp(b.ptr, "before\n{\"version\":", 18));

	/* no revision, intent or model: no vcs, no related, no model_id, intent null */
	in.revision = NULL;
	in.intent_id = NULL;
	in.model_id = NULL;
	in.refactor = true;
	doc = written(&in, &b);
	follows_the_schema(doc);
	assert_null(cJSON_GetObjectItemCaseSensitive(doc, "vcs"));
	conv = first_conversation(doc);
	assert_null(cJSON_GetObjectItemCaseSensitive(conv, "related"));
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(conv, "contributor"), "model_id"));
	meta = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "roz");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(meta, "intent_id")));
	assert_string_equal(str_at(meta, "mutation_class"), "AST_REFACTOR");
	cJSON_Delete(doc);

	/* empty strings are as good as none */
	in.revision = "";
	in.intent_id = "";
	doc = written(&in, &b);
	assert_null(cJSON_GetObjectItemCaseSensitive(doc, "vcs"));
	meta = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "roz");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(meta, "intent_id")));
	cJSON_Delete(doc);

	/* no id: not a record */
	in.id = NULL;
	roz_buf_reset(&b);
	assert_int_equal(roz_ledger_record_write(&in, &b), ROZ_EINVALID);
	assert_int_equal(b.len, 0);
	roz_buf_dispose(&b);
	roz_ledger_ranges_dispose(&r);
}

/* The record's line without its "\n". */
static char *line_of(const roz_ledger_record_in *in)
{
	roz_buf b = ROZ_BUF_INIT;
	cJSON *doc;
	char *line;

	doc = written(in, &b);
	follows_the_schema(doc);
	cJSON_Delete(doc);
	line = t_sprintf("%.*s", (int)(b.len - 1), b.ptr);
	roz_buf_dispose(&b);
	return line;
}

#define HEAD_OF_RECORD                                                                                      \
	"{\"version\":\"0.1.0\",\"id\":\"" UUID "\",\"timestamp\":\"2026-01-05T10:30:00.500Z\","               \
	"\"vcs\":{\"type\":\"git\",\"revision\":\"4f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c\"},"                \
	"\"tool\":{\"name\":\"roz\",\"version\":\"0.2.0\"},\"files\":["
#define AI_CONVERSATION                                                                                     \
	"\"conversations\":[{\"url\":\"urn:claude-code:session:sess-42\","                                        \
	"\"contributor\":{\"type\":\"ai\",\"model_id\":\"anthropic/claude-opus-4-5\"},\"ranges\":["
#define RELATED "],\"related\":[{\"type\":\"specification\",\"url\":\"urn:roz:intent:INT-001\"}]}]}"

static void each_kind_of_record_is_written_as_it_is(void **state)
{
	roz_ledger_ranges r = three_ranges(), whole = {0};
	roz_ledger_file files[3] = {{.path = "src/a.c", .ranges = &r}};
	roz_ledger_record_in in;
	roz_ledger_rec rec;
	char *line;

	(void)state;
	/* a rewritten range names its contributor, the model that rewrote it with it; another kind, alone */
	r.items[1].who = ROZ_LEDGER_WHO_MIXED;
	r.items[2].who = ROZ_LEDGER_WHO_UNKNOWN;
	in = full_record(files, 1);
	line = line_of(&in);
	assert_string_equal(line, HEAD_OF_RECORD "{\"path\":\"src/a.c\"," AI_CONVERSATION
				  "{\"start_line\":1,\"end_line\":2,\"content_hash\":\"sha256:" H_A_NL_B "\"},"
				  "{\"start_line\":4,\"end_line\":4,\"content_hash\":\"sha256:" H_B "\","
				  "\"contributor\":{\"type\":\"mixed\",\"model_id\":\"anthropic/claude-opus-4-5\"}},"
				  "{\"start_line\":7,\"end_line\":9,\"contributor\":{\"type\":\"unknown\"}}" RELATED "],"
				  "\"metadata\":{\"roz\":{\"intent_id\":\"INT-001\",\"mutation_class\":\"INTENT_EVOLUTION\","
				  "\"session_id\":\"sess-42\",\"tool_name\":\"Edit\"}}}");
	assert_int_equal(roz_ledger_line_parse(line, strlen(line), &rec), ROZ_OK);
	assert_int_equal(rec.files[0].ranges.items[0].who, ROZ_LEDGER_WHO_AI);
	assert_int_equal(rec.files[0].ranges.items[1].who, ROZ_LEDGER_WHO_MIXED);
	assert_int_equal(rec.files[0].ranges.items[2].who, ROZ_LEDGER_WHO_UNKNOWN);
	roz_ledger_rec_dispose(&rec);
	free(line);

	/* without a model, a mixed range says only that */
	in.model_id = NULL;
	line = line_of(&in);
	assert_non_null(strstr(line, "\"contributor\":{\"type\":\"mixed\"}}"));
	free(line);

	/* a removal and a rename: the files as they are, and what happened to them in metadata.roz */
	assert_int_equal(roz_ledger_ranges_add(&whole, 1, 1), ROZ_OK);
	strcpy(whole.items[0].hash, H_A);
	files[0] = (roz_ledger_file){.path = "src/old.c", .ranges = &r, .removed = true};
	files[1] = (roz_ledger_file){.path = "src/new.c", .ranges = &whole, .from = "src/was.c"};
	files[2] = (roz_ledger_file){.path = "src/gone.c", .removed = true};
	in = full_record(files, 3);
	in.intent_id = NULL;
	in.tool_name = "Bash";
	line = line_of(&in);
	assert_string_equal(line, HEAD_OF_RECORD "{\"path\":\"src/old.c\"," AI_CONVERSATION "]}]},"
				  "{\"path\":\"src/new.c\"," AI_CONVERSATION
				  "{\"start_line\":1,\"end_line\":1,\"content_hash\":\"sha256:" H_A "\"}]}]},"
				  "{\"path\":\"src/gone.c\"," AI_CONVERSATION "]}]}],"
				  "\"metadata\":{\"roz\":{\"intent_id\":null,\"mutation_class\":\"INTENT_EVOLUTION\","
				  "\"session_id\":\"sess-42\",\"tool_name\":\"Bash\",\"removed\":[\"src/old.c\",\"src/gone.c\"],"
				  "\"renamed\":[{\"from\":\"src/was.c\",\"to\":\"src/new.c\"}]}}}");
	assert_int_equal(roz_ledger_line_parse(line, strlen(line), &rec), ROZ_OK);
	assert_true(rec.files[0].removed && rec.files[2].removed && !rec.files[1].removed);
	assert_int_equal(rec.files[0].ranges.n, 0);
	assert_string_equal(rec.files[1].from, "src/was.c");
	assert_null(rec.files[0].from);
	roz_ledger_rec_dispose(&rec);
	free(line);

	/* a person's acceptance: theirs, no conversation, model or intent, no session */
	files[0] = (roz_ledger_file){.path = "src/a.c", .ranges = &whole};
	in = full_record(files, 1);
	in.accept = true;
	in.accepted_by = "Ada Lovelace <ada@example.org>";
	in.tool_name = NULL;
	in.transcript = "/home/ada/.claude/projects/p/s.jsonl";
	line = line_of(&in);
	assert_string_equal(line, HEAD_OF_RECORD "{\"path\":\"src/a.c\",\"conversations\":[{\"contributor\":"
				  "{\"type\":\"human\"},\"ranges\":[{\"start_line\":1,\"end_line\":1,\"content_hash\":"
				  "\"sha256:" H_A "\"}]}]}],\"metadata\":{\"roz\":{\"action\":\"accept\",\"accepted_by\":"
				  "\"Ada Lovelace <ada@example.org>\",\"session_id\":null,\"tool_name\":\"roz ledger accept\"}}}");
	assert_int_equal(roz_ledger_line_parse(line, strlen(line), &rec), ROZ_OK);
	assert_true(rec.accept);
	assert_null(rec.session_id);
	assert_null(rec.model_id);
	assert_null(rec.intent_id);
	assert_int_equal(rec.files[0].ranges.items[0].who, ROZ_LEDGER_WHO_HUMAN);
	roz_ledger_rec_dispose(&rec);
	free(line);
	/* a range a person stands for is the conversation's: it names no contributor of its own */
	whole.items[0].who = ROZ_LEDGER_WHO_HUMAN;
	line = line_of(&in);
	assert_non_null(strstr(line, "\"ranges\":[{\"start_line\":1,\"end_line\":1,\"content_hash\":\"sha256:" H_A "\"}]"));
	free(line);
	/* nobody named, another tool, a file accepted as removed */
	in.accepted_by = NULL;
	in.tool_name = "roz intent accept";
	files[0].removed = true;
	line = line_of(&in);
	assert_non_null(strstr(line, "\"ranges\":[]}]}],\"metadata\":{\"roz\":{\"action\":\"accept\",\"accepted_by\":null,"
				     "\"session_id\":null,\"tool_name\":\"roz intent accept\",\"removed\":[\"src/a.c\"]}}}"));
	free(line);
	roz_ledger_ranges_dispose(&whole);
	roz_ledger_ranges_dispose(&r);
}

static void model_ids_follow_models_dev(void **state)
{
	roz_ledger_file files[] = {{.path = "a", .ranges = NULL}};
	roz_ledger_record_in in = full_record(files, 1);
	roz_buf b = ROZ_BUF_INIT, m = ROZ_BUF_INIT;
	cJSON *doc;
	const char *id;

	(void)state;
	in.model_id = "openrouter/some-model";
	doc = written(&in, &b);
	assert_non_null(strstr(b.ptr, "\"model_id\":\"openrouter/some-model\""));
	cJSON_Delete(doc);
	/* an interactive session's model carries its context size: not part of the model's name */
	in.model_id = "claude-opus-4-8[1m]";
	doc = written(&in, &b);
	assert_non_null(strstr(b.ptr, "\"model_id\":\"anthropic/claude-opus-4-8\""));
	cJSON_Delete(doc);
	in.model_id = "[x]"; /* nothing before the tag: kept as it is */
	doc = written(&in, &b);
	assert_non_null(strstr(b.ptr, "\"model_id\":\"anthropic/[x]\""));
	cJSON_Delete(doc);

	/* 11 ASCII bytes then two-byte characters: 250 falls inside one, so 249 */
	roz_buf_adds(&m, "x");
	for (int i = 0; i < 200; i++)
		roz_buf_adds(&m, "\xc3\xa9");
	in.model_id = m.ptr;
	doc = written(&in, &b);
	follows_the_schema(doc);
	id = str_at(cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
						       cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "files"), 0),
						       "conversations"),
					       0),
			    "contributor"),
		    "model_id");
	assert_int_equal(strlen(id), 249);
	assert_true(!strncmp(id, "anthropic/x\xc3\xa9", 13));
	assert_true(roz_utf8_valid(id, strlen(id)));
	cJSON_Delete(doc);
	roz_buf_dispose(&m);
	roz_buf_dispose(&b);
}

static void any_text_makes_a_line_that_parses(void **state)
{
	roz_ledger_ranges r = three_ranges();
	roz_ledger_file files[] = {{.path = "dir/\"quoted\"\\back\n\ttab\x01\x7f\xff\xfe.c", .ranges = &r}};
	roz_ledger_record_in in = full_record(files, 1);
	roz_buf b = ROZ_BUF_INIT;
	roz_ledger_rec rec;
	cJSON *doc, *conv;

	(void)state;
	in.session_id = "s/1 \"x\"\n\xc3\x28";
	in.intent_id = "INT 1?#\x80";
	in.model_id = "m\x01\xff";
	in.revision = "rev\n\"";
	in.tool_name = "Ed\xe2\x82it";
	in.roz_version = "0.2\x80";
	doc = written(&in, &b);
	follows_the_schema(doc);
	conv = first_conversation(doc);
	/* ids are percent-encoded, so the urls stay URIs */
	assert_string_equal(str_at(conv, "url"), "urn:claude-code:session:s%2F1%20%22x%22%0A%C3%28");
	cJSON_Delete(doc);
	/* with the transcript: the conversation is that file, its path encoded but for its slashes */
	in.transcript = "/home/a b/.claude/projects/-x/s#1?.jsonl";
	doc = written(&in, &b);
	follows_the_schema(doc);
	conv = first_conversation(doc);
	assert_string_equal(str_at(conv, "url"), "file:///home/a%20b/.claude/projects/-x/s%231%3F.jsonl");
	in.transcript = "relative/t.jsonl"; /* not a path roz can name: the session's URN */
	cJSON_Delete(doc);
	doc = written(&in, &b);
	conv = first_conversation(doc);
	assert_non_null(strstr(str_at(conv, "url"), "urn:claude-code:session:"));
	assert_string_equal(str_at(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(conv, "related"), 0), "url"),
			    "urn:roz:intent:INT%201%3F%23%80");
	assert_string_equal(str_at(cJSON_GetObjectItemCaseSensitive(conv, "contributor"), "model_id"),
			    "anthropic/m\x01\xef\xbf\xbd");
	cJSON_Delete(doc);

	/* and reads back: valid text as it was, the rest repaired */
	assert_int_equal(roz_ledger_line_parse(b.ptr, b.len - 1, &rec), ROZ_OK);
	assert_string_equal(rec.files[0].path, "dir/\"quoted\"\\back\n\ttab\x01\x7f\xef\xbf\xbd\xef\xbf\xbd.c");
	assert_string_equal(rec.session_id, "s/1 \"x\"\n\xef\xbf\xbd(");
	assert_string_equal(rec.intent_id, "INT 1?#\xef\xbf\xbd");
	assert_string_equal(rec.revision, "rev\n\"");
	roz_ledger_rec_dispose(&rec);
	roz_buf_dispose(&b);
	roz_ledger_ranges_dispose(&r);
}

static void records_read_back_as_written(void **state)
{
	roz_ledger_ranges r = three_ranges();
	roz_ledger_ranges none = {0};
	roz_ledger_file files[] = {{.path = "src/a.c", .ranges = &r}, {.path = "b", .ranges = &none}};
	roz_ledger_record_in in = full_record(files, 2);
	roz_buf b = ROZ_BUF_INIT;
	roz_ledger_rec rec;

	(void)state;
	for (int variant = 0; variant < 2; variant++) {
		if (variant == 1) {
			in.revision = NULL;
			in.intent_id = NULL;
			in.model_id = NULL;
			in.refactor = true;
		}
		roz_buf_reset(&b);
		assert_int_equal(roz_ledger_record_write(&in, &b), ROZ_OK);
		assert_int_equal(roz_ledger_line_parse(b.ptr, b.len - 1, &rec), ROZ_OK);
		assert_string_equal(rec.id, UUID);
		assert_true(rec.has_timestamp);
		assert_int_equal(roz_time_cmp(rec.timestamp, in.timestamp), 0);
		assert_string_equal(rec.session_id, "sess-42");
		assert_int_equal(rec.nfiles, 2);
		assert_string_equal(rec.files[0].path, "src/a.c");
		assert_string_equal(rec.files[1].path, "b");
		assert_int_equal(rec.files[1].ranges.n, 0);
		assert_int_equal(rec.files[0].ranges.n, 3);
		for (size_t i = 0; i < 3; i++) {
			assert_int_equal(rec.files[0].ranges.items[i].start_line, r.items[i].start_line);
			assert_int_equal(rec.files[0].ranges.items[i].end_line, r.items[i].end_line);
			assert_string_equal(rec.files[0].ranges.items[i].hash, r.items[i].hash);
		}
		if (variant == 0) {
			assert_string_equal(rec.revision, in.revision);
			assert_string_equal(rec.intent_id, "INT-001");
			assert_string_equal(rec.model_id, "anthropic/claude-opus-4-5");
			assert_string_equal(rec.mutation_class, "INTENT_EVOLUTION");
		} else {
			assert_null(rec.revision);
			assert_null(rec.intent_id);
			assert_null(rec.model_id);
			assert_string_equal(rec.mutation_class, "AST_REFACTOR");
		}
		roz_ledger_rec_dispose(&rec);
		assert_null(rec.files);
	}
	roz_buf_dispose(&b);
	roz_ledger_ranges_dispose(&r);
}

static void a_record_too_long_drops_its_ranges_then_is_refused(void **state)
{
	roz_ledger_ranges r = {0};
	roz_ledger_file files[] = {{.path = "big.c", .ranges = &r}, {.path = "small.c", .ranges = NULL}};
	roz_ledger_record_in in = full_record(files, 2);
	roz_buf b = ROZ_BUF_INIT;
	roz_ledger_rec rec;
	char *path;

	(void)state;
	/* about 110 bytes a range: 10,000 of them are over a megabyte */
	r.n = r.cap = 10000;
	r.items = roz_calloc(r.n, sizeof *r.items);
	assert_non_null(r.items);
	for (size_t i = 0; i < r.n; i++) {
		r.items[i].start_line = r.items[i].end_line = i + 1;
		memcpy(r.items[i].hash, H_A, sizeof H_A);
	}
	assert_int_equal(roz_ledger_record_write(&in, &b), ROZ_OK);
	assert_true(b.len <= ROZ_LEDGER_MAX_LINE + 1);
	assert_int_equal(roz_ledger_line_parse(b.ptr, b.len - 1, &rec), ROZ_OK);
	assert_int_equal(rec.nfiles, 2);
	assert_string_equal(rec.files[0].path, "big.c");
	assert_int_equal(rec.files[0].ranges.n, 0);
	roz_ledger_rec_dispose(&rec);

	/* 7,000 fit: kept */
	r.n = 7000;
	roz_buf_reset(&b);
	assert_int_equal(roz_ledger_record_write(&in, &b), ROZ_OK);
	assert_int_equal(roz_ledger_line_parse(b.ptr, b.len - 1, &rec), ROZ_OK);
	assert_int_equal(rec.files[0].ranges.n, 7000);
	roz_ledger_rec_dispose(&rec);

	/* a path alone over the limit: nothing is appended */
	path = roz_malloc(ROZ_LEDGER_MAX_LINE + 1);
	assert_non_null(path);
	memset(path, 'p', ROZ_LEDGER_MAX_LINE);
	path[ROZ_LEDGER_MAX_LINE] = '\0';
	files[1].path = path;
	roz_buf_reset(&b);
	roz_buf_adds(&b, "kept");
	assert_int_equal(roz_ledger_record_write(&in, &b), ROZ_EINVALID);
	assert_string_equal(roz_buf_cstr(&b), "kept");
	assert_non_null(strstr(roz_error_last(), "without its ranges"));
	roz_free(path);
	roz_buf_dispose(&b);
	roz_ledger_ranges_dispose(&r);
}

/* ---- reading records ------------------------------------------------------- */

static void rejected(const char *line, const char *why)
{
	roz_ledger_rec rec;

	assert_int_equal(roz_ledger_line_parse(line, strlen(line), &rec), ROZ_EPARSE);
	assert_null(rec.files);
	assert_null(rec.id);
	if (!strstr(roz_error_last(), why))
		fail_msg("%s: error \"%s\" does not say \"%s\"", line, roz_error_last(), why);
}

#define RANGE_IN(r) "{\"files\":[{\"path\":\"a\",\"conversations\":[{\"ranges\":[" r "]}]}]}"

static void malformed_records_are_refused_with_the_reason(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_ledger_rec rec;

	(void)state;
	rejected("", "not JSON");
	rejected("{\"files\":[]", "not JSON");
	rejected("{\"files\":[]} x", "not JSON");
	rejected("\xff", "not JSON");
	rejected("[]", "not a JSON object");
	rejected("3", "not a JSON object");
	rejected("\"files\"", "not a JSON object");
	rejected("null", "not a JSON object");
	rejected("{}", "no files");
	rejected("{\"version\":\"0.1\",\"files\":{}}", "no files");
	rejected("{\"files\":[3]}", "file is not an object");
	rejected("{\"files\":[{\"conversations\":[]}]}", "no path");
	rejected("{\"files\":[{\"path\":7,\"conversations\":[]}]}", "no path");
	rejected("{\"files\":[{\"path\":\"a\",\"conversations\":{}}]}", "conversations is not an array");
	rejected("{\"files\":[{\"path\":\"a\",\"conversations\":[[]]}]}", "conversation is not an object");
	rejected("{\"files\":[{\"path\":\"a\",\"conversations\":[{\"ranges\":{}}]}]}", "ranges is not an array");
	rejected(RANGE_IN("3"), "range is not an object");
	rejected(RANGE_IN("{\"start_line\":0,\"end_line\":1}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"start_line\":1,\"end_line\":0}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"start_line\":-1,\"end_line\":1}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"start_line\":1.5,\"end_line\":2}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"start_line\":\"1\",\"end_line\":2}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"start_line\":1}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"end_line\":1}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"start_line\":1,\"end_line\":9007199254740992}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"start_line\":1,\"end_line\":1e400}"), "whole numbers from 1");
	rejected(RANGE_IN("{\"start_line\":5,\"end_line\":4}"), "ends before it starts");
	/* a later bad range refuses the whole record */
	rejected(RANGE_IN("{\"start_line\":1,\"end_line\":2},{\"start_line\":3,\"end_line\":2}"), "ends before");

	/* the largest line number the schema allows, and an integer written with a fraction */
	assert_int_equal(roz_ledger_line_parse(RANGE_IN("{\"start_line\":2.0,\"end_line\":9007199254740991}"),
					       strlen(RANGE_IN("{\"start_line\":2.0,\"end_line\":9007199254740991}")),
					       &rec),
			 ROZ_OK);
	assert_int_equal(rec.files[0].ranges.items[0].start_line, 2);
	assert_int_equal(rec.files[0].ranges.items[0].end_line, 9007199254740991UL);
	roz_ledger_rec_dispose(&rec);

	/* a line near the limit with 34,000 ranges is read whole */
	roz_buf_reset(&b);
	roz_buf_adds(&b, "{\"files\":[{\"path\":\"a\",\"conversations\":[{\"ranges\":[");
	for (size_t i = 0; i < 17000; i++)
		roz_buf_adds(&b, i ? ",{\"start_line\":1,\"end_line\":1}" : "{\"start_line\":1,\"end_line\":1}");
	roz_buf_adds(&b, "]}]},{\"path\":\"b\",\"conversations\":[{\"ranges\":[");
	for (size_t i = 0; i < 17000; i++)
		roz_buf_adds(&b, i ? ",{\"start_line\":1,\"end_line\":1}" : "{\"start_line\":1,\"end_line\":1}");
	roz_buf_adds(&b, "]}]}]}");
	assert_false(b.oom);
	assert_true(b.len <= ROZ_LEDGER_MAX_LINE);
	assert_int_equal(roz_ledger_line_parse(b.ptr, b.len, &rec), ROZ_OK);
	assert_int_equal(rec.files[0].ranges.n + rec.files[1].ranges.n, 34000);
	roz_ledger_rec_dispose(&rec);

	/* a line over the limit is not read at all */
	roz_buf_reset(&b);
	roz_buf_adds(&b, "{\"files\":[],\"pad\":\"");
	while (b.len < ROZ_LEDGER_MAX_LINE)
		roz_buf_adds(&b, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	roz_buf_adds(&b, "\"}");
	assert_int_equal(roz_ledger_line_parse(b.ptr, b.len, &rec), ROZ_EPARSE);
	assert_non_null(strstr(roz_error_last(), "bytes, over"));
	assert_int_equal(roz_ledger_line_parse(NULL, 0, &rec), ROZ_EPARSE);
	roz_buf_dispose(&b);
}

/*
 * A record as another tool might write it: the specification's shape with
 * values of our own, two conversations for one file, a per-range
 * contributor, hashes in other schemes, fields roz does not know.
 */
static const char OTHER_TOOL[] =
	"{\n"
	"  \"version\": \"0.1\",\n"
	"  \"id\": \"6f1d2c3b-4a59-4e8d-a7c6-b5a4f3e2d1c0\",\n"
	"  \"timestamp\": \"2026-02-14T08:15:30+02:00\",\n"
	"  \"vcs\": { \"type\": \"jj\", \"revision\": \"qpvuntsm\" },\n"
	"  \"tool\": { \"name\": \"some-editor\", \"version\": \"3.1.4\" },\n"
	"  \"files\": [\n"
	"    { \"path\": \"lib/parser.ts\",\n"
	"      \"conversations\": [\n"
	"        { \"url\": \"https://example.test/chat/81\",\n"
	"          \"contributor\": { \"type\": \"ai\", \"model_id\": \"openai/gpt-x\" },\n"
	"          \"ranges\": [\n"
	"            { \"start_line\": 10, \"end_line\": 24,\n"
	"              \"content_hash\": \"sha256:7E18F737311B2DC3B2F269DD78396B0351F14FB66EFA879F768CB23181883C78\" },\n"
	"            { \"start_line\": 30, \"end_line\": 31, \"content_hash\": \"murmur3:9f2a11c0\" }\n"
	"          ],\n"
	"          \"related\": [{ \"type\": \"issue\", \"url\": \"https://example.test/issues/5\" }] },\n"
	"        { \"contributor\": { \"type\": \"human\" },\n"
	"          \"ranges\": [ { \"start_line\": 40, \"end_line\": 40,\n"
	"                          \"contributor\": { \"type\": \"mixed\" } } ] }\n"
	"      ] },\n"
	"    { \"path\": \"README.md\", \"conversations\": [] }\n"
	"  ],\n"
	"  \"metadata\": { \"some-editor\": { \"session\": 81 }, \"roz\": 5 },\n"
	"  \"x-unknown\": [1, 2, {\"nested\": true}]\n"
	"}";

static void records_of_other_tools_are_read(void **state)
{
	roz_ledger_rec rec;
	roz_time when;

	(void)state;
	assert_int_equal(roz_ledger_line_parse(OTHER_TOOL, strlen(OTHER_TOOL), &rec), ROZ_OK);
	assert_string_equal(rec.id, "6f1d2c3b-4a59-4e8d-a7c6-b5a4f3e2d1c0");
	assert_true(rec.has_timestamp);
	assert_int_equal(roz_time_parse("2026-02-14T06:15:30Z", &when), ROZ_OK);
	assert_int_equal(roz_time_cmp(rec.timestamp, when), 0);
	assert_string_equal(rec.revision, "qpvuntsm");
	assert_string_equal(rec.model_id, "openai/gpt-x");
	/* no roz metadata: none of roz's fields */
	assert_null(rec.session_id);
	assert_null(rec.intent_id);
	assert_null(rec.mutation_class);
	assert_int_equal(rec.nfiles, 2);
	assert_string_equal(rec.files[0].path, "lib/parser.ts");
	/* every conversation's ranges, in order */
	assert_int_equal(rec.files[0].ranges.n, 3);
	assert_int_equal(rec.files[0].ranges.items[0].start_line, 10);
	assert_int_equal(rec.files[0].ranges.items[0].end_line, 24);
	assert_string_equal(rec.files[0].ranges.items[0].hash, H_A_NL_B);
	/* a hash roz cannot check is kept empty */
	assert_string_equal(rec.files[0].ranges.items[1].hash, "");
	assert_int_equal(rec.files[0].ranges.items[2].start_line, 40);
	assert_string_equal(rec.files[0].ranges.items[2].hash, "");
	assert_string_equal(rec.files[1].path, "README.md");
	assert_int_equal(rec.files[1].ranges.n, 0);
	roz_ledger_rec_dispose(&rec);
	roz_ledger_rec_dispose(&rec);
	roz_ledger_rec_dispose(NULL);
}

static void odd_but_valid_records_are_read(void **state)
{
	static const char *const ok[] = {
		"{\"files\":[]}",
		"  {\"files\":[]}\r",
		"{\"files\":[{\"path\":\"\"}]}",
		"{\"files\":[{\"path\":\"a\",\"conversations\":[{}]}]}",
		"{\"id\":5,\"timestamp\":\"yesterday\",\"vcs\":\"git\",\"metadata\":[],\"files\":[]}",
		"{\"metadata\":{\"roz\":{\"intent_id\":null,\"session_id\":[]}},\"files\":[]}",
		RANGE_IN("{\"start_line\":1,\"end_line\":1,\"content_hash\":\"sha256:abc\"}"),
		RANGE_IN("{\"start_line\":1,\"end_line\":1,\"content_hash\":\"sha256:" H_A "0\"}"),
		RANGE_IN("{\"start_line\":1,\"end_line\":1,\"content_hash\":\"sha256:"
			 "g978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb\"}"),
		RANGE_IN("{\"start_line\":1,\"end_line\":1,\"content_hash\":7}"),
	};
	roz_ledger_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		if (roz_ledger_line_parse(ok[i], strlen(ok[i]), &rec) != ROZ_OK)
			fail_msg("%s: %s", ok[i], roz_error_last());
		assert_null(rec.id);
		assert_false(rec.has_timestamp);
		assert_null(rec.revision);
		assert_null(rec.intent_id);
		assert_null(rec.session_id);
		for (size_t f = 0; f < rec.nfiles; f++)
			for (size_t k = 0; k < rec.files[f].ranges.n; k++)
				assert_string_equal(rec.files[f].ranges.items[k].hash, "");
		roz_ledger_rec_dispose(&rec);
	}
}

/* ---- memory running out ---------------------------------------------------- */

static void running_out_of_memory_fails_cleanly(void **state)
{
	roz_ledger_ranges r = three_ranges(), got;
	roz_ledger_file files[] = {{.path = "src/a.c", .ranges = &r}};
	roz_ledger_record_in in = full_record(files, 1);
	roz_buf b = ROZ_BUF_INIT;
	roz_ledger_rec rec;
	cJSON *input = NULL;
	static const char edit[] = "{\"edits\":[{\"new_string\":\"two\"},{\"new_string\":\"one\"},{\"new_string\":\"four\"}]}";
	bool done[3] = {false, false, false};

	(void)state;
	assert_int_equal(roz_json_parse(edit, strlen(edit), &input), ROZ_OK);
	for (long n = 0; n < 200 && !(done[0] && done[1] && done[2]); n++) {
		int rc;

		roz_alloc_fail_after(n);
		rc = roz_ledger_ranges_of_write("MultiEdit", input, false, FILE4, strlen(FILE4), &got);
		roz_alloc_fail_after(-1);
		assert_true(rc == ROZ_OK || rc == ROZ_ENOMEM);
		if (rc == ROZ_ENOMEM)
			assert_null(got.items);
		else
			assert_int_equal(got.n, 3);
		done[0] = rc == ROZ_OK;
		roz_ledger_ranges_dispose(&got);

		roz_buf_reset(&b);
		roz_alloc_fail_after(n);
		rc = roz_ledger_record_write(&in, &b);
		roz_alloc_fail_after(-1);
		assert_true(rc == ROZ_OK || rc == ROZ_ENOMEM);
		done[1] = rc == ROZ_OK;
		if (rc == ROZ_OK) {
			roz_alloc_fail_after(n);
			rc = roz_ledger_line_parse(b.ptr, b.len - 1, &rec);
			roz_alloc_fail_after(-1);
			assert_true(rc == ROZ_OK || rc == ROZ_ENOMEM);
			if (rc == ROZ_ENOMEM)
				assert_null(rec.files);
			else
				assert_int_equal(rec.files[0].ranges.n, 3);
			done[2] = rc == ROZ_OK;
			roz_ledger_rec_dispose(&rec);
		}
		roz_buf_dispose(&b);
	}
	assert_true(done[0] && done[1] && done[2]);
	cJSON_Delete(input);
	roz_ledger_ranges_dispose(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hashes_join_lines_without_their_terminators),
		cmocka_unit_test(lines_are_counted_as_an_editor_shows_them),
		cmocka_unit_test(a_write_owns_the_whole_file),
		cmocka_unit_test(an_edit_owns_the_lines_its_new_text_spans),
		cmocka_unit_test(edits_that_name_nothing_give_no_range),
		cmocka_unit_test(replace_all_owns_every_occurrence),
		cmocka_unit_test(an_edit_is_credited_where_claude_codes_patch_says_it_landed),
		cmocka_unit_test(multiedit_ranges_are_sorted_and_overlaps_merged),
		cmocka_unit_test(rewritten_lines_are_mixed_inserted_lines_the_agents),
		cmocka_unit_test(a_record_is_one_agent_trace_line),
		cmocka_unit_test(each_kind_of_record_is_written_as_it_is),
		cmocka_unit_test(model_ids_follow_models_dev),
		cmocka_unit_test(any_text_makes_a_line_that_parses),
		cmocka_unit_test(records_read_back_as_written),
		cmocka_unit_test(a_record_too_long_drops_its_ranges_then_is_refused),
		cmocka_unit_test(malformed_records_are_refused_with_the_reason),
		cmocka_unit_test(records_of_other_tools_are_read),
		cmocka_unit_test(odd_but_valid_records_are_read),
		cmocka_unit_test(running_out_of_memory_fails_cleanly),
	};
	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
