#!/usr/bin/env bash
# check-layers.sh - prove the layers of docs/architecture.md hold in what was
# built, not only in what the compiler was shown.
#
#   check-layers.sh SOURCE_DIR util=LIB core=LIB gov=LIB io=LIB store=LIB runner=LIB
#
# Each LIB is that layer's static library. Three rules, each failure one line
# naming the file and what it broke; the exit status is 1 if any was found:
#
#  1. util, core and gov call nothing on the list below (nm -u on their
#     archives): they make no system calls, so tests can drive them with a
#     fixed clock and no files, and a hook's I/O stays where it is looked for.
#  2. No library prints or exits: only src/cli/ does (nm -u on every archive).
#  3. Every #include "roz/..." in a folder names a header of that folder's
#     layer or one below, any other quoted include names a header in the same
#     folder, and util and core include no header that exists only for system
#     calls. The include paths already make an upward include fail to
#     compile; this catches the spellings they cannot see (a relative path, a
#     header that exists in two layers).
#
# NM names the nm to use (default nm); CMake passes the toolchain's.
set -uo pipefail

usage() {
	sed -n '4,5p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
[ $# -ge 1 ] || usage
src=$1
shift
nm=${NM:-nm}
declare -A lib=()
for arg in "$@"; do
	case $arg in
	util=* | core=* | gov=* | io=* | store=* | runner=*) lib[${arg%%=*}]=${arg#*=} ;;
	*) usage ;;
	esac
done
for layer in util core gov io store runner; do
	[ -n "${lib[$layer]:-}" ] || usage
	if [ ! -f "${lib[$layer]}" ]; then
		echo "layers: ${lib[$layer]}: no such library (build it first)" >&2
		exit 2
	fi
done

# The layers, lowest first; a folder may use its own layer and those below.
declare -A rank=([util]=0 [core]=1 [gov]=2 [io]=3 [store]=4 [runner]=5 [cli]=6)
# Where each layer's "roz/..." headers live (the CLI's are generated from src/cli/*.h.in).
declare -A header_root=([util]=src/util/include [core]=include [gov]=src/gov/include
	[io]=src/io/include
	[store]=src/store/include [runner]=src/runner/include)

# Calls util and core must not make, by what they would reach.
pure_forbidden=(
	# files and descriptors
	open openat creat read pread readv write pwrite writev close lseek dup dup2 dup3 pipe pipe2
	ioctl fcntl flock lockf fsync fdatasync ftruncate truncate mmap munmap
	# the file system
	stat fstat lstat fstatat newfstatat statx xstat fxstat lxstat fxstatat access faccessat
	readlink readlinkat realpath rename renameat renameat2 unlink unlinkat remove mkdir mkdirat
	rmdir link linkat symlink symlinkat chmod fchmod fchmodat chown fchown lchown
	opendir fdopendir readdir closedir scandir mkstemp mkstemps mkdtemp tmpfile
	# streams on files
	fopen fdopen freopen fclose fread fgets fgetc getc getline getdelim fscanf popen pclose
	# the environment and the user database
	getenv secure_getenv setenv unsetenv putenv clearenv getpwuid getpwuid_r getpwnam
	getpwnam_r getuid geteuid getgid getegid getpid getppid
	# the clock and the time zone
	clock_gettime time gettimeofday clock localtime localtime_r mktime tzset nanosleep sleep usleep
	# randomness
	getrandom getentropy rand rand_r srand random srandom arc4random
	# processes and signals
	fork vfork execve execv execvp execvpe execl execlp system posix_spawn posix_spawnp
	wait waitpid wait4 kill raise signal sigaction isatty dlopen
)
# Calls no library makes: printing and leaving are the CLI's.
lib_forbidden=(printf vprintf fprintf vfprintf dprintf vdprintf puts fputs putchar fputc putc
	fwrite perror exit _exit _Exit quick_exit)

# Headers util and core have no use for: each exists for system calls.
pure_headers='^(unistd|fcntl|pwd|grp|dirent|pthread|time|signal|poll|glob|ftw|dlfcn|sched|spawn|termios|sys/.*)\.h$'

problems=0
problem() {
	echo "layers: $*"
	problems=$((problems + 1))
}

# check_calls LAYER WHY NAME...: the archive of LAYER calls none of NAME. A
# call is known by the name it is made under without fortify and large-file
# decorations: __open64_2, __read_chk and __fxstat64 are open, read, fxstat.
check_calls() {
	local layer=$1 why=$2 archive=${lib[$1]} found status member sym
	shift 2
	# nm -A -u prints "archive:member: U symbol" for each call out of a member
	found=$("$nm" -A -u "$archive" | awk -v banned="$*" '
		BEGIN { n = split(banned, b, " "); for (i = 1; i <= n; i++) ban[b[i]] = 1 }
		$(NF - 1) == "U" {
			calls++
			sym = $NF
			sub(/@.*/, "", sym)
			plain = sym
			sub(/^__/, "", plain); sub(/_chk$/, "", plain); sub(/_2$/, "", plain); sub(/64$/, "", plain)
			if (plain in ban) {
				member = $1
				sub(/:$/, "", member); sub(/^.*:/, "", member); sub(/\.o$/, "", member)
				print member, sym
			}
		}
		END { if (!calls) print "-", "-" }')
	status=$?
	if [ $status -ne 0 ]; then
		problem "$layer: $nm cannot read $archive"
		return
	fi
	while read -r member sym; do
		[ -n "$member" ] || continue
		if [ "$member" = - ]; then
			# a library that calls nothing at all was not read right: say so rather than pass
			problem "$layer: $nm lists no calls out of $archive, so nothing could be checked"
		else
			problem "$layer ($(basename "$archive")): $member calls $sym; $why"
		fi
	done <<<"$found"
}

for layer in util core gov; do
	check_calls "$layer" "the $layer layer makes no system calls (the I/O layer, src/io/, does them)" \
		"${pure_forbidden[@]}"
done
for layer in util core gov io store runner; do
	check_calls "$layer" "only the CLI (src/cli/) prints and exits" "${lib_forbidden[@]}"
done

# The layer a file belongs to, from where it is, into $file_layer (no subshell: this runs per include).
layer_of() {
	case $1 in
	src/util/*) file_layer=util ;;
	src/core/* | include/*) file_layer=core ;;
	src/gov/*) file_layer=gov ;;
	src/io/*) file_layer=io ;;
	src/store/*) file_layer=store ;;
	src/runner/*) file_layer=runner ;;
	src/cli/*) file_layer=cli ;;
	*) file_layer= ;;
	esac
}

cd "$src" || exit 2
# The layers whose headers are "roz/<name>", found once: several when it exists in more than one.
declare -A owners=()
for layer in util core gov io store runner; do
	[ -d "${header_root[$layer]}/roz" ] || continue
	while IFS= read -r h; do
		name=${h#"${header_root[$layer]}/"}
		owners[$name]=${owners[$name]:+${owners[$name]} }$layer
	done < <(find "${header_root[$layer]}/roz" -name '*.h')
done
# the CLI's are generated from src/cli/<name>.in
for h in src/cli/*.h.in; do
	[ -f "$h" ] || continue
	name=roz/${h#src/cli/}
	name=${name%.in}
	[ -n "${owners[$name]:-}" ] || owners[$name]=cli
done

# Every include of every file, one grep: "file:line:text", the files in order.
while IFS= read -r rec; do
	file=${rec%%:*}
	rest=${rec#*:}
	line=${rest%%:*}
	text=${rest#*:}
	layer_of "$file"
	layer=$file_layer
	dir=${file%/*}
	[[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"\<])([^\">]*) ]] || continue
	open=${BASH_REMATCH[1]}
	name=${BASH_REMATCH[2]}
	if [[ $name == roz/* ]]; then
		own=${owners[$name]:-}
		if [ -z "$own" ]; then
			problem "$file:$line: includes $name, which no layer has"
		elif [[ $own == *" "* ]]; then
			problem "$file:$line: $name exists in more than one layer ($own); give each its own name"
		elif [ "${rank[$own]}" -gt "${rank[$layer]}" ]; then
			problem "$file:$line: includes $name of the $own layer, above $layer"
		fi
	elif [ "$open" = '"' ]; then
		if [[ $name == */* ]]; then
			problem "$file:$line: includes \"$name\" by path; another folder's headers are reached as \"roz/...\""
		elif [ ! -f "$dir/$name" ]; then
			problem "$file:$line: includes \"$name\", which is not in $dir/"
		fi
	elif [ "${rank[$layer]}" -le "${rank[gov]}" ] && [[ $name =~ $pure_headers ]]; then
		problem "$file:$line: includes <$name>; the $layer layer makes no system calls"
	fi
done < <(find src include -name '*.[ch]' -print0 | LC_ALL=C sort -z |
	xargs -0 grep -n -H '^[[:space:]]*#[[:space:]]*include')

if [ $problems -gt 0 ]; then
	echo "layers: $problems problem(s); the layers and their rules are in docs/architecture.md"
	exit 1
fi
echo "layers: ok (util, core and gov make no system calls, no library prints or exits, every include points down)"
