/*
 * session_gov.c - the governance state a session keeps: the four-state
 * machine, the selected intent, the files it has seen, refusals in a row;
 * and its "governance" object in the session file.
 */
#include "roz/session_gov.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "roz/json.h"
#include "roz/utf8.h"

static const char *const phase_names[] = {
	[ROZ_GOV_AWAITING] = "awaiting",
	[ROZ_GOV_CONTEXT_LOADED] = "context_loaded",
	[ROZ_GOV_ACTION_ALLOWED] = "action_allowed",
	[ROZ_GOV_BLOCKED] = "blocked",
};

const char *roz_session_gov_phase_name(roz_gov_phase p)
{
	if ((size_t)p >= sizeof phase_names / sizeof phase_names[0])
		return "awaiting";
	return phase_names[p];
}

bool roz_session_gov_phase_parse(const char *name, roz_gov_phase *out)
{
	for (size_t i = 0; i < sizeof phase_names / sizeof phase_names[0]; i++)
		if (name && strcmp(name, phase_names[i]) == 0) {
			*out = (roz_gov_phase)i;
			return true;
		}
	return false;
}

static void violation_dispose(roz_gov_violation *v)
{
	roz_free(v->root);
	roz_free(v->path);
	roz_free(v->from);
	roz_free(v->change);
	roz_free(v->code);
	roz_free(v->tool);
	memset(v, 0, sizeof *v);
}

void roz_session_gov_dispose(roz_session_gov *g)
{
	if (!g)
		return;
	roz_free(g->intent_id);
	roz_free(g->intent_root);
	roz_free(g->last_code);
	roz_free(g->model);
	for (size_t i = 0; i < g->n_files; i++)
		roz_free(g->files[i].path);
	roz_free(g->files);
	for (size_t i = 0; i < g->n_violations; i++)
		violation_dispose(&g->violations[i]);
	roz_free(g->violations);
	memset(g, 0, sizeof *g);
}

/* Text roz stores must read back: UTF-8 without NUL (the session file is JSON). */
static bool storable(const char *s)
{
	return s && roz_utf8_valid(s, strlen(s));
}

int roz_session_gov_select(roz_session_gov *g, const char *intent_id, bool refactor, roz_time now)
{
	char *id;

	if (!storable(intent_id) || !*intent_id) {
		roz_error_set("an intent id must be UTF-8 text");
		return ROZ_EINVALID;
	}
	if (!(id = roz_strdup(intent_id)))
		return ROZ_ENOMEM;
	roz_free(g->intent_id);
	g->intent_id = id;
	g->refactor = refactor;
	g->selected_at = (roz_opt_time){true, now};
	g->phase = ROZ_GOV_CONTEXT_LOADED;
	g->denials = 0;
	g->present = true;
	return ROZ_OK;
}

/* Where `path` is in the list, or NONE. */
#define NONE SIZE_MAX
static size_t find_file(const roz_session_gov *g, const char *path)
{
	for (size_t i = g->n_files; i-- > 0;)
		if (strcmp(g->files[i].path, path) == 0)
			return i;
	return NONE;
}

const roz_gov_file *roz_session_gov_file(const roz_session_gov *g, const char *path)
{
	size_t i = find_file(g, path);

	return i == NONE ? NULL : &g->files[i];
}

static bool hex64(const char *h)
{
	size_t n = 0;

	for (; h[n]; n++)
		if (!((h[n] >= '0' && h[n] <= '9') || (h[n] >= 'a' && h[n] <= 'f')))
			return false;
	return n == 64;
}

/* Take the entry at i out, keeping the order of the rest. */
static roz_gov_file take(roz_session_gov *g, size_t i)
{
	roz_gov_file f = g->files[i];

	memmove(&g->files[i], &g->files[i + 1], (g->n_files - i - 1) * sizeof *g->files);
	g->n_files--;
	return f;
}

int roz_session_gov_remember(roz_session_gov *g, const char *path, const char *hash, roz_time now)
{
	size_t at = find_file(g, path);
	roz_gov_file f;

	if (!storable(path) || !*path || !hash || !hex64(hash)) {
		roz_error_set("a remembered file needs a UTF-8 path and a hex SHA-256");
		return ROZ_EINVALID;
	}
	if (at != NONE) {
		f = take(g, at);
	} else {
		if (!(f.path = roz_strdup(path)))
			return ROZ_ENOMEM;
		if (g->n_files >= ROZ_GOV_MAX_FILES) {
			roz_gov_file old = take(g, 0);

			roz_free(old.path);
		}
		if (g->n_files == g->cap_files) {
			size_t cap = g->cap_files ? g->cap_files * 2 : 8;
			roz_gov_file *nf = roz_realloc(g->files, cap * sizeof *nf);

			if (!nf) {
				roz_free(f.path);
				return ROZ_ENOMEM;
			}
			g->files = nf;
			g->cap_files = cap;
		}
	}
	memcpy(f.hash, hash, ROZ_GOV_HASH_SIZE);
	f.seen_at = now;
	g->files[g->n_files++] = f;
	g->present = true;
	return ROZ_OK;
}

void roz_session_gov_forget(roz_session_gov *g, const char *path)
{
	size_t at = find_file(g, path);

	if (at != NONE) {
		roz_gov_file f = take(g, at);

		roz_free(f.path);
	}
}

static int dup_opt(const char *s, char **out)
{
	*out = NULL;
	if (!s)
		return ROZ_OK;
	if (!storable(s))
		return ROZ_EINVALID;
	return (*out = roz_strdup(s)) ? ROZ_OK : ROZ_ENOMEM;
}

bool roz_session_gov_violation_at(const roz_session_gov *g, const char *root, const char *path)
{
	for (size_t i = 0; g && root && path && i < g->n_violations; i++) {
		const roz_gov_violation *v = &g->violations[i];

		if (strcmp(v->root, root) == 0 &&
		    (strcmp(v->path, path) == 0 || (v->from && strcmp(v->from, path) == 0)))
			return true;
	}
	return false;
}

void roz_session_gov_violation_remove(roz_session_gov *g, size_t i)
{
	if (i >= g->n_violations)
		return;
	violation_dispose(&g->violations[i]);
	memmove(&g->violations[i], &g->violations[i + 1], (g->n_violations - i - 1) * sizeof *g->violations);
	g->n_violations--;
}

int roz_session_gov_violation_add(roz_session_gov *g, const roz_gov_violation_in *v)
{
	roz_gov_violation c = {.existed = v->existed, .at = v->at};
	size_t i;
	int rc;

	if (!v->root || !v->path || !v->change || !v->code)
		return ROZ_EINVALID;
	if ((rc = dup_opt(v->root, &c.root)) < 0 || (rc = dup_opt(v->path, &c.path)) < 0 ||
	    (rc = dup_opt(v->from, &c.from)) < 0 || (rc = dup_opt(v->change, &c.change)) < 0 ||
	    (rc = dup_opt(v->code, &c.code)) < 0 || (rc = dup_opt(v->tool, &c.tool)) < 0) {
		violation_dispose(&c);
		return rc;
	}
	for (i = 0; i < g->n_violations; i++)
		if (strcmp(g->violations[i].root, c.root) == 0 && strcmp(g->violations[i].path, c.path) == 0)
			break;
	if (i < g->n_violations)
		c.existed = g->violations[i].existed; /* what stood there before the first change */
	else if (g->n_violations == ROZ_GOV_MAX_VIOLATIONS)
		i = 0; /* the oldest makes room */
	roz_session_gov_violation_remove(g, i);
	if (!g->violations) {
		if (!(g->violations = roz_calloc(ROZ_GOV_MAX_VIOLATIONS, sizeof *g->violations))) {
			violation_dispose(&c);
			return ROZ_ENOMEM;
		}
	}
	g->violations[g->n_violations++] = c;
	return ROZ_OK;
}

int roz_session_gov_select_root(roz_session_gov *g, const char *root)
{
	char *r;

	if (!root || !storable(root))
		return ROZ_EINVALID;
	if (!(r = roz_strdup(root)))
		return ROZ_ENOMEM;
	roz_free(g->intent_root);
	g->intent_root = r;
	return ROZ_OK;
}

const char *roz_session_gov_intent_in(const roz_session_gov *g, const char *root)
{
	if (!g || !g->intent_id)
		return NULL;
	if (g->intent_root && root && strcmp(g->intent_root, root) != 0)
		return NULL;
	return g->intent_id;
}

/* ---- the stored object ------------------------------------------------------ */

static int corrupt(const char *field, const char *what)
{
	roz_error_set("field 'governance.%s' %s", field, what);
	return ROZ_ECORRUPT;
}

static bool absent(const cJSON *v)
{
	return !v || cJSON_IsNull(v);
}

static int get_string(const cJSON *obj, const char *name, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	*out = NULL;
	if (absent(v))
		return ROZ_OK;
	if (!cJSON_IsString(v) || !storable(v->valuestring))
		return corrupt(name, "is not a string");
	return (*out = roz_strdup(v->valuestring)) ? ROZ_OK : ROZ_ENOMEM;
}

static int get_count(const cJSON *obj, const char *name, uint32_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	uint64_t n;

	*out = 0;
	if (absent(v))
		return ROZ_OK;
	if (!roz_json_uint(v, UINT32_MAX, &n))
		return corrupt(name, "is not a count");
	*out = (uint32_t)n;
	return ROZ_OK;
}

static int get_time(const cJSON *obj, const char *name, roz_opt_time *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	out->set = false;
	if (absent(v))
		return ROZ_OK;
	if (!cJSON_IsString(v) || roz_time_parse(v->valuestring, &out->t) < 0)
		return corrupt(name, "is not a time");
	out->set = true;
	return ROZ_OK;
}

static int read_files(const cJSON *arr, roz_session_gov *g)
{
	const cJSON *e;

	if (absent(arr))
		return ROZ_OK;
	if (!cJSON_IsArray(arr))
		return corrupt("files", "is not an array");
	cJSON_ArrayForEach(e, arr) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "path");
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(e, "sha256");
		roz_opt_time at;
		int rc;

		if (!cJSON_IsObject(e) || !cJSON_IsString(p) || !cJSON_IsString(h))
			return corrupt("files", "holds an entry without path and sha256");
		if ((rc = get_time(e, "seen_at", &at)) < 0)
			return rc;
		rc = roz_session_gov_remember(g, p->valuestring, h->valuestring,
					      at.set ? at.t : roz_time_make(0, 0));
		if (rc == ROZ_EINVALID)
			return corrupt("files", "holds an entry roz did not write");
		if (rc < 0)
			return rc;
	}
	return ROZ_OK;
}

static int read_violations(const cJSON *arr, roz_session_gov *g)
{
	const cJSON *e;

	if (absent(arr))
		return ROZ_OK;
	if (!cJSON_IsArray(arr))
		return corrupt("violations", "is not an array");
	cJSON_ArrayForEach(e, arr) {
		roz_gov_violation v = {0};
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(e, "existed");
		roz_opt_time at;
		int rc;

		if (!cJSON_IsObject(e) || !cJSON_IsBool(ex))
			return corrupt("violations", "holds an entry roz did not write");
		if ((rc = get_time(e, "at", &at)) < 0)
			return rc;
		if ((rc = get_string(e, "root", &v.root)) == ROZ_OK && (rc = get_string(e, "path", &v.path)) == ROZ_OK &&
		    (rc = get_string(e, "from", &v.from)) == ROZ_OK &&
		    (rc = get_string(e, "change", &v.change)) == ROZ_OK &&
		    (rc = get_string(e, "code", &v.code)) == ROZ_OK && (rc = get_string(e, "tool", &v.tool)) == ROZ_OK) {
			roz_gov_violation_in vi = {v.root, v.path, v.from, v.change, v.code, v.tool,
						   cJSON_IsTrue(ex), at.set ? at.t : roz_time_make(0, 0)};

			rc = roz_session_gov_violation_add(g, &vi);
		}
		violation_dispose(&v);
		if (rc == ROZ_EINVALID)
			return corrupt("violations", "holds an entry roz did not write");
		if (rc < 0)
			return rc;
	}
	return ROZ_OK;
}

int roz_session_gov_read(const cJSON *obj, roz_session_gov *g)
{
	const cJSON *b;
	char *phase = NULL;
	int rc;

	roz_session_gov_dispose(g);
	if (!cJSON_IsObject(obj))
		return corrupt("", "is not an object");
	g->present = true;
	if ((rc = get_string(obj, "state", &phase)) < 0)
		goto out;
	if (phase && !roz_session_gov_phase_parse(phase, &g->phase)) {
		rc = corrupt("state", "names no state roz knows");
		goto out;
	}
	b = cJSON_GetObjectItemCaseSensitive(obj, "refactor");
	if (!absent(b) && !cJSON_IsBool(b)) {
		rc = corrupt("refactor", "is not a boolean");
		goto out;
	}
	g->refactor = cJSON_IsTrue(b);
	b = cJSON_GetObjectItemCaseSensitive(obj, "detect_off");
	if (!absent(b) && !cJSON_IsBool(b)) {
		rc = corrupt("detect_off", "is not a boolean");
		goto out;
	}
	g->detect_off_said = cJSON_IsTrue(b);
	if ((rc = get_string(obj, "intent_id", &g->intent_id)) < 0 ||
	    (rc = get_string(obj, "intent_root", &g->intent_root)) < 0 ||
	    (rc = get_string(obj, "last_code", &g->last_code)) < 0 ||
	    (rc = get_string(obj, "model", &g->model)) < 0 ||
	    (rc = get_time(obj, "selected_at", &g->selected_at)) < 0 ||
	    (rc = get_count(obj, "denials", &g->denials)) < 0 ||
	    (rc = get_count(obj, "escalations", &g->escalations)) < 0 ||
	    (rc = get_count(obj, "stop_holds", &g->stop_holds)) < 0)
		goto out;
	if ((rc = read_files(cJSON_GetObjectItemCaseSensitive(obj, "files"), g)) < 0)
		goto out;
	rc = read_violations(cJSON_GetObjectItemCaseSensitive(obj, "violations"), g);
out:
	roz_free(phase);
	if (rc < 0)
		roz_session_gov_dispose(g);
	return rc;
}

static void add_time(roz_buf *b, roz_time t)
{
	char ts[ROZ_TIME_BUFSZ];

	roz_time_format(t, ts);
	roz_json_add_string(b, ts);
}

void roz_session_gov_write(const roz_session_gov *g, roz_buf *b)
{
	roz_buf_adds(b, "{\"state\":");
	roz_json_add_string(b, roz_session_gov_phase_name(g->phase));
	if (g->intent_id) {
		roz_buf_adds(b, ",\"intent_id\":");
		roz_json_add_string(b, g->intent_id);
	}
	if (g->intent_root) {
		roz_buf_adds(b, ",\"intent_root\":");
		roz_json_add_string(b, g->intent_root);
	}
	if (g->refactor)
		roz_buf_adds(b, ",\"refactor\":true");
	if (g->selected_at.set) {
		roz_buf_adds(b, ",\"selected_at\":");
		add_time(b, g->selected_at.t);
	}
	roz_buf_addf(b, ",\"denials\":%u", (unsigned)g->denials);
	if (g->escalations)
		roz_buf_addf(b, ",\"escalations\":%u", (unsigned)g->escalations);
	if (g->last_code) {
		roz_buf_adds(b, ",\"last_code\":");
		roz_json_add_string(b, g->last_code);
	}
	if (g->model) {
		roz_buf_adds(b, ",\"model\":");
		roz_json_add_string(b, g->model);
	}
	roz_buf_adds(b, ",\"files\":[");
	for (size_t i = 0; i < g->n_files; i++) {
		roz_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
		roz_json_add_string(b, g->files[i].path);
		roz_buf_adds(b, ",\"sha256\":\"");
		roz_buf_adds(b, g->files[i].hash);
		roz_buf_adds(b, "\",\"seen_at\":");
		add_time(b, g->files[i].seen_at);
		roz_buf_addc(b, '}');
	}
	roz_buf_addc(b, ']');
	if (g->n_violations) {
		roz_buf_adds(b, ",\"violations\":[");
		for (size_t i = 0; i < g->n_violations; i++) {
			const roz_gov_violation *v = &g->violations[i];

			roz_buf_adds(b, i ? ",{\"root\":" : "{\"root\":");
			roz_json_add_string(b, v->root);
			roz_buf_adds(b, ",\"path\":");
			roz_json_add_string(b, v->path);
			if (v->from) {
				roz_buf_adds(b, ",\"from\":");
				roz_json_add_string(b, v->from);
			}
			roz_buf_adds(b, ",\"change\":");
			roz_json_add_string(b, v->change);
			roz_buf_adds(b, ",\"code\":");
			roz_json_add_string(b, v->code);
			if (v->tool) {
				roz_buf_adds(b, ",\"tool\":");
				roz_json_add_string(b, v->tool);
			}
			roz_buf_adds(b, v->existed ? ",\"existed\":true,\"at\":" : ",\"existed\":false,\"at\":");
			add_time(b, v->at);
			roz_buf_addc(b, '}');
		}
		roz_buf_addc(b, ']');
	}
	if (g->stop_holds)
		roz_buf_addf(b, ",\"stop_holds\":%u", (unsigned)g->stop_holds);
	if (g->detect_off_said)
		roz_buf_adds(b, ",\"detect_off\":true");
	roz_buf_addc(b, '}');
}
