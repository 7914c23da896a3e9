/*
 * cmd_ledger_accept.c - `roz ledger accept PATH... [--by NAME]`: a
 * person takes the files as they are now as their own. One record is
 * appended to the ledger (roz/ledger.h, `accept`): per file its whole
 * content as one range a person stands for, or no range when the file is
 * gone. Every earlier range of those files is retired by it, so verify
 * reports the agent's ranges a person changed since as accepted, not as
 * changed, and blame shows who accepted the lines.
 *
 * Only a path some record names is accepted: a typo must not write a
 * record for a file the agent never touched. The record is appended
 * whole, under the ledger's lock (roz/append.h), as a hook appends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "roz/append.h"
#include "roz/clock.h"
#include "roz/file.h"
#include "roz/git_run.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/lines.h"
#include "roz/orchestration.h"
#include "roz/path.h"
#include "roz/random.h"
#include "roz/scope.h"
#include "roz/vcs.h"
#include "roz/version.h"

/* The largest file accepted (as verify reads one), and the longest wait for the ledger's lock. */
#define ACCEPT_FILE_MAX (64u * 1024u * 1024u)
#define ACCEPT_LOCK_MS 5000u

static void help(void)
{
	printf("usage: roz ledger accept PATH... [--by NAME]\n\n"
	       "Accept the files as they are now as a person's: one record is appended to\n"
	       "the ledger, holding each file's whole content as one range a person stands\n"
	       "for (no range for a file that is gone). Every earlier range of those files\n"
	       "is then reported by roz ledger verify as accepted, not changed, even with\n"
	       "--strict, and roz ledger blame shows who accepted the lines.\n\n"
	       "Each PATH (relative to the current directory, or absolute) must lie inside\n"
	       "the repository and be named by some record of the ledger.\n\n"
	       "Options:\n"
	       "      --by NAME   who accepts (default: git config user.email, else\n"
	       "                  user.name, else $USER)\n"
	       "  -h, --help      show this help\n\n"
	       "Exit status: 0 accepted, 1 a path no record names (nothing is written), no\n"
	       "ledger, or the record could not be written, 2 usage error or a path outside\n"
	       "the repository.\n");
}

/* A file to accept: its path relative to the root, what it holds now, the range made of it. */
typedef struct item {
	char *rel;
	bool named;            /* some record names it */
	bool gone;
	roz_ledger_ranges ranges;
} item;

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/*
 * Which of the items some record names (a file's path, or the path it was
 * renamed from), the ledger streamed and only lines that could name one
 * parsed. ROZ_OK, ROZ_ENOTFOUND (no ledger) or another error.
 */
static int find_named(const char *ledger, item *items, size_t n)
{
	roz_buf *keys = roz_calloc(n, sizeof *keys);
	roz_lines *l = NULL;
	const char *s;
	size_t len, left = n;
	uint64_t off;
	bool ended;
	int rc;

	if (!keys)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < n; i++)
		roz_json_add_string(&keys[i], items[i].rel);
	for (size_t i = 0; i < n; i++)
		if ((rc = roz_buf_failed(&keys[i])) != ROZ_OK)
			goto out;
	if ((rc = roz_lines_open(ledger, ROZ_LEDGER_MAX_LINE, &l)) != ROZ_OK)
		goto out;
	while (left && (rc = roz_lines_next(l, &s, &len, &off, &ended)) == ROZ_OK) {
		roz_ledger_rec rec;
		bool maybe = s && memchr(s, '\\', len);

		if (!s || blank(s, len))
			continue;
		for (size_t i = 0; i < n && !maybe; i++)
			maybe = !items[i].named && memmem(s, len, keys[i].ptr + 1, keys[i].len - 2);
		if (!maybe)
			continue;
		if ((rc = roz_ledger_line_parse(s, len, &rec)) == ROZ_ENOMEM)
			break;
		rc = ROZ_OK;
		for (size_t f = 0; f < rec.nfiles; f++)
			for (size_t i = 0; i < n; i++)
				if (!items[i].named &&
				    ((rec.files[f].path && strcmp(rec.files[f].path, items[i].rel) == 0) ||
				     (rec.files[f].from && strcmp(rec.files[f].from, items[i].rel) == 0))) {
					items[i].named = true;
					left--;
				}
		roz_ledger_rec_dispose(&rec);
	}
	if (rc == ROZ_ENOTFOUND && l)
		rc = ROZ_OK;
out:
	roz_lines_close(l);
	for (size_t i = 0; i < n; i++)
		roz_buf_dispose(&keys[i]);
	roz_free(keys);
	return rc;
}

/* Who accepts: --by, else git's user.email, else user.name, else $USER. Caller frees; NULL if unknown. */
static char *who(const char *root, const char *by)
{
	static const char keys[][11] = {"user.email", "user.name"};

	if (by)
		return roz_strdup(by);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const char *args[] = {"config", "--get", keys[i]};
		char *out = NULL;
		size_t len = 0;

		if (roz_git_output(root, args, 3, NULL, 0, 4096, &out, &len) == ROZ_OK) {
			while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
				out[--len] = '\0';
			if (len)
				return out;
		}
		roz_free(out);
	}
	return getenv("USER") && *getenv("USER") ? roz_strdup(getenv("USER")) : NULL;
}

/* The file's whole content as one range a person stands for; none when it is empty or gone. */
static int read_item(const char *root, item *it)
{
	char *full = roz_asprintf("%s/%s", strcmp(root, "/") ? root : "", it->rel), *text = NULL;
	size_t len = 0;
	unsigned long n;
	int rc;

	if (!full)
		return ROZ_ENOMEM;
	rc = roz_file_read_path(full, 0, ACCEPT_FILE_MAX, &text, &len);
	if (rc == ROZ_ENOTFOUND) {
		it->gone = true;
		rc = ROZ_OK;
	} else if (rc == ROZ_OK && (n = roz_ledger_line_count(text, len)) > 0) {
		if ((rc = roz_ledger_ranges_add(&it->ranges, 1, n)) == ROZ_OK) {
			roz_ledger_range *g = &it->ranges.items[0];

			roz_ledger_hash_lines(text, len, 1, n, g->hash);
			g->hash_kind = ROZ_LEDGER_HASH_SHA256;
			g->who = ROZ_LEDGER_WHO_HUMAN;
		}
	} else if (rc != ROZ_OK) {
		roz_error_prefix("cannot read %s", full);
	}
	roz_free(text);
	roz_free(full);
	return rc;
}

static int accept(char **paths, size_t npaths, const char *by)
{
	roz_orchestration o;
	item *items = NULL;
	roz_ledger_file *files = NULL;
	roz_buf line = ROZ_BUF_INIT;
	char cwd[4096], id[ROZ_UUID_SIZE], revision[ROZ_VCS_REVISION_SIZE], *ledger = NULL, *person = NULL;
	size_t n = 0;
	int rc, status = ROZ_EXIT_FAILURE;

	memset(&o, 0, sizeof o);
	if (!getcwd(cwd, sizeof cwd)) {
		cli_error("ledger accept: cannot tell the current directory");
		return ROZ_EXIT_FAILURE;
	}
	if (roz_orchestration_find(cwd, &o) < 0) {
		cli_error("ledger accept: %s", roz_error_last());
		goto out;
	}
	if (!(items = roz_calloc(npaths, sizeof *items)) || !(files = roz_calloc(npaths, sizeof *files)))
		goto oom;
	for (size_t i = 0; i < npaths; i++) {
		char *abs = NULL, *rel = NULL;
		bool dup = false;

		if (roz_path_normalize(cwd, NULL, paths[i], &abs) < 0 ||
		    roz_scope_relpath(o.root, abs, o.fold_case, &rel) < 0 || !rel || !*rel) {
			roz_free(abs);
			roz_free(rel);
			status = cli_usage_error("ledger", "accept: '%s' is not a file inside the repository %s",
						 paths[i], o.root);
			goto out;
		}
		roz_free(abs);
		for (size_t j = 0; j < n && !dup; j++)
			dup = strcmp(items[j].rel, rel) == 0;
		if (dup)
			roz_free(rel);
		else
			items[n++].rel = rel;
	}
	if (!(ledger = roz_asprintf("%s/%s", strcmp(o.root, "/") ? o.root : "", ROZ_LEDGER_FILE)))
		goto oom;
	rc = find_named(ledger, items, n);
	if (rc == ROZ_ENOTFOUND) {
		cli_error("no ledger at %s: nothing has been recorded, so nothing can be accepted", ledger);
		goto out;
	}
	if (rc != ROZ_OK) {
		cli_error("ledger accept: cannot read the ledger: %s", roz_error_last());
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!items[i].named) {
			cli_error("ledger accept: no record of %s names %s; nothing was accepted", ROZ_LEDGER_FILE,
				  items[i].rel);
			goto out;
		}
	for (size_t i = 0; i < n; i++) {
		if ((rc = read_item(o.root, &items[i])) != ROZ_OK) {
			cli_error("ledger accept: %s; nothing was accepted", roz_error_last());
			goto out;
		}
		files[i] = (roz_ledger_file){items[i].rel, &items[i].ranges, false, NULL};
	}
	person = who(o.root, by);
	if ((rc = roz_random_uuid_v4(id)) != ROZ_OK) {
		cli_error("ledger accept: cannot make the record's id: %s", roz_error_last());
		goto out;
	}
	{
		roz_ledger_record_in rec = {
			.id = id,
			.timestamp = roz_clock_now(),
			.revision = roz_vcs_git_head(o.root, revision) == ROZ_OK ? revision : NULL,
			.roz_version = ROZ_VERSION,
			.tool_name = "roz ledger accept",
			.files = files,
			.nfiles = n,
			.accept = true,
			.accepted_by = person,
		};

		rc = roz_ledger_record_write(&rec, &line);
	}
	if (rc == ROZ_OK)
		rc = roz_append_line(ledger, line.ptr, line.len, ACCEPT_LOCK_MS);
	if (rc != ROZ_OK) {
		cli_error("ledger accept: cannot append to %s: %s", ledger, roz_error_last());
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		fputs("accepted ", stdout);
		cli_put_safe(stdout, items[i].rel, false);
		if (items[i].gone)
			fputs(" (gone)", stdout);
		else if (items[i].ranges.n)
			printf(" (lines 1-%lu)", items[i].ranges.items[0].end_line);
		else
			fputs(" (empty)", stdout);
		fputc('\n', stdout);
	}
	fputs("as ", stdout);
	cli_put_safe(stdout, person ? person : "an unnamed person", false);
	printf(", record %.8s\n", id);
	status = cli_finish_stdout(ROZ_EXIT_OK);
	goto out;
oom:
	cli_error("ledger accept: out of memory");
out:
	for (size_t i = 0; items && i < n; i++) {
		roz_free(items[i].rel);
		roz_ledger_ranges_dispose(&items[i].ranges);
	}
	roz_free(items);
	roz_free(files);
	roz_buf_dispose(&line);
	roz_free(ledger);
	roz_free(person);
	roz_orchestration_dispose(&o);
	return status;
}

int cmd_ledger_accept(int argc, char **argv)
{
	char **paths;
	const char *by = NULL;
	size_t n = 0;
	int status;

	if (cli_wants_help(argc, argv)) {
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	if (!(paths = roz_calloc((size_t)argc, sizeof *paths))) {
		cli_error("ledger accept: out of memory");
		return ROZ_EXIT_FAILURE;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--by") == 0) {
			if (i + 1 >= argc || !*argv[i + 1]) {
				roz_free(paths);
				return cli_usage_error("ledger", "accept: --by needs a name");
			}
			by = argv[++i];
		} else if (strncmp(argv[i], "--by=", 5) == 0 && argv[i][5]) {
			by = argv[i] + 5;
		} else if (strcmp(argv[i], "--") == 0) {
			for (i++; i < argc; i++)
				paths[n++] = argv[i];
		} else if (argv[i][0] == '-' || !*argv[i]) {
			roz_free(paths);
			return cli_usage_error("ledger", "accept: unexpected argument '%s'", argv[i]);
		} else {
			paths[n++] = argv[i];
		}
	}
	if (!n) {
		roz_free(paths);
		return cli_usage_error("ledger", "accept needs the paths to accept");
	}
	status = accept(paths, n, by);
	roz_free(paths);
	return status;
}
