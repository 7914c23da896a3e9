/*
 * fuzz_json.c - roz's two JSON readers must agree: the scanner that
 * validates session traces and the tree parser that reads hook input.
 * Canonical output (what tool inputs are hashed over) must read back and
 * be a fixed point, or the same call could hash two ways. The compact and
 * tabbed layouts must be byte for byte what cJSON's printers made of the
 * same tree, since session files and roz context were written by them.
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "fuzz.h"
#include "roz/json.h"

static int count_member(void *ud, roz_json_span key, roz_json_span value)
{
	(void)key;
	FUZZ_CHECK(roz_json_valid(value.ptr, value.len));
	(*(size_t *)ud)++;
	return 0;
}

static int count_element(void *ud, roz_json_span value)
{
	FUZZ_CHECK(roz_json_valid(value.ptr, value.len));
	(*(size_t *)ud)++;
	return 0;
}

/* The scanner's walk over the top level sees as many children as the tree has. */
static void check_walk(const char *text, size_t len, const cJSON *tree)
{
	roz_json_span doc = {text, len};
	size_t n = 0;
	int rc;

	if (cJSON_IsObject(tree)) {
		rc = roz_json_each_member(doc, count_member, &n);
		FUZZ_CHECK(rc == ROZ_OK);
		FUZZ_CHECK(n == (size_t)cJSON_GetArraySize(tree));
	} else if (cJSON_IsArray(tree)) {
		rc = roz_json_each_element(doc, count_element, &n);
		FUZZ_CHECK(rc == ROZ_OK);
		FUZZ_CHECK(n == (size_t)cJSON_GetArraySize(tree));
	} else {
		/* neither walk may accept a scalar */
		FUZZ_CHECK(roz_json_each_member(doc, count_member, &n) != ROZ_OK);
		FUZZ_CHECK(roz_json_each_element(doc, count_element, &n) != ROZ_OK);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	roz_buf canon = ROZ_BUF_INIT, again = ROZ_BUF_INIT, pretty = ROZ_BUF_INIT;
	roz_buf compact = ROZ_BUF_INIT, tabs = ROZ_BUF_INIT;
	char *theirs;
	cJSON *tree = NULL, *tree2 = NULL;
	bool valid;
	size_t pos = 0;
	int rc;

	fuzz_init();
	valid = roz_json_valid(text, size);
	rc = roz_json_parse(text, size, &tree);
	if (rc == ROZ_ENOMEM)
		return 0;
	FUZZ_CHECK((rc == ROZ_OK) == valid);
	FUZZ_CHECK(rc == ROZ_OK || tree == NULL);
	/* skip_value from the start stops exactly at the end of a valid document */
	if (valid) {
		FUZZ_CHECK(roz_json_skip_value(text, size, &pos) == ROZ_OK);
		FUZZ_CHECK(roz_json_skip_ws(text, size, pos) == size);
	}
	if (rc != ROZ_OK)
		return 0;

	check_walk(text, size, tree);

	roz_json_add_canonical(&canon, tree);
	FUZZ_CHECK(roz_buf_failed(&canon) == ROZ_OK);
	FUZZ_CHECK(roz_json_valid(canon.ptr, canon.len));
	FUZZ_CHECK(roz_json_parse(canon.ptr, canon.len, &tree2) == ROZ_OK);
	roz_json_add_canonical(&again, tree2);
	FUZZ_CHECK(roz_buf_failed(&again) == ROZ_OK);
	FUZZ_CHECK(again.len == canon.len && memcmp(again.ptr, canon.ptr, canon.len) == 0);

	roz_json_add_value(&pretty, tree, ROZ_JSON_INDENT);
	FUZZ_CHECK(roz_buf_failed(&pretty) == ROZ_OK);
	FUZZ_CHECK(roz_json_valid(pretty.ptr, pretty.len));

	roz_json_add_value(&compact, tree, ROZ_JSON_COMPACT);
	FUZZ_CHECK(roz_buf_failed(&compact) == ROZ_OK);
	if ((theirs = cJSON_PrintUnformatted(tree)) != NULL) {
		FUZZ_CHECK(strlen(theirs) == compact.len && memcmp(theirs, compact.ptr, compact.len) == 0);
		cJSON_free(theirs);
	}
	roz_json_add_value(&tabs, tree, ROZ_JSON_TABS);
	FUZZ_CHECK(roz_buf_failed(&tabs) == ROZ_OK);
	FUZZ_CHECK(roz_json_valid(tabs.ptr, tabs.len));
	if ((theirs = cJSON_Print(tree)) != NULL) {
		FUZZ_CHECK(strlen(theirs) == tabs.len && memcmp(theirs, tabs.ptr, tabs.len) == 0);
		cJSON_free(theirs);
	}

	roz_buf_dispose(&canon);
	roz_buf_dispose(&again);
	roz_buf_dispose(&pretty);
	roz_buf_dispose(&compact);
	roz_buf_dispose(&tabs);
	cJSON_Delete(tree);
	cJSON_Delete(tree2);
	return 0;
}
