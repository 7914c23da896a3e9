/*
 * denial.c - governance refusals as one sentence and one JSON object.
 *
 * The sentence comes first because the agent reads the reason top to
 * bottom and acts on the first line; the JSON follows so that tools (and
 * the agent, when it wants the details) need not parse prose.
 */
#include "roz/denial.h"

#include <stdarg.h>
#include <string.h>

#include "roz/json.h"
#include "roz/utf8.h"

static const char *const code_names[] = {
	[ROZ_DENIAL_NONE] = "NONE",
	[ROZ_DENIAL_INTENT_REQUIRED] = "INTENT_REQUIRED",
	[ROZ_DENIAL_SCOPE_VIOLATION] = "SCOPE_VIOLATION",
	[ROZ_DENIAL_STALE_FILE] = "STALE_FILE",
	[ROZ_DENIAL_DESTRUCTIVE_BLOCKED] = "DESTRUCTIVE_BLOCKED",
	[ROZ_DENIAL_INTENT_INVALID] = "INTENT_INVALID",
	[ROZ_DENIAL_INTENTS_UNREADABLE] = "INTENTS_UNREADABLE",
	[ROZ_DENIAL_TARGET_UNKNOWN] = "TARGET_UNKNOWN",
	[ROZ_DENIAL_ORCHESTRATION] = "ORCHESTRATION_PROTECTED",
	[ROZ_DENIAL_HOOK_ERROR] = "HOOK_ERROR",
	[ROZ_DENIAL_OUTSIDE_REPOSITORY] = "OUTSIDE_REPOSITORY",
};

const char *roz_denial_code_name(roz_denial_code code)
{
	if ((size_t)code >= sizeof code_names / sizeof code_names[0] || !code_names[code])
		return "HOOK_ERROR";
	return code_names[code];
}

void roz_denial_dispose(roz_denial *d)
{
	if (!d)
		return;
	roz_free(d->message);
	roz_free(d->tool);
	roz_free(d->details);
	memset(d, 0, sizeof *d);
}

/*
 * A copy of `s` that is UTF-8: refusals quote paths and commands as the
 * tool call wrote them (`$'\xff'` is a byte, not a character), and the
 * JSON the agent reads must parse. Inside a JSON text, bad bytes are only
 * ever in strings, so the text stays JSON. NULL when out of memory.
 */
static char *repaired(const char *s, bool oom)
{
	roz_buf b = ROZ_BUF_INIT;

	if (oom)
		return NULL;
	if (roz_utf8_valid(s, strlen(s)))
		return roz_strdup(s);
	roz_utf8_add_repaired(&b, s, strlen(s));
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}

int roz_denial_set(roz_denial *d, roz_denial_code code, const char *tool, const char *details,
		   const char *fmt, ...)
{
	roz_denial_dispose(d);
	roz_buf msg = ROZ_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	roz_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	d->code = code;
	d->message = repaired(msg.ptr ? msg.ptr : "", msg.oom);
	roz_buf_dispose(&msg);
	d->tool = tool ? repaired(tool, false) : NULL;
	d->details = details ? repaired(details, false) : NULL;
	if (!d->message || (tool && !d->tool) || (details && !d->details)) {
		roz_denial_dispose(d);
		roz_error_set("out of memory");
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

void roz_denial_render_json(const roz_denial *d, roz_buf *out)
{
	roz_buf_adds(out, "{\"error\":{\"code\":");
	roz_json_add_string(out, roz_denial_code_name(d->code));
	roz_buf_adds(out, ",\"message\":");
	roz_json_add_string(out, d->message ? d->message : "");
	if (d->tool) {
		roz_buf_adds(out, ",\"tool\":");
		roz_json_add_string(out, d->tool);
	}
	roz_buf_adds(out, ",\"details\":");
	roz_buf_adds(out, d->details && *d->details ? d->details : "{}");
	roz_buf_adds(out, "}}");
}

void roz_denial_render(const roz_denial *d, roz_buf *out)
{
	roz_buf_addf(out, "roz: %s: %s\n", roz_denial_code_name(d->code),
		     d->message ? d->message : "");
	roz_denial_render_json(d, out);
}
