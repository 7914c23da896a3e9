/*
 * faultlib.h - what the fault and crash tests share: a throwaway roz home,
 * starting the real roz with chosen stdin, environment and stdout, reading
 * back what it printed, and looking at what it left in sessions/.
 */
#ifndef ROZ_FAULTLIB_H
#define ROZ_FAULTLIB_H

#include "support.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A roz home: <dir>/config.toml, <dir>/sessions/<id>.json (the state) and
 * <id>.trace.jsonl (its trace); io holds the runs' streams.
 */
typedef struct fl_home {
	char *dir;
	char *sessions;
	char *file;
	char *trace;
	char *io;
	char *id;
} fl_home;

/*
 * A fresh home under the scratch directory: $ROZ_FAULT_TMPDIR, else /dev/shm
 * (fsync is free on tmpfs, and the fault walk syncs thousands of files), else
 * $TMPDIR or /tmp.
 */
void fl_home_make(fl_home *h, const char *id, const char *config);
/* The same under `parent` (e.g. a small mount); io still goes to the scratch directory. */
void fl_home_make_in(fl_home *h, const char *parent, const char *id, const char *config);
void fl_home_dispose(fl_home *h);

/* Empty sessions/ (creating it if need be) and put `text` there as the session file; NULL: none. */
void fl_set_session(const fl_home *h, const char *text, size_t len);
/* The session file's bytes, or NULL when there is none. Caller frees. */
char *fl_get_session(const fl_home *h, size_t *len);
/* Put `text` as the session's trace file (NULL: none), after fl_set_session. */
void fl_set_trace(const fl_home *h, const char *text, size_t len);
/* The trace file's bytes, or NULL when there is none. Caller frees. */
char *fl_get_trace(const fl_home *h, size_t *len);

/* What a trace file holds: whole events, a torn last line, lines that are not events. */
typedef struct fl_trace_lines {
	long events;
	bool torn; /* the last line has no "\n" */
	long bad;  /* whole lines that are not a JSON object */
} fl_trace_lines;
void fl_trace_count(const char *text, size_t len, fl_trace_lines *out);

/* What lies in sessions/ besides <id>.json and <id>.trace.jsonl. */
typedef struct fl_leftovers {
	int tmp;     /* <id>.json.tmp-*, <id>.trace.jsonl.tmp-* */
	int trace_tmp; /* of those, a compaction's: <id>.trace.jsonl.tmp-* */
	int lock;    /* <id>.lock */
	int corrupt; /* <id>.json.corrupt-* */
	int other;
	char names[512]; /* the names, for messages */
} fl_leftovers;
void fl_leftovers_scan(const fl_home *h, fl_leftovers *l);

/* One run of roz. */
typedef struct fl_cmd {
	const char *const *argv;   /* after argv[0], NULL-terminated */
	const char *stdin_text;    /* NULL: empty */
	const char *const *env;    /* extra NAME=value entries, NULL-terminated; may be NULL */
	const char *stdout_path;   /* NULL: captured; e.g. "/dev/full" to make stdout fail */
} fl_cmd;

typedef struct fl_result {
	int status; /* exit status, or 128+signal */
	bool signaled;
	char *out, *err;
	int64_t usec; /* wall time from fork to reaping */
} fl_result;

/* Start roz; its stdout and stderr go to io/out-<slot>, io/err-<slot>. */
pid_t fl_spawn(const fl_home *h, int slot, const fl_cmd *c);
/* Wait for a started roz and read back what it printed. */
void fl_reap(const fl_home *h, int slot, pid_t pid, int64_t started_us, fl_result *r);
void fl_run(const fl_home *h, const fl_cmd *c, fl_result *r);
void fl_result_dispose(fl_result *r);

int64_t fl_now_us(void);
void fl_sleep_us(long us);

/* stdout is exactly one JSON object followed by a newline. */
bool fl_one_json_object(const char *text);
/* roz itself reads the file back without complaint. */
bool fl_session_parses(const char *text, size_t len);

/* Copy with every RFC 3339 time and UUID inside a JSON string replaced by a placeholder. */
char *fl_normalize(const char *text);

/* ROZ_UNDER_VALGRIND is set: the driver runs under memcheck and everything is slower. */
bool fl_under_valgrind(void);

/* xorshift64*, for reproducible randomness in the tests themselves. */
uint64_t fl_rand(uint64_t *state);

#endif
