/*
 * cmd_accept.c - `roz intent violations` and `roz intent accept`: the
 * changes detection found that governance does not allow, as sessions
 * keep them, and a person's acceptance of one (docs/governance.md,
 * "Detection"). Accepting is a person's act, from a terminal: a Bash call
 * of the agent that runs it is refused by the PreToolUse hook.
 *
 * Both look at the repository the current directory is in, across every
 * session in the store (a person rarely knows the session's id); each
 * session is locked while it is changed, as a hook locks it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "roz/config.h"
#include "roz/orchestration.h"
#include "roz/path.h"
#include "roz/scope.h"
#include "roz/session.h"
#include "roz/store.h"

/* Does violation `v` match one of the paths given (relative to the root), or --all? */
static bool wanted(const roz_gov_violation *v, char **rels, size_t n, bool all)
{
	if (all)
		return true;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(rels[i]);

		if (strcmp(v->path, rels[i]) == 0 || (v->from && strcmp(v->from, rels[i]) == 0))
			return true;
		/* a directory given: everything under it */
		if (strncmp(v->path, rels[i], len) == 0 && v->path[len] == '/')
			return true;
	}
	return false;
}

int cmd_intent_violations(int argc, char **argv, bool accept)
{
	roz_orchestration o;
	roz_config config;
	roz_store *store = NULL;
	char cwd[4096], **ids = NULL, **rels = NULL;
	size_t nids = 0, nrels = 0, shown = 0;
	bool all = false, have_config = false;
	int rc = ROZ_EXIT_FAILURE;

	memset(&o, 0, sizeof o);
	if (!getcwd(cwd, sizeof cwd)) {
		cli_error("intent: cannot read the current directory");
		return ROZ_EXIT_FAILURE;
	}
	if (roz_orchestration_find(cwd, &o) < 0) {
		cli_error("intent: %s", roz_error_last());
		return ROZ_EXIT_FAILURE;
	}
	if (!(rels = roz_calloc((size_t)argc + 1, sizeof *rels)))
		goto oom;
	for (int i = 0; i < argc; i++) {
		char *abs = NULL;

		if (strcmp(argv[i], "--all") == 0 && accept) {
			all = true;
			continue;
		}
		if (argv[i][0] == '-' || !accept) {
			rc = cli_usage_error("intent", "unexpected argument '%s'", argv[i]);
			goto out;
		}
		if (roz_path_normalize(cwd, NULL, argv[i], &abs) < 0 ||
		    roz_scope_relpath(o.root, abs, o.fold_case, &rels[nrels]) < 0 || !rels[nrels]) {
			roz_free(abs);
			rc = cli_usage_error("intent", "'%s' is not inside the repository %s", argv[i], o.root);
			goto out;
		}
		roz_free(abs);
		nrels++;
	}
	if (accept && !all && !nrels) {
		rc = cli_usage_error("intent", "accept needs the paths to accept, or --all");
		goto out;
	}
	if (cli_load_config(&config) != ROZ_EXIT_OK)
		goto out;
	have_config = true;
	if (cli_open_store(&config, &store) != ROZ_EXIT_OK)
		goto out_config;
	if (roz_store_list(store, &ids, &nids) < 0) {
		cli_error("intent: cannot list the sessions: %s", roz_error_last());
		goto out_config;
	}
	for (size_t k = 0; k < nids; k++) {
		roz_lock *lock = NULL;
		roz_session *s = NULL;
		bool changed = false;

		if (accept && roz_store_lock(store, ids[k], config.lock_timeout_ms, &lock) < 0) {
			cli_warning("intent: session %s is busy; its changes were left as they are", ids[k]);
			continue;
		}
		if (roz_store_get(store, ids[k], &s) < 0) {
			roz_store_unlock(store, lock);
			continue;
		}
		for (size_t i = s->gov.n_violations; i-- > 0;) {
			const roz_gov_violation *v = &s->gov.violations[i];

			if (strcmp(v->root, o.root) != 0 || (accept && !wanted(v, rels, nrels, all)))
				continue;
			printf("%s%s: %s (%s) by %s in session %s\n", accept ? "accepted " : "", v->path, v->change,
			       v->code, v->tool ? v->tool : "a tool", s->session_id);
			shown++;
			if (accept) {
				roz_session_gov_violation_remove(&s->gov, i);
				changed = true;
			}
		}
		if (changed && roz_store_put(store, s) < 0)
			cli_error("intent: cannot save session %s: %s", ids[k], roz_error_last());
		roz_session_free(s);
		roz_store_unlock(store, lock);
	}
	if (!shown)
		printf(accept ? "nothing to accept: no session holds such a change in %s\n"
			      : "no change stands against governance in %s\n",
		       o.root);
	rc = accept && !shown ? ROZ_EXIT_FAILURE : cli_finish_stdout(ROZ_EXIT_OK);
out_config:
out:
	if (have_config)
		roz_config_dispose(&config);
	roz_store_ids_free(ids);
	roz_store_free(store);
	for (size_t i = 0; i < nrels; i++)
		roz_free(rels[i]);
	roz_free(rels);
	roz_orchestration_dispose(&o);
	return rc;
oom:
	cli_error("intent: out of memory");
	goto out;
}
