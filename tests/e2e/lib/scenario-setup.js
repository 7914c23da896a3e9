#!/usr/bin/env node
// Runs a scenario's optional setup(env) before Claude Code starts (called by
// netns-run.sh inside the namespace, cwd = the run's work tree, with the
// environment Claude Code will get). env = {
//   dir      the run's results directory
//   work     its work tree (a git repository with one commit, README.md)
//   rozHome  roz's home for the run (ROZ_HOME); config.toml goes here
//   sh(cmd)  runs a shell command in the work tree, returns its stdout,
//            throws (with its output) when it fails
// }. setup may be async. Throwing fails the run before Claude Code starts.
// usage: scenario-setup.js SCENARIO.js RESULTS
'use strict';
const path = require('path');
const { execSync } = require('child_process');

const [file, dir] = process.argv.slice(2);
const s = require(path.resolve(file));
if (typeof s.setup !== 'function') process.exit(0);
const work = path.join(dir, 'work');
const env = {
  dir,
  work,
  rozHome: path.join(dir, 'roz-home'),
  sh(cmd) {
    try {
      return execSync(cmd, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      throw new Error(`setup command failed: ${cmd}\n${e.stdout || ''}${e.stderr || ''}`);
    }
  },
};
Promise.resolve().then(() => s.setup(env)).then(() => process.exit(0), (err) => {
  process.stderr.write(`setup: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
