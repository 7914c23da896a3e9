#!/usr/bin/env node
// Reads a scenario module and writes what the shell runner needs into DIR:
//   prompt.txt    the prompt passed to `claude -p`
//   args.nul      extra CLI arguments, NUL-separated
//   env.nul       extra KEY=VALUE environment entries, NUL-separated
//   timeout       seconds allowed for the Claude Code run
//   plugin.txt    "" (use the runner's default), "none" (no --plugin-dir) or
//                 an absolute plugin directory (scenario key `plugin`: false,
//                 or a path relative to the scenario file)
// usage: scenario-config.js SCENARIO.js DIR
'use strict';
const fs = require('fs');
const path = require('path');

const [file, dir] = process.argv.slice(2);
if (!file || !dir) {
  process.stderr.write('usage: scenario-config.js SCENARIO.js DIR\n');
  process.exit(2);
}
const s = require(path.resolve(file));
if (!s || typeof s.reply !== 'function') throw new Error(`${file}: exports no reply(ctx) function`);
if (typeof s.prompt !== 'string' || s.prompt === '') throw new Error(`${file}: exports no prompt string`);
const permissionArgs = Array.isArray(s.permissionArgs) ? s.permissionArgs : ['--dangerously-skip-permissions'];
const args = [...permissionArgs, ...(Array.isArray(s.args) ? s.args : [])].map(String);
const env = Object.entries(s.env || {}).map(([k, v]) => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new Error(`${file}: bad env name ${k}`);
  return `${k}=${v}`;
});
for (const a of [...args, ...env]) if (a.includes('\0')) throw new Error(`${file}: NUL in argument`);
const timeout = Number.isFinite(s.timeout) && s.timeout > 0 ? Math.ceil(s.timeout) : 60;
fs.writeFileSync(path.join(dir, 'prompt.txt'), s.prompt);
fs.writeFileSync(path.join(dir, 'args.nul'), args.map((a) => a + '\0').join(''));
fs.writeFileSync(path.join(dir, 'env.nul'), env.map((a) => a + '\0').join(''));
fs.writeFileSync(path.join(dir, 'timeout'), `${timeout}\n`);
let plugin = '';
if (s.plugin === false || s.plugin === null) plugin = 'none';
else if (typeof s.plugin === 'string') plugin = path.resolve(path.dirname(path.resolve(file)), s.plugin);
fs.writeFileSync(path.join(dir, 'plugin.txt'), plugin);
