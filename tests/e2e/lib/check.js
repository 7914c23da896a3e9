#!/usr/bin/env node
// After a run: load the artefacts and call the scenario's optional check(run).
// run = {
//   dir        the run's results directory
//   stream     Claude Code's stream-json events (stream.jsonl: every run of a
//              multi-prompt scenario, in order)
//   streams    the same, one array per `claude -p` run (stream.<n>.jsonl)
//   model      the fake model's request log (model.jsonl)
//   hooks      records of the capture plugin's hooks (hooks.jsonl)
//   rozHome    the run's ROZ_HOME (also set as process.env.ROZ_HOME here)
//   rozCalls   every call of `roz` (by hooks and the Bash tool) recorded by
//              lib/roz-shim.sh, oldest first: {id, args, hook (event name for
//              `roz hook <event>`, else null), input (parsed hook stdin),
//              stdout, stderr, rc, output (parsed hook stdout, undefined if
//              empty or not JSON), start, end (ms since the epoch, fractional),
//              real (the roz that ran), sessionEnv, fromHook, run (1, 2, ...:
//              which `claude -p` run of a multi-prompt scenario made it),
//              launch ('exec' or 'shell': whether a shell started it)}
//   sessionFiles()  [{id, file, text}] of $ROZ_HOME/sessions/*.json
//   read(name) a file of the results directory as text
// }
// check() throws (or returns a non-empty string) to fail the scenario.
'use strict';
const fs = require('fs');
const path = require('path');

function readJsonl(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l, i) => {
    try { return JSON.parse(l); } catch (e) { return { unparsable: l, line: i + 1 }; }
  });
}

function readOr(file, dflt) {
  try { return fs.readFileSync(file, 'utf8'); } catch (e) { return dflt; }
}

function loadRozCalls(dir) {
  const root = path.join(dir, 'roz-calls');
  if (!fs.existsSync(root)) return [];
  const calls = fs.readdirSync(root).map((id) => {
    const d = path.join(root, id);
    const args = readOr(path.join(d, 'args'), '').split('\0').slice(0, -1);
    const stdin = readOr(path.join(d, 'stdin'), null);
    const stdout = readOr(path.join(d, 'stdout'), '');
    const rcText = readOr(path.join(d, 'rc'), '');
    const hook = args[0] === 'hook' ? (args[1] || '') : null;
    let input;
    let output;
    if (stdin !== null) { try { input = JSON.parse(stdin); } catch (e) { input = undefined; } }
    if (hook !== null && stdout.trim()) { try { output = JSON.parse(stdout); } catch (e) { output = undefined; } }
    const ns = (f) => Number(readOr(path.join(d, f), '0')) / 1e6;
    return {
      id,
      args,
      hook,
      stdin,
      input,
      stdout,
      stderr: readOr(path.join(d, 'stderr'), ''),
      rc: rcText.trim() === '' ? null : Number(rcText),
      output,
      start: ns('start'),
      end: ns('end'),
      real: readOr(path.join(d, 'real'), ''),
      sessionEnv: readOr(path.join(d, 'session_env'), ''),
      fromHook: readOr(path.join(d, 'context'), '') === 'hook',
      run: Number(readOr(path.join(d, 'run'), '0')) || null,
      launch: launchOf(readOr(path.join(d, 'parent'), '')),
    };
  });
  return calls.sort((a, b) => a.start - b.start || a.id.localeCompare(b.id));
}

// How a recorded call was started, from its parent's command line (see
// lib/roz-shim.sh): 'shell' when a shell ran it (`/bin/sh -c ...`, Claude
// Code's shell form, or the Bash tool's shell), 'exec' when nothing stood
// between the caller and roz.
function launchOf(parent) {
  const argv0 = parent.split(' ')[0] || '';
  return /(^|\/)(sh|bash|dash|zsh|ash|ksh)$/.test(argv0) ? 'shell' : 'exec';
}

function loadRun(dir) {
  const streams = [];
  for (let n = 1; fs.existsSync(path.join(dir, `stream.${n}.jsonl`)); n++) {
    streams.push(readJsonl(path.join(dir, `stream.${n}.jsonl`)));
  }
  const rozHome = path.join(dir, 'roz-home');
  return {
    dir,
    stream: readJsonl(path.join(dir, 'stream.jsonl')),
    streams,
    model: readJsonl(path.join(dir, 'model.jsonl')),
    hooks: readJsonl(path.join(dir, 'hooks.jsonl')),
    rozHome,
    rozCalls: loadRozCalls(dir),
    sessionFiles() {
      const sd = path.join(rozHome, 'sessions');
      if (!fs.existsSync(sd)) return [];
      return fs.readdirSync(sd).filter((f) => f.endsWith('.json')).map((f) => ({
        id: f.slice(0, -5), file: path.join(sd, f), text: fs.readFileSync(path.join(sd, f), 'utf8'),
      }));
    },
    read: (name) => fs.readFileSync(path.join(dir, name), 'utf8'),
  };
}

module.exports = { readJsonl, loadRun, loadRozCalls };

if (require.main === module) {
  const [file, dir] = process.argv.slice(2);
  // the check sees the ROZ_HOME that Claude Code, its hooks and tools saw
  process.env.ROZ_HOME = path.join(path.resolve(dir), 'roz-home');
  const s = require(path.resolve(file));
  if (typeof s.check !== 'function') process.exit(0);
  Promise.resolve().then(() => s.check(loadRun(dir))).then((r) => {
    if (typeof r === 'string' && r) { process.stderr.write(`check: ${r}\n`); process.exit(1); }
    process.stderr.write('check: ok\n');
  }, (err) => { process.stderr.write(`check: ${err && err.message ? err.message : err}\n`); process.exit(1); });
}
