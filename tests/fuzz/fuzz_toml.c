/*
 * fuzz_toml.c - the config file parser on arbitrary bytes. A document that
 * parses must give a well-formed tree and be safe to apply as roz's config;
 * one that does not must point at a line and column that exist, because
 * that position is what `roz doctor` and the hooks show the user.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/config.h"
#include "roz/toml.h"

/* Walk the tree; recursion is bounded by the parser's own nesting limit. */
static void check_value(const roz_toml_value *v, int depth)
{
	FUZZ_CHECK(v != NULL);
	/* the root table was written nowhere; everything else was */
	if (depth)
		FUZZ_CHECK(v->line >= 1 && v->column >= 1);
	switch (v->type) {
	case ROZ_TOML_TABLE:
		FUZZ_CHECK(v->u.table.len <= v->u.table.cap);
		for (size_t i = 0; i < v->u.table.len; i++) {
			const roz_toml_kv *kv = &v->u.table.items[i];

			FUZZ_CHECK(kv->key != NULL);
			FUZZ_CHECK(kv->line >= 1 && kv->column >= 1);
			/*
			 * A key written twice is an error, so a lookup by name finds this
			 * very entry. The lookup is linear; big tables are left out to
			 * keep each run fast.
			 */
			if (v->u.table.len <= 256)
				FUZZ_CHECK(roz_toml_get_kv(v, kv->key) == kv);
			check_value(kv->value, depth + 1);
		}
		break;
	case ROZ_TOML_ARRAY:
		FUZZ_CHECK(v->u.array.len <= v->u.array.cap);
		for (size_t i = 0; i < v->u.array.len; i++)
			check_value(v->u.array.items[i], depth + 1);
		break;
	case ROZ_TOML_STRING:
	case ROZ_TOML_DATETIME:
		FUZZ_CHECK(v->u.str.ptr != NULL);
		FUZZ_CHECK(v->u.str.ptr[v->u.str.len] == '\0');
		break;
	case ROZ_TOML_INTEGER:
	case ROZ_TOML_FLOAT:
	case ROZ_TOML_BOOLEAN:
		break;
	default:
		FUZZ_CHECK(!"unknown TOML value type");
	}
}

/* Lines as an editor counts them: a line break is LF (CR LF ends in one). */
static void check_position(const char *text, size_t len, const roz_toml_error *err)
{
	size_t start = 0, end;
	int line = 1;

	FUZZ_CHECK(err->line >= 1 && err->column >= 1);
	while (line < err->line) {
		const char *nl = memchr(text + start, '\n', len - start);

		/* the error names a line past the last one */
		FUZZ_CHECK(nl != NULL);
		start = (size_t)(nl - text) + 1;
		line++;
	}
	end = start;
	while (end < len && text[end] != '\n')
		end++;
	/* a column one past the last byte is the end of the line (or of the input) */
	FUZZ_CHECK((size_t)err->column <= end - start + 1);
	FUZZ_CHECK(err->message[0] != '\0');
}

static void ignore_warning(void *ud, const char *message)
{
	(void)ud;
	FUZZ_CHECK(message != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	roz_toml_value *doc = NULL;
	roz_toml_error err;
	roz_config config;
	int rc, rc2;

	fuzz_init();
	memset(&err, 0, sizeof(err));
	rc = roz_toml_parse(text, size, &doc, &err);
	if (rc == ROZ_ENOMEM)
		return 0;
	FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_EPARSE);
	if (rc == ROZ_EPARSE) {
		FUZZ_CHECK(doc == NULL);
		check_position(text, size, &err);
	} else {
		FUZZ_CHECK(doc != NULL && doc->type == ROZ_TOML_TABLE);
		check_value(doc, 0);
		roz_toml_free(doc);
	}

	/* the config loader parses the same text again and must reach the same verdict */
	if (roz_config_init(&config) != ROZ_OK)
		return 0;
	rc2 = roz_config_apply_toml(&config, text, size, "fuzz.toml", ignore_warning, NULL);
	if (rc2 != ROZ_ENOMEM) {
		FUZZ_CHECK((rc2 == ROZ_EPARSE) == (rc == ROZ_EPARSE));
		FUZZ_CHECK(rc2 == ROZ_OK || rc2 == ROZ_EPARSE || rc2 == ROZ_EINVALID);
		if (rc2 == ROZ_OK) {
			/* what the hooks rely on after a successful load */
			FUZZ_CHECK(config.template_active != NULL);
			FUZZ_CHECK(config.codex != NULL && config.gemini != NULL);
			FUZZ_CHECK(config.n_gate_tools == 0 || config.gate_tools != NULL);
			for (size_t i = 0; i < config.n_gate_tools; i++)
				FUZZ_CHECK(config.gate_tools[i] != NULL);
			for (size_t i = 0; i < config.n_weights; i++)
				FUZZ_CHECK(config.weights[i].id != NULL);
		}
	}
	roz_config_dispose(&config);
	return 0;
}
