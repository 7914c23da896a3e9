/*
 * cmd_ledger.c - `roz ledger verify`: does the repository's ledger
 * (.orchestration/agent_trace.jsonl) still describe its code? A gate for
 * CI: exit 0 when nothing is wrong, and every finding named, for people,
 * as JSON, or as GitHub Actions annotations. The engine is roz/verify.h;
 * this file finds the repository, streams the ledger into it one line at
 * a time (roz/lines.h: never held whole, whatever its size), reads the
 * files it names, and asks git what only git knows: which files were
 * renamed (only when a file is gone), and which records a revision's
 * ledger already held (--since).
 *
 * Files are read only inside the repository: a path the ledger holds that
 * is absolute or climbs out with ".." is reported as missing, with why,
 * never opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#include "cli.h"
#include "output.h"
#include "roz/file.h"
#include "roz/git_run.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/lines.h"
#include "roz/orchestration.h"
#include "roz/verify.h"

/* The largest source file read. */
#define SOURCE_MAX (64u * 1024u * 1024u)
/* The most git may say about renames. */
#define GIT_RENAMES_MAX (64u * 1024u * 1024u)

static void help(void)
{
	printf("usage: roz ledger verify [--format human|json|github] [--json] [--all] [--strict]\n"
	       "                         [--since REV]\n"
	       "       roz ledger blame FILE [--json]\n"
	       "       roz ledger accept PATH... [--by NAME]\n"
	       "       roz ledger compact [--dry-run]\n\n"
	       "blame, accept and compact say more with --help after them.\n\n"
	       "Check the ledger of the repository you are in (.orchestration/agent_trace.jsonl\n"
	       "at its root: the git top level, else the current directory) against the code\n"
	       "as it is now. Each range a record attributes is:\n\n"
	       "  intact        the same lines hash the same\n"
	       "  moved         the lines are elsewhere in the file, or in the file it was\n"
	       "                renamed to (renames by anyone: git is asked when a file is gone)\n"
	       "  edited        the lines are nowhere: edited by a person (every change the\n"
	       "                agent makes is recorded, and no later record explains this one)\n"
	       "  missing       the file is gone, with no record of its removal and no rename\n"
	       "                found; or it cannot be read (the reason is given)\n"
	       "  removed       a later record removed the file\n"
	       "  accepted      a person accepted the file as it is (roz ledger accept)\n"
	       "  unverifiable  the record has no SHA-256 for it (another tool's): not checked\n"
	       "  superseded    a later record covers some of its lines; the newer record\n"
	       "                speaks for them\n\n"
	       "Ranges a person's record holds are not checked. One line is printed per moved,\n"
	       "edited, missing or unverifiable range, then a summary that counts the rest.\n"
	       "Lines of the ledger that are not records (a torn write, broken JSON) are\n"
	       "reported. The ledger is read a line at a time, whatever its size.\n\n"
	       "Options:\n"
	       "      --format F   human (the default); json: one document, summary (a count of\n"
	       "                   every state), items and bad_lines; github: GitHub Actions\n"
	       "                   workflow commands (::warning for edited and missing, ::error\n"
	       "                   for what fails the run, ::notice for moved and unverifiable),\n"
	       "                   then the summary\n"
	       "      --json       the same as --format json\n"
	       "      --all        list every range, intact and superseded ones too (human, json)\n"
	       "      --strict     fail on edited and missing ranges too\n"
	       "      --since REV  check only the records made since git revision REV (a\n"
	       "                   branch, HEAD~2, an abbreviated hash): those the ledger did not\n"
	       "                   hold at REV, which survives rebase, squash and cherry-pick.\n"
	       "                   When git does not know REV: the records from the first one\n"
	       "                   whose vcs.revision starts with it (at least 4 hex digits).\n"
	       "                   Earlier records still supersede.\n"
	       "  -h, --help       show this help\n\n"
	       "Exit status: 0 nothing wrong (edited, missing, moved, removed, accepted and\n"
	       "unverifiable ranges are reported, not failed); 1 lines of the ledger that are\n"
	       "not records, a file that cannot be read, with --strict any edited or missing\n"
	       "range, no ledger, or REV not found; 2 usage error.\n");
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

/* ---- git: renames, and the ledger at a revision ---------------------------- */

/* git's answer, trimmed of its line end; NULL when git failed. Caller frees. */
static char *git_line(const char *root, const char *const *args, size_t nargs)
{
	char *out = NULL;
	size_t len = 0;

	if (roz_git_output(root, args, nargs, NULL, 0, 4096, &out, &len) != ROZ_OK)
		return NULL;
	while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
		out[--len] = '\0';
	return out;
}

/* The full hash of the commit `rev` names, or NULL when git does not know it. Caller frees. */
static char *git_commit(const char *root, const char *rev)
{
	char *spec = roz_asprintf("%s^{commit}", rev), *out;
	const char *args[] = {"rev-parse", "--verify", "--quiet", "--end-of-options", spec};

	if (!spec || rev[0] == '-')
		out = NULL;
	else
		out = git_line(root, args, 5);
	roz_free(spec);
	if (out && strlen(out) < 40) {
		roz_free(out);
		out = NULL;
	}
	return out;
}

/* "R<score>\0from\0to\0" triples, as `--name-status -z --diff-filter=R` prints them, into out. */
static int add_renames(const char *text, size_t len, roz_verify_renames *out)
{
	size_t pos = 0;

	while (pos < len) {
		const char *tok = text + pos, *from, *to;
		size_t n = strnlen(tok, len - pos);

		pos += n + 1;
		/* git log separates commits with a line end */
		while (n && (*tok == '\n' || *tok == '\r')) {
			tok++;
			n--;
		}
		if (!n || tok[0] != 'R' || pos >= len)
			continue;
		from = text + pos;
		pos += strnlen(from, len - pos) + 1;
		if (pos >= len)
			break;
		to = text + pos;
		pos += strnlen(to, len - pos) + 1;
		if (roz_verify_renames_add(out, from, to) != ROZ_OK)
			return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

static int git_renames_of(const char *root, const char *const *args, size_t nargs, roz_verify_renames *out)
{
	char *text = NULL;
	size_t len = 0;
	int rc = roz_git_output(root, args, nargs, NULL, 0, GIT_RENAMES_MAX, &text, &len);

	if (rc == ROZ_ENOMEM)
		return rc;
	if (rc == ROZ_OK)
		rc = add_renames(text, len, out);
	roz_free(text);
	return rc == ROZ_ENOMEM ? ROZ_ENOMEM : ROZ_OK;
}

/* Whether `path` is one of the NUL-separated names git printed. */
static bool named_in(const char *text, size_t len, const char *path)
{
	for (size_t pos = 0; pos < len;) {
		const char *name = text + pos;
		size_t n = strnlen(name, len - pos);

		pos += n + 1;
		while (n && *name == '\n') {
			name++;
			n--;
		}
		if (n == strlen(path) && memcmp(name, path, n) == 0)
			return true;
	}
	return false;
}

/*
 * The gone files no commit of this branch ever held and the index does
 * not hold: their records came in with the ledger from work that was not
 * merged here (a cherry-pick of another commit of the branch). Asked of
 * git a hundred paths at a time.
 */
static int never_here(const char *root, const roz_verify_rename_hint *hint, roz_verify_renames *out)
{
	enum { CHUNK = 100 };
	const char *args[CHUNK + 8];
	int rc = ROZ_OK;

	for (size_t a = 0; a < hint->ngone && rc == ROZ_OK; a += CHUNK) {
		size_t n = hint->ngone - a < CHUNK ? hint->ngone - a : CHUNK, k = 0;
		char *logged = NULL, *staged = NULL;
		size_t llen = 0, slen = 0;

		args[k++] = "log";
		args[k++] = "--format=";
		args[k++] = "--name-only";
		args[k++] = "-z";
		args[k++] = "HEAD";
		args[k++] = "--";
		for (size_t i = 0; i < n; i++)
			args[k++] = hint->gone[a + i];
		rc = roz_git_output(root, args, k, NULL, 0, GIT_RENAMES_MAX, &logged, &llen);
		if (rc == ROZ_OK) {
			args[0] = "ls-files";
			args[1] = "--cached";
			args[2] = "-z";
			args[3] = "--";
			memmove(&args[4], &args[6], n * sizeof *args);
			rc = roz_git_output(root, args, 4 + n, NULL, 0, GIT_RENAMES_MAX, &staged, &slen);
		}
		for (size_t i = 0; rc == ROZ_OK && i < n; i++) {
			const char *p = hint->gone[a + i];

			if (!named_in(logged, llen, p) && !named_in(staged, slen, p))
				rc = roz_verify_renames_absent(out, p);
		}
		roz_free(logged);
		roz_free(staged);
		/* git could not say: nothing is taken for never here */
		if (rc == ROZ_EIO)
			return ROZ_OK;
	}
	return rc;
}

/*
 * roz_verify_renames_fn: what git knows was renamed since the records
 * began, most telling first: the net renames from the earliest record's
 * revision (else HEAD) to the working tree, those staged, then every
 * rename committed since the earliest record's time (newest first), which
 * finds what a rebase left no revision for and files made after the base.
 */
static int git_renames(void *ud, const roz_verify_rename_hint *hint, roz_verify_renames *out)
{
	const char *root = ud;
	const char *top[] = {"rev-parse", "--is-inside-work-tree"};
	char *inside_tree = git_line(root, top, 2), *base = NULL;
	int rc = ROZ_OK;

	if (!inside_tree || strcmp(inside_tree, "true") != 0)
		goto out;
	if (hint->revision)
		base = git_commit(root, hint->revision);
	if (!base)
		base = git_commit(root, "HEAD");
	if (base) {
		const char *diff[] = {"diff", "-M", "--name-status", "-z", "--diff-filter=R", "--no-ext-diff",
				      "--no-textconv", base, "--"};
		const char *cached[] = {"diff", "--cached", "-M", "--name-status", "-z", "--diff-filter=R",
					"--no-ext-diff", "--no-textconv", "HEAD", "--"};

		if ((rc = git_renames_of(root, diff, sizeof diff / sizeof *diff, out)) != ROZ_OK ||
		    (rc = git_renames_of(root, cached, sizeof cached / sizeof *cached, out)) != ROZ_OK)
			goto out;
	}
	if (hint->has_time) {
		char ts[ROZ_TIME_BUFSZ], *since;

		/* a day early: the clocks of those who committed need not agree with the agent's */
		roz_time_format_sec(roz_time_sub(hint->time, 86400), ts);
		if (!(since = roz_asprintf("--since=%s", ts))) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		{
			const char *log[] = {"log", "-M", "--diff-filter=R", "--name-status", "--format=", "-z",
					     "--no-ext-diff", "--no-textconv", since, "HEAD", "--"};

			rc = git_renames_of(root, log, sizeof log / sizeof *log, out);
		}
		roz_free(since);
	}
	if (rc == ROZ_OK && base)
		rc = never_here(root, hint, out);
out:
	roz_free(inside_tree);
	roz_free(base);
	return rc;
}

/* The ids of the records the ledger held at a revision: 128 bits of each, in an open-addressed set. */
typedef struct idset {
	uint64_t *keys;   /* pairs; (0, 0) is empty */
	size_t n, cap;    /* cap: pairs */
} idset;

static void id_hash(const char *s, size_t n, uint64_t out[2])
{
	uint64_t a = 1469598103934665603ull, b = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < n; i++) {
		a = (a ^ (unsigned char)s[i]) * 1099511628211ull;
		b = (b + (unsigned char)s[i]) * 0xff51afd7ed558ccdull;
		b ^= b >> 29;
	}
	out[0] = a | 1; /* never (0, 0) */
	out[1] = b;
}

static bool idset_has(const idset *s, const char *id, size_t n)
{
	uint64_t h[2];

	if (!s->cap)
		return false;
	id_hash(id, n, h);
	for (size_t j = (size_t)(h[0] ^ h[1]) & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
		if (!s->keys[2 * j])
			return false;
		if (s->keys[2 * j] == h[0] && s->keys[2 * j + 1] == h[1])
			return true;
	}
}

static int idset_put(idset *s, const char *id, size_t n)
{
	uint64_t h[2];
	size_t j;

	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *keys = roz_calloc(cap * 2, sizeof *keys);

		if (!keys)
			return ROZ_ENOMEM;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->keys[2 * i])
				continue;
			for (j = (size_t)(s->keys[2 * i] ^ s->keys[2 * i + 1]) & (cap - 1); keys[2 * j]; j = (j + 1) & (cap - 1))
				;
			keys[2 * j] = s->keys[2 * i];
			keys[2 * j + 1] = s->keys[2 * i + 1];
		}
		roz_free(s->keys);
		s->keys = keys;
		s->cap = cap;
	}
	id_hash(id, n, h);
	for (j = (size_t)(h[0] ^ h[1]) & (s->cap - 1); s->keys[2 * j]; j = (j + 1) & (s->cap - 1))
		if (s->keys[2 * j] == h[0] && s->keys[2 * j + 1] == h[1])
			return ROZ_OK;
	s->keys[2 * j] = h[0];
	s->keys[2 * j + 1] = h[1];
	s->n++;
	return ROZ_OK;
}

/* roz_verify_known_fn over the ids of the ledger at the revision. */
static bool id_known(void *ud, const char *id)
{
	return idset_has(ud, id, strlen(id));
}

/* Past a JSON string that starts at s[i] ('"'); 0 when it does not end. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return 0;
}

static size_t skip_blank(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i;
}

/*
 * The top-level "id" of a record line, as written between its quotes,
 * found without parsing the record (a million of them are read here):
 * false when the line is not an object with a plain string "id" (one
 * written with escapes is left to the parser).
 */
static bool line_id(const char *s, size_t n, const char **id, size_t *idlen)
{
	size_t i = skip_blank(s, n, 0);

	if (i >= n || s[i++] != '{')
		return false;
	for (;;) {
		size_t ks, ke;
		int depth = 0;

		while (i < n && (s[i] == ',' || s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= n || s[i] != '"' || !(ke = skip_string(s, n, i)))
			return false;
		ks = i + 1;
		i = skip_blank(s, n, ke);
		ke--;
		if (i >= n || s[i++] != ':')
			return false;
		if ((i = skip_blank(s, n, i)) >= n)
			return false;
		if (ke - ks == 2 && memcmp(s + ks, "id", 2) == 0) {
			size_t end = s[i] == '"' ? skip_string(s, n, i) : 0;

			if (!end)
				return false;
			*id = s + i + 1;
			*idlen = end - i - 2;
			return !memchr(*id, '\\', *idlen);
		}
		/* the value, whatever it holds */
		for (; i < n; i++) {
			if (s[i] == '"') {
				size_t end = skip_string(s, n, i);

				if (!end)
					return false;
				i = end - 1;
			} else if (s[i] == '{' || s[i] == '[') {
				depth++;
			} else if (s[i] == '}' || s[i] == ']') {
				if (!depth--)
					return false;
			} else if (s[i] == ',' && !depth) {
				break;
			}
		}
		if (i >= n)
			return false;
	}
}

/* One line of the old ledger: its record's id into the set. */
static int note_id(idset *ids, const char *line, size_t len)
{
	const char *id;
	size_t idlen;
	roz_ledger_rec rec;
	int rc;

	if (line_id(line, len, &id, &idlen))
		return idset_put(ids, id, idlen);
	/* an id written with escapes, or a line the quick look cannot read: the parser decides */
	rc = roz_ledger_line_parse(line, len, &rec);
	if (rc == ROZ_OK && rec.id)
		rc = idset_put(ids, rec.id, strlen(rec.id));
	roz_ledger_rec_dispose(&rec);
	return rc == ROZ_EPARSE ? ROZ_OK : rc;
}

/*
 * The ids of the records in the ledger as it was at `commit`, into *ids;
 * *had false when that tree has no ledger. `git cat-file blob` (no filter,
 * no program of the repository's runs) streams it through a pipe, split
 * into lines here: the old ledger is never held whole either. The same
 * hardening as roz/git_run.h.
 */
static int ledger_ids_at(const char *root, const char *commit, idset *ids, bool *had)
{
	char *spec = roz_asprintf("%s:%s", commit, ROZ_LEDGER_FILE), *out = NULL, *buf = NULL;
	const char *exists[] = {"cat-file", "-e", spec};
	char *argv[] = {"git", "--no-optional-locks", "--literal-pathspecs", "-c", "core.fsmonitor=false",
			"-c", "core.untrackedCache=false", "-C", NULL, "cat-file", "blob", NULL, NULL};
	size_t olen = 0, have = 0, cap = ROZ_LEDGER_MAX_LINE + 65536;
	posix_spawn_file_actions_t fa;
	int fds[2] = {-1, -1}, rc = ROZ_ENOMEM, status = 0;
	bool skipping = false;
	pid_t pid = -1;

	*had = false;
	if (!spec)
		return ROZ_ENOMEM;
	if (roz_git_output(root, exists, 3, NULL, 0, 4096, &out, &olen) != ROZ_OK) {
		roz_free(spec);
		return ROZ_OK; /* no ledger at that revision: every record is since */
	}
	roz_free(out);
	*had = true;
	if (!(buf = roz_malloc(cap)))
		goto out;
	memcpy(&argv[8], &root, sizeof root);
	argv[11] = spec;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		roz_error_set_errno(errno, "cannot run git");
		rc = ROZ_EIO;
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if ((errno = posix_spawnp(&pid, "git", &fa, NULL, argv, environ)) != 0) {
		roz_error_set_errno(errno, "cannot run git");
		pid = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	fds[1] = -1;
	rc = pid < 0 ? ROZ_EIO : ROZ_OK;
	while (rc == ROZ_OK) {
		ssize_t n = read(fds[0], buf + have, cap - have);
		size_t start = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			roz_error_set_errno(errno, "cannot read git's answer");
			rc = ROZ_EIO;
			break;
		}
		have += (size_t)n;
		for (char *nl; rc == ROZ_OK && (nl = memchr(buf + start, '\n', have - start)); start = (size_t)(nl - buf) + 1) {
			if (!skipping)
				rc = note_id(ids, buf + start, (size_t)(nl - buf) - start);
			skipping = false;
		}
		if (n == 0) {
			if (rc == ROZ_OK && have > start && !skipping)
				rc = note_id(ids, buf + start, have - start);
			break;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		/* a line longer than a record can be is not one: skipped to its end */
		if (have == cap) {
			have = 0;
			skipping = true;
		}
	}
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (rc == ROZ_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			roz_error_set("git cat-file could not read %s", spec);
			rc = ROZ_EIO;
		}
	}
	roz_free(buf);
	roz_free(spec);
	return rc;
}

/* ---- output --------------------------------------------------------------- */

enum format { FMT_HUMAN, FMT_JSON, FMT_GITHUB };

typedef struct opts {
	enum format format;
	bool all, strict;
	const char *since;
} opts;

/* What fails the run: a damaged ledger, a file that cannot be read; with --strict, edited and missing too. */
static bool failed(const roz_verify_report *r, bool strict)
{
	return r->nbad || r->unreadable ||
	       (strict && (r->counts[ROZ_VERIFY_EDITED] || r->counts[ROZ_VERIFY_MISSING]));
}

/* An item that fails the run. */
static bool item_fails(const roz_verify_item *it, bool strict)
{
	return (it->state == ROZ_VERIFY_MISSING && (it->why || strict)) || (strict && it->state == ROZ_VERIFY_EDITED);
}

/* Output streamed in pieces: a million items are never held. */
typedef struct sink {
	roz_buf b;
	const opts *o;
	const roz_verify_report *r;
	size_t n;          /* items written */
	bool error;        /* writing failed */
} sink;

static void sink_flush(sink *s, bool all)
{
	if (roz_buf_failed(&s->b) || (s->b.len && fwrite(s->b.ptr, 1, s->b.len, stdout) != s->b.len))
		s->error = true;
	roz_buf_reset(&s->b);
	if (all && fflush(stdout) != 0)
		s->error = true;
}

static void json_str_or_null(roz_buf *b, const char *s)
{
	if (s)
		roz_json_add_string(b, s);
	else
		roz_buf_adds(b, "null");
}

static void json_summary(roz_buf *b, const roz_verify_report *r, const opts *o)
{
	roz_buf_addf(b, "{\"summary\":{\"ranges\":%zu,\"records\":%zu", r->ranges, r->records);
	for (int st = 0; st < ROZ_VERIFY_NSTATES; st++)
		roz_buf_addf(b, ",\"%s\":%zu", roz_verify_state_name((roz_verify_state)st), r->counts[st]);
	roz_buf_addf(b, ",\"unreadable\":%zu,\"bad_lines\":%zu,\"since\":", r->unreadable, r->nbad);
	json_str_or_null(b, o->since);
	roz_buf_addf(b, ",\"strict\":%s,\"passed\":%s},\"items\":[", o->strict ? "true" : "false",
		     failed(r, o->strict) ? "false" : "true");
}

static int json_item(void *ud, const roz_verify_item *it)
{
	sink *s = ud;
	roz_buf *b = &s->b;

	roz_buf_addf(b, "%s{\"state\":\"%s\",\"path\":", s->n++ ? "," : "", roz_verify_state_name(it->state));
	roz_json_add_string(b, it->path);
	roz_buf_addf(b, ",\"start_line\":%lu,\"end_line\":%lu,\"ledger_line\":%zu,\"record_id\":", it->start_line,
		     it->end_line, it->line);
	roz_json_add_string(b, it->record_id ? it->record_id : "");
	roz_buf_adds(b, ",\"intent_id\":");
	json_str_or_null(b, it->intent_id);
	roz_buf_adds(b, ",\"session_id\":");
	json_str_or_null(b, it->session_id);
	if (it->state == ROZ_VERIFY_MOVED && it->moved_path) {
		roz_buf_adds(b, ",\"moved_to\":{\"path\":");
		roz_json_add_string(b, it->moved_path);
		roz_buf_addf(b, ",\"start_line\":%lu,\"end_line\":%lu}", it->moved_start, it->moved_end);
	}
	if (it->why) {
		roz_buf_adds(b, ",\"why\":");
		roz_json_add_string(b, it->why);
	}
	roz_buf_addc(b, '}');
	if (b->len > 65536)
		sink_flush(s, false);
	return ROZ_OK;
}

static void json_tail(sink *s)
{
	roz_buf_adds(&s->b, "],\"bad_lines\":[");
	for (size_t i = 0; i < s->r->nbad; i++) {
		roz_buf_addf(&s->b, "%s{\"line\":%zu,\"why\":", i ? "," : "", s->r->bad[i].line);
		roz_json_add_string(&s->b, s->r->bad[i].why);
		roz_buf_addc(&s->b, '}');
	}
	roz_buf_adds(&s->b, "]}\n");
}

/* path:start or path:start-end, safe for a terminal. */
static void put_range(roz_buf *b, const char *path, unsigned long start, unsigned long end)
{
	char *safe = cli_safe(path, false);

	roz_buf_adds(b, safe ? safe : "?");
	roz_free(safe);
	if (start == end)
		roz_buf_addf(b, ":%lu", start);
	else
		roz_buf_addf(b, ":%lu-%lu", start, end);
}

/* The first 8 characters say which record, as a short git hash does. Caller frees. */
static char *short_id(const char *id)
{
	char *s = cli_safe(id ? id : "?", false);
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

static void add_safe(roz_buf *b, const char *s)
{
	char *safe = cli_safe(s, false);

	roz_buf_adds(b, safe ? safe : "?");
	roz_free(safe);
}

static int human_item(void *ud, const roz_verify_item *it)
{
	sink *s = ud;
	roz_buf *b = &s->b;
	bool bad = it->state == ROZ_VERIFY_EDITED || it->state == ROZ_VERIFY_MISSING;
	char *id;

	/* removed and accepted ranges are counted, not listed (unless every range is asked for) */
	if (!s->o->all && (it->state == ROZ_VERIFY_REMOVED || it->state == ROZ_VERIFY_ACCEPTED))
		return ROZ_OK;
	roz_buf_addf(b, "%s%-8s%s  ", bad ? cli_red() : "", roz_verify_state_name(it->state), bad ? cli_reset() : "");
	put_range(b, it->path, it->start_line, it->end_line);
	if (it->state == ROZ_VERIFY_MOVED && it->moved_path) {
		roz_buf_adds(b, " -> ");
		put_range(b, it->moved_path, it->moved_start, it->moved_end);
	}
	id = short_id(it->record_id);
	roz_buf_addf(b, "  %s%srecord %s, intent ", cli_dim(),
		     it->state == ROZ_VERIFY_EDITED ? "edited by a person since " : "", id ? id : "?");
	roz_free(id);
	add_safe(b, it->intent_id ? it->intent_id : "none");
	roz_buf_adds(b, cli_reset());
	if (it->why) {
		roz_buf_adds(b, " (");
		add_safe(b, it->why);
		roz_buf_addc(b, ')');
	} else if (it->state == ROZ_VERIFY_UNVERIFIABLE) {
		roz_buf_adds(b, " (no SHA-256 to check it by)");
	}
	roz_buf_addc(b, '\n');
	if (b->len > 65536)
		sink_flush(s, false);
	return ROZ_OK;
}

static void human_summary(roz_buf *b, const roz_verify_report *r, const opts *o)
{
	bool ok = !failed(r, o->strict);

	/* github lists the lines that are not records as annotations of their own */
	for (size_t i = 0; o->format == FMT_HUMAN && i < r->nbad; i++) {
		roz_buf_addf(b, "%snot a record%s  %s:%zu: ", cli_red(), cli_reset(), ROZ_LEDGER_FILE, r->bad[i].line);
		add_safe(b, r->bad[i].why);
		roz_buf_addc(b, '\n');
	}
	if (o->since) {
		roz_buf_adds(b, "Since ");
		add_safe(b, o->since);
		roz_buf_adds(b, ": ");
	}
	roz_buf_addf(b, "%s%zu range%s in %zu record%s%s: %s%zu intact%s, %zu moved, %s%zu edited%s, %s%zu missing%s, "
		     "%zu unverifiable, %zu removed, %zu accepted, %zu superseded; %zu line%s not records",
		     cli_bold(), r->ranges, r->ranges == 1 ? "" : "s", r->records, r->records == 1 ? "" : "s",
		     cli_reset(), r->counts[ROZ_VERIFY_INTACT] ? cli_green() : "", r->counts[ROZ_VERIFY_INTACT],
		     cli_reset(), r->counts[ROZ_VERIFY_MOVED], r->counts[ROZ_VERIFY_EDITED] ? cli_red() : "",
		     r->counts[ROZ_VERIFY_EDITED], cli_reset(), r->counts[ROZ_VERIFY_MISSING] ? cli_red() : "",
		     r->counts[ROZ_VERIFY_MISSING], cli_reset(), r->counts[ROZ_VERIFY_UNVERIFIABLE],
		     r->counts[ROZ_VERIFY_REMOVED], r->counts[ROZ_VERIFY_ACCEPTED], r->counts[ROZ_VERIFY_SUPERSEDED],
		     r->nbad, r->nbad == 1 ? "" : "s");
	if (r->unreadable)
		roz_buf_addf(b, "; %zu unreadable", r->unreadable);
	roz_buf_addf(b, "%s\n", ok ? "" : o->strict ? " (failed, --strict)" : " (failed)");
}

/*
 * Text for a GitHub workflow command: the message escapes "%", "\r" and
 * "\n" as GitHub documents; a property value ",", ":" too. Other control
 * characters are shown as cli_safe shows them, so nothing reaches a log
 * viewer as a terminal sequence.
 */
static void gh_escape(roz_buf *b, const char *s, bool property)
{
	char *safe = cli_safe(s ? s : "", true);

	for (const char *p = safe ? safe : "?"; *p; p++) {
		switch (*p) {
		case '%':
			roz_buf_adds(b, "%25");
			break;
		case '\r':
			roz_buf_adds(b, "%0D");
			break;
		case '\n':
			roz_buf_adds(b, "%0A");
			break;
		case ':':
			roz_buf_adds(b, property ? "%3A" : ":");
			break;
		case ',':
			roz_buf_adds(b, property ? "%2C" : ",");
			break;
		case '\t':
			roz_buf_adds(b, "\\t");
			break;
		default:
			roz_buf_addc(b, *p);
		}
	}
	roz_free(safe);
}

static int github_item(void *ud, const roz_verify_item *it)
{
	sink *s = ud;
	roz_buf *b = &s->b, text = ROZ_BUF_INIT;
	const char *level;

	switch (it->state) {
	case ROZ_VERIFY_EDITED:
	case ROZ_VERIFY_MISSING:
		level = item_fails(it, s->o->strict) ? "error" : "warning";
		break;
	case ROZ_VERIFY_MOVED:
	case ROZ_VERIFY_UNVERIFIABLE:
		level = "notice";
		break;
	default:
		return ROZ_OK;
	}
	if (it->state == ROZ_VERIFY_EDITED)
		roz_buf_addf(&text, "edited by a person since record %s", it->record_id ? it->record_id : "?");
	else if (it->state == ROZ_VERIFY_MISSING && it->why)
		roz_buf_addf(&text, "cannot be read (%s), record %s", it->why, it->record_id ? it->record_id : "?");
	else if (it->state == ROZ_VERIFY_MISSING)
		roz_buf_addf(&text, "the file is gone, with no record of its removal, record %s",
			     it->record_id ? it->record_id : "?");
	else if (it->state == ROZ_VERIFY_MOVED)
		roz_buf_addf(&text, "moved to %s:%lu-%lu, record %s", it->moved_path ? it->moved_path : "?",
			     it->moved_start, it->moved_end, it->record_id ? it->record_id : "?");
	else
		roz_buf_addf(&text, "not checked: record %s has no SHA-256 for these lines",
			     it->record_id ? it->record_id : "?");
	roz_buf_addf(&text, " (intent %s)", it->intent_id ? it->intent_id : "none");
	roz_buf_addf(b, "::%s file=", level);
	gh_escape(b, it->path, true);
	roz_buf_addf(b, ",line=%lu,endLine=%lu,title=roz ledger::", it->start_line, it->end_line);
	gh_escape(b, roz_buf_cstr(&text), false);
	roz_buf_addc(b, '\n');
	if (roz_buf_failed(&text))
		b->oom = true;
	roz_buf_dispose(&text);
	if (b->len > 65536)
		sink_flush(s, false);
	return ROZ_OK;
}

static void github_tail(sink *s)
{
	for (size_t i = 0; i < s->r->nbad; i++) {
		roz_buf_addf(&s->b, "::error file=%s,line=%zu,title=roz ledger::", ROZ_LEDGER_FILE, s->r->bad[i].line);
		gh_escape(&s->b, "not a record: ", false);
		gh_escape(&s->b, s->r->bad[i].why, false);
		roz_buf_addc(&s->b, '\n');
	}
}

/* Everything the run found, in the chosen format. ROZ_EXIT_OK, or ROZ_EXIT_FAILURE when it could not be said. */
static int emit(roz_verify *v, const roz_verify_report *r, const opts *o)
{
	sink s = {ROZ_BUF_INIT, o, r, 0, false};
	unsigned flags = ROZ_VERIFY_EACH_IDS | (o->all ? ROZ_VERIFY_EACH_ALL : 0);
	int rc;

	if (o->format == FMT_JSON) {
		json_summary(&s.b, r, o);
		rc = roz_verify_each(v, flags, json_item, &s);
		json_tail(&s);
	} else if (o->format == FMT_GITHUB) {
		rc = roz_verify_each(v, ROZ_VERIFY_EACH_IDS, github_item, &s);
		github_tail(&s);
		human_summary(&s.b, r, o);
	} else {
		rc = roz_verify_each(v, flags, human_item, &s);
		human_summary(&s.b, r, o);
	}
	sink_flush(&s, true);
	roz_buf_dispose(&s.b);
	if (rc != ROZ_OK) {
		cli_error("ledger verify: %s", roz_error_last());
		return ROZ_EXIT_FAILURE;
	}
	if (s.error) {
		cli_error("ledger verify: cannot write the report");
		return ROZ_EXIT_FAILURE;
	}
	return ROZ_EXIT_OK;
}

/* ---- the run -------------------------------------------------------------- */

/* roz_verify_at_fn over the ledger being streamed. */
static int lines_at(void *ud, uint64_t offset, size_t len, const char **line)
{
	return roz_lines_at(ud, offset, len, line);
}

/*
 * Stream the ledger at `path` through a verify run with `o`; *v is the run
 * to settle. ROZ_OK; ROZ_ENOTFOUND (no ledger); other errors reported here.
 */
static int ledger_stream(const char *path, roz_verify_opts *o, roz_lines **lines, roz_verify **v)
{
	int rc;

	*v = NULL;
	if ((rc = roz_lines_open(path, ROZ_LEDGER_MAX_LINE, lines)) != ROZ_OK)
		return rc;
	o->at = lines_at;
	o->at_ud = *lines;
	if ((rc = roz_verify_begin(o, v)) != ROZ_OK)
		return rc;
	for (;;) {
		const char *line;
		size_t len;
		uint64_t off;
		bool ended;

		rc = roz_lines_next(*lines, &line, &len, &off, &ended);
		if (rc == ROZ_ENOTFOUND)
			return ROZ_OK;
		if (rc != ROZ_OK || (rc = roz_verify_feed(*v, line, len, off, ended)) != ROZ_OK)
			return rc;
	}
}

/*
 * A repository inside the governed one (a submodule, a nested clone)
 * keeps its own ledger of its own files: verify from inside it checks
 * that one, rooted there. ROZ_OK or ROZ_ENOMEM.
 */
static int nearest_ledger(const char *cwd, roz_orchestration *o)
{
	char *dir = roz_strdup(cwd);
	size_t root_len = strlen(o->root);
	struct stat st;

	if (!dir)
		return ROZ_ENOMEM;
	while (strlen(dir) > root_len && strncmp(dir, o->root, root_len) == 0) {
		char *git = roz_asprintf("%s/.git", dir), *ledger = roz_asprintf("%s/%s", dir, ROZ_LEDGER_FILE), *slash;
		bool repo = git && lstat(git, &st) == 0, found = repo && ledger && stat(ledger, &st) == 0;

		roz_free(git);
		roz_free(ledger);
		if (found) {
			roz_free(o->root);
			o->root = dir;
			return ROZ_OK;
		}
		if (repo || !(slash = strrchr(dir, '/')) || slash == dir)
			break;
		*slash = '\0';
	}
	roz_free(dir);
	return ROZ_OK;
}

static int verify(const opts *o)
{
	roz_orchestration orch;
	roz_verify_report r;
	roz_verify_opts vo;
	roz_verify *v = NULL;
	roz_lines *lines = NULL;
	idset ids = {NULL, 0, 0};
	char cwd[4096], *ledger_path = NULL, *commit = NULL;
	int rc, status = ROZ_EXIT_FAILURE;

	memset(&orch, 0, sizeof orch);
	memset(&r, 0, sizeof r);
	memset(&vo, 0, sizeof vo);
	if (!getcwd(cwd, sizeof cwd)) {
		cli_error("ledger verify: cannot tell the current directory");
		return ROZ_EXIT_FAILURE;
	}
	if (roz_orchestration_find(cwd, &orch) < 0) {
		cli_error("ledger verify: %s", roz_error_last());
		goto out;
	}
	if (nearest_ledger(cwd, &orch) != ROZ_OK ||
	    !(ledger_path = roz_asprintf("%s/%s", strcmp(orch.root, "/") ? orch.root : "", ROZ_LEDGER_FILE))) {
		cli_error("ledger verify: out of memory");
		goto out;
	}
	vo.read = cli_ledger_read_source;
	vo.read_ud = orch.root;
	vo.renames = git_renames;
	vo.renames_ud = orch.root;
	if (o->since) {
		bool had;

		/* the records since REV are those its ledger did not hold; else REV is the start of a record's hash */
		if ((commit = git_commit(orch.root, o->since))) {
			if (ledger_ids_at(orch.root, commit, &ids, &had) != ROZ_OK) {
				cli_error("ledger verify: %s", roz_error_last());
				goto out;
			}
			vo.since_known = id_known;
			vo.since_ud = &ids;
		} else {
			vo.since_revision = o->since;
		}
	}
	rc = ledger_stream(ledger_path, &vo, &lines, &v);
	if (rc == ROZ_ENOTFOUND && !v) {
		cli_error("no ledger at %s: nothing has been recorded", ledger_path);
		goto out;
	}
	if (rc != ROZ_OK) {
		cli_error("ledger verify: cannot read the ledger: %s", roz_error_last());
		goto out;
	}
	if (roz_verify_settle(v, &r) != ROZ_OK) {
		cli_error("ledger verify: %s", roz_error_last());
		goto out;
	}
	if (o->since && !r.since_found) {
		cli_error("ledger verify: no record in %s was made at revision %s (--since takes a revision "
			  "git knows, or the start of the hash a record's vcs.revision holds)",
			  ledger_path, o->since);
		goto out;
	}
	status = emit(v, &r, o);
	if (status == ROZ_EXIT_OK && failed(&r, o->strict))
		status = ROZ_EXIT_FAILURE;
	status = cli_finish_stdout(status);
out:
	roz_verify_report_dispose(&r);
	roz_verify_free(v);
	roz_lines_close(lines);
	roz_free(ids.keys);
	roz_free(commit);
	roz_free(ledger_path);
	roz_orchestration_dispose(&orch);
	return status;
}

int cmd_ledger(int argc, char **argv)
{
	opts o = {FMT_HUMAN, false, false, NULL};

	/* each verb answers its own --help */
	if (argc >= 2 && strcmp(argv[1], "accept") == 0)
		return cmd_ledger_accept(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "blame") == 0)
		return cmd_ledger_blame(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "compact") == 0)
		return cmd_ledger_compact(argc - 1, argv + 1);
	if (cli_wants_help(argc, argv)) {
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	if (argc < 2)
		return cli_usage_error("ledger", "say what to do: verify, blame, accept or compact");
	if (strcmp(argv[1], "verify") != 0)
		return cli_usage_error("ledger", "unknown action '%s' (verify, accept, blame, compact)", argv[1]);
	for (int i = 2; i < argc; i++) {
		const char *fmt = NULL;

		if (strcmp(argv[i], "--json") == 0)
			o.format = FMT_JSON;
		else if (strcmp(argv[i], "--all") == 0)
			o.all = true;
		else if (strcmp(argv[i], "--strict") == 0)
			o.strict = true;
		else if (strcmp(argv[i], "--since") == 0) {
			if (i + 1 >= argc || !*argv[i + 1])
				return cli_usage_error("ledger", "--since needs a revision");
			o.since = argv[++i];
		} else if (strncmp(argv[i], "--since=", 8) == 0 && argv[i][8])
			o.since = argv[i] + 8;
		else if (strcmp(argv[i], "--format") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("ledger", "--format needs human, json or github");
			fmt = argv[++i];
		} else if (strncmp(argv[i], "--format=", 9) == 0)
			fmt = argv[i] + 9;
		else
			return cli_usage_error("ledger", "unexpected argument '%s'", argv[i]);
		if (!fmt)
			continue;
		if (strcmp(fmt, "human") == 0)
			o.format = FMT_HUMAN;
		else if (strcmp(fmt, "json") == 0)
			o.format = FMT_JSON;
		else if (strcmp(fmt, "github") == 0)
			o.format = FMT_GITHUB;
		else
			return cli_usage_error("ledger", "unknown format '%s' (human, json or github)", fmt);
	}
	return verify(&o);
}
