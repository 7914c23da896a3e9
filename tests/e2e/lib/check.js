#!/usr/bin/env node
// After a run: load the artefacts and call the scenario's optional check(run).
// run = { dir, stream, model, hooks, read(name) } where stream/model/hooks are
// arrays of parsed JSON lines (stream.jsonl, model.jsonl, hooks.jsonl).
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

function loadRun(dir) {
  return {
    dir,
    stream: readJsonl(path.join(dir, 'stream.jsonl')),
    model: readJsonl(path.join(dir, 'model.jsonl')),
    hooks: readJsonl(path.join(dir, 'hooks.jsonl')),
    read: (name) => fs.readFileSync(path.join(dir, name), 'utf8'),
  };
}

module.exports = { readJsonl, loadRun };

if (require.main === module) {
  const [file, dir] = process.argv.slice(2);
  const s = require(path.resolve(file));
  if (typeof s.check !== 'function') process.exit(0);
  Promise.resolve().then(() => s.check(loadRun(dir))).then((r) => {
    if (typeof r === 'string' && r) { process.stderr.write(`check: ${r}\n`); process.exit(1); }
    process.stderr.write('check: ok\n');
  }, (err) => { process.stderr.write(`check: ${err && err.message ? err.message : err}\n`); process.exit(1); });
}
