#!/usr/bin/env bash
# genrepo.sh - a git repository shaped like a real one, for timing the
# working-tree walk (bench/tree_bench.c, bench/README.md).
#
#   genrepo.sh DIR N
#
# DIR must not exist. It gets N tracked files in directories of 10 to 30
# files each, 2 to 5 levels deep, under a few top-level folders (src, lib,
# tests, ...), each file a small text file of 100 to 2,000 bytes; a
# .gitignore at the root and two nested ones; and what a real checkout
# holds but ignores: node_modules/ with N/2 files in packages of their own
# shape, build/ with N/10 objects, and *.log files here and there. The
# shape is drawn from a fixed seed, so the same N gives the same tree.
# The tracked files are committed (set GENREPO_COMMIT=0 to skip it).
set -euo pipefail

if [ $# -ne 2 ] || ! [[ $2 =~ ^[0-9]+$ ]] || [ "$2" -lt 1 ]; then
	sed -n '5p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
dir=$1
n=$2
if [ -e "$dir" ]; then
	echo "genrepo: $dir already exists" >&2
	exit 2
fi

# a linear congruential generator: rnd M sets r to a number in [0, M)
seed=20240611
rnd() {
	seed=$(((seed * 1103515245 + 12345) % 2147483648))
	r=$(((seed / 65536) % $1))
}

tops=(src lib tests docs tools packages scripts internal)
words=(core util net io auth billing api model view store cache parse render config
	http db query index search sched queue log metric trace user admin report export
	image text crypto plugin client server common types proto codec stream sync)
exts=(c h py ts go rs md json txt yaml)

# Contents of a few sizes; each file gets one, after a line with its own path.
body=()
for size in 100 300 600 1000 2000; do
	line="lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod"
	text=""
	while [ ${#text} -lt "$size" ]; do
		text+="$line"$'\n'
	done
	body+=("$text")
done

# Plan the directories and their file counts first, so one mkdir makes them all.
plan_dirs=()
plan_counts=()
made=0
seen=" "
while [ "$made" -lt "$n" ]; do
	rnd ${#tops[@]}
	path=${tops[$r]}
	rnd 4
	depth=$((r + 2))
	for ((d = 1; d < depth; d++)); do
		rnd ${#words[@]}
		w=${words[$r]}
		rnd 3
		[ "$r" -eq 0 ] && { rnd 20; w+="_$r"; }
		path+="/$w"
	done
	case $seen in *" $path "*) continue ;; esac
	seen+="$path "
	rnd 21
	count=$((r + 10))
	[ $((made + count)) -gt "$n" ] && count=$((n - made))
	plan_dirs+=("$path")
	plan_counts+=("$count")
	made=$((made + count))
done

mkdir -p "$dir"
cd "$dir"
printf '%s\0' "${plan_dirs[@]}" | xargs -0 mkdir -p

for i in "${!plan_dirs[@]}"; do
	path=${plan_dirs[$i]}
	for ((f = 0; f < ${plan_counts[$i]}; f++)); do
		rnd ${#words[@]}
		w=${words[$r]}
		rnd ${#exts[@]}
		e=${exts[$r]}
		rnd ${#body[@]}
		printf '%s\n%s' "$path/${w}_$f.$e" "${body[$r]}" >"$path/${w}_$f.$e"
	done
	# now and then a log file the .gitignore hides
	rnd 10
	[ "$r" -eq 0 ] && printf 'log\n' >"$path/debug.log"
done

cat >.gitignore <<'EOF'
# dependencies and outputs
node_modules/
/build/
/dist/
coverage/
*.log
*.tmp
*.o
*.pyc
__pycache__/
.DS_Store
.env
.idea/
.vscode/
!.vscode/settings.json
EOF
mkdir -p src/generated tests/fixtures
printf 'tmp-*\n!tmp-keep\n' >src/.gitignore
printf '/out/\n*.snap\n' >tests/.gitignore
printf 'keep\n' >src/generated/tmp-keep

# What is ignored: node_modules/ (N/2 files), build/ (N/10 files).
ign=$((n / 2))
made=0
pkg=0
while [ "$made" -lt "$ign" ]; do
	rnd ${#words[@]}
	p="node_modules/${words[$r]}-$pkg"
	mkdir -p "$p/lib" "$p/dist"
	printf '{"name":"%s"}\n' "${words[$r]}-$pkg" >"$p/package.json"
	for ((f = 0; f < 12 && made < ign; f++, made++)); do
		printf 'module.exports = %d;\n' "$f" >"$p/lib/m$f.js"
	done
	for ((f = 0; f < 6 && made < ign; f++, made++)); do
		printf 'x\n' >"$p/dist/b$f.js"
	done
	pkg=$((pkg + 1))
done
mkdir -p build/obj
for ((f = 0; f < n / 10; f++)); do
	printf 'o\n' >"build/obj/o$f.o"
done

git init -q
if [ "${GENREPO_COMMIT:-1}" != 0 ]; then
	git add -A
	GIT_AUTHOR_NAME=genrepo GIT_AUTHOR_EMAIL=genrepo@example.invalid \
		GIT_COMMITTER_NAME=genrepo GIT_COMMITTER_EMAIL=genrepo@example.invalid \
		GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z' \
		git commit -q -m "genrepo $n"
fi
echo "genrepo: $dir: $n tracked files in ${#plan_dirs[@]} directories, $ign in node_modules/, $((n / 10)) in build/"
