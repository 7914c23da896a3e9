/*
 * cmd_ledger_blame.c - `roz ledger blame FILE [--json]`: for each line of
 * a file as it is now, the ledger record that wrote it (roz/blame.h), or
 * that no record covers it. What a reviewer or a teammate asks of a line
 * the agent may have written.
 *
 * The ledger is streamed (roz/lines.h) and only the lines that could name
 * the file are parsed: those holding its name as JSON writes it (a line
 * holding an escape is parsed too, since another writer may spell the
 * name with one). A record renaming another path into the file brings the
 * old path's records in: the ledger is read again for them, once per
 * round of names found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "output.h"
#include "roz/blame.h"
#include "roz/compact.h"
#include "roz/file.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/lines.h"
#include "roz/orchestration.h"
#include "roz/path.h"
#include "roz/scope.h"

/* The largest file blamed, as verify reads one; rounds of renames followed back. */
#define BLAME_FILE_MAX (64u * 1024u * 1024u)
#define BLAME_MAX_ROUNDS 32

static void help(void)
{
	printf("usage: roz ledger blame FILE [--json]\n\n"
	       "For each line of FILE as it is now, the ledger record that wrote it: the\n"
	       "record's id (first 8 characters), intent, date, the Claude Code tool, the\n"
	       "model, then the line. Records are taken in the order of their own time; a\n"
	       "later record wins a line. A line is marked when its record's range:\n\n"
	       "  moved from A-B  was found at other lines of the file (it was written at A-B)\n"
	       "  edited since    no longer hashes the same: the line was changed since\n"
	       "  accepted by P   a person accepted it (roz ledger accept)\n"
	       "  unverifiable    holds no SHA-256 to check it by\n\n"
	       "A line no record covers shows '-------- (not recorded)'. Renames the ledger\n"
	       "records are followed back to the file's earlier names.\n\n"
	       "FILE is relative to the current directory, or absolute, and must lie inside\n"
	       "the repository you are in.\n\n"
	       "Options:\n"
	       "      --json   one JSON document: {\"path\", \"lines\": [{\"line\", \"state\",\n"
	       "               \"record_id\", \"intent_id\", \"session_id\", \"model_id\",\n"
	       "               \"timestamp\", \"tool_name\", ...}]}\n"
	       "  -h, --help   show this help\n\n"
	       "Exit status: 0 shown, 1 FILE cannot be read or there is no ledger, 2 usage\n"
	       "error or FILE outside the repository.\n");
}

/* One record gathered, with what the report shows that roz_ledger_rec does not hold. */
typedef struct meta {
	size_t line;
	roz_time t;
	char *accepted_by;
} meta;

typedef struct gathered {
	roz_ledger_rec *recs;
	meta *meta;
	size_t n, cap, capm;
	roz_ledger_order order;
} gathered;

static void gathered_dispose(gathered *g)
{
	for (size_t i = 0; i < g->n; i++) {
		roz_ledger_rec_dispose(&g->recs[i]);
		roz_free(g->meta[i].accepted_by);
	}
	roz_free(g->recs);
	roz_free(g->meta);
	memset(g, 0, sizeof *g);
}

static bool names_one(const roz_ledger_rec *r, char *const *names, size_t nnames)
{
	for (size_t i = 0; i < r->nfiles; i++)
		for (size_t j = 0; j < nnames; j++)
			if ((r->files[i].path && strcmp(r->files[i].path, names[j]) == 0) ||
			    (r->files[i].from && strcmp(r->files[i].from, names[j]) == 0))
				return true;
	return false;
}

/* metadata.roz.accepted_by of an acceptance (the reader does not keep it). */
static char *accepted_by(const char *line, size_t len)
{
	cJSON *doc = NULL;
	const cJSON *v;
	char *out = NULL;

	if (roz_json_parse(line, len, &doc) != ROZ_OK)
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "roz"),
		"accepted_by");
	if (cJSON_IsString(v) && v->valuestring)
		out = roz_strdup(v->valuestring);
	cJSON_Delete(doc);
	return out;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* Could the line name one of the names? keys are the names as JSON strings, without their quotes. */
static bool may_name(const char *s, size_t n, const roz_buf *keys, size_t nkeys)
{
	if (memchr(s, '\\', n))
		return true;
	for (size_t i = 0; i < nkeys; i++)
		if (memmem(s, n, keys[i].ptr + 1, keys[i].len - 2))
			return true;
	return false;
}

/* Read the ledger once, keeping the records that name one of `names`. ROZ_OK or an error (reported). */
static int gather(const char *ledger, char *const *names, size_t nnames, gathered *g)
{
	roz_buf *keys = roz_calloc(nnames, sizeof *keys);
	roz_lines *l = NULL;
	const char *s;
	size_t n, line = 0;
	uint64_t off;
	bool ended;
	int rc;

	if (!keys)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < nnames; i++)
		roz_json_add_string(&keys[i], names[i]);
	for (size_t i = 0; i < nnames; i++)
		if ((rc = roz_buf_failed(&keys[i])) != ROZ_OK)
			goto out;
	if ((rc = roz_lines_open(ledger, ROZ_LEDGER_MAX_LINE, &l)) != ROZ_OK)
		goto out;
	memset(&g->order, 0, sizeof g->order);
	while ((rc = roz_lines_next(l, &s, &n, &off, &ended)) == ROZ_OK) {
		roz_ledger_rec rec;
		roz_time t = {0, 0};
		bool timed;
		int prc;

		line++;
		if (!s || blank(s, n))
			continue;
		/*
		 * Whether every record has a time of its own decides the order (as
		 * verify reads it): a line that shows one is taken at its word, one
		 * that does not is parsed to see if it is a record at all.
		 */
		timed = roz_ledger_line_time(s, n, &t);
		if (timed && !may_name(s, n, keys, nnames))
			continue;
		prc = roz_ledger_line_parse(s, n, &rec);
		if (prc == ROZ_ENOMEM) {
			rc = prc;
			break;
		}
		if (prc != ROZ_OK)
			continue;
		roz_ledger_order_see(&g->order, rec.has_timestamp, rec.timestamp);
		if (!names_one(&rec, names, nnames)) {
			roz_ledger_rec_dispose(&rec);
			continue;
		}
		t = rec.timestamp;
		if (roz_alloc_array_reserve((void **)&g->recs, &g->cap, sizeof *g->recs, g->n + 1) != ROZ_OK ||
		    roz_alloc_array_reserve((void **)&g->meta, &g->capm, sizeof *g->meta, g->n + 1) != ROZ_OK) {
			roz_ledger_rec_dispose(&rec);
			rc = ROZ_ENOMEM;
			break;
		}
		g->recs[g->n] = rec;
		g->meta[g->n] = (meta){line, t, rec.accept ? accepted_by(s, n) : NULL};
		g->n++;
	}
	if (rc == ROZ_ENOTFOUND)
		rc = ROZ_OK;
out:
	roz_lines_close(l);
	for (size_t i = 0; i < nnames; i++)
		roz_buf_dispose(&keys[i]);
	roz_free(keys);
	return rc;
}

typedef struct okey {
	roz_time t;
	size_t line, i;
} okey;

static int by_time(const void *x, const void *y)
{
	const okey *a = x, *b = y;
	int c = roz_time_cmp(a->t, b->t);

	return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

/* The records in the readers' order: by their own time, ties (and a record without time: all) as they lie. */
static int in_order(gathered *g)
{
	okey *k;
	roz_ledger_rec *recs;
	meta *m;

	/* with every record timed, sorting is right whether or not they were in order already */
	if (g->order.untimed || g->n < 2)
		return ROZ_OK;
	k = roz_calloc(g->n, sizeof *k);
	recs = roz_calloc(g->n, sizeof *recs);
	m = roz_calloc(g->n, sizeof *m);
	if (!k || !recs || !m) {
		roz_free(k);
		roz_free(recs);
		roz_free(m);
		return ROZ_ENOMEM;
	}
	for (size_t i = 0; i < g->n; i++)
		k[i] = (okey){g->meta[i].t, g->meta[i].line, i};
	qsort(k, g->n, sizeof *k, by_time);
	for (size_t i = 0; i < g->n; i++) {
		recs[i] = g->recs[k[i].i];
		m[i] = g->meta[k[i].i];
	}
	roz_free(g->recs);
	roz_free(g->meta);
	roz_free(k);
	g->recs = recs;
	g->meta = m;
	g->cap = g->capm = g->n;
	return ROZ_OK;
}

/* Gather the records of `rel` and of every name it had before, in order. */
static int gather_all(const char *ledger, const char *rel, gathered *g)
{
	char **names = roz_calloc(1, sizeof *names);
	size_t nnames = 1;
	int rc = ROZ_ENOMEM;

	if (!names || !(names[0] = roz_strdup(rel)))
		goto out;
	for (int round = 0; round < BLAME_MAX_ROUNDS; round++) {
		char **found = NULL;
		size_t nfound = 0, fresh = 0;

		gathered_dispose(g);
		if ((rc = gather(ledger, names, nnames, g)) != ROZ_OK)
			goto out;
		if ((rc = roz_blame_names(rel, g->recs, g->n, &found, &nfound)) != ROZ_OK ||
		    (rc = roz_blame_names_merge(&names, &nnames, found, nfound, &fresh)) != ROZ_OK)
			goto out;
		/* a name not met before: the ledger is read again for its records */
		if (!fresh)
			break;
	}
	rc = in_order(g);
out:
	for (size_t i = 0; names && i < nnames; i++)
		roz_free(names[i]);
	roz_free(names);
	return rc;
}

/* ---- output ---------------------------------------------------------------- */

static void json_str_or_null(roz_buf *b, const char *s)
{
	if (s)
		roz_json_add_string(b, s);
	else
		roz_buf_adds(b, "null");
}

static int emit_json(const char *rel, const gathered *g, const roz_blame_line *lines, unsigned long n)
{
	roz_buf b = ROZ_BUF_INIT;
	char ts[ROZ_TIME_BUFSZ];

	roz_buf_adds(&b, "{\"path\":");
	roz_json_add_string(&b, rel);
	roz_buf_adds(&b, ",\"lines\":[");
	for (unsigned long i = 0; i < n; i++) {
		const roz_blame_line *l = &lines[i];
		const roz_ledger_rec *r = l->rec != ROZ_BLAME_NO_RECORD ? &g->recs[l->rec] : NULL;

		roz_buf_addf(&b, "%s{\"line\":%lu,\"state\":\"%s\"", i ? "," : "", i + 1,
			     roz_blame_state_name((roz_blame_state)l->state));
		if (!r) {
			roz_buf_adds(&b, ",\"record_id\":null}");
			continue;
		}
		roz_buf_adds(&b, ",\"record_id\":");
		json_str_or_null(&b, r->id);
		roz_buf_adds(&b, ",\"intent_id\":");
		json_str_or_null(&b, r->intent_id);
		roz_buf_adds(&b, ",\"session_id\":");
		json_str_or_null(&b, r->session_id);
		roz_buf_adds(&b, ",\"model_id\":");
		json_str_or_null(&b, r->model_id);
		roz_buf_adds(&b, ",\"timestamp\":");
		json_str_or_null(&b, r->has_timestamp ? roz_time_format(r->timestamp, ts) : NULL);
		roz_buf_adds(&b, ",\"tool_name\":");
		json_str_or_null(&b, r->tool_name);
		roz_buf_addf(&b, ",\"range\":{\"start_line\":%lu,\"end_line\":%lu}", l->start, l->end);
		if (l->state == ROZ_BLAME_ACCEPTED) {
			roz_buf_adds(&b, ",\"accepted_by\":");
			json_str_or_null(&b, g->meta[l->rec].accepted_by);
		}
		roz_buf_addc(&b, '}');
	}
	roz_buf_adds(&b, "]}\n");
	return cli_emit(&b);
}

/* A column's text for a line: the field, safe for the terminal, or "-". Caller frees. */
static char *field(const char *s)
{
	return cli_safe(s && *s ? s : "-", false);
}

/* The first 8 characters of an id, as a short git hash shows a commit. Caller frees. */
static char *short_id(const char *id)
{
	char *s = cli_safe(id && *id ? id : "?", false);

	if (s && strlen(s) > 8 && !((unsigned char)s[7] & 0x80))
		s[8] = '\0';
	else if (s && strlen(s) > 8) {
		roz_free(s);
		s = cli_cut(id, 8);
	}
	return s;
}

/* One record's columns, made once. */
typedef struct cols {
	char *id, *intent, *date, *tool, *model, *by;
} cols;

static void cols_dispose(cols *c)
{
	roz_free(c->id);
	roz_free(c->intent);
	roz_free(c->date);
	roz_free(c->tool);
	roz_free(c->model);
	roz_free(c->by);
}

static int emit_human(const gathered *g, const roz_blame_line *lines, unsigned long n, const char *text,
		      size_t len)
{
	cols *c = g->n ? roz_calloc(g->n, sizeof *c) : NULL;
	size_t wi = 1, wt = 1, wm = 1, wl = 1, pos = 0;
	roz_buf line = ROZ_BUF_INIT;

	if (g->n && !c)
		return ROZ_ENOMEM;
	for (unsigned long k = n; k >= 10; k /= 10)
		wl++;
	for (size_t i = 0; i < g->n; i++) {
		const roz_ledger_rec *r = &g->recs[i];
		char date[64] = "----------";

		if (r->has_timestamp) {
			cli_local_date(r->timestamp, date, sizeof date);
			date[10] = '\0';
		}
		c[i].id = short_id(r->id);
		c[i].intent = field(r->intent_id);
		c[i].date = roz_strdup(date);
		c[i].tool = field(r->tool_name ? r->tool_name : r->tool);
		c[i].model = field(r->model_id);
		c[i].by = g->meta[i].accepted_by ? cli_safe(g->meta[i].accepted_by, false) : NULL;
		if (!c[i].id || !c[i].intent || !c[i].date || !c[i].tool || !c[i].model ||
		    (g->meta[i].accepted_by && !c[i].by)) {
			for (size_t j = 0; j <= i; j++)
				cols_dispose(&c[j]);
			roz_free(c);
			return ROZ_ENOMEM;
		}
	}
	/* columns as wide as the records that show in them */
	for (unsigned long i = 0; i < n; i++) {
		if (lines[i].rec == ROZ_BLAME_NO_RECORD)
			continue;
		const cols *k = &c[lines[i].rec];

		if (cli_width(k->intent) > wi)
			wi = cli_width(k->intent);
		if (cli_width(k->tool) > wt)
			wt = cli_width(k->tool);
		if (cli_width(k->model) > wm)
			wm = cli_width(k->model);
	}
	for (unsigned long i = 0; i < n; i++) {
		const roz_blame_line *l = &lines[i];
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ln = nl ? (size_t)(nl - (text + pos)) : len - pos;

		if (l->rec == ROZ_BLAME_NO_RECORD) {
			printf("%s-------- (not recorded)%s", cli_dim(), cli_reset());
		} else {
			const cols *k = &c[l->rec];

			printf("%s ", k->id);
			cli_pad(stdout, k->intent, wi);
			printf(" %s ", k->date);
			cli_pad(stdout, k->tool, wt);
			fputc(' ', stdout);
			cli_pad(stdout, k->model, wm);
			switch (l->state) {
			case ROZ_BLAME_MOVED:
				printf(" %s(moved from %lu-%lu)%s", cli_dim(), l->start, l->end, cli_reset());
				break;
			case ROZ_BLAME_EDITED:
				printf(" %s(edited since)%s", cli_red(), cli_reset());
				break;
			case ROZ_BLAME_ACCEPTED:
				printf(" (accepted by %s)", k->by ? k->by : "a person");
				break;
			case ROZ_BLAME_UNVERIFIABLE:
				printf(" (unverifiable)");
				break;
			default:
				break;
			}
		}
		printf(" %*lu) ", (int)wl, i + 1);
		roz_buf_reset(&line);
		/* a CRLF line ending is how the file ends its lines, not text to show */
		roz_buf_add(&line, text + pos, ln && text[pos + ln - 1] == '\r' ? ln - 1 : ln);
		roz_buf_addc(&line, '\0');
		if (!roz_buf_failed(&line))
			cli_put_safe(stdout, line.ptr, true); /* a line holds no newline; its tabs are kept */
		fputc('\n', stdout);
		pos += ln + (nl ? 1 : 0);
	}
	roz_buf_dispose(&line);
	for (size_t i = 0; i < g->n; i++)
		cols_dispose(&c[i]);
	roz_free(c);
	return ROZ_OK;
}

/* ---- the command ------------------------------------------------------------- */

static int blame(const char *file, bool json)
{
	roz_orchestration o;
	gathered g;
	roz_blame_line *lines = NULL;
	unsigned long nlines = 0;
	char cwd[4096], *abs = NULL, *rel = NULL, *full = NULL, *ledger = NULL, *text = NULL;
	size_t len = 0;
	int rc, status = ROZ_EXIT_FAILURE;

	memset(&o, 0, sizeof o);
	memset(&g, 0, sizeof g);
	if (!getcwd(cwd, sizeof cwd)) {
		cli_error("ledger blame: cannot tell the current directory");
		return ROZ_EXIT_FAILURE;
	}
	if (roz_orchestration_find(cwd, &o) < 0) {
		cli_error("ledger blame: %s", roz_error_last());
		goto out;
	}
	if (roz_path_normalize(cwd, NULL, file, &abs) < 0 ||
	    roz_scope_relpath(o.root, abs, o.fold_case, &rel) < 0 || !rel || !*rel) {
		status = cli_usage_error("ledger", "'%s' is not a file inside the repository %s", file, o.root);
		goto out;
	}
	full = roz_asprintf("%s/%s", strcmp(o.root, "/") ? o.root : "", rel);
	ledger = roz_asprintf("%s/%s", strcmp(o.root, "/") ? o.root : "", ROZ_LEDGER_FILE);
	if (!full || !ledger) {
		cli_error("ledger blame: out of memory");
		goto out;
	}
	if ((rc = roz_file_read_path(full, 0, BLAME_FILE_MAX, &text, &len)) != ROZ_OK) {
		cli_error("ledger blame: cannot read %s: %s", full,
			  rc == ROZ_ENOTFOUND ? "no such file" : roz_error_last());
		goto out;
	}
	rc = gather_all(ledger, rel, &g);
	if (rc == ROZ_ENOTFOUND) {
		cli_error("no ledger at %s: nothing has been recorded", ledger);
		goto out;
	}
	if (rc != ROZ_OK) {
		cli_error("ledger blame: cannot read the ledger: %s", roz_error_last());
		goto out;
	}
	if (roz_blame_run(rel, g.recs, g.n, text, len, &lines, &nlines) != ROZ_OK) {
		cli_error("ledger blame: %s", roz_error_last());
		goto out;
	}
	if (json)
		status = emit_json(rel, &g, lines, nlines);
	else if (emit_human(&g, lines, nlines, text, len) != ROZ_OK)
		cli_error("ledger blame: out of memory");
	else
		status = ROZ_EXIT_OK;
	status = cli_finish_stdout(status);
out:
	roz_free(lines);
	gathered_dispose(&g);
	roz_free(text);
	roz_free(ledger);
	roz_free(full);
	roz_free(rel);
	roz_free(abs);
	roz_orchestration_dispose(&o);
	return status;
}

int cmd_ledger_blame(int argc, char **argv)
{
	const char *file = NULL;
	bool json = false;

	if (cli_wants_help(argc, argv)) {
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !file)
			file = argv[++i];
		else if (argv[i][0] == '-' || file)
			return cli_usage_error("ledger", "blame: unexpected argument '%s'", argv[i]);
		else
			file = argv[i];
	}
	if (!file || !*file)
		return cli_usage_error("ledger", "blame needs a file");
	return blame(file, json);
}
