/*
 * cmd_intent.c - `roz intent list|show|select`: the intents of the
 * repository the command runs in (docs/governance.md).
 *
 * `select` is the handshake's second half. The agent runs it through its
 * Bash tool; roz's PreToolUse hook has already refused an unknown id, or
 * recorded the selection for the agent's session (the hook knows the
 * session; this command does not). What the command adds is the intent's
 * <intent_context> block, which the agent reads as the tool's result.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "roz/json.h"
#include "roz/orchestration.h"

static void help(void)
{
	printf("usage: roz intent list [--json]\n"
	       "       roz intent show <ID> [--json]\n"
	       "       roz intent select <ID> [--refactor]\n\n"
	       "The intents of the repository you are in, from\n"
	       ".orchestration/active_intents.yaml at its root (the git top level, else\n"
	       "the current directory).\n\n"
	       "  list     every intent: id, status, name and owned scope\n"
	       "  show     one intent whole: scope, constraints, acceptance criteria\n"
	       "  select   print the intent's <intent_context> block. Run by the agent: roz's\n"
	       "           hook records the selection for its session, and from then on\n"
	       "           changes must stay inside the intent's scope. --refactor marks the\n"
	       "           session's changes as refactoring (AST_REFACTOR) rather than new\n"
	       "           behaviour (INTENT_EVOLUTION).\n\n"
	       "Options:\n"
	       "      --json  one JSON document, for scripts\n"
	       "  -h, --help  show this help\n\n"
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

static void json_list(roz_buf *b, char *const *items, size_t n)
{
	roz_buf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			roz_buf_addc(b, ',');
		roz_json_add_string(b, items[i]);
	}
	roz_buf_addc(b, ']');
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
	json_list(b, it->scope, it->nscope);
	roz_buf_adds(b, ",\"constraints\":");
	json_list(b, it->constraints, it->nconstraints);
	roz_buf_adds(b, ",\"acceptance_criteria\":");
	json_list(b, it->criteria, it->ncriteria);
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

int cmd_intent(int argc, char **argv)
{
	roz_orchestration o;
	const char *verb, *id = NULL;
	bool json = false, refactor = false;
	const roz_intent *it;
	int rc;

	if (argc < 2 || cli_wants_help(argc, argv)) {
		if (argc < 2)
			return cli_usage_error("intent", "say what to do: list, show <ID> or select <ID>");
		help();
		return ROZ_EXIT_OK;
	}
	verb = argv[1];
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0 && strcmp(verb, "select") != 0)
			json = true;
		else if (strcmp(argv[i], "--refactor") == 0 && strcmp(verb, "select") == 0)
			refactor = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			help();
			return ROZ_EXIT_OK;
		} else if (argv[i][0] == '-' || id || strcmp(verb, "list") == 0)
			return cli_usage_error("intent", "unexpected argument '%s'", argv[i]);
		else
			id = argv[i];
	}
	(void)refactor; /* recorded by the hook, which reads the same command line */
	if (strcmp(verb, "list") != 0 && strcmp(verb, "show") != 0 && strcmp(verb, "select") != 0)
		return cli_usage_error("intent", "unknown action '%s' (list, show or select)", verb);
	if (strcmp(verb, "list") != 0 && !id)
		return cli_usage_error("intent", "%s needs an intent id", verb);
	if ((rc = load(&o)) != ROZ_EXIT_OK) {
		roz_orchestration_dispose(&o);
		return rc;
	}
	if (strcmp(verb, "list") == 0) {
		rc = list(&o, json);
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
