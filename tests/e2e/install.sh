#!/usr/bin/env bash
# Install the pinned Claude Code CLI into tests/e2e/node_modules.
# Exit codes: 0 installed (or already there), 77 skip (npm registry or npm
# unavailable), anything else is a real failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

want="$(node -e 'process.stdout.write(require("./package.json").dependencies["@anthropic-ai/claude-code"])' 2>/dev/null || true)"
bin="$here/node_modules/@anthropic-ai/claude-code-linux-x64/claude"

if [[ -z "$want" ]]; then
  echo "install.sh: node is missing or package.json unreadable; skipping e2e" >&2
  exit 77
fi
if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
  echo "install.sh: the harness expects linux-x64 (got $(uname -s)-$(uname -m)); skipping e2e" >&2
  exit 77
fi
if [[ -x "$bin" ]] && have="$("$bin" --version 2>/dev/null)" && [[ "$have" == "$want "* ]]; then
  echo "install.sh: Claude Code $want already installed"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install.sh: npm not found; cannot install Claude Code $want; skipping e2e" >&2
  exit 77
fi
# Probe the registry first so an offline machine gets a clear skip.
if ! npm view --fetch-retries=0 --fetch-timeout=30000 "@anthropic-ai/claude-code@$want" version >/dev/null 2>&1; then
  echo "install.sh: the npm registry cannot be reached (npm view failed); skipping e2e" >&2
  exit 77
fi
# --ignore-scripts: the package's postinstall only links the native binary,
# which the harness calls directly.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
if ! have="$("$bin" --version 2>/dev/null)" || [[ "$have" != "$want "* ]]; then
  echo "install.sh: installed CLI reports '${have:-nothing}', expected $want" >&2
  exit 1
fi
echo "install.sh: installed Claude Code $want"
