/*
 * roz/ledger.h - the record of what the agent changed: one Agent Trace
 * record per write, appended to .orchestration/agent_trace.jsonl.
 *
 * Records follow the open Agent Trace specification (0.1.0; its JSON schema
 * requires "major.minor.patch" in `version`), so any tool that reads Agent
 * Trace reads roz's ledger. Records written as "0.1" by earlier versions of
 * roz are read the same:
 *
 *   {"version":"0.1.0","id":"<uuid>","timestamp":"<RFC 3339>",
 *    "vcs":{"type":"git","revision":"<HEAD>"},             (absent outside git)
 *    "tool":{"name":"roz","version":"<roz version>"},
 *    "files":[{"path":"src/a.c",                           (relative to the root)
 *      "conversations":[{"url":"file:///<transcript path>",     (else urn:claude-code:session:<id>)
 *        "contributor":{"type":"ai","model_id":"anthropic/<model>"},  (model_id when known)
 *        "ranges":[{"start_line":3,"end_line":9,"content_hash":"sha256:<hex>"},
 *                  {"start_line":12,"end_line":12,"content_hash":"sha256:<hex>",
 *                   "contributor":{"type":"mixed","model_id":"anthropic/<model>"}}],  (lines it rewrote)
 *        "related":[{"type":"specification","url":"urn:roz:intent:<id>"}]}]}],  (when an intent is selected)
 *    "metadata":{"roz":{"intent_id":"INT-001"|null,"mutation_class":"INTENT_EVOLUTION"|"AST_REFACTOR",
 *                       "session_id":"<id>","tool_name":"Edit",
 *                       "removed":["src/old.c"],                     (when the call removed files)
 *                       "renamed":[{"from":"src/b.c","to":"src/c.c"}]}}}  (when it renamed files)
 *
 * A removed file is one of the record's files, with one conversation and
 * no ranges; a renamed file is listed under its new path, its whole
 * content the call's. A range whose lines the agent rewrote (they replace
 * lines that were there: a person's, or nobody knows whose) carries its
 * own contributor, "mixed", with the model when known; a range of some
 * other contributor ("human", "unknown") carries that type alone.
 *
 * A person's acceptance (roz ledger accept) is a record of the same shape
 * whose conversations have no url, no related intent and the contributor
 * {"type":"human"} (no model), and whose metadata.roz is
 *   {"action":"accept","accepted_by":"<person>"|null,"session_id":null,
 *    "tool_name":"roz ledger accept"}            (and removed/renamed as above)
 *
 * One record is one line; a record never holds a newline, so a line is a
 * record or a torn write.
 *
 * Content hashes. A range's hash is "sha256:" and the hex SHA-256 of its
 * lines exactly as they are in the file, each without its "\n" and joined
 * by "\n" (a "\r" before a "\n" is part of its line). Lines are 1-based; a
 * file's last line need not end in "\n"; an empty file has no lines.
 *
 * Ranges. What a write put in the file. Where Claude Code hands its own
 * patch of the call (tool_response.structuredPatch: Edit, MultiEdit, a
 * Write over a file), the lines it added, where they landed
 * (roz_ledger_ranges_of_patch); for a file changed in place whose earlier
 * content is known, the lines the change added (roz_ledger_ranges_of_change).
 * In both, added lines that replace removed ones are the agent's rewrite
 * of lines that were there: their ranges are `who` MIXED; lines only
 * inserted stay the agent's (ai). Otherwise, found in the file's content
 * after the write:
 *   Write, NotebookEdit, and a Bash line's visible targets: the whole file
 *     (no range when it is empty);
 *   Edit: the lines the new text spans where it landed: every occurrence of
 *     new_string with replace_all, else its first occurrence; an empty
 *     new_string (a deletion) gives no range;
 *   MultiEdit: the same for each of its edits[].
 * A new text that is not found in the content (changed again since) gives
 * no range. Ranges of one write are sorted and overlapping ones merged.
 *
 * Ownership: structs own what they point to; release with their _dispose.
 */
#ifndef ROZ_LEDGER_H
#define ROZ_LEDGER_H

#include "roz/common.h"
#include "roz/digest.h"
#include "roz/time.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

#define ROZ_LEDGER_FILE ".orchestration/agent_trace.jsonl"
/*
 * Beside the ledger, when it has no attributes of its own, roz writes these:
 * a merge of two branches that both added records keeps both sides' lines
 * (git's union merge), and roz ledger verify reads records in their own
 * time order, so nothing is set up by hand for a team's merges. The same
 * holds for the archive roz ledger compact writes
 * (.orchestration/archive/agent_trace-YYYY-MM.jsonl).
 */
#define ROZ_LEDGER_ATTRIBUTES_FILE ".orchestration/.gitattributes"
#define ROZ_LEDGER_ATTRIBUTES                                                                              \
	"# written by roz: a merge keeps the records both branches added (roz ledger verify orders them by "   \
	"time)\nagent_trace.jsonl merge=union\narchive/*.jsonl merge=union\n"
#define ROZ_LEDGER_VERSION "0.1.0"
/* Longest record written or read, in bytes; a longer one is not written (its ranges are dropped first). */
#define ROZ_LEDGER_MAX_LINE (1024u * 1024u)

/* Who wrote a range: the schema's contributor.type. */
typedef enum roz_ledger_who {
	ROZ_LEDGER_WHO_AI = 0,  /* writing: as the conversation says (ai) */
	ROZ_LEDGER_WHO_MIXED,   /* the agent changed lines that were there (a person's, or nobody knows whose) */
	ROZ_LEDGER_WHO_HUMAN,
	ROZ_LEDGER_WHO_UNKNOWN
} roz_ledger_who;

/* What a range read back says of its content (content_hash). */
typedef enum roz_ledger_hash_kind {
	ROZ_LEDGER_HASH_SHA256 = 0, /* "sha256:<64 hex>": `hash` holds the hex */
	ROZ_LEDGER_HASH_NONE,       /* no content_hash: nothing to check it by */
	ROZ_LEDGER_HASH_OTHER       /* another algorithm, or not as the algorithm writes it */
} roz_ledger_hash_kind;

typedef struct roz_ledger_range {
	unsigned long start_line, end_line;    /* 1-based, inclusive */
	char hash[ROZ_SHA256_HEX_SIZE];        /* hex, without the "sha256:" prefix; "" when none */
	unsigned char who;                     /* roz_ledger_who: writing, ai is the conversation's
						  contributor, another is written as the range's own unless
						  it is the conversation's (human in an acceptance); reading,
						  the range's, else its conversation's, else ai */
	unsigned char hash_kind;               /* roz_ledger_hash_kind, when read */
} roz_ledger_range;

typedef struct roz_ledger_ranges {
	roz_ledger_range *items;
	size_t n, cap;
} roz_ledger_ranges;

void roz_ledger_ranges_dispose(roz_ledger_ranges *r);

/* Append [start, end] with no hash, written by the conversation's contributor. ROZ_OK or ROZ_ENOMEM. */
int roz_ledger_ranges_add(roz_ledger_ranges *r, unsigned long start, unsigned long end) ROZ_WARN_UNUSED;

/* Number of lines of text (0 for an empty text; a last line without "\n" counts). */
unsigned long roz_ledger_line_count(const char *text, size_t len);

/*
 * The hex SHA-256 of lines [start, end] of text as described above. Lines
 * past the end are not there: the caller checks end <= line count.
 */
void roz_ledger_hash_lines(const char *text, size_t len, unsigned long start, unsigned long end,
			   char out[ROZ_SHA256_HEX_SIZE]);

/*
 * The ranges a write of `tool_name` with `tool_input` put into `content`
 * (the file after the write), hashed. `whole` forces the whole file (a Bash
 * target). *out is overwritten (it need not be initialised): release it
 * with roz_ledger_ranges_dispose. Fields that are absent or of the wrong
 * type give no range. ROZ_OK (maybe with no ranges) or ROZ_ENOMEM (*out
 * empty).
 */
int roz_ledger_ranges_of_write(const char *tool_name, const struct cJSON *tool_input, bool whole,
			       const char *content, size_t len, roz_ledger_ranges *out) ROZ_WARN_UNUSED;

/*
 * The ranges Claude Code's own patch says a file tool's call added:
 * `tool_response.structuredPatch` (Edit, MultiEdit, a Write over an existing
 * file), each hunk walked from its newStart: a line kept (" ") moves on, a
 * line removed ("-") does not, a line added ("+") is the call's. So an Edit
 * is credited where it landed, not where its text first occurs. The lines
 * added in a run of changed lines (between kept lines) that also removed
 * some are MIXED: they replace what was there; a run that only adds is
 * ai. Ranges of different `who` are never joined. *used is
 * false when there is no patch to go by (absent, a Write that created the
 * file, or not as Claude Code writes one: counts that do not add up, lines
 * past the file's end); the caller falls back to
 * roz_ledger_ranges_of_write. Same ownership as above. ROZ_OK or ROZ_ENOMEM.
 */
int roz_ledger_ranges_of_patch(const struct cJSON *tool_response, const char *content, size_t len,
			       roz_ledger_ranges *out, bool *used) ROZ_WARN_UNUSED;

/*
 * The ranges a change from `before` to `content` added (roz/linediff.h),
 * hashed: the lines of a file a call changed in place, when what the file
 * held before the call is known. A span of added lines where the change
 * also removed lines of `before` (the same place between the lines both
 * keep) replaces them: MIXED; a span only inserted: ai. Same ownership as
 * above. ROZ_OK or ROZ_ENOMEM (*out empty).
 */
int roz_ledger_ranges_of_change(const char *before, size_t blen, const char *content, size_t len,
				roz_ledger_ranges *out) ROZ_WARN_UNUSED;

typedef struct roz_ledger_file {
	const char *path;                /* relative to the repository root */
	const roz_ledger_ranges *ranges; /* may be empty */
	bool removed;                    /* the write removed the file: listed in metadata.roz.removed and
					    written with no ranges (any given are not written) */
	const char *from;                /* the file was renamed from this path (its ranges are the whole
					    file): metadata.roz.renamed {"from","to":path}; or NULL */
} roz_ledger_file;

typedef struct roz_ledger_record_in {
	const char *id;            /* a UUID */
	roz_time timestamp;
	const char *revision;      /* the git HEAD, or NULL */
	const char *roz_version;
	const char *session_id;
	const char *transcript;    /* the session's transcript (absolute), or NULL: the conversation's url */
	const char *model_id;      /* as Claude Code sent it, or NULL; "anthropic/" is added when it has no "/",
				      a context-size tag ("[1m]") is dropped */
	const char *intent_id;     /* or NULL */
	bool refactor;             /* AST_REFACTOR, else INTENT_EVOLUTION */
	const char *tool_name;     /* the Claude Code tool that wrote */
	const roz_ledger_file *files;
	size_t nfiles;
	/*
	 * A person's acceptance (roz ledger accept): the files as they are now
	 * are theirs. Written with contributor human, no conversation url,
	 * model or related intent, and metadata.roz {"action":"accept",
	 * "accepted_by": the person or null, "session_id":null, "tool_name":
	 * tool_name, else "roz ledger accept"}: session_id, transcript,
	 * model_id, intent_id and refactor are not written. Every earlier range
	 * of its files is retired (roz/verify.h).
	 */
	bool accept;
	const char *accepted_by;
} roz_ledger_record_in;

/*
 * Append the record as one line ending in "\n". Text that is not UTF-8 is
 * repaired (U+FFFD), so the line always parses; the transcript path and
 * the session and intent ids in the urls are percent-encoded; model_id is cut to the schema's 250
 * bytes on a character boundary. An empty revision, intent or model is
 * none. A range with an empty hash is written without content_hash. When
 * the record would be longer than ROZ_LEDGER_MAX_LINE (its "\n" aside) its
 * ranges are dropped, files kept. ROZ_OK, ROZ_EINVALID (no id, or too long
 * even without ranges; nothing appended) or ROZ_ENOMEM.
 */
int roz_ledger_record_write(const roz_ledger_record_in *in, roz_buf *out) ROZ_WARN_UNUSED;

/* One record read back, for verification and the intent map. */
typedef struct roz_ledger_rfile {
	char *path;
	roz_ledger_ranges ranges;
	bool removed;          /* named in metadata.roz.removed: the record removed the file */
	char *from;            /* metadata.roz.renamed names it as renamed from this path, or NULL */
} roz_ledger_rfile;

typedef struct roz_ledger_rec {
	char *id;
	roz_time timestamp;
	bool has_timestamp;
	char *revision;        /* NULL when absent */
	char *session_id;      /* metadata.roz.session_id, or NULL */
	char *intent_id;       /* metadata.roz.intent_id, or NULL */
	char *mutation_class;  /* or NULL */
	char *model_id;        /* the first contributor.model_id of its conversations, or NULL */
	char *tool;            /* tool.name (the program that wrote the record: "roz", another), or NULL */
	char *tool_name;       /* metadata.roz.tool_name (the Claude Code tool), or NULL */
	bool accept;           /* metadata.roz.action is "accept": a person's acceptance */
	roz_ledger_rfile *files;
	size_t nfiles;
} roz_ledger_rec;

/*
 * Read one line (without its "\n"). Any Agent Trace record is accepted, and
 * fields roz does not know are ignored; every conversation's ranges of a
 * file are collected, in order, unmerged. Ranges whose content_hash is not
 * "sha256:<64 hex>" are kept with an empty hash and hash_kind saying why
 * (hex lowercased); each range's `who` is its contributor.type, else its
 * conversation's, else ai. metadata.roz.removed (an array of paths) and
 * metadata.roz.renamed ({from,to} objects) mark the files they name; a
 * name that is not one of the record's files is ignored. Refused:
 * a line over ROZ_LEDGER_MAX_LINE, what is not a JSON object, no files
 * array, a file without a string path, conversations or ranges that are
 * not arrays of objects, a range without whole start_line/end_line in
 * 1..2^53-1 or ending before it starts, more than 100,000 ranges. Optional
 * fields of the wrong type read as absent. On any error *out is left empty.
 * ROZ_OK, ROZ_EPARSE (not a record: roz_error_last says why) or ROZ_ENOMEM.
 */
int roz_ledger_line_parse(const char *line, size_t len, roz_ledger_rec *out) ROZ_WARN_UNUSED;
void roz_ledger_rec_dispose(roz_ledger_rec *r);

#ifdef __cplusplus
}
#endif

#endif
