#!/bin/sh
# json_run.sh - the JSON benchmark on the hook benchmark's own session files.
# A short kept run of bench/run.sh builds them with the roz under test (a
# fresh session, ~100 events, the 500-event cap, 10,000 #roz prompts), then
# roz_json_bench times each reader and writer on them, and with --callgrind
# counts the instructions of one call of each.
# Usage: bench/json_run.sh --roz build/roz --json-bench build/roz_json_bench
#                          [--sizes fresh,100,cap,10k] [--runs N] [--callgrind]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
roz=build/roz
jb=build/roz_json_bench
sizes=fresh,100,cap,10k
runs=200
callgrind=0
while [ $# -gt 0 ]; do
	case $1 in
	--roz) roz=$2; shift 2 ;;
	--json-bench) jb=$2; shift 2 ;;
	--sizes) sizes=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--callgrind) callgrind=1; shift ;;
	*) echo "usage: $0 --roz PATH --json-bench PATH [--sizes LIST] [--runs N] [--callgrind]" >&2; exit 2 ;;
	esac
done

log=$(mktemp "${TMPDIR:-/tmp}/roz_json_run.XXXXXX")
kept=
trap 'rm -f "$log"; [ -z "$kept" ] || rm -rf "$kept"' EXIT INT TERM
# session-end runs on the reviewed base of every size; one run is enough to build them
"$here/run.sh" --roz "$roz" --sizes "$sizes" --only session-end --runs 1 --warmup 0 --keep \
	>/dev/null 2>"$log" || { cat "$log" >&2; exit 1; }
kept=$(sed -n 's/^bench: kept //p' "$log")
[ -d "$kept" ] || { echo "json_run: the hook benchmark kept no directory" >&2; exit 1; }

set --
for size in $(echo "$sizes" | tr ',' ' '); do
	set -- "$@" "$size=$kept/$size/base-reviewed-ours/sessions/5d1c7e2a-9b3f-4c8e-a0d6-3e7f1b2c4a9d.json"
done

if [ "$callgrind" = 0 ]; then
	"$jb" --runs "$runs" "$@"
	exit 0
fi

# One call of each operation, counted alone; each dump is named "<file>|<operation>".
out=$(mktemp -d "${TMPDIR:-/tmp}/roz_json_cg.XXXXXX")
valgrind --tool=callgrind --toggle-collect=json_bench_measured --callgrind-out-file="$out/cg" \
	"$jb" --callgrind "$@" >/dev/null 2>"$log" || { cat "$log" >&2; rm -rf "$out"; exit 1; }
n=1
while [ -f "$out/cg.$n" ]; do
	sed -n 's/^desc: Trigger: Client Request: //p; s/^totals: //p' "$out/cg.$n" | paste -sd'|' -
	n=$((n + 1))
done | awk -F'|' '
	{ if (!($1 in seen)) { seen[$1] = 1; docs[++nd] = $1 }
	  if (!($2 in seenop)) { seenop[$2] = 1; ops[++no] = $2 }
	  ir[$1 "|" $2] = $3 }
	END {
		printf "instructions of one call (callgrind)\n\n| operation |"
		for (d = 1; d <= nd; d++) printf " %s |", docs[d]
		printf "\n|---|"
		for (d = 1; d <= nd; d++) printf "--:|"
		printf "\n"
		for (o = 1; o <= no; o++) {
			printf "| %s |", ops[o]
			for (d = 1; d <= nd; d++) {
				k = docs[d] "|" ops[o]
				if (k in ir) printf " %\047d |", ir[k]; else printf " – |"
			}
			printf "\n"
		}
	}'
rm -rf "$out"
