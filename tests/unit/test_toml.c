/*
 * test_toml.c - the TOML 1.0 parser: every value kind and string form,
 * tables and their redefinition rules, positions, a real roz config, a
 * catalogue of invalid documents and allocation failure at every step; and
 * lenient parsing, where each bad line costs only what it says.
 */
#include "support.h"

#include "roz/toml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static roz_toml_value *parse_len(const char *text, size_t len)
{
	roz_toml_value *root = NULL;
	roz_toml_error err;
	int rc = roz_toml_parse(text, len, &root, &err);

	if (rc != ROZ_OK)
		fail_msg("parse failed (%d) at %d:%d: %s\n--- document ---\n%s", rc, err.line, err.column,
			 err.message, text);
	assert_non_null(root);
	assert_int_equal(root->type, ROZ_TOML_TABLE);
	return root;
}

static roz_toml_value *parse(const char *text)
{
	return parse_len(text, strlen(text));
}

/* Follow a dotted path of plain names; NULL when any step is missing. */
static const roz_toml_value *path(const roz_toml_value *v, const char *dotted)
{
	char buf[256], *save = NULL, *name;

	snprintf(buf, sizeof(buf), "%s", dotted);
	for (name = strtok_r(buf, ".", &save); name && v; name = strtok_r(NULL, ".", &save))
		v = roz_toml_get(v, name);
	return v;
}

static const roz_toml_value *typed(const roz_toml_value *root, const char *p, roz_toml_type type)
{
	const roz_toml_value *v = path(root, p);

	if (!v)
		fail_msg("no value at '%s'", p);
	if (v->type != type)
		fail_msg("'%s' is a %s, expected %s", p, roz_toml_type_name(v->type), roz_toml_type_name(type));
	return v;
}

static void check_str(const roz_toml_value *root, const char *p, const char *want)
{
	const roz_toml_value *v = typed(root, p, ROZ_TOML_STRING);

	assert_string_equal(v->u.str.ptr, want);
	assert_int_equal(v->u.str.len, strlen(want));
}

static void check_int(const roz_toml_value *root, const char *p, int64_t want)
{
	const roz_toml_value *v = typed(root, p, ROZ_TOML_INTEGER);

	if (v->u.integer != want)
		fail_msg("'%s' = %lld, expected %lld", p, (long long)v->u.integer, (long long)want);
}

static void check_float(const roz_toml_value *root, const char *p, double want)
{
	const roz_toml_value *v = typed(root, p, ROZ_TOML_FLOAT);

	if (v->u.floating != want)
		fail_msg("'%s' = %.17g, expected %.17g", p, v->u.floating, want);
}

static void check_bool(const roz_toml_value *root, const char *p, bool want)
{
	assert_int_equal(typed(root, p, ROZ_TOML_BOOLEAN)->u.boolean, want);
}

static void check_datetime(const roz_toml_value *root, const char *p, const char *want)
{
	const roz_toml_value *v = typed(root, p, ROZ_TOML_DATETIME);

	assert_string_equal(v->u.str.ptr, want);
	assert_int_equal(v->u.str.len, strlen(want));
}

static const roz_toml_value *item(const roz_toml_value *arr, size_t i)
{
	assert_int_equal(arr->type, ROZ_TOML_ARRAY);
	assert_true(i < arr->u.array.len);
	return arr->u.array.items[i];
}

static void test_empty_and_blank(void **state)
{
	roz_toml_value *root;
	roz_toml_value *out = (roz_toml_value *)&out;

	(void)state;
	root = parse("");
	assert_int_equal(root->u.table.len, 0);
	roz_toml_free(root);

	assert_int_equal(roz_toml_parse(NULL, 0, &out, NULL), ROZ_OK);
	assert_non_null(out);
	assert_int_equal(out->u.table.len, 0);
	roz_toml_free(out);

	root = parse("# only a comment\n\n   \t\n# another\r\n\t# indented");
	assert_int_equal(root->u.table.len, 0);
	roz_toml_free(root);

	/* a byte order mark may open the document, and only there */
	root = parse("\xef\xbb\xbf" "a = 1\n");
	check_int(root, "a", 1);
	assert_int_equal(roz_toml_get_kv(root, "a")->column, 1);
	roz_toml_free(root);

	roz_toml_free(NULL);
}

static void test_basic_strings(void **state)
{
	roz_toml_value *root;
	const roz_toml_value *v;

	(void)state;
	root = parse("plain = \"hello, world\"\n"
		     "empty = \"\"\n"
		     "esc = \"b\\b t\\t n\\n f\\f r\\r q\\\" s\\\\\"\n"
		     "u4 = \"\\u00e9\\u20AC\"\n"
		     "u8 = \"\\U0001F600\\U00000041\"\n"
		     "utf8 = \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n"
		     "tab = \"a\tb\"\n"
		     "quote = \"it's\"\n"
		     "hash = \"# not a comment\"\n"
		     "max = \"\\U0010FFFF\"\n"
		     "nul = \"a\\u0000b\"\n");
	check_str(root, "plain", "hello, world");
	check_str(root, "empty", "");
	check_str(root, "esc", "b\b t\t n\n f\f r\r q\" s\\");
	check_str(root, "u4", "\xc3\xa9\xe2\x82\xac");
	check_str(root, "u8", "\xf0\x9f\x98\x80" "A");
	check_str(root, "utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	check_str(root, "tab", "a\tb");
	check_str(root, "quote", "it's");
	check_str(root, "hash", "# not a comment");
	check_str(root, "max", "\xf4\x8f\xbf\xbf");
	v = typed(root, "nul", ROZ_TOML_STRING);
	assert_int_equal(v->u.str.len, 3);
	assert_memory_equal(v->u.str.ptr, "a\0b", 4);
	roz_toml_free(root);
}

static void test_multiline_basic_strings(void **state)
{
	roz_toml_value *root;

	(void)state;
	root = parse("first = \"\"\"\nRoses are red\nViolets are blue\"\"\"\n"
		     "crlf = \"\"\"\r\none\r\ntwo\"\"\"\n"
		     "same = \"\"\"one line\"\"\"\n"
		     "trim = \"\"\"\\\n   The quick \\\n\n\n   brown \\   \r\n   fox.\\\n   \"\"\"\n"
		     "quotes = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"\n"
		     "three = \"\"\"Here are three: \"\"\\\".\"\"\"\n"
		     "end1 = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\n"
		     "end2 = \"\"\"ab\"\"\"\"\"\n"
		     "esc = \"\"\"tab\\there\\u0021\"\"\"\n"
		     "keep = \"\"\"a\n\n  b\n\"\"\"\n"
		     "empty = \"\"\"\"\"\"\n");
	check_str(root, "first", "Roses are red\nViolets are blue");
	check_str(root, "crlf", "one\ntwo");
	check_str(root, "same", "one line");
	check_str(root, "trim", "The quick brown fox.");
	check_str(root, "quotes", "Here are two quotation marks: \"\". Simple enough.");
	check_str(root, "three", "Here are three: \"\"\".");
	check_str(root, "end1", "\"This,\" she said, \"is just a pointless statement.\"");
	check_str(root, "end2", "ab\"\"");
	check_str(root, "esc", "tab\there!");
	check_str(root, "keep", "a\n\n  b\n");
	check_str(root, "empty", "");
	roz_toml_free(root);
}

static void test_literal_strings(void **state)
{
	roz_toml_value *root;

	(void)state;
	root = parse("winpath = 'C:\\Users\\nodejs\\templates'\n"
		     "quoted = 'Tom \"Dubs\" Preston-Werner'\n"
		     "regex = '<\\i\\c*\\s*>'\n"
		     "empty = ''\n"
		     "tab = 'a\tb'\n"
		     "regex2 = '''I [dw]on't need \\d{2} apples'''\n"
		     "lines = '''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''\n"
		     "q15 = '''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''\n"
		     "apos = ''''That,' she said, 'is still pointless.''''\n"
		     "two = '''x'''''\n"
		     "crlf = '''\r\na\r\nb'''\n"
		     "nobs = '''a\\\n  b'''\n");
	check_str(root, "winpath", "C:\\Users\\nodejs\\templates");
	check_str(root, "quoted", "Tom \"Dubs\" Preston-Werner");
	check_str(root, "regex", "<\\i\\c*\\s*>");
	check_str(root, "empty", "");
	check_str(root, "tab", "a\tb");
	check_str(root, "regex2", "I [dw]on't need \\d{2} apples");
	check_str(root, "lines",
		  "The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n");
	check_str(root, "q15", "Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"");
	check_str(root, "apos", "'That,' she said, 'is still pointless.'");
	check_str(root, "two", "x''");
	check_str(root, "crlf", "a\nb");
	check_str(root, "nobs", "a\\\n  b");
	roz_toml_free(root);
}

static void test_integers(void **state)
{
	roz_toml_value *root;

	(void)state;
	root = parse("a = 99\nb = +42\nc = 0\nd = -17\ne = 1_000\nf = 5_349_221\ng = 53_49_221\nh = 1_2_3_4_5\n"
		     "pz = +0\nnz = -0\n"
		     "max = 9223372036854775807\nmin = -9223372036854775808\n"
		     "h1 = 0xDEADBEEF\nh2 = 0xdeadbeef\nh3 = 0xdead_beef\nh4 = 0x00ff\n"
		     "hmax = 0x7FFFFFFFFFFFFFFF\n"
		     "o1 = 0o01234567\no2 = 0o755\nomax = 0o777777777777777777777\n"
		     "b1 = 0b11010110\nb2 = 0b1_0\n"
		     "bmax = 0b111111111111111111111111111111111111111111111111111111111111111\n");
	check_int(root, "a", 99);
	check_int(root, "b", 42);
	check_int(root, "c", 0);
	check_int(root, "d", -17);
	check_int(root, "e", 1000);
	check_int(root, "f", 5349221);
	check_int(root, "g", 5349221);
	check_int(root, "h", 12345);
	check_int(root, "pz", 0);
	check_int(root, "nz", 0);
	check_int(root, "max", INT64_MAX);
	check_int(root, "min", INT64_MIN);
	check_int(root, "h1", 0xDEADBEEF);
	check_int(root, "h2", 0xDEADBEEF);
	check_int(root, "h3", 0xDEADBEEF);
	check_int(root, "h4", 255);
	check_int(root, "hmax", INT64_MAX);
	check_int(root, "o1", 01234567);
	check_int(root, "o2", 0755);
	check_int(root, "omax", INT64_MAX);
	check_int(root, "b1", 214);
	check_int(root, "b2", 2);
	check_int(root, "bmax", INT64_MAX);
	roz_toml_free(root);
}

static void test_floats(void **state)
{
	roz_toml_value *root;
	const roz_toml_value *v;

	(void)state;
	root = parse("f1 = +1.0\nf2 = 3.1415\nf3 = -0.01\nf4 = 5e+22\nf5 = 1e06\nf6 = -2E-2\n"
		     "f7 = 6.626e-34\nf8 = 224_617.445_991_228\nf9 = 0.0\nf10 = -0.0\nf11 = 0e0\n"
		     "f12 = 1e1_0\nf13 = 1.7976931348623157e308\nf14 = 4.9e-324\nf15 = 1e-400\n"
		     "i1 = inf\ni2 = +inf\ni3 = -inf\nn1 = nan\nn2 = +nan\nn3 = -nan\n");
	check_float(root, "f1", 1.0);
	check_float(root, "f2", 3.1415);
	check_float(root, "f3", -0.01);
	check_float(root, "f4", 5e22);
	check_float(root, "f5", 1e6);
	check_float(root, "f6", -2e-2);
	check_float(root, "f7", 6.626e-34);
	check_float(root, "f8", 224617.445991228);
	check_float(root, "f9", 0.0);
	check_float(root, "f10", 0.0);
	assert_true(signbit(path(root, "f10")->u.floating));
	check_float(root, "f11", 0.0);
	check_float(root, "f12", 1e10);
	check_float(root, "f13", 1.7976931348623157e308);
	check_float(root, "f14", 4.9e-324);
	check_float(root, "f15", 0.0);
	check_float(root, "i1", INFINITY);
	check_float(root, "i2", INFINITY);
	check_float(root, "i3", -INFINITY);
	v = typed(root, "n1", ROZ_TOML_FLOAT);
	assert_true(isnan(v->u.floating));
	v = typed(root, "n2", ROZ_TOML_FLOAT);
	assert_true(isnan(v->u.floating));
	v = typed(root, "n3", ROZ_TOML_FLOAT);
	assert_true(isnan(v->u.floating));
	assert_true(signbit(v->u.floating));
	roz_toml_free(root);
}

static void test_booleans(void **state)
{
	roz_toml_value *root;

	(void)state;
	root = parse("t = true\nf = false\narr = [true,false]\n");
	check_bool(root, "t", true);
	check_bool(root, "f", false);
	assert_int_equal(item(path(root, "arr"), 0)->type, ROZ_TOML_BOOLEAN);
	assert_true(item(path(root, "arr"), 0)->u.boolean);
	assert_false(item(path(root, "arr"), 1)->u.boolean);
	roz_toml_free(root);
}

static void test_datetimes(void **state)
{
	roz_toml_value *root;

	(void)state;
	root = parse("odt1 = 1979-05-27T07:32:00Z\n"
		     "odt2 = 1979-05-27T00:32:00-07:00\n"
		     "odt3 = 1979-05-27T00:32:00.999999+05:30\n"
		     "odt4 = 1979-05-27 07:32:00Z\n"
		     "odt5 = 1987-07-05t17:45:00z\n"
		     "ldt1 = 1979-05-27T07:32:00\n"
		     "ldt2 = 1979-05-27T00:32:00.999999\n"
		     "ld1 = 1979-05-27\n"
		     "ld2 = 2000-02-29 # leap year\n"
		     "ld3 = 2024-02-29\n"
		     "ld4 = 0000-01-01\n"
		     "lt1 = 07:32:00\n"
		     "lt2 = 00:32:00.999999\n"
		     "lt3 = 23:59:60\n"
		     "arr = [1979-05-27, 07:32:00]\n"
		     "inl = { d = 1979-05-27T07:32:00Z }\n");
	check_datetime(root, "odt1", "1979-05-27T07:32:00Z");
	check_datetime(root, "odt2", "1979-05-27T00:32:00-07:00");
	check_datetime(root, "odt3", "1979-05-27T00:32:00.999999+05:30");
	check_datetime(root, "odt4", "1979-05-27 07:32:00Z");
	check_datetime(root, "odt5", "1987-07-05t17:45:00z");
	check_datetime(root, "ldt1", "1979-05-27T07:32:00");
	check_datetime(root, "ldt2", "1979-05-27T00:32:00.999999");
	check_datetime(root, "ld1", "1979-05-27");
	check_datetime(root, "ld2", "2000-02-29");
	check_datetime(root, "ld3", "2024-02-29");
	check_datetime(root, "ld4", "0000-01-01");
	check_datetime(root, "lt1", "07:32:00");
	check_datetime(root, "lt2", "00:32:00.999999");
	check_datetime(root, "lt3", "23:59:60");
	assert_string_equal(item(path(root, "arr"), 0)->u.str.ptr, "1979-05-27");
	assert_string_equal(item(path(root, "arr"), 1)->u.str.ptr, "07:32:00");
	check_datetime(root, "inl.d", "1979-05-27T07:32:00Z");
	roz_toml_free(root);
}

static void test_arrays(void **state)
{
	roz_toml_value *root;
	const roz_toml_value *v, *n;

	(void)state;
	root = parse("ints = [ 1, 2, 3 ]\n"
		     "empty = []\n"
		     "blank = [ \n\n ]\n"
		     "nested = [ [ 1, 2 ], [\"a\", 'b', \"\"\"c\"\"\"] ]\n"
		     "mixed = [ 0.1, \"x\", 1979-05-27, true, { a = 1 }, [] ]\n"
		     "multi = [\n"
		     "  1, # one\n"
		     "  # a comment on its own line\n"
		     "  2,\r\n"
		     "  3,   # trailing comma\n"
		     "]\n"
		     "tight = [1,2,]\n"
		     "strs = [ \"all\", 'strings', \"\"\"are the same\"\"\", '''type''' ]\n");
	v = typed(root, "ints", ROZ_TOML_ARRAY);
	assert_int_equal(v->u.array.len, 3);
	assert_int_equal(item(v, 2)->u.integer, 3);
	assert_int_equal(typed(root, "empty", ROZ_TOML_ARRAY)->u.array.len, 0);
	assert_int_equal(typed(root, "blank", ROZ_TOML_ARRAY)->u.array.len, 0);
	v = typed(root, "nested", ROZ_TOML_ARRAY);
	assert_int_equal(v->u.array.len, 2);
	n = item(v, 1);
	assert_int_equal(n->u.array.len, 3);
	assert_string_equal(item(n, 2)->u.str.ptr, "c");
	assert_int_equal(item(item(v, 0), 1)->u.integer, 2);
	v = typed(root, "mixed", ROZ_TOML_ARRAY);
	assert_int_equal(v->u.array.len, 6);
	assert_int_equal(item(v, 0)->type, ROZ_TOML_FLOAT);
	assert_int_equal(item(v, 1)->type, ROZ_TOML_STRING);
	assert_int_equal(item(v, 2)->type, ROZ_TOML_DATETIME);
	assert_int_equal(item(v, 3)->type, ROZ_TOML_BOOLEAN);
	assert_int_equal(item(v, 4)->type, ROZ_TOML_TABLE);
	check_int(item(v, 4), "a", 1);
	assert_int_equal(item(v, 5)->type, ROZ_TOML_ARRAY);
	v = typed(root, "multi", ROZ_TOML_ARRAY);
	assert_int_equal(v->u.array.len, 3);
	assert_int_equal(item(v, 0)->u.integer, 1);
	assert_int_equal(item(v, 2)->u.integer, 3);
	assert_int_equal(item(v, 2)->line, 12);
	assert_int_equal(item(v, 2)->column, 3);
	assert_int_equal(typed(root, "tight", ROZ_TOML_ARRAY)->u.array.len, 2);
	v = typed(root, "strs", ROZ_TOML_ARRAY);
	assert_string_equal(item(v, 2)->u.str.ptr, "are the same");
	assert_string_equal(item(v, 3)->u.str.ptr, "type");
	roz_toml_free(root);
}

static void test_keys(void **state)
{
	roz_toml_value *root;
	const roz_toml_value *v;

	(void)state;
	root = parse("key = 1\nbare_key = 2\nbare-key = 3\n1234 = 4\n"
		     "\"127.0.0.1\" = 5\n\"character encoding\" = 6\n\"\xca\x8e\xc7\x9d\xca\x9e\" = 7\n"
		     "'key2' = 8\n'quoted \"value\"' = 9\n\"\" = 10\n"
		     "\"esc\\u0041\\n\" = 11\n"
		     "true = 12\ninf = 13\n"
		     "site . \"google.com\" = 14\n"
		     "3.14159 = 15\n");
	check_int(root, "key", 1);
	check_int(root, "bare_key", 2);
	check_int(root, "bare-key", 3);
	check_int(root, "1234", 4);
	check_int(root, "true", 12);
	check_int(root, "inf", 13);
	assert_int_equal(roz_toml_get(root, "127.0.0.1")->u.integer, 5);
	assert_int_equal(roz_toml_get(root, "character encoding")->u.integer, 6);
	assert_int_equal(roz_toml_get(root, "\xca\x8e\xc7\x9d\xca\x9e")->u.integer, 7);
	assert_int_equal(roz_toml_get(root, "key2")->u.integer, 8);
	assert_int_equal(roz_toml_get(root, "quoted \"value\"")->u.integer, 9);
	assert_int_equal(roz_toml_get(root, "")->u.integer, 10);
	assert_int_equal(roz_toml_get(root, "escA\n")->u.integer, 11);
	v = typed(root, "site", ROZ_TOML_TABLE);
	assert_int_equal(roz_toml_get(v, "google.com")->u.integer, 14);
	v = typed(root, "3", ROZ_TOML_TABLE);
	check_int(v, "14159", 15);
	roz_toml_free(root);
}

static void test_tables_and_dotted_keys(void **state)
{
	roz_toml_value *root;
	const roz_toml_value *v;

	(void)state;
	root = parse("name = \"Orange\"\n"
		     "physical.color = \"orange\"\n"
		     "physical.shape = \"round\"\n"
		     "[table-1]\nkey1 = \"some string\"\nkey2 = 123\n"
		     "[table-2]\nkey1 = \"another string\"\nkey2 = 456\n"
		     "[dog.\"tater.man\"]\ntype.name = \"pug\"\n"
		     "[ j . \"\xca\x9e\" . 'l' ]\nx = 1\n"
		     "[x.y.z.w]\n"
		     "[x]\nv = 2\n"
		     "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n"
		     "[fruit.apple.texture]\nsmooth = true\n"
		     "[empty]\n");
	check_str(root, "name", "Orange");
	check_str(root, "physical.color", "orange");
	check_str(root, "physical.shape", "round");
	check_str(root, "table-1.key1", "some string");
	check_int(root, "table-2.key2", 456);
	v = typed(root, "dog", ROZ_TOML_TABLE);
	v = roz_toml_get(v, "tater.man");
	assert_non_null(v);
	check_str(v, "type.name", "pug");
	v = roz_toml_get(roz_toml_get(typed(root, "j", ROZ_TOML_TABLE), "\xca\x9e"), "l");
	assert_non_null(v);
	check_int(v, "x", 1);
	typed(root, "x.y.z.w", ROZ_TOML_TABLE);
	check_int(root, "x.v", 2);
	check_str(root, "fruit.apple.color", "red");
	check_bool(root, "fruit.apple.taste.sweet", true);
	check_bool(root, "fruit.apple.texture.smooth", true);
	assert_int_equal(typed(root, "empty", ROZ_TOML_TABLE)->u.table.len, 0);
	roz_toml_free(root);
}

static void test_array_of_tables(void **state)
{
	roz_toml_value *root;
	const roz_toml_value *v, *e;

	(void)state;
	root = parse("[[products]]\nname = \"Hammer\"\nsku = 738594937\n"
		     "[[products]]  # empty table within the array\n"
		     "[[products]]\nname = \"Nail\"\ncolor = \"gray\"\n"
		     "[[fruits]]\nname = \"apple\"\n"
		     "[fruits.physical]\ncolor = \"red\"\n"
		     "[[fruits.varieties]]\nname = \"red delicious\"\n"
		     "[[fruits.varieties]]\nname = \"granny smith\"\n"
		     "[[fruits]]\nname = \"banana\"\n"
		     "[[fruits.varieties]]\nname = \"plantain\"\n"
		     "[[a.b.c]]\nd = 1\n");
	v = typed(root, "products", ROZ_TOML_ARRAY);
	assert_int_equal(v->u.array.len, 3);
	check_str(item(v, 0), "name", "Hammer");
	check_int(item(v, 0), "sku", 738594937);
	assert_int_equal(item(v, 1)->type, ROZ_TOML_TABLE);
	assert_int_equal(item(v, 1)->u.table.len, 0);
	assert_int_equal(item(v, 1)->line, 4);
	check_str(item(v, 2), "color", "gray");
	v = typed(root, "fruits", ROZ_TOML_ARRAY);
	assert_int_equal(v->u.array.len, 2);
	e = item(v, 0);
	check_str(e, "name", "apple");
	check_str(e, "physical.color", "red");
	assert_int_equal(typed(e, "varieties", ROZ_TOML_ARRAY)->u.array.len, 2);
	check_str(item(path(e, "varieties"), 1), "name", "granny smith");
	e = item(v, 1);
	check_str(e, "name", "banana");
	assert_int_equal(typed(e, "varieties", ROZ_TOML_ARRAY)->u.array.len, 1);
	check_str(item(path(e, "varieties"), 0), "name", "plantain");
	v = typed(root, "a.b.c", ROZ_TOML_ARRAY);
	check_int(item(v, 0), "d", 1);
	roz_toml_free(root);
}

static void test_inline_tables(void **state)
{
	roz_toml_value *root;
	const roz_toml_value *v;

	(void)state;
	root = parse("name = { first = \"Tom\", last = \"Preston-Werner\" }\n"
		     "point = {x=1,y=2}\n"
		     "animal = { type.name = \"pug\", type.size = \"small\" }\n"
		     "empty = {}\nspaced = {   }\n"
		     "nested = { a = { b = { c = 1 } }, list = [\n 1,\n 2\n ] }\n"
		     "points = [ { x = 1, y = 2 }, { x = 7, y = 8 } ]\n"
		     "[product]\ntype = { name = \"Nail\" }\n");
	check_str(root, "name.first", "Tom");
	check_str(root, "name.last", "Preston-Werner");
	check_int(root, "point.x", 1);
	check_int(root, "point.y", 2);
	check_str(root, "animal.type.name", "pug");
	check_str(root, "animal.type.size", "small");
	assert_int_equal(typed(root, "empty", ROZ_TOML_TABLE)->u.table.len, 0);
	assert_int_equal(typed(root, "spaced", ROZ_TOML_TABLE)->u.table.len, 0);
	check_int(root, "nested.a.b.c", 1);
	assert_int_equal(typed(root, "nested.list", ROZ_TOML_ARRAY)->u.array.len, 2);
	v = typed(root, "points", ROZ_TOML_ARRAY);
	check_int(item(v, 1), "y", 8);
	check_str(root, "product.type.name", "Nail");
	roz_toml_free(root);
}

static void test_order_and_lookup(void **state)
{
	roz_toml_value *root;
	const roz_toml_kv *kv;
	const roz_toml_value *v;
	const char *want[] = {"zeta", "alpha", "mid", "beta", "gamma"};
	size_t i;

	(void)state;
	root = parse("zeta = 1\nalpha = 2\nmid.x = 3\nbeta = 4\n[gamma]\n[mid.y]\n");
	assert_int_equal(root->u.table.len, 5);
	for (i = 0; i < 5; i++)
		assert_string_equal(root->u.table.items[i].key, want[i]);

	kv = roz_toml_get_kv(root, "beta");
	assert_non_null(kv);
	assert_string_equal(kv->key, "beta");
	assert_int_equal(kv->line, 4);
	assert_int_equal(kv->column, 1);
	assert_int_equal(kv->value->u.integer, 4);
	assert_ptr_equal(roz_toml_get(root, "beta"), kv->value);

	assert_null(roz_toml_get(root, "missing"));
	assert_null(roz_toml_get_kv(root, "missing"));
	assert_null(roz_toml_get(NULL, "beta"));
	assert_null(roz_toml_get(root, NULL));
	assert_null(roz_toml_get(roz_toml_get(root, "beta"), "x"));
	v = typed(root, "mid", ROZ_TOML_TABLE);
	assert_int_equal(v->u.table.len, 2);
	assert_string_equal(v->u.table.items[0].key, "x");
	assert_string_equal(v->u.table.items[1].key, "y");
	roz_toml_free(root);
}

static void test_positions(void **state)
{
	roz_toml_value *root;
	const roz_toml_kv *kv;
	const roz_toml_value *review, *gates;

	(void)state;
	root = parse("# comment\n"
		     "[review]\n"
		     "mode = \"prompt\"\n"
		     "  [review.gates]\n"
		     "  tools = [\n"
		     "    \"a\",\n"
		     "  ]\n"
		     "a.b.c = 1\n"
		     "[x.y]\n"
		     "[x]\n");
	kv = roz_toml_get_kv(root, "review");
	assert_int_equal(kv->line, 2);
	assert_int_equal(kv->column, 2);
	review = kv->value;
	assert_int_equal(review->line, 2);
	assert_int_equal(review->column, 1);

	kv = roz_toml_get_kv(review, "mode");
	assert_int_equal(kv->line, 3);
	assert_int_equal(kv->column, 1);
	assert_int_equal(kv->value->line, 3);
	assert_int_equal(kv->value->column, 8);

	kv = roz_toml_get_kv(review, "gates");
	assert_int_equal(kv->line, 4);
	assert_int_equal(kv->column, 11);
	gates = kv->value;
	assert_int_equal(gates->line, 4);
	assert_int_equal(gates->column, 3);

	kv = roz_toml_get_kv(gates, "tools");
	assert_int_equal(kv->line, 5);
	assert_int_equal(kv->column, 3);
	assert_int_equal(kv->value->line, 5);
	assert_int_equal(kv->value->column, 11);
	assert_int_equal(item(kv->value, 0)->line, 6);
	assert_int_equal(item(kv->value, 0)->column, 5);

	kv = roz_toml_get_kv(gates, "a");
	assert_int_equal(kv->line, 8);
	assert_int_equal(kv->column, 1);
	kv = roz_toml_get_kv(kv->value, "b");
	assert_int_equal(kv->column, 3);
	assert_int_equal(kv->value->line, 8);
	assert_int_equal(kv->value->column, 3);
	kv = roz_toml_get_kv(kv->value, "c");
	assert_int_equal(kv->column, 5);
	assert_int_equal(kv->value->column, 9);

	/* an implicitly created table takes the position of its own header */
	kv = roz_toml_get_kv(root, "x");
	assert_int_equal(kv->line, 10);
	assert_int_equal(kv->column, 2);
	assert_int_equal(kv->value->line, 10);
	assert_int_equal(kv->value->column, 1);
	roz_toml_free(root);
}

static void test_roz_config(void **state)
{
	roz_toml_value *root;
	const roz_toml_value *tools, *weights;
	const roz_toml_kv *kv;

	(void)state;
	root = parse("[review]\n"
		     "mode = \"prompt\"\n"
		     "[review.gates]\n"
		     "tools = [\"Bash:git push*\", \"mcp__tissue__close*\",]\n"
		     "approval_scope = \"session\"\n"
		     "approval_ttl_seconds = 3_600\n"
		     "[circuit_breaker]\n"
		     "max_blocks = 3\n"
		     "cooldown_seconds = 300\n"
		     "[templates]\n"
		     "active = \"random\"\n"
		     "weights = { default = 70, terse = 30 }\n");
	assert_int_equal(root->u.table.len, 3);
	check_str(root, "review.mode", "prompt");
	tools = typed(root, "review.gates.tools", ROZ_TOML_ARRAY);
	assert_int_equal(tools->u.array.len, 2);
	assert_string_equal(item(tools, 0)->u.str.ptr, "Bash:git push*");
	assert_string_equal(item(tools, 1)->u.str.ptr, "mcp__tissue__close*");
	check_str(root, "review.gates.approval_scope", "session");
	check_int(root, "review.gates.approval_ttl_seconds", 3600);
	check_int(root, "circuit_breaker.max_blocks", 3);
	check_int(root, "circuit_breaker.cooldown_seconds", 300);
	check_str(root, "templates.active", "random");
	weights = typed(root, "templates.weights", ROZ_TOML_TABLE);
	assert_int_equal(weights->u.table.len, 2);
	assert_string_equal(weights->u.table.items[0].key, "default");
	assert_string_equal(weights->u.table.items[1].key, "terse");
	check_int(weights, "default", 70);
	check_int(weights, "terse", 30);
	kv = roz_toml_get_kv(path(root, "circuit_breaker"), "cooldown_seconds");
	assert_int_equal(kv->line, 9);
	assert_int_equal(kv->column, 1);
	assert_int_equal(kv->value->column, 20);
	roz_toml_free(root);
}

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(roz_toml_type_name(ROZ_TOML_TABLE), "table");
	assert_string_equal(roz_toml_type_name(ROZ_TOML_ARRAY), "array");
	assert_string_equal(roz_toml_type_name(ROZ_TOML_STRING), "string");
	assert_string_equal(roz_toml_type_name(ROZ_TOML_INTEGER), "integer");
	assert_string_equal(roz_toml_type_name(ROZ_TOML_FLOAT), "float");
	assert_string_equal(roz_toml_type_name(ROZ_TOML_BOOLEAN), "boolean");
	assert_string_equal(roz_toml_type_name(ROZ_TOML_DATETIME), "datetime");
}

/* The parser reads exactly len bytes and never past them. */
static void test_length_not_nul(void **state)
{
	roz_toml_value *root;
	char *heap;
	const char text[] = "a = 12345 # trailing";

	(void)state;
	root = parse_len(text, 6);
	check_int(root, "a", 12);
	roz_toml_free(root);

	/* an exactly sized heap copy lets the sanitizers catch over-reads */
	heap = malloc(7);
	assert_non_null(heap);
	memcpy(heap, "s = 'x'", 7);
	root = parse_len(heap, 7);
	check_str(root, "s", "x");
	roz_toml_free(root);
	memcpy(heap, "s = \"\"\"", 7);
	assert_int_equal(roz_toml_parse(heap, 7, &root, NULL), ROZ_EPARSE);
	assert_null(root);
	memcpy(heap, "d=1979-", 7);
	assert_int_equal(roz_toml_parse(heap, 7, &root, NULL), ROZ_EPARSE);
	memcpy(heap, "t=12:00", 7);
	assert_int_equal(roz_toml_parse(heap, 7, &root, NULL), ROZ_EPARSE);
	memcpy(heap, "e=\"\\U00", 7);
	assert_int_equal(roz_toml_parse(heap, 7, &root, NULL), ROZ_EPARSE);
	free(heap);
}

typedef struct bad_doc {
	const char *text;
	size_t len; /* 0: use strlen */
	int line, column;
	const char *message;
} bad_doc;

#define WITH_NUL(s) s, sizeof(s) - 1

static const bad_doc bad_docs[] = {
	/* keys and structure */
	{"a = 1\na = 2\n", 0, 2, 1, "duplicate key 'a'"},
	{"[circuit_breaker]\nmax_blocks = 1\nmax_blocks = 2\n", 0, 3, 1, "duplicate key 'max_blocks'"},
	{"a.b = 1\na.b = 2\n", 0, 2, 3, "duplicate key 'a.b'"},
	{"a = { a = 1, a = 2 }\n", 0, 1, 14, "duplicate key 'a'"},
	{"a = \n", 0, 1, 5, "expected value"},
	{"a = # nothing\n", 0, 1, 5, "expected value"},
	{"a\n", 0, 1, 2, "expected '=' after key"},
	{"key with space = 1\n", 0, 1, 5, "expected '=' after key"},
	{"= 1\n", 0, 1, 1, "expected key"},
	{"a. = 1\n", 0, 1, 4, "expected key after '.'"},
	{"caf\xc3\xa9 = 1\n", 0, 1, 4, "invalid character in bare key"},
	{"\"\"\"a\"\"\" = 1\n", 0, 1, 1, "a key cannot be a multi-line string"},
	{"a.\"\\u0000\" = 1\n", 0, 1, 3, "key contains a nul character"},
	{"a = 1 b = 2\n", 0, 1, 7, "expected newline after value"},
	{"a = \"x\" \"y\"\n", 0, 1, 9, "expected newline after value"},
	{"[a]x\n", 0, 1, 4, "expected newline after table header"},
	{"[a\n", 0, 1, 3, "expected ']' after table name"},
	{"[[a]\n", 0, 1, 5, "expected ']]' after table name"},
	{"[]\n", 0, 1, 2, "expected key"},
	/* strings */
	{"a = \"\\q\"\n", 0, 1, 6, "invalid escape '\\q'"},
	{"a = \"\\x41\"\n", 0, 1, 6, "invalid escape '\\x'"},
	{"a = \"a\\ b\"\n", 0, 1, 7, "invalid escape '\\ '"},
	{"a = \"\"\"\n  foo \\  x\n\"\"\"\n", 0, 2, 7, "invalid escape '\\ '"},
	{"a = \"\\u12\"\n", 0, 1, 6, "expected 4 hex digits after '\\u'"},
	{"a = \"\\uD800\"\n", 0, 1, 6, "escape '\\uD800' is not a unicode scalar value"},
	{"a = \"\\U00110000\"\n", 0, 1, 6, "escape '\\U00110000' is not a unicode scalar value"},
	{"a = \"abc\nb = 1\n", 0, 1, 5, "unterminated string"},
	{"a = 'abc\nb = 1\n", 0, 1, 5, "unterminated string"},
	{"a = \"\"\"\nabc\n", 0, 1, 5, "unterminated string"},
	{"x = 1\na = '''abc''\n", 0, 2, 5, "unterminated string"},
	{"a = \"x\x01y\"\n", 0, 1, 7, "control character in string"},
	{"a = '''x\x7f'''\n", 0, 1, 9, "control character in string"},
	{"a = \"x\ry\"\n", 0, 1, 7, "carriage return not followed by newline"},
	{"a = \"\xff\"\n", 0, 1, 6, "invalid utf-8"},
	{"a = \"\xc0\xaf\"\n", 0, 1, 6, "invalid utf-8"},
	{"a = \"\xed\xa0\x80\"\n", 0, 1, 6, "invalid utf-8"},
	{"a = 'ok\xe2\x82'\n", 0, 1, 8, "invalid utf-8"},
	{WITH_NUL("a = \"x\0y\"\n"), 1, 7, "nul byte"},
	{WITH_NUL("a = 1\n\0"), 2, 1, "nul byte"},
	/* comments and line ends */
	{"# comment \x7f\n", 0, 1, 11, "control character in comment"},
	{"a = 1 # \x01\n", 0, 1, 9, "control character in comment"},
	{"# caf\xe9\n", 0, 1, 6, "invalid utf-8"},
	{"a = 1\rb = 2\n", 0, 1, 6, "carriage return not followed by newline"},
	{"a = 1\n\r\n\r", 0, 3, 1, "carriage return not followed by newline"},
	{"\xef\xbb\xbf" "a = 1 2\n", 0, 1, 7, "expected newline after value"},
	{"a = 1\n\xef\xbb\xbf" "b = 2\n", 0, 2, 1, "expected key"},
	{"a = \xe2\x82\xac\n", 0, 1, 5, "invalid value"},
	/* integers */
	{"a = 9223372036854775808\n", 0, 1, 5, "integer out of range"},
	{"a = -9223372036854775809\n", 0, 1, 5, "integer out of range"},
	{"a = 0x8000000000000000\n", 0, 1, 5, "integer out of range"},
	{"a = 0b1000000000000000000000000000000000000000000000000000000000000000\n", 0, 1, 5,
	 "integer out of range"},
	{"a = 012\n", 0, 1, 5, "leading zeros are not allowed"},
	{"a = -0_1\n", 0, 1, 6, "leading zeros are not allowed"},
	{"a = 1__2\n", 0, 1, 6, "'_' must be between digits"},
	{"a = 1_000_\n", 0, 1, 10, "'_' must be between digits"},
	{"a = _1\n", 0, 1, 5, "invalid value"},
	{"a = +0x10\n", 0, 1, 5, "hex, octal and binary integers cannot have a sign"},
	{"a = 0x\n", 0, 1, 7, "expected digit after '0x'"},
	{"a = 0x_1\n", 0, 1, 7, "expected digit after '0x'"},
	{"a = 0o8\n", 0, 1, 7, "expected digit after '0o'"},
	{"a = 0b102\n", 0, 1, 9, "invalid number"},
	{"a = 0X10\n", 0, 1, 6, "invalid number"},
	{"a = 1x\n", 0, 1, 6, "invalid number"},
	{"a = +\n", 0, 1, 6, "invalid number"},
	/* floats */
	{"a = 1.\n", 0, 1, 7, "expected digit after '.'"},
	{"a = 1.e5\n", 0, 1, 7, "expected digit after '.'"},
	{"a = .5\n", 0, 1, 5, "invalid value"},
	{"a = 1e\n", 0, 1, 7, "expected digit in exponent"},
	{"a = 1.2.3\n", 0, 1, 8, "invalid number"},
	{"a = 1._5\n", 0, 1, 7, "expected digit after '.'"},
	{"a = 03.14\n", 0, 1, 5, "leading zeros are not allowed"},
	{"a = 1e400\n", 0, 1, 5, "float out of range"},
	{"a = -1e400\n", 0, 1, 5, "float out of range"},
	{"a = infinity\n", 0, 1, 8, "invalid value"},
	{"a = NaN\n", 0, 1, 5, "invalid value"},
	{"a = in\n", 0, 1, 5, "invalid value"},
	/* booleans */
	{"a = truex\n", 0, 1, 9, "invalid value"},
	{"a = TRUE\n", 0, 1, 5, "invalid value"},
	{"a = fals\n", 0, 1, 5, "invalid value"},
	/* date-times */
	{"a = 1979-13-01\n", 0, 1, 10, "month out of range"},
	{"a = 1979-00-01\n", 0, 1, 10, "month out of range"},
	{"a = 2023-02-29\n", 0, 1, 13, "day out of range"},
	{"a = 1900-02-29\n", 0, 1, 13, "day out of range"},
	{"a = 2024-04-31\n", 0, 1, 13, "day out of range"},
	{"a = 2024-04-00\n", 0, 1, 13, "day out of range"},
	{"a = 1987-7-05\n", 0, 1, 10, "invalid date"},
	{"a = 24:00:00\n", 0, 1, 5, "hour out of range"},
	{"a = 12:60:00\n", 0, 1, 8, "minute out of range"},
	{"a = 12:00:61\n", 0, 1, 11, "second out of range"},
	{"a = 12:00\n", 0, 1, 10, "invalid time"},
	{"a = 12:00:00.\n", 0, 1, 14, "invalid time"},
	{"a = 2000-01-01T\n", 0, 1, 16, "invalid time"},
	{"a = 1979-05-27T07:32:00+25:00\n", 0, 1, 25, "hour out of range"},
	{"a = 1979-05-27T07:32:00+05:60\n", 0, 1, 28, "minute out of range"},
	{"a = 1979-05-27T07:32:00+0500\n", 0, 1, 27, "invalid time offset"},
	{"a = 1979-05-27T07:32:00Zx\n", 0, 1, 25, "invalid date-time"},
	{"a = 07:32:00Z\n", 0, 1, 13, "invalid date-time"},
	{"a = 1979-05-27 07:32\n", 0, 1, 21, "invalid time"},
	/* arrays */
	{"a = [1, 2\n", 0, 1, 5, "unterminated array"},
	{"a = [\n1,\n2,\n", 0, 1, 5, "unterminated array"},
	{"a = [1 2]\n", 0, 1, 8, "expected ',' or ']' in array"},
	{"a = [1,,2]\n", 0, 1, 8, "expected value"},
	{"a = [,]\n", 0, 1, 6, "expected value"},
	/* inline tables */
	{"a = {b = 1,}\n", 0, 1, 11, "trailing comma in inline table"},
	{"a = {b = 1\n}\n", 0, 1, 11, "newline in inline table"},
	{"a = {\nb = 1}\n", 0, 1, 6, "newline in inline table"},
	{"a = {b = 1 c = 2}\n", 0, 1, 12, "expected ',' or '}' in inline table"},
	{"a = {", 0, 1, 5, "unterminated inline table"},
	{"a = {b = 1", 0, 1, 5, "unterminated inline table"},
	{"a = {b = 1}\na.c = 2\n", 0, 2, 1, "cannot extend inline table 'a'"},
	{"a = {b = 1}\n[a.c]\n", 0, 2, 2, "cannot extend inline table 'a'"},
	{"a = {b = 1}\n[a]\n", 0, 2, 2, "cannot extend inline table 'a'"},
	{"a = {b = {}}\n[a.b]\n", 0, 2, 2, "cannot extend inline table 'a'"},
	{"a = {b.c = 1, b = 2}\n", 0, 1, 15, "duplicate key 'b'"},
	{"a = {b = {c = 1}, b.d = 2}\n", 0, 1, 19, "cannot extend inline table 'b'"},
	{"[product]\ntype.name = \"Nail\"\ntype = { edible = false }\n", 0, 3, 1, "duplicate key 'type'"},
	/* table definitions */
	{"[a]\n[a]\n", 0, 2, 2, "table 'a' already defined"},
	{"[a]\nb = 1\n[a.c]\n[a]\n", 0, 4, 2, "table 'a' already defined"},
	{"[a]\n[a.b]\n[a.b]\n", 0, 3, 4, "table 'a.b' already defined"},
	{"a.b = 1\n[a]\n", 0, 2, 2, "table 'a' already defined"},
	{"[fruit]\napple.color = \"red\"\n[fruit.apple]\n", 0, 3, 8, "table 'fruit.apple' already defined"},
	{"[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]\n", 0, 3, 14,
	 "table 'fruit.apple.taste' already defined"},
	{"[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 0, 4, 3, "table 'b.c' already defined"},
	{"[a.b]\nx = 1\n[a]\nb.y = 2\n", 0, 4, 1, "table 'b' already defined"},
	{"a = 1\na.b = 2\n", 0, 2, 1, "key 'a' is not a table"},
	{"a = 1\n[a.b]\n", 0, 2, 2, "key 'a' is not a table"},
	{"[fruit]\napple = \"red\"\n[fruit.apple]\n", 0, 3, 8, "key 'fruit.apple' is not a table"},
	{"a = [1]\n[a.b]\n", 0, 2, 2, "key 'a' is not a table"},
	{"a = 1\na = {}\n", 0, 2, 1, "duplicate key 'a'"},
	{"a.b = 0\na = {}\n", 0, 2, 1, "duplicate key 'a'"},
	/* arrays of tables */
	{"a = []\n[[a]]\n", 0, 2, 3, "cannot append to static array 'a'"},
	{"a = [{b = 1}]\n[[a]]\n", 0, 2, 3, "cannot append to static array 'a'"},
	{"[[a]]\n[a]\n", 0, 2, 2, "table 'a' is already an array of tables"},
	{"[a]\n[[a]]\n", 0, 2, 3, "key 'a' is not an array of tables"},
	{"a = 1\n[[a]]\n", 0, 2, 3, "key 'a' is not an array of tables"},
	{"[[fruits]]\n[[fruits.varieties]]\n[fruits.varieties]\n", 0, 3, 9,
	 "table 'fruits.varieties' is already an array of tables"},
	{"[[fruits]]\n[fruits.physical]\n[[fruits.physical]]\n", 0, 3, 10,
	 "key 'fruits.physical' is not an array of tables"},
	{"[[a.b]]\n[a]\nb.y = 2\n", 0, 3, 1, "key 'b' is not a table"},
	{"[ [a]]\n", 0, 1, 3, "expected key"},
};

static void test_invalid_documents(void **state)
{
	size_t i;

	(void)state;
	assert_true(sizeof(bad_docs) / sizeof(bad_docs[0]) >= 40);
	for (i = 0; i < sizeof(bad_docs) / sizeof(bad_docs[0]); i++) {
		const bad_doc *d = &bad_docs[i];
		size_t len = d->len ? d->len : strlen(d->text);
		roz_toml_value *root = (roz_toml_value *)&root;
		roz_toml_error err;
		char *want;
		int rc;

		memset(&err, 0x55, sizeof(err));
		rc = roz_toml_parse(d->text, len, &root, &err);
		if (rc != ROZ_EPARSE)
			fail_msg("bad_docs[%zu] returned %d, not ROZ_EPARSE:\n%s", i, rc, d->text);
		assert_null(root);
		if (err.line != d->line || err.column != d->column || !strstr(err.message, d->message))
			fail_msg("bad_docs[%zu]: got %d:%d '%s', expected %d:%d '%s'\n%s", i, err.line,
				 err.column, err.message, d->line, d->column, d->message, d->text);
		want = t_sprintf("%d:%d: %s", err.line, err.column, err.message);
		assert_string_equal(roz_error_last(), want);
		free(want);
	}
}

static void test_error_without_err(void **state)
{
	roz_toml_value *root = NULL;

	(void)state;
	assert_int_equal(roz_toml_parse("a = 1\nb = 2 3\n", 14, &root, NULL), ROZ_EPARSE);
	assert_null(root);
	assert_string_equal(roz_error_last(), "2:7: expected newline after value");
	assert_int_equal(roz_toml_parse("a = 1", 5, NULL, NULL), ROZ_EINVALID);
	assert_int_equal(roz_toml_parse(NULL, 3, &root, NULL), ROZ_EINVALID);
}

/* Builds a document of n nested openers (and their closers) after `a = `. */
static char *nested(const char *open, const char *close, int n)
{
	size_t lo = strlen(open), lc = strlen(close);
	char *s = malloc(4 + (size_t)n * (lo + lc) + 2), *q = s;
	int i;

	assert_non_null(s);
	memcpy(q, "a = ", 4);
	q += 4;
	for (i = 0; i < n; i++, q += lo)
		memcpy(q, open, lo);
	for (i = 0; i < n; i++, q += lc)
		memcpy(q, close, lc);
	strcpy(q, "\n");
	return s;
}

static void test_nesting_limit(void **state)
{
	roz_toml_value *root = NULL;
	roz_toml_error err;
	roz_buf b = ROZ_BUF_INIT;
	char *doc;
	int i;

	(void)state;
	doc = nested("[", "]", 128);
	root = parse(doc);
	roz_toml_free(root);
	free(doc);

	doc = nested("[", "]", 129);
	assert_int_equal(roz_toml_parse(doc, strlen(doc), &root, &err), ROZ_EPARSE);
	assert_int_equal(err.line, 1);
	assert_int_equal(err.column, 5 + 128);
	assert_string_equal(err.message, "too deeply nested");
	free(doc);

	doc = nested("{b=", "}", 100000);
	assert_int_equal(roz_toml_parse(doc, strlen(doc), &root, &err), ROZ_EPARSE);
	assert_string_equal(err.message, "too deeply nested");
	free(doc);

	/* dotted keys and headers deepen the tree too */
	for (i = 0; i < 200; i++)
		roz_buf_adds(&b, i ? ".k" : "k");
	roz_buf_adds(&b, " = 1\n");
	assert_int_equal(roz_toml_parse(b.ptr, b.len, &root, &err), ROZ_EPARSE);
	assert_string_equal(err.message, "too deeply nested");
	roz_buf_reset(&b);
	roz_buf_adds(&b, "[");
	for (i = 0; i < 100; i++)
		roz_buf_adds(&b, i ? ".k" : "k");
	roz_buf_adds(&b, "]\nx = {a = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}\n");
	assert_int_equal(roz_toml_parse(b.ptr, b.len, &root, &err), ROZ_EPARSE);
	assert_string_equal(err.message, "too deeply nested");
	/* each level of nested arrays of tables adds an array and a table */
	roz_buf_reset(&b);
	for (i = 1; i <= 70; i++) {
		int j;

		roz_buf_adds(&b, "[[k");
		for (j = 1; j < i; j++)
			roz_buf_adds(&b, ".k");
		roz_buf_adds(&b, "]]\n");
	}
	assert_int_equal(roz_toml_parse(b.ptr, b.len, &root, &err), ROZ_EPARSE);
	assert_int_equal(err.line, 65);
	assert_string_equal(err.message, "too deeply nested");
	roz_buf_dispose(&b);
}

/* Many keys in one table must not make parsing quadratic. */
static void test_many_keys(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_toml_value *root;
	roz_toml_error err;
	int i;

	(void)state;
	for (i = 0; i < 200000; i++)
		roz_buf_addf(&b, "key%d = %d\n", i, i);
	root = parse_len(b.ptr, b.len);
	assert_int_equal(root->u.table.len, 200000);
	assert_int_equal(root->u.table.items[199999].value->u.integer, 199999);
	roz_toml_free(root);
	roz_buf_adds(&b, "key123456 = 0\n");
	assert_int_equal(roz_toml_parse(b.ptr, b.len, &root, &err), ROZ_EPARSE);
	assert_int_equal(err.line, 200001);
	assert_string_equal(err.message, "duplicate key 'key123456'");
	roz_buf_dispose(&b);
}

static const char alloc_doc[] =
	"# roz settings\n"
	"title = \"roz \\u00e9 \\U0001F600\"\n"
	"[review]\n"
	"mode = \"prompt\"\n"
	"notes = \"\"\"\nline one \\\n  continued\n\"\"\"\n"
	"raw = '''C:\\path'''\n"
	"[review.gates]\n"
	"tools = [\"Bash:git push*\", \"mcp__tissue__close*\",]\n"
	"approval_scope = \"session\"\n"
	"approval_ttl_seconds = 3_600\n"
	"[circuit_breaker]\n"
	"max_blocks = 3\n"
	"cooldown_seconds = 300\n"
	"ratio = 0.75\n"
	"since = 1979-05-27T07:32:00Z\n"
	"[templates]\n"
	"active = \"random\"\n"
	"weights = { default = 70, terse = 30, nested.deep = [1, [2, 3], {x = 1}] }\n"
	"[[rules]]\nname = \"one\"\nmatch.tool = \"Bash\"\n"
	"[[rules]]\nname = \"two\"\n"
	"[rules.extra]\nflag = true\n"
	"[a.b.c]\n[a]\nk00 = 0\nk01 = 1\nk02 = 2\nk03 = 3\nk04 = 4\nk05 = 5\nk06 = 6\nk07 = 7\n"
	"k08 = 8\nk09 = 9\nk10 = 10\nk11 = 11\nk12 = 12\nk13 = 13\nk14 = 14\nk15 = 15\nk16 = 16\n"
	"k17 = 17\nk18 = 18\nk19 = 19\nk20 = 20\nk21 = 21\nk22 = 22\nk23 = 23\nk24 = 24\nk25 = 25\n"
	"k26 = 26\nk27 = 27\nk28 = 28\nk29 = 29\nk30 = 30\nk31 = 31\nk32 = 32\nk33 = 33\nk34 = 34\n";

static void test_alloc_failure(void **state)
{
	roz_toml_value *root;
	roz_toml_error err;
	long n;
	int rc = ROZ_ENOMEM;

	(void)state;
	for (n = 0; rc != ROZ_OK; n++) {
		assert_true(n < 100000);
		root = (roz_toml_value *)&root;
		roz_alloc_fail_after(n);
		rc = roz_toml_parse(alloc_doc, sizeof(alloc_doc) - 1, &root, &err);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_ENOMEM) {
			assert_null(root);
			continue;
		}
		if (rc != ROZ_OK)
			fail_msg("fail_after(%ld): rc %d at %d:%d %s", n, rc, err.line, err.column, err.message);
	}
	/* the last round really parsed the whole document */
	assert_true(n > 20);
	check_int(root, "a.k34", 34);
	check_int(root, "templates.weights.terse", 30);
	check_str(root, "review.notes", "line one continued\n");
	assert_int_equal(typed(root, "rules", ROZ_TOML_ARRAY)->u.array.len, 2);
	check_bool(item(path(root, "rules"), 1), "extra.flag", true);
	roz_toml_free(root);
}

/* ---- lenient parsing ---------------------------------------------------------- */

static roz_toml_value *lenient(const char *text, roz_toml_diags *d)
{
	roz_toml_value *root = NULL;

	memset(d, 0, sizeof(*d));
	assert_int_equal(roz_toml_parse_lenient(text, strlen(text), &root, d), ROZ_OK);
	assert_non_null(root);
	return root;
}

static void check_diag(const roz_toml_diags *d, size_t i, int line, int column, const char *message,
		       roz_toml_loss lost, const char *dotted_path)
{
	char got[256] = "";
	size_t used = 0;

	if (i >= d->len)
		fail_msg("only %zu problems, wanted one at %d:%d '%s'", d->len, line, column, message);
	for (size_t k = 0; k < d->items[i].npath; k++)
		used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s", k ? "." : "",
					 d->items[i].path[k]);
	if (d->items[i].line != line || d->items[i].column != column ||
	    !strstr(d->items[i].message, message) || d->items[i].lost != lost || strcmp(got, dotted_path) != 0)
		fail_msg("problem %zu: %d:%d '%s' lost %d at '%s'; wanted %d:%d '%s' lost %d at '%s'", i,
			 d->items[i].line, d->items[i].column, d->items[i].message, (int)d->items[i].lost, got,
			 line, column, message, (int)lost, dotted_path);
}

/* On every bad document the first problem is the error the strict parser stops at. */
static void test_lenient_first_problem_is_strict_error(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_docs) / sizeof(bad_docs[0]); i++) {
		const bad_doc *b = &bad_docs[i];
		size_t len = b->len ? b->len : strlen(b->text);
		roz_toml_value *root = NULL;
		roz_toml_diags d = {NULL, 0, 0};

		assert_int_equal(roz_toml_parse_lenient(b->text, len, &root, &d), ROZ_OK);
		assert_non_null(root);
		if (!d.len || d.items[0].line != b->line || d.items[0].column != b->column ||
		    !strstr(d.items[0].message, b->message))
			fail_msg("bad_docs[%zu]: lenient said %d:%d '%s', strict says %d:%d '%s'\n%s", i,
				 d.len ? d.items[0].line : 0, d.len ? d.items[0].column : 0,
				 d.len ? d.items[0].message : "(nothing)", b->line, b->column, b->message, b->text);
		roz_toml_diags_dispose(&d);
		assert_null(d.items);
		roz_toml_free(root);
	}
}

/* A well-formed document reads the same either way, with nothing to report. */
static void test_lenient_well_formed(void **state)
{
	roz_toml_diags d;
	roz_toml_value *root;

	(void)state;
	root = lenient(alloc_doc, &d);
	assert_int_equal(d.len, 0);
	check_int(root, "a.k34", 34);
	check_str(root, "review.notes", "line one continued\n");
	check_bool(item(path(root, "rules"), 1), "extra.flag", true);
	check_int(root, "templates.weights.terse", 30);
	roz_toml_free(root);
}

static void test_lenient_bad_line_costs_that_line(void **state)
{
	roz_toml_diags d;
	roz_toml_value *root;

	(void)state;
	/* trailing text: the pair is left out, not half-kept */
	root = lenient("a = 1\nb = 2 3\nc = 3\n", &d);
	assert_int_equal(d.len, 1);
	check_diag(&d, 0, 2, 7, "expected newline after value", ROZ_TOML_LOST_KEY, "b");
	check_int(root, "a", 1);
	assert_null(path(root, "b"));
	check_int(root, "c", 3);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);

	/* the lost key is named from the root, through its table and dotted parts */
	root = lenient("[review]\nmode = Prompt\nx.y = \"\xe9\"\nok = true\n", &d);
	assert_int_equal(d.len, 2);
	check_diag(&d, 0, 2, 8, "invalid value", ROZ_TOML_LOST_KEY, "review.mode");
	check_diag(&d, 1, 3, 8, "invalid utf-8", ROZ_TOML_LOST_KEY, "review.x.y");
	assert_false(d.items[0].partial);
	check_bool(root, "review.ok", true);
	assert_null(path(root, "review.mode"));
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);

	/* a key that breaks off is named as far as it was read */
	root = lenient("[storage]\npa\xe9th = 1\nfsync = true\n", &d);
	check_diag(&d, 0, 2, 3, "invalid utf-8", ROZ_TOML_LOST_KEY, "storage");
	assert_true(d.items[0].partial);
	check_bool(root, "storage.fsync", true);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);
}

static void test_lenient_comment_costs_nothing(void **state)
{
	roz_toml_diags d;
	roz_toml_value *root;

	(void)state;
	root = lenient("# caf\xe9\na = 1 # na\xefve\n[t]\nb = 2\n", &d);
	assert_int_equal(d.len, 2);
	check_diag(&d, 0, 1, 6, "invalid utf-8", ROZ_TOML_LOST_NOTHING, "");
	check_diag(&d, 1, 2, 11, "invalid utf-8", ROZ_TOML_LOST_NOTHING, "");
	check_int(root, "a", 1);
	check_int(root, "t.b", 2);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);
}

static void test_lenient_duplicate_first_wins(void **state)
{
	roz_toml_diags d;
	roz_toml_value *root;

	(void)state;
	/* the second value is read to its end, so its lines do not become errors of their own */
	root = lenient("a = 1\na = [\n  2,\n  3,\n]\nb = 4\n", &d);
	assert_int_equal(d.len, 1);
	check_diag(&d, 0, 2, 1, "duplicate key 'a'; the first, on line 1, is used", ROZ_TOML_LOST_KEY, "a");
	check_int(root, "a", 1);
	check_int(root, "b", 4);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);

	/* a table defined twice: the keys under the second go nowhere */
	root = lenient("[t]\nx = 1\n[t]\nx = 2\ny = 3\n[u]\nz = 4\n", &d);
	assert_int_equal(d.len, 1);
	check_diag(&d, 0, 3, 2, "table 't' already defined", ROZ_TOML_LOST_TABLE, "t");
	check_int(root, "t.x", 1);
	assert_null(path(root, "t.y"));
	check_int(root, "u.z", 4);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);
}

static void test_lenient_broken_header(void **state)
{
	roz_toml_diags d;
	roz_toml_value *root;

	(void)state;
	/* the keys under a broken header must not land in the table before it */
	root = lenient("[a]\nk = 1\n[b\nm = 2\n[c]\nn = 3\n", &d);
	assert_int_equal(d.len, 1);
	check_diag(&d, 0, 3, 3, "expected ']' after table name", ROZ_TOML_LOST_TABLE, "b");
	check_int(root, "a.k", 1);
	assert_null(path(root, "a.m"));
	assert_null(path(root, "b"));
	check_int(root, "c.n", 3);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);

	/* errors under it are still found; what it was is not known, so neither is where they were */
	root = lenient("[b\xe9]\nm = = 2\n", &d);
	assert_int_equal(d.len, 2);
	check_diag(&d, 0, 1, 3, "invalid utf-8", ROZ_TOML_LOST_TABLE, "");
	assert_true(d.items[0].partial);
	check_diag(&d, 1, 2, 5, "invalid value", ROZ_TOML_LOST_KEY, "m");
	assert_true(d.items[1].partial);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);
}

static void test_lenient_unterminated_values(void **state)
{
	roz_toml_diags d;
	roz_toml_value *root;

	(void)state;
	/* an unterminated string does not swallow the rest of the file */
	root = lenient("s = \"\"\"never closed\n[t]\nb = 1\n", &d);
	check_diag(&d, 0, 1, 5, "unterminated string", ROZ_TOML_LOST_KEY, "s");
	assert_int_equal(d.len, 1);
	check_int(root, "t.b", 1);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);

	/* the header that broke an unclosed array is still a header */
	root = lenient("arr = [1, 2\n[t]\nb = 1\n", &d);
	assert_int_equal(d.len, 1);
	check_diag(&d, 0, 2, 1, "expected ',' or ']' in array", ROZ_TOML_LOST_KEY, "arr");
	check_int(root, "t.b", 1);
	assert_null(path(root, "b"));
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);
}

static void test_lenient_gives_up_after_too_many(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_toml_diags d;
	roz_toml_value *root;

	(void)state;
	for (int i = 0; i < 500; i++)
		roz_buf_adds(&b, "= junk\n");
	roz_buf_adds(&b, "late = 1\n");
	root = lenient(b.ptr, &d);
	assert_int_equal(d.len, ROZ_TOML_MAX_DIAGS);
	check_diag(&d, ROZ_TOML_MAX_DIAGS - 1, ROZ_TOML_MAX_DIAGS, 1, "too many errors", ROZ_TOML_LOST_REST, "");
	assert_true(d.items[ROZ_TOML_MAX_DIAGS - 1].partial);
	assert_null(path(root, "late"));
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);
	roz_buf_dispose(&b);
}

static void test_lenient_alloc_failure(void **state)
{
	static const char doc[] = "a = 1\na = [2, {x = 1}]\n[t\nk = {y = [1, \"\xff\"]}\n# \xfe\n"
				  "[u]\nv = \"\"\"\nw\"\"\" 1\nz = 3\n";
	roz_toml_value *root;
	roz_toml_diags d;
	long n;
	int rc = ROZ_ENOMEM;

	(void)state;
	for (n = 0; rc != ROZ_OK; n++) {
		assert_true(n < 100000);
		memset(&d, 0, sizeof(d));
		root = (roz_toml_value *)&root;
		roz_alloc_fail_after(n);
		rc = roz_toml_parse_lenient(doc, sizeof(doc) - 1, &root, &d);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_ENOMEM) {
			assert_null(root);
			assert_int_equal(d.len, 0);
		}
	}
	assert_int_equal(d.len, 5);
	check_int(root, "a", 1);
	check_int(root, "u.z", 3);
	roz_toml_diags_dispose(&d);
	roz_toml_free(root);
	assert_int_equal(roz_toml_parse_lenient("a", 1, NULL, &d), ROZ_EINVALID);
	assert_int_equal(roz_toml_parse_lenient("a", 1, &root, NULL), ROZ_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_blank),
		cmocka_unit_test(test_basic_strings),
		cmocka_unit_test(test_multiline_basic_strings),
		cmocka_unit_test(test_literal_strings),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_datetimes),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_tables_and_dotted_keys),
		cmocka_unit_test(test_array_of_tables),
		cmocka_unit_test(test_inline_tables),
		cmocka_unit_test(test_order_and_lookup),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_roz_config),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_length_not_nul),
		cmocka_unit_test(test_invalid_documents),
		cmocka_unit_test(test_error_without_err),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_many_keys),
		cmocka_unit_test(test_alloc_failure),
		cmocka_unit_test(test_lenient_first_problem_is_strict_error),
		cmocka_unit_test(test_lenient_well_formed),
		cmocka_unit_test(test_lenient_bad_line_costs_that_line),
		cmocka_unit_test(test_lenient_comment_costs_nothing),
		cmocka_unit_test(test_lenient_duplicate_first_wins),
		cmocka_unit_test(test_lenient_broken_header),
		cmocka_unit_test(test_lenient_unterminated_values),
		cmocka_unit_test(test_lenient_gives_up_after_too_many),
		cmocka_unit_test(test_lenient_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
