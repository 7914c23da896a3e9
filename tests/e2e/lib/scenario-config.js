#!/usr/bin/env node
// Reads a scenario module and writes what the shell runner needs into DIR:
//   prompt.txt    the (first) prompt passed to `claude -p`
//   prompts.nul   every prompt, NUL-separated: key `prompts` (an array; the
//                 second and later ones run as `claude -p --resume <session>`)
//                 or just `prompt`
//   roz-home/config.toml  key `rozConfig` (a string), roz's config for the run
//   record-roz    "1" to put the recording roz shim first on PATH: key
//                 `recordRoz` (boolean), by default true for scenarios named
//                 roz-* and false for the others (so the harness and capture
//                 scenarios see the caller's PATH unchanged)
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
const prompts = Array.isArray(s.prompts) ? s.prompts : [s.prompt];
if (!prompts.length || prompts.some((p) => typeof p !== 'string' || p === '')) {
  throw new Error(`${file}: exports no prompt string (or a prompts array with an empty entry)`);
}
if (s.prompt !== undefined && Array.isArray(s.prompts) && s.prompt !== s.prompts[0]) {
  throw new Error(`${file}: prompt and prompts[0] differ; give one of them`);
}
const permissionArgs = Array.isArray(s.permissionArgs) ? s.permissionArgs : ['--dangerously-skip-permissions'];
const args = [...permissionArgs, ...(Array.isArray(s.args) ? s.args : [])].map(String);
const env = Object.entries(s.env || {}).map(([k, v]) => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new Error(`${file}: bad env name ${k}`);
  return `${k}=${v}`;
});
for (const a of [...args, ...env, ...prompts]) if (a.includes('\0')) throw new Error(`${file}: NUL in argument`);
const timeout = Number.isFinite(s.timeout) && s.timeout > 0 ? Math.ceil(s.timeout) : 60;
fs.writeFileSync(path.join(dir, 'prompt.txt'), prompts[0]);
fs.writeFileSync(path.join(dir, 'prompts.nul'), prompts.map((p) => p + '\0').join(''));
if (s.rozConfig !== undefined) {
  if (typeof s.rozConfig !== 'string') throw new Error(`${file}: rozConfig must be a string (TOML)`);
  fs.mkdirSync(path.join(dir, 'roz-home'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'roz-home', 'config.toml'), s.rozConfig);
}
fs.writeFileSync(path.join(dir, 'args.nul'), args.map((a) => a + '\0').join(''));
fs.writeFileSync(path.join(dir, 'env.nul'), env.map((a) => a + '\0').join(''));
fs.writeFileSync(path.join(dir, 'timeout'), `${timeout}\n`);
const recordRoz = typeof s.recordRoz === 'boolean' ? s.recordRoz : path.basename(file).startsWith('roz-');
fs.writeFileSync(path.join(dir, 'record-roz'), recordRoz ? '1' : '0');
let plugin = '';
if (s.plugin === false || s.plugin === null) plugin = 'none';
else if (typeof s.plugin === 'string') plugin = path.resolve(path.dirname(path.resolve(file)), s.plugin);
fs.writeFileSync(path.join(dir, 'plugin.txt'), plugin);
