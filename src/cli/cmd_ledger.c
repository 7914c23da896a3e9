/*
 * cmd_ledger.c - `roz ledger verify`: does the repository's ledger
 * (.orchestration/agent_trace.jsonl) still describe its code? The engine
 * is roz/verify.h; this file finds the repository, reads the ledger and
 * the files it names, and says what was found, for people or as JSON.
 *
 * Files are read only inside the repository: a path the ledger holds that
 * is absolute or climbs out with ".." is reported as missing, with why,
 * never opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "roz/git_run.h"
#include "output.h"
#include "roz/file.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/orchestration.h"
#include "roz/verify.h"

/* The largest ledger and the largest source file read. */
#define LEDGER_MAX (1024u * 1024u * 1024u)
#define SOURCE_MAX (64u * 1024u * 1024u)

static void help(void)
{
	printf("usage: roz ledger verify [--json] [--since REV]\n\n"
	       "Check the ledger of the repository you are in (.orchestration/agent_trace.jsonl\n"
	       "at its root: the git top level, else the current directory) against the code\n"
	       "as it is now. Each range a record attributes is:\n\n"
	       "  intact      the same lines hash the same\n"
	       "  moved       the lines are at other lines of the file, or in another file the\n"
	       "              ledger names\n"
	       "  changed     the lines are nowhere\n"
	       "  missing     the file is gone (or cannot be read: the reason is given)\n"
	       "  superseded  a later record of the file covers some of its lines; the newer\n"
	       "              record speaks for them\n\n"
	       "One line is printed per moved, changed or missing range, then a summary;\n"
	       "superseded ranges are counted, not listed. Lines of the ledger that are not\n"
	       "records (a torn write, broken JSON) are reported and skipped.\n\n"
	       "Options:\n"
	       "      --json       one JSON document: summary, items (every range), bad_lines\n"
	       "      --since REV  check only the records from the first one made at git\n"
	       "                   revision REV onward: anything git resolves to a commit\n"
	       "                   (a branch, HEAD~2, an abbreviated hash), or the start of\n"
	       "                   the hash a record holds (at least 4 hex digits)\n"
	       "  -h, --help       show this help\n\n"
	       "Exit status: 0 nothing changed or missing, 1 something changed or missing, no\n"
	       "ledger, or REV not in it, 2 usage error.\n");
}

/* True when path stays inside the root: relative, and no ".." component. */
static bool inside(const char *path)
{
	const char *p = path;

	if (!*path || *path == '/')
		return false;
	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n + (end ? 1 : 0);
	}
	return true;
}

/* roz_verify_read_fn: <root>/<path>, a regular file, read whole. */
int cli_ledger_read_source(void *ud, const char *path, char **text, size_t *len)
{
	const char *root = ud;
	char *full;
	int rc;

	*text = NULL;
	*len = 0;
	/* the ledger is text anyone could have edited: a path leaving the repository is not read */
	if (!inside(path)) {
		roz_error_set("not read: %s", *path == '/' ? "an absolute path, outside the repository"
			      : *path ? "the path leaves the repository (\"..\")" : "an empty path");
		return ROZ_EINVALID;
	}
	if (!(full = roz_asprintf("%s/%s", strcmp(root, "/") ? root : "", path)))
		return ROZ_ENOMEM;
	rc = roz_file_read_path(full, 0, SOURCE_MAX, text, len);
	roz_free(full);
	return rc;
}

int cli_read_ledger(const char *root, char **text, size_t *len)
{
	char *path = roz_asprintf("%s/%s", strcmp(root, "/") ? root : "", ROZ_LEDGER_FILE);
	int rc;

	*text = NULL;
	*len = 0;
	if (!path)
		return ROZ_ENOMEM;
	rc = roz_file_read_path(path, 0, LEDGER_MAX, text, len);
	roz_free(path);
	return rc;
}

static void json_str_or_null(roz_buf *b, const char *s)
{
	if (s)
		roz_json_add_string(b, s);
	else
		roz_buf_adds(b, "null");
}

static bool passed(const roz_verify_report *r)
{
	return !r->counts[ROZ_VERIFY_CHANGED] && !r->counts[ROZ_VERIFY_MISSING];
}

static int emit_json(const roz_verify_report *r, const char *since)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_buf_addf(&b, "{\"summary\":{\"ranges\":%zu,\"records\":%zu", r->n, r->records);
	for (int s = ROZ_VERIFY_INTACT; s <= ROZ_VERIFY_SUPERSEDED; s++)
		roz_buf_addf(&b, ",\"%s\":%zu", roz_verify_state_name((roz_verify_state)s), r->counts[s]);
	roz_buf_addf(&b, ",\"bad_lines\":%zu,\"since\":", r->nbad);
	json_str_or_null(&b, since);
	roz_buf_addf(&b, ",\"passed\":%s},\"items\":[", passed(r) ? "true" : "false");
	for (size_t i = 0; i < r->n; i++) {
		const roz_verify_item *it = &r->items[i];

		roz_buf_addf(&b, "%s{\"state\":\"%s\",\"path\":", i ? "," : "", roz_verify_state_name(it->state));
		roz_json_add_string(&b, it->path);
		roz_buf_addf(&b, ",\"start_line\":%lu,\"end_line\":%lu,\"ledger_line\":%zu,\"record_id\":",
			     it->start_line, it->end_line, it->line);
		roz_json_add_string(&b, it->record_id);
		roz_buf_adds(&b, ",\"intent_id\":");
		json_str_or_null(&b, it->intent_id);
		roz_buf_adds(&b, ",\"session_id\":");
		json_str_or_null(&b, it->session_id);
		if (it->state == ROZ_VERIFY_MOVED) {
			roz_buf_adds(&b, ",\"moved_to\":{\"path\":");
			roz_json_add_string(&b, it->moved_path);
			roz_buf_addf(&b, ",\"start_line\":%lu,\"end_line\":%lu}", it->moved_start, it->moved_end);
		}
		if (it->why) {
			roz_buf_adds(&b, ",\"why\":");
			roz_json_add_string(&b, it->why);
		}
		roz_buf_addc(&b, '}');
	}
	roz_buf_adds(&b, "],\"bad_lines\":[");
	for (size_t i = 0; i < r->nbad; i++) {
		roz_buf_addf(&b, "%s{\"line\":%zu,\"why\":", i ? "," : "", r->bad[i].line);
		roz_json_add_string(&b, r->bad[i].why);
		roz_buf_addc(&b, '}');
	}
	roz_buf_adds(&b, "]}\n");
	return cli_emit(&b);
}

static void put_range(const char *path, unsigned long start, unsigned long end)
{
	cli_put_safe(stdout, path, false);
	if (start == end)
		printf(":%lu", start);
	else
		printf(":%lu-%lu", start, end);
}

/* The first 8 characters say which record, as a short git hash does. Caller frees. */
static char *short_id(const char *id)
{
	char *s = cli_safe(id, false);
	size_t n = 0;

	while (s && n < 8 && s[n] && !((unsigned char)s[n] & 0x80))
		n++;
	if (s && n == 8)
		s[n] = '\0';
	else if (s && s[n]) {
		roz_free(s);
		s = cli_cut(id, 9);
	}
	return s;
}

static void emit_human(const roz_verify_report *r, const char *since)
{
	for (size_t i = 0; i < r->n; i++) {
		const roz_verify_item *it = &r->items[i];
		bool bad = it->state == ROZ_VERIFY_CHANGED || it->state == ROZ_VERIFY_MISSING;
		char *id;

		if (it->state == ROZ_VERIFY_INTACT || it->state == ROZ_VERIFY_SUPERSEDED)
			continue;
		printf("%s%-8s%s  ", bad ? cli_red() : "", roz_verify_state_name(it->state), bad ? cli_reset() : "");
		put_range(it->path, it->start_line, it->end_line);
		if (it->state == ROZ_VERIFY_MOVED) {
			fputs(" -> ", stdout);
			put_range(it->moved_path, it->moved_start, it->moved_end);
		}
		id = short_id(it->record_id);
		printf("  %srecord %s, intent ", cli_dim(), id ? id : "?");
		roz_free(id);
		cli_put_safe(stdout, it->intent_id ? it->intent_id : "none", false);
		printf("%s", cli_reset());
		if (it->why) {
			fputs(" (", stdout);
			cli_put_safe(stdout, it->why, false);
			fputc(')', stdout);
		}
		fputc('\n', stdout);
	}
	for (size_t i = 0; i < r->nbad; i++) {
		printf("%snot a record%s  %s:%zu: ", cli_red(), cli_reset(), ROZ_LEDGER_FILE, r->bad[i].line);
		cli_put_safe(stdout, r->bad[i].why, false);
		fputc('\n', stdout);
	}
	if (since)
		printf("Since %s: ", since);
	printf("%s%zu range%s in %zu record%s%s: %s%zu intact%s, %zu moved, %s%zu changed%s, %s%zu missing%s, "
	       "%zu superseded; %zu line%s not records\n",
	       cli_bold(), r->n, r->n == 1 ? "" : "s", r->records, r->records == 1 ? "" : "s", cli_reset(),
	       r->counts[ROZ_VERIFY_INTACT] ? cli_green() : "", r->counts[ROZ_VERIFY_INTACT], cli_reset(),
	       r->counts[ROZ_VERIFY_MOVED], r->counts[ROZ_VERIFY_CHANGED] ? cli_red() : "",
	       r->counts[ROZ_VERIFY_CHANGED], cli_reset(), r->counts[ROZ_VERIFY_MISSING] ? cli_red() : "",
	       r->counts[ROZ_VERIFY_MISSING], cli_reset(), r->counts[ROZ_VERIFY_SUPERSEDED], r->nbad,
	       r->nbad == 1 ? "" : "s");
}

static int verify(bool json, const char *since)
{
	roz_orchestration o;
	roz_verify_report r;
	char cwd[4096], *ledger_path = NULL, *text = NULL, *full = NULL;
	size_t len = 0;
	int rc, status = ROZ_EXIT_FAILURE;

	memset(&o, 0, sizeof o);
	memset(&r, 0, sizeof r);
	if (!getcwd(cwd, sizeof cwd)) {
		cli_error("ledger verify: cannot tell the current directory");
		return ROZ_EXIT_FAILURE;
	}
	if (roz_orchestration_find(cwd, &o) < 0) {
		cli_error("ledger verify: %s", roz_error_last());
		goto out;
	}
	if (!(ledger_path = roz_asprintf("%s/%s", strcmp(o.root, "/") ? o.root : "", ROZ_LEDGER_FILE))) {
		cli_error("ledger verify: out of memory");
		goto out;
	}
	rc = cli_read_ledger(o.root, &text, &len);
	if (rc == ROZ_ENOTFOUND) {
		cli_error("no ledger at %s: nothing has been recorded", ledger_path);
		goto out;
	}
	if (rc != ROZ_OK) {
		cli_error("ledger verify: cannot read the ledger: %s", roz_error_last());
		goto out;
	}
	/* a revision git knows (a branch, HEAD~2, an abbreviation) is the full hash the records hold */
	if (since && since[0] != '-') {
		char *spec = roz_asprintf("%s^{commit}", since), *out = NULL;
		const char *args[] = {"rev-parse", "--verify", "--quiet", "--end-of-options", spec};
		size_t olen = 0;

		if (spec && roz_git_output(o.root, args, 5, NULL, 0, 4096, &out, &olen) == ROZ_OK) {
			while (olen && (out[olen - 1] == '\n' || out[olen - 1] == '\r'))
				out[--olen] = '\0';
			if (olen >= 40 && !(full = roz_strdup(out)))
				roz_error_set("out of memory");
		}
		roz_free(out);
		roz_free(spec);
	}
	if (roz_verify_run(text, len, full ? full : since, cli_ledger_read_source, o.root, &r) != ROZ_OK) {
		cli_error("ledger verify: %s", roz_error_last());
		goto out;
	}
	if (since && !r.since_found) {
		cli_error("ledger verify: no record in %s was made at revision %s (--since takes a revision "
			  "git knows, or the start of the hash a record's vcs.revision holds)",
			  ledger_path, since);
		goto out;
	}
	status = passed(&r) ? ROZ_EXIT_OK : ROZ_EXIT_FAILURE;
	if (json) {
		if (emit_json(&r, since) != ROZ_EXIT_OK)
			status = ROZ_EXIT_FAILURE;
	} else {
		emit_human(&r, since);
	}
	status = cli_finish_stdout(status);
out:
	roz_verify_report_dispose(&r);
	roz_free(full);
	roz_free(text);
	roz_free(ledger_path);
	roz_orchestration_dispose(&o);
	return status;
}

int cmd_ledger(int argc, char **argv)
{
	const char *since = NULL;
	bool json = false;

	if (cli_wants_help(argc, argv)) {
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	if (argc < 2)
		return cli_usage_error("ledger", "say what to do: verify");
	if (strcmp(argv[1], "accept") == 0)
		return cmd_ledger_accept(argc - 1, argv + 1);
	if (strcmp(argv[1], "blame") == 0)
		return cmd_ledger_blame(argc - 1, argv + 1);
	if (strcmp(argv[1], "compact") == 0)
		return cmd_ledger_compact(argc - 1, argv + 1);
	if (strcmp(argv[1], "verify") != 0)
		return cli_usage_error("ledger", "unknown action '%s' (verify, accept, blame, compact)", argv[1]);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--since") == 0) {
			if (i + 1 >= argc || !*argv[i + 1])
				return cli_usage_error("ledger", "--since needs a revision");
			since = argv[++i];
		} else if (strncmp(argv[i], "--since=", 8) == 0 && argv[i][8])
			since = argv[i] + 8;
		else
			return cli_usage_error("ledger", "unexpected argument '%s'", argv[i]);
	}
	return verify(json, since);
}
