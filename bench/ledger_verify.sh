#!/bin/sh
# ledger_verify.sh - what `roz ledger verify` costs a team: wall time and
# peak memory on a large ledger, after people have edited some of the files.
#
# ledger_gen.c (built here, SHA-256 from libcrypto) writes a repository of
# FILES files (30 to 400 lines) and a ledger of RECORDS records as roz
# writes them, in sessions of an agent's Edits, MultiEdits and Writes whose
# ranges (1 to 60 lines) overlap earlier ones, so most are superseded. Then
# the work since: EDITED percent of the files edited by a person (one or two
# lines rewritten in place), MOVED percent with three lines inserted at the
# top, MISSING percent deleted. Everything comes from fixed seeds.
#
# Each cell reads the ledger and the files once (page cache), then runs
# `roz ledger verify` RUNS times, each under `timeout TIMEOUT` and measured by
# GNU time (else by rss.c, built here): median wall and CPU seconds, the
# largest peak RSS, the exit status (0: nothing changed or missing, 1: some
# range changed or missing, or the ledger refused; a refusal or error is
# quoted). A run that times out counts as the longest in the medians; when
# the first one does, the cell ends there. One markdown table row per
# cell on stdout, with the 1-minute load average at its end; progress and
# each cell's summary line on stderr.
#
# Usage: bench/ledger_verify.sh [--roz build/roz] [--files 10000] [--records 100000]
#          [--edited 1] [--moved 0.5] [--missing 0.2] [--runs 3] [--timeout 300] [--keep]
#        bench/ledger_verify.sh --matrix [same options]
#          records 100,000 and 1,000,000 times edited 1% and 5% (--records and
#          --edited are ignored)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
roz=build/roz
files=10000
records=100000
edited=1
moved=0.5
missing=0.2
runs=3
limit=300
matrix=0
keep=0
usage() {
	echo "usage: $0 [--roz PATH] [--files N] [--records N] [--edited PCT] [--moved PCT] [--missing PCT]" >&2
	echo "          [--runs N] [--timeout SECONDS] [--matrix] [--keep]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--roz) roz=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--records) records=$2; shift 2 ;;
	--edited) edited=$2; shift 2 ;;
	--moved) moved=$2; shift 2 ;;
	--missing) missing=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	--matrix) matrix=1; shift ;;
	--keep) keep=1; shift ;;
	*) usage ;;
	esac
done
case $roz in /*) ;; *) roz=$(pwd)/$roz ;; esac
[ -x "$roz" ] || { echo "ledger_verify: no roz at $roz (build it first)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/roz_ledger_verify.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "ledger_verify: kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# the binary under test is copied, so a rebuild during the run cannot swap it
cp "$roz" "$work/roz"
cc=${CC:-cc}
# shellcheck disable=SC2046
$cc -std=c11 -O2 -o "$work/ledger_gen" "$here/ledger_gen.c" \
	$(pkg-config --cflags --libs libcrypto 2>/dev/null || echo -lcrypto)
if /usr/bin/time -o /dev/null -f "%e %U %S %M" true 2>/dev/null; then
	measure() { out=$1; shift; /usr/bin/time -o "$out" -f "%e %U %S %M" "$@"; }
	how="GNU time"
else
	$cc -std=c11 -O2 -o "$work/rss" "$here/rss.c"
	measure() { "$work/rss" "$@"; }
	how="rss.c"
fi
bound=
if command -v timeout >/dev/null 2>&1; then
	bound="timeout -k 10 $limit"
else
	echo "ledger_verify: no timeout(1): runs are not bounded" >&2
fi

repo=$work/repo
ledger=$repo/.orchestration/agent_trace.jsonl
mkdir -p "$repo/.git" "$repo/.orchestration"

median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# make_ledger RECORDS
make_ledger() {
	t0=$(date +%s)
	"$work/ledger_gen" ledger "$files" "$1" "$ledger"
	size=$(wc -c <"$ledger")
	echo "ledger_verify: $1 records over $files files: $((size / 1000000)) MB, written in $(($(date +%s) - t0)) s" >&2
}

# cell RECORDS EDITED: one table row
cell() {
	"$work/ledger_gen" tree "$files" "$2" "$moved" "$missing" "$repo" | sed 's/^/ledger_verify: /' >&2
	cat "$ledger" >/dev/null
	find "$repo/src" -type f -exec cat {} + >/dev/null
	walls='' cpus='' rss=0 status='' note='' late=0 i=0
	while [ "$i" -lt "$runs" ]; do
		set +e
		# shellcheck disable=SC2086
		(cd "$repo" && measure "$work/time" $bound "$work/roz" ledger verify >"$work/report" 2>&1)
		st=$?
		set -e
		i=$((i + 1))
		# GNU time puts "Command exited with non-zero status N" above its line
		read -r w u s m <<EOF
$(tail -n 1 "$work/time")
EOF
		cpu=$(echo "$u $s" | awk '{ printf "%.2f", $1 + $2 }')
		[ "$m" -gt "$rss" ] && rss=$m
		echo "ledger_verify:   run $i: exit $st, $w s, $u s user, $s s system, $m KiB" >&2
		if [ "$st" = 124 ] || [ "$st" = 137 ]; then
			late=$((late + 1))
			# a run cut short counts as longer than any other in the medians
			walls="$walls 999999" cpus="$cpus 999999"
			# when the first run did not finish, the others would not either
			[ -z "$status" ] && break
			continue
		fi
		walls="$walls $w" cpus="$cpus $cpu"
		if [ -z "$status" ]; then
			status=$st
			last=$(tail -n 1 "$work/report")
			echo "ledger_verify:   $last" >&2
			case $last in *" ranges in "*) ;; *) note=$(echo "$last" | cut -c1-80) ;; esac
		fi
	done
	wall=$(echo "$walls" | median) cpu_m=$(echo "$cpus" | median)
	[ "$wall" = 999999 ] && wall="> $limit"
	[ "$cpu_m" = 999999 ] && cpu_m="> $cpu"
	rss_cell=$((rss / 1024))
	[ "$late" -gt 0 ] && rss_cell="≥ $rss_cell"
	if [ -z "$status" ]; then
		status="timed out ($limit s)"
	else
		[ -n "$note" ] && status="$status: $note"
		[ "$late" -gt 0 ] && status="$status; $late of $runs runs timed out ($limit s)"
	fi
	load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$files" "$2" \
		"$(($(wc -c <"$ledger") / 1000000))" "$wall" "$cpu_m" "$rss_cell" "$status" "$load"
}

echo "ledger_verify: $roz; $(nproc 2>/dev/null || echo '?') cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null); measured by $how; $runs runs, timeout $limit s; moved $moved%, missing $missing%" >&2
echo "| records | files | edited % | ledger MB | median wall s | median CPU s | max RSS MiB | exit status | load |"
echo "|--:|--:|--:|--:|--:|--:|--:|---|--:|"
if [ "$matrix" = 1 ]; then
	for r in 100000 1000000; do
		make_ledger "$r"
		for e in 1 5; do
			cell "$r" "$e"
		done
	done
else
	make_ledger "$records"
	cell "$records" "$edited"
fi
