/*
 * intents.c - reading .orchestration/active_intents.yaml into intents, and
 * writing one intent back out as the <intent_context> block.
 *
 * libyaml builds the document (from memory: this layer makes no system
 * calls); the schema walk below is what roz adds. The walk only descends
 * into the values roz reads, to a fixed depth (file, list, intent, list,
 * string), so a cyclic or deeply nested document cannot make it recurse,
 * and every value it visits is counted, aliases each time they are used,
 * so an alias bomb is refused after bounded work instead of expanded.
 */
#include "roz/intents.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "roz/scope.h"
#include "roz/utf8.h"

#define STATUS_CHOICES "DRAFT, IN_PROGRESS, COMPLETED or ARCHIVED"
/* how much of a value a message quotes */
#define QUOTE_MAX 60

static const char *const status_names[] = {
	[ROZ_INTENT_DRAFT] = "DRAFT",
	[ROZ_INTENT_IN_PROGRESS] = "IN_PROGRESS",
	[ROZ_INTENT_COMPLETED] = "COMPLETED",
	[ROZ_INTENT_ARCHIVED] = "ARCHIVED",
};

const char *roz_intents_status_name(roz_intent_status s)
{
	if ((size_t)s >= sizeof status_names / sizeof status_names[0])
		return "UNKNOWN";
	return status_names[s];
}

/* ---- releasing ---------------------------------------------------------------- */

static void free_list(char **list, size_t n)
{
	if (!list)
		return;
	for (size_t i = 0; i < n; i++)
		roz_free(list[i]);
	roz_free(list);
}

static void intent_dispose(roz_intent *it)
{
	roz_free(it->id);
	roz_free(it->name);
	free_list(it->scope, it->nscope);
	free_list(it->constraints, it->nconstraints);
	free_list(it->criteria, it->ncriteria);
	roz_free(it->created_at);
	roz_free(it->updated_at);
	memset(it, 0, sizeof *it);
}

void roz_intents_dispose(roz_intents *ints)
{
	if (!ints)
		return;
	for (size_t i = 0; i < ints->n; i++)
		intent_dispose(&ints->items[i]);
	roz_free(ints->items);
	ints->items = NULL;
	ints->n = 0;
}

void roz_intents_error_dispose(roz_intents_error *err)
{
	if (!err)
		return;
	roz_free(err->message);
	memset(err, 0, sizeof *err);
}

const roz_intent *roz_intents_find(const roz_intents *ints, const char *id)
{
	if (!ints || !id)
		return NULL;
	for (size_t i = 0; i < ints->n; i++)
		if (ints->items[i].id && strcmp(ints->items[i].id, id) == 0)
			return &ints->items[i];
	return NULL;
}

/* ---- the walk ----------------------------------------------------------------- */

typedef struct walk {
	const char *text; /* the file, for positions */
	size_t len;
	yaml_document_t *doc;
	roz_intents_error *err;
	size_t visited; /* values read so far, aliases counted at each use */
	/* where the last position was found: marks come mostly in file order, so each is counted on from there */
	bool cur_set;
	size_t cur_off, cur_chars;
	unsigned cur_line, cur_col;
} walk;

/* Record the first problem; the rest of the file is not read. */
static int fail_at(walk *w, int rc, unsigned line, unsigned col, const char *fmt, ...) ROZ_PRINTF(5, 6);

static int fail_at(walk *w, int rc, unsigned line, unsigned col, const char *fmt, ...)
{
	roz_buf msg = ROZ_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	roz_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (roz_buf_failed(&msg)) {
		roz_buf_dispose(&msg);
		roz_error_set("out of memory");
		return ROZ_ENOMEM;
	}
	roz_error_set("%u:%u: %s", line, col, roz_buf_cstr(&msg));
	if (w->err) {
		w->err->line = line;
		w->err->col = col;
		w->err->message = roz_buf_detach(&msg, NULL);
	}
	roz_buf_dispose(&msg);
	return rc;
}

static int oom(void)
{
	roz_error_set("out of memory");
	return ROZ_ENOMEM;
}

/* Line and column (in characters) of byte `off`, as an editor shows them. */
static void position_of(const char *text, size_t len, size_t off, unsigned *line, unsigned *col)
{
	unsigned l = 1, c = 1;
	size_t i = 0;

	if (off > len)
		off = len;
	/* a byte-order mark takes no column */
	if (off >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	for (; i < off; i++) {
		unsigned char b = (unsigned char)text[i];

		/* LF, CR LF and a lone CR each end a line, as in editors and in libyaml */
		if (b == '\n' || (b == '\r' && (i + 1 >= len || text[i + 1] != '\n')))
			l++, c = 1;
		else if ((b & 0xC0) != 0x80)
			c++;
	}
	*line = l;
	*col = c;
}

/*
 * Line and column of a libyaml mark. libyaml also breaks lines at U+0085,
 * U+2028 and U+2029, which editors mostly do not, so its own line is not
 * used: its character index (after a byte-order mark) is counted again
 * here the way position_of counts.
 */
static void position_of_mark(walk *w, yaml_mark_t m, unsigned *line, unsigned *col)
{
	size_t i = 0, chars = 0;
	unsigned l = 1, c = 1;

	if (w->cur_set && m.index >= w->cur_chars) {
		i = w->cur_off;
		chars = w->cur_chars;
		l = w->cur_line;
		c = w->cur_col;
	} else if (w->len >= 3 && memcmp(w->text, "\xEF\xBB\xBF", 3) == 0) {
		i = 3; /* a byte-order mark takes no column */
	}
	/* count characters to the mark, and lines and columns as position_of() does */
	for (; i < w->len && chars < m.index; i++) {
		unsigned char b = (unsigned char)w->text[i];

		if ((b & 0xC0) != 0x80)
			chars++;
		if (b == '\n' || (b == '\r' && (i + 1 >= w->len || w->text[i + 1] != '\n')))
			l++, c = 1;
		else if ((b & 0xC0) != 0x80)
			c++;
	}
	/* i is now past the continuation bytes of the last character counted */
	while (i < w->len && ((unsigned char)w->text[i] & 0xC0) == 0x80)
		i++;
	w->cur_set = true;
	w->cur_off = i;
	w->cur_chars = chars;
	w->cur_line = l;
	w->cur_col = c;
	*line = l;
	*col = c;
}

static int fail_mark(walk *w, int rc, yaml_mark_t m, const char *fmt, ...) ROZ_PRINTF(4, 5);

static int fail_mark(walk *w, int rc, yaml_mark_t m, const char *fmt, ...)
{
	roz_buf msg = ROZ_BUF_INIT;
	unsigned line, col;
	va_list ap;
	int out;

	va_start(ap, fmt);
	roz_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (roz_buf_failed(&msg)) {
		roz_buf_dispose(&msg);
		return oom();
	}
	position_of_mark(w, m, &line, &col);
	out = fail_at(w, rc, line, col, "%s", roz_buf_cstr(&msg));
	roz_buf_dispose(&msg);
	return out;
}

static unsigned line_of(walk *w, yaml_mark_t m)
{
	unsigned line, col;

	position_of_mark(w, m, &line, &col);
	return line;
}

#define FAIL(w, node, ...) fail_mark((w), ROZ_EINVALID, (node)->start_mark, __VA_ARGS__)

/* Append at most QUOTE_MAX bytes of s, cut on a character boundary. */
static void add_quoted(roz_buf *b, const char *s, size_t len)
{
	size_t n = roz_utf8_cut(s, len, QUOTE_MAX);

	roz_buf_addc(b, '\'');
	roz_buf_add(b, s, n);
	if (n < len)
		roz_buf_adds(b, "...");
	roz_buf_addc(b, '\'');
}

static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return "a single value";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

/* `~`, `null` and nothing, written plainly, are YAML's null: absent. */
static bool is_null(const yaml_node_t *n)
{
	const char *v;
	size_t len;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	len = n->data.scalar.length;
	return len == 0 || (len == 1 && v[0] == '~') ||
	       (len == 4 && (!memcmp(v, "null", 4) || !memcmp(v, "Null", 4) || !memcmp(v, "NULL", 4)));
}

/* The node `id` refers to, counted against the bound on work. */
static int visit(walk *w, int id, const yaml_node_t *parent, yaml_node_t **out)
{
	yaml_node_t *n = yaml_document_get_node(w->doc, id);

	if (!n) /* libyaml links every id it hands out; kept for safety */
		return FAIL(w, parent, "the document refers to a value that does not exist");
	if (++w->visited > ROZ_INTENTS_NODES_MAX)
		return FAIL(w, n,
			    "the file expands to more than %d values (aliases count each time they are "
			    "used), which is more than an intents file needs",
			    ROZ_INTENTS_NODES_MAX);
	*out = n;
	return ROZ_OK;
}

/*
 * A string value: a scalar without NUL or control characters other than
 * tab (C1 controls included), copied into *out. Constraints and criteria
 * are prose a person may write as a block (`|` or `>`): newlines are
 * allowed there, and only there.
 */
static int take_text(walk *w, const yaml_node_t *n, const char *what, bool lines, char **out)
{
	const unsigned char *v;
	size_t len;

	if (n->type != YAML_SCALAR_NODE)
		return FAIL(w, n, "%s must be a single value, not %s", what, kind_name(n));
	v = n->data.scalar.value;
	len = n->data.scalar.length;
	for (size_t i = 0; i < len; i++) {
		bool c0 = (v[i] < 0x20 && v[i] != '\t' && !(lines && v[i] == '\n')) || v[i] == 0x7F;
		bool c1 = v[i] == 0xC2 && i + 1 < len && v[i + 1] >= 0x80 && v[i + 1] <= 0x9F;

		if (c0 || c1)
			return FAIL(w, n,
				    "%s holds a control character (U+%04X); only tab%s is allowed in text",
				    what, c1 ? (unsigned)v[i + 1] : (unsigned)v[i], lines ? " and newline" : "");
	}
	*out = roz_strndup((const char *)v, len);
	return *out ? ROZ_OK : oom();
}

static int take_string(walk *w, const yaml_node_t *n, const char *what, char **out)
{
	return take_text(w, n, what, false, out);
}

/* A list of strings; absent (null) is the empty list. */
static int take_list(walk *w, const yaml_node_t *n, const char *what, bool lines, char ***out,
		     size_t *nout)
{
	size_t count, k = 0;
	char **list;
	int rc = ROZ_OK;

	if (is_null(n))
		return ROZ_OK;
	if (n->type != YAML_SEQUENCE_NODE)
		return FAIL(w, n, "%s must be a list of text, not %s", what, kind_name(n));
	count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count == 0)
		return ROZ_OK;
	list = roz_calloc(count, sizeof *list);
	if (!list)
		return oom();
	for (; k < count; k++) {
		yaml_node_t *item;

		rc = visit(w, n->data.sequence.items.start[k], n, &item);
		if (rc)
			break;
		if (item->type == YAML_SCALAR_NODE && is_null(item)) {
			rc = FAIL(w, item, "entry %zu of %s is empty", k + 1, what);
			break;
		}
		if (item->type != YAML_SCALAR_NODE) {
			rc = FAIL(w, item, "entry %zu of %s must be text, not %s", k + 1, what,
				  kind_name(item));
			break;
		}
		rc = take_text(w, item, what, lines, &list[k]);
		if (rc)
			break;
	}
	if (rc) {
		free_list(list, k);
		return rc;
	}
	*out = list;
	*nout = count;
	return ROZ_OK;
}

static int check_id(walk *w, const yaml_node_t *n, const char *id)
{
	size_t len = strlen(id);
	roz_buf q = ROZ_BUF_INIT;
	int rc = ROZ_OK;

	if (len == 0)
		return FAIL(w, n, "the intent's id is empty");
	if (len > ROZ_INTENTS_ID_MAX)
		return FAIL(w, n, "the intent's id is %zu bytes long; an id has at most %d", len,
			    ROZ_INTENTS_ID_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)id[i];

		if (b <= 0x20 || b >= 0x7F) {
			add_quoted(&q, id, len);
			rc = FAIL(w, n,
				  "the id %s holds a space or a character other than visible ASCII; an "
				  "id is one word that `roz intent select` can be given as it is",
				  roz_buf_cstr(&q));
			break;
		}
	}
	roz_buf_dispose(&q);
	return rc;
}

static int take_status(walk *w, const yaml_node_t *n, roz_intent_status *out)
{
	char *s = NULL;
	roz_buf q = ROZ_BUF_INIT;
	int rc = take_string(w, n, "status", &s);

	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++) {
		if (strcmp(s, status_names[i]) == 0) {
			*out = (roz_intent_status)i;
			roz_free(s);
			return ROZ_OK;
		}
	}
	add_quoted(&q, s, strlen(s));
	rc = FAIL(w, n, "unknown status %s; the status is one of " STATUS_CHOICES ", spelt exactly so",
		  roz_buf_cstr(&q));
	roz_buf_dispose(&q);
	roz_free(s);
	return rc;
}

static int check_scope(walk *w, const yaml_node_t *list, const roz_intent *it)
{
	for (size_t k = 0; k < it->nscope; k++) {
		const char *why = NULL;

		if (!roz_scope_pattern_check(it->scope[k], &why)) {
			yaml_node_t *item = yaml_document_get_node(w->doc, list->data.sequence.items.start[k]);
			roz_buf q = ROZ_BUF_INIT;
			int rc;

			add_quoted(&q, it->scope[k], strlen(it->scope[k]));
			rc = FAIL(w, item ? item : list, "the owned_scope pattern %s cannot be used: %s",
				  roz_buf_cstr(&q), why ? why : "it is not a valid pattern");
			roz_buf_dispose(&q);
			return rc;
		}
	}
	return ROZ_OK;
}

/* The keys of an intent roz reads; any other key is left for newer versions. */
enum { K_ID, K_NAME, K_STATUS, K_SCOPE, K_CONSTRAINTS, K_CRITERIA, K_CREATED, K_UPDATED, K_COUNT };
static const char *const intent_keys[K_COUNT] = {
	"id", "name", "status", "owned_scope", "constraints", "acceptance_criteria", "created_at",
	"updated_at",
};

/* The key's text, or a failure when it is not a plain value. */
static int key_of(walk *w, const yaml_node_t *key, const char **text)
{
	if (key->type != YAML_SCALAR_NODE)
		return FAIL(w, key, "a key must be a single value, not %s", kind_name(key));
	/* a key holding NUL matches no known key */
	*text = strlen((const char *)key->data.scalar.value) == key->data.scalar.length
			? (const char *)key->data.scalar.value
			: "";
	return ROZ_OK;
}

static int read_intent(walk *w, const yaml_node_t *map, roz_intent *it)
{
	unsigned seen[K_COUNT] = {0};
	yaml_node_t *scope_node = NULL;
	bool have_status = false;
	int rc = ROZ_OK;

	it->line = line_of(w, map->start_mark);
	if (map->type != YAML_MAPPING_NODE)
		return FAIL(w, map, "each entry of active_intents must be a mapping (id: ..., name: ...), "
				    "not %s", kind_name(map));
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = yaml_document_get_node(w->doc, p->key);
		yaml_node_t *val;
		const char *name;
		int k;

		if (!key)
			return FAIL(w, map, "the document refers to a value that does not exist");
		rc = key_of(w, key, &name);
		if (rc)
			return rc;
		for (k = 0; k < K_COUNT && strcmp(name, intent_keys[k]) != 0; k++)
			;
		if (k == K_COUNT)
			continue;
		if (seen[k])
			return FAIL(w, key, "the key %s appears twice in this intent (first at line %u)",
				    intent_keys[k], seen[k]);
		seen[k] = line_of(w, key->start_mark);
		rc = visit(w, p->value, key, &val);
		if (rc)
			return rc;
		switch (k) {
		case K_ID:
		case K_NAME:
			if (is_null(val))
				break; /* reported below as missing */
			rc = take_string(w, val, intent_keys[k], k == K_ID ? &it->id : &it->name);
			if (!rc && k == K_ID)
				rc = check_id(w, val, it->id);
			if (!rc && k == K_NAME && strspn(it->name, " \t") == strlen(it->name))
				rc = FAIL(w, val, "the intent's name is empty");
			break;
		case K_STATUS:
			if (is_null(val))
				break;
			rc = take_status(w, val, &it->status);
			have_status = !rc;
			break;
		case K_SCOPE:
			rc = take_list(w, val, "owned_scope", false, &it->scope, &it->nscope);
			scope_node = val;
			if (!rc && it->nscope)
				rc = check_scope(w, scope_node, it);
			break;
		case K_CONSTRAINTS:
			rc = take_list(w, val, "constraints", true, &it->constraints, &it->nconstraints);
			break;
		case K_CRITERIA:
			rc = take_list(w, val, "acceptance_criteria", true, &it->criteria, &it->ncriteria);
			break;
		default: /* K_CREATED, K_UPDATED */
			if (is_null(val))
				break;
			rc = take_string(w, val, intent_keys[k], k == K_CREATED ? &it->created_at : &it->updated_at);
			break;
		}
		if (rc)
			return rc;
	}
	if (!it->id)
		return FAIL(w, map, "this intent has no id");
	if (!it->name) {
		roz_buf q = ROZ_BUF_INIT;

		add_quoted(&q, it->id, strlen(it->id));
		rc = FAIL(w, map, "the intent %s has no name", roz_buf_cstr(&q));
		roz_buf_dispose(&q);
		return rc;
	}
	if (!have_status) {
		roz_buf q = ROZ_BUF_INIT;

		add_quoted(&q, it->id, strlen(it->id));
		rc = FAIL(w, map, "the intent %s has no status; give it one of " STATUS_CHOICES,
			  roz_buf_cstr(&q));
		roz_buf_dispose(&q);
		return rc;
	}
	return ROZ_OK;
}

static int read_list(walk *w, const yaml_node_t *list, roz_intents *out)
{
	size_t count;
	int rc = ROZ_OK;

	if (is_null(list))
		return ROZ_OK;
	if (list->type != YAML_SEQUENCE_NODE)
		return FAIL(w, list, "active_intents must be a list of intents (each starting with '- '), "
				     "not %s", kind_name(list));
	count = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	if (count > ROZ_INTENTS_MAX) {
		yaml_node_t *extra = yaml_document_get_node(w->doc, list->data.sequence.items.start[ROZ_INTENTS_MAX]);

		return FAIL(w, extra ? extra : list,
			    "the file lists %zu intents; at most %d are read, so the file is refused",
			    count, ROZ_INTENTS_MAX);
	}
	if (count == 0)
		return ROZ_OK;
	out->items = roz_calloc(count, sizeof *out->items);
	if (!out->items)
		return oom();
	for (size_t k = 0; k < count; k++) {
		yaml_node_t *item;

		/* counted now, so that dispose frees what a failure left half-filled */
		out->n = k + 1;
		rc = visit(w, list->data.sequence.items.start[k], list, &item);
		if (rc)
			return rc;
		rc = read_intent(w, item, &out->items[k]);
		if (rc)
			return rc;
		for (size_t j = 0; j < k; j++) {
			if (strcmp(out->items[j].id, out->items[k].id) == 0) {
				roz_buf q = ROZ_BUF_INIT;

				add_quoted(&q, out->items[k].id, strlen(out->items[k].id));
				rc = FAIL(w, item, "the id %s is used twice, by the intents at lines %u and %u",
					  roz_buf_cstr(&q), out->items[j].line, out->items[k].line);
				roz_buf_dispose(&q);
				return rc;
			}
		}
	}
	return ROZ_OK;
}

static int read_root(walk *w, const yaml_node_t *root, roz_intents *out)
{
	yaml_node_t *list = NULL;
	unsigned seen = 0;
	int rc;

	if (root->type == YAML_SCALAR_NODE && is_null(root))
		return ROZ_OK; /* a document with nothing in it, like an empty file */
	if (root->type != YAML_MAPPING_NODE)
		return FAIL(w, root, "the file must be a mapping with the key active_intents, not %s",
			    kind_name(root));
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *key = yaml_document_get_node(w->doc, p->key);
		const char *name;

		if (!key)
			return FAIL(w, root, "the document refers to a value that does not exist");
		rc = key_of(w, key, &name);
		if (rc)
			return rc;
		if (strcmp(name, "active_intents") != 0)
			continue;
		if (seen)
			return FAIL(w, key, "the key active_intents appears twice (first at line %u)", seen);
		seen = line_of(w, key->start_mark);
		rc = visit(w, p->value, key, &list);
		if (rc)
			return rc;
	}
	if (!list)
		return FAIL(w, root, "the file has no active_intents key; it holds the list of intents");
	return read_list(w, list, out);
}

/* ---- parsing ------------------------------------------------------------------ */

/* libyaml's own words, at its position: "<problem> <context>". */
static int yaml_failure(walk *w, const yaml_parser_t *p, const char *text, size_t len)
{
	unsigned line, col;

	if (p->error == YAML_MEMORY_ERROR)
		return oom();
	if (p->error == YAML_READER_ERROR) {
		/* the reader knows only a byte offset */
		position_of(text, len, p->problem_offset, &line, &col);
		if (p->problem_value >= 0)
			return fail_at(w, ROZ_EPARSE, line, col, "%s (byte 0x%02X)",
				       p->problem ? p->problem : "unreadable input",
				       (unsigned)p->problem_value);
		return fail_at(w, ROZ_EPARSE, line, col, "%s", p->problem ? p->problem : "unreadable input");
	}
	if (p->context && p->context_mark.index != p->problem_mark.index) {
		unsigned cline, ccol;

		position_of_mark(w, p->context_mark, &cline, &ccol);
		return fail_mark(w, ROZ_EPARSE, p->problem_mark, "%s %s that starts at line %u, column %u",
				 p->problem ? p->problem : "the YAML is malformed", p->context, cline, ccol);
	}
	if (p->context)
		return fail_mark(w, ROZ_EPARSE, p->problem_mark, "%s %s",
				 p->problem ? p->problem : "the YAML is malformed", p->context);
	return fail_mark(w, ROZ_EPARSE, p->problem_mark, "%s",
			 p->problem ? p->problem : "the YAML is malformed");
}

/* The anchor an event defines, or NULL. */
static const yaml_char_t *event_anchor(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return ev->data.scalar.anchor;
	case YAML_SEQUENCE_START_EVENT:
		return ev->data.sequence_start.anchor;
	case YAML_MAPPING_START_EVENT:
		return ev->data.mapping_start.anchor;
	default:
		return NULL;
	}
}

/*
 * A first pass over libyaml's events, before it builds the document. Its
 * scanner checks every open flow level at each token, and its loader looks
 * each alias up among all anchors, so a megabyte of `[` or of anchors and
 * aliases would take minutes; stopping at the first level or anchor too
 * many keeps the work linear. Syntax errors are found here too, with the
 * same words the loader would use.
 */
static int prescan(walk *w, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t depth = 0, anchors = 0;
	int rc = ROZ_OK;

	if (!yaml_parser_initialize(&parser))
		return oom();
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		yaml_event_type_t type;

		if (!yaml_parser_parse(&parser, &ev)) {
			rc = yaml_failure(w, &parser, text, len);
			break;
		}
		type = ev.type;
		if (event_anchor(&ev) && ++anchors > ROZ_INTENTS_ANCHORS_MAX)
			rc = fail_mark(w, ROZ_EINVALID, ev.start_mark,
				       "the file defines more than %d anchors (&name); an intents file needs few",
				       ROZ_INTENTS_ANCHORS_MAX);
		else if ((type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) &&
			 ++depth > ROZ_INTENTS_DEPTH_MAX)
			rc = fail_mark(w, ROZ_EINVALID, ev.start_mark,
				       "lists and mappings are nested more than %d deep here; an intents file "
				       "needs a few levels",
				       ROZ_INTENTS_DEPTH_MAX);
		else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT)
			depth--;
		yaml_event_delete(&ev);
		if (rc || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* libyaml's message for bad UTF-8 is vague; say which byte, and where. */
static int check_utf8(walk *w, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n = roz_utf8_char_len(text + i, len - i);

		if (n == 0) {
			unsigned line, col;

			position_of(text, len, i, &line, &col);
			return fail_at(w, ROZ_EPARSE, line, col,
				       "the file is not valid UTF-8: byte 0x%02X does not start a well-formed "
				       "character",
				       (unsigned)(unsigned char)text[i]);
		}
		i += n;
	}
	return ROZ_OK;
}

int roz_intents_parse(const char *text, size_t len, roz_intents *out, roz_intents_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	bool have_doc = false, have_extra = false;
	walk w = {text, len, NULL, err, 0, false, 0, 0, 0, 0};
	yaml_node_t *root, *second;
	int rc;

	out->items = NULL;
	out->n = 0;
	if (err)
		memset(err, 0, sizeof *err);
	if (!text && len)
		return fail_at(&w, ROZ_EINVALID, 1, 1, "no text was given");
	if (len > ROZ_INTENTS_MAX_BYTES)
		return fail_at(&w, ROZ_EPARSE, 1, 1,
			       "the file is %zu bytes; an intents file is read only up to %d bytes", len,
			       ROZ_INTENTS_MAX_BYTES);
	if (len == 0)
		return ROZ_OK;
	rc = check_utf8(&w, text, len);
	if (!rc)
		rc = prescan(&w, text, len);
	if (rc)
		return rc;

	if (!yaml_parser_initialize(&parser))
		return oom();
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = yaml_failure(&w, &parser, text, len);
		goto out;
	}
	have_doc = true;
	w.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) /* only comments, or nothing */
		goto out;
	/* a second document would be read by nobody: refuse rather than guess */
	if (!yaml_parser_load(&parser, &extra)) {
		rc = yaml_failure(&w, &parser, text, len);
		goto out;
	}
	have_extra = true;
	second = yaml_document_get_root_node(&extra);
	if (second) {
		rc = fail_mark(&w, ROZ_EINVALID, extra.start_mark,
			       "the file holds a second YAML document; put every intent in the first");
		goto out;
	}
	rc = read_root(&w, root, out);

out:
	if (have_extra)
		yaml_document_delete(&extra);
	if (have_doc)
		yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc) {
		roz_intents_dispose(out);
		if (rc == ROZ_ENOMEM && err)
			roz_intents_error_dispose(err);
	}
	return rc;
}

/* ---- <intent_context> ---------------------------------------------------------- */

/*
 * Text for XML 1.0: the five special characters as entities, and what XML
 * cannot carry as U+FFFD. In attribute values tab, LF and CR are written as
 * character references, which a parser keeps instead of turning into spaces.
 */
static void xml_add(roz_buf *out, const char *s, bool attr)
{
	size_t len = s ? strlen(s) : 0, i = 0;

	while (i < len) {
		unsigned char b = (unsigned char)s[i];
		size_t n;

		switch (b) {
		case '&': roz_buf_adds(out, "&amp;"); i++; continue;
		case '<': roz_buf_adds(out, "&lt;"); i++; continue;
		case '>': roz_buf_adds(out, "&gt;"); i++; continue;
		case '"': roz_buf_adds(out, "&quot;"); i++; continue;
		case '\'': roz_buf_adds(out, "&apos;"); i++; continue;
		default: break;
		}
		if (b < 0x20) {
			if (b == '\t' || b == '\n' || b == '\r') {
				if (attr)
					roz_buf_addf(out, "&#%u;", (unsigned)b);
				else
					roz_buf_addc(out, (char)b);
			} else {
				roz_utf8_add(out, 0xFFFD);
			}
			i++;
			continue;
		}
		if (b < 0x80) {
			roz_buf_addc(out, (char)b);
			i++;
			continue;
		}
		n = roz_utf8_char_len(s + i, len - i);
		/* U+FFFE and U+FFFF are not characters in XML */
		if (n == 0 || (n == 3 && b == 0xEF && (unsigned char)s[i + 1] == 0xBF &&
			       (unsigned char)s[i + 2] >= 0xBE)) {
			roz_utf8_add(out, 0xFFFD);
			i += n ? n : 1;
			continue;
		}
		roz_buf_add(out, s + i, n);
		i += n;
	}
}

static void xml_list(roz_buf *out, const char *tag, const char *item, char *const *list, size_t n)
{
	if (n == 0) {
		roz_buf_addf(out, "    <%s/>\n", tag);
		return;
	}
	roz_buf_addf(out, "    <%s>\n", tag);
	for (size_t i = 0; i < n; i++) {
		roz_buf_addf(out, "      <%s>", item);
		xml_add(out, list[i], false);
		roz_buf_addf(out, "</%s>\n", item);
	}
	roz_buf_addf(out, "    </%s>\n", tag);
}

void roz_intents_context_xml(const roz_intent *it, roz_buf *out)
{
	roz_buf_adds(out, "<intent_context>\n  <intent id=\"");
	xml_add(out, it->id, true);
	roz_buf_adds(out, "\" name=\"");
	xml_add(out, it->name, true);
	roz_buf_adds(out, "\" status=\"");
	roz_buf_adds(out, roz_intents_status_name(it->status));
	roz_buf_adds(out, "\">\n");
	xml_list(out, "owned_scope", "path", it->scope, it->nscope);
	xml_list(out, "constraints", "constraint", it->constraints, it->nconstraints);
	xml_list(out, "acceptance_criteria", "criterion", it->criteria, it->ncriteria);
	roz_buf_adds(out, "  </intent>\n</intent_context>\n");
}
