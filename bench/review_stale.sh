#!/bin/sh
# review_stale.sh - what binding a COMPLETE verdict to the work it reviewed
# costs (roz/work.h): the Stop with a live approval, the cycle's baseline,
# and the PostToolUse that clears the mark, in a generated git repository,
# a new roz against an older one.
#
# genrepo.sh makes a repository of FILES committed files; before the task
# three of them are modified and two files are left untracked, and during
# it (after the #roz prompt, before the first stop) two more are modified
# and one is written by a Write. Each roz then goes through the hook
# sequence of tests/golden/review-happy-path.case in a home of its own:
# session-start, user-prompt "#roz ...", the work, stop (blocked), the
# reviewer's subagent-start and its pre-tool-use of `roz decide` (agent_type
# roz:roz), `roz decide <sid> COMPLETE`, subagent-stop, and a stop with
# stop_hook_active true that must answer {}. Each case gets a copy of that
# home; its session file and trace are put back before every run, outside
# the timed interval (review_time.c, with bench.c's proc.c: exec form, as
# plugin/hooks/hooks.json starts roz, JSON on stdin, stdout and stderr read
# to EOF, wait4; every run interleaved with the floor, floor.c, in a random
# order).
#
#   1  floor                     the spawn floor, as bench/run.sh measures it
#   2  OLD stop                  approval live
#   3  NEW stop, armed           approval live, nothing ran since (<home>/trees/<sid>.armed there)
#   4  NEW stop, looks           a tool call ran since (.armed removed before each run), nothing
#                                changed: git add -A, write-tree, diff-tree, and the stop re-arms
#  4a-c                          each of those git runs alone, with roz's arguments (git_run.c), on a
#                                copy of NEW's index: what of case 4 is git's
#   5  user-prompt "#roz ..."    the cycle's start (NEW: the baseline), OLD and NEW
#   6  post-tool-use Write       OLD and NEW (NEW removes .armed: it is made before each run)
#
# Every timed run must answer what the case is about ({} for the stops,
# what the probe answered for the others), and for NEW: .armed still there
# (3), made again (4: the look ran and held), gone (6); a run that does not
# counts in the `off` column. Prints, per repository size, one markdown
# table: median and p90 wall ms, median CPU ms (roz and the git it runs),
# the median over OLD's same case and over the floor's; with --curve, a
# table of cases 2 to 5 over the sizes at the end.
#
# Usage: bench/review_stale.sh --roz NEW --vs OLD [--files 10000] [--runs 100]
#          [--curve [--sizes "1000 10000 50000"]] [--warmup 5] [--seed 1]
#          [--shell /bin/sh] [--keep]
#   --curve   every size in --sizes (default 1000 10000 50000; --runs defaults to 30)
#   --shell   start roz as a shell-form hook, SHELL -c 'roz hook <event>', roz on PATH
set -eu

here=$(cd "$(dirname "$0")" && pwd)
roz=build/roz
vs=
files=10000
runs=
curve=0
sizes="1000 10000 50000"
warmup=5
seed=1
shell=
keep=0
usage() {
	echo "usage: $0 --roz NEW --vs OLD [--files N] [--runs R] [--curve [--sizes \"1000 10000 50000\"]]" >&2
	echo "          [--warmup N] [--seed N] [--shell PATH] [--keep]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--roz) roz=$2; shift 2 ;;
	--vs) vs=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--curve) curve=1; shift ;;
	--sizes) sizes=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--shell) shell=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	*) usage ;;
	esac
done
[ -n "$vs" ] || usage
[ "$curve" = 1 ] || sizes=$files
[ -n "$runs" ] || { if [ "$curve" = 1 ]; then runs=30; else runs=100; fi; }
case $roz in /*) ;; *) roz=$(pwd)/$roz ;; esac
case $vs in /*) ;; *) vs=$(pwd)/$vs ;; esac
[ -x "$roz" ] || { echo "review_stale: no roz at $roz (build it first)" >&2; exit 2; }
[ -x "$vs" ] || { echo "review_stale: no roz at $vs" >&2; exit 2; }
command -v git >/dev/null 2>&1 || { echo "review_stale: git is needed" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/roz_review_stale.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "review_stale: kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
t_start=$(date +%s)

# the binaries under test are copied, so a rebuild during the run cannot swap them;
# each as `roz` in a directory of its own, for --shell
mkdir -p "$work/new" "$work/old" "$work/plugin"
cp "$roz" "$work/new/roz"
cp "$vs" "$work/old/roz"
flags="-std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Werror"
# shellcheck disable=SC2086 # $flags is a list of compiler flags
${CC:-cc} $flags -o "$work/floor" "$here/floor.c"
# shellcheck disable=SC2086
${CC:-cc} $flags -o "$work/review_time" "$here/review_time.c" "$here/proc.c" -lm

SID=5d1c7e2a-9b3f-4c8e-a0d6-3e7f1b2c4a9d
BASE_PATH=/usr/local/bin:/usr/bin:/bin
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }
die() { echo "review_stale: $*" >&2; exit 1; }

# json FILE EVENT TAIL: a hook's input as Claude Code sends it, from $repo
json() {
	printf '{"session_id":"%s","transcript_path":"/home/dev/.claude/projects/-home-dev-project/%s.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"%s"%s}\n' \
		"$SID" "$SID" "$repo" "$2" "$3" >"$1"
}

# run BIN HOME ARGS... <input: roz in a clean environment (bench.c's), from the repository;
# `roz decide` also gets the session's id, as the reviewer's Bash call inside the session would
run() {
	b=$1 h=$2
	shift 2
	sid_env=
	[ "$1" = decide ] && sid_env=CLAUDE_CODE_SESSION_ID=$SID
	# shellcheck disable=SC2086 # $sid_env is one word or none
	(cd "$repo" && env -i PATH="$BASE_PATH" HOME="$h" ROZ_HOME="$h" CLAUDE_PLUGIN_ROOT="$work/plugin" \
		CLAUDE_PROJECT_DIR="$repo" $sid_env "$b" "$@")
}

# step BIN HOME HOOK INPUT PATTERN: one untimed hook, whose answer must match PATTERN
step() {
	out=$(run "$1" "$2" hook "$3" <"$4" 2>"$work/err") || die "set-up: $1 hook $3 failed: $(cat "$work/err")"
	# shellcheck disable=SC2254 # PATTERN is a pattern
	case $out in $5) ;; *) die "set-up: $1 hook $3 answered '$out' where '$5' was expected; $(cat "$work/err")" ;; esac
}

# the task's own work, written the same way for each roz (the same bytes each time)
task_work() {
	for f in $work_files; do
		{ git -C "$repo" show "HEAD:$f"; echo "changed by the task"; } >"$repo/$f"
	done
	printf 'written by the task\n' >"$repo/src/task-new.txt"
}

# prepare BIN HOME: the approved review, as tests/golden/review-happy-path.case runs it
prepare() {
	b=$1 h=$2
	mkdir -p "$h"
	step "$b" "$h" session-start "$in/start.json" '{}'
	step "$b" "$h" user-prompt "$in/prompt.json" '*'
	task_work
	step "$b" "$h" post-tool-use "$in/post-write.json" '*'
	# git trusts an index entry only when its file is older than the index: let the clock move
	sleep 1
	step "$b" "$h" stop "$in/stop-first.json" '{"decision":"block"*'
	step "$b" "$h" subagent-start "$in/sub-start.json" '*'
	step "$b" "$h" pre-tool-use "$in/decide-call.json" '{}'
	out=$(run "$b" "$h" decide "$SID" COMPLETE "reviewed the diff against the request; tests pass" 2>&1) ||
		die "set-up: $b decide failed: $out"
	case $out in "Recorded COMPLETE"*) ;; *) die "set-up: $b decide said: $out" ;; esac
	step "$b" "$h" subagent-stop "$in/sub-stop.json" '*'
	step "$b" "$h" stop "$in/stop-again.json" '{}'
	mkdir -p "$h.snap"
	cp "$h/sessions/$SID.json" "$h.snap/session.json"
	cp "$h/sessions/$SID.trace.jsonl" "$h.snap/trace.jsonl"
}

# spec_case NAME BINDIR BASEHOME HOOK INPUT: a case in a copy of BASEHOME; then the case's own lines
spec_case() {
	h=$work/n$n-$1
	cp -a "$3" "$h"
	printf 'case\t%s\n' "$1"
	if [ -n "$shell" ]; then
		printf 'arg\t%s\narg\t-c\narg\troz hook %s\nenv\tPATH=%s:%s\n' "$shell" "$4" "$2" "$BASE_PATH"
	else
		printf 'arg\t%s/roz\narg\thook\narg\t%s\nenv\tPATH=%s\n' "$2" "$4" "$BASE_PATH"
	fi
	printf 'env\tHOME=%s\nenv\tROZ_HOME=%s\nenv\tCLAUDE_PLUGIN_ROOT=%s/plugin\nenv\tCLAUDE_PROJECT_DIR=%s\n' \
		"$h" "$h" "$work" "$repo"
	printf 'input\t%s\n' "$5"
	printf 'restore\t%s.snap/session.json\t%s/sessions/%s.json\n' "$3" "$h" "$SID"
	printf 'restore\t%s.snap/trace.jsonl\t%s/sessions/%s.trace.jsonl\n' "$3" "$h" "$SID"
}

# session_field NAME: a string field of NEW's session (its work's trees)
session_field() {
	v=$(grep -o "\"$1\":[[:space:]]*\"[0-9a-f]*\"" "$work/n$n-new/sessions/$SID.json" | head -n 1 | sed 's/.*:[[:space:]]*"//; s/"$//')
	[ -n "$v" ] || die "no $1 in NEW's session"
	echo "$v"
}

# git_case NAME ARGS...: one of the git runs of case 4 on its own, as roz runs it (git_run.c), on a
# copy of NEW's index; no state to put back, its answer the probe's
git_case() {
	printf 'case\t%s\narg\t%s\n' "$1" "$(command -v git)"
	shift
	for a in --no-optional-locks --literal-pathspecs -c core.fsmonitor=false -c core.untrackedCache=false \
		-C "$repo" "$@"; do
		printf 'arg\t%s\n' "$a"
	done
	printf 'env\tPATH=%s\nenv\tHOME=%s\nenv\tGIT_INDEX_FILE=%s\ninput\t%s\n' "$BASE_PATH" "$work/n$n-new" \
		"$work/n$n-git.index" /dev/null
}

# size N: make the repository, prepare both, time every case; the table on stdout
size() {
	n=$1
	repo=$work/repo-$n
	in=$work/in-$n
	mkdir -p "$in"
	t0=$(date +%s)
	bash "$here/genrepo.sh" "$repo" "$n" >&2
	# uncommitted work from before the task: three files modified, two untracked
	git -C "$repo" ls-files >"$in/files"
	total=$(wc -l <"$in/files")
	pick() { awk -v t="$total" -v k="$1" 'NR == int(t * k / 100) + 1' "$in/files"; }
	for k in 10 40 70; do
		printf 'changed before the task\n' >>"$repo/$(pick $k)"
	done
	printf 'notes\n' >"$repo/notes-before.txt"
	printf 'scratch\n' >"$repo/src/scratch-before.txt"
	work_files="$(pick 25) $(pick 85)"
	# the repository's own index as a working checkout keeps it: refreshed (git status writes it) a
	# while after its files were written, so git trusts its stat data, as the private index copies it
	sleep 1
	git -C "$repo" status --porcelain >/dev/null

	json "$in/start.json" SessionStart ',"source":"startup","model":"claude-sonnet-4-5"'
	json "$in/prompt.json" UserPromptSubmit ',"prompt":"#roz add input validation to the signup form, cover the error paths with tests, and keep the messages short"'
	json "$in/post-write.json" PostToolUse ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$repo/src/task-new.txt\",\"content\":\"written by the task\\n\"},\"tool_use_id\":\"toolu_01w\",\"tool_response\":{\"type\":\"create\",\"filePath\":\"$repo/src/task-new.txt\",\"content\":\"written by the task\\n\",\"structuredPatch\":[]}"
	json "$in/stop-first.json" Stop ',"stop_hook_active":false'
	json "$in/sub-start.json" SubagentStart ',"agent_id":"a0000000000000001","agent_type":"roz:roz"'
	json "$in/decide-call.json" PreToolUse ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz decide $SID COMPLETE 'reviewed the diff against the request; tests pass'\",\"description\":\"Record the verdict\"},\"tool_use_id\":\"toolu_01d\",\"agent_id\":\"a0000000000000001\",\"agent_type\":\"roz:roz\""
	json "$in/sub-stop.json" SubagentStop ',"stop_hook_active":false,"agent_id":"a0000000000000001","agent_type":"roz:roz","last_assistant_message":"Recorded COMPLETE."'
	json "$in/stop-again.json" Stop ',"stop_hook_active":true'

	prepare "$work/old/roz" "$work/n$n-old"
	prepare "$work/new/roz" "$work/n$n-new"
	armed=trees/$SID.armed
	[ -e "$work/n$n-new/$armed" ] || die "NEW left no $armed after the approval: it would not measure what this is about"
	grep -q '"approved_tree"' "$work/n$n-new/sessions/$SID.json" ||
		die "NEW's approval is not bound to the work (no approved_tree in the session)"
	index=$(cd "$work/n$n-new" && ls trees/*.index)
	base_tree=$(session_field base_tree) approved_tree=$(session_field approved_tree)
	cp "$work/n$n-new/$index" "$work/n$n-git.index"
	echo "review_stale: $n files: repository and sessions made in $(($(date +%s) - t0)) s; git status: $(git -C "$repo" status --porcelain | wc -l) entries" >&2

	spec=$work/spec-$n
	{
		printf 'runs\t%s\nwarmup\t%s\nseed\t%s\nfloor\t%s/floor\n' "$runs" "$warmup" "$seed" "$work"
		spec_case old-stop "$work/old" "$work/n$n-old" stop "$in/stop-again.json"
		printf 'expect\t{}\n'
		spec_case new-stop-armed "$work/new" "$work/n$n-new" stop "$in/stop-again.json"
		printf 'expect\t{}\ntouch\t%s\nafter-exists\t%s\n' "$h/$armed" "$h/$armed"
		spec_case new-stop-look "$work/new" "$work/n$n-new" stop "$in/stop-again.json"
		printf 'expect\t{}\nunlink\t%s\nafter-exists\t%s\n' "$h/$armed" "$h/$armed"
		spec_case old-prompt "$work/old" "$work/n$n-old" user-prompt "$in/prompt.json"
		spec_case new-prompt "$work/new" "$work/n$n-new" user-prompt "$in/prompt.json"
		printf 'after-exists\t%s/%s\n' "$h" "$index"
		git_case git-add add -A --ignore-errors
		git_case git-write-tree write-tree
		git_case git-diff-tree diff-tree -r -z --raw --no-renames "$base_tree" "$approved_tree"
		spec_case old-post-write "$work/old" "$work/n$n-old" post-tool-use "$in/post-write.json"
		spec_case new-post-write "$work/new" "$work/n$n-new" post-tool-use "$in/post-write.json"
		printf 'touch\t%s\nafter-absent\t%s\n' "$h/$armed" "$h/$armed"
	} >"$spec"
	l0=$(load)
	t0=$(date +%s)
	(cd "$repo" && "$work/review_time" "$spec") >"$work/out-$n"
	l1=$(load)
	echo "review_stale: $n files: timed in $(($(date +%s) - t0)) s" >&2

	echo
	echo "### $n files, $runs runs per case, load average $l0 at start, $l1 at end"
	echo
	echo "| # | case | median ms | p90 ms | CPU ms | ×OLD | ×floor | off |"
	echo "|---|------|--:|--:|--:|--:|--:|--:|"
	awk -F '\t' -v n="$n" -v curve="$work/curve" '
		$1 == "floor" { f = $2; fp90 = $3; fcpu = $5 }
		$1 == "case" { p50[$2] = $3; p90[$2] = $4; cpu[$2] = $6; off[$2] = $8 }
		function row(num, name, key, vs) {
			printf "| %s | %s | %.2f | %.2f | %.2f | %s | %.2f | %d |\n", num, name, p50[key] / 1000,
				p90[key] / 1000, cpu[key] / 1000, vs == "" ? "" : sprintf("%.2f", p50[key] / p50[vs]),
				p50[key] / f, off[key]
		}
		END {
			printf "| 1 | floor (reads stdin, answers {}) | %.2f | %.2f | %.2f |  | 1.00 |  |\n", f / 1000, fp90 / 1000, fcpu / 1000
			row(2, "OLD stop, approval live", "old-stop", "old-stop")
			row(3, "NEW stop, approval live, nothing ran since (.armed)", "new-stop-armed", "old-stop")
			row(4, "NEW stop, a tool call since, nothing changed (looks)", "new-stop-look", "old-stop")
			row("4a", "of which: git add -A alone", "git-add", "")
			row("4b", "of which: git write-tree alone", "git-write-tree", "")
			row("4c", "of which: git diff-tree alone", "git-diff-tree", "")
			row("5a", "OLD user-prompt #roz", "old-prompt", "old-prompt")
			row("5b", "NEW user-prompt #roz (baseline)", "new-prompt", "old-prompt")
			row("6a", "OLD post-tool-use Write", "old-post-write", "old-post-write")
			row("6b", "NEW post-tool-use Write (removes .armed)", "new-post-write", "old-post-write")
			printf "| %s | %.2f | %.2f | %.2f (%.2f) | %.2f (%.2f) | %.2f | %.2f (%.2f) |\n", n, f / 1000,
				p50["old-stop"] / 1000, p50["new-stop-armed"] / 1000, p50["new-stop-armed"] / p50["old-stop"],
				p50["new-stop-look"] / 1000, p50["new-stop-look"] / p50["old-stop"], p50["old-prompt"] / 1000,
				p50["new-prompt"] / 1000, p50["new-prompt"] / p50["old-prompt"] >> curve
		}' "$work/out-$n"
	[ "$keep" = 1 ] || rm -rf "$repo" "$work"/n"$n"-*
}

echo "review_stale: NEW $("$work/new/roz" --version 2>/dev/null | head -n 1) ($roz)" >&2
echo "review_stale: OLD $("$work/old/roz" --version 2>/dev/null | head -n 1) ($vs)" >&2
echo "# review_stale: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc 2>/dev/null || echo '?') cores, $(uname -sr), $(git --version)"
echo "# NEW $roz; OLD $vs; $runs runs per case after $warmup warm-up rounds, seed $seed; $(if [ -n "$shell" ]; then echo "shell form ($shell -c 'roz hook <event>')"; else echo "exec form"; fi)"
for s in $sizes; do
	size "$s"
done
if [ "$curve" = 1 ]; then
	echo
	echo "### Over the repository's size (median ms; × OLD's stop, or OLD's prompt, in brackets)"
	echo
	echo "| files | floor | 2 OLD stop | 3 NEW stop, armed | 4 NEW stop, looks | 5a OLD prompt | 5b NEW prompt |"
	echo "|--:|--:|--:|--:|--:|--:|--:|"
	cat "$work/curve"
fi
echo
echo "# total $(($(date +%s) - t_start)) s; load average $(load) at the end"
