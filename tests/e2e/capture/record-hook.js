#!/usr/bin/env node
// Hook command of the throwaway capture plugin (see make-plugin.sh).
// usage (from hooks.json): node record-hook.js LABEL
// Appends {label, event, time, input} as one JSON line to $ROZ_E2E_HOOK_LOG
// (default $ROZ_E2E_RESULTS/hooks.jsonl) and answers on stdout.
//
// Behaviour switches (environment, set per scenario):
//   CAPTURE_STOP_BLOCKS=N          block the first N Stop events of the run
//   CAPTURE_SUBAGENT_STOP_BLOCKS=N block the first N SubagentStop events
//   CAPTURE_DENY_JSON=TEXT         PreToolUse whose tool_input contains TEXT is
//                                  denied with permissionDecision "deny"
//   CAPTURE_DENY_EXIT2=TEXT        PreToolUse whose tool_input contains TEXT is
//                                  denied by exit status 2 + stderr
//   CAPTURE_DELAY=Event:ms[,...]   sleep that long before answering (to see
//                                  whether Claude Code waits for the hook)
// Counters: $ROZ_E2E_RESULTS/hook-count-<Event> holds how many times that
// event fired so far (hook-count-Agent-<status> per Agent PostToolUse status).
// Only the first hook registered for an event (label == event name) acts;
// the extra matcher probes only record.
'use strict';
const fs = require('fs');
const path = require('path');

const label = process.argv[2] || 'unknown';
const results = process.env.ROZ_E2E_RESULTS || path.join(__dirname, '..');
const logFile = process.env.ROZ_E2E_HOOK_LOG || path.join(results, 'hooks.jsonl');

let raw = '';
try { raw = fs.readFileSync(0, 'utf8'); } catch (e) { raw = ''; }
let input;
try { input = JSON.parse(raw); } catch (e) { input = { unparsable_stdin: raw }; }
const event = input.hook_event_name || label;

// Count events of one kind across the run. Hooks run as separate processes,
// some at the same time (two subagents stopping together), so the
// read-increment-write happens under a mkdir lock; the value is written to a
// temporary file and renamed, so a reader never sees it half written.
function bump(name) {
  const f = path.join(results, `hook-count-${name}`);
  const lock = `${f}.lock`;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 200; i++) {
    try { fs.mkdirSync(lock); break; } catch (e) { Atomics.wait(sleeper, 0, 0, 10); }
  }
  let n = 0;
  try { n = Number(fs.readFileSync(f, 'utf8')) || 0; } catch (e) { n = 0; }
  n += 1;
  fs.writeFileSync(`${f}.tmp`, String(n));
  fs.renameSync(`${f}.tmp`, f);
  try { fs.rmdirSync(lock); } catch (e) { /* taken over after a timeout */ }
  return n;
}

let out = {};
let exitCode = 0;
let stderr = '';
const acts = label === event;
// Every event is counted once (by the hook that acts), so a scenario's
// subagent can wait in Bash for "the main agent has stopped twice"; an Agent
// call that came back at once is also counted by its status
// (hook-count-Agent-async_launched), so a waiting subagent can tell that it
// runs in the background and will not deadlock its own foreground caller.
const count = acts ? bump(event) : 0;
if (acts && event === 'PostToolUse' && input.tool_name === 'Agent' && input.tool_response && input.tool_response.status) {
  bump(`Agent-${String(input.tool_response.status).replace(/[^A-Za-z0-9_-]/g, '_')}`);
}
if (acts && event === 'Stop') {
  const n = count;
  if (n <= Number(process.env.CAPTURE_STOP_BLOCKS || 0)) {
    out = { decision: 'block', reason: `test stop block ${n}` };
  }
} else if (acts && event === 'SubagentStop') {
  const n = count;
  if (n <= Number(process.env.CAPTURE_SUBAGENT_STOP_BLOCKS || 0)) {
    out = { decision: 'block', reason: `test subagent stop block ${n}` };
  }
} else if (acts && event === 'PreToolUse') {
  const ti = JSON.stringify(input.tool_input || {});
  const dj = process.env.CAPTURE_DENY_JSON;
  const de = process.env.CAPTURE_DENY_EXIT2;
  if (dj && ti.includes(dj)) {
    out = {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'roz-capture: denied by JSON permissionDecision',
      },
    };
  } else if (de && ti.includes(de)) {
    exitCode = 2;
    stderr = 'roz-capture: denied by exit status 2';
  }
}

// What the hook process itself gets besides stdin: cwd, PATH and every
// CLAUDE* variable.
const env = { PATH: process.env.PATH };
for (const k of Object.keys(process.env).filter((n) => /^CLAUDE/.test(n)).sort()) env[k] = process.env[k];
const record = { label, event, time: new Date().toISOString(), pid: process.pid, ppid: process.ppid, cwd: process.cwd(), env, input };
if (exitCode || Object.keys(out).length) record.answer = exitCode ? { exit: exitCode, stderr } : out;
fs.appendFileSync(logFile, JSON.stringify(record) + '\n');

for (const item of (process.env.CAPTURE_DELAY || '').split(',')) {
  const [name, ms] = item.split(':');
  if (acts && name === event && Number(ms) > 0) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(ms));
    fs.appendFileSync(logFile, JSON.stringify({ label, event, time: new Date().toISOString(), delayed_ms: Number(ms) }) + '\n');
  }
}

if (stderr) process.stderr.write(stderr + '\n');
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(exitCode);
