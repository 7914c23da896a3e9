/*
 * ledger_gen.c - the repository and the ledger bench/ledger_verify.sh times
 * `roz ledger verify` on, the same from one run to the next (fixed seeds).
 *
 *   ledger_gen ledger FILES RECORDS OUT
 *     OUT gets RECORDS Agent Trace records over FILES files, written as roz
 *     writes them (roz/ledger.h), each range's content_hash that of its
 *     lines in the files as `tree` first writes them.
 *   ledger_gen tree FILES EDITED MOVED MISSING DIR
 *     DIR/src/... gets the FILES files, then what happened since, each a
 *     percentage of the files (decimals allowed): EDITED were edited by a
 *     person, one or two lines rewritten in place; MOVED got three lines
 *     inserted at the top (every range below them moved); MISSING were
 *     deleted. The files edited at 1% are among those edited at 5%, and the
 *     moved and missing ones do not depend on EDITED, so cells of a matrix
 *     differ only in what they say they differ in.
 *
 * The files: 30 to 400 lines (215 on average) of C-like text, 31 bytes a
 * line on average, one line in eight blank and one in sixteen a lone "}";
 * all other lines are unique in the repository.
 *
 * The records come in sessions, as an agent works: a session of 10 to 120
 * records (about 65), its own id, transcript, model, intent (none in one
 * session of five) and git revision, works on 1 to 8 files, half of them
 * picked from the tenth of the repository that is edited most. Its records
 * are Edits (one range), MultiEdits (two or three, merged where they
 * overlap) and Writes (one), each range 1 to 60 lines (15 on average, a
 * quarter of them one line), placed around a point of the file that
 * drifts as the session goes on. So later records of a file overlap
 * earlier ones, and most ranges of a large ledger are superseded, as in
 * one a team has kept for a long time. Times rise from record to record
 * (5 to 90 s apart in a session, 10 minutes to 3 hours between sessions),
 * nanoseconds included, as roz writes them.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_RANGE 60
#define DIRS 64
#define SUBDIRS 4

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* uniform in [0, 1) */
static double unit(uint64_t x)
{
	return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static void die(const char *what)
{
	fprintf(stderr, "ledger_gen: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *must(void *p)
{
	if (!p)
		die("out of memory");
	return p;
}

/* ---- the files -------------------------------------------------------- */

typedef struct file {
	char *text;     /* the lines, each ended by "\n" */
	size_t *off;    /* off[l - 1]: where line l starts; off[nlines]: the text's length */
	unsigned nlines;
} file;

static unsigned file_lines(unsigned f)
{
	return 30 + (unsigned)(mix(f ^ 0x51ed2701ull) % 371);
}

static void file_path(unsigned f, char *out, size_t n)
{
	snprintf(out, n, "src/m%02u/p%u/f%05u.c", f % DIRS, f / DIRS % SUBDIRS, f);
}

/* Line l of file f as written (without its "\n"); its length. */
static int make_line(unsigned f, unsigned l, char *out, size_t n)
{
	uint64_t h = mix((uint64_t)f << 32 | l);
	static const char tabs[] = "\t\t\t";
	const char *in = tabs + 3 - (h >> 8) % 4;
	unsigned a = (unsigned)(h >> 16) % 1000, b = (unsigned)(h >> 32) % 97;

	switch (h % 16) {
	case 0:
	case 1:
		return snprintf(out, n, "%s", "");
	case 2:
		return snprintf(out, n, "%s}", in);
	case 3:
	case 4:
		return snprintf(out, n, "%sint n%u_%u = %u;", in, f, l, a);
	case 5:
		return snprintf(out, n, "%sif (ctx->count_%u_%u > %u) {", in, f, l, a);
	case 6:
		return snprintf(out, n, "%sreturn compute_%u(ctx, %u, %u);", in, f, l, b);
	case 7:
		return snprintf(out, n, "%s/* step %u of %u: keep the order */", in, l, f);
	case 8:
	case 9:
		return snprintf(out, n, "%sctx->total_%u += weight_%u * %u;", in, f, l, b);
	case 10:
		return snprintf(out, n, "%sfor (size_t i = 0; i < len_%u_%u; i++) {", in, f, l);
	case 11:
		return snprintf(out, n, "%slog_debug(\"unit %u line %u: %%d\", value);", in, f, l);
	case 12:
		return snprintf(out, n, "%sconst char *name_%u_%u = \"item-%u\";", in, f, l, a);
	case 13:
		return snprintf(out, n, "%sbuf_add(&out_%u, items[%u], %u);", in, f, l, b);
	case 14:
		return snprintf(out, n, "static int helper_%u_%u(struct ctx *ctx, size_t n)", f, l);
	default:
		return snprintf(out, n, "%serr = check_%u(ctx, %u, &state_%u);", in, f, l, a);
	}
}

/* The file as first written; `edited` (one or two line numbers, 0 for none) rewritten; `moved`: three lines on top. */
static void file_make(unsigned f, const unsigned *edited, int moved, file *out)
{
	unsigned nl = file_lines(f);
	size_t cap = (size_t)nl * 80 + 128, len = 0;
	char line[160];

	out->nlines = nl;
	out->text = must(malloc(cap));
	out->off = must(malloc((nl + 1) * sizeof *out->off));
	if (moved)
		len += (size_t)sprintf(out->text, "/* unit %u */\n#include \"ctx.h\"\n\n", f);
	for (unsigned l = 1; l <= nl; l++) {
		int k;

		if (edited && (edited[0] == l || edited[1] == l))
			k = snprintf(line, sizeof line, "\tadjusted_%u_%u = reviewed(ctx, %u);", f, l, l * 7 % 13);
		else
			k = make_line(f, l, line, sizeof line);
		out->off[l - 1] = len;
		memcpy(out->text + len, line, (size_t)k);
		len += (size_t)k;
		out->text[len++] = '\n';
	}
	out->off[nl] = len;
}

static void file_dispose(file *f)
{
	free(f->text);
	free(f->off);
}

static void mkdirs(const char *root)
{
	char p[4096];

	snprintf(p, sizeof p, "%s/src", root);
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		die(p);
	for (unsigned d = 0; d < DIRS; d++) {
		snprintf(p, sizeof p, "%s/src/m%02u", root, d);
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			die(p);
		for (unsigned s = 0; s < SUBDIRS; s++) {
			snprintf(p, sizeof p, "%s/src/m%02u/p%u", root, d, s);
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				die(p);
		}
	}
}

static int tree(unsigned nfiles, double edited, double moved, double missing, const char *root)
{
	char rel[256], full[4096];
	unsigned counts[3] = {0, 0, 0};

	if (edited + moved + missing > 100.0) {
		fprintf(stderr, "ledger_gen: edited + moved + missing is over 100%%\n");
		return 2;
	}
	mkdirs(root);
	for (unsigned f = 0; f < nfiles; f++) {
		uint64_t h = mix(f ^ 0x7ea5ull << 40);
		double p = unit(h) * 100.0;
		unsigned lines[2] = {0, 0}, nl = file_lines(f);
		int is_moved = p >= 100.0 - moved;
		file fl;
		FILE *fp;

		file_path(f, rel, sizeof rel);
		snprintf(full, sizeof full, "%s/%s", root, rel);
		if (!is_moved && p >= 100.0 - moved - missing) {
			if (remove(full) < 0 && errno != ENOENT)
				die(full);
			counts[2]++;
			continue;
		}
		if (p < edited) {
			uint64_t g = mix(h);

			/* one line, or two: the next one, or another */
			lines[0] = 1 + (unsigned)(g % nl);
			if ((g >> 20) % 5 >= 3)
				lines[1] = (g >> 24) % 2 && lines[0] < nl ? lines[0] + 1 : 1 + (unsigned)((g >> 32) % nl);
			counts[0]++;
		}
		counts[1] += (unsigned)is_moved;
		file_make(f, lines[0] ? lines : NULL, is_moved, &fl);
		if (!(fp = fopen(full, "w")) || fwrite(fl.text, 1, fl.off[fl.nlines], fp) != fl.off[fl.nlines] ||
		    fclose(fp) != 0)
			die(full);
		file_dispose(&fl);
	}
	printf("%u files: %u edited, %u moved, %u missing\n", nfiles, counts[0], counts[1], counts[2]);
	return 0;
}

/* ---- the ledger ------------------------------------------------------- */

typedef struct range {
	unsigned start, end;
} range;

static int by_start(const void *x, const void *y)
{
	const range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static void uuid(char out[37])
{
	uint64_t a = rnd(), b = rnd();

	snprintf(out, 37, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff,
		 (unsigned)a & 0xfff, 0x8000u | ((unsigned)(b >> 48) & 0x3fff),
		 (unsigned long long)(b & 0xffffffffffffull));
}

static void put_hash(FILE *out, const file *fl, unsigned s, unsigned e)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	char h[65];
	/* lines s..e joined by "\n": the text from line s up to the "\n" ending line e */
	size_t from = fl->off[s - 1], to = fl->off[e] - 1;

	if (!EVP_Digest(fl->text + from, to - from, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) {
		fprintf(stderr, "ledger_gen: SHA-256 failed\n");
		exit(1);
	}
	for (unsigned i = 0; i < 32; i++) {
		h[2 * i] = hex[md[i] >> 4];
		h[2 * i + 1] = hex[md[i] & 15];
	}
	h[64] = '\0';
	fprintf(out, ",\"content_hash\":\"sha256:%s\"", h);
}

/* A range length: 1 to 60 lines, small ones most often. */
static unsigned range_len(void)
{
	double u = unit(rnd());

	return 1 + (unsigned)(59.0 * u * u * u);
}

static int ledger(unsigned nfiles, unsigned long nrec, const char *path)
{
	static const char *const models[] = {"anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-1",
					      "anthropic/claude-haiku-4-5"};
	file *files = must(calloc(nfiles, sizeof *files));
	unsigned hot = nfiles / 10 ? nfiles / 10 : 1;
	time_t t = 1767603600; /* 2026-01-05T09:00:00Z */
	unsigned long rec = 0;
	char rel[256];
	FILE *out;

	for (unsigned f = 0; f < nfiles; f++)
		file_make(f, NULL, 0, &files[f]);
	if (!(out = fopen(path, "w")))
		die(path);
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	while (rec < nrec) {
		unsigned n = 10 + below(111), k = 1 + below(8), ws[8], focus[8];
		char session[37], intent[16] = "", revision[41];
		const char *model = models[below(10) < 6 ? 0 : below(10) < 8 ? 1 : 2];

		uuid(session);
		if (below(5))
			snprintf(intent, sizeof intent, "INT-%03u", 1 + below(40));
		for (int i = 0; i < 40; i += 16)
			snprintf(revision + i, sizeof revision - (size_t)i, "%016llx", (unsigned long long)rnd());
		revision[40] = '\0';
		for (unsigned i = 0; i < k; i++) {
			/* the hot tenth: files whose mixed index falls in it */
			unsigned f = below(2) ? (unsigned)(mix(below(hot) + 0x401ull) % nfiles) : below(nfiles);

			ws[i] = f;
			focus[i] = 1 + below(files[f].nlines);
		}
		t += 600 + below(3 * 3600 - 600);
		for (unsigned r = 0; r < n && rec < nrec; r++, rec++) {
			unsigned w = below(k), tool = below(100), nr = 1, f = ws[w], nl = files[f].nlines;
			const char *tool_name = tool < 80 ? "Edit" : tool < 88 ? "MultiEdit" : "Write";
			range rg[3];
			char id[37], ts[32];
			struct tm tm;
			int j, m, drift;

			if (tool >= 80 && tool < 88)
				nr = 2 + below(2);
			for (unsigned i = 0; i < nr; i++) {
				unsigned len = range_len(), s;
				int c = (int)focus[w] + (int)below(41) + (int)below(41) + (int)below(41) - 60;

				if (len > nl)
					len = nl;
				if (c < 1)
					c = 1;
				s = (unsigned)c;
				if (s > nl - len + 1)
					s = nl - len + 1;
				rg[i].start = s;
				rg[i].end = s + len - 1;
			}
			/* sorted, overlapping ones merged */
			qsort(rg, nr, sizeof *rg, by_start);
			for (j = 1, m = 0; j < (int)nr; j++) {
				if (rg[j].start <= rg[m].end) {
					if (rg[j].end > rg[m].end)
						rg[m].end = rg[j].end;
				} else {
					rg[++m] = rg[j];
				}
			}
			nr = (unsigned)m + 1;
			/* the point of work drifts */
			drift = (int)focus[w] + (int)below(11) - 5;
			focus[w] = drift < 1 ? 1 : (unsigned)drift > nl ? nl : (unsigned)drift;
			t += 5 + below(86);
			gmtime_r(&t, &tm);
			strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
			uuid(id);
			file_path(f, rel, sizeof rel);
			fprintf(out,
				"{\"version\":\"0.1.0\",\"id\":\"%s\",\"timestamp\":\"%s.%09uZ\","
				"\"vcs\":{\"type\":\"git\",\"revision\":\"%s\"},\"tool\":{\"name\":\"roz\",\"version\":\"0.2.0\"},"
				"\"files\":[{\"path\":\"%s\",\"conversations\":[{"
				"\"url\":\"file:///home/dev/.claude/projects/-home-dev-project/%s.jsonl\","
				"\"contributor\":{\"type\":\"ai\",\"model_id\":\"%s\"},\"ranges\":[",
				id, ts, 1 + below(999999998), revision, rel, session, model);
			for (unsigned i = 0; i < nr; i++) {
				fprintf(out, "%s{\"start_line\":%u,\"end_line\":%u", i ? "," : "", rg[i].start, rg[i].end);
				put_hash(out, &files[f], rg[i].start, rg[i].end);
				fputc('}', out);
			}
			fputc(']', out);
			if (intent[0])
				fprintf(out, ",\"related\":[{\"type\":\"specification\",\"url\":\"urn:roz:intent:%s\"}]",
					intent);
			fputs("}]}],\"metadata\":{\"roz\":{\"intent_id\":", out);
			if (intent[0])
				fprintf(out, "\"%s\"", intent);
			else
				fputs("null", out);
			fprintf(out, ",\"mutation_class\":\"%s\",\"session_id\":\"%s\",\"tool_name\":\"%s\"}}}\n",
				below(33) ? "INTENT_EVOLUTION" : "AST_REFACTOR", session, tool_name);
		}
	}
	if (fclose(out) != 0)
		die(path);
	for (unsigned f = 0; f < nfiles; f++)
		file_dispose(&files[f]);
	free(files);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "ledger") == 0)
		return ledger((unsigned)strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10), argv[4]);
	if (argc == 7 && strcmp(argv[1], "tree") == 0)
		return tree((unsigned)strtoul(argv[2], NULL, 10), strtod(argv[3], NULL), strtod(argv[4], NULL),
			    strtod(argv[5], NULL), argv[6]);
	fprintf(stderr, "usage: ledger_gen ledger FILES RECORDS OUT\n"
			"       ledger_gen tree FILES EDITED MOVED MISSING DIR\n");
	return 2;
}
