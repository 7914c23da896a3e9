#!/usr/bin/env bash
# tests/schema/run.sh ROZ SCHEMA_DIR - check-records.py under a python3 that
# has the jsonschema module: the one on PATH, else Debian's.
set -euo pipefail
for py in python3 /usr/bin/python3; do
	if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import jsonschema' 2>/dev/null; then
		exec "$py" "$(dirname "$0")/check-records.py" "$@"
	fi
done
echo "tests/schema: no python3 with the jsonschema module; install python3-jsonschema (scripts/dev test does)" >&2
exit 1
