#!/bin/sh
# ledger_verify.sh - how long `roz ledger verify` takes on a large ledger.
# A small C generator (built here, SHA-256 from libcrypto) makes a
# repository of N files of 200 lines and a ledger of M Agent Trace records,
# one range each, whose hashes are those of the lines as written. Then the
# repository is changed as work changes it: a few files get lines inserted
# at the top (their ranges moved), a few get a line rewritten (changed), a
# few are deleted (missing). Later records overlap earlier ones of the same
# file, so many ranges are superseded, as in a real ledger. The command is
# timed RUNS times (median and each run printed) after one warm-up run.
# Usage: bench/ledger_verify.sh [--roz build/roz] [--files 3000] [--records 100000]
#                               [--runs 3] [--keep]
set -eu

roz=build/roz
files=3000
records=100000
runs=3
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--roz) roz=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--records) records=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	*) echo "usage: $0 [--roz PATH] [--files N] [--records N] [--runs N] [--keep]" >&2; exit 2 ;;
	esac
done
case $roz in /*) ;; *) roz=$(pwd)/$roz ;; esac
[ -x "$roz" ] || { echo "ledger_verify: no roz at $roz (build it first)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/roz_ledger_verify.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "bench: kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT INT TERM

cat >"$work/gen.c" <<'EOF'
/* Writes repo/ (files of 200 unique lines) and repo/.orchestration/agent_trace.jsonl. */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LINES 200

static char line_buf[128];

static const char *line_of(int f, int l)
{
	snprintf(line_buf, sizeof line_buf, "int value_%d_%d = %d; /* line %d of file %d */", f, l, f ^ l, l, f);
	return line_buf;
}

static void path_of(int f, char *out, size_t n)
{
	snprintf(out, n, "src/d%02d/f%04d.c", f % 50, f);
}

int main(int argc, char **argv)
{
	int nfiles = atoi(argv[1]), nrec = atoi(argv[2]);
	static const int lens[] = {1, 2, 3, 5, 8, 13, 20};
	unsigned long long seed = 88172645463325252ull;
	char path[256], full[512];
	FILE *out;

	mkdir("repo", 0755);
	mkdir("repo/.git", 0755);
	mkdir("repo/.orchestration", 0755);
	mkdir("repo/src", 0755);
	for (int d = 0; d < 50; d++) {
		snprintf(full, sizeof full, "repo/src/d%02d", d);
		mkdir(full, 0755);
	}
	for (int f = 0; f < nfiles; f++) {
		FILE *fp;

		path_of(f, path, sizeof path);
		snprintf(full, sizeof full, "repo/%s", path);
		if (!(fp = fopen(full, "w")))
			return 1;
		for (int l = 1; l <= LINES; l++)
			fprintf(fp, "%s\n", line_of(f, l));
		fclose(fp);
	}
	if (!(out = fopen("repo/.orchestration/agent_trace.jsonl", "w")))
		return 1;
	for (int i = 0; i < nrec; i++) {
		int f, k, s;
		unsigned char md[32];
		unsigned int mdlen;
		char text[LINES * 128];
		size_t tl = 0;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		f = (int)(i % nfiles);
		k = lens[seed % 7];
		s = 1 + (int)((seed >> 8) % (LINES - k + 1));
		for (int l = s; l < s + k; l++) {
			size_t n = strlen(line_of(f, l));

			memcpy(text + tl, line_buf, n);
			tl += n;
			if (l + 1 < s + k)
				text[tl++] = '\n';
		}
		EVP_Digest(text, tl, md, &mdlen, EVP_sha256(), NULL);
		path_of(f, path, sizeof path);
		fprintf(out, "{\"version\":\"0.1\",\"id\":\"%08x-0000-4000-8000-%012x\",\"timestamp\":\"2026-01-01T00:00:00Z\","
			"\"vcs\":{\"type\":\"git\",\"revision\":\"%040x\"},\"tool\":{\"name\":\"roz\",\"version\":\"0.2.0\"},"
			"\"files\":[{\"path\":\"%s\",\"conversations\":[{\"url\":\"urn:claude-code:session:bench-%d\","
			"\"contributor\":{\"type\":\"ai\",\"model_id\":\"anthropic/claude-sonnet-4-5\"},"
			"\"ranges\":[{\"start_line\":%d,\"end_line\":%d,\"content_hash\":\"sha256:",
			(unsigned)i, (unsigned)i, (unsigned)(i / 1000), path, i / 500, s, s + k - 1);
		for (int j = 0; j < 32; j++)
			fprintf(out, "%02x", md[j]);
		fprintf(out, "\"}],\"related\":[{\"type\":\"specification\",\"url\":\"urn:roz:intent:INT-%03d\"}]}]}],"
			"\"metadata\":{\"roz\":{\"intent_id\":\"INT-%03d\",\"mutation_class\":\"INTENT_EVOLUTION\","
			"\"session_id\":\"bench-%d\",\"tool_name\":\"Edit\"}}}\n",
			f % 20, f % 20, i / 500);
	}
	fclose(out);
	/* The work since: 1% of files get 3 lines on top, 1% a rewritten line 100, 0.3% are deleted. */
	for (int f = 0; f < nfiles; f++) {
		FILE *fp;

		path_of(f, path, sizeof path);
		snprintf(full, sizeof full, "repo/%s", path);
		if (f % 100 == 7) {
			if (!(fp = fopen(full, "w")))
				return 1;
			fprintf(fp, "/* a new header */\n#include <stdio.h>\n\n");
			for (int l = 1; l <= LINES; l++)
				fprintf(fp, "%s\n", line_of(f, l));
			fclose(fp);
		} else if (f % 100 == 42) {
			if (!(fp = fopen(full, "w")))
				return 1;
			for (int l = 1; l <= LINES; l++)
				fprintf(fp, "%s\n", l == 100 ? "int rewritten = 1;" : line_of(f, l));
			fclose(fp);
		} else if (f % 300 == 99) {
			remove(full);
		}
	}
	return 0;
}
EOF

cc=${CC:-cc}
# shellcheck disable=SC2046
$cc -O2 -o "$work/gen" "$work/gen.c" $(pkg-config --cflags --libs libcrypto 2>/dev/null || echo -lcrypto)
(cd "$work" && ./gen "$files" "$records")
size=$(wc -c <"$work/repo/.orchestration/agent_trace.jsonl")
echo "ledger_verify: $records records over $files files of 200 lines; ledger $((size / 1024 / 1024)) MiB"

cd "$work/repo"
# warm-up: the files into the page cache, and the report itself
set +e
"$roz" ledger verify >"$work/report" 2>&1
status=$?
set -e
tail -n 1 "$work/report"
echo "ledger_verify: exit status $status (1 expected: some ranges changed or missing)"

ms() { echo $(($(date +%s%N) / 1000000)); }
times=
i=0
while [ "$i" -lt "$runs" ]; do
	t0=$(ms)
	"$roz" ledger verify >/dev/null 2>&1 || true
	t1=$(ms)
	times="$times $((t1 - t0))"
	i=$((i + 1))
done
median=$(echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
echo "ledger_verify: runs (ms):$times"
echo "ledger_verify: median ${median} ms"
# CPU time says what the wall clock cannot on a busy machine
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f "ledger_verify: one more run: %e s elapsed, %U s user, %S s system, peak RSS %M KiB" \
		"$roz" ledger verify 2>&1 >/dev/null | tail -n 1
fi
