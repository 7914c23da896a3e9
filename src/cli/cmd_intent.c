/*
 * cmd_intent.c - `roz intent list|show|select|map`: the intents of the
 * repository the command runs in (docs/governance.md).
 *
 * `select` is the handshake's second half. The agent runs it through its
 * Bash tool; roz's PreToolUse hook has already refused an unknown id, or
 * recorded the selection for the agent's session (the hook knows the
 * session; this command does not). What the command adds is the intent's
 * <intent_context> block, which the agent reads as the tool's result.
 *
 * `map` writes .orchestration/intent_map.md from the ledger, checked by
 * verify against the files as they are now. The folder is written only
 * through roz, and a reader must never see half a map: the map is written
 * to a temporary file beside it and renamed over the old one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "roz/file.h"
#include "roz/intent_map.h"
#include "roz/json.h"
#include "roz/lines.h"
#include "roz/orchestration.h"
#include "roz/verify.h"

static void help(void)
{
	printf("usage: roz intent list [--json]\n"
	       "       roz intent show <ID> [--json]\n"
	       "       roz intent select <ID> [--refactor]\n"
	       "       roz intent map [--stdout]\n"
	       "       roz intent violations\n"
	       "       roz intent accept <PATH>... | --all\n\n"
	       "The intents of the repository you are in, from\n"
	       ".orchestration/active_intents.yaml at its root (the git top level, else\n"
	       "the current directory).\n\n"
	       "  list     every intent: id, status, name and owned scope\n"
	       "  show     one intent whole: scope, constraints, acceptance criteria\n"
	       "  select   print the intent's <intent_context> block. Run by the agent: roz's\n"
	       "           hook records the selection for its session, and from then on\n"
	       "           changes must stay inside the intent's scope. --refactor marks the\n"
	       "           session's changes as refactoring (AST_REFACTOR) rather than new\n"
	       "           behaviour (INTENT_EVOLUTION).\n"
	       "  map      write .orchestration/intent_map.md: per intent, the files its\n"
	       "           recorded writes changed, the lines, when, and whether they still\n"
	       "           verify (roz ledger verify); --stdout prints it instead\n"
	       "  violations  the changes roz detected in this repository that the session's\n"
	       "           intent does not allow and that still stand (the agent cannot stop)\n"
	       "  accept   a person accepts such changes (paths, directories, or --all): the\n"
	       "           sessions stop holding them. Refused when the agent runs it\n\n"
	       "Options:\n"
	       "      --json    one JSON document, for scripts\n"
	       "      --stdout  map: print the map rather than write the file\n"
	       "  -h, --help    show this help\n\n"
	       "Exit status: 0 done, 1 no intents file, a broken one, an unknown intent or one\n"
	       "that is not IN_PROGRESS (select), 2 usage error.\n");
}

/* Find and read the repository's intents; errors are reported here. */
static int load(roz_orchestration *o)
{
	char cwd[4096];
	int rc;

	if (!getcwd(cwd, sizeof cwd)) {
		cli_error("intent: cannot tell the current directory");
		return ROZ_EXIT_FAILURE;
	}
	if ((rc = roz_orchestration_find(cwd, o)) < 0 ||
	    (rc = roz_orchestration_load(o, ROZ_ORCH_INTENTS)) < 0) {
		cli_error("intent: %s", roz_error_last());
		return ROZ_EXIT_FAILURE;
	}
	if (!o->governed) {
		cli_error("intent: %s has no %s; governance is off here (docs/governance.md shows how "
			  "to declare intents)",
			  o->root, ROZ_ORCH_INTENTS_FILE);
		return ROZ_EXIT_FAILURE;
	}
	if (!o->intents_ok) {
		cli_error("intent: %s/%s", o->root,
			  o->intents_problem ? o->intents_problem : ROZ_ORCH_INTENTS_FILE);
		return ROZ_EXIT_FAILURE;
	}
	return ROZ_EXIT_OK;
}

static void json_intent(roz_buf *b, const roz_intent *it)
{
	roz_buf_adds(b, "{\"id\":");
	roz_json_add_string(b, it->id);
	roz_buf_adds(b, ",\"name\":");
	roz_json_add_string(b, it->name);
	roz_buf_adds(b, ",\"status\":");
	roz_json_add_string(b, roz_intents_status_name(it->status));
	roz_buf_adds(b, ",\"owned_scope\":");
	roz_json_add_string_array(b, it->scope, it->nscope);
	roz_buf_adds(b, ",\"constraints\":");
	roz_json_add_string_array(b, it->constraints, it->nconstraints);
	roz_buf_adds(b, ",\"acceptance_criteria\":");
	roz_json_add_string_array(b, it->criteria, it->ncriteria);
	roz_buf_adds(b, ",\"created_at\":");
	if (it->created_at)
		roz_json_add_string(b, it->created_at);
	else
		roz_buf_adds(b, "null");
	roz_buf_adds(b, ",\"updated_at\":");
	if (it->updated_at)
		roz_json_add_string(b, it->updated_at);
	else
		roz_buf_adds(b, "null");
	roz_buf_addc(b, '}');
}

static int print_buf(roz_buf *b)
{
	int rc = ROZ_EXIT_OK;

	if (roz_buf_failed(b)) {
		cli_error("intent: out of memory");
		rc = ROZ_EXIT_FAILURE;
	} else if (fwrite(b->ptr, 1, b->len, stdout) != b->len || fflush(stdout) != 0) {
		cli_error("intent: cannot write the output");
		rc = ROZ_EXIT_FAILURE;
	}
	roz_buf_dispose(b);
	return rc;
}

static int list(const roz_orchestration *o, bool json)
{
	roz_buf b = ROZ_BUF_INIT;

	if (json) {
		roz_buf_adds(&b, "{\"root\":");
		roz_json_add_string(&b, o->root);
		roz_buf_adds(&b, ",\"intents\":[");
		for (size_t i = 0; i < o->intents.n; i++) {
			if (i)
				roz_buf_addc(&b, ',');
			json_intent(&b, &o->intents.items[i]);
		}
		roz_buf_adds(&b, "]}\n");
		return print_buf(&b);
	}
	if (!o->intents.n) {
		printf("No intents declared in %s/%s.\n", o->root, ROZ_ORCH_INTENTS_FILE);
		return ROZ_EXIT_OK;
	}
	for (size_t i = 0; i < o->intents.n; i++) {
		const roz_intent *it = &o->intents.items[i];

		printf("%s%s%s  %-11s  ", cli_bold(), it->id, cli_reset(), roz_intents_status_name(it->status));
		cli_put_safe(stdout, it->name, false);
		fputc('\n', stdout);
		for (size_t j = 0; j < it->nscope; j++) {
			fputs("    ", stdout);
			cli_put_safe(stdout, it->scope[j], false);
			fputc('\n', stdout);
		}
	}
	return fflush(stdout) == 0 ? ROZ_EXIT_OK : ROZ_EXIT_FAILURE;
}

static void put_items(const char *title, char *const *items, size_t n)
{
	printf("%s:\n", title);
	if (!n)
		printf("  (none)\n");
	for (size_t i = 0; i < n; i++) {
		fputs("  - ", stdout);
		cli_put_safe(stdout, items[i], false);
		fputc('\n', stdout);
	}
}

static int show(const roz_intent *it, bool json)
{
	roz_buf b = ROZ_BUF_INIT;

	if (json) {
		json_intent(&b, it);
		roz_buf_addc(&b, '\n');
		return print_buf(&b);
	}
	printf("%s%s%s  ", cli_bold(), it->id, cli_reset());
	cli_put_safe(stdout, it->name, false);
	printf("\nStatus: %s\n", roz_intents_status_name(it->status));
	put_items("Owned scope", it->scope, it->nscope);
	put_items("Constraints", it->constraints, it->nconstraints);
	put_items("Acceptance criteria", it->criteria, it->ncriteria);
	if (it->created_at || it->updated_at) {
		printf("Created: %s  Updated: %s\n", it->created_at ? it->created_at : "-",
		       it->updated_at ? it->updated_at : "-");
	}
	return fflush(stdout) == 0 ? ROZ_EXIT_OK : ROZ_EXIT_FAILURE;
}

/* The IN_PROGRESS intents, for a message. */
static void choices(const roz_intents *ints)
{
	size_t n = 0;

	fprintf(stderr, "roz: IN_PROGRESS intents:");
	for (size_t i = 0; i < ints->n; i++)
		if (ints->items[i].status == ROZ_INTENT_IN_PROGRESS) {
			fprintf(stderr, "%s ", n++ ? "," : "");
			cli_put_safe(stderr, ints->items[i].id, false);
		}
	fprintf(stderr, "%s\n", n ? "" : " none (a person must set one IN_PROGRESS)");
}

/* ---- roz intent map ---------------------------------------------------- */

/* Replace `path` with `len` bytes of `text` in one rename, so no reader sees half of it. */
static int write_atomic(const char *dir, const char *path, const char *text, size_t len)
{
	char *tmp = roz_asprintf("%s/.intent_map.md.XXXXXX", dir);
	size_t done = 0;
	int fd, rc = ROZ_EIO;

	if (!tmp)
		return ROZ_ENOMEM;
	if ((fd = mkstemp(tmp)) < 0) {
		roz_error_set_errno(errno, "cannot create a file in %s", dir);
		roz_free(tmp);
		return ROZ_EIO;
	}
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			roz_error_set_errno(errno, "cannot write %s", tmp);
			goto out;
		}
		done += (size_t)n;
	}
	if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
		roz_error_set_errno(errno, "cannot write %s", tmp);
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		roz_error_set_errno(errno, "cannot write %s", tmp);
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		roz_error_set_errno(errno, "cannot replace %s", path);
		goto out;
	}
	rc = ROZ_OK;
out:
	if (fd >= 0)
		close(fd);
	if (rc != ROZ_OK)
		unlink(tmp);
	roz_free(tmp);
	return rc;
}

/* roz_verify_record_fn: each record of the ledger into the map as it goes by. */
static int map_record(void *ud, const roz_ledger_rec *rec, size_t line)
{
	(void)line;
	return roz_intent_map_add_record(ud, rec);
}

/* roz_verify_item_fn: what verify found, counted in the map. */
static int map_item(void *ud, const roz_verify_item *it)
{
	return roz_intent_map_add_item(ud, it->intent_id, it->path, it->state);
}

static int ledger_at(void *ud, uint64_t offset, size_t len, const char **line)
{
	return roz_lines_at(ud, offset, len, line);
}

/*
 * The map of the ledger at `root`, checked by verify, into `b`: the ledger
 * streams through one verify run a line at a time, and the map keeps only
 * its rows. *records and *bad say how many records and other lines it held.
 */
static int map_build(const roz_orchestration *o, roz_buf *b, size_t *records, size_t *bad)
{
	char *path = roz_asprintf("%s/%s", strcmp(o->root, "/") ? o->root : "", ROZ_LEDGER_FILE);
	roz_intent_map *m = NULL;
	roz_verify *v = NULL;
	roz_lines *l = NULL;
	roz_verify_report report;
	roz_verify_opts vo;
	int rc;

	memset(&report, 0, sizeof(report));
	memset(&vo, 0, sizeof(vo));
	*records = *bad = 0;
	if (!path || (rc = roz_intent_map_new(&m)) != ROZ_OK) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	rc = roz_lines_open(path, ROZ_LEDGER_MAX_LINE, &l);
	if (rc == ROZ_ENOTFOUND) {
		/* nothing recorded yet: every intent, no rows */
		rc = roz_intent_map_write(m, &o->intents, 0, 0, true, b);
		goto out;
	}
	if (rc != ROZ_OK)
		goto out;
	vo.read = cli_ledger_read_source;
	vo.read_ud = o->root;
	vo.at = ledger_at;
	vo.at_ud = l;
	vo.on_record = map_record;
	vo.record_ud = m;
	if ((rc = roz_verify_begin(&vo, &v)) != ROZ_OK)
		goto out;
	for (;;) {
		const char *line;
		size_t len;
		uint64_t off;
		bool ended;

		if ((rc = roz_lines_next(l, &line, &len, &off, &ended)) == ROZ_ENOTFOUND)
			break;
		if (rc != ROZ_OK || (rc = roz_verify_feed(v, line, len, off, ended)) != ROZ_OK)
			goto out;
	}
	if ((rc = roz_verify_settle(v, &report)) != ROZ_OK ||
	    (rc = roz_verify_each(v, ROZ_VERIFY_EACH_ALL, map_item, m)) != ROZ_OK)
		goto out;
	*records = report.records;
	*bad = report.nbad;
	rc = roz_intent_map_write(m, &o->intents, report.records, report.nbad, true, b);
out:
	roz_verify_report_dispose(&report);
	roz_verify_free(v);
	roz_lines_close(l);
	roz_intent_map_free(m);
	roz_free(path);
	return rc;
}

static int map(const roz_orchestration *o, bool to_stdout)
{
	roz_buf b = ROZ_BUF_INIT;
	char *dir = NULL, *path = NULL;
	size_t records, bad;
	int rc = ROZ_EXIT_FAILURE;

	if (map_build(o, &b, &records, &bad) != ROZ_OK) {
		cli_error("intent: %s", *roz_error_last() ? roz_error_last() : "out of memory");
		goto out;
	}
	if (to_stdout) {
		rc = print_buf(&b);
		goto out;
	}
	dir = roz_asprintf("%s/%s", o->root, ROZ_ORCH_DIR);
	path = roz_asprintf("%s/%s", o->root, ROZ_INTENT_MAP_FILE);
	if (!dir || !path) {
		cli_error("intent: out of memory");
		goto out;
	}
	if (write_atomic(dir, path, b.ptr, b.len) < 0) {
		cli_error("intent: %s", roz_error_last());
		goto out;
	}
	printf("Wrote %s: %zu intent%s, %zu record%s", path, o->intents.n, o->intents.n == 1 ? "" : "s",
	       records, records == 1 ? "" : "s");
	if (bad)
		printf(", %zu unreadable line%s skipped", bad, bad == 1 ? "" : "s");
	printf(".\n");
	rc = ROZ_EXIT_OK;
out:
	roz_buf_dispose(&b);
	roz_free(dir);
	roz_free(path);
	return rc;
}

int cmd_intent(int argc, char **argv)
{
	roz_orchestration o;
	const char *verb, *id = NULL;
	bool json = false, refactor = false, to_stdout = false;
	const roz_intent *it;
	int rc;

	if (argc < 2 || cli_wants_help(argc, argv)) {
		if (argc < 2)
			return cli_usage_error("intent", "say what to do: list, show <ID>, select <ID>, map, violations or accept");
		help();
		return ROZ_EXIT_OK;
	}
	verb = argv[1];
	if (strcmp(verb, "violations") == 0 || strcmp(verb, "accept") == 0)
		return cmd_intent_violations(argc - 2, argv + 2, strcmp(verb, "accept") == 0);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0 && strcmp(verb, "select") != 0 && strcmp(verb, "map") != 0)
			json = true;
		else if (strcmp(argv[i], "--stdout") == 0 && strcmp(verb, "map") == 0)
			to_stdout = true;
		else if (strcmp(argv[i], "--refactor") == 0 && strcmp(verb, "select") == 0)
			refactor = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			help();
			return ROZ_EXIT_OK;
		} else if (argv[i][0] == '-' || id || strcmp(verb, "list") == 0 || strcmp(verb, "map") == 0)
			return cli_usage_error("intent", "unexpected argument '%s'", argv[i]);
		else
			id = argv[i];
	}
	(void)refactor; /* recorded by the hook, which reads the same command line */
	if (strcmp(verb, "list") != 0 && strcmp(verb, "show") != 0 && strcmp(verb, "select") != 0 &&
	    strcmp(verb, "map") != 0)
		return cli_usage_error("intent", "unknown action '%s' (list, show, select or map)", verb);
	if (strcmp(verb, "list") != 0 && strcmp(verb, "map") != 0 && !id)
		return cli_usage_error("intent", "%s needs an intent id", verb);
	if ((rc = load(&o)) != ROZ_EXIT_OK) {
		roz_orchestration_dispose(&o);
		return rc;
	}
	if (strcmp(verb, "list") == 0) {
		rc = list(&o, json);
		goto out;
	}
	if (strcmp(verb, "map") == 0) {
		rc = map(&o, to_stdout);
		goto out;
	}
	if (!(it = roz_intents_find(&o.intents, id))) {
		cli_error("intent: there is no intent '%s' in %s", id, ROZ_ORCH_INTENTS_FILE);
		choices(&o.intents);
		rc = ROZ_EXIT_FAILURE;
		goto out;
	}
	if (strcmp(verb, "show") == 0) {
		rc = show(it, json);
		goto out;
	}
	if (it->status != ROZ_INTENT_IN_PROGRESS) {
		cli_error("intent: %s is %s; only an IN_PROGRESS intent can be selected", it->id,
			  roz_intents_status_name(it->status));
		choices(&o.intents);
		rc = ROZ_EXIT_FAILURE;
		goto out;
	}
	{
		roz_buf b = ROZ_BUF_INIT;

		roz_intents_context_xml(it, &b);
		rc = print_buf(&b);
	}
out:
	roz_orchestration_dispose(&o);
	return rc;
}
