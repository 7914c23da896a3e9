#!/usr/bin/env bash
# Install roz into a scratch prefix with `cmake --install` and check that
# every piece lands where it should and works from there: the binary, the
# man page, the Claude Code plugin (with real template files), and the
# shell completions.
#
# usage: test-install.sh [BUILD_DIR]
#   With BUILD_DIR (a configured build tree, as ctest passes it), install
#   from it; roz is built first only if it is missing. Without it, configure
#   and build the source tree this script belongs to in a scratch directory.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/roz-install-test.XXXXXX")" || exit 1
trap 'rm -rf "$scratch"' EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
note() { echo "skip $*"; }
check() { # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

# --- build tree ------------------------------------------------------------
build=${1:-}
if [[ -z $build ]]; then
	src="$(cd "$here/../.." && pwd)"
	build="$scratch/build"
	echo "configuring and building $src in $build"
	if ! cmake -S "$src" -B "$build" -DROZ_BUILD_TESTS=OFF >"$scratch/build.log" 2>&1 ||
		! cmake --build "$build" --target roz >>"$scratch/build.log" 2>&1; then
		cat "$scratch/build.log"
		echo "FAIL could not build roz"
		exit 1
	fi
fi
build="$(cd "$build" && pwd)" || exit 1
cache="$build/CMakeCache.txt"
if [[ ! -f $cache ]]; then
	echo "FAIL $build is not a configured build tree (no CMakeCache.txt)"
	exit 1
fi
cache_get() { sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -n 1; }
version="$(cache_get CMAKE_PROJECT_VERSION)"
src="$(cache_get CMAKE_HOME_DIRECTORY)"
if [[ -z $version || ! -d $src ]]; then
	echo "FAIL cannot read the project version or source directory from $cache"
	exit 1
fi
if [[ ! -x $build/roz ]]; then
	echo "roz is not built in $build; building it"
	cmake --build "$build" --target roz >"$scratch/build.log" 2>&1 || {
		cat "$scratch/build.log"
		echo "FAIL could not build roz"
		exit 1
	}
fi

# --- install ---------------------------------------------------------------
prefix="$scratch/prefix"
if ! cmake --install "$build" --prefix "$prefix" >"$scratch/install.log" 2>&1; then
	cat "$scratch/install.log"
	echo "FAIL cmake --install $build --prefix $prefix"
	exit 1
fi
ok "cmake --install into a scratch prefix"

roz="$prefix/bin/roz"
share="$prefix/share"
plugin="$share/roz/plugin"

# Run a command as if roz had just been installed for a new user: the
# installed roz first on PATH, a private empty home, nothing from the
# caller's roz settings or Claude Code session.
mkdir -m 700 "$scratch/home"
clean_env() {
	env -u ROZ_CONFIG -u ROZ_STORAGE_PATH -u ROZ_REVIEW_MODE -u ROZ_MAX_BLOCKS \
		-u ROZ_COOLDOWN_SECONDS -u ROZ_MAX_EVENTS -u ROZ_RETENTION_DAYS \
		-u CLAUDE_PLUGIN_ROOT -u CLAUDE_CODE_SESSION_ID \
		PATH="$prefix/bin:$PATH" ROZ_HOME="$scratch/home" HOME="$scratch/home" "$@"
}

# --- JSON helpers: python3 if present, else node -----------------------------
if command -v python3 >/dev/null 2>&1; then
	json_valid() { python3 -m json.tool "$1" >/dev/null 2>&1; }
	# json_get FILE a.0.b: the value at that path, printed as text
	json_get() {
		python3 - "$1" "$2" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1], encoding="utf-8"))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(len(v) if isinstance(v, (list, dict)) else v)
EOF
	}
	# json_hooks FILE: every hook with a "command", one a line: "exec", then
	# the command and its "args", tab-separated; "shell" and the command line
	# when it has no "args" (Claude Code runs it through /bin/sh -c)
	json_hooks() {
		python3 - "$1" <<'EOF'
import json, sys
def walk(v):
    if isinstance(v, dict):
        if isinstance(v.get("command"), str):
            args = v.get("args")
            print("\t".join(["exec", v["command"]] + args) if isinstance(args, list) else "shell\t" + v["command"])
            return
        for x in v.values():
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(json.load(open(sys.argv[1], encoding="utf-8")))
EOF
	}
elif command -v node >/dev/null 2>&1; then
	json_valid() { node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$1" >/dev/null 2>&1; }
	json_get() {
		node -e '
let v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
for (const k of process.argv[2].split(".")) v = v[k];
console.log(typeof v === "object" ? Object.keys(v).length : v);' "$1" "$2"
	}
	json_hooks() {
		node -e '
const walk = (v) => {
  if (Array.isArray(v)) v.forEach(walk);
  else if (v && typeof v === "object") {
    if (typeof v.command === "string")
      console.log(Array.isArray(v.args) ? ["exec", v.command, ...v.args].join("\t") : `shell\t${v.command}`);
    else Object.values(v).forEach(walk);
  }
};
walk(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")));' "$1"
	}
else
	json_valid() { return 2; }
fi
have_json() { declare -F json_get >/dev/null; }

# --- the binary --------------------------------------------------------------
check "bin/roz is an executable file" test -f "$roz" -a -x "$roz"
out="$("$roz" --version 2>&1)"
if [[ $out == "roz $version" ]]; then ok "roz --version prints 'roz $version'"; else bad "roz --version printed '$out', expected 'roz $version'"; fi
out="$("$roz" --help 2>&1)"
rc=$?
if [[ $rc -eq 0 && $out == *"usage: roz"* ]]; then ok "roz --help"; else bad "roz --help (exit $rc): $out"; fi

# --- the man page ------------------------------------------------------------
manpage="$share/man/man1/roz.1"
check "man page at share/man/man1/roz.1" test -f "$manpage"
th="$(sed -n 's/^\.TH .*"roz \([^"]*\)".*/\1/p' "$manpage" 2>/dev/null)"
if [[ $th == "$version" ]]; then ok "man page is for roz $version"; else bad "man page .TH names roz '$th', expected '$version'"; fi
if command -v man >/dev/null 2>&1; then
	out="$(MANWIDTH=80 man -l "$manpage" 2>"$scratch/man.err" | cat)"
	if [[ $out == *NAME* && $out == *SYNOPSIS* && $out == *"roz decide"* && ! -s $scratch/man.err ]]; then
		ok "man -l renders the man page"
	else
		bad "man -l did not render the man page cleanly: $(cat "$scratch/man.err")"
	fi
else
	note "man is not installed; not rendering the man page"
fi
if command -v groff >/dev/null 2>&1; then
	out="$(groff -man -Tutf8 -ww -z "$manpage" 2>&1)"
	if [[ -z $out ]]; then ok "groff -ww finds nothing to warn about"; else bad "groff warns: $out"; fi
fi

# --- the plugin --------------------------------------------------------------
for f in .claude-plugin/plugin.json .claude-plugin/marketplace.json hooks/hooks.json; do
	if [[ ! -f $plugin/$f ]]; then
		bad "plugin file share/roz/plugin/$f is missing"
		continue
	fi
	json_valid "$plugin/$f"
	case $? in
	0) ok "share/roz/plugin/$f is valid JSON" ;;
	2) note "neither python3 nor node found; not parsing share/roz/plugin/$f" ;;
	*) bad "share/roz/plugin/$f is not valid JSON" ;;
	esac
done
check "plugin agent share/roz/plugin/agents/roz.md" test -f "$plugin/agents/roz.md" -a -s "$plugin/agents/roz.md"
tpl="$plugin/templates/block-default.md"
if [[ -L $plugin/templates || -L $tpl ]]; then
	bad "share/roz/plugin/templates is installed as a symlink"
elif [[ -f $tpl ]] && cmp -s "$tpl" "$src/templates/block-default.md"; then
	ok "share/roz/plugin/templates/block-default.md is a real copy of the template"
else
	bad "share/roz/plugin/templates/block-default.md is missing or differs from templates/"
fi
dangling="$(find "$prefix" -xtype l 2>/dev/null)"
if [[ -z $dangling ]]; then ok "no dangling symlinks under the prefix"; else bad "dangling symlinks: $dangling"; fi

if have_json; then
	v="$(json_get "$plugin/.claude-plugin/plugin.json" version 2>/dev/null)"
	if [[ $v == "$version" ]]; then ok "plugin.json version is $version"; else bad "plugin.json version is '$v', expected '$version'"; fi
	m="$plugin/.claude-plugin/marketplace.json"
	n="$(json_get "$m" plugins 2>/dev/null)"
	name="$(json_get "$m" plugins.0.name 2>/dev/null)"
	source="$(json_get "$m" plugins.0.source 2>/dev/null)"
	v="$(json_get "$m" plugins.0.version 2>/dev/null)"
	owner="$(json_get "$m" owner.name 2>/dev/null)"
	if [[ $n == 1 && $name == roz && $source == ./ && -n $owner ]]; then
		ok "marketplace.json lists the one plugin roz at ./"
	else
		bad "marketplace.json: $n plugin(s), first '$name' at '$source', owner '$owner'"
	fi
	if [[ $v == "$version" ]]; then ok "marketplace.json version is $version"; else bad "marketplace.json version is '$v', expected '$version'"; fi

	# Every hook, started as Claude Code starts one in exec form (its command
	# found on PATH, the installed roz first, no shell between), must exit 0
	# and answer with a JSON object.
	hooks="$(json_hooks "$plugin/hooks/hooks.json" 2>/dev/null)"
	if [[ -z $hooks ]]; then
		bad "hooks/hooks.json names no hook commands"
	fi
	while IFS=$'\t' read -r -a argv; do
		[[ ${#argv[@]} -gt 0 ]] || continue
		if [[ ${argv[0]} != exec ]]; then
			bad "hook command '${argv[*]:1}' is in shell form: Claude Code would start /bin/sh for it"
			continue
		fi
		out="$(cd "$scratch" && printf '{}' | clean_env "${argv[@]:1}" 2>/dev/null)"
		rc=$?
		if [[ $rc -eq 0 && $out == "{"* ]] && printf '%s' "$out" >"$scratch/answer.json" &&
			json_valid "$scratch/answer.json"; then
			ok "hook '${argv[*]:1}' answers with JSON"
		else
			bad "hook '${argv[*]:1}' (exit $rc) answered '$out'"
		fi
	done <<<"$hooks"
else
	note "neither python3 nor node found; not reading the plugin manifests"
fi

# roz doctor, given no --plugin-dir, must find the plugin installed beside
# the binary and pass every check on a fresh private home.
if "$roz" doctor --help >/dev/null 2>&1; then
	[[ -d $scratch/home/sessions ]] || mkdir -m 700 "$scratch/home/sessions"
	out="$(cd "$scratch" && clean_env "$roz" doctor 2>&1)"
	rc=$?
	if [[ $rc -eq 0 && $out == *share/roz/plugin* ]]; then
		ok "roz doctor passes and finds the installed plugin"
	else
		bad "roz doctor (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/     /'
	fi
else
	note "this roz has no doctor command; not running it"
fi

# --- shell completions -------------------------------------------------------
bashcomp="$share/bash-completion/completions/roz"
zshcomp="$share/zsh/site-functions/_roz"
check "bash completion at share/bash-completion/completions/roz" test -f "$bashcomp"
check "zsh completion at share/zsh/site-functions/_roz" test -f "$zshcomp"
out="$(bash -c '
	source "$1" || exit 1
	COMP_WORDS=(roz hook sub); COMP_CWORD=2
	_roz roz sub hook
	printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' bash "$bashcomp" 2>&1)"
if [[ $out == "subagent-start subagent-stop " ]]; then
	ok "bash completion completes hook events"
else
	bad "bash completion for 'roz hook sub' gave '$out'"
fi
if command -v zsh >/dev/null 2>&1; then
	if zsh -n "$zshcomp" 2>"$scratch/zsh.err" && head -n 1 "$zshcomp" | grep -qx '#compdef roz'; then
		ok "zsh completion parses and declares #compdef roz"
	else
		bad "zsh completion: $(cat "$scratch/zsh.err")"
	fi
else
	note "zsh is not installed; not parsing the zsh completion"
fi

echo "install: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
