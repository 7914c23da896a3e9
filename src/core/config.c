/*
 * config.c - defaults, the TOML config file mapped onto roz_config with
 * line:column errors, environment overrides, and path resolution.
 */
#include "roz/config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/toml.h"

const char *roz_review_mode_name(roz_review_mode m)
{
	return m == ROZ_MODE_ALWAYS ? "always" : m == ROZ_MODE_NEVER ? "never" : "prompt";
}

const char *roz_approval_scope_name(roz_approval_scope s)
{
	return s == ROZ_SCOPE_SESSION ? "session" : s == ROZ_SCOPE_TOOL ? "tool" : "prompt";
}

static void free_weights(roz_config *c)
{
	for (size_t i = 0; i < c->n_weights; i++)
		roz_free(c->weights[i].id);
	roz_free(c->weights);
	c->weights = NULL;
	c->n_weights = 0;
}

static void free_tools(roz_config *c)
{
	for (size_t i = 0; i < c->n_gate_tools; i++)
		roz_free(c->gate_tools[i]);
	roz_free(c->gate_tools);
	c->gate_tools = NULL;
	c->n_gate_tools = 0;
}

void roz_config_free(roz_config *c)
{
	roz_free(c->home);
	roz_free(c->config_path);
	roz_free(c->storage_path);
	free_tools(c);
	roz_free(c->codex);
	roz_free(c->gemini);
	roz_free(c->template_active);
	free_weights(c);
	memset(c, 0, sizeof(*c));
}

int roz_config_init(roz_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = ROZ_MODE_PROMPT;
	c->require_reviewer = true;
	c->approval_scope = ROZ_SCOPE_PROMPT;
	c->max_blocks = 3;
	c->cooldown_seconds = 300;
	c->retention_days = 7;
	c->max_events = 500;
	c->lock_timeout_ms = 3000;
	c->codex = roz_strdup("codex");
	c->gemini = roz_strdup("gemini");
	c->template_active = roz_strdup("default");
	c->weights = roz_calloc(1, sizeof(*c->weights));
	if (c->weights) {
		c->weights[0].id = roz_strdup("default");
		c->weights[0].weight = 100;
		c->n_weights = 1;
	}
	if (!c->codex || !c->gemini || !c->template_active || !c->weights || !c->weights[0].id) {
		roz_config_free(c);
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

/* ---- the TOML file ---------------------------------------------------------- */

typedef struct apply_ctx {
	roz_config *c;
	const char *origin;
	roz_warn_fn warn;
	void *ud;
} apply_ctx;

static int bad_value(apply_ctx *a, const roz_toml_value *v, const char *key, const char *want)
{
	roz_error_set("%s:%d:%d: '%s' must be %s, not %s", a->origin, v->line, v->column, key, want,
		      v->type == ROZ_TOML_STRING ? "a string" : roz_toml_type_name(v->type));
	return ROZ_EINVALID;
}

static void unknown_key(apply_ctx *a, const roz_toml_kv *kv, const char *section)
{
	char msg[512];

	if (!a->warn)
		return;
	if (section)
		snprintf(msg, sizeof(msg), "%s:%d:%d: unknown key '%s' in [%s] (ignored)", a->origin,
			 kv->line, kv->column, kv->key, section);
	else
		snprintf(msg, sizeof(msg), "%s:%d:%d: unknown section or key '%s' (ignored)", a->origin,
			 kv->line, kv->column, kv->key);
	a->warn(a->ud, msg);
}

static int set_string(apply_ctx *a, const roz_toml_value *v, const char *key, char **dst)
{
	char *s;

	if (v->type != ROZ_TOML_STRING)
		return bad_value(a, v, key, "a string");
	if (strlen(v->u.str.ptr) != v->u.str.len) {
		roz_error_set("%s:%d:%d: '%s' must not contain NUL characters", a->origin, v->line,
			      v->column, key);
		return ROZ_EINVALID;
	}
	s = roz_strdup(v->u.str.ptr);
	if (!s)
		return ROZ_ENOMEM;
	roz_free(*dst);
	*dst = s;
	return ROZ_OK;
}

static int get_uint(apply_ctx *a, const roz_toml_value *v, const char *key, uint64_t max,
		    uint64_t *out)
{
	if (v->type != ROZ_TOML_INTEGER)
		return bad_value(a, v, key, "a non-negative integer");
	if (v->u.integer < 0) {
		roz_error_set("%s:%d:%d: '%s' must not be negative", a->origin, v->line, v->column, key);
		return ROZ_EINVALID;
	}
	*out = (uint64_t)v->u.integer > max ? max : (uint64_t)v->u.integer;
	return ROZ_OK;
}

static int get_bool(apply_ctx *a, const roz_toml_value *v, const char *key, bool *out)
{
	if (v->type != ROZ_TOML_BOOLEAN)
		return bad_value(a, v, key, "true or false");
	*out = v->u.boolean;
	return ROZ_OK;
}

static int get_choice(apply_ctx *a, const roz_toml_value *v, const char *key,
		      const char *const *names, int *out)
{
	char want[128];

	if (v->type == ROZ_TOML_STRING) {
		for (int i = 0; names[i]; i++) {
			if (strcmp(v->u.str.ptr, names[i]) == 0) {
				*out = i;
				return ROZ_OK;
			}
		}
	}
	snprintf(want, sizeof(want), "one of \"%s\", \"%s\", \"%s\"", names[0], names[1], names[2]);
	if (v->type != ROZ_TOML_STRING)
		return bad_value(a, v, key, want);
	roz_error_set("%s:%d:%d: '%s' must be %s, not \"%.40s\"", a->origin, v->line, v->column, key,
		      want, v->u.str.ptr);
	return ROZ_EINVALID;
}

static int need_table(apply_ctx *a, const roz_toml_kv *kv)
{
	if (kv->value->type == ROZ_TOML_TABLE)
		return ROZ_OK;
	return bad_value(a, kv->value, kv->key, "a table");
}

static int apply_storage(apply_ctx *a, const roz_toml_value *t)
{
	int rc = ROZ_OK;
	uint64_t n = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "path") == 0)
			rc = set_string(a, kv->value, "storage.path", &a->c->storage_path);
		else if (strcmp(kv->key, "fsync") == 0)
			rc = get_bool(a, kv->value, "storage.fsync", &a->c->fsync);
		else if (strcmp(kv->key, "lock_timeout_ms") == 0) {
			rc = get_uint(a, kv->value, "storage.lock_timeout_ms", UINT32_MAX, &n);
			if (rc == ROZ_OK)
				a->c->lock_timeout_ms = (uint32_t)n;
		} else
			unknown_key(a, kv, "storage");
	}
	return rc;
}

static int apply_gates(apply_ctx *a, const roz_toml_value *t)
{
	static const char *const scopes[] = {"prompt", "session", "tool", NULL};
	int rc = ROZ_OK, choice = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];
		const roz_toml_value *v = kv->value;

		if (strcmp(kv->key, "tools") == 0) {
			char **tools;

			if (v->type != ROZ_TOML_ARRAY)
				return bad_value(a, v, "review.gates.tools", "an array of strings");
			tools = roz_calloc(v->u.array.len + 1, sizeof(*tools));
			if (!tools)
				return ROZ_ENOMEM;
			for (size_t k = 0; k < v->u.array.len && rc == ROZ_OK; k++) {
				const roz_toml_value *item = v->u.array.items[k];

				if (item->type != ROZ_TOML_STRING || strlen(item->u.str.ptr) != item->u.str.len)
					rc = bad_value(a, item, "review.gates.tools", "an array of strings");
				else if (!(tools[k] = roz_strdup(item->u.str.ptr)))
					rc = ROZ_ENOMEM;
			}
			if (rc < 0) {
				for (size_t k = 0; k < v->u.array.len; k++)
					roz_free(tools[k]);
				roz_free(tools);
				return rc;
			}
			free_tools(a->c);
			a->c->gate_tools = tools;
			a->c->n_gate_tools = v->u.array.len;
		} else if (strcmp(kv->key, "approval_scope") == 0) {
			rc = get_choice(a, v, "review.gates.approval_scope", scopes, &choice);
			if (rc == ROZ_OK)
				a->c->approval_scope = (roz_approval_scope)choice;
		} else if (strcmp(kv->key, "approval_ttl_seconds") == 0) {
			rc = get_uint(a, v, "review.gates.approval_ttl_seconds", UINT64_MAX,
				      &a->c->approval_ttl_seconds);
			if (rc == ROZ_OK)
				a->c->has_approval_ttl = true;
		} else {
			unknown_key(a, kv, "review.gates");
		}
	}
	return rc;
}

static int apply_review(apply_ctx *a, const roz_toml_value *t)
{
	static const char *const modes[] = {"prompt", "always", "never", NULL};
	int rc = ROZ_OK, choice = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "mode") == 0) {
			rc = get_choice(a, kv->value, "review.mode", modes, &choice);
			if (rc == ROZ_OK)
				a->c->mode = (roz_review_mode)choice;
		} else if (strcmp(kv->key, "require_reviewer") == 0) {
			rc = get_bool(a, kv->value, "review.require_reviewer", &a->c->require_reviewer);
		} else if (strcmp(kv->key, "gates") == 0) {
			if (kv->value->type != ROZ_TOML_TABLE)
				rc = bad_value(a, kv->value, "review.gates", "a table");
			else
				rc = apply_gates(a, kv->value);
		} else {
			unknown_key(a, kv, "review");
		}
	}
	return rc;
}

static int apply_breaker(apply_ctx *a, const roz_toml_value *t)
{
	int rc = ROZ_OK;
	uint64_t n = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "max_blocks") == 0) {
			rc = get_uint(a, kv->value, "circuit_breaker.max_blocks", UINT32_MAX, &n);
			if (rc == ROZ_OK)
				a->c->max_blocks = (uint32_t)n;
		} else if (strcmp(kv->key, "cooldown_seconds") == 0) {
			rc = get_uint(a, kv->value, "circuit_breaker.cooldown_seconds", UINT64_MAX,
				      &a->c->cooldown_seconds);
		} else {
			unknown_key(a, kv, "circuit_breaker");
		}
	}
	return rc;
}

static int apply_cleanup(apply_ctx *a, const roz_toml_value *t)
{
	int rc = ROZ_OK;
	uint64_t n = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "retention_days") == 0) {
			rc = get_uint(a, kv->value, "cleanup.retention_days", UINT32_MAX, &n);
			if (rc == ROZ_OK)
				a->c->retention_days = (uint32_t)n;
		} else {
			unknown_key(a, kv, "cleanup");
		}
	}
	return rc;
}

static int apply_models(apply_ctx *a, const roz_toml_value *t)
{
	int rc = ROZ_OK;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "codex") == 0)
			rc = set_string(a, kv->value, "external_models.codex", &a->c->codex);
		else if (strcmp(kv->key, "gemini") == 0)
			rc = set_string(a, kv->value, "external_models.gemini", &a->c->gemini);
		else
			unknown_key(a, kv, "external_models");
	}
	return rc;
}

static int apply_weights(apply_ctx *a, const roz_toml_value *t)
{
	roz_template_weight *w;
	size_t n = t->u.table.len;
	uint64_t val = 0;
	int rc = ROZ_OK;

	w = roz_calloc(n + 1, sizeof(*w));
	if (!w)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < n && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		rc = get_uint(a, kv->value, "templates.weights", UINT32_MAX, &val);
		if (rc == ROZ_OK && !(w[i].id = roz_strdup(kv->key)))
			rc = ROZ_ENOMEM;
		w[i].weight = (uint32_t)val;
	}
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			roz_free(w[i].id);
		roz_free(w);
		return rc;
	}
	free_weights(a->c);
	a->c->weights = w;
	a->c->n_weights = n;
	return ROZ_OK;
}

static int apply_templates(apply_ctx *a, const roz_toml_value *t)
{
	int rc = ROZ_OK;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "active") == 0)
			rc = set_string(a, kv->value, "templates.active", &a->c->template_active);
		else if (strcmp(kv->key, "weights") == 0) {
			if (kv->value->type != ROZ_TOML_TABLE)
				rc = bad_value(a, kv->value, "templates.weights", "a table");
			else
				rc = apply_weights(a, kv->value);
		} else
			unknown_key(a, kv, "templates");
	}
	return rc;
}

static int apply_trace(apply_ctx *a, const roz_toml_value *t)
{
	int rc = ROZ_OK;
	uint64_t n = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "max_events") == 0) {
			rc = get_uint(a, kv->value, "trace.max_events", SIZE_MAX, &n);
			if (rc == ROZ_OK)
				a->c->max_events = (size_t)n;
		} else {
			unknown_key(a, kv, "trace");
		}
	}
	return rc;
}

int roz_config_apply_toml(roz_config *c, const char *text, size_t len, const char *origin,
			  roz_warn_fn warn, void *ud)
{
	static const struct {
		const char *name;
		int (*apply)(apply_ctx *, const roz_toml_value *);
	} sections[] = {
		{"storage", apply_storage},     {"review", apply_review},
		{"circuit_breaker", apply_breaker}, {"cleanup", apply_cleanup},
		{"external_models", apply_models}, {"templates", apply_templates},
		{"trace", apply_trace},
	};
	apply_ctx a = {c, origin, warn, ud};
	roz_toml_value *doc = NULL;
	roz_toml_error err;
	int rc;

	rc = roz_toml_parse(text, len, &doc, &err);
	if (rc == ROZ_EPARSE) {
		roz_error_set("%s:%d:%d: %s", origin, err.line, err.column, err.message);
		return rc;
	}
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < doc->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &doc->u.table.items[i];
		size_t k;

		for (k = 0; k < sizeof(sections) / sizeof(sections[0]); k++) {
			if (strcmp(kv->key, sections[k].name) != 0)
				continue;
			if ((rc = need_table(&a, kv)) == ROZ_OK)
				rc = sections[k].apply(&a, kv->value);
			break;
		}
		if (k == sizeof(sections) / sizeof(sections[0]))
			unknown_key(&a, kv, NULL);
	}
	roz_toml_free(doc);
	return rc;
}

/* ---- environment -------------------------------------------------------------- */

const char *roz_config_process_env(void *ud, const char *name)
{
	(void)ud;
	return getenv(name);
}

/* Parse a decimal count, saturating at max. */
static bool parse_count(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	bool sat = false;

	while (*s == ' ')
		s++;
	if (*s == '+')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			sat = true;
		else
			v = v * 10 + (uint64_t)(*s - '0');
	}
	while (*s == ' ')
		s++;
	if (*s)
		return false;
	*out = sat ? max : v;
	return true;
}

static void env_warn(roz_warn_fn warn, void *ud, const char *name, const char *value, const char *why)
{
	char msg[256];

	if (!warn)
		return;
	snprintf(msg, sizeof(msg), "ignoring %s='%.40s': %s", name, value, why);
	warn(ud, msg);
}

static void env_count(roz_getenv_fn get, void *env_ud, const char *name, uint64_t max,
		      uint64_t *dst, roz_warn_fn warn, void *ud)
{
	const char *v = get(env_ud, name);
	uint64_t n = 0;

	if (!v)
		return;
	if (parse_count(v, max, &n))
		*dst = n;
	else
		env_warn(warn, ud, name, v, "not a non-negative whole number");
}

void roz_config_apply_env(roz_config *c, roz_getenv_fn get, void *env_ud, roz_warn_fn warn, void *ud)
{
	const char *mode = get(env_ud, "ROZ_REVIEW_MODE");
	uint64_t n = 0;

	n = c->max_blocks;
	env_count(get, env_ud, "ROZ_MAX_BLOCKS", UINT32_MAX, &n, warn, ud);
	c->max_blocks = (uint32_t)n;
	env_count(get, env_ud, "ROZ_COOLDOWN_SECONDS", UINT64_MAX, &c->cooldown_seconds, warn, ud);
	n = c->max_events;
	env_count(get, env_ud, "ROZ_MAX_EVENTS", SIZE_MAX, &n, warn, ud);
	c->max_events = (size_t)n;
	n = c->retention_days;
	env_count(get, env_ud, "ROZ_RETENTION_DAYS", UINT32_MAX, &n, warn, ud);
	c->retention_days = (uint32_t)n;
	if (mode) {
		if (strcasecmp(mode, "always") == 0)
			c->mode = ROZ_MODE_ALWAYS;
		else if (strcasecmp(mode, "never") == 0)
			c->mode = ROZ_MODE_NEVER;
		else if (strcasecmp(mode, "prompt") == 0)
			c->mode = ROZ_MODE_PROMPT;
		else
			env_warn(warn, ud, "ROZ_REVIEW_MODE", mode, "expected always, prompt or never");
	}
}

/* ---- loading ------------------------------------------------------------------ */

static char *default_home(roz_getenv_fn get, void *env_ud)
{
	const char *home = get(env_ud, "HOME");
	struct passwd *pw;

	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
	}
	return home ? roz_asprintf("%s/.roz", home) : roz_strdup(".roz");
}

/* "~/x" against HOME, a relative path against the config file's directory. */
static char *resolve_path(const char *path, const char *config_path, roz_getenv_fn get, void *env_ud)
{
	const char *home = get(env_ud, "HOME");
	const char *slash;

	if (path[0] == '~' && (path[1] == '/' || !path[1]) && home && *home)
		return roz_asprintf("%s%s", home, path + 1);
	if (path[0] == '/' || !config_path || !(slash = strrchr(config_path, '/')))
		return roz_strdup(path);
	return roz_asprintf("%.*s/%s", (int)(slash - config_path), config_path, path);
}

static int read_whole(const char *path, char **text, size_t *len)
{
	roz_buf b = ROZ_BUF_INIT;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*text = NULL;
	if (fd < 0) {
		if (errno == ENOENT)
			return ROZ_ENOTFOUND;
		roz_error_set_errno(errno, "cannot read config '%s'", path);
		return ROZ_EIO;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		roz_error_set("cannot read config '%s': it is a directory", path);
		return ROZ_EIO;
	}
	for (;;) {
		ssize_t n;

		if (!roz_buf_grow(&b, 8192))
			break;
		n = read(fd, b.ptr + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			roz_error_set_errno(errno, "cannot read config '%s'", path);
			close(fd);
			roz_buf_free(&b);
			return ROZ_EIO;
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
		b.ptr[b.len] = '\0';
		if (b.len > 1024 * 1024) {
			close(fd);
			roz_buf_free(&b);
			roz_error_set("cannot read config '%s': larger than 1 MiB", path);
			return ROZ_EINVALID;
		}
	}
	close(fd);
	if (roz_buf_failed(&b)) {
		roz_buf_free(&b);
		return ROZ_ENOMEM;
	}
	*text = roz_buf_detach(&b, len);
	return *text ? ROZ_OK : ROZ_ENOMEM;
}

int roz_config_load(roz_config *c, roz_getenv_fn get, void *env_ud, roz_warn_fn warn, void *ud)
{
	const char *home_env = get(env_ud, "ROZ_HOME");
	const char *config_env = get(env_ud, "ROZ_CONFIG");
	const char *storage_env = get(env_ud, "ROZ_STORAGE_PATH");
	char *text = NULL, *path;
	size_t len = 0;
	int rc, file_rc = ROZ_OK;

	if ((rc = roz_config_init(c)) < 0)
		return rc;
	c->home = home_env && *home_env ? roz_strdup(home_env) : default_home(get, env_ud);
	if (!c->home)
		goto nomem;
	c->config_path = config_env && *config_env ? roz_strdup(config_env)
						   : roz_asprintf("%s/config.toml", c->home);
	if (!c->config_path)
		goto nomem;
	rc = read_whole(c->config_path, &text, &len);
	if (rc == ROZ_OK) {
		roz_config tmp;

		c->config_loaded = true;
		/* apply to a copy of the defaults so a bad file leaves defaults intact */
		if ((rc = roz_config_init(&tmp)) < 0) {
			roz_free(text);
			goto nomem;
		}
		rc = roz_config_apply_toml(&tmp, text, len, c->config_path, warn, ud);
		roz_free(text);
		if (rc == ROZ_OK) {
			tmp.home = c->home;
			tmp.config_path = c->config_path;
			tmp.config_loaded = true;
			c->home = c->config_path = NULL;
			roz_config_free(c);
			*c = tmp;
		} else {
			roz_config_free(&tmp);
			if (rc == ROZ_ENOMEM)
				goto nomem;
			file_rc = rc;
		}
	} else if (rc == ROZ_ENOTFOUND) {
		if (config_env && *config_env) {
			roz_error_set("cannot read config '%s': no such file", c->config_path);
			file_rc = ROZ_EIO;
		}
	} else if (rc == ROZ_ENOMEM) {
		goto nomem;
	} else {
		file_rc = rc;
	}
	if (file_rc < 0) {
		char saved[1024];

		/* keep the file's error while the rest of the load runs */
		snprintf(saved, sizeof(saved), "%s", roz_error_last());
		roz_config_apply_env(c, get, env_ud, warn, ud);
		roz_error_set("%s", saved);
	} else {
		roz_config_apply_env(c, get, env_ud, warn, ud);
	}
	if (storage_env && *storage_env)
		path = resolve_path(storage_env, NULL, get, env_ud);
	else if (c->storage_path && *c->storage_path)
		path = resolve_path(c->storage_path, c->config_path, get, env_ud);
	else
		path = roz_strdup(c->home);
	if (!path)
		goto nomem;
	roz_free(c->storage_path);
	c->storage_path = path;
	return file_rc;
nomem:
	roz_config_free(c);
	return ROZ_ENOMEM;
}
