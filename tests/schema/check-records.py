#!/usr/bin/env python3
"""Every kind of record roz writes, checked against the Agent Trace schema.

Usage: check-records.py ROZ SCHEMA_DIR

Drives the roz binary through the hooks Claude Code would run in a governed
git repository (a session with a model, an intent selected, then a Write
that creates a file, a Write over it, an Edit that rewrites a line (a
"mixed" range), a MultiEdit, a Bash line with a visible target, a script
whose changes only detection sees, one that removes a file and renames
another), then a person's `roz ledger accept`, and validates every line of
.orchestration/agent_trace.jsonl against:

  agent-trace-2754f07.json  the specification's schema at its current head;
                            every record must validate, formats included;
  agent-trace-a7a009c.json  the schema as first published (v0.1.0), which
                            wanted `version` as major.minor: the only error
                            allowed there is that pattern.

Then the specification's own example records (examples/: its section 6.2
example and its appendix A minimal record, as the README at 206a6b0 gives
them) are validated and read back by `roz ledger verify` as another tool's
ledger: every record is read, and their ranges, which carry no SHA-256, are
unverifiable, not failures.

Needs the jsonschema module (Debian: python3-jsonschema). Exit 0 when all
records validate, 1 with the errors otherwise.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import uuid

import jsonschema

SESSION = "9f3c2a1e-5b7d-4e8f-a1b2-c3d4e5f6a7b8"
INTENTS = """active_intents:
  - id: INT-001
    name: Auth
    status: IN_PROGRESS
    owned_scope: ["src/**"]
"""


def run(roz, env, args, payload=None, cwd=None):
    p = subprocess.run([roz] + args, input=json.dumps(payload) if payload is not None else None,
                       capture_output=True, text=True, env=env, timeout=60, cwd=cwd)
    if p.returncode != 0:
        sys.exit(f"roz {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout


def read_back_examples(roz, env, schemas, v_head, tmp):
    """The specification's own example records (examples/), as another tool's ledger: they validate,
    roz reads every one, and verify reports their ranges as unverifiable (no SHA-256), passing."""
    errors = []
    repo = os.path.join(tmp, "examples")
    os.makedirs(os.path.join(repo, ".orchestration"))
    subprocess.run(["git", "init", "-q", repo], check=True)
    names = sorted(os.listdir(os.path.join(schemas, "examples")))
    with open(os.path.join(repo, ".orchestration", "agent_trace.jsonl"), "w") as out:
        for name in names:
            with open(os.path.join(schemas, "examples", name)) as f:
                rec = json.load(f)
            for e in v_head.iter_errors(rec):
                errors.append(f"example {name}: current schema: {e.message}")
            out.write(json.dumps(rec, separators=(",", ":")) + "\n")
    p = subprocess.run([roz, "ledger", "verify", "--json", "--all"], capture_output=True, text=True, env=env,
                       timeout=60, cwd=repo)
    if p.returncode != 0:
        return errors + [f"verify of the specification's examples exited {p.returncode}: {p.stderr}"]
    doc = json.loads(p.stdout)
    summary = doc["summary"]
    if summary["records"] != len(names) or summary["bad_lines"] != 0:
        errors.append(f"the specification's examples read back as {summary!r}")
    states = sorted((i["path"], i["state"]) for i in doc["items"])
    want = [("src/app.ts", "unverifiable"), ("src/utils/helpers.ts", "unverifiable"),
            ("src/utils/parser.ts", "unverifiable")]
    if states != want:
        errors.append(f"the specification's examples verify as {states!r}, expected {want!r}")
    return errors


def main():
    roz, schemas = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="roz-schema-")
    try:
        home, repo = os.path.join(tmp, "home"), os.path.join(tmp, "repo")
        os.makedirs(home)
        os.makedirs(os.path.join(repo, "src"))
        os.makedirs(os.path.join(repo, ".orchestration"))
        with open(os.path.join(home, "config.toml"), "w") as f:
            f.write("[review]\nrequire_reviewer = false\n")
        with open(os.path.join(repo, ".orchestration", "active_intents.yaml"), "w") as f:
            f.write(INTENTS)
        for name, text in (("a.ts", "one\ntwo\nthree\n"), ("c.ts", "c1\nc2\nc3\n"), ("m.ts", "m1\nm2\n"),
                           ("old.ts", "o\n"), ("was.ts", "w1\nw2\n")):
            with open(os.path.join(repo, "src", name), "w") as f:
                f.write(text)
        git = ["git", "-C", repo, "-c", "user.email=t@e", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "init"], check=True)
        env = dict(os.environ, ROZ_HOME=home, HOME=home, USER="tester")
        transcript = os.path.join(home, ".claude", "projects", "p q", SESSION + ".jsonl")
        base = {"session_id": SESSION, "cwd": repo, "transcript_path": transcript}

        def hook(event, **fields):
            return run(roz, env, ["hook", event], dict(base, **fields))

        def tool(name, tool_input, effect=None, response=None):
            hook("pre-tool-use", tool_name=name, tool_input=tool_input)
            if effect:
                subprocess.run(effect, shell=True, cwd=repo, check=True)
            extra = {"tool_response": response} if response is not None else {}
            return hook("post-tool-use", tool_name=name, tool_input=tool_input, duration_ms=20, **extra)

        def path(rel):
            return os.path.join(repo, rel)

        hook("session-start", source="startup", model="claude-opus-4-8[1m]")
        tool("Bash", {"command": "roz intent select INT-001"})
        tool("Write", {"file_path": path("src/new.ts"), "content": "n1\nn2\n"},
             "printf 'n1\\nn2\\n' > src/new.ts", {"type": "create", "filePath": path("src/new.ts")})
        tool("Write", {"file_path": path("src/new.ts"), "content": "n1\nN2\n"},
             "printf 'n1\\nN2\\n' > src/new.ts", {"type": "update", "filePath": path("src/new.ts")})
        tool("Edit", {"file_path": path("src/a.ts"), "old_string": "two", "new_string": "TWO"},
             "sed -i 's/^two$/TWO/' src/a.ts",
             {"filePath": path("src/a.ts"), "structuredPatch": [
                 {"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3,
                  "lines": [" one", "-two", "+TWO", " three"]}]})
        tool("MultiEdit", {"file_path": path("src/m.ts"), "edits": [{"old_string": "m1", "new_string": "M1"},
                                                                  {"old_string": "m2", "new_string": "M2"}]},
             "sed -i 's/^m/M/' src/m.ts")
        tool("Bash", {"command": "echo b > src/b.ts"}, "echo b > src/b.ts")
        tool("Bash", {"command": "python3 gen.py"}, "sed -i 's/^c2$/C2/' src/c.ts && printf 'd\\n' > src/d.ts")
        tool("Bash", {"command": "python3 tidy.py"}, "rm src/old.ts && mv src/was.ts src/now.ts")
        run(roz, env, ["ledger", "accept", "src/a.ts", "--by", "Ada <ada@example.org>"], cwd=repo)

        with open(os.path.join(schemas, "agent-trace-2754f07.json")) as f:
            head = json.load(f)
        with open(os.path.join(schemas, "agent-trace-a7a009c.json")) as f:
            first = json.load(f)
        checker = jsonschema.FormatChecker()
        v_head = jsonschema.Draft202012Validator(head, format_checker=checker)
        v_first = jsonschema.Draft202012Validator(first, format_checker=checker)
        errors = []
        with open(path(".orchestration/agent_trace.jsonl")) as f:
            lines = [l for l in f.read().split("\n") if l]
        tools, mixed = [], 0
        for n, line in enumerate(lines, 1):
            rec = json.loads(line)
            meta = rec["metadata"]["roz"]
            tools.append(meta["tool_name"])
            for e in v_head.iter_errors(rec):
                errors.append(f"record {n}: current schema: {e.message} at {list(e.absolute_path)}")
            for e in v_first.iter_errors(rec):
                if list(e.absolute_path) != ["version"]:
                    errors.append(f"record {n}: first schema: {e.message} at {list(e.absolute_path)}")
            # the formats, checked here whatever optional modules jsonschema has
            uuid.UUID(rec["id"])
            if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", rec["timestamp"]):
                errors.append(f"record {n}: timestamp {rec['timestamp']!r} is not RFC 3339")
            for fl in rec["files"]:
                for c in fl["conversations"]:
                    urls = [c.get("url")] + [r["url"] for r in c.get("related", [])]
                    for u in filter(None, urls):
                        parts = urllib.parse.urlsplit(u)
                        if not parts.scheme or re.search(r"[\s<>\"{}|\\^`]", u):
                            errors.append(f"record {n}: {u!r} is not a URI")
            # what the records say, beside their shape: the conversation is the transcript, the model
            # is named without the session's context-size tag; a person's acceptance names neither
            accept = meta.get("action") == "accept"
            for fl in rec["files"]:
                c = fl["conversations"][0]
                url = None if accept else "file://" + urllib.parse.quote(transcript, safe="/")
                model = None if accept else "anthropic/claude-opus-4-8"
                if c.get("url") != url:
                    errors.append(f"record {n}: url {c.get('url')!r}, expected {url!r}")
                if c["contributor"].get("model_id") != model:
                    errors.append(f"record {n}: model_id {c['contributor'].get('model_id')!r}")
                if c["contributor"]["type"] != ("human" if accept else "ai"):
                    errors.append(f"record {n}: contributor {c['contributor']!r}")
                for r in c["ranges"]:
                    if "contributor" in r:
                        mixed += 1
                        if r["contributor"] != {"type": "mixed", "model_id": "anthropic/claude-opus-4-8"}:
                            errors.append(f"record {n}: range contributor {r['contributor']!r}")
            if meta["tool_name"] == "Bash" and "removed" in meta:
                if meta["removed"] != ["src/old.ts"] or meta.get("renamed") != [{"from": "src/was.ts",
                                                                                "to": "src/now.ts"}]:
                    errors.append(f"record {n}: removed {meta['removed']!r}, renamed {meta.get('renamed')!r}")
            if accept and (meta.get("accepted_by") != "Ada <ada@example.org>" or meta.get("session_id") is not None):
                errors.append(f"record {n}: acceptance {meta!r}")
        if not mixed:
            errors.append("no record holds the Edit's rewritten line as a mixed range")
        if not any("removed" in json.loads(l)["metadata"]["roz"] for l in lines):
            errors.append("no record holds the removal")
        want = ["Write", "Write", "Edit", "MultiEdit", "Bash", "Bash", "Bash", "roz ledger accept"]
        if tools != want:
            errors.append(f"the ledger holds records of {tools}, expected {want}")
        errors += read_back_examples(roz, env, schemas, v_head, tmp)
        if errors:
            print("\n".join(errors))
            return 1
        print(f"{len(lines)} records validate against the Agent Trace schema (2754f07, a7a009c); "
              "the specification's examples read back")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
