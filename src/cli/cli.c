/*
 * cli.c - helpers every command uses: uniform error lines, config and store
 * opening, and checking that stdout really took what was printed.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "roz/config_load.h"

static void vreport(const char *level, const char *fmt, va_list ap)
{
	fprintf(stderr, "roz: %s: ", level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
}

void cli_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'roz %s --help'.\n", command);
	return ROZ_EXIT_USAGE;
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

static void print_warning(void *ud, const char *msg)
{
	(void)ud;
	cli_warning("%s", msg);
}

int cli_load_config(roz_config *config)
{
	int rc = roz_config_load(config, roz_config_load_process_env, NULL, print_warning, NULL);

	if (rc == ROZ_ENOMEM) {
		cli_error("out of memory loading config");
		return ROZ_EXIT_FAILURE;
	}
	/*
	 * Gates that cannot be read only matter to the hooks, which hold gated
	 * calls; the reviewer still needs `roz context` and `roz decide`, and
	 * people `roz list`, so a command says so and carries on.
	 */
	if (rc < 0 && config->hold) {
		cli_warning("%s", roz_error_last());
		return ROZ_EXIT_OK;
	}
	if (rc < 0) {
		cli_error("%s", roz_error_last());
		roz_config_dispose(config);
		return ROZ_EXIT_FAILURE;
	}
	return ROZ_EXIT_OK;
}

int cli_store_open(void *ud, const roz_config *config, roz_store_warn_fn warn, void *warn_ud,
		   roz_store **out)
{
	roz_store_file_opts so = {config->fsync};
	int rc = roz_store_file_open(config->storage_path, &so, out);

	(void)ud;
	if (rc == ROZ_OK) {
		roz_store_file_on_warning(*out, warn, warn_ud);
		roz_store_set_trace_cap(*out, config->max_events);
	}
	return rc;
}

int cli_open_store(const roz_config *config, roz_store **store)
{
	/* what the store fixes on its way (a sessions directory others could write) is said */
	if (cli_store_open(NULL, config, print_warning, NULL, store) < 0) {
		cli_error("cannot open storage: %s", roz_error_last());
		return ROZ_EXIT_FAILURE;
	}
	return ROZ_EXIT_OK;
}

int cli_finish_stdout(int status)
{
	/* stdout is the protocol: a write that did not happen is a failure */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write to standard output: %s", strerror(errno ? errno : EIO));
		return ROZ_EXIT_FAILURE;
	}
	return status;
}

int cli_read_session(const roz_config *config, const char *command, const char *sid,
		     roz_session **out)
{
	roz_store *store = NULL;
	int rc;

	*out = NULL;
	if (!roz_session_id_valid(sid))
		return cli_usage_error(command, "'%s' is not a session id", sid);
	if (cli_open_store(config, &store) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	rc = roz_store_get(store, sid, out);
	roz_store_free(store);
	if (rc == ROZ_ENOTFOUND) {
		cli_error("no session '%s' in %s", sid, config->storage_path);
		return ROZ_EXIT_FAILURE;
	}
	if (rc < 0) {
		cli_error("cannot read session '%s': %s", sid, roz_error_last());
		return ROZ_EXIT_FAILURE;
	}
	return ROZ_EXIT_OK;
}

int cli_session_command(int argc, char **argv, const char *command, void (*help)(void),
			bool *json, bool *verbose, char **sid)
{
	*json = false;
	if (verbose)
		*verbose = false;
	*sid = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			help();
			return cli_finish_stdout(ROZ_EXIT_OK) == ROZ_EXIT_OK ? -1 : ROZ_EXIT_FAILURE;
		} else if (strcmp(a, "--json") == 0) {
			*json = true;
		} else if (verbose && (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)) {
			*verbose = true;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error(command, "unknown option '%s'", a);
		} else if (*sid) {
			return cli_usage_error(command, "unexpected argument '%s'", a);
		} else {
			*sid = argv[i];
		}
	}
	if (!*sid)
		return cli_usage_error(command, "expected <session-id>");
	return ROZ_EXIT_OK;
}

int cli_emit(roz_buf *b)
{
	int status = ROZ_EXIT_OK;

	if (roz_buf_failed(b)) {
		cli_error("out of memory");
		status = ROZ_EXIT_FAILURE;
	} else if (b->len) {
		fwrite(b->ptr, 1, b->len, stdout);
	}
	roz_buf_dispose(b);
	return status;
}
