/*
 * hook_io.c - reading Claude Code's hook input field by field, and writing
 * the JSON answers it accepts. Well-formed input goes straight to a tree;
 * input with text JSON cannot carry into C (NUL, lone surrogates, bytes that
 * are not UTF-8) or nested past the parser's limit is first rewritten into
 * JSON that keeps everything else, so one bad field costs only that field.
 */
#include "roz/hook_io.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "roz/json.h"
#include "roz/utf8.h"

void roz_hook_input_dispose(roz_hook_input *in)
{
	cJSON_Delete(in->root);
	roz_buf_dispose(&in->warnings);
	roz_free(in->tool_unreadable);
	memset(in, 0, sizeof(*in));
	in->stop_hook_active = -1;
}

/* ---- rewriting input that is not plain JSON ------------------------------------------ */

/* What can be wrong inside a field that is still JSON in shape. */
enum {
	FLAW_NUL = 1u << 0,       /* \u0000, or a raw NUL byte in a string */
	FLAW_SURROGATE = 1u << 1, /* \uD800-\uDFFF without its other half */
	FLAW_UTF8 = 1u << 2,      /* bytes that are not UTF-8 */
	FLAW_CONTROL = 1u << 3,   /* a raw control character in a string */
	FLAW_DEEP = 1u << 4       /* nesting past ROZ_JSON_MAX_DEPTH */
};

typedef struct flaw {
	char *field; /* "prompt", "tool_input.command" */
	unsigned what;
} flaw;

/* The note a container nested past the parser's limit is replaced by. */
#define DEEP_NOTE "\"[roz: nested deeper than 512 levels, left out]\""

typedef struct sanitizer {
	const char *s;
	size_t len, pos;
	roz_buf out;
	unsigned char *is_object; /* one bit per open container */
	size_t cap_bits, depth;
	size_t skip_depth; /* >0: inside a too-deep container opened at this depth; nothing is written */
	char *top_key;     /* the root member being read */
	char *sub_key;     /* the member of the root's object member being read */
	bool sub_in_object;
	bool in_key;          /* flaws go to key_flaws until the key is known */
	unsigned key_flaws;
	flaw *flaws;
	size_t n_flaws, cap_flaws;
} sanitizer;

static int syntax(size_t pos, const char *what)
{
	roz_error_set("hook input is not valid JSON: %zu: %s", pos, what);
	return ROZ_EINVALID;
}

/* The field a flaw at the current place belongs to. */
static const char *flaw_field(const sanitizer *z, char *buf, size_t size)
{
	if (!z->top_key)
		return "(the whole input)";
	if (z->depth >= 2 && z->sub_key && z->sub_in_object) {
		snprintf(buf, size, "%s.%s", z->top_key, z->sub_key);
		return buf;
	}
	return z->top_key;
}

static int note_flaw(sanitizer *z, unsigned what)
{
	char buf[512];
	const char *field;
	flaw *f;

	if (z->skip_depth)
		return ROZ_OK; /* the whole container is left out, and noted as too deep */
	if (z->in_key) {
		z->key_flaws |= what;
		return ROZ_OK;
	}
	field = flaw_field(z, buf, sizeof(buf));
	for (size_t i = 0; i < z->n_flaws; i++) {
		if (strcmp(z->flaws[i].field, field) == 0) {
			z->flaws[i].what |= what;
			return ROZ_OK;
		}
	}
	if (roz_alloc_array_reserve((void **)&z->flaws, &z->cap_flaws, sizeof(*z->flaws), z->n_flaws + 1) < 0)
		return ROZ_ENOMEM;
	f = &z->flaws[z->n_flaws];
	if (!(f->field = roz_strdup(field)))
		return ROZ_ENOMEM;
	f->what = what;
	z->n_flaws++;
	return ROZ_OK;
}

static void emit(sanitizer *z, const char *p, size_t n)
{
	if (!z->skip_depth)
		roz_buf_add(&z->out, p, n);
}

/* Copy the string at z->pos, each character JSON cannot carry into C replaced by \ufffd. */
static int sanitize_string(sanitizer *z)
{
	const char *s = z->s;
	size_t len = z->len, p = z->pos + 1, run;
	int rc = ROZ_OK;

	emit(z, "\"", 1);
	for (;;) {
		unsigned char c;
		unsigned u, lo;
		size_t n;

		for (run = p; p < len && (unsigned char)s[p] >= 0x20 && (unsigned char)s[p] < 0x80 &&
			      s[p] != '"' && s[p] != '\\';)
			p++;
		emit(z, s + run, p - run);
		if (p >= len)
			return syntax(z->pos, "unterminated string");
		c = (unsigned char)s[p];
		if (c == '"') {
			emit(z, "\"", 1);
			z->pos = p + 1;
			return ROZ_OK;
		}
		if (c == '\\') {
			if (p + 1 >= len)
				return syntax(p, "unterminated string");
			if (s[p + 1] && strchr("\"\\/bfnrt", s[p + 1])) {
				emit(z, s + p, 2);
				p += 2;
				continue;
			}
			if (s[p + 1] != 'u' || roz_json_hex4(s, len, p + 2, &u) < 0)
				return syntax(p, "invalid escape in string");
			if (u >= 0xD800 && u <= 0xDBFF && len - p >= 12 && s[p + 6] == '\\' &&
			    s[p + 7] == 'u' && roz_json_hex4(s, len, p + 8, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
				emit(z, s + p, 12); /* a whole surrogate pair */
				p += 12;
				continue;
			}
			if (u == 0)
				rc = note_flaw(z, FLAW_NUL);
			else if (u >= 0xD800 && u <= 0xDFFF)
				rc = note_flaw(z, FLAW_SURROGATE);
			if (rc < 0)
				return rc;
			if (u == 0 || (u >= 0xD800 && u <= 0xDFFF))
				emit(z, "\\ufffd", 6);
			else
				emit(z, s + p, 6);
			p += 6;
			continue;
		}
		if (c < 0x20) {
			char esc[7];

			if ((rc = note_flaw(z, c ? FLAW_CONTROL : FLAW_NUL)) < 0)
				return rc;
			snprintf(esc, sizeof(esc), "\\u%04x", c ? c : 0xfffd);
			emit(z, esc, 6);
			p++;
			continue;
		}
		if ((n = roz_utf8_char_len(s + p, len - p)) != 0) {
			emit(z, s + p, n);
			p += n;
			continue;
		}
		if ((rc = note_flaw(z, FLAW_UTF8)) < 0)
			return rc;
		emit(z, "\\ufffd", 6);
		p++;
	}
}

/* The key just written to out, from offset `start`, decoded (caller frees). */
static int decoded_key(sanitizer *z, size_t start, char **out)
{
	cJSON *k = NULL;
	int rc;

	*out = NULL;
	if (roz_buf_failed(&z->out) < 0)
		return ROZ_ENOMEM;
	rc = roz_json_parse(z->out.ptr + start, z->out.len - start, &k);
	if (rc == ROZ_ENOMEM)
		return rc;
	*out = roz_strdup(rc == ROZ_OK && cJSON_IsString(k) ? k->valuestring : "?");
	cJSON_Delete(k);
	return *out ? ROZ_OK : ROZ_ENOMEM;
}

/* An object key and its ':' at z->pos, noting which field the value that follows belongs to. */
static int sanitize_key(sanitizer *z)
{
	size_t start = z->out.len;
	char *key;
	int rc;

	if (z->pos >= z->len || z->s[z->pos] != '"')
		return syntax(z->pos, "expected object key");
	/* a flaw in a key belongs to the member it names, known once the key is read */
	z->in_key = true;
	z->key_flaws = 0;
	rc = sanitize_string(z);
	z->in_key = false;
	if (rc < 0)
		return rc;
	if (!z->skip_depth && (z->depth == 1 || z->depth == 2)) {
		if ((rc = decoded_key(z, start, &key)) < 0)
			return rc;
		if (z->depth == 1) {
			roz_free(z->top_key);
			roz_free(z->sub_key);
			z->top_key = key;
			z->sub_key = NULL;
		} else {
			roz_free(z->sub_key);
			z->sub_key = key;
		}
	}
	if (z->key_flaws && (rc = note_flaw(z, z->key_flaws)) < 0)
		return rc;
	z->pos = roz_json_skip_ws(z->s, z->len, z->pos);
	if (z->pos >= z->len || z->s[z->pos] != ':')
		return syntax(z->pos, "expected ':'");
	emit(z, ":", 1);
	z->pos = roz_json_skip_ws(z->s, z->len, z->pos + 1);
	return ROZ_OK;
}

static bool top_is_object(const sanitizer *z)
{
	size_t d = z->depth - 1;

	return (z->is_object[d / 8] >> (d % 8)) & 1;
}

static int open_container(sanitizer *z)
{
	bool object = z->s[z->pos] == '{';
	size_t d = z->depth;
	int rc;

	if (roz_alloc_array_reserve((void **)&z->is_object, &z->cap_bits, 1, d / 8 + 1) < 0)
		return ROZ_ENOMEM;
	if (object)
		z->is_object[d / 8] |= (unsigned char)(1u << (d % 8));
	else
		z->is_object[d / 8] &= (unsigned char)~(1u << (d % 8));
	/* the parser takes ROZ_JSON_MAX_DEPTH levels: a container past them is left out whole */
	if (!z->skip_depth && d == ROZ_JSON_MAX_DEPTH) {
		if ((rc = note_flaw(z, FLAW_DEEP)) < 0)
			return rc;
		z->skip_depth = d + 1;
	}
	if (d == 1)
		z->sub_in_object = object;
	emit(z, object ? "{" : "[", 1);
	z->depth++;
	z->pos = roz_json_skip_ws(z->s, z->len, z->pos + 1);
	return ROZ_OK;
}

static void close_container(sanitizer *z)
{
	emit(z, top_is_object(z) ? "}" : "]", 1);
	if (z->skip_depth == z->depth) {
		z->skip_depth = 0;
		emit(z, DEEP_NOTE, sizeof(DEEP_NOTE) - 1);
	}
	z->depth--;
	z->pos++;
}

/*
 * Rewrite the input into JSON the tree parser takes, noting each flaw
 * against its field. The grammar is checked as strictly as roz_json_valid
 * does; only string contents and depth are forgiven.
 */
static int sanitize(sanitizer *z)
{
	int rc;

	z->pos = roz_json_skip_ws(z->s, z->len, 0);
	for (;;) {
		/* one value at z->pos */
		if (z->pos >= z->len)
			return syntax(z->pos, "unexpected end of input");
		switch (z->s[z->pos]) {
		case '{':
		case '[':
			if ((rc = open_container(z)) < 0)
				return rc;
			if (z->pos < z->len && z->s[z->pos] == (top_is_object(z) ? '}' : ']')) {
				close_container(z);
				break;
			}
			if (top_is_object(z) && (rc = sanitize_key(z)) < 0)
				return rc;
			continue;
		case '"':
			if ((rc = sanitize_string(z)) < 0)
				return rc;
			break;
		default: {
			size_t start = z->pos;

			if (roz_json_skip_value(z->s, z->len, &z->pos) < 0)
				return syntax(start, "unexpected character");
			emit(z, z->s + start, z->pos - start);
		}
		}
		/* after a value: close containers, or go on to the next member */
		for (;;) {
			if (z->depth == 0)
				return roz_json_skip_ws(z->s, z->len, z->pos) == z->len
					       ? roz_buf_failed(&z->out)
					       : syntax(z->pos, "unexpected text after the value");
			z->pos = roz_json_skip_ws(z->s, z->len, z->pos);
			if (z->pos < z->len && z->s[z->pos] == ',') {
				emit(z, ",", 1);
				z->pos = roz_json_skip_ws(z->s, z->len, z->pos + 1);
				if (top_is_object(z) && (rc = sanitize_key(z)) < 0)
					return rc;
				break;
			}
			if (z->pos >= z->len || z->s[z->pos] != (top_is_object(z) ? '}' : ']'))
				return syntax(z->pos, "expected ',' or a closing bracket");
			close_container(z);
		}
	}
}

static void sanitizer_dispose(sanitizer *z)
{
	roz_buf_dispose(&z->out);
	roz_free(z->is_object);
	roz_free(z->top_key);
	roz_free(z->sub_key);
	for (size_t i = 0; i < z->n_flaws; i++)
		roz_free(z->flaws[i].field);
	roz_free(z->flaws);
}

/* "a NUL character (\u0000) and a lone surrogate" */
static void describe_flaws(roz_buf *b, unsigned what)
{
	static const struct {
		unsigned bit;
		const char *text;
	} names[] = {
		{FLAW_NUL, "a NUL character (\\u0000)"},
		{FLAW_SURROGATE, "a lone UTF-16 surrogate (\\ud800-\\udfff)"},
		{FLAW_UTF8, "bytes that are not UTF-8"},
		{FLAW_CONTROL, "a raw control character"},
		{FLAW_DEEP, "nesting deeper than 512 levels"},
	};
	size_t n = 0, total = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		total += (what & names[i].bit) != 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(what & names[i].bit))
			continue;
		if (n)
			roz_buf_adds(b, n + 1 == total ? " and " : ", ");
		roz_buf_adds(b, names[i].text);
		n++;
	}
}

/* ---- judging each field ------------------------------------------------------------------- */

static void warn(roz_hook_input *in, const char *fmt, ...) ROZ_PRINTF(2, 3);

static void warn(roz_hook_input *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	roz_buf_vaddf(&in->warnings, fmt, ap);
	va_end(ap);
	roz_buf_addc(&in->warnings, '\n');
}

/*
 * Parts of a tool call that gates judge, so that a flaw there leaves the
 * call unreadable to them: the tool's name and input, a Bash call's
 * command (its gate keys come from it), another tool's file path (the
 * store guard reads it).
 */
static bool gate_reads(const roz_hook_input *in, const char *field)
{
	bool bash = in->tool_name && strcmp(in->tool_name, "Bash") == 0;

	if (strcmp(field, "tool_name") == 0 || strcmp(field, "tool_input") == 0)
		return true;
	if (bash)
		return strcmp(field, "tool_input.command") == 0;
	return strcmp(field, "tool_input.file_path") == 0 ||
	       strcmp(field, "tool_input.notebook_path") == 0;
}

/* Report the flaws found while rewriting; a flaw in session_id makes the input unreadable. */
static int judge_flaws(roz_hook_input *in, const sanitizer *z)
{
	char *tool_flaw = NULL;
	roz_buf what = ROZ_BUF_INIT;
	int rc = ROZ_OK;

	for (size_t i = 0; i < z->n_flaws && rc == ROZ_OK; i++) {
		const flaw *f = &z->flaws[i];

		roz_buf_reset(&what);
		describe_flaws(&what, f->what);
		if ((rc = roz_buf_failed(&what)) < 0)
			break;
		if (strcmp(f->field, "session_id") == 0) {
			roz_error_set("hook input field 'session_id' has %s", what.ptr);
			rc = ROZ_EINVALID;
			break;
		}
		warn(in, "hook input field '%.200s' has %s; read with %s", f->field, what.ptr,
		     f->what == FLAW_DEEP ? "the deeper part left out" : "that part replaced");
		if (!tool_flaw && gate_reads(in, f->field) &&
		    !(tool_flaw = roz_asprintf("'%s' has %s", f->field, what.ptr)))
			rc = ROZ_ENOMEM;
	}
	roz_buf_dispose(&what);
	/* a flaw in what the gate reads says more than a wrong type found before */
	if (tool_flaw) {
		roz_free(in->tool_unreadable);
		in->tool_unreadable = tool_flaw;
	}
	return rc;
}

/* How a malformed field is taken, for the few whose absence changes a decision. */
typedef enum field_role {
	FIELD_IGNORED,  /* not needed for any decision: dropped with a warning */
	FIELD_REQUIRED, /* session_id: the input cannot be used without it */
	FIELD_TOOL,     /* tool_name: a gate cannot judge the call */
	FIELD_PROMPT,   /* prompt: an empty prompt (still a prompt, but no #roz) */
	FIELD_AGENT     /* agent_type, agent_id: not the reviewer */
} field_role;

static const struct {
	const char *name;
	size_t offset;
	field_role role;
} string_fields[] = {
	{"session_id", offsetof(roz_hook_input, session_id), FIELD_REQUIRED},
	{"cwd", offsetof(roz_hook_input, cwd), FIELD_IGNORED},
	{"transcript_path", offsetof(roz_hook_input, transcript_path), FIELD_IGNORED},
	{"permission_mode", offsetof(roz_hook_input, permission_mode), FIELD_IGNORED},
	{"hook_event_name", offsetof(roz_hook_input, hook_event_name), FIELD_IGNORED},
	{"prompt", offsetof(roz_hook_input, prompt), FIELD_PROMPT},
	{"prompt_id", offsetof(roz_hook_input, prompt_id), FIELD_IGNORED},
	{"tool_name", offsetof(roz_hook_input, tool_name), FIELD_TOOL},
	{"tool_use_id", offsetof(roz_hook_input, tool_use_id), FIELD_IGNORED},
	{"source", offsetof(roz_hook_input, source), FIELD_IGNORED},
	{"model", offsetof(roz_hook_input, model), FIELD_IGNORED},
	{"agent_type", offsetof(roz_hook_input, agent_type), FIELD_AGENT},
	{"agent_id", offsetof(roz_hook_input, agent_id), FIELD_AGENT},
	{"agent_transcript_path", offsetof(roz_hook_input, agent_transcript_path), FIELD_IGNORED},
	{"last_assistant_message", offsetof(roz_hook_input, last_assistant_message), FIELD_IGNORED},
	{"reason", offsetof(roz_hook_input, reason), FIELD_IGNORED},
};

/* JSON's name for a value's type, for messages. */
static const char *type_name(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsBool(v))
		return "true or false";
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsArray(v))
		return "an array";
	return "a number";
}

static int read_string_fields(roz_hook_input *in)
{
	for (size_t i = 0; i < sizeof(string_fields) / sizeof(string_fields[0]); i++) {
		const char *name = string_fields[i].name;
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(in->root, name);
		const char **slot = (const char **)(void *)((char *)in + string_fields[i].offset);

		*slot = NULL;
		if (cJSON_IsString(v)) {
			*slot = v->valuestring;
			continue;
		}
		if (string_fields[i].role == FIELD_REQUIRED) {
			if (!v || cJSON_IsNull(v))
				roz_error_set("hook input has no '%s'", name);
			else
				roz_error_set("hook input field '%s' must be a string, not %s", name,
					      type_name(v));
			return ROZ_EINVALID;
		}
		if (!v || cJSON_IsNull(v))
			continue;
		switch (string_fields[i].role) {
		case FIELD_TOOL:
			warn(in, "hook input field '%s' is %s, not a string; gates cannot judge this call",
			     name, type_name(v));
			if (!in->tool_unreadable &&
			    !(in->tool_unreadable = roz_asprintf("'%s' is %s, not a string", name, type_name(v))))
				return ROZ_ENOMEM;
			break;
		case FIELD_PROMPT:
			*slot = "";
			warn(in, "hook input field '%s' is %s, not a string; read as an empty prompt", name,
			     type_name(v));
			break;
		case FIELD_AGENT:
			warn(in, "hook input field '%s' is %s, not a string; taken as not the reviewer", name,
			     type_name(v));
			break;
		default:
			warn(in, "hook input field '%s' is %s, not a string; ignored", name, type_name(v));
		}
	}
	return ROZ_OK;
}

static const cJSON *opt_value(const cJSON *root, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);

	return v && !cJSON_IsNull(v) ? v : NULL;
}

/* The tree from text, through the rewrite (z, which the caller frees) when the text is not plain JSON. */
static int parse_tree(const char *text, size_t len, roz_hook_input *in, sanitizer *z)
{
	int rc;

	/* the common case costs one scan and one parse, as before */
	if (roz_utf8_valid(text, len) && roz_json_valid(text, len) && !memmem(text, len, "\\u0000", 6)) {
		rc = roz_json_parse(text, len, &in->root);
		if (rc == ROZ_EPARSE) {
			roz_error_prefix("hook input is not valid JSON");
			rc = ROZ_EINVALID;
		}
		return rc;
	}
	z->s = text;
	z->len = len;
	if ((rc = sanitize(z)) == ROZ_OK) {
		rc = roz_json_parse(z->out.ptr, z->out.len, &in->root);
		if (rc == ROZ_EPARSE) {
			/* the rewrite makes JSON by construction; say so if it ever does not */
			roz_error_prefix("hook input could not be rewritten as JSON");
			rc = ROZ_EINVALID;
		}
	}
	return rc;
}

int roz_hook_input_parse(const char *text, size_t len, roz_hook_input *in)
{
	sanitizer z;
	const cJSON *v;
	int rc;

	memset(&z, 0, sizeof(z));
	memset(in, 0, sizeof(*in));
	in->stop_hook_active = -1;
	if (len == 0 || roz_json_skip_ws(text, len, 0) == len) {
		roz_error_set("hook input is empty");
		return ROZ_EINVALID;
	}
	if (len > ROZ_MAX_INPUT_BYTES) {
		roz_error_set("hook input is larger than %u bytes", ROZ_MAX_INPUT_BYTES);
		return ROZ_EINVALID;
	}
	if ((rc = parse_tree(text, len, in, &z)) < 0)
		goto fail;
	if (!cJSON_IsObject(in->root)) {
		roz_error_set("hook input is not a JSON object");
		rc = ROZ_EINVALID;
		goto fail;
	}
	if ((rc = read_string_fields(in)) < 0 || (rc = judge_flaws(in, &z)) < 0)
		goto fail;
	in->tool_input = opt_value(in->root, "tool_input");
	in->tool_response = opt_value(in->root, "tool_response");
	in->effort = opt_value(in->root, "effort");
	in->background_tasks = opt_value(in->root, "background_tasks");
	if (in->background_tasks && !cJSON_IsArray(in->background_tasks)) {
		warn(in, "hook input field 'background_tasks' is %s, not an array; read as no tasks",
		     type_name(in->background_tasks));
		in->background_tasks = NULL;
	}
	v = opt_value(in->root, "stop_hook_active");
	if (cJSON_IsBool(v))
		in->stop_hook_active = cJSON_IsTrue(v) ? 1 : 0;
	else if (v)
		warn(in, "hook input field 'stop_hook_active' is %s, not true or false; ignored",
		     type_name(v));
	if ((rc = roz_buf_failed(&in->warnings)) < 0)
		goto fail;
	sanitizer_dispose(&z);
	return ROZ_OK;
fail:
	sanitizer_dispose(&z);
	roz_hook_input_dispose(in);
	return rc;
}

void roz_hook_output_dispose(roz_hook_output *out)
{
	roz_free(out->text);
	memset(out, 0, sizeof(*out));
	out->kind = ROZ_OUTPUT_ALLOW;
}

int roz_hook_output_take(roz_hook_output *out, roz_output_kind kind, char *text)
{
	const char *event = out->event_name;

	roz_hook_output_dispose(out);
	if (kind != ROZ_OUTPUT_ALLOW && !text)
		return ROZ_ENOMEM;
	/*
	 * What roz answers is JSON Claude Code must read: a reason that quotes
	 * bytes from a tool call (a path written as $'\xff') is repaired here,
	 * whatever built it.
	 */
	if (text && !roz_utf8_valid(text, strlen(text))) {
		roz_buf fixed = ROZ_BUF_INIT;

		roz_utf8_add_repaired(&fixed, text, strlen(text));
		roz_free(text);
		if (roz_buf_failed(&fixed)) {
			roz_buf_dispose(&fixed);
			return ROZ_ENOMEM;
		}
		text = roz_buf_detach(&fixed, NULL);
	}
	out->kind = kind;
	out->text = text;
	out->event_name = event;
	return ROZ_OK;
}

int roz_hook_output_set(roz_hook_output *out, roz_output_kind kind, const char *text)
{
	char *copy = NULL;

	if (text && !(copy = roz_strdup(text))) {
		roz_hook_output_dispose(out);
		return ROZ_ENOMEM;
	}
	return roz_hook_output_take(out, kind, copy);
}

/* The note that ends a cut text. */
static void add_cut_note(roz_buf *b, size_t lines, size_t chars, const char *more)
{
	roz_buf_addf(b, "\n\n[roz: %zu more line%s (%zu character%s) not shown here; %s.]", lines,
		     lines == 1 ? "" : "s", chars, chars == 1 ? "" : "s",
		     more && *more ? more : "they are left out of this answer");
}

size_t roz_hook_text_add_clipped(roz_buf *b, const char *text, size_t max_chars, const char *more)
{
	size_t len = strlen(text), total = roz_utf8_utf16_len(text, len), budget, cut, kept, lines = 0;
	size_t line_cut = 0, char_cut = 0;
	roz_buf note = ROZ_BUF_INIT;

	if (total <= max_chars) {
		roz_buf_add(b, text, len);
		return 0;
	}
	/* the note at its longest, numbers as large as they can be */
	add_cut_note(&note, len, total, more);
	kept = roz_utf8_utf16_len(roz_buf_cstr(&note), strlen(roz_buf_cstr(&note)));
	budget = max_chars > kept ? max_chars - kept : 0;
	roz_buf_dispose(&note);
	/* whole lines while they fit; the first line alone too long: whole characters */
	for (size_t i = 0, units = 0; i < len;) {
		size_t n = roz_utf8_char_len(text + i, len - i), u = (unsigned char)text[i] >= 0xF0 ? 2 : 1;

		if (units + u > budget)
			break;
		units += u;
		i += n ? n : 1;
		char_cut = i;
		if (text[i - 1] == '\n')
			line_cut = i;
	}
	cut = line_cut ? line_cut : char_cut;
	while (cut && text[cut - 1] == '\n')
		cut--;
	for (size_t i = cut; i < len; i++)
		lines += text[i] == '\n';
	/* the last line, when nothing ends it */
	lines += text[len - 1] != '\n';
	kept = roz_utf8_utf16_len(text, cut);
	roz_buf_add(b, text, cut);
	add_cut_note(b, lines, total - kept, more);
	return total - kept;
}

int roz_hook_output_write(const roz_hook_output *out, roz_buf *b)
{
	roz_buf cut = ROZ_BUF_INIT;
	const char *text = out->text ? out->text : "";

	/* no more bytes than the bound: no more characters either, nothing to count */
	if (strlen(text) > ROZ_OUTPUT_MAX_CHARS && roz_utf8_utf16_len(text, strlen(text)) > ROZ_OUTPUT_MAX_CHARS) {
		roz_hook_text_add_clipped(&cut, text, ROZ_OUTPUT_MAX_CHARS, out->more);
		if (roz_buf_failed(&cut)) {
			roz_buf_dispose(&cut);
			return ROZ_ENOMEM;
		}
		text = roz_buf_cstr(&cut);
	}

	switch (out->kind) {
	case ROZ_OUTPUT_BLOCK:
		roz_buf_adds(b, "{\"decision\":\"block\",\"reason\":");
		roz_json_add_string(b, text);
		roz_buf_adds(b, "}\n");
		break;
	case ROZ_OUTPUT_CONTEXT:
		roz_buf_adds(b, "{\"hookSpecificOutput\":{\"hookEventName\":");
		roz_json_add_string(b, out->event_name ? out->event_name : "SessionStart");
		roz_buf_adds(b, ",\"additionalContext\":");
		roz_json_add_string(b, text);
		roz_buf_adds(b, "}}\n");
		break;
	case ROZ_OUTPUT_DENY:
	case ROZ_OUTPUT_ASK:
		roz_buf_addf(b,
			     "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
			     "\"permissionDecision\":\"%s\",\"permissionDecisionReason\":",
			     out->kind == ROZ_OUTPUT_DENY ? "deny" : "ask");
		roz_json_add_string(b, text);
		roz_buf_adds(b, "}}\n");
		break;
	default:
		roz_buf_adds(b, "{}\n");
	}
	roz_buf_dispose(&cut);
	return roz_buf_failed(b);
}
