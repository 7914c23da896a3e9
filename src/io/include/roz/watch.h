/*
 * roz/watch.h - a watcher of one repository's working tree, so that
 * detection (docs/governance.md, "Detection") looks again only at what
 * moved instead of walking every entry after every call.
 *
 * The watcher is a process of its own (`roz watch <root>`), one per
 * repository and user, started by the first hook that finds none. It walks
 * the tree once as roz_tree_walk does (git's ignore files; .intentignore is
 * the hook's to apply), puts an inotify watch on every directory listed,
 * and from then on keeps a log of the paths the kernel says moved, each
 * stamped with a generation that grows by one per batch of events. A hook
 * asks "what moved since generation G of watcher I": before answering, the
 * watcher reads every event already queued, so whatever happened before
 * the question was asked is in the answer (the kernel queues an event when
 * the change is made, not later).
 *
 * The answer is a list of picks (roz/tree.h): a path to stat again, and for
 * a directory created, removed or moved, everything under it. It is not
 * known (the hook then walks the whole tree, as without a watcher) when the
 * watcher is another one than I, G is older than its log holds, events
 * were lost (the kernel's queue overflowed: the watcher walks again), an
 * ignore file changed what the tree lists, or the list would be longer
 * than a walk is costly.
 *
 * What inotify cannot see, the watcher cannot either: a write through a
 * shared memory map (no event until the file is closed, if then), a change
 * on another mount inside the tree (not listed anyway), a change made
 * while the watcher was not running (then no watcher answers, and the
 * hook walks).
 *
 * The socket is abstract (nothing on disk to go stale) and named for the
 * user and the root; both ends check that the other runs as the same user.
 * The watcher ends when its root is removed or moved, after an idle spell
 * with no question, or when it cannot watch (no inotify, too many
 * directories for the user's watch limit, a tree past its bound): it then
 * leaves `<storage>/trees/watch-<hex>.off` saying why, and hooks do not
 * start another for an hour.
 */
#ifndef ROZ_WATCH_H
#define ROZ_WATCH_H

#include <stdint.h>

#include "roz/common.h"
#include "roz/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roz_watch_opts {
	const char *root;      /* absolute, the repository's top */
	const char *storage;   /* where the note that watching is off goes (NULL: nowhere) */
	bool fold_case;        /* ignore rules matched with ASCII case folded */
	size_t max_entries;    /* the walk's bound (0: ROZ_TREE_MAX_ENTRIES) */
	int64_t idle_ns;       /* end after this long without a question (0: 30 minutes) */
	int ready_fd;          /* >= 0: one byte is written here once the watcher answers, then closed */
} roz_watch_opts;

/*
 * Serve as the watcher of o->root until it ends (see above). ROZ_OK when
 * it ended as it should (idle, root gone, another watcher already serving);
 * ROZ_EIO when it could not watch (roz_error_last says why; the note is
 * written); ROZ_ENOMEM.
 */
int roz_watch_serve(const roz_watch_opts *o) ROZ_WARN_UNUSED;

typedef struct roz_watch_answer {
	uint64_t id;          /* the watcher */
	uint64_t gen;         /* its generation when it answered */
	bool known;           /* picks holds every path that moved since the asked generation */
	roz_tree_pick *picks; /* sorted by path, no two equal */
	size_t n;
	char *pool;           /* the picks' paths */
} roz_watch_answer;

/*
 * Ask the watcher of `root` what moved since generation `since` of watcher
 * `id` (0, 0: nothing known yet; the answer then only names the watcher
 * and its generation). Waits at most `timeout_ms`. ROZ_OK (*out filled),
 * ROZ_ENOTFOUND (no watcher serves this root), ROZ_EIO (it did not answer
 * properly), ROZ_ENOMEM.
 */
int roz_watch_ask(const char *root, uint64_t id, uint64_t since, int timeout_ms, roz_watch_answer *out)
	ROZ_WARN_UNUSED;

void roz_watch_answer_dispose(roz_watch_answer *a);

/*
 * Read an answer's text (`len` bytes at `text`, allocated with roz_malloc,
 * with a NUL after them) into *out, which then owns `text` (freed by
 * roz_watch_answer_dispose). An answer is one line, "roz-watch 1 <id hex>
 * <gen> <known 0|1> <n>", then n picks, each 'd' (deep) or 's' and a
 * non-empty path ending in a NUL, strictly sorted, and nothing after.
 * ROZ_OK, ROZ_EIO (not an answer: *out empty, `text` still the caller's),
 * ROZ_ENOMEM.
 */
int roz_watch_answer_parse(char *text, size_t len, roz_watch_answer *out) ROZ_WARN_UNUSED;

/*
 * Start a watcher of `root` in the background, unless a note says it
 * cannot watch this root (less than an hour old) or one was started less
 * than ten seconds ago (it may still be walking): `exe` (roz) is run as
 * `exe watch [--fold-case] [--max-entries N] <root> <storage>` in a session of its own, with
 * nothing of the caller's open but /dev/null. Returns once it is started,
 * not once it answers: 1 (started), 0 (not now), ROZ_EIO.
 * `now_ns` is the realtime clock's.
 */
int roz_watch_start(const char *exe, const char *root, const char *storage, bool fold_case, size_t max_entries,
		    int64_t now_ns) ROZ_WARN_UNUSED;

/*
 * Whether a note says watching `root` is off (written less than an hour
 * before `now_ns`, realtime, by a watcher that could not watch). The
 * reason goes to *why when asked (the caller frees it).
 */
bool roz_watch_is_off(const char *storage, const char *root, int64_t now_ns, char **why);

/* The note's path: <storage>/trees/watch-<16 hex of sha256(root)>.off (the caller frees it). */
char *roz_watch_note_path(const char *storage, const char *root);

#ifdef __cplusplus
}
#endif

#endif
