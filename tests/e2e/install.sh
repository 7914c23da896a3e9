#!/usr/bin/env bash
# Install the Claude Code releases of the version matrix, each into its own
# directory from its own lock file: versions/<version>/node_modules.
#
# usage: install.sh [VERSION...]      install these (default: every version
#                                     in versions/matrix); one never touches
#                                     another's directory
#        install.sh --lock VERSION    write versions/<VERSION>/package.json and
#                                     package-lock.json (needs the registry),
#                                     the first step of adding a version
#        install.sh --path VERSION    print the path of that version's binary
#
# Exit codes: 0 installed (or already there), 77 skip (npm registry or npm
# unavailable), anything else is a real failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

binary_of() { echo "$here/versions/$1/node_modules/@anthropic-ai/claude-code-linux-x64/claude"; }

matrix_versions() {
  sed -e 's/#.*//' "$here/versions/matrix" | awk 'NF { print $1 }'
}

lock() {
  local v=$1 dir="$here/versions/$1"
  [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "install.sh: not a version: $v" >&2; exit 2; }
  mkdir -p "$dir"
  cat > "$dir/package.json" <<JSON
{
  "name": "roz-e2e",
  "private": true,
  "description": "End-to-end harness for roz: pins the Claude Code CLI used by the tests",
  "license": "AGPL-3.0-or-later",
  "dependencies": {
    "@anthropic-ai/claude-code": "$v"
  }
}
JSON
  (cd "$dir" && npm install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "install.sh: wrote versions/$v/package-lock.json; add a line for $v to versions/matrix"
}

install_one() {
  local v=$1 dir="$here/versions/$1" bin have
  bin="$(binary_of "$v")"
  if [[ ! -f "$dir/package-lock.json" ]]; then
    echo "install.sh: no lock file for Claude Code $v (versions/$v/package-lock.json); make it with: install.sh --lock $v" >&2
    return 1
  fi
  if [[ -x "$bin" ]] && have="$("$bin" --version 2>/dev/null)" && [[ "$have" == "$v "* ]]; then
    echo "install.sh: Claude Code $v already installed"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "install.sh: npm not found; cannot install Claude Code $v; skipping e2e" >&2
    return 77
  fi
  # Probe the registry first so an offline machine gets a clear skip.
  if ! npm view --fetch-retries=0 --fetch-timeout=30000 "@anthropic-ai/claude-code@$v" version >/dev/null 2>&1; then
    echo "install.sh: the npm registry cannot be reached (npm view failed); skipping e2e" >&2
    return 77
  fi
  # --ignore-scripts: the package's postinstall only links the native binary,
  # which the harness calls directly. --engine-strict=false: newer releases
  # ask for a newer Node.js than the machine may have, but only for their
  # launcher script, which the harness does not use.
  (cd "$dir" && npm ci --ignore-scripts --engine-strict=false --no-audit --no-fund --loglevel=error)
  if ! have="$("$bin" --version 2>/dev/null)" || [[ "$have" != "$v "* ]]; then
    echo "install.sh: installed CLI reports '${have:-nothing}', expected $v" >&2
    return 1
  fi
  echo "install.sh: installed Claude Code $v"
}

if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
  echo "install.sh: the harness expects linux-x64 (got $(uname -s)-$(uname -m)); skipping e2e" >&2
  exit 77
fi
case "${1:-}" in
--lock) lock "${2:?usage: install.sh --lock VERSION}"; exit 0 ;;
--path) binary_of "${2:?usage: install.sh --path VERSION}"; exit 0 ;;
esac
if [[ $# -gt 0 ]]; then versions=("$@"); else mapfile -t versions < <(matrix_versions); fi
[[ ${#versions[@]} -gt 0 ]] || { echo "install.sh: versions/matrix lists no version" >&2; exit 1; }
for v in "${versions[@]}"; do
  rc=0
  install_one "$v" || rc=$?
  [[ $rc -eq 0 ]] || exit "$rc"
done
