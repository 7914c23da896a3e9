/*
 * cmd_clean.c - `roz clean`: remove sessions that have been quiet for a
 * while, never one whose review is still under way, and what the store
 * moved aside or left behind (its sweep); say exactly what went.
 */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "roz/clock.h"
#include "roz/json.h"

static void help(void)
{
	printf("usage: roz clean [--before AGE] [--all] [--dry-run] [--json]\n\n"
	       "Remove sessions with no activity for AGE (default: [cleanup] retention_days,\n"
	       "7 days), and files roz moved aside as corrupt at least AGE ago. A session\n"
	       "whose review is still under way is never removed.\n\n"
	       "Options:\n"
	       "      --before AGE  e.g. 7d, 24h, 30m, 90s (a bare number means days)\n"
	       "      --all         every session, whatever its age\n"
	       "      --dry-run     say what would be removed, remove nothing\n"
	       "      --json        one JSON document, for scripts\n"
	       "  -h, --help        show this help\n");
}

/* "7d", "24h", "30m", "90s" or "7" (days) to seconds. */
static bool parse_age(const char *s, uint64_t *secs)
{
	char *end;
	unsigned long long n;
	uint64_t unit = 86400;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (*end) {
		if (end[1])
			return false;
		switch (*end) {
		case 'd': unit = 86400; break;
		case 'h': unit = 3600; break;
		case 'm': unit = 60; break;
		case 's': unit = 1; break;
		default: return false;
		}
	}
	*secs = n > UINT64_MAX / unit ? UINT64_MAX : n * unit;
	return true;
}

/* A review is under way: it was asked for and has not ended (approved or let go). */
static bool review_pending(const roz_session *s)
{
	return s->review.enabled && !s->review.circuit_breaker_tripped &&
	       s->review.decision.kind != ROZ_DECISION_COMPLETE;
}

typedef struct plan {
	char **removed, **kept, **unreadable;
	char **files; /* the store's sweep: files moved aside or left behind */
	size_t n_removed, n_kept, n_unreadable, n_files;
	size_t cap_removed, cap_kept, cap_unreadable;
} plan;

static bool push(char ***list, size_t *n, size_t *cap, const char *s)
{
	char *copy = roz_strdup(s);

	if (!copy || roz_alloc_array_reserve((void **)list, cap, sizeof(**list), *n + 1) < 0) {
		roz_free(copy);
		return false;
	}
	(*list)[(*n)++] = copy;
	return true;
}

static void free_list(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		roz_free(l[i]);
	roz_free(l);
}

/* Re-check under the session's lock so a hook that just woke it up wins. */
static int remove_session(roz_store *store, const char *id, roz_time cutoff, bool all)
{
	roz_lock *lock = NULL;
	roz_session *s = NULL;
	int rc = roz_store_lock(store, id, 500, &lock);

	if (rc < 0)
		return rc;
	rc = roz_store_get_state(store, id, &s);
	if (rc == ROZ_OK && !review_pending(s) && (all || roz_time_before(s->updated_at, cutoff)))
		rc = roz_store_delete(store, id);
	else if (rc == ROZ_OK)
		rc = ROZ_EINVALID; /* became active meanwhile: keep it */
	roz_session_free(s);
	roz_store_unlock(store, lock);
	return rc;
}

static void json_list(roz_buf *b, const char *key, char **l, size_t n)
{
	roz_buf_addf(b, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			roz_buf_addc(b, ',');
		roz_json_add_string(b, l[i]);
	}
	roz_buf_addc(b, ']');
}

static int report(const plan *p, bool json, bool dry_run, roz_time cutoff, bool all)
{
	char ts[ROZ_TIME_BUFSZ];

	if (json) {
		roz_buf b = ROZ_BUF_INIT;

		roz_buf_addf(&b, "{\"dry_run\":%s,\"before\":", dry_run ? "true" : "false");
		if (all)
			roz_buf_adds(&b, "null");
		else
			roz_buf_addf(&b, "\"%s\"", roz_time_format_sec(cutoff, ts));
		json_list(&b, "removed", p->removed, p->n_removed);
		json_list(&b, "kept_pending", p->kept, p->n_kept);
		json_list(&b, "unreadable", p->unreadable, p->n_unreadable);
		json_list(&b, "removed_files", p->files, p->n_files);
		roz_buf_adds(&b, "}\n");
		return cli_emit(&b);
	}
	if (!p->n_removed && !p->n_files)
		printf("Nothing to remove.\n");
	if (p->n_removed) {
		printf("%s %zu session%s:\n", dry_run ? "Would remove" : "Removed", p->n_removed,
		       p->n_removed == 1 ? "" : "s");
		for (size_t i = 0; i < p->n_removed; i++)
			printf("  %s\n", p->removed[i]);
	}
	if (p->n_files) {
		printf("%s %zu file%s moved aside or left behind:\n", dry_run ? "Would remove" : "Removed",
		       p->n_files, p->n_files == 1 ? "" : "s");
		for (size_t i = 0; i < p->n_files; i++) {
			/* names come from the directory: whoever made a file chose its name */
			printf("  ");
			cli_put_safe(stdout, p->files[i], false);
			printf("\n");
		}
	}
	if (p->n_kept) {
		printf("Kept %zu session%s whose review is still under way:\n", p->n_kept,
		       p->n_kept == 1 ? "" : "s");
		for (size_t i = 0; i < p->n_kept; i++)
			printf("  %s\n", p->kept[i]);
	}
	for (size_t i = 0; i < p->n_unreadable; i++)
		printf("%sSession %s cannot be read and was left alone (see roz doctor).%s\n", cli_red(),
		       p->unreadable[i], cli_reset());
	return ROZ_EXIT_OK;
}

/* Remove the files of a folder of copies (flat: roz writes nothing deeper). */
static void empty_dir(int at, const char *name)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

/*
 * Detection's snapshots (<storage>/trees/<session>-<root>.tree, and the
 * copies of files the session changed, <session>-<root>.files/) and the
 * review's view of the work (roz/work_view.h) go with their session: those of sessions removed now, and those no session in
 * the store owns any more. A watcher's notes go when a day old.
 */
static void drop_snapshots(const roz_config *config, const cli_entry *e, size_t n, const plan *p)
{
	char *dir = roz_asprintf("%s/trees", config->storage_path);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	struct stat st;

	while (d && (de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name), sid_len;
		bool owned = false;

		/*
		 * a save cut short (a killed hook) leaves "<name>.tmp.<pid>" beside it; a watcher's
		 * notes (watch-<root>.start, .off, roz/watch.h) say nothing after a day
		 */
		if (strncmp(de->d_name, "watch-", 6) == 0) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
			    st.st_mtime < time(NULL) - 86400)
				(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (strstr(de->d_name, ".tree.tmp.")) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    st.st_mtime < time(NULL) - 3600)
				(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		/*
		 * "<sid>-" 16 hex ".tree", the folder of copies beside it, ".files", and the
		 * review's index of the working tree, ".index" (a `roz context` killed while
		 * looking leaves ".index.context.<pid>"); the review's "<sid>.armed" and
		 * "<sid>.touched" (roz/work_view.h)
		 */
		if (strstr(de->d_name, ".index.context.")) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    st.st_mtime < time(NULL) - 3600)
				(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (len > 22 && strcmp(de->d_name + len - 5, ".tree") == 0 && de->d_name[len - 22] == '-')
			sid_len = len - 22;
		else if (len > 23 && strcmp(de->d_name + len - 6, ".files") == 0 && de->d_name[len - 23] == '-')
			sid_len = len - 23;
		else if (len > 23 && strcmp(de->d_name + len - 6, ".index") == 0 && de->d_name[len - 23] == '-')
			sid_len = len - 23;
		else if (len > 6 && strcmp(de->d_name + len - 6, ".armed") == 0)
			sid_len = len - 6;
		else if (len > 8 && strcmp(de->d_name + len - 8, ".touched") == 0)
			sid_len = len - 8;
		else
			continue;
		for (size_t i = 0; i < n && !owned; i++)
			owned = strlen(e[i].id) == sid_len && strncmp(e[i].id, de->d_name, sid_len) == 0;
		for (size_t i = 0; i < p->n_removed && owned; i++)
			if (strlen(p->removed[i]) == sid_len && strncmp(p->removed[i], de->d_name, sid_len) == 0)
				owned = false;
		/* a session's first call takes its snapshot before the session is stored: give it an hour */
		if (!owned && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_mtime < time(NULL) - 3600) {
			if (S_ISDIR(st.st_mode)) {
				empty_dir(dirfd(d), de->d_name);
				(void)unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
			} else {
				(void)unlinkat(dirfd(d), de->d_name, 0);
			}
		}
	}
	if (d)
		closedir(d);
	roz_free(dir);
}

int cmd_clean(int argc, char **argv)
{
	static const struct option opts[] = {
		{"before", required_argument, NULL, 'b'},
		{"all", no_argument, NULL, 'a'},
		{"dry-run", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *before = NULL;
	bool all = false, dry_run = false, json = false;
	uint64_t age = 0;
	roz_config config;
	roz_store *store = NULL;
	cli_entry *e = NULL;
	size_t n = 0;
	roz_time cutoff;
	roz_store_sweep_opts sweep;
	plan p;
	int c, status = ROZ_EXIT_FAILURE;

	memset(&p, 0, sizeof(p));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': before = optarg; break;
		case 'a': all = true; break;
		case 'n': dry_run = true; break;
		case 'j': json = true; break;
		case 'h': help(); return cli_finish_stdout(ROZ_EXIT_OK);
		case ':': return cli_usage_error("clean", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("clean", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return cli_usage_error("clean", "unexpected argument '%s'", argv[optind]);
	if (before && all)
		return cli_usage_error("clean", "--before and --all do not go together");
	if (before && !parse_age(before, &age))
		return cli_usage_error("clean", "--before needs an age like 7d, 24h, 30m or 90s, not '%s'", before);
	if (cli_load_config(&config) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	if (!before)
		age = (uint64_t)config.retention_days * 86400;
	cutoff = roz_time_sub(roz_clock_now(), age);
	if (cli_open_store(&config, &store) != ROZ_EXIT_OK)
		goto out;
	if (cli_load_entries(store, &e, &n) < 0) {
		cli_error("cannot list sessions: %s", roz_error_last());
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const roz_session *s = e[i].s;
		bool ok = true;

		if (!s)
			ok = push(&p.unreadable, &p.n_unreadable, &p.cap_unreadable, e[i].id);
		else if (!all && !roz_time_before(s->updated_at, cutoff))
			continue;
		else if (review_pending(s))
			ok = push(&p.kept, &p.n_kept, &p.cap_kept, e[i].id);
		else if (dry_run || remove_session(store, e[i].id, cutoff, all) == ROZ_OK)
			ok = push(&p.removed, &p.n_removed, &p.cap_removed, e[i].id);
		if (!ok) {
			cli_error("out of memory");
			goto out;
		}
	}
	if (!dry_run)
		drop_snapshots(&config, e, n, &p);
	/* what the store moved aside or left behind, past the same age */
	sweep.now = roz_clock_now();
	sweep.before = cutoff;
	sweep.all = all;
	sweep.dry_run = dry_run;
	if (roz_store_sweep(store, &sweep, &p.files, &p.n_files) < 0) {
		cli_error("%s", roz_error_last());
		goto out;
	}
	status = report(&p, json, dry_run, cutoff, all);
out:
	free_list(p.removed, p.n_removed);
	free_list(p.kept, p.n_kept);
	free_list(p.unreadable, p.n_unreadable);
	roz_store_ids_free(p.files);
	cli_free_entries(e, n);
	roz_store_free(store);
	roz_config_dispose(&config);
	return cli_finish_stdout(status);
}
