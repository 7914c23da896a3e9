/*
 * compare.c - roz_compare: a differential test that drives roz in C and the
 * Rust roz through the same random hook sequences and `roz decide` calls and
 * compares what Claude Code is told and what each stores. See README.md.
 */
#define _XOPEN_SOURCE 700

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_STEPS 100       /* keeps every list below the caps of difference 4 */
#define MAX_PROMPTS 50      /* roz in C keeps the latest 50 prompts (difference 4) */
#define MAX_ARGS 12
#define MODEL_RUNS 10       /* roz in C keeps the latest 10 reviewer runs (ROZ_MAX_REVIEWER_RUNS) */
#define RUN_SECONDS 50      /* a sequence stays inside the 60 seconds a reviewer launch lasts */

enum { OURS, THEIRS };

/*
 * --probe NAME lifts one restriction of the sequence grammar, to show that the
 * comparison catches what the restriction keeps out. Every probe is expected
 * to end in a mismatch, except stop-hook-active alone: at max_blocks = 1000 the
 * Rust roz's lowered limit is never reached.
 */
enum {
	PROBE_BREAKER = 1 << 0,          /* max_blocks = 2: differences 1 and 8 */
	PROBE_PROMPT_SCOPE = 1 << 1,     /* approval_scope = "prompt": difference 9 */
	PROBE_TOOL_SCOPE = 1 << 2,       /* approval_scope = "tool": the `tool` scope correction */
	PROBE_STOP_ACTIVE = 1 << 3,      /* stop_hook_active true: difference 11 */
	PROBE_NOTIFICATION = 1 << 4,     /* <task-notification> prompts: difference 13 */
	PROBE_GATE_ISSUES = 1 << 5,      /* gated calls while ISSUES stands: gate-makes-pending */
	PROBE_REVIEWER_DATE = 1 << 6,    /* every reviewer stop: verdict dating */
	PROBE_SHELL = 1 << 7,            /* Bash lines whose keys differ: gates read the shell */
	PROBE_SELF_APPROVAL = 1 << 8,    /* `roz decide` from the agent's Bash: only the reviewer decides */
	PROBE_REQUIRE_REVIEWER = 1 << 9, /* require_reviewer left at its default: a verdict needs a reviewer */
	PROBE_REVIEWER_RUNS = 1 << 10,   /* one agent id per reviewer: runs are tracked, held twice */
	PROBE_NOT_SPAWNED = 1 << 11,     /* stops with no reviewer since the last block: real outcomes */
	PROBE_BACKGROUND = 1 << 12,      /* a roz:roz reviewer running in the background: listed */
	PROBE_ARRAY_INPUT = 1 << 13,     /* hook input that is a JSON array: listed */
	PROBE_EMPTY_TEMPLATE = 1 << 14,  /* an empty block-default.md: listed */
	PROBE_BIG_NUMBERS = 1 << 15,     /* numbers no 64-bit integer or double holds: found by this test */
	PROBE_NUMBER_HASH = 1 << 16,     /* a cut-down input with numbers as `1e3`: found by this test */
	PROBE_MULTIBYTE_CUT = 1 << 17,   /* a cut-down string split inside a character: found by this test */
	PROBE_SECOND_REVIEWER = 1 << 18, /* an Agent call for roz:roz while one works: listed (39) */
	PROBE_UNREADABLE_CALL = 1 << 19, /* unusable PreToolUse input while gates exist: listed (23) */
	PROBE_FIELD_TYPES = 1 << 20      /* hook input with no cwd or mistyped fields: listed (21) */
};

static const struct {
	const char *name;
	unsigned flag;
} probes[] = {
	{"breaker", PROBE_BREAKER},
	{"prompt-scope", PROBE_PROMPT_SCOPE},
	{"tool-scope", PROBE_TOOL_SCOPE},
	{"stop-hook-active", PROBE_STOP_ACTIVE},
	{"notification", PROBE_NOTIFICATION},
	{"gate-issues", PROBE_GATE_ISSUES},
	{"reviewer-date", PROBE_REVIEWER_DATE},
	{"shell", PROBE_SHELL},
	{"self-approval", PROBE_SELF_APPROVAL},
	{"require-reviewer", PROBE_REQUIRE_REVIEWER},
	{"reviewer-runs", PROBE_REVIEWER_RUNS},
	{"not-spawned", PROBE_NOT_SPAWNED},
	{"background", PROBE_BACKGROUND},
	{"array-input", PROBE_ARRAY_INPUT},
	{"empty-template", PROBE_EMPTY_TEMPLATE},
	{"big-numbers", PROBE_BIG_NUMBERS},
	{"number-hash", PROBE_NUMBER_HASH},
	{"multibyte-cut", PROBE_MULTIBYTE_CUT},
	{"second-reviewer", PROBE_SECOND_REVIEWER},
	{"unreadable-call", PROBE_UNREADABLE_CALL},
	{"field-types", PROBE_FIELD_TYPES},
};
static const char *const side_name[2] = {"ours", "theirs"};

/* ---- small utilities -------------------------------------------------------- */

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("roz_compare: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

typedef struct sbuf {
	char *p;
	size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_adds(sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_addf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("formatting failed");
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static const char *sb_str(const sbuf *b)
{
	return b->p ? b->p : "";
}

static void path_join(char *out, size_t cap, const char *a, const char *b)
{
	if ((size_t)snprintf(out, cap, "%s/%s", a, b) >= cap)
		die("path too long: %s/%s", a, b);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	size_t len = strlen(text), off = 0;

	if (fd < 0)
		die("cannot create %s: %s", path, strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("cannot write %s: %s", path, strerror(errno));
		off += (size_t)n;
	}
	if (close(fd) < 0)
		die("cannot write %s: %s", path, strerror(errno));
}

/* The whole file, or NULL when it does not exist. */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	sbuf b = {0};
	char chunk[8192];
	size_t n;

	if (!f) {
		if (errno == ENOENT)
			return NULL;
		die("cannot open %s: %s", path, strerror(errno));
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sb_add(&b, chunk, n);
	if (ferror(f))
		die("cannot read %s", path);
	fclose(f);
	if (!b.p)
		sb_adds(&b, "");
	return b.p;
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		die("cannot create %s: %s", path, strerror(errno));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Single-quote a string for sh. */
static void sh_quote(sbuf *b, const char *s)
{
	sb_adds(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			sb_adds(b, "'\\''");
		else
			sb_add(b, s, 1);
	}
	sb_adds(b, "'");
}

/* ---- deterministic randomness: xorshift64*, one stream per sequence ------------ */

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t splitmix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static void rng_seed(rng *r, uint64_t seed, uint64_t seq)
{
	/* each sequence has its own stream, so `--only K` replays sequence K alone */
	r->s = splitmix(splitmix(seed) ^ (seq * 0xD6E8FEB86659FD93ull + 1));
	if (!r->s)
		r->s = 1;
}

static uint64_t rng_next(rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static unsigned rng_below(rng *r, unsigned n)
{
	return (unsigned)((rng_next(r) >> 11) % n);
}

static bool rng_pct(rng *r, unsigned pct)
{
	return rng_below(r, 100) < pct;
}

#define PICK(r, arr) ((arr)[rng_below((r), sizeof(arr) / sizeof((arr)[0]))])

/* ---- the configuration of one sequence (the same config.toml for both) ---------- */

enum { MODE_PROMPT, MODE_ALWAYS, MODE_NEVER };
static const char *const mode_name[] = {"prompt", "always", "never"};

enum {
	TMPL_BUILTIN,       /* no template file: both fall back to their built-in text */
	TMPL_HOME_DEFAULT,  /* $ROZ_HOME/templates/block-default.md */
	TMPL_NAMED,         /* active = "v2" with block-v2.md */
	TMPL_NAMED_MISSING, /* active = "v9" and no file: built-in text, id "v9" */
	TMPL_RANDOM_SINGLE  /* active = "random" with one weighted template */
};

typedef struct variant {
	unsigned probe;
	int mode;
	bool gates;
	int tmpl;
	bool codex, gemini; /* fake second-opinion tools on PATH */
	bool unknown_fields; /* hook input carries a field neither knows */
} variant;

/*
 * Restrictions that keep the listed differences (docs/differences.md) out of
 * play, instead of masking them in the comparison:
 *  - max_blocks = 1000: differences 1 and 8 change answers only once the
 *    circuit breaker trips, and the breaker-cooldown correction needs a trip;
 *    no sequence comes near 1000 blocks.
 *  - approval_scope = "session": difference 9 and the `tool` scope correction
 *    change only the `prompt` and `tool` scopes.
 *  - no approval_ttl_seconds and no huge numbers: difference 3.
 *  - no [storage] path: difference 2.
 *  - templates.active = "random" only with a single weighted template: the two
 *    draw random numbers differently, so only a draw with one outcome compares.
 *  - review.require_reviewer = false: roz in C lets a COMPLETE count only once
 *    a roz:roz reviewer's SubagentStop vouches for it ("Closing the ways around
 *    review"), and records one only with the ticket the reviewer's Bash call
 *    was issued (difference 14); the Rust roz counts every `roz decide` at
 *    once, and ignores the key it does not know. With it false, roz in C does
 *    the same and issues no ticket. The reviewer's Bash call is still sent
 *    before every decide (gen_reviewer_call).
 *  - governance.destructive_commands = false: roz in C asks about a
 *    destructive command even once a review approved its gate (difference
 *    40); the Rust roz ignores the section.
 */
static const char *const gate_patterns = "[\"Bash:git push*\", \"mcp__tissue__close*\", \"Write\", \"Edi?\"]";

static void config_text(const variant *v, sbuf *b)
{
	sb_addf(b, "[review]\nmode = \"%s\"\n", mode_name[v->mode]);
	if (!(v->probe & PROBE_REQUIRE_REVIEWER))
		sb_adds(b, "require_reviewer = false\n");
	sb_adds(b, "\n");
	sb_addf(b, "[review.gates]\ntools = %s\napproval_scope = \"%s\"\n\n",
		v->gates ? gate_patterns : "[]",
		v->probe & PROBE_PROMPT_SCOPE ? "prompt" : v->probe & PROBE_TOOL_SCOPE ? "tool" : "session");
	sb_addf(b, "[circuit_breaker]\nmax_blocks = %d\ncooldown_seconds = 300\n",
		v->probe & PROBE_BREAKER ? 2 : 1000);
	sb_adds(b, "\n[governance]\ndestructive_commands = false\n");
	switch (v->tmpl) {
	case TMPL_NAMED: sb_adds(b, "\n[templates]\nactive = \"v2\"\n"); break;
	case TMPL_NAMED_MISSING: sb_adds(b, "\n[templates]\nactive = \"v9\"\n"); break;
	case TMPL_RANDOM_SINGLE: sb_adds(b, "\n[templates]\nactive = \"random\"\nweights = { v2 = 100 }\n"); break;
	default: break;
	}
}

/*
 * The template file of this variant, if any: its name and text. Template
 * files are never empty: roz in C falls back to its built-in text for an
 * empty file, the Rust roz blocks with an empty reason (listed: "An empty
 * template file falls back to the built-in text"; --probe empty-template).
 */
static const char *template_file(const variant *v, const char *marker, sbuf *text)
{
	if (v->probe & PROBE_EMPTY_TEMPLATE)
		return "block-default.md";
	if (v->tmpl != TMPL_HOME_DEFAULT && v->tmpl != TMPL_NAMED && v->tmpl != TMPL_RANDOM_SINGLE)
		return NULL;
	sb_addf(text, "Custom review template %s.\n\nSESSION_ID={{session_id}}\n\n"
		      "Start roz:roz with SESSION_ID={{session_id}} and wait for its verdict.\n",
		marker);
	return v->tmpl == TMPL_HOME_DEFAULT ? "block-default.md" : "block-v2.md";
}

static void pick_variant(rng *r, variant *v)
{
	unsigned m = rng_below(r, 100);

	v->mode = m < 70 ? MODE_PROMPT : m < 85 ? MODE_ALWAYS : MODE_NEVER;
	v->gates = rng_pct(r, 85);
	v->tmpl = (int)rng_below(r, 5);
	v->codex = rng_pct(r, 30);
	v->gemini = rng_pct(r, 30);
	v->unknown_fields = rng_pct(r, 30);
}

/* ---- a model of the session, to steer the generator around listed differences ------ */

/*
 * Logical time: step k happens at tick 4k. The Rust roz stamps a stop's
 * attempt with a second clock reading after the stop's own, so its attempt is
 * at tick 4k+1; roz in C reads the clock once per call.
 */
typedef struct model {
	bool exists, enabled, approved;
	char decision;  /* 'P', 'C' or 'I' */
	long decided;   /* roz in C: time of the last verdict (decision history) */
	long att_c, att_r; /* last review attempt, as each stamps it */
	long rs_c, rs_r;   /* review_started_at (roz in C ends it after an approval, difference 9) */
	long upd_r;        /* Rust updated_at, which the Rust roz takes as the verdict's date */
	int prompts;       /* prompts stored */
	/*
	 * roz in C's review attempts (when each was made, and whether it is still
	 * pending) and reviewer_started_at: the two decide when roz in C records
	 * an outcome the Rust roz never does (see gen_step).
	 */
	long att_time[MAX_STEPS];
	bool att_pending[MAX_STEPS];
	int natt;
	long reviewer_started; /* -1: no reviewer run seen */
	/*
	 * roz in C's reviewer runs (difference 39), oldest first, as it keeps
	 * them: a launch recorded at the agent's Agent call for roz:roz, not yet
	 * bound to an agent id, or a run bound at a SubagentStart or
	 * SubagentStop; with how often its stop was held. A run whose stop was
	 * never held holds the place of the one reviewer, so another Agent call
	 * for roz:roz is refused; a launch dates the verdict of the next
	 * reviewer's stop from the Agent call. Every step of a sequence runs
	 * within the minute a launch lasts and the hour a run does (see main).
	 */
	struct mrun {
		bool launch;
		long started;
		int stop_blocks;
	} runs[MODEL_RUNS];
	int nruns;
} model;

static void model_init(model *m)
{
	memset(m, 0, sizeof(*m));
	m->decision = 'P';
	m->decided = m->att_c = m->att_r = m->rs_c = m->rs_r = m->upd_r = m->reviewer_started = -1;
}

static void model_run_remove(model *m, int i)
{
	memmove(m->runs + i, m->runs + i + 1, (size_t)(m->nruns - i - 1) * sizeof(m->runs[0]));
	m->nruns--;
}

/* roz in C records a reviewer run (dropping the oldest past its cap); returns its index. */
static int model_run_add(model *m, bool launch, long started)
{
	if (m->nruns >= MODEL_RUNS)
		model_run_remove(m, 0);
	m->runs[m->nruns].launch = launch;
	m->runs[m->nruns].started = started;
	m->runs[m->nruns].stop_blocks = 0;
	m->reviewer_started = started;
	return m->nruns++;
}

/* The launch waiting for its reviewer's id, or -1. */
static int model_launch(const model *m)
{
	for (int i = m->nruns; i-- > 0;)
		if (m->runs[i].launch)
			return i;
	return -1;
}

/* Would roz in C refuse an Agent call for roz:roz, because a reviewer is at work? */
static bool model_reviewer_working(const model *m)
{
	for (int i = 0; i < m->nruns; i++)
		if (!m->runs[i].stop_blocks)
			return true;
	return false;
}

/* The newest attempt still pending, which a verdict answers (both take the newest); -1 if none. */
static int newest_pending(const model *m)
{
	for (int i = m->natt; i-- > 0;)
		if (m->att_pending[i])
			return i;
	return -1;
}

static void model_add_attempt(model *m, long now)
{
	if (m->natt < MAX_STEPS) {
		m->att_time[m->natt] = now;
		m->att_pending[m->natt++] = true;
	}
}

/* Would this stop block? (max_blocks = 1000 is never reached, and COMPLETE counts at once.) */
static bool stop_blocks(const model *m)
{
	return m->exists && m->enabled && m->decision != 'C';
}

/*
 * Would roz in C mark the previous attempt `not_spawned` at this stop? It does
 * when a stop with no verdict finds an attempt still pending and no reviewer
 * started since it was made; the Rust roz leaves it pending.
 */
static bool stop_not_spawned(const model *m)
{
	int p = newest_pending(m);

	return stop_blocks(m) && m->decision == 'P' && p >= 0 &&
	       !(m->reviewer_started >= 0 && m->reviewer_started >= m->att_time[p]);
}

/* ---- steps ----------------------------------------------------------------------- */

enum { STEP_HOOK, STEP_DECIDE, STEP_DEBUG };

typedef struct step {
	int kind;
	const char *event;      /* hook name */
	char *input;            /* hook input JSON */
	int argc;               /* decide: arguments after "decide"; debug: the session id */
	char *argv[MAX_ARGS];
	bool enables;           /* a prompt that starts a review cycle */
	bool big;               /* a tool input over 10 KiB, stored cut down if gated */
} step;

typedef struct stats {
	unsigned long sequences, steps, answers, states, cut_inputs;
	unsigned long avoided_gate_issues, avoided_reviewer_date, avoided_prompt_cap;
	unsigned long avoided_not_spawned, avoided_start_missing, avoided_second_reviewer;
	unsigned long avoided_unreadable, reviewer_calls;
	struct {
		char kind[48];
		unsigned long n;
	} kinds[64];
	size_t nkinds;
} stats;

static void count_kind(stats *st, const char *kind)
{
	for (size_t i = 0; i < st->nkinds; i++)
		if (strcmp(st->kinds[i].kind, kind) == 0) {
			st->kinds[i].n++;
			return;
		}
	if (st->nkinds < sizeof(st->kinds) / sizeof(st->kinds[0])) {
		snprintf(st->kinds[st->nkinds].kind, sizeof(st->kinds[0].kind), "%s", kind);
		st->kinds[st->nkinds++].n = 1;
	}
}

typedef struct seq {
	uint64_t seed;
	unsigned long index;
	rng r;
	variant v;
	model m;
	char sid[48], missing[48], marker[48];
	char root[PATH_MAX], home[2][PATH_MAX], bindir[PATH_MAX], pathenv[PATH_MAX + 32];
	step *steps;
	size_t n;
	step queued; /* the reviewer's `roz decide`, to run after its Bash call */
	bool has_queued;
	char **texts; /* summaries and messages the decide steps supplied */
	size_t ntexts;
	/* difference 8: Rust block_count when the current review cycle began */
	unsigned long base;
	long *attempt_base; /* per Rust attempt: the base when its verdict was recorded */
	stats *st;
} seq;

static void add_text(seq *q, const char *s)
{
	q->texts = xrealloc(q->texts, (q->ntexts + 1) * sizeof(*q->texts));
	q->texts[q->ntexts++] = xstrdup(s);
}

/*
 * A hook input with the fields Claude Code always sends, plus `extra`'s, plus
 * `raw` (members as JSON text) when given: tool input is passed as written,
 * because printing it through cJSON would round its numbers before either
 * binary sees them.
 */
static char *hook_input(const seq *q, const char *event_name, cJSON *extra, const char *raw)
{
	cJSON *o = cJSON_CreateObject();
	char transcript[128], *text;
	cJSON *child;

	snprintf(transcript, sizeof(transcript), "/home/u/.claude/projects/p/%s.jsonl", q->sid);
	cJSON_AddStringToObject(o, "session_id", q->sid);
	cJSON_AddStringToObject(o, "transcript_path", transcript);
	cJSON_AddStringToObject(o, "cwd", "/work/project");
	cJSON_AddStringToObject(o, "permission_mode", "default");
	cJSON_AddStringToObject(o, "hook_event_name", event_name);
	/* fields neither knows are ignored by both */
	if (q->v.unknown_fields)
		cJSON_AddItemToObject(o, "future_field", cJSON_Parse("{\"nested\":[1,\"two\",null]}"));
	if (extra) {
		while ((child = extra->child)) {
			cJSON_DetachItemViaPointer(extra, child);
			cJSON_AddItemToObject(o, child->string, child);
		}
		cJSON_Delete(extra);
	}
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		die("out of memory");
	if (raw) {
		sbuf b = {0};

		sb_add(&b, text, strlen(text) - 1); /* all but the closing brace */
		sb_addf(&b, ",%s}", raw);
		free(text);
		text = b.p;
		/* a slip in the generator would make both drop the call and pass unseen */
		o = cJSON_Parse(text);
		if (!cJSON_IsObject(o))
			die("generated hook input is not a JSON object: %.200s", text);
		cJSON_Delete(o);
	}
	return text;
}

/* Prompt words: ASCII, so prompts stay under 10 KiB (difference 4 cuts longer ones). */
static const char *const words[] = {
	"fix", "the", "signup", "form", "add", "tests", "for", "parser", "refactor", "docs",
	"\"quoted\"", "back\\slash", "tab\there", "new\nline", "50%", "<b>", "&", "'single'",
	"{braces}", "$HOME", "#roz", "please",
};

/*
 * Leading white space before `#roz`: both skip what Rust's trim_start skips
 * (Unicode White_Space: \t to \r, space, U+0085, U+00A0, U+1680, U+2000 to
 * U+200A, U+2028, U+2029, U+202F, U+205F, U+3000; fixed in roz in C by
 * b9590bd), and neither skips the zero-width space U+200B or U+FEFF.
 */
static const char *const lead_space[] = {
	" ", "\t", "\n", "  \r\n", "\n\n ", "\v", "\f", "\xc2\x85", "\xc2\xa0", "\xe1\x9a\x80",
	"\xe2\x80\x80", "\xe2\x80\x8a", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf",
	"\xe2\x81\x9f", "\xe3\x80\x80", " \xe3\x80\x80\t",
};
static const char *const not_space[] = {"\xe2\x80\x8b", "\xef\xbb\xbf", "\xe2\x81\xa0"};

/* Length of the white space character at p, as Rust's char::is_whitespace sees it, or 0. */
static size_t rust_space_len(const unsigned char *p)
{
	if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		return 1;
	if (p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
		return 2;
	if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] <= 0x8a || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
		return 3;
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
		return 3;
	return 0;
}

/*
 * Prompts never start with `<task-notification>` (difference 13). ASCII
 * only apart from the leading space, under 10 KiB (difference 4).
 */
static void gen_prompt(seq *q, unsigned k, sbuf *p)
{
	unsigned r = rng_below(&q->r, 100), n, i;
	size_t want = 0;

	if (q->v.probe & PROBE_NOTIFICATION && rng_pct(&q->r, 30)) {
		sb_addf(p, "<task-notification>task %u finished</task-notification>", k);
		return;
	}
	if (r < 30)
		sb_adds(p, "#roz ");
	else if (r < 38)
		sb_addf(p, "%s#roz ", PICK(&q->r, lead_space));
	else if (r < 40)
		sb_addf(p, "%s#roz ", PICK(&q->r, not_space));
	else if (r < 43)
		sb_adds(p, "#roz");
	else if (r < 45)
		sb_adds(p, "#rozzy ");
	else if (r < 47)
		sb_adds(p, "#ROZ ");
	else if (r < 49)
		sb_adds(p, "please #roz ");
	else if (r < 51)
		return; /* the empty prompt */
	else if (r < 55) {
		if (rng_pct(&q->r, 50))
			sb_adds(p, "#roz ");
		want = 1000 + rng_below(&q->r, 8000);
	}
	n = 1 + rng_below(&q->r, 8);
	for (i = 0; i < n || p->len < want; i++) {
		sb_adds(p, PICK(&q->r, words));
		sb_adds(p, " ");
	}
	sb_addf(p, "{P%u}", k);
}

static bool prompt_enables(const variant *v, const char *prompt)
{
	size_t n;

	if (v->mode == MODE_ALWAYS)
		return true;
	if (v->mode == MODE_NEVER)
		return false;
	while ((n = rust_space_len((const unsigned char *)prompt)) != 0)
		prompt += n;
	return strncmp(prompt, "#roz", 4) == 0;
}

/*
 * Tool calls, and whether each falls under the gate patterns above. Every
 * Bash line here has the same key in both: the gated command is the line's
 * only command or the sink of its last pipe, and the key is under 80
 * characters. roz in C reads the shell and matches every simple command,
 * whole; the Rust roz matches the text after the last `|`, cut to 80
 * characters (docs/differences.md, "Gates read the shell"). Lines where that
 * makes a difference are in shell_calls, with --probe shell.
 */
static const struct tool_call {
	const char *name;
	const char *input; /* NULL: a Write whose input is over 10 KiB */
	bool gated;
} tool_calls[] = {
	{"Bash", "{\"command\":\"git push origin main\",\"description\":\"Push\"}", true},
	{"Bash", "{\"command\":\"git push\"}", true},
	{"Bash", "{\"command\":\"echo y | git push --force\"}", true},
	{"Bash", "{\"command\":\"FOO=1 BAR='a b' git push\"}", true},
	{"Bash", "{\"command\":\"env A=1 git push origin\"}", true},
	{"Bash", "{\"command\":\"bash -c 'git push'\"}", true},
	{"Bash", "{\"command\":\"sh -c \\\"git push -u\\\" && echo done\"}", true},
	{"Bash", "{\"command\":\"  git push  \"}", true},
	{"Bash", "{\"command\":\"git push-backup\"}", true},
	{"Bash", "{\"command\":\"git push origin feature/branch-name --force-with-lease --verbose\"}", true},
	{"Bash", "{\"command\":\"git status\"}", false},
	{"Bash", "{\"command\":\"echo 'a | git push'\"}", false},
	{"Bash", "{\"command\":\"ls | wc -l\"}", false},
	{"Bash", "{\"command\":\"gh issue close 12\"}", false},
	{"Bash", "{\"command\":\"echo git push\"}", false},
	{"Bash", "{\"description\":\"no command\"}", false},
	{"mcp__tissue__close_issue", "{\"issue\":\"T-1\",\"reason\":\"done\",\"n\":3}", true},
	{"mcp__tissue__close_all", "{\"ids\":[1,2,3.5,-4,0.25,1e3,4096],\"dry\":false,\"note\":null}", true},
	/*
	 * Numbers both keep exactly (fixed in roz in C by b9590bd, which keeps
	 * the digits as written): integers a 64-bit integer holds, even past
	 * 2^53, and decimals a double holds. The Rust roz prints 2.5e+3 as
	 * 2500.0; the comparison reads numbers as exact decimals.
	 */
	{"mcp__tissue__close_issue",
	 "{\"issue\":12345678901234567890,\"parent\":9007199254740993,\"max\":18446744073709551615,"
	 "\"min\":-9223372036854775808,\"f\":[0.1,1e-7,2.5e+3,-0,1.0,6.02214076e23]}", true},
	{"mcp__tissue__list_issues", "{}", false},
	{"Write", "{\"file_path\":\"/work/a.txt\",\"content\":\"hello\\n\"}", true},
	{"Write", NULL, true},
	{"Edit", "{\"file_path\":\"/work/a.c\",\"old_string\":\"a\",\"new_string\":\"b\"}", true},
	{"Read", "{\"file_path\":\"/work/a.c\"}", false},
	{"Agent", "{\"subagent_type\":\"roz:roz\",\"prompt\":\"SESSION_ID=x\"}", false},
};

/*
 * With --probe shell: lines whose key differs between the two by design. The
 * Rust roz does not gate `true || git push`, `cd /w && git push` or
 * `git -C /w push` (its key is the whole line), asks nothing about a command
 * it cannot read (roz in C answers `ask` when a Bash gate exists), and stores
 * the first 80 characters of a long command as the key.
 */
static const struct tool_call shell_calls[] = {
	{"Bash", "{\"command\":\"true || git push\"}", true},
	{"Bash", "{\"command\":\"cd /work && git push\"}", true},
	{"Bash", "{\"command\":\"git -C /work push\"}", true},
	{"Bash", "{\"command\":\"$GIT push\"}", false},
	{"Bash", "{\"command\":\"git push origin feature/a-very-long-branch-name-that-goes-on-and-on-and-on "
		 "--force-with-lease --verbose\"}", true},
};

/*
 * Calls made by the roz:roz reviewer (agent_id and agent_type on the input):
 * roz in C lets the reviewer run `roz decide`, and neither gates these.
 */
static const struct tool_call reviewer_calls[] = {
	{"Bash", "{\"command\":\"roz decide cmp COMPLETE 'all checks pass' --opinions 'codex agreed'\"}", false},
	{"Bash", "{\"command\":\"git diff HEAD~1 | head -50\"}", false},
	{"Read", "{\"file_path\":\"/work/a.c\"}", false},
};

/*
 * With --probe self-approval: the agent itself running roz. roz in C denies
 * `roz decide` from the main agent, also from an interpreter's inline code
 * (difference 16), and `roz hook` from any tool call, gates or no gates; the
 * Rust roz lets them run (listed: "Only the reviewer can record a verdict").
 */
static const struct tool_call self_approval_calls[] = {
	{"Bash", "{\"command\":\"roz decide cmp COMPLETE 'looks fine'\"}", false},
	{"Bash", "{\"command\":\"echo ok && /usr/local/bin/roz hook stop\"}", false},
	{"Bash", "{\"command\":\"python3 -c 'import subprocess; subprocess.run([\\\"roz\\\", \\\"decide\\\", "
		 "\\\"cmp\\\", \\\"COMPLETE\\\", \\\"ok\\\"])'\"}", false},
};

/*
 * With --probe big-numbers: numbers the Rust roz reads into a double and
 * rounds, past the range of 64-bit integers or with more digits than a double
 * holds, which roz in C keeps as written; and 1e400, which makes the Rust roz
 * reject the whole input and allow the call (roz in C stores it and denies).
 * Found by this test; see README.
 */
static const struct tool_call big_number_calls[] = {
	{"mcp__tissue__close_issue", "{\"issue\":123456789012345678901}", true},
	{"mcp__tissue__close_issue", "{\"issue\":-9223372036854775809}", true},
	{"mcp__tissue__close_issue", "{\"pi\":3.14159265358979323846}", true},
	{"mcp__tissue__close_issue", "{\"huge\":1e400}", true},
};

/* The text of one value in a big tool input, each character kind the two must escape alike. */
static void big_text(seq *q, sbuf *b, size_t len, bool multibyte)
{
	static const char *const pieces[] = {
		"plain words ", "\\\"quoted\\\" ", "back\\\\slash ", "tab\\there ", "new\\nline ", "cr\\r ",
		"\\u0001\\u001f ctl ", "slash/ ", "<html> & ", "caf\xc3\xa9 ", "\xe2\x9c\x93 ", "\xf0\x9f\x98\x80 ",
		"\\u007f del ", "\\u00e9 escaped ",
	};
	size_t start = b->len;

	sb_adds(b, "\"");
	/*
	 * Both cut a long string to its first 200 bytes. roz in C cuts on a
	 * character boundary; the Rust roz slices at byte 200 and panics when
	 * that is inside a character (found by this test; see README), so
	 * strings start with 200 ASCII bytes unless --probe multibyte-cut.
	 */
	for (size_t i = 0; i < 200; i++)
		sb_add(b, multibyte && i == 199 ? "\xc3\xa9" : &"abcdefghijklmnopqrstuvwxyz"[(i * 7 + q->index) % 26],
		       multibyte && i == 199 ? 2 : 1);
	while (b->len - start < len)
		sb_adds(b, PICK(&q->r, pieces));
	sb_adds(b, "\"");
}

/*
 * A tool input over 10 KiB, stored cut down with a hash and the size of the
 * original. Both hash the input with object keys sorted at every level
 * (fixed in roz in C by b9590bd), so keys come in any order here, Claude
 * Code's file_path first most often. Numbers are written as serde_json prints
 * them: roz in C hashes a number as written, the Rust roz as it prints it
 * again (`1e3` as `1000.0`; --probe number-hash, found by this test).
 */
static char *big_write_input(seq *q)
{
	static const char *const numbers[] = {"4096", "-17", "0.25", "1.0", "12345678901234567890", "1e-7"};
	static const char *const odd_numbers[] = {"1e3", "2.50", "1E+2", "-0", "0.1e1"};
	bool multibyte = q->v.probe & PROBE_MULTIBYTE_CUT;
	sbuf b = {0};
	unsigned order = rng_below(&q->r, 4);

	sb_adds(&b, "{");
	if (order != 3)
		sb_adds(&b, "\"file_path\":\"/work/big.txt\",");
	sb_adds(&b, "\"content\":");
	big_text(q, &b, 10500 + rng_below(&q->r, 4000), multibyte);
	if (order == 3)
		sb_adds(&b, ",\"file_path\":\"/work/big.txt\"");
	if (order >= 1) {
		/* nested objects and arrays: each level's keys are sorted for the hash */
		sb_addf(&b, ",\"zmeta\":{\"n\":%s,\"b\":[%s,\"x\",null,true,{\"y\":2,\"a\":1}],\"a\":",
			q->v.probe & PROBE_NUMBER_HASH ? PICK(&q->r, odd_numbers) : PICK(&q->r, numbers),
			PICK(&q->r, numbers));
		big_text(q, &b, 300 + rng_below(&q->r, 300), multibyte);
		sb_adds(&b, "}");
	}
	if (order == 2) {
		sb_adds(&b, ",\"list\":[");
		for (unsigned i = 0, n = 5 + rng_below(&q->r, 20); i < n; i++)
			sb_addf(&b, "%s%s", i ? "," : "", PICK(&q->r, numbers));
		sb_adds(&b, "]");
	}
	sb_adds(&b, "}");
	return b.p;
}

static const char *const summary_forms[] = {
	"all checks pass %s", "tests fail in the parser %s", "needs \"quotes\" & 'apostrophes' %s",
	"two\nlines %s", "\xc3\xbc" "n" "\xc3\xaf" "c" "\xc3\xb6" "de \xe2\x9c\x93 %s", "back\\slash $HOME `cmd` %s",
	"tab\tseparated %s",
};
static const char *const message_forms[] = {
	"fix the failing test %s", "rename foo to bar; rerun make check %s", "multi\nline fix %s",
	"\xc3\xb1 unicode fix %s",
};

static char *fmt_tagged(const char *form, char tag, unsigned k)
{
	char t[32];
	sbuf b = {0};

	snprintf(t, sizeof(t), "{%c%u}", tag, k);
	sb_addf(&b, form, t);
	return b.p;
}

static void gen_decide(seq *q, unsigned k, step *st)
{
	static const char *const complete[] = {"COMPLETE", "complete", "Complete"};
	static const char *const issues[] = {"ISSUES", "issues", "Issues"};
	static const char *const invalid[] = {"MAYBE", "approve", "COMPLETED", ""};
	model *m = &q->m;
	unsigned v = rng_below(&q->r, 100);
	bool main_sid = rng_pct(&q->r, 85), is_c = v < 42, is_i = !is_c && v < 88;
	const char *verdict = is_c ? PICK(&q->r, complete) : is_i ? PICK(&q->r, issues) : PICK(&q->r, invalid);
	char *summary = fmt_tagged(PICK(&q->r, summary_forms), 'S', k), *message = NULL, *opinions = NULL;
	char *opts[4];
	int nopts = 0, a = 0;

	if (rng_pct(&q->r, is_c ? 10 : 65))
		message = fmt_tagged(PICK(&q->r, message_forms), 'M', k);
	if (rng_pct(&q->r, is_c ? 25 : 5))
		opinions = fmt_tagged("codex agreed %s", 'O', k);
	add_text(q, summary);
	if (message)
		add_text(q, message);
	if (message) {
		unsigned f = rng_below(&q->r, 3);

		if (f == 2) {
			sbuf b = {0};

			sb_addf(&b, "--message=%s", message);
			opts[nopts++] = b.p;
		} else {
			opts[nopts++] = xstrdup(f ? "-m" : "--message");
			opts[nopts++] = xstrdup(message);
		}
	}
	if (opinions) {
		opts[nopts++] = xstrdup(rng_pct(&q->r, 50) ? "-o" : "--opinions");
		opts[nopts++] = xstrdup(opinions);
	}
	st->kind = STEP_DECIDE;
	/* options usually follow the arguments, as the reviewer writes them, sometimes lead */
	if (rng_pct(&q->r, 20))
		for (int i = 0; i < nopts; i++)
			st->argv[a++] = opts[i];
	st->argv[a++] = xstrdup(main_sid ? q->sid : q->missing);
	st->argv[a++] = xstrdup(verdict);
	st->argv[a++] = summary;
	if (a == 3)
		for (int i = 0; i < nopts; i++)
			st->argv[a++] = opts[i];
	st->argc = a;
	free(message);
	free(opinions);
	if (main_sid && m->exists && (is_c || is_i)) {
		int p = newest_pending(m);

		m->decision = is_c ? 'C' : 'I';
		m->decided = m->upd_r = (long)k * 4;
		if (is_c)
			m->approved = true;
		/* with require_reviewer = false both mark the newest pending attempt a success */
		if (p >= 0)
			m->att_pending[p] = false;
	}
}

/*
 * roz in C's lower bound for a reviewer's verdict at a SubagentStop with an
 * agent id it has not seen: the Agent call of a launch waiting for its
 * reviewer (difference 39), else the last block, else the gate.
 */
static long reviewer_lower_c(const model *m)
{
	int i = model_launch(m);

	if (i >= 0)
		return m->runs[i].started;
	return m->att_c >= 0 ? m->att_c : m->rs_c;
}

/* Would the two read a reviewer's stop differently because of the verdict-dating correction? */
static bool reviewer_dates_disagree(const model *m)
{
	long lower_c = reviewer_lower_c(m), lower_r = m->att_r >= 0 ? m->att_r : m->rs_r;
	bool stale_c = lower_c >= 0 && m->decided < lower_c, stale_r = lower_r >= 0 && m->upd_r < lower_r;

	return m->exists && m->decision != 'P' && stale_c != stale_r;
}

/*
 * Input neither can use: both answer {} (the Rust roz's explicit allow for a
 * tool call) and store nothing. (Mistyped fields that only roz in C reads,
 * tool_use_id, prompt_id and background_tasks, are no reason to drop the call
 * since b9590bd; well-formed steps carry them, see gen_step.) A JSON array
 * only with --probe array-input: the Rust roz reads it as the fields in
 * declaration order (listed: "A JSON array is not hook input").
 *
 * roz in C judges hook input field by field (difference 21): input without
 * `cwd`, or with a field of the wrong type, is read, where the Rust roz drops
 * the whole of it; those come only with --probe field-types. And a tool call
 * it cannot read while gates are configured is `ask` (difference 23), so
 * unusable PreToolUse input is redrawn when gates exist, except with --probe
 * unreadable-call.
 */
static bool gen_malformed(seq *q, step *st)
{
	static const char *const events[] = {"session-start", "user-prompt", "pre-tool-use", "stop",
					     "subagent-stop", "session-end", "post-tool-use", "notification"};
	unsigned form = rng_below(&q->r, 7);
	sbuf b = {0};

	st->kind = STEP_HOOK;
	st->event = PICK(&q->r, events);
	if ((form == 3 || form == 4 || form == 5) && !(q->v.probe & PROBE_FIELD_TYPES))
		form = 6;
	if (form < 6 && strcmp(st->event, "pre-tool-use") == 0 && q->v.gates &&
	    !(q->v.probe & PROBE_UNREADABLE_CALL)) {
		q->st->avoided_unreadable++;
		return false;
	}
	switch (form) {
	case 0: sb_adds(&b, "this is not json"); break;
	case 1: break; /* empty input */
	case 2:
		if (q->v.probe & PROBE_ARRAY_INPUT)
			sb_addf(&b, "[\"%s\", \"/w\", null, null, null, \"#roz from an array\"]", q->sid);
		else
			sb_adds(&b, "{\"session_id\": 12, \"cwd\": \"/w\"}");
		break;
	case 3: sb_addf(&b, "{\"session_id\":\"%s\",\"hook_event_name\":\"Stop\"}", q->sid); break; /* no cwd */
	case 4:
		sb_addf(&b, "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"prompt\":5,\"agent_type\":7}", q->sid);
		break;
	case 5:
		sb_addf(&b, "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"stop_hook_active\":\"yes\"}", q->sid);
		break;
	default:
		/* an event neither knows, with input that is fine */
		st->event = rng_pct(&q->r, 50) ? "post-tool-use" : "notification";
		sb_addf(&b, "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"prompt\":\"#roz x\"}", q->sid);
	}
	st->input = b.p ? b.p : xstrdup("");
	return true;
}

/* A `roz decide` neither accepts: both fail and store nothing. */
static void gen_bad_decide(seq *q, step *st)
{
	static const char *const forms[][4] = {
		{"COMPLETE", NULL, NULL, NULL},               /* no summary */
		{"ISSUES", "a", "b", NULL},                   /* one argument too many */
		{NULL, NULL, NULL, NULL},                     /* nothing but the id */
		{"COMPLETE", "ok", "--unknown-option", NULL}, /* an option neither has */
		{"ISSUES", "bad", "--message", NULL},         /* an option without its value */
	};
	unsigned f = rng_below(&q->r, sizeof(forms) / sizeof(forms[0]));

	st->kind = STEP_DECIDE;
	st->argv[st->argc++] = xstrdup(q->sid);
	for (int i = 0; i < 4 && forms[f][i]; i++)
		st->argv[st->argc++] = xstrdup(forms[f][i]);
}

/*
 * Agent ids of subagent hooks. Every SubagentStart and every reviewer's
 * SubagentStop has an id of its own, so roz in C never finds a run it
 * tracked (listed: "A verdict counts only when a reviewer vouches for it"):
 * it dates the review from the last attempt or gate as the Rust roz does, and
 * holds no reviewer's stop a third time (after two holds it lets the reviewer
 * go as `no_decision`, where the Rust roz holds it again). --probe
 * reviewer-runs gives them all one id.
 */
static void agent_id(const seq *q, unsigned k, const char *what, char *out, size_t cap)
{
	if (q->v.probe & PROBE_REVIEWER_RUNS)
		snprintf(out, cap, "a1b2c3");
	else
		snprintf(out, cap, "%s-%u", what, k);
}

/*
 * SubagentStart: roz in C starts tracking a roz:roz reviewer run (a
 * `reviewer_started` trace event, left out of the comparison); the Rust roz
 * has no such hook and answers {}.
 */
static void gen_subagent_start(seq *q, unsigned k, step *st, bool reviewer)
{
	cJSON *x = cJSON_CreateObject();
	char id[32];

	agent_id(q, k, "start", id, sizeof(id));
	st->kind = STEP_HOOK;
	st->event = "subagent-start";
	cJSON_AddStringToObject(x, "agent_id", id);
	cJSON_AddStringToObject(x, "agent_type", reviewer ? "roz:roz" : "Explore");
	st->input = hook_input(q, "SubagentStart", x, NULL);
	if (reviewer && q->m.exists) {
		/* the reviewer of a launch: its run starts now */
		int i = model_launch(&q->m);

		if (i >= 0) {
			q->m.runs[i].launch = false;
			q->m.runs[i].started = q->m.reviewer_started = (long)k * 4;
		} else {
			model_run_add(&q->m, false, (long)k * 4);
		}
	}
}

/*
 * background_tasks on a Stop, which only roz in C reads: while a roz:roz
 * reviewer runs in the background it asks the agent to wait instead of
 * blocking for a review (listed: "Background reviewers"). So the list holds a
 * running roz:roz reviewer only with --probe background; other tasks, a
 * finished reviewer, near-miss names and a list of the wrong type (ignored by
 * roz in C since b9590bd) change no answer in either. Returns whether the
 * Stop carries a list: roz in C then forgets the reviewer runs it does not
 * name (difference 39), which decides whether a later Agent call for roz:roz
 * is refused.
 */
static bool add_background_tasks(seq *q, cJSON *x)
{
	static const char *const tasks[] = {
		"{\"id\":\"b1\",\"type\":\"subagent\",\"status\":\"running\",\"agent_type\":\"Explore\","
		"\"description\":\"search\"}",
		"{\"id\":\"b2\",\"type\":\"subagent\",\"status\":\"completed\",\"agent_type\":\"roz:roz\"}",
		"{\"id\":\"b3\",\"type\":\"bash\",\"status\":\"running\",\"command\":\"make check\"}",
		"{\"id\":\"b4\",\"type\":\"subagent\",\"status\":\"running\",\"agent_type\":\"ROZ:ROZ\"}",
		"{\"id\":\"b5\",\"status\":\"running\"}",
	};
	static const char *const mistyped[] = {"\"none\"", "{}", "[1,2,3]", "7"};
	unsigned r = rng_below(&q->r, 100);
	cJSON *list;

	if (r < 55)
		return false;
	if (r < 65) {
		cJSON *v = cJSON_Parse(PICK(&q->r, mistyped));
		bool array = cJSON_IsArray(v);

		cJSON_AddItemToObject(x, "background_tasks", v);
		return array;
	}
	list = cJSON_AddArrayToObject(x, "background_tasks");
	for (unsigned i = 0, n = rng_below(&q->r, 3); i < n; i++)
		cJSON_AddItemToArray(list, cJSON_Parse(PICK(&q->r, tasks)));
	if (q->v.probe & PROBE_BACKGROUND && rng_pct(&q->r, 60))
		cJSON_AddItemToArray(list, cJSON_Parse("{\"id\":\"b9\",\"type\":\"subagent\",\"status\":\"running\","
						       "\"agent_type\":\"roz:roz\",\"description\":\"review\"}"));
	return true;
}

/* The tool call of a pre-tool-use step: the default list, or with a probe one of its calls. */
static const struct tool_call *pick_tool(seq *q)
{
	if (q->v.probe & PROBE_SHELL && rng_pct(&q->r, 30))
		return &PICK(&q->r, shell_calls);
	if (q->v.probe & PROBE_SELF_APPROVAL && rng_pct(&q->r, 30))
		return &PICK(&q->r, self_approval_calls);
	if (q->v.probe & PROBE_BIG_NUMBERS && rng_pct(&q->r, 30))
		return &PICK(&q->r, big_number_calls);
	return &PICK(&q->r, tool_calls);
}

/*
 * The reviewer runs `roz decide` from its own Bash tool, so every decide step
 * follows the PreToolUse of that call, sent to both. roz in C issues the
 * ticket a verdict needs there (difference 14) only when
 * review.require_reviewer is true; with it false, as here, it issues none, a
 * verdict needs none, and the call is answered {} as the Rust roz allows it.
 */
static void gen_reviewer_call(seq *q, unsigned k, const step *decide, step *st)
{
	cJSON *x = cJSON_CreateObject(), *ti;
	sbuf line = {0};
	char id[32], use[32];

	sb_adds(&line, "roz decide");
	for (int a = 0; a < decide->argc; a++) {
		sb_adds(&line, " ");
		sh_quote(&line, decide->argv[a]);
	}
	snprintf(id, sizeof(id), "reviewer-%u", k);
	snprintf(use, sizeof(use), "toolu_%04u", k);
	cJSON_AddStringToObject(x, "agent_id", id);
	cJSON_AddStringToObject(x, "agent_type", "roz:roz");
	cJSON_AddStringToObject(x, "tool_name", "Bash");
	ti = cJSON_AddObjectToObject(x, "tool_input");
	cJSON_AddStringToObject(ti, "command", line.p);
	cJSON_AddStringToObject(ti, "description", "Record the verdict");
	cJSON_AddStringToObject(x, "tool_use_id", use);
	st->kind = STEP_HOOK;
	st->event = "pre-tool-use";
	st->input = hook_input(q, "PreToolUse", x, NULL);
	free(line.p);
	q->st->reviewer_calls++;
}

/* Generate step k, or return false to try another draw (it would hit a listed difference). */
static bool gen_step(seq *q, unsigned k, step *st)
{
	model *m = &q->m;
	long now = (long)k * 4;
	unsigned w;
	cJSON *x;

	if (q->has_queued) {
		/* the decide whose Bash call was the step before */
		*st = q->queued;
		q->has_queued = false;
		return true;
	}
	w = rng_below(&q->r, 100);
	x = cJSON_CreateObject();
	memset(st, 0, sizeof(*st));
	st->kind = STEP_HOOK;
	if (w < 6) {
		static const char *const sources[] = {"startup", "resume", "clear", "compact"};

		st->event = "session-start";
		cJSON_AddStringToObject(x, "source", PICK(&q->r, sources));
		if (rng_pct(&q->r, 50))
			cJSON_AddStringToObject(x, "model", "claude-sonnet-4-5");
		st->input = hook_input(q, "SessionStart", x, NULL);
		if (!m->exists) {
			m->exists = true;
			m->upd_r = now;
		}
	} else if (w < 24) {
		sbuf p = {0};
		unsigned id = rng_below(&q->r, 100);

		gen_prompt(q, k, &p);
		st->enables = prompt_enables(&q->v, sb_str(&p));
		if (st->enables && m->prompts >= MAX_PROMPTS) {
			q->st->avoided_prompt_cap++;
			free(p.p);
			cJSON_Delete(x);
			return false;
		}
		st->event = "user-prompt";
		cJSON_AddStringToObject(x, "prompt", sb_str(&p));
		/* a mistyped prompt_id is ignored by both (by roz in C since b9590bd) */
		if (id < 50) {
			char pid[32];

			snprintf(pid, sizeof(pid), "prompt-%u", k);
			cJSON_AddStringToObject(x, "prompt_id", pid);
		} else if (id < 60)
			cJSON_AddNumberToObject(x, "prompt_id", k);
		free(p.p);
		st->input = hook_input(q, "UserPromptSubmit", x, NULL);
		m->exists = true;
		if (m->decision == 'C')
			m->rs_c = -1;
		m->upd_r = now;
		if (st->enables) {
			m->enabled = true;
			m->decision = 'P';
			m->prompts++;
		}
	} else if (w < 44) {
		unsigned who = rng_below(&q->r, 100);
		const struct tool_call *tc = who < 10 ? &PICK(&q->r, reviewer_calls) : pick_tool(q);
		bool gated = tc->gated && q->v.gates;
		/* the Agent call for roz:roz, from the main agent or another subagent */
		bool launch = who >= 10 && strcmp(tc->name, "Agent") == 0;
		char *big = NULL;
		sbuf raw = {0};

		/*
		 * roz in C records the launch of a reviewer in the session, creating
		 * it (so, like a roz:roz SubagentStart, only once the session exists),
		 * and refuses a second reviewer while one works, where the Rust roz
		 * allows every Agent call (listed, 39; --probe second-reviewer).
		 */
		if (launch && !m->exists && !(q->v.probe & PROBE_REVIEWER_RUNS)) {
			q->st->avoided_start_missing++;
			cJSON_Delete(x);
			return false;
		}
		if (launch && m->exists && model_reviewer_working(m) && !(q->v.probe & PROBE_SECOND_REVIEWER)) {
			q->st->avoided_second_reviewer++;
			cJSON_Delete(x);
			return false;
		}

		/*
		 * A gate that starts a review makes the decision pending in roz in C
		 * only (a listed correction). With session scope a COMPLETE always
		 * lets the call through, so only a standing ISSUES is affected.
		 */
		if (gated && m->decision == 'I' && !(q->v.probe & PROBE_GATE_ISSUES)) {
			q->st->avoided_gate_issues++;
			cJSON_Delete(x);
			return false;
		}
		st->event = "pre-tool-use";
		/* the agent fields Claude Code adds to a subagent's tool calls; gates apply alike */
		if (who < 10 || who >= 90) {
			char id[32];

			snprintf(id, sizeof(id), "agent-%u", k);
			cJSON_AddStringToObject(x, "agent_id", id);
			cJSON_AddStringToObject(x, "agent_type", who < 10 ? "roz:roz" : "Explore");
		}
		cJSON_AddStringToObject(x, "tool_name", tc->name);
		if (!tc->input) {
			big = big_write_input(q);
			st->big = true;
		}
		sb_addf(&raw, "\"tool_input\":%s", tc->input ? tc->input : big);
		/* a mistyped tool_use_id is ignored by both (by roz in C since b9590bd) */
		if (rng_pct(&q->r, 90))
			sb_addf(&raw, ",\"tool_use_id\":\"toolu_%04u\"", k);
		else
			sb_addf(&raw, ",\"tool_use_id\":%u", k);
		st->input = hook_input(q, "PreToolUse", x, raw.p);
		free(big);
		free(raw.p);
		if (launch && m->exists && !model_reviewer_working(m))
			model_run_add(m, true, now);
		if (gated) {
			m->exists = true;
			if (!(m->decision == 'C' && m->approved)) {
				m->enabled = true;
				m->rs_c = m->rs_r = m->upd_r = now;
				m->decision = 'P';
			}
		}
	} else if (w < 62) {
		bool listed;

		/*
		 * A stop that blocks again with no reviewer started since the last
		 * block makes roz in C record that attempt as `not_spawned`, where the
		 * Rust roz leaves it pending and lets a later verdict answer it
		 * (listed: "Attempt outcomes mean something"). Instead the agent
		 * does what the block asked and starts the reviewer.
		 */
		if (stop_not_spawned(m) && !(q->v.probe & PROBE_NOT_SPAWNED)) {
			q->st->avoided_not_spawned++;
			cJSON_Delete(x);
			gen_subagent_start(q, k, st, true);
			return true;
		}
		st->event = "stop";
		/* stop_hook_active is always false or absent (difference 11) */
		if (q->v.probe & PROBE_STOP_ACTIVE && rng_pct(&q->r, 50))
			cJSON_AddTrueToObject(x, "stop_hook_active");
		else if (rng_pct(&q->r, 70))
			cJSON_AddFalseToObject(x, "stop_hook_active");
		if (rng_pct(&q->r, 50))
			cJSON_AddStringToObject(x, "last_assistant_message", "Done. All tests pass.");
		listed = add_background_tasks(q, x);
		st->input = hook_input(q, "Stop", x, NULL);
		if (m->exists) {
			/* runs the list does not name are no longer working (launches have no id yet) */
			for (int i = m->nruns; listed && i-- > 0;)
				if (!m->runs[i].launch && !m->runs[i].stop_blocks)
					model_run_remove(m, i);
			m->upd_r = now;
			if (stop_blocks(m)) {
				m->att_c = now;
				m->att_r = now + 1;
				model_add_attempt(m, now);
			}
		}
	} else if (w < 74) {
		static const char *const others[] = {"general-purpose", "Explore", "roz", "ROZ:ROZ", NULL};
		bool reviewer = rng_pct(&q->r, 70);
		const char *type = reviewer ? "roz:roz" : PICK(&q->r, others);
		long lower = reviewer_lower_c(m);
		bool vouches = m->decision != 'P' && !(lower >= 0 && m->decided < lower);
		char id[32], path[96];

		if (reviewer && reviewer_dates_disagree(m) && !(q->v.probe & PROBE_REVIEWER_DATE)) {
			q->st->avoided_reviewer_date++;
			cJSON_Delete(x);
			return false;
		}
		st->event = "subagent-stop";
		if (type)
			cJSON_AddStringToObject(x, "agent_type", type);
		agent_id(q, k, "agent", id, sizeof(id));
		snprintf(path, sizeof(path), "/home/u/.claude/agent-%s.jsonl", id);
		cJSON_AddStringToObject(x, "agent_id", id);
		cJSON_AddStringToObject(x, "agent_transcript_path", path);
		cJSON_AddFalseToObject(x, "stop_hook_active");
		st->input = hook_input(q, "SubagentStop", x, NULL);
		/*
		 * roz in C binds the launch waiting for its reviewer, or starts a run
		 * for an agent it has not seen from the lower bound; a verdict it
		 * takes ends the run, one it holds counts the hold. (The verdict
		 * settled its attempt already: the stop settles none, since 8d9d710.)
		 */
		if (reviewer && m->exists) {
			int i = model_launch(m);

			if (i >= 0)
				m->runs[i].launch = false;
			else
				i = model_run_add(m, false, lower >= 0 ? lower : now);
			if (vouches) {
				model_run_remove(m, i);
			} else if (m->runs[i].stop_blocks >= 2) {
				/* held twice already: let go, its attempt `no_decision` */
				int p = newest_pending(m);

				if (p >= 0)
					m->att_pending[p] = false;
				model_run_remove(m, i);
			} else {
				m->runs[i].stop_blocks++;
			}
		}
	} else if (w < 78) {
		bool reviewer = rng_pct(&q->r, 60);

		/*
		 * roz in C creates the session for a roz:roz SubagentStart (it tracks
		 * the run), the Rust roz ignores the hook; so a reviewer starts only
		 * in a session that exists, except with --probe reviewer-runs.
		 */
		if (reviewer && !m->exists && !(q->v.probe & PROBE_REVIEWER_RUNS)) {
			q->st->avoided_start_missing++;
			reviewer = false;
		}
		cJSON_Delete(x);
		gen_subagent_start(q, k, st, reviewer);
	} else if (w < 81) {
		static const char *const reasons[] = {"clear", "logout", "prompt_input_exit", "other", NULL};
		const char *reason = PICK(&q->r, reasons);

		st->event = "session-end";
		if (reason)
			cJSON_AddStringToObject(x, "reason", reason);
		st->input = hook_input(q, "SessionEnd", x, NULL);
	} else if (w < 96 || w >= 98) {
		/* the decide runs at step k + 1 and is modelled with that step's time */
		cJSON_Delete(x);
		memset(&q->queued, 0, sizeof(q->queued));
		if (w < 96)
			gen_decide(q, k + 1, &q->queued);
		else
			gen_bad_decide(q, &q->queued);
		q->has_queued = true;
		gen_reviewer_call(q, k, &q->queued, st);
	} else {
		cJSON_Delete(x);
		return gen_malformed(q, st);
	}
	return true;
}

/* ---- running one side -------------------------------------------------------------- */

typedef struct result {
	int status;
	char *out, *err;
} result;

static void result_dispose(result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

static void run_side(const char *bin, const seq *q, int side, const step *st, result *res)
{
	char in[PATH_MAX + 16], out[PATH_MAX + 16], err[PATH_MAX + 16], home_env[PATH_MAX + 16],
		roz_home_env[PATH_MAX + 16];
	char *argv[MAX_ARGS + 4];
	/*
	 * difference 52: an approval bound to the work; no step here changes a
	 * file, so ours is told not to look (a Write's target it never saw
	 * would otherwise count as work after the approval)
	 */
	char *envp[] = {(char *)q->pathenv, home_env, roz_home_env,
			side == OURS ? "ROZ_REREVIEW_ON_CHANGE=never" : NULL, NULL};
	int a = 0, wstatus;
	pid_t pid;

	snprintf(in, sizeof(in), "%s/io-%s.in", q->root, side_name[side]);
	snprintf(out, sizeof(out), "%s/io-%s.out", q->root, side_name[side]);
	snprintf(err, sizeof(err), "%s/io-%s.err", q->root, side_name[side]);
	snprintf(home_env, sizeof(home_env), "HOME=%s", q->root);
	snprintf(roz_home_env, sizeof(roz_home_env), "ROZ_HOME=%s", q->home[side]);
	write_file(in, st->kind == STEP_HOOK ? st->input : "", 0600);
	argv[a++] = (char *)bin;
	if (st->kind == STEP_HOOK) {
		argv[a++] = "hook";
		argv[a++] = (char *)st->event;
	} else if (st->kind == STEP_DEBUG) {
		argv[a++] = "debug";
		argv[a++] = st->argv[0];
		argv[a++] = "--json";
	} else {
		argv[a++] = "decide";
		for (int i = 0; i < st->argc; i++)
			argv[a++] = st->argv[i];
	}
	argv[a] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		/* close-on-exec: roz gets fds 0-2 and nothing else of ours */
		int fi = open(in, O_RDONLY | O_CLOEXEC),
		    fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600),
		    fe = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fi < 0 || fo < 0 || fe < 0 || dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		/* a clean environment: no ROZ_* setting of the caller leaks in */
		execve(bin, argv, envp);
		dprintf(2, "roz_compare: cannot run %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	res->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	res->out = read_file(out);
	res->err = read_file(err);
	if (!res->out)
		res->out = xstrdup("");
	if (!res->err)
		res->err = xstrdup("");
}

/* ---- the answer, reduced to its meaning ---------------------------------------------- */

typedef struct answer {
	char kind[48];    /* allow, block:template, deny, context, ..., or decide:ok/failed */
	char detail[256]; /* what the step supplied that came back in the text */
	int status;
} answer;

static bool has_timestamp(const char *s)
{
	/* YYYY-MM-DDTHH:MM, as both print a verdict's date */
	for (; s[0]; s++) {
		const char *f = "dddd-dd-ddTdd:dd";
		size_t i;

		for (i = 0; f[i] && s[i]; i++)
			if (f[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != f[i])
				break;
		if (!f[i])
			return true;
	}
	return false;
}

/* The supplied texts found in `text`, by tag ({S4} a summary, {M4} a message). */
static void found_texts(const seq *q, const char *text, char *out, size_t cap)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < q->ntexts; i++) {
		const char *tag = strrchr(q->texts[i], '{');

		if (strstr(text, q->texts[i]) && len + 16 < cap)
			len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "," : "", tag);
	}
}

static void classify(const seq *q, const step *st, const result *r, answer *a)
{
	cJSON *o, *hso, *v;
	char sidtag[80];

	memset(a, 0, sizeof(*a));
	a->status = r->status;
	if (st->kind == STEP_DECIDE) {
		/* success or failure: a usage mistake exits 2 in roz in C, 1 in the Rust roz (listed) */
		snprintf(a->kind, sizeof(a->kind), "decide:%s", r->status == 0 ? "ok" : "failed");
		a->status = r->status == 0 ? 0 : 1;
		return;
	}
	snprintf(sidtag, sizeof(sidtag), "SESSION_ID=%s", q->sid);
	o = cJSON_Parse(r->out);
	if (!o || !cJSON_IsObject(o)) {
		snprintf(a->kind, sizeof(a->kind), "unparsable");
		cJSON_Delete(o);
		return;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "decision");
	hso = cJSON_GetObjectItemCaseSensitive(o, "hookSpecificOutput");
	if (cJSON_IsString(v) && strcmp(v->valuestring, "block") == 0) {
		const cJSON *rs = cJSON_GetObjectItemCaseSensitive(o, "reason");
		const char *reason = cJSON_IsString(rs) ? rs->valuestring : "";

		found_texts(q, reason, a->detail, sizeof(a->detail));
		if (strcmp(st->event, "subagent-stop") == 0)
			/* a verdict's date is quoted only when it is stale or in the future */
			snprintf(a->kind, sizeof(a->kind), "block:%s",
				 has_timestamp(reason) ? "verdict-time"
				 : strstr(reason, "roz decide") ? "no-verdict" : "other");
		else if (strcmp(st->event, "stop") == 0 && a->detail[0])
			snprintf(a->kind, sizeof(a->kind), "block:issues");
		else if (strcmp(st->event, "stop") == 0 && strstr(reason, sidtag)) {
			snprintf(a->kind, sizeof(a->kind), "block:template");
			if (strstr(reason, q->marker))
				snprintf(a->detail, sizeof(a->detail), "custom template");
		} else
			snprintf(a->kind, sizeof(a->kind), "block:other");
	} else if (cJSON_IsObject(hso) && cJSON_GetObjectItemCaseSensitive(hso, "permissionDecision")) {
		const cJSON *pd = cJSON_GetObjectItemCaseSensitive(hso, "permissionDecision");
		const cJSON *rs = cJSON_GetObjectItemCaseSensitive(hso, "permissionDecisionReason");
		const char *d = cJSON_IsString(pd) ? pd->valuestring : "?";

		/* the Rust roz's explicit allow means what roz in C's {} means (difference 10) */
		snprintf(a->kind, sizeof(a->kind), "%s", d);
		if (strcmp(d, "deny") == 0 || strcmp(d, "ask") == 0)
			snprintf(a->detail, sizeof(a->detail), "%s",
				 cJSON_IsString(rs) && strstr(rs->valuestring, sidtag) ? "names the session"
										      : "no session id");
	} else if (cJSON_IsObject(hso) && cJSON_GetObjectItemCaseSensitive(hso, "additionalContext")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(hso, "additionalContext");
		const char *t = cJSON_IsString(c) ? c->valuestring : "";

		snprintf(a->kind, sizeof(a->kind), "context");
		snprintf(a->detail, sizeof(a->detail), "%s%s%s", strstr(t, "codex") ? "codex" : "",
			 strstr(t, "codex") && strstr(t, "gemini") ? "+" : "", strstr(t, "gemini") ? "gemini" : "");
	} else if (!o->child) {
		snprintf(a->kind, sizeof(a->kind), "allow");
	} else {
		snprintf(a->kind, sizeof(a->kind), "other");
		snprintf(a->detail, sizeof(a->detail), "%.200s", r->out);
	}
	cJSON_Delete(o);
}

static bool answers_equal(const answer *a, const answer *b)
{
	return strcmp(a->kind, b->kind) == 0 && strcmp(a->detail, b->detail) == 0 && a->status == b->status;
}

/* ---- the stored state, normalized ------------------------------------------------------ */

static const cJSON *jget(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static bool jpresent(const cJSON *o, const char *k)
{
	const cJSON *v = jget(o, k);

	return v && !cJSON_IsNull(v);
}

/* Copy field k when it is present and not null (null and absent mean the same). */
static void copy_field(cJSON *to, const cJSON *from, const char *k)
{
	const cJSON *v = jget(from, k);

	if (v && !cJSON_IsNull(v))
		cJSON_AddItemToObject(to, k, cJSON_Duplicate(v, true));
}

/*
 * A JSON value's canonical text, read straight from a session file: object
 * keys sorted (key order is not meaning), numbers kept exactly as digits and
 * a power of ten. cJSON holds numbers as doubles, so comparing through it
 * would hide a number that one side rounded. `path` names the value wanted;
 * its canonical text goes to *found.
 */
typedef struct rscan {
	const char *p;
	bool bad;
} rscan;

static void rs_ws(rscan *s)
{
	while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
		s->p++;
}

static void rs_number(rscan *s, sbuf *out)
{
	sbuf digits = {0};
	long exp10 = 0, e = 0;
	bool neg = false, eneg = false;
	size_t lead = 0;

	if (*s->p == '-')
		neg = true, s->p++;
	for (; *s->p >= '0' && *s->p <= '9'; s->p++)
		sb_add(&digits, s->p, 1);
	if (*s->p == '.')
		for (s->p++; *s->p >= '0' && *s->p <= '9'; s->p++, exp10--)
			sb_add(&digits, s->p, 1);
	if (*s->p == 'e' || *s->p == 'E') {
		s->p++;
		if (*s->p == '+' || *s->p == '-')
			eneg = *s->p++ == '-';
		for (; *s->p >= '0' && *s->p <= '9'; s->p++)
			if (e < 100000000)
				e = e * 10 + (*s->p - '0');
		exp10 += eneg ? -e : e;
	}
	while (lead < digits.len && digits.p[lead] == '0')
		lead++;
	while (digits.len > lead && digits.p[digits.len - 1] == '0')
		digits.p[--digits.len] = '\0', exp10++;
	if (lead == digits.len)
		sb_adds(out, "0"); /* -0 and 0.0 are zero too */
	else
		sb_addf(out, "%s%se%ld", neg ? "-" : "", digits.p + lead, exp10);
	free(digits.p);
}

static void rs_string(rscan *s, sbuf *out)
{
	const char *start = s->p;
	cJSON *v;
	char *t;

	for (s->p++; *s->p && *s->p != '"'; s->p++)
		if (*s->p == '\\' && s->p[1])
			s->p++;
	if (*s->p != '"') {
		s->bad = true;
		return;
	}
	s->p++;
	/* strings: decoded and printed again, so either side's escaping compares equal */
	v = cJSON_ParseWithLength(start, (size_t)(s->p - start));
	t = v ? cJSON_PrintUnformatted(v) : NULL;
	if (!t)
		s->bad = true;
	else
		sb_adds(out, t);
	free(t);
	cJSON_Delete(v);
}

typedef struct rpair {
	char *key, *val;
} rpair;

static int cmp_pair(const void *a, const void *b)
{
	return strcmp(((const rpair *)a)->key, ((const rpair *)b)->key);
}

static void rs_value(rscan *s, sbuf *out, const char *const *path, sbuf *found)
{
	size_t mark = out->len;

	rs_ws(s);
	if (*s->p == '{') {
		rpair *pairs = NULL;
		size_t n = 0;

		s->p++;
		rs_ws(s);
		while (!s->bad && *s->p != '}') {
			sbuf k = {0}, v = {0};
			const char *const *sub = NULL;

			rs_ws(s);
			if (*s->p != '"') {
				s->bad = true;
				break;
			}
			rs_string(s, &k);
			rs_ws(s);
			if (*s->p != ':') {
				s->bad = true;
				free(k.p);
				break;
			}
			s->p++;
			if (path && *path && k.p && strlen(k.p) == strlen(*path) + 2 &&
			    strncmp(k.p + 1, *path, strlen(*path)) == 0)
				sub = path + 1;
			rs_value(s, &v, sub, found);
			pairs = xrealloc(pairs, (n + 1) * sizeof(*pairs));
			pairs[n].key = k.p ? k.p : xstrdup("");
			pairs[n++].val = v.p ? v.p : xstrdup("");
			rs_ws(s);
			if (*s->p == ',')
				s->p++;
			else if (*s->p != '}')
				s->bad = true;
		}
		if (*s->p == '}')
			s->p++;
		qsort(pairs, n, sizeof(*pairs), cmp_pair);
		sb_adds(out, "{");
		for (size_t i = 0; i < n; i++) {
			sb_addf(out, "%s%s:%s", i ? "," : "", pairs[i].key, pairs[i].val);
			free(pairs[i].key);
			free(pairs[i].val);
		}
		sb_adds(out, "}");
		free(pairs);
	} else if (*s->p == '[') {
		bool first = true;

		s->p++;
		sb_adds(out, "[");
		rs_ws(s);
		while (!s->bad && *s->p != ']') {
			if (!first)
				sb_adds(out, ",");
			first = false;
			rs_value(s, out, NULL, found);
			rs_ws(s);
			if (*s->p == ',')
				s->p++;
			else if (*s->p != ']')
				s->bad = true;
		}
		if (*s->p == ']')
			s->p++;
		sb_adds(out, "]");
	} else if (*s->p == '"') {
		rs_string(s, out);
	} else if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9')) {
		rs_number(s, out);
	} else if (strncmp(s->p, "true", 4) == 0 || strncmp(s->p, "null", 4) == 0) {
		sb_add(out, s->p, 4);
		s->p += 4;
	} else if (strncmp(s->p, "false", 5) == 0) {
		sb_add(out, s->p, 5);
		s->p += 5;
	} else {
		s->bad = true;
	}
	if (path && !*path && found && !s->bad)
		sb_adds(found, out->p + mark);
}

/* The exact canonical text of review.gate_trigger.tool_input.value in a session file. */
static char *exact_tool_input(const char *file)
{
	static const char *const path[] = {"review", "gate_trigger", "tool_input", "value", NULL};
	rscan s = {file, false};
	sbuf all = {0}, found = {0};

	rs_value(&s, &all, path, &found);
	free(all.p);
	if (s.bad || !found.p) {
		free(found.p);
		return xstrdup(s.bad ? "<session file did not scan>" : "<no tool input>");
	}
	return found.p;
}

static cJSON *norm_decision(const cJSON *d)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *t = jget(d, "type");

	cJSON_AddStringToObject(o, "type", cJSON_IsString(t) ? t->valuestring : "<missing>");
	copy_field(o, d, "summary");
	copy_field(o, d, "message_to_agent");
	copy_field(o, d, "second_opinions");
	return o;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = jget(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/*
 * Difference 8: roz in C counts blocks from zero in every review cycle, the
 * Rust roz across the session. Before the Rust state is normalized, note its
 * count where the cycle began (a prompt that enabled review, a gate that
 * denied) and, per attempt, the cycle base when its verdict was recorded.
 */
static void note_cycles(seq *q, const cJSON *theirs, bool cycle_started)
{
	const cJSON *review = jget(theirs, "review"), *atts = jget(review, "attempts"), *a;
	size_t i = 0;

	if (!review)
		return;
	if (cycle_started)
		q->base = (unsigned long)num(review, "block_count");
	cJSON_ArrayForEach(a, atts) {
		const cJSON *t = jget(jget(a, "outcome"), "type");

		if (i <= MAX_STEPS && q->attempt_base[i] < 0 && cJSON_IsString(t) &&
		    strcmp(t->valuestring, "success") == 0)
			q->attempt_base[i] = (long)q->base;
		i++;
	}
}

static cJSON *normalize(const seq *q, const cJSON *s, const char *file, bool theirs)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	const cJSON *review = jget(s, "review"), *g, *v;
	size_t i = 0;
	double blocks;

	if (!s) {
		cJSON_AddFalseToObject(o, "exists");
		return o;
	}
	cJSON_AddTrueToObject(o, "exists");
	copy_field(o, s, "session_id");
	copy_field(o, review, "enabled");
	cJSON_AddItemToObject(o, "decision", norm_decision(jget(review, "decision")));
	copy_field(o, review, "user_prompts");
	blocks = num(review, "block_count");
	if (theirs && blocks >= (double)q->base)
		blocks -= (double)q->base;
	cJSON_AddNumberToObject(o, "block_count", blocks);
	copy_field(o, review, "circuit_breaker_tripped");
	g = jget(review, "gate_trigger");
	if (g && !cJSON_IsNull(g)) {
		cJSON *gt = cJSON_CreateObject();
		const cJSON *ti = jget(g, "tool_input");
		char *exact = exact_tool_input(file);

		copy_field(gt, g, "tool_name");
		copy_field(gt, g, "pattern_matched");
		cJSON_AddStringToObject(gt, "tool_input", exact);
		free(exact);
		copy_field(gt, ti, "truncated");
		copy_field(gt, ti, "original_size");
		copy_field(gt, ti, "original_hash");
		cJSON_AddItemToObject(o, "gate_trigger", gt);
	} else {
		cJSON_AddNullToObject(o, "gate_trigger");
	}
	cJSON_AddBoolToObject(o, "gate_approved_at", jpresent(review, "gate_approved_at"));
	cJSON_AddBoolToObject(o, "last_prompt_at", jpresent(review, "last_prompt_at"));
	/* review_started_at is left out: difference 9 ends it after an approval in roz in C */
	arr = cJSON_AddArrayToObject(o, "decision_history");
	cJSON_ArrayForEach(v, jget(review, "decision_history"))
		cJSON_AddItemToArray(arr, norm_decision(jget(v, "decision")));
	arr = cJSON_AddArrayToObject(o, "attempts");
	cJSON_ArrayForEach(v, jget(review, "attempts")) {
		cJSON *a = cJSON_CreateObject();
		const cJSON *out = jget(v, "outcome"), *t = jget(out, "type");

		copy_field(a, v, "template_id");
		cJSON_AddStringToObject(a, "outcome", cJSON_IsString(t) ? t->valuestring : "<missing>");
		copy_field(a, out, "decision_type");
		if (jget(out, "blocks_needed")) {
			double b = num(out, "blocks_needed");

			if (theirs && i <= MAX_STEPS && q->attempt_base[i] >= 0 && b >= (double)q->attempt_base[i])
				b -= (double)q->attempt_base[i];
			cJSON_AddNumberToObject(a, "blocks_needed", b);
		}
		cJSON_AddItemToArray(arr, a);
		i++;
	}
	/*
	 * Event types only: ids, times and payload keys differ by design. Types
	 * only roz in C has are left out: reviewer_started and reviewer_stopped
	 * (reviewer runs are tracked), decision_ignored (a COMPLETE no reviewer
	 * vouched for; not written with require_reviewer = false) and
	 * session_recovered (difference 7; no file here is corrupt).
	 */
	arr = cJSON_AddArrayToObject(o, "trace");
	cJSON_ArrayForEach(v, jget(s, "trace")) {
		const cJSON *t = jget(v, "event_type");
		const char *type = cJSON_IsString(t) ? t->valuestring : "<missing>";

		if (strcmp(type, "reviewer_started") == 0 || strcmp(type, "reviewer_stopped") == 0 ||
		    strcmp(type, "decision_ignored") == 0 || strcmp(type, "session_recovered") == 0)
			continue;
		cJSON_AddItemToArray(arr, cJSON_CreateString(type));
	}
	return o;
}

/* roz in C under test; `roz debug <id> --json` reads a session back whole through its store. */
static const char *ours_bin;

static cJSON *ours_whole(const seq *q, const char *id)
{
	step st;
	result r;
	cJSON *s;

	memset(&st, 0, sizeof(st));
	st.kind = STEP_DEBUG;
	st.argv[0] = (char *)id;
	st.argc = 1;
	run_side(ours_bin, q, OURS, &st, &r);
	s = r.status == 0 ? cJSON_Parse(r.out) : NULL;
	if (!s)
		s = cJSON_CreateString("<session not read back by roz debug>");
	result_dispose(&r);
	return s;
}

/* The session file of one side, parsed; NULL when absent, a JSON string when it does not parse. */
static cJSON *load_state(const seq *q, int side, const char *id, char **raw)
{
	char dir[PATH_MAX + 16], path[PATH_MAX + 80], name[80];
	cJSON *s;

	snprintf(dir, sizeof(dir), "%s/sessions", q->home[side]);
	snprintf(name, sizeof(name), "%s.json", id);
	path_join(path, sizeof(path), dir, name);
	*raw = read_file(path);
	if (!*raw)
		return NULL;
	s = cJSON_Parse(*raw);
	if (!s)
		return cJSON_CreateString("<unparsable session file>");
	if (side == OURS) {
		/* roz in C keeps the trace beside the state: the whole session is what it reads back */
		cJSON_Delete(s);
		s = ours_whole(q, id);
	}
	return s;
}

/* ---- reporting ----------------------------------------------------------------------- */

static void replay_script(const seq *q, size_t upto, sbuf *b)
{
	sbuf cfg = {0}, tmpl = {0};
	const char *tname = template_file(&q->v, q->marker, &tmpl);

	config_text(&q->v, &cfg);
	sb_addf(b, "# seed %llu, sequence %lu, steps 1..%zu; run with ROZ set to either binary\n",
		(unsigned long long)q->seed, q->index, upto);
	sb_adds(b, ": \"${ROZ:?set ROZ to the path of a roz binary}\"\n"
		   "unset ROZ_CONFIG ROZ_STORAGE_PATH ROZ_REVIEW_MODE ROZ_MAX_BLOCKS ROZ_COOLDOWN_SECONDS "
		   "ROZ_MAX_EVENTS ROZ_RETENTION_DAYS CLAUDE_PLUGIN_ROOT\n"
		   "export ROZ_HOME=\"$(mktemp -d)\" HOME=\"$ROZ_HOME\"\n"
		   "mkdir -p \"$ROZ_HOME/bin\" \"$ROZ_HOME/templates\"\n");
	if (q->v.codex)
		sb_adds(b, "printf '#!/bin/sh\\nexit 0\\n' > \"$ROZ_HOME/bin/codex\"; chmod +x \"$ROZ_HOME/bin/codex\"\n");
	if (q->v.gemini)
		sb_adds(b, "printf '#!/bin/sh\\nexit 0\\n' > \"$ROZ_HOME/bin/gemini\"; chmod +x \"$ROZ_HOME/bin/gemini\"\n");
	sb_adds(b, "export PATH=\"$ROZ_HOME/bin:/usr/bin:/bin\"\n");
	sb_adds(b, "cat > \"$ROZ_HOME/config.toml\" <<'EOF'\n");
	sb_adds(b, sb_str(&cfg));
	sb_adds(b, "EOF\n");
	if (tname) {
		sb_adds(b, "printf '%s' ");
		sh_quote(b, sb_str(&tmpl));
		sb_addf(b, " > \"$ROZ_HOME/templates/%s\"\n", tname);
	}
	for (size_t i = 0; i < upto; i++) {
		const step *st = &q->steps[i];

		if (st->kind == STEP_HOOK) {
			sb_adds(b, "printf '%s\\n' ");
			sh_quote(b, st->input);
			sb_addf(b, " | \"$ROZ\" hook %s; echo \"[exit $?]\"\n", st->event);
		} else {
			sb_adds(b, "\"$ROZ\" decide");
			for (int a = 0; a < st->argc; a++) {
				sb_adds(b, " ");
				sh_quote(b, st->argv[a]);
			}
			sb_adds(b, "; echo \"[exit $?]\"\n");
		}
	}
	sb_addf(b, "cat \"$ROZ_HOME/sessions/%s.json\"\n", q->sid);
	free(cfg.p);
	free(tmpl.p);
}

static void print_answer(const char *who, const answer *a, const result *r)
{
	printf("  %-6s %s%s%s%s (exit %d)\n", who, a->kind, a->detail[0] ? " [" : "", a->detail,
	       a->detail[0] ? "]" : "", r->status);
	printf("         stdout: %s", r->out[0] ? r->out : "(empty)\n");
	if (r->out[0] && r->out[strlen(r->out) - 1] != '\n')
		putchar('\n');
	if (r->err[0])
		printf("         stderr: %s%s", r->err, r->err[strlen(r->err) - 1] == '\n' ? "" : "\n");
}

static void report_mismatch(const seq *q, size_t i, const char *what, const answer *a, const result *r,
			    cJSON *const norm[2])
{
	const step *st = &q->steps[i];
	sbuf script = {0};

	printf("roz_compare: MISMATCH (%s) at seed %llu, sequence %lu, step %zu (%s%s)\n", what,
	       (unsigned long long)q->seed, q->index, i + 1, st->kind == STEP_HOOK ? "hook " : "decide",
	       st->kind == STEP_HOOK ? st->event : "");
	printf("answers:\n");
	print_answer("ours", &a[OURS], &r[OURS]);
	print_answer("theirs", &a[THEIRS], &r[THEIRS]);
	for (int s = 0; s < 2; s++) {
		char *t = norm[s] ? cJSON_Print(norm[s]) : NULL;

		printf("normalized state, %s%s:\n%s\n", side_name[s],
		       s == THEIRS ? " (block counts taken from the start of the review cycle, difference 8)" : "",
		       t ? t : "(not compared: the answers already differ)");
		free(t);
	}
	if (norm[OURS] && norm[THEIRS]) {
		const cJSON *c;

		printf("differing fields:");
		cJSON_ArrayForEach(c, norm[OURS]) {
			const cJSON *o = cJSON_GetObjectItemCaseSensitive(norm[THEIRS], c->string);

			if (!o || !cJSON_Compare(c, o, true))
				printf(" %s", c->string);
		}
		printf("\n");
	}
	replay_script(q, i + 1, &script);
	printf("steps so far, as shell commands:\n%s", sb_str(&script));
	printf("the two homes are kept in %s\n", q->root);
	free(script.p);
}

/* ---- one sequence ----------------------------------------------------------------------- */

typedef struct opts {
	const char *bin[2];
	uint64_t seed;
	unsigned long sequences, steps, only;
	bool have_only;
	const char *keep;
	unsigned gap_ms, probe;
} opts;

static void seq_setup(seq *q, const opts *o, const char *root)
{
	sbuf cfg = {0}, tmpl = {0};
	const char *tname;
	char name[64], p[PATH_MAX + 80];

	rng_seed(&q->r, q->seed, q->index);
	pick_variant(&q->r, &q->v);
	q->v.probe = o->probe;
	if (q->v.probe & PROBE_EMPTY_TEMPLATE)
		q->v.tmpl = TMPL_HOME_DEFAULT;
	model_init(&q->m);
	/* valid, short ids: the C port accepts fewer characters than the Rust roz (a listed correction) */
	snprintf(q->sid, sizeof(q->sid), "cmp-%llx_%lu", (unsigned long long)(q->seed & 0xffff), q->index);
	snprintf(q->missing, sizeof(q->missing), "nobody-%lu", q->index);
	snprintf(q->marker, sizeof(q->marker), "MARKER-%lu-%04x", q->index, rng_below(&q->r, 0x10000));
	snprintf(name, sizeof(name), "seed%llu-seq%lu", (unsigned long long)q->seed, q->index);
	path_join(q->root, sizeof(q->root), root, name);
	remove_tree(q->root);
	make_dir(q->root);
	path_join(q->bindir, sizeof(q->bindir), q->root, "bin");
	make_dir(q->bindir);
	snprintf(q->pathenv, sizeof(q->pathenv), "PATH=%s:/usr/bin:/bin", q->bindir);
	if (q->v.codex) {
		path_join(p, sizeof(p), q->bindir, "codex");
		write_file(p, "#!/bin/sh\nexit 0\n", 0755);
	}
	if (q->v.gemini) {
		path_join(p, sizeof(p), q->bindir, "gemini");
		write_file(p, "#!/bin/sh\nexit 0\n", 0755);
	}
	config_text(&q->v, &cfg);
	tname = template_file(&q->v, q->marker, &tmpl);
	for (int s = 0; s < 2; s++) {
		path_join(q->home[s], sizeof(q->home[s]), q->root, side_name[s]);
		make_dir(q->home[s]);
		path_join(p, sizeof(p), q->home[s], "config.toml");
		write_file(p, sb_str(&cfg), 0600);
		if (tname) {
			char dir[PATH_MAX + 16];

			path_join(dir, sizeof(dir), q->home[s], "templates");
			make_dir(dir);
			path_join(p, sizeof(p), dir, tname);
			write_file(p, sb_str(&tmpl), 0600);
		}
	}
	free(cfg.p);
	free(tmpl.p);
	q->steps = xmalloc(o->steps * sizeof(*q->steps));
	q->attempt_base = xmalloc((MAX_STEPS + 1) * sizeof(*q->attempt_base));
	for (size_t i = 0; i <= MAX_STEPS; i++)
		q->attempt_base[i] = -1;
}

static void seq_dispose(seq *q)
{
	for (size_t i = 0; i < q->n; i++) {
		free(q->steps[i].input);
		for (int a = 0; a < q->steps[i].argc; a++)
			free(q->steps[i].argv[a]);
	}
	free(q->steps);
	if (q->has_queued)
		for (int a = 0; a < q->queued.argc; a++)
			free(q->queued.argv[a]);
	for (size_t i = 0; i < q->ntexts; i++)
		free(q->texts[i]);
	free(q->texts);
	free(q->attempt_base);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

	while (ms && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Run one sequence; false on the first mismatch (already reported). */
static bool run_sequence(const opts *o, stats *st, const char *root, unsigned long index)
{
	seq q;
	bool ok = true;
	struct timespec began, at;

	clock_gettime(CLOCK_MONOTONIC, &began);
	memset(&q, 0, sizeof(q));
	q.seed = o->seed;
	q.index = index;
	q.st = st;
	seq_setup(&q, o, root);
	for (size_t i = 0; i < o->steps && ok; i++) {
		step *s = &q.steps[i];
		result r[2];
		answer a[2];
		cJSON *raw[2], *norm[2] = {NULL, NULL};
		char *text[2];
		char *n0, *n1;
		bool cycle;

		while (!gen_step(&q, (unsigned)i + 1, s))
			;
		q.n = i + 1;
		for (int side = 0; side < 2; side++) {
			run_side(o->bin[side], &q, side, s, &r[side]);
			classify(&q, s, &r[side], &a[side]);
		}
		st->steps++;
		st->answers++;
		if (!answers_equal(&a[OURS], &a[THEIRS])) {
			report_mismatch(&q, i, "answer", a, r, norm);
			ok = false;
		} else {
			count_kind(st, a[OURS].kind);
			if (s->big && strcmp(a[OURS].kind, "deny") == 0)
				st->cut_inputs++;
			raw[OURS] = load_state(&q, OURS, q.sid, &text[OURS]);
			raw[THEIRS] = load_state(&q, THEIRS, q.sid, &text[THEIRS]);
			cycle = (s->kind == STEP_HOOK && strcmp(s->event, "pre-tool-use") == 0 &&
				 strcmp(a[OURS].kind, "deny") == 0) || s->enables;
			note_cycles(&q, raw[THEIRS], cycle);
			norm[OURS] = normalize(&q, raw[OURS], text[OURS], false);
			norm[THEIRS] = normalize(&q, raw[THEIRS], text[THEIRS], true);
			n0 = cJSON_PrintUnformatted(norm[OURS]);
			n1 = cJSON_PrintUnformatted(norm[THEIRS]);
			st->states++;
			/* a session file that does not parse is a failure even when both are broken */
			if (cJSON_IsString(raw[OURS]) || cJSON_IsString(raw[THEIRS])) {
				printf("roz_compare: a session file does not parse (ours: %s, theirs: %s)\n",
				       cJSON_IsString(raw[OURS]) ? "broken" : "fine",
				       cJSON_IsString(raw[THEIRS]) ? "broken" : "fine");
				report_mismatch(&q, i, "stored state", a, r, norm);
				ok = false;
			} else if (!n0 || !n1 || strcmp(n0, n1) != 0) {
				report_mismatch(&q, i, "stored state", a, r, norm);
				ok = false;
			}
			/* a decide on a session that does not exist must not create it */
			if (ok) {
				char *t0, *t1;
				cJSON *m0 = load_state(&q, OURS, q.missing, &t0), *m1 = load_state(&q, THEIRS, q.missing, &t1);

				if (m0 || m1) {
					printf("roz_compare: a session file appeared for the missing session %s "
					       "(ours: %s, theirs: %s)\n", q.missing, m0 ? "yes" : "no", m1 ? "yes" : "no");
					report_mismatch(&q, i, "stored state", a, r, norm);
					ok = false;
				}
				cJSON_Delete(m0);
				cJSON_Delete(m1);
				free(t0);
				free(t1);
			}
			free(n0);
			free(n1);
			cJSON_Delete(raw[OURS]);
			cJSON_Delete(raw[THEIRS]);
			free(text[OURS]);
			free(text[THEIRS]);
		}
		cJSON_Delete(norm[OURS]);
		cJSON_Delete(norm[THEIRS]);
		result_dispose(&r[OURS]);
		result_dispose(&r[THEIRS]);
		if (o->gap_ms)
			sleep_ms(o->gap_ms);
		/* past this the model's reviewer launches would have lapsed in roz in C */
		clock_gettime(CLOCK_MONOTONIC, &at);
		if (at.tv_sec - began.tv_sec >= RUN_SECONDS)
			die("sequence %lu took over %d s, longer than the model of reviewer launches allows; "
			    "rerun it with --only %lu on a less loaded machine", index, RUN_SECONDS, index);
	}
	st->sequences++;
	if (ok && !o->keep)
		remove_tree(q.root);
	seq_dispose(&q);
	return ok;
}

/* ---- main -------------------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: roz_compare --ours PATH --theirs PATH [--seed N] [--sequences N] [--steps N]\n"
		"                   [--only K] [--keep DIR] [--gap-ms N] [--probe NAME]...\n\n"
		"Runs N random sequences of hook events and `roz decide` calls through both\n"
		"binaries (ours: roz in C; theirs: the Rust roz) and compares the answers and\n"
		"the stored state after every step. --only K runs sequence K of the seed alone;\n"
		"--keep DIR keeps every sequence's two homes under DIR; --gap-ms waits between steps.\n"
		"--probe NAME lifts one restriction of the grammar and is expected to fail; names:\n"
		"  breaker prompt-scope tool-scope stop-hook-active notification gate-issues\n"
		"  reviewer-date shell self-approval require-reviewer reviewer-runs not-spawned\n"
		"  background array-input empty-template big-numbers number-hash multibyte-cut\n"
		"  second-reviewer unreadable-call field-types\n");
	exit(2);
}

static unsigned long long parse_num(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *end || errno || *s == '-')
		die("%s must be a number, not '%s'", what, s);
	return v;
}

int main(int argc, char **argv)
{
	opts o = {{NULL, NULL}, 1, 100, 30, 0, false, NULL, 0, 0};
	stats st;
	char root[PATH_MAX];
	bool ok = true, tmp_root = false;

	memset(&st, 0, sizeof(st));
	/* every option takes a value, so arguments come in pairs */
	for (int i = 1; i < argc; i += 2) {
		const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
			usage();
		if (!val)
			usage();
		if (strcmp(arg, "--ours") == 0)
			o.bin[OURS] = val;
		else if (strcmp(arg, "--theirs") == 0)
			o.bin[THEIRS] = val;
		else if (strcmp(arg, "--seed") == 0)
			o.seed = parse_num(val, "--seed");
		else if (strcmp(arg, "--sequences") == 0)
			o.sequences = (unsigned long)parse_num(val, "--sequences");
		else if (strcmp(arg, "--steps") == 0)
			o.steps = (unsigned long)parse_num(val, "--steps");
		else if (strcmp(arg, "--only") == 0) {
			o.only = (unsigned long)parse_num(val, "--only");
			o.have_only = true;
		} else if (strcmp(arg, "--keep") == 0)
			o.keep = val;
		else if (strcmp(arg, "--gap-ms") == 0)
			o.gap_ms = (unsigned)parse_num(val, "--gap-ms");
		else if (strcmp(arg, "--probe") == 0) {
			size_t p;

			for (p = 0; p < sizeof(probes) / sizeof(probes[0]); p++)
				if (strcmp(val, probes[p].name) == 0)
					break;
			if (p == sizeof(probes) / sizeof(probes[0]))
				die("unknown probe '%s'", val);
			o.probe |= probes[p].flag;
		} else {
			usage();
		}
	}
	ours_bin = o.bin[OURS];
	if (!o.bin[OURS] || !o.bin[THEIRS])
		usage();
	if (o.steps < 1 || o.steps > MAX_STEPS)
		die("--steps must be between 1 and %d (longer sequences would reach the caps of difference 4)",
		    MAX_STEPS);
	/* the model takes a reviewer launch as live for the whole sequence; roz in C keeps it 60 s */
	if ((unsigned long long)o.gap_ms * o.steps >= RUN_SECONDS * 1000ull)
		die("--gap-ms %u over %lu steps would outlast the %d s a sequence may take", o.gap_ms, o.steps,
		    RUN_SECONDS);
	for (int s = 0; s < 2; s++)
		if (access(o.bin[s], X_OK) < 0)
			die("%s binary '%s' is not executable", side_name[s], o.bin[s]);
	if (o.keep) {
		make_dir(o.keep);
		if (!realpath(o.keep, root))
			die("cannot resolve %s: %s", o.keep, strerror(errno));
	} else {
		const char *t = getenv("TMPDIR");

		snprintf(root, sizeof(root), "%s/roz_compare.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(root))
			die("cannot create a temporary directory: %s", strerror(errno));
		tmp_root = true;
	}
	if (o.have_only)
		ok = run_sequence(&o, &st, root, o.only);
	else
		for (unsigned long k = 0; k < o.sequences && ok; k++)
			ok = run_sequence(&o, &st, root, k);
	if (tmp_root && ok)
		remove_tree(root);
	if (!ok)
		return 1;

	printf("roz_compare: seed %llu: %lu sequences, %lu steps, %lu answers compared, %lu states compared: "
	       "no differences\n",
	       (unsigned long long)o.seed, st.sequences, st.steps, st.answers, st.states);
	printf("  gated tool inputs over 10 KiB stored cut down: %lu\n", st.cut_inputs);
	{
		const char *groups[] = {"allow", "block", "deny", "ask", "context", "decide", "other", "unparsable"};

		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
			unsigned long total = 0;
			sbuf line = {0};

			for (size_t i = 0; i < st.nkinds; i++)
				if (strncmp(st.kinds[i].kind, groups[g], strlen(groups[g])) == 0) {
					total += st.kinds[i].n;
					if (strchr(st.kinds[i].kind, ':'))
						sb_addf(&line, "%s%s %lu", line.len ? ", " : "",
							strchr(st.kinds[i].kind, ':') + 1, st.kinds[i].n);
				}
			printf("  %-8s %7lu%s%s%s\n", groups[g], total, line.len ? "  (" : "", sb_str(&line),
			       line.len ? ")" : "");
			free(line.p);
		}
	}
	printf("  steps redrawn to stay clear of listed differences: %lu gated calls while ISSUES stood "
	       "(gate makes the decision pending), %lu reviewer stops whose verdict the two date "
	       "differently (verdict dating), %lu prompts past the 50-prompt cap (difference 4), "
	       "%lu Agent calls for roz:roz while a reviewer worked (39), %lu unusable PreToolUse "
	       "inputs while gates were configured (23)\n",
	       st.avoided_gate_issues, st.avoided_reviewer_date, st.avoided_prompt_cap,
	       st.avoided_second_reviewer, st.avoided_unreadable);
	printf("  steps changed: %lu stops made a roz:roz SubagentStart (not_spawned), %lu roz:roz "
	       "SubagentStarts or Agent calls before the session existed made another agent's or "
	       "redrawn\n",
	       st.avoided_not_spawned, st.avoided_start_missing);
	printf("  reviewer Bash calls of roz decide sent before a decide step: %lu\n", st.reviewer_calls);
	return 0;
}
