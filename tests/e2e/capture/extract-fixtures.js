#!/usr/bin/env node
// Turn the artefacts of the capture scenarios into fixtures.
// usage: extract-fixtures.js CAPTURE_RESULTS_DIR FIXTURES_DIR
//   CAPTURE_RESULTS_DIR holds one directory per capture-* scenario (each with
//   hooks.jsonl, model.jsonl, stream.jsonl, run.info).
// Writes FIXTURES_DIR/<Event>[-variant].json (pretty JSON, first occurrence of
// each variant, throwaway paths replaced by /tmp/roz-e2e/...) and rewrites the
// generated block of FIXTURES_DIR/README.md (between the BEGIN/END GENERATED
// markers) with field tables, matcher probes, orderings and the texts the
// model was shown, all taken from the captured logs.
'use strict';
const fs = require('fs');
const path = require('path');
const { readJsonl } = require('../lib/check.js');

const [capDir, fixDir] = process.argv.slice(2);
if (!capDir || !fixDir) {
  process.stderr.write('usage: extract-fixtures.js CAPTURE_RESULTS_DIR FIXTURES_DIR\n');
  process.exit(2);
}

// Scenario order decides which capture of a variant becomes the fixture.
const SCENARIOS = ['capture-basic', 'capture-tools', 'capture-subagent', 'capture-background',
  'capture-background-block', 'capture-stop-block', 'capture-stop-loop', 'capture-deny',
  'capture-subagent-block', 'capture-permission'];

const runs = {};
for (const name of SCENARIOS) {
  const dir = path.join(capDir, name);
  if (!fs.existsSync(path.join(dir, 'hooks.jsonl'))) {
    process.stderr.write(`extract-fixtures: missing ${name} (hooks.jsonl not found); run capture-hooks.sh\n`);
    process.exit(1);
  }
  const info = fs.readFileSync(path.join(dir, 'run.info'), 'utf8');
  const pluginDir = (info.match(/^plugin_dir=(.*)$/m) || [])[1];
  const callerPath = (info.match(/^caller_path=(.*)$/m) || [])[1];
  runs[name] = {
    dir: fs.realpathSync(dir),
    pluginDir,
    callerPath,
    hooks: readJsonl(path.join(dir, 'hooks.jsonl')),
    model: readJsonl(path.join(dir, 'model.jsonl')),
    stream: readJsonl(path.join(dir, 'stream.jsonl')),
  };
}

// --- path sanitising --------------------------------------------------------
function sanitizer(dir, pluginDir, callerPath) {
  const slug = (p) => p.replace(/[^A-Za-z0-9]/g, '-');
  const pairs = [
    ...(callerPath ? [[callerPath, '$CALLER_PATH']] : []),
    ...(pluginDir ? [[pluginDir, '/tmp/roz-e2e/plugin'], [slug(pluginDir), '-tmp-roz-e2e-plugin']] : []),
    [slug(path.join(dir, 'work')), '-tmp-roz-e2e-work'],
    [path.join(dir, 'tmp'), '/tmp/roz-e2e/tmp'],
    [path.join(dir, 'home'), '/tmp/roz-e2e/home'],
    [path.join(dir, 'work'), '/tmp/roz-e2e/work'],
    [dir, '/tmp/roz-e2e'],
    [path.resolve(__dirname, '..'), '$E2E_DIR'],
  ];
  const fix = (s) => pairs.reduce((acc, [from, to]) => acc.split(from).join(to), s);
  const walk = (v) => {
    if (typeof v === 'string') return fix(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk;
}

// --- variants ---------------------------------------------------------------
function variantOf(input) {
  const ev = input.hook_event_name;
  const parts = [];
  if (input.tool_name) parts.push(input.tool_name);
  if (ev === 'PostToolBatch') {
    const calls = input.tool_calls || [];
    parts.push(calls.length > 1 ? 'parallel' : (calls[0] && calls[0].tool_name) || 'empty');
  }
  if (input.agent_id && !/^Subagent/.test(ev)) parts.push('in-subagent');
  const ti = input.tool_input || {};
  if (ti.run_in_background) parts.push('background');
  if (ev === 'PostToolBatch' && (input.tool_calls || []).some((c) => c.tool_input && c.tool_input.run_in_background)) parts.push('background');
  if (ev === 'Stop' || ev === 'SubagentStop') {
    if ((input.background_tasks || []).length) parts.push('background-running');
    if (input.stop_hook_active) parts.push('stop_hook_active');
  }
  if (ev === 'UserPromptSubmit' && /^<task-notification>/.test(input.prompt || '')) parts.push('task-notification');
  if (ev === 'SessionStart' && input.source && input.source !== 'startup') parts.push(input.source);
  if (ev === 'SubagentStart') {
    // background or not cannot be told from the input itself
  }
  return parts.join('-');
}

const fixtures = new Map(); // file name -> {scenario, input}
const allInputs = new Map(); // event -> [{scenario, input}]
for (const name of SCENARIOS) {
  const clean = sanitizer(runs[name].dir, runs[name].pluginDir, runs[name].callerPath);
  for (const rec of runs[name].hooks) {
    if (!rec.input || rec.label !== rec.event) continue; // matcher probes only record
    const input = clean(rec.input);
    const ev = input.hook_event_name || rec.event;
    if (!allInputs.has(ev)) allInputs.set(ev, []);
    allInputs.get(ev).push({ scenario: name, input });
    const v = variantOf(input);
    const file = `${ev}${v ? '-' + v : ''}.json`;
    if (!fixtures.has(file)) fixtures.set(file, { scenario: name, input });
  }
}

fs.mkdirSync(fixDir, { recursive: true });
for (const f of fs.readdirSync(fixDir)) {
  if (f.endsWith('.json')) fs.unlinkSync(path.join(fixDir, f));
}
for (const [file, { input }] of fixtures) {
  fs.writeFileSync(path.join(fixDir, file), JSON.stringify(input, null, 2) + '\n');
}

// --- schema tables ----------------------------------------------------------
function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
function shape(v, depth = 0) {
  const t = typeOf(v);
  if (t === 'array') {
    if (!v.length) return '[]';
    const inner = [...new Set(v.map((x) => shape(x, depth + 1)))];
    return `[${inner.join(' | ')}]`;
  }
  if (t === 'object') {
    if (depth > 2) return 'object';
    return `{${Object.entries(v).map(([k, x]) => `${k}: ${shape(x, depth + 1)}`).join(', ')}}`;
  }
  return t;
}
function example(v) {
  let s = JSON.stringify(v);
  if (s.length > 90) s = s.slice(0, 87) + '...';
  return s.replace(/\|/g, '\\|');
}
const md = [];
const code = (s) => '`' + s + '`';
function fence(s) {
  const body = String(s);
  return ['```text', body.replace(/```/g, '`\u200b``'), '```'].join('\n');
}

const EVENT_ORDER = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure',
  'PostToolBatch', 'SubagentStart', 'SubagentStop', 'Stop', 'MessageDisplay', 'SessionEnd'];
const events = [...allInputs.keys()].sort((a, b) => {
  const ia = EVENT_ORDER.indexOf(a); const ib = EVENT_ORDER.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
});

md.push('## Fields per event (generated)');
md.push('');
md.push(`Captured with Claude Code ${readVersion()} from ${SCENARIOS.length} scenarios. "seen" counts the inputs of that event that carry the field.`);
md.push('');
for (const ev of events) {
  const list = allInputs.get(ev);
  const fields = new Map();
  for (const { input } of list) {
    for (const [k, v] of Object.entries(input)) {
      if (!fields.has(k)) fields.set(k, { n: 0, types: new Set(), ex: v, shapes: new Set() });
      const f = fields.get(k);
      f.n += 1;
      f.types.add(typeOf(v));
      if (typeOf(v) === 'object' || typeOf(v) === 'array') f.shapes.add(shape(v));
      if ((typeOf(f.ex) === 'array' && !f.ex.length) || f.ex === null || f.ex === '') f.ex = v;
    }
  }
  const files = [...fixtures.entries()].filter(([, x]) => (x.input.hook_event_name) === ev).map(([f]) => code(f));
  md.push(`### ${ev}`);
  md.push('');
  md.push(`${list.length} inputs captured. Fixtures: ${files.join(', ')}`);
  md.push('');
  md.push('| field | type | seen | example |');
  md.push('| --- | --- | --- | --- |');
  for (const [k, f] of fields) {
    md.push(`| ${code(k)} | ${[...f.types].join(' \\| ')} | ${f.n}/${list.length} | ${code(example(f.ex))} |`);
  }
  const nested = [...fields].filter(([, f]) => f.shapes.size && !['tool_input', 'tool_response', 'tool_calls'].includes(''));
  const shapeLines = [];
  for (const [k, f] of nested) {
    if (k === 'tool_input' || k === 'tool_response') continue;
    for (const s of f.shapes) if (s !== '[]') shapeLines.push(`- ${code(k)}: ${code(s)}`);
  }
  // tool_input / tool_response shapes per tool
  const perTool = new Map();
  for (const { input } of list) {
    if (!input.tool_name) continue;
    for (const k of ['tool_input', 'tool_response']) {
      if (!(k in input)) continue;
      const key = `${k} (${input.tool_name}${input.tool_input && input.tool_input.run_in_background ? ', background' : ''})`;
      if (!perTool.has(key)) perTool.set(key, new Set());
      perTool.get(key).add(shape(input[k]));
    }
  }
  for (const [k, set] of perTool) for (const s of set) shapeLines.push(`- ${k}: ${code(s)}`);
  if (shapeLines.length) {
    md.push('');
    md.push('Shapes:');
    md.push('');
    md.push(...[...new Set(shapeLines)]);
  }
  md.push('');
}

// --- matcher probes ---------------------------------------------------------
md.push('## Matcher probes (generated)');
md.push('');
md.push('Extra hooks registered with a matcher; which inputs they received across all capture runs:');
md.push('');
const probeLabels = ['PreToolUse[Task]', 'PreToolUse[Agent]', 'PostToolUse[Agent]', 'SubagentStart[^roz:roz$]',
  'SubagentStop[^roz:roz$]', 'SubagentStop[roz]', 'SubagentStop[^roz$]'];
for (const label of probeLabels) {
  const hits = [];
  for (const name of SCENARIOS) {
    for (const rec of runs[name].hooks) {
      if (rec.label !== label) continue;
      const i = rec.input;
      hits.push(i.tool_name ? `tool_name=${i.tool_name}` : `agent_type=${i.agent_type}`);
    }
  }
  const counted = {};
  for (const h of hits) counted[h] = (counted[h] || 0) + 1;
  const desc = hits.length ? Object.entries(counted).map(([h, n]) => `${h} (${n}x)`).join(', ') : 'never fired';
  md.push(`- ${code(label.replace(/^(\w+)\[(.*)\]$/, '$1 matcher "$2"'))}: ${desc}`);
}
md.push('');

// --- ordering ---------------------------------------------------------------
function timeline(name) {
  const out = [];
  const models = runs[name].model.filter((e) => e.request && e.kind !== 'count_tokens' && e.kind !== 'other')
    .map((e) => ({ time: e.time, text: `    model request: ${e.kind} turn ${e.turn}` }));
  for (const rec of runs[name].hooks) {
    while (models.length && models[0].time <= rec.time) out.push(models.shift().text);
    if (rec.label !== rec.event) continue;
    const i = rec.input;
    let s = rec.event;
    if (i.tool_name) s += `(${i.tool_name})`;
    if (i.agent_id) s += ' [in subagent]';
    if (rec.event === 'Stop' || rec.event === 'SubagentStop') {
      s += ` stop_hook_active=${i.stop_hook_active} background_tasks=${(i.background_tasks || []).length}`;
    }
    if (rec.event === 'UserPromptSubmit') s += /^<task-notification>/.test(i.prompt) ? ' (task-notification)' : ' (prompt)';
    if (rec.answer) s += `  -> hook answered ${JSON.stringify(rec.answer)}`;
    if (rec.event === 'MessageDisplay') continue;
    out.push(s);
  }
  out.push(...models.map((m) => m.text));
  let n = 0;
  return out.map((s) => (s.startsWith('    model') ? s : `${String(++n).padStart(2)}. ${s}`)).join('\n');
}
md.push('## Hook order (generated; MessageDisplay omitted)');
md.push('');
md.push('Hook runs in the order their records were appended (each record is written when the hook process has read its input), ' +
  'interleaved with the fake model\'s requests by time. Hooks of one event run in parallel; events close together in time ' +
  '(e.g. SubagentStart and the Agent PostToolUse of a background agent) can appear in either order from run to run.');
md.push('');
for (const name of ['capture-subagent', 'capture-background', 'capture-background-block']) {
  md.push(`### ${name}`);
  md.push('');
  md.push(fence(timeline(name)));
  md.push('');
}

// --- what the model saw -----------------------------------------------------
function modelRequests(name) {
  return runs[name].model.filter((e) => e.request && Array.isArray(e.request.messages));
}
function lastMsg(e) {
  const ms = e.request.messages;
  for (let i = ms.length - 1; i >= 0; i--) if (ms[i].role === 'user') return ms[i];
  return null;
}
function findUserBlock(name, pred, kind) {
  const clean = sanitizer(runs[name].dir, runs[name].pluginDir, runs[name].callerPath);
  for (const e of modelRequests(name)) {
    if (kind && e.kind !== kind) continue;
    const m = lastMsg(e);
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) if (pred(b)) return { entry: e, block: clean(b) };
  }
  return null;
}
const strip = (b) => { const c = { ...b }; delete c.cache_control; return c; };
md.push('## What the model is shown (generated, copied from the request log)');
md.push('');
const stopFb = findUserBlock('capture-stop-block', (b) => b.type === 'text' && b.text.includes('Stop hook feedback'));
md.push(`Stop hook answering ${code('{"decision":"block","reason":"test stop block 1"}')} -> next request of the main conversation ends with this user content block:`);
md.push('');
md.push('```json\n' + JSON.stringify(stopFb && strip(stopFb.block), null, 2) + '\n```');
md.push('');
const subFb = findUserBlock('capture-subagent-block', (b) => b.type === 'text' && b.text.includes('Stop hook feedback'));
md.push(`SubagentStop hook answering ${code('{"decision":"block","reason":"test subagent stop block 1"}')} -> the subagent's next request (kind ${code(subFb ? subFb.entry.kind : '?')}) ends with:`);
md.push('');
md.push('```json\n' + JSON.stringify(subFb && strip(subFb.block), null, 2) + '\n```');
md.push('');
const denyJson = findUserBlock('capture-deny', (b) => b.type === 'tool_result' && b.is_error && String(JSON.stringify(b.content)).includes('JSON'));
md.push(`PreToolUse answering ${code('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"roz-capture: denied by JSON permissionDecision"}}')}:`);
md.push('');
md.push('```json\n' + JSON.stringify(denyJson && strip(denyJson.block), null, 2) + '\n```');
md.push('');
const denyExit = findUserBlock('capture-deny', (b) => b.type === 'tool_result' && b.is_error && String(JSON.stringify(b.content)).includes('exit status 2'));
md.push(`PreToolUse exiting with status 2 and stderr ${code('roz-capture: denied by exit status 2')}:`);
md.push('');
md.push('```json\n' + JSON.stringify(denyExit && strip(denyExit.block), null, 2) + '\n```');
md.push('');
const note = findUserBlock('capture-background', (b) => b.type === 'text' && b.text.startsWith('<task-notification>'), 'main');
md.push('Background subagent completion (a new user turn of the main conversation; it also fires UserPromptSubmit with this text as `prompt`):');
md.push('');
md.push(fence(note ? note.block.text : '(not captured)'));
md.push('');
const launched = findUserBlock('capture-background', (b) => b.type === 'tool_result', 'main');
md.push('Agent tool result for `run_in_background: true` (returned at once):');
md.push('');
md.push(fence(launched ? JSON.stringify(launched.block.content, null, 2) : '(not captured)'));
md.push('');
const fg = findUserBlock('capture-subagent', (b) => b.type === 'tool_result', 'main');
md.push('Agent tool result for a foreground subagent:');
md.push('');
md.push(fence(fg ? JSON.stringify(fg.block.content, null, 2) : '(not captured)'));
md.push('');

// --- identifiers ------------------------------------------------------------
{
  const hooks = runs['capture-subagent'].hooks.filter((r) => r.label === r.event).map((r) => r.input);
  const main = hooks.find((i) => i.hook_event_name === 'UserPromptSubmit');
  const start = hooks.find((i) => i.hook_event_name === 'SubagentStart');
  const stop = hooks.find((i) => i.hook_event_name === 'SubagentStop');
  const pre = hooks.find((i) => i.hook_event_name === 'PreToolUse' && i.tool_name === 'Agent');
  const post = hooks.find((i) => i.hook_event_name === 'PostToolUse' && i.tool_name === 'Agent');
  const inner = hooks.filter((i) => i.agent_id && /ToolUse/.test(i.hook_event_name));
  const yes = (b) => (b ? 'yes' : 'NO');
  md.push('## Identifiers across one foreground subagent run (generated, capture-subagent)');
  md.push('');
  md.push(`- subagent hooks carry the main ${code('session_id')}: ${yes([start, stop, ...inner].every((i) => i.session_id === main.session_id))}`);
  md.push(`- subagent hooks carry the main ${code('transcript_path')} (the subagent's own is ${code('agent_transcript_path')} on SubagentStop): ${yes([start, stop, ...inner].every((i) => i.transcript_path === main.transcript_path))}`);
  md.push(`- subagent hooks carry the ${code('prompt_id')} of the main prompt: ${yes([start, stop, ...inner].every((i) => i.prompt_id === main.prompt_id))}`);
  md.push(`- SubagentStart/SubagentStop/tool hooks inside share one ${code('agent_id')}: ${yes([stop, ...inner].every((i) => i.agent_id === start.agent_id))}`);
  md.push(`- that ${code('agent_id')} equals ${code('tool_response.agentId')} of the Agent PostToolUse: ${yes(post.tool_response.agentId === start.agent_id)}`);
  md.push(`- PreToolUse and PostToolUse of the Agent call share ${code('tool_use_id')}: ${yes(pre.tool_use_id === post.tool_use_id)}`);
  md.push(`- ${code('agent_id')} looks like: ${code(start.agent_id)}; ${code('tool_use_id')} is the model's tool_use id (${code(pre.tool_use_id)})`);
  md.push('');
}

// --- environment ------------------------------------------------------------
{
  md.push('## Environment of hooks and of the Bash tool (generated)');
  md.push('');
  md.push('Claude Code was started with a clean environment (see lib/netns-run.sh). Variables whose name starts with CLAUDE, per event, in the hook process (values with throwaway paths replaced):');
  md.push('');
  const perEvent = new Map();
  let sample = null;
  for (const name of SCENARIOS) {
    const clean = sanitizer(runs[name].dir, runs[name].pluginDir, runs[name].callerPath);
    for (const rec of runs[name].hooks) {
      if (rec.label !== rec.event || !rec.env) continue;
      const names = Object.keys(rec.env).filter((k) => k !== 'PATH').sort().join(', ');
      const key = `${rec.event}${rec.input.agent_id ? ' (in subagent)' : ''}`;
      if (!perEvent.has(key)) perEvent.set(key, new Set());
      perEvent.get(key).add(names);
      if (!sample && name === 'capture-subagent' && rec.event === 'SessionStart') sample = clean(rec);
    }
  }
  const sets = [...perEvent.values()].flatMap((set) => [...set].map((x) => x.split(', ')));
  const common = sets.length ? sets.reduce((a, b) => a.filter((x) => b.includes(x))) : [];
  md.push(`- every hook: ${common.map(code).join(', ')}`);
  for (const [k, set] of perEvent) {
    const extra = [...new Set([...set].flatMap((x) => x.split(', ')).filter((x) => !common.includes(x)))];
    if (extra.length) md.push(`- also in ${k}: ${extra.map(code).join(', ')}`);
  }
  md.push('');
  if (sample) {
    md.push('Values in the SessionStart hook of capture-subagent:');
    md.push('');
    md.push('```json\n' + JSON.stringify({ cwd: sample.cwd, ...sample.env }, null, 2) + '\n```');
    md.push('');
  }
  const sameSession = [];
  const pathNote = [];
  for (const name of SCENARIOS) {
    for (const rec of runs[name].hooks) {
      if (rec.label !== rec.event || !rec.env || !rec.env.CLAUDE_CODE_SESSION_ID) continue;
      sameSession.push(rec.env.CLAUDE_CODE_SESSION_ID === rec.input.session_id);
    }
  }
  md.push(`- ${code('CLAUDE_CODE_SESSION_ID')} in the hook environment equals the input's ${code('session_id')}: ${sameSession.length && sameSession.every(Boolean) ? 'yes, in all ' + sameSession.length + ' hook runs' : 'NO'}`);
  const pathSame = SCENARIOS.every((name) => runs[name].hooks.every((r) => !r.env || r.env.PATH === runs[name].callerPath));
  md.push(`- every hook got the caller's ${code('PATH')} unchanged (shown as ${code('$CALLER_PATH')} below): ${pathSame ? 'yes' : 'NO'}`);
  md.push('');
  for (const name of ['capture-tools', 'capture-subagent']) {
    const clean = sanitizer(runs[name].dir, runs[name].pluginDir, runs[name].callerPath);
    const rec = runs[name].hooks.find((r) => r.label === 'PostToolUse' && r.input.tool_name === 'Bash' && /CLAUDE/.test(r.input.tool_response.stdout || ''));
    if (!rec) continue;
    const where = rec.input.agent_id ? 'inside the roz:roz subagent' : 'in the main agent';
    const hookEnv = clean(rec.env);
    md.push(`Bash tool environment ${where} (${code("env | grep -E '^(CLAUDE|PATH=)'")}, ${name}); the session id there is the hook input's ${code('session_id')}: ${rec.input.tool_response.stdout.includes('CLAUDE_CODE_SESSION_ID=' + rec.input.session_id) ? 'yes' : 'NO'}:`);
    md.push('');
    md.push(fence(clean(rec.input.tool_response.stdout)));
    md.push('');
    md.push(`PATH of the PostToolUse hook for that same call: ${code(hookEnv.PATH)}`);
    md.push('');
  }
}

// --- stop loop --------------------------------------------------------------
const loop = runs['capture-stop-loop'];
const loopStops = loop.hooks.filter((r) => r.label === 'Stop').length;
const loopFed = modelRequests('capture-stop-loop').filter((e) => {
  const m = lastMsg(e);
  return Array.isArray(m.content) && m.content.some((b) => b.type === 'text' && b.text.startsWith('Stop hook feedback'));
}).length;
const loopResult = loop.stream.find((e) => e.type === 'result');
md.push('## Stop blocks in a row (generated)');
md.push('');
md.push(`With a Stop hook that blocks every time: ${loopStops} Stop hook runs, ${loopFed} of the blocks were fed back to the model; ` +
  `the run then ended with result ${code(JSON.stringify(loopResult && { subtype: loopResult.subtype, is_error: loopResult.is_error, result: loopResult.result, num_turns: loopResult.num_turns }))}.`);
md.push('');

function readVersion() {
  try {
    const lock = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package-lock.json'), 'utf8'));
    return lock.packages['node_modules/@anthropic-ai/claude-code'].version;
  } catch (e) {
    return '(unknown version)';
  }
}

// --- write README block -----------------------------------------------------
const readme = path.join(fixDir, 'README.md');
const BEGIN = '<!-- BEGIN GENERATED by capture/extract-fixtures.js; do not edit by hand -->';
const END = '<!-- END GENERATED -->';
let text = fs.existsSync(readme) ? fs.readFileSync(readme, 'utf8') : `# Hook inputs\n\n${BEGIN}\n${END}\n`;
if (!text.includes(BEGIN) || !text.includes(END)) text += `\n${BEGIN}\n${END}\n`;
const before = text.slice(0, text.indexOf(BEGIN) + BEGIN.length);
const after = text.slice(text.indexOf(END));
fs.writeFileSync(readme, `${before}\n\n${md.join('\n')}\n${after}`);
process.stderr.write(`extract-fixtures: wrote ${fixtures.size} fixtures and the README block to ${fixDir}\n`);
