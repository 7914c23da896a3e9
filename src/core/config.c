/*
 * config.c - the config model: defaults, the TOML config file mapped onto
 * roz_config with line:column errors, and environment overrides read
 * through the lookup it is given. Finding and reading the file is I/O, in
 * io/config_load.c.
 */
#include "roz/config.h"
#include "roz/fingerprint.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "roz/hooks.h"
#include "roz/shell.h"
#include "roz/toml.h"

const char *roz_config_review_mode_name(roz_review_mode m)
{
	return m == ROZ_MODE_ALWAYS ? "always" : m == ROZ_MODE_NEVER ? "never" : "prompt";
}

const char *roz_config_approval_scope_name(roz_approval_scope s)
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

static void free_strings(char ***list, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		roz_free((*list)[i]);
	roz_free(*list);
	*list = NULL;
	*n = 0;
}

void roz_config_dispose(roz_config *c)
{
	free_strings(&c->rereview_ignore, &c->n_rereview_ignore);
	free_strings(&c->gov_destructive_disable, &c->n_gov_destructive_disable);
	free_strings(&c->gov_destructive_extra, &c->n_gov_destructive_extra);
	roz_free(c->home);
	roz_free(c->config_path);
	roz_free(c->storage_path);
	free_tools(c);
	roz_free(c->codex);
	roz_free(c->gemini);
	roz_free(c->template_active);
	free_weights(c);
	for (size_t i = 0; i < c->n_diags; i++)
		roz_free(c->diags[i].message);
	roz_free(c->diags);
	roz_free(c->hold_reason);
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
	c->gov_escalate_after = 3;
	c->gov_destructive = true;
	c->gov_detect = true;
	c->gov_detect_max = 200000;
	c->gov_detect_watch = true;
	c->codex = roz_strdup("codex");
	c->gemini = roz_strdup("gemini");
	c->template_active = roz_strdup("default");
	c->rereview = ROZ_REREVIEW_ALWAYS;
	if ((c->rereview_ignore = roz_calloc(3, sizeof *c->rereview_ignore)) != NULL) {
		c->rereview_ignore[0] = roz_strdup("*.md");
		c->rereview_ignore[1] = roz_strdup("docs/*");
		c->n_rereview_ignore = 2;
	}
	c->weights = roz_calloc(1, sizeof(*c->weights));
	if (c->weights) {
		c->weights[0].id = roz_strdup("default");
		c->weights[0].weight = 100;
		c->n_weights = 1;
	}
	if (!c->codex || !c->gemini || !c->template_active || !c->weights || !c->weights[0].id ||
	    !c->rereview_ignore || !c->rereview_ignore[0] || !c->rereview_ignore[1]) {
		roz_config_dispose(c);
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

/* ---- problems ------------------------------------------------------------------- */

static const char FIX_SYNTAX[] = "correct the TOML on that line (see CONFIGURATION in man roz)";
static const char FIX_UTF8[] = "save the file as UTF-8";
static const char FIX_DUPLICATE[] = "delete one of the two definitions";
static const char FIX_VALUE[] = "give it a value of the kind named, or delete the line to use the default";
static const char FIX_UNKNOWN[] = "check the spelling against CONFIGURATION in man roz, or delete it";
static const char FIX_ENV[] = "unset it, or give it a value of the kind named";
static const char FIX_READ[] = "make it a readable file of at most 1 MiB, or remove it to use the defaults";

/*
 * Keep one problem and pass it on. Past ROZ_CONFIG_MAX_DIAGS problems are
 * only counted, so a file of garbage cannot flood a hook's stderr.
 */
static int report(roz_config *c, roz_warn_fn warn, void *ud, bool error, int line, int column,
		  const char *fix, const char *fmt, ...) ROZ_PRINTF(8, 9);

static int report(roz_config *c, roz_warn_fn warn, void *ud, bool error, int line, int column,
		  const char *fix, const char *fmt, ...)
{
	roz_config_diag *grown;
	roz_buf b = ROZ_BUF_INIT;
	va_list ap;

	if (c->n_diags >= ROZ_CONFIG_MAX_DIAGS) {
		c->n_dropped++;
		return ROZ_OK;
	}
	va_start(ap, fmt);
	roz_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	grown = roz_buf_failed(&b) ? NULL : roz_realloc(c->diags, (c->n_diags + 1) * sizeof(*grown));
	if (!grown) {
		roz_buf_dispose(&b);
		return ROZ_ENOMEM;
	}
	c->diags = grown;
	grown[c->n_diags].error = error;
	grown[c->n_diags].line = line;
	grown[c->n_diags].column = column;
	grown[c->n_diags].fix = fix;
	grown[c->n_diags].message = roz_buf_detach(&b, NULL);
	if (!grown[c->n_diags].message)
		return ROZ_ENOMEM;
	if (warn)
		warn(ud, grown[c->n_diags].message);
	c->n_diags++;
	return ROZ_OK;
}

/* The gates are unknown: remember the first reason, "<file>:<line>:<col>: <what>". */
static int hold(roz_config *c, const char *fix, const char *fmt, ...) ROZ_PRINTF(3, 4);

static int hold(roz_config *c, const char *fix, const char *fmt, ...)
{
	roz_buf b = ROZ_BUF_INIT;
	va_list ap;

	c->hold = true;
	if (c->hold_reason)
		return ROZ_OK;
	c->hold_fix = fix;
	va_start(ap, fmt);
	roz_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	c->hold_reason = roz_buf_detach(&b, NULL);
	return c->hold_reason ? ROZ_OK : ROZ_ENOMEM;
}

/* ---- the TOML file ---------------------------------------------------------- */

typedef struct apply_ctx {
	roz_config *c;
	const char *origin;
	roz_warn_fn warn;
	void *ud;
	bool syntax;  /* some text was not TOML */
	bool invalid; /* some setting had a wrong type or value */
	char *first;  /* the first error, for roz_error_last() */
} apply_ctx;

static const char GATES_LOST[] =
	"roz cannot tell which tools are gated and asks before each tool call that could be";

/*
 * What a setting holds now, for "using ..." in messages: loading applies
 * the file on top of the defaults, so this is the default.
 */
static void current(const roz_config *c, const char *key, char *out, size_t size)
{
	if (strcmp(key, "review.mode") == 0)
		snprintf(out, size, "\"%s\"", roz_config_review_mode_name(c->mode));
	else if (strcmp(key, "review.require_reviewer") == 0)
		snprintf(out, size, "%s", c->require_reviewer ? "true" : "false");
	else if (strcmp(key, "review.rereview_on_change") == 0)
		snprintf(out, size, "\"%s\"", roz_rereview_name((roz_rereview)c->rereview));
	else if (strcmp(key, "review.gates.approval_scope") == 0)
		snprintf(out, size, "\"%s\"", roz_config_approval_scope_name(c->approval_scope));
	else if (strcmp(key, "review.gates.approval_ttl_seconds") == 0)
		snprintf(out, size, c->has_approval_ttl ? "%llu" : "no expiry",
			 (unsigned long long)c->approval_ttl_seconds);
	else if (strcmp(key, "circuit_breaker.max_blocks") == 0)
		snprintf(out, size, "%lu", (unsigned long)c->max_blocks);
	else if (strcmp(key, "circuit_breaker.cooldown_seconds") == 0)
		snprintf(out, size, "%llu", (unsigned long long)c->cooldown_seconds);
	else if (strcmp(key, "cleanup.retention_days") == 0)
		snprintf(out, size, "%lu", (unsigned long)c->retention_days);
	else if (strcmp(key, "trace.max_events") == 0)
		snprintf(out, size, "%zu", c->max_events);
	else if (strcmp(key, "governance.escalate_after") == 0)
		snprintf(out, size, "%lu", (unsigned long)c->gov_escalate_after);
	else if (strcmp(key, "governance.destructive_commands") == 0)
		snprintf(out, size, "%s", c->gov_destructive ? "true" : "false");
	else if (strcmp(key, "governance.detect") == 0)
		snprintf(out, size, "%s", c->gov_detect ? "true" : "false");
	else if (strcmp(key, "governance.detect_max_entries") == 0)
		snprintf(out, size, "%lu", (unsigned long)c->gov_detect_max);
	else if (strcmp(key, "governance.detect_watch") == 0)
		snprintf(out, size, "%s", c->gov_detect_watch ? "true" : "false");
	else if (strcmp(key, "storage.fsync") == 0)
		snprintf(out, size, "%s", c->fsync ? "true" : "false");
	else if (strcmp(key, "storage.lock_timeout_ms") == 0)
		snprintf(out, size, "%lu", (unsigned long)c->lock_timeout_ms);
	else if (strcmp(key, "storage.path") == 0)
		snprintf(out, size, "%s", c->storage_path ? c->storage_path : "the roz home");
	else if (strcmp(key, "external_models.codex") == 0)
		snprintf(out, size, "\"%.60s\"", c->codex);
	else if (strcmp(key, "external_models.gemini") == 0)
		snprintf(out, size, "\"%.60s\"", c->gemini);
	else if (strcmp(key, "templates.active") == 0)
		snprintf(out, size, "\"%.60s\"", c->template_active);
	else
		out[0] = '\0';
}

/* Record an error; ROZ_EINVALID (the caller goes on) or ROZ_ENOMEM. */
static int error_at(apply_ctx *a, bool syntax, int line, int column, const char *fix, const char *fmt, ...)
	ROZ_PRINTF(6, 7);

static int error_at(apply_ctx *a, bool syntax, int line, int column, const char *fix, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (syntax)
		a->syntax = true;
	else
		a->invalid = true;
	if (!a->first && !(a->first = roz_strdup(msg)))
		return ROZ_ENOMEM;
	if (report(a->c, NULL, NULL, true, line, column, fix, "%s", msg) < 0)
		return ROZ_ENOMEM;
	return ROZ_EINVALID;
}

/* A setting that is not what it must be: report it and keep what was there. */
static int bad_setting(apply_ctx *a, const roz_toml_value *v, const char *key, const char *why)
{
	char now[96];
	bool gates = strncmp(key, "review.gates.tools", 18) == 0 || strcmp(key, "review") == 0 ||
		     strcmp(key, "review.gates") == 0;
	int rc;

	current(a->c, key, now, sizeof(now));
	if (gates) {
		rc = error_at(a, false, v->line, v->column, FIX_VALUE, "%s:%d:%d: '%s' %s; %s", a->origin, v->line, v->column, key,
			      why, GATES_LOST);
		if (rc != ROZ_ENOMEM && hold(a->c, FIX_VALUE, "%s:%d:%d: '%s' %s", a->origin, v->line, v->column, key, why) < 0)
			rc = ROZ_ENOMEM;
		return rc;
	}
	if (now[0])
		return error_at(a, false, v->line, v->column, FIX_VALUE, "%s:%d:%d: '%s' %s; using %s", a->origin, v->line,
				v->column, key, why, now);
	return error_at(a, false, v->line, v->column, FIX_VALUE, "%s:%d:%d: '%s' %s; it is ignored", a->origin, v->line,
			v->column, key, why);
}

static int bad_value(apply_ctx *a, const roz_toml_value *v, const char *key, const char *want)
{
	char why[256];

	snprintf(why, sizeof(why), "must be %s, not %s", want,
		 v->type == ROZ_TOML_STRING ? "a string" : roz_toml_type_name(v->type));
	return bad_setting(a, v, key, why);
}

static int unknown_key(apply_ctx *a, const roz_toml_kv *kv, const char *section)
{
	if (section)
		return report(a->c, NULL, NULL, false, kv->line, kv->column, FIX_UNKNOWN,
			      "%s:%d:%d: unknown key '%s' in [%s] (ignored)", a->origin, kv->line, kv->column,
			      kv->key, section);
	return report(a->c, NULL, NULL, false, kv->line, kv->column, FIX_UNKNOWN,
		      "%s:%d:%d: unknown section or key '%s' (ignored)", a->origin, kv->line, kv->column,
		      kv->key);
}

static int set_string(apply_ctx *a, const roz_toml_value *v, const char *key, char **dst)
{
	char *s;

	if (v->type != ROZ_TOML_STRING)
		return bad_value(a, v, key, "a string");
	if (strlen(v->u.str.ptr) != v->u.str.len)
		return bad_setting(a, v, key, "must not contain NUL characters");
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
	if (v->u.integer < 0)
		return bad_setting(a, v, key, "must not be negative");
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
	char want[128], why[256];

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
	snprintf(why, sizeof(why), "must be %s, not \"%.40s\"", want, v->u.str.ptr);
	return bad_setting(a, v, key, why);
}

/* Only ROZ_ENOMEM stops the walk; any other problem has been reported. */
static int keep_going(int rc)
{
	return rc == ROZ_ENOMEM ? rc : ROZ_OK;
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
			rc = unknown_key(a, kv, "storage");
		rc = keep_going(rc);
	}
	return rc;
}

/* The gate list is all or nothing: a pattern that cannot be read could be any gate. */
static int apply_tools(apply_ctx *a, const roz_toml_value *v)
{
	char **tools;
	int rc = ROZ_OK;

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
	return ROZ_OK;
}

static int apply_gates(apply_ctx *a, const roz_toml_value *t)
{
	static const char *const scopes[] = {"prompt", "session", "tool", NULL};
	int rc = ROZ_OK, choice = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];
		const roz_toml_value *v = kv->value;

		if (strcmp(kv->key, "tools") == 0) {
			rc = apply_tools(a, v);
		} else if (strcmp(kv->key, "approval_scope") == 0) {
			rc = get_choice(a, v, "review.gates.approval_scope", scopes, &choice);
			if (rc == ROZ_OK)
				a->c->approval_scope = (roz_approval_scope)choice;
		} else if (strcmp(kv->key, "approval_ttl_seconds") == 0) {
			uint64_t n = 0;

			rc = get_uint(a, v, "review.gates.approval_ttl_seconds", UINT64_MAX, &n);
			if (rc == ROZ_OK) {
				a->c->approval_ttl_seconds = n;
				a->c->has_approval_ttl = true;
			}
		} else {
			rc = unknown_key(a, kv, "review.gates");
		}
		rc = keep_going(rc);
	}
	return rc;
}

static int get_strings(apply_ctx *a, const roz_toml_value *v, const char *key, char ***list, size_t *n);

static int apply_review(apply_ctx *a, const roz_toml_value *t)
{
	static const char *const modes[] = {"prompt", "always", "never", NULL};
	static const char *const rereview[] = {"always", "code", "never", NULL};
	int rc = ROZ_OK, choice = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "mode") == 0) {
			rc = get_choice(a, kv->value, "review.mode", modes, &choice);
			if (rc == ROZ_OK)
				a->c->mode = (roz_review_mode)choice;
		} else if (strcmp(kv->key, "require_reviewer") == 0) {
			rc = get_bool(a, kv->value, "review.require_reviewer", &a->c->require_reviewer);
		} else if (strcmp(kv->key, "rereview_on_change") == 0) {
			rc = get_choice(a, kv->value, "review.rereview_on_change", rereview, &choice);
			if (rc == ROZ_OK)
				a->c->rereview = choice;
		} else if (strcmp(kv->key, "rereview_ignore") == 0) {
			rc = get_strings(a, kv->value, "review.rereview_ignore", &a->c->rereview_ignore,
					 &a->c->n_rereview_ignore);
		} else if (strcmp(kv->key, "gates") == 0) {
			if (kv->value->type != ROZ_TOML_TABLE)
				rc = bad_value(a, kv->value, "review.gates", "a table");
			else
				rc = apply_gates(a, kv->value);
		} else {
			rc = unknown_key(a, kv, "review");
		}
		rc = keep_going(rc);
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
			rc = get_uint(a, kv->value, "circuit_breaker.cooldown_seconds", UINT64_MAX, &n);
			if (rc == ROZ_OK)
				a->c->cooldown_seconds = n;
		} else {
			rc = unknown_key(a, kv, "circuit_breaker");
		}
		rc = keep_going(rc);
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
			rc = unknown_key(a, kv, "cleanup");
		}
		rc = keep_going(rc);
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
			rc = unknown_key(a, kv, "external_models");
		rc = keep_going(rc);
	}
	return rc;
}

/* Each weight stands alone: a bad one is left out, the others replace the defaults. */
static int apply_weights(apply_ctx *a, const roz_toml_value *t)
{
	roz_template_weight *w;
	size_t n = 0;
	uint64_t val = 0;
	int rc = ROZ_OK;

	w = roz_calloc(t->u.table.len + 1, sizeof(*w));
	if (!w)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		rc = get_uint(a, kv->value, "templates.weights", UINT32_MAX, &val);
		if (rc == ROZ_OK) {
			if (!(w[n].id = roz_strdup(kv->key)))
				rc = ROZ_ENOMEM;
			else
				w[n++].weight = (uint32_t)val;
		}
		rc = keep_going(rc);
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
			rc = unknown_key(a, kv, "templates");
		rc = keep_going(rc);
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
			rc = unknown_key(a, kv, "trace");
		}
		rc = keep_going(rc);
	}
	return rc;
}

/* A list of strings replaces the default whole, or not at all (one bad item costs the key). */
static int get_strings(apply_ctx *a, const roz_toml_value *v, const char *key, char ***list, size_t *n)
{
	char **items;
	int rc = ROZ_OK;

	if (v->type != ROZ_TOML_ARRAY)
		return bad_value(a, v, key, "an array of strings");
	if (!(items = roz_calloc(v->u.array.len + 1, sizeof(*items))))
		return ROZ_ENOMEM;
	for (size_t k = 0; k < v->u.array.len && rc == ROZ_OK; k++) {
		const roz_toml_value *item = v->u.array.items[k];

		if (item->type != ROZ_TOML_STRING || strlen(item->u.str.ptr) != item->u.str.len ||
		    !item->u.str.len)
			rc = bad_value(a, item, key, "an array of non-empty strings");
		else if (!(items[k] = roz_strdup(item->u.str.ptr)))
			rc = ROZ_ENOMEM;
	}
	if (rc < 0) {
		size_t len = v->u.array.len;

		free_strings(&items, &len);
		return rc;
	}
	free_strings(list, n);
	*list = items;
	*n = v->u.array.len;
	return ROZ_OK;
}

static int apply_governance(apply_ctx *a, const roz_toml_value *t)
{
	int rc = ROZ_OK;
	uint64_t n = 0;

	for (size_t i = 0; i < t->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &t->u.table.items[i];

		if (strcmp(kv->key, "escalate_after") == 0) {
			rc = get_uint(a, kv->value, "governance.escalate_after", UINT32_MAX, &n);
			if (rc == ROZ_OK)
				a->c->gov_escalate_after = (uint32_t)n;
		} else if (strcmp(kv->key, "destructive_commands") == 0) {
			rc = get_bool(a, kv->value, "governance.destructive_commands", &a->c->gov_destructive);
		} else if (strcmp(kv->key, "detect") == 0) {
			rc = get_bool(a, kv->value, "governance.detect", &a->c->gov_detect);
		} else if (strcmp(kv->key, "detect_watch") == 0) {
			rc = get_bool(a, kv->value, "governance.detect_watch", &a->c->gov_detect_watch);
		} else if (strcmp(kv->key, "detect_max_entries") == 0) {
			rc = get_uint(a, kv->value, "governance.detect_max_entries", 10000000, &n);
			if (rc == ROZ_OK)
				a->c->gov_detect_max = n ? (uint32_t)n : 1;
		} else if (strcmp(kv->key, "destructive_disable") == 0) {
			rc = get_strings(a, kv->value, "governance.destructive_disable",
					 &a->c->gov_destructive_disable, &a->c->n_gov_destructive_disable);
		} else if (strcmp(kv->key, "destructive_extra") == 0) {
			rc = get_strings(a, kv->value, "governance.destructive_extra",
					 &a->c->gov_destructive_extra, &a->c->n_gov_destructive_extra);
		} else {
			rc = unknown_key(a, kv, "governance");
		}
		rc = keep_going(rc);
	}
	return rc;
}

/*
 * Could text the parser had to leave out have been the gate list? Yes when
 * its path and review.gates.tools agree as far as both go: the lost thing
 * is the list, a table that could hold it, or a key that broke off before
 * it was known to be something else.
 */
static bool may_hold_gates(const roz_toml_diag *d)
{
	static const char *const gates[] = {"review", "gates", "tools"};

	if (d->lost == ROZ_TOML_LOST_NOTHING)
		return false;
	for (size_t i = 0; i < d->npath && i < 3; i++)
		if (strcmp(d->path[i], gates[i]) != 0)
			return false;
	return true;
}

/* The lost key or table as it would be written, for messages. */
static void path_text(const roz_toml_diag *d, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < d->npath && used + 1 < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%.60s", i ? "." : "", d->path[i]);
	if (used >= size)
		out[size - 1] = '\0';
}

/* One problem the parser found, said in terms of settings. */
static int syntax_problem(apply_ctx *a, const roz_toml_diag *d)
{
	const char *fix = strstr(d->message, "utf-8") ? FIX_UTF8
			  : strncmp(d->message, "duplicate key", 13) == 0 ? FIX_DUPLICATE
									   : FIX_SYNTAX;
	bool gates = may_hold_gates(d);
	char path[256], now[96], cost[512];
	int rc;

	path_text(d, path, sizeof(path));
	current(a->c, path, now, sizeof(now));
	if (d->lost == ROZ_TOML_LOST_NOTHING)
		snprintf(cost, sizeof(cost), "nothing else is affected");
	else if (d->lost == ROZ_TOML_LOST_REST)
		snprintf(cost, sizeof(cost), "%s", gates ? GATES_LOST : "the rest is ignored");
	else if (gates)
		snprintf(cost, sizeof(cost), "%s", GATES_LOST);
	else if (d->lost == ROZ_TOML_LOST_TABLE)
		snprintf(cost, sizeof(cost), "the keys under [%s%s] up to the next table header are ignored",
			 path, d->partial ? "..." : "");
	else if (d->partial)
		snprintf(cost, sizeof(cost), "the line is ignored");
	else if (now[0] && strncmp(d->message, "duplicate key", 13) != 0)
		snprintf(cost, sizeof(cost), "'%s' is ignored; using %s", path, now);
	else if (strncmp(d->message, "duplicate key", 13) == 0)
		cost[0] = '\0';
	else
		snprintf(cost, sizeof(cost), "'%s' is ignored", path);
	rc = error_at(a, true, d->line, d->column, fix, "%s:%d:%d: %s%s%s", a->origin, d->line, d->column, d->message,
		      cost[0] ? "; " : "", cost);
	if (rc != ROZ_ENOMEM && gates &&
	    hold(a->c, fix, "%s:%d:%d: %s", a->origin, d->line, d->column, d->message) < 0)
		rc = ROZ_ENOMEM;
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
		{"trace", apply_trace},         {"governance", apply_governance},
	};
	apply_ctx a = {c, origin, warn, ud, false, false, NULL};
	roz_toml_diags diags = {NULL, 0, 0};
	roz_toml_value *doc = NULL;
	size_t first = c->n_diags;
	int rc;

	rc = roz_toml_parse_lenient(text, len, &doc, &diags);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < diags.len && rc == ROZ_OK; i++)
		rc = keep_going(syntax_problem(&a, &diags.items[i]));
	for (size_t i = 0; i < doc->u.table.len && rc == ROZ_OK; i++) {
		const roz_toml_kv *kv = &doc->u.table.items[i];
		size_t k;

		for (k = 0; k < sizeof(sections) / sizeof(sections[0]); k++) {
			if (strcmp(kv->key, sections[k].name) != 0)
				continue;
			if (kv->value->type != ROZ_TOML_TABLE)
				rc = bad_value(&a, kv->value, kv->key, "a table");
			else
				rc = sections[k].apply(&a, kv->value);
			break;
		}
		if (k == sizeof(sections) / sizeof(sections[0]))
			rc = unknown_key(&a, kv, NULL);
		rc = keep_going(rc);
	}
	roz_toml_diags_dispose(&diags);
	roz_toml_free(doc);
	/* the parser's problems and the settings' were found in two passes; tell them in file order */
	for (size_t i = first + 1; i < c->n_diags; i++) {
		roz_config_diag x = c->diags[i];
		size_t k = i;

		for (; k > first && (c->diags[k - 1].line > x.line ||
				     (c->diags[k - 1].line == x.line && c->diags[k - 1].column > x.column));
		     k--)
			c->diags[k] = c->diags[k - 1];
		c->diags[k] = x;
	}
	for (size_t i = first; i < c->n_diags && warn; i++)
		warn(ud, c->diags[i].message);
	if (rc == ROZ_OK && a.first) {
		const char *msg = a.first;

		for (size_t i = first; i < c->n_diags; i++) {
			if (c->diags[i].error) {
				msg = c->diags[i].message;
				break;
			}
		}
		roz_error_set("%s", msg);
	}
	roz_free(a.first);
	if (rc < 0)
		return rc;
	return a.syntax ? ROZ_EPARSE : a.invalid ? ROZ_EINVALID : ROZ_OK;
}

/* ---- holding calls while the gates are unknown ------------------------------------ */

/* Tools that only read or keep notes: no gate could be meant for them. */
static bool read_only_tool(const char *name)
{
	static const char *const tools[] = {"Read",     "Grep",      "Glob",     "LS", "NotebookRead",
					    "WebSearch", "TodoRead", "TodoWrite", "BashOutput"};

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strcmp(name, tools[i]) == 0)
			return true;
	return false;
}

/* A Bash line every command of which is roz itself (the reviewer's `roz context`, say). */
static int only_roz(const char *command, bool *yes)
{
	roz_shell_result sh;
	int rc;

	*yes = false;
	if ((rc = roz_shell_parse(command, strlen(command), &sh)) < 0)
		return rc;
	*yes = sh.ncmds > 0 && !(sh.flags & (ROZ_SHELL_DYNAMIC | ROZ_SHELL_UNPARSED));
	for (size_t i = 0; i < sh.ncmds && *yes; i++)
		*yes = strcmp(sh.cmds[i].words[0], "roz") == 0;
	roz_shell_result_dispose(&sh);
	return ROZ_OK;
}

int roz_config_held(const roz_config *c, const char *tool_name, const cJSON *tool_input, bool *held)
{
	const cJSON *field;
	bool roz = false;
	int rc;

	*held = false;
	if (!c->hold)
		return ROZ_OK;
	*held = true;
	if (!tool_name)
		return ROZ_OK;
	if (read_only_tool(tool_name)) {
		*held = false;
		return ROZ_OK;
	}
	field = cJSON_IsObject(tool_input) ? cJSON_GetObjectItemCaseSensitive(
						     tool_input, strcmp(tool_name, "Bash") == 0 ? "command"
												: "subagent_type")
					   : NULL;
	if (!cJSON_IsString(field))
		return ROZ_OK;
	if (strcmp(tool_name, "Bash") == 0) {
		if ((rc = only_roz(field->valuestring, &roz)) < 0)
			return rc;
	} else if (strcmp(tool_name, "Agent") == 0 || strcmp(tool_name, "Task") == 0) {
		roz = strcmp(field->valuestring, ROZ_REVIEWER_AGENT) == 0;
	}
	*held = !roz;
	return ROZ_OK;
}

char *roz_config_hold_message(const roz_config *c)
{
	return roz_asprintf("roz: the roz config cannot be used as written (%s), so roz cannot tell which "
			    "tools are gated. Until it is fixed, roz asks you before each tool call that "
			    "could be gated. To fix: %s; `roz doctor` lists every problem.",
			    c->hold_reason ? c->hold_reason : c->config_path ? c->config_path : "config",
			    c->hold_fix ? c->hold_fix : "correct the file");
}

/* ---- environment -------------------------------------------------------------- */

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

/* A warning, kept with the file's problems; losing it to a failed allocation costs nothing else. */
static void env_warn(roz_config *c, roz_warn_fn warn, void *ud, const char *name, const char *value,
		     const char *why)
{
	if (report(c, warn, ud, false, 0, 0, FIX_ENV, "ignoring %s='%.40s': %s", name, value, why) < 0) {
		/* out of memory: the setting is ignored all the same */
	}
}

static void env_count(roz_config *c, roz_getenv_fn get, void *env_ud, const char *name, uint64_t max,
		      uint64_t *dst, roz_warn_fn warn, void *ud)
{
	const char *v = get(env_ud, name);
	uint64_t n = 0;

	if (!v)
		return;
	if (parse_count(v, max, &n))
		*dst = n;
	else
		env_warn(c, warn, ud, name, v, "not a non-negative whole number");
}

void roz_config_apply_env(roz_config *c, roz_getenv_fn get, void *env_ud, roz_warn_fn warn, void *ud)
{
	const char *mode = get(env_ud, "ROZ_REVIEW_MODE"), *rereview = get(env_ud, "ROZ_REREVIEW_ON_CHANGE");
	uint64_t n = 0;

	n = c->max_blocks;
	env_count(c, get, env_ud, "ROZ_MAX_BLOCKS", UINT32_MAX, &n, warn, ud);
	c->max_blocks = (uint32_t)n;
	env_count(c, get, env_ud, "ROZ_COOLDOWN_SECONDS", UINT64_MAX, &c->cooldown_seconds, warn, ud);
	n = c->max_events;
	env_count(c, get, env_ud, "ROZ_MAX_EVENTS", SIZE_MAX, &n, warn, ud);
	c->max_events = (size_t)n;
	n = c->retention_days;
	env_count(c, get, env_ud, "ROZ_RETENTION_DAYS", UINT32_MAX, &n, warn, ud);
	c->retention_days = (uint32_t)n;
	if (mode) {
		if (strcasecmp(mode, "always") == 0)
			c->mode = ROZ_MODE_ALWAYS;
		else if (strcasecmp(mode, "never") == 0)
			c->mode = ROZ_MODE_NEVER;
		else if (strcasecmp(mode, "prompt") == 0)
			c->mode = ROZ_MODE_PROMPT;
		else
			env_warn(c, warn, ud, "ROZ_REVIEW_MODE", mode, "expected always, prompt or never");
	}
	if (rereview) {
		roz_rereview r;

		if (roz_rereview_parse(rereview, &r) == ROZ_OK)
			c->rereview = r;
		else
			env_warn(c, warn, ud, "ROZ_REREVIEW_ON_CHANGE", rereview, "expected always, code or never");
	}
}

/* ---- a file that cannot be used at all ---------------------------------------------- */

int roz_config_file_failed(roz_config *c, const char *why, roz_warn_fn warn, void *ud)
{
	if (report(c, warn, ud, true, 0, 0, FIX_READ, "%s", why) < 0 || hold(c, FIX_READ, "%s", why) < 0)
		return ROZ_ENOMEM;
	return ROZ_OK;
}
