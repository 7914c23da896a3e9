#!/usr/bin/env node
// Drives one Claude Code process in stream-json input mode, the way an SDK
// client or an IDE does: the scenario's prompts are written to its stdin as
// user messages, one at a time, each once the process is idle (a `result`
// event came and no background task runs: the `background_tasks_changed`
// level signal is empty); after the last one goes idle, stdin is closed and
// the process is left to exit.
//
// usage: stream-driver.js RESULTS CLAUDE [ARG...]
// Reads RESULTS/prompts.nul. Writes, like the print mode does per process,
// RESULTS/stream.<n>.jsonl and claude.<n>.stderr, n being the prompt that was
// last written (1, 2, ...), and RESULTS/current-run (read by the roz shim).
// Exits with Claude Code's status (or 1 when it dies of a signal).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');

const [results, claude, ...args] = process.argv.slice(2);
if (!results || !claude) {
  process.stderr.write('usage: stream-driver.js RESULTS CLAUDE [ARG...]\n');
  process.exit(2);
}
const prompts = fs.readFileSync(path.join(results, 'prompts.nul'), 'utf8').split('\0').slice(0, -1);

const child = spawn(claude, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...args], {
  stdio: ['pipe', 'pipe', 'pipe'],
});

let n = 0; // prompts written so far
let out = null;
let err = null;
let idleTurn = false; // a result came since the last prompt was written
let tasks = []; // background tasks running, from the level signal
let closed = false;

function openRun(k) {
  if (out) out.end();
  if (err) err.end();
  out = fs.createWriteStream(path.join(results, `stream.${k}.jsonl`));
  err = fs.createWriteStream(path.join(results, `claude.${k}.stderr`));
  fs.writeFileSync(path.join(results, 'current-run'), `${k}\n`);
}

function send() {
  const text = prompts[n++];
  openRun(n);
  idleTurn = false;
  const msg = { type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } };
  child.stdin.write(`${JSON.stringify(msg)}\n`);
}

function maybeNext() {
  if (closed || !idleTurn || tasks.length) return;
  if (n < prompts.length) {
    send();
  } else {
    closed = true;
    child.stdin.end();
  }
}

let pending = '';
child.stdout.on('data', (chunk) => {
  out.write(chunk);
  pending += chunk.toString('utf8');
  let i;
  while ((i = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, i);
    pending = pending.slice(i + 1);
    let e;
    try { e = JSON.parse(line); } catch (_) { continue; }
    if (e.type === 'result') idleTurn = true;
    // a turn starts (a notification turn announces itself with init too)
    if (e.type === 'system' && (e.subtype === 'init' || e.subtype === 'task_notification')) idleTurn = false;
    if (e.type === 'system' && e.subtype === 'background_tasks_changed' && Array.isArray(e.tasks)) tasks = e.tasks;
  }
  // decide a beat later, so events that come right after a result (a
  // finishing task, the turn it starts) are seen first
  setTimeout(maybeNext, 200);
});
child.stderr.on('data', (chunk) => err.write(chunk));
child.stdin.on('error', () => {}); // the process may exit before reading everything

child.on('exit', (code, signal) => {
  const finish = () => process.exit(code === null ? 1 : code);
  if (out) out.end();
  if (err) err.end(finish);
  else finish();
  if (signal) process.stderr.write(`stream-driver: Claude Code died of ${signal}\n`);
});
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => child.kill(s));

send();
