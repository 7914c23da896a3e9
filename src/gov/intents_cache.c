/*
 * intents_cache.c - parsed intents as compact JSON, so a hook need not run
 * the YAML parser again while the intents file has not changed (the parse
 * is most of a governed hook's own work: docs/performance.md).
 *
 * The text is roz's own, kept in roz's private storage: it is read back
 * strictly, and anything that is not exactly what roz writes is refused,
 * so the caller parses the YAML again.
 */
#include "roz/intents_cache.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "roz/json.h"

static void add_list(roz_buf *b, const char *key, char *const *items, size_t n)
{
	roz_buf_addf(b, ",\"%s\":", key);
	roz_json_add_string_array(b, items, n);
}

static void add_opt(roz_buf *b, const char *key, const char *v)
{
	if (!v)
		return;
	roz_buf_addf(b, ",\"%s\":", key);
	roz_json_add_string(b, v);
}

void roz_intents_cache_write(const roz_intents *ints, roz_buf *out)
{
	roz_buf_adds(out, "{\"v\":1,\"intents\":[");
	for (size_t i = 0; i < ints->n; i++) {
		const roz_intent *it = &ints->items[i];

		roz_buf_adds(out, i ? ",{\"id\":" : "{\"id\":");
		roz_json_add_string(out, it->id);
		roz_buf_adds(out, ",\"name\":");
		roz_json_add_string(out, it->name);
		roz_buf_addf(out, ",\"status\":\"%s\",\"line\":%u", roz_intents_status_name(it->status), it->line);
		add_list(out, "scope", it->scope, it->nscope);
		add_list(out, "constraints", it->constraints, it->nconstraints);
		add_list(out, "criteria", it->criteria, it->ncriteria);
		add_opt(out, "created_at", it->created_at);
		add_opt(out, "updated_at", it->updated_at);
		roz_buf_addc(out, '}');
	}
	roz_buf_adds(out, "]}");
}

static int refuse(const char *what)
{
	roz_error_set("the cached intents are not what roz writes (%s)", what);
	return ROZ_EPARSE;
}

static int take_string(const cJSON *obj, const char *key, bool optional, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!v && optional)
		return ROZ_OK;
	if (!cJSON_IsString(v))
		return refuse(key);
	return (*out = roz_strdup(v->valuestring)) ? ROZ_OK : ROZ_ENOMEM;
}

static int take_list(const cJSON *obj, const char *key, char ***out, size_t *n)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key), *e;
	size_t count, k = 0;

	*out = NULL;
	*n = 0;
	if (!cJSON_IsArray(arr))
		return refuse(key);
	count = (size_t)cJSON_GetArraySize(arr);
	if (!count)
		return ROZ_OK;
	if (!(*out = roz_calloc(count, sizeof **out)))
		return ROZ_ENOMEM;
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e))
			return refuse(key);
		if (!((*out)[k] = roz_strdup(e->valuestring)))
			return ROZ_ENOMEM;
		*n = ++k;
	}
	return ROZ_OK;
}

static int take_intent(const cJSON *o, roz_intent *it)
{
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(o, "status");
	const cJSON *line = cJSON_GetObjectItemCaseSensitive(o, "line");
	uint64_t ln;
	int rc;
	bool known = false;

	if (!cJSON_IsObject(o))
		return refuse("an intent");
	if ((rc = take_string(o, "id", false, &it->id)) < 0 || (rc = take_string(o, "name", false, &it->name)) < 0)
		return rc;
	for (int s = ROZ_INTENT_DRAFT; s <= ROZ_INTENT_ARCHIVED && cJSON_IsString(status); s++)
		if (strcmp(status->valuestring, roz_intents_status_name((roz_intent_status)s)) == 0) {
			it->status = (roz_intent_status)s;
			known = true;
		}
	if (!known)
		return refuse("status");
	if (!roz_json_uint(line, UINT32_MAX, &ln))
		return refuse("line");
	it->line = (unsigned)ln;
	if ((rc = take_list(o, "scope", &it->scope, &it->nscope)) < 0 ||
	    (rc = take_list(o, "constraints", &it->constraints, &it->nconstraints)) < 0 ||
	    (rc = take_list(o, "criteria", &it->criteria, &it->ncriteria)) < 0 ||
	    (rc = take_string(o, "created_at", true, &it->created_at)) < 0)
		return rc;
	return take_string(o, "updated_at", true, &it->updated_at);
}

int roz_intents_cache_read(const char *text, size_t len, roz_intents *out)
{
	cJSON *doc = NULL;
	const cJSON *v, *arr, *e;
	size_t count, k = 0;
	uint64_t version = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = roz_json_parse(text, len, &doc)) < 0)
		return rc == ROZ_ENOMEM ? rc : refuse("not JSON");
	v = cJSON_GetObjectItemCaseSensitive(doc, "v");
	arr = cJSON_GetObjectItemCaseSensitive(doc, "intents");
	if (!roz_json_uint(v, UINT32_MAX, &version) || version != 1 || !cJSON_IsArray(arr)) {
		rc = refuse("its version");
		goto out;
	}
	count = (size_t)cJSON_GetArraySize(arr);
	if (count > ROZ_INTENTS_MAX) {
		rc = refuse("too many intents");
		goto out;
	}
	if (count && !(out->items = roz_calloc(count, sizeof *out->items))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	rc = ROZ_OK;
	cJSON_ArrayForEach(e, arr) {
		out->n = k + 1; /* so a half-read intent is disposed of too */
		if ((rc = take_intent(e, &out->items[k++])) < 0)
			break;
	}
out:
	cJSON_Delete(doc);
	if (rc < 0)
		roz_intents_dispose(out);
	return rc;
}
