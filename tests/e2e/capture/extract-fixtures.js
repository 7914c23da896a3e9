#!/usr/bin/env node
// Turn the artefacts of the capture scenarios of one Claude Code release in
// one mode into fixtures.
// usage: extract-fixtures.js CAPTURE_RESULTS_DIR FIXTURES_DIR VERSION MODE SCENARIO...
//   CAPTURE_RESULTS_DIR holds one directory per scenario (hooks.jsonl,
//   model.jsonl, stream.jsonl, run.info); SCENARIO... in the order that
//   decides which capture of a variant becomes its fixture (the first).
// Writes FIXTURES_DIR/<Event>[-variant].json (pretty JSON, throwaway paths
// replaced by /tmp/roz-e2e/...) and the generated block of
// FIXTURES_DIR/README.md (between the BEGIN/END GENERATED markers; the text
// around it is kept, a missing README is started with a short header): field
// tables, the Agent calls and where they ran, hook orders with timings, what
// the model was shown, identifiers, environment, how sessions end, all taken
// from the captured logs.
'use strict';
const fs = require('fs');
const path = require('path');
const { readJsonl } = require('../lib/check.js');

const [capDir, fixDir, version, mode, ...SCENARIOS] = process.argv.slice(2);
if (!capDir || !fixDir || !version || !mode || !SCENARIOS.length) {
  process.stderr.write('usage: extract-fixtures.js CAPTURE_RESULTS_DIR FIXTURES_DIR VERSION MODE SCENARIO...\n');
  process.exit(2);
}
const MODE_TEXT = {
  print: '`claude -p PROMPT`',
  'stream-json': '`claude -p --input-format stream-json`, the prompt written to its stdin, stdin closed once nothing runs (lib/stream-driver.js)',
  interactive: 'the terminal CLI in tmux, the prompt typed, `/exit` typed when the screen is idle (lib/tmux-driver.sh)',
};

const runs = {};
for (const name of SCENARIOS) {
  const dir = path.join(capDir, name);
  if (!fs.existsSync(path.join(dir, 'model.jsonl'))) {
    process.stderr.write(`extract-fixtures: missing ${name} (no model.jsonl in ${dir}); run capture-hooks.sh\n`);
    process.exit(1);
  }
  const info = fs.readFileSync(path.join(dir, 'run.info'), 'utf8');
  const field = (k) => (info.match(new RegExp(`^${k}=(.*)$`, 'm')) || [])[1];
  runs[name] = {
    name,
    dir: fs.realpathSync(dir),
    pluginDir: field('plugin_dir'),
    callerPath: field('caller_path'),
    hooks: readJsonl(path.join(dir, 'hooks.jsonl')),
    model: readJsonl(path.join(dir, 'model.jsonl')),
    stream: readJsonl(path.join(dir, 'stream.jsonl')),
  };
}
const has = (name) => Boolean(runs[name]);

// --- path sanitising --------------------------------------------------------
function sanitizer(run) {
  const { dir, pluginDir, callerPath } = run;
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
  // 2.1.331 hands hooks and the Bash tool a per-run secret for its local
  // messaging socket; nothing in a fixture needs its value.
  const token = /(TOKEN=)[0-9a-f]{16,}/g;
  const fix = (s) => pairs.reduce((acc, [from, to]) => acc.split(from).join(to), s).replace(token, '$1<token>');
  const walk = (v, key = '') => {
    if (typeof v === 'string') return /TOKEN/.test(key) ? '<token>' : fix(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return (v) => walk(v);
}

// --- what one run did with its Agent calls ---------------------------------
// The hook inputs alone do not say whether an agent runs in the background;
// the Agent PostToolUse of the same tool_use_id does (status
// "async_launched" vs "completed"), and so does the tool result the model
// got.
function agentFacts(run) {
  const status = new Map(); // tool_use_id -> PostToolUse tool_response.status
  const async = new Set(); // agent ids of background agents
  const agents = new Set(); // every agent id seen
  for (const rec of run.hooks) {
    const i = rec.input;
    if (!i || rec.label !== rec.event) continue;
    if (i.agent_id) agents.add(i.agent_id);
    if (i.hook_event_name === 'PostToolUse' && i.tool_name === 'Agent' && i.tool_response) {
      status.set(i.tool_use_id, i.tool_response.status);
      if (i.tool_response.agentId) agents.add(i.tool_response.agentId);
      if (i.tool_response.status === 'async_launched') async.add(i.tool_response.agentId);
    }
  }
  return { status, async, agents };
}

const TYPE_DEFAULT = 'roz:roz';
function agentPart(toolInput, outcome) {
  const ti = toolInput || {};
  const parts = [];
  if (ti.subagent_type && ti.subagent_type !== TYPE_DEFAULT) parts.push(`type-${ti.subagent_type.replace(/^.*:/, '')}`);
  const bg = outcome === 'async_launched' ? true : outcome ? false : undefined;
  if (ti.run_in_background === true) parts.push(bg === false ? 'background-ran-foreground' : 'background');
  else if (ti.run_in_background === false) parts.push(bg === true ? 'foreground-requested-ran-background' : 'foreground-requested');
  else if (bg === true) parts.push('background-default');
  return parts;
}

function toolParts(tool, toolInput, toolUseId, facts) {
  if (tool === 'Agent') return ['Agent', ...agentPart(toolInput, facts.status.get(toolUseId))];
  return [tool, ...(toolInput && toolInput.run_in_background ? ['background'] : [])];
}

// --- variants ---------------------------------------------------------------
// state: per session, whether a task notification came since its last Stop
// and which background agents run.
function variantOf(input, facts, state) {
  const ev = input.hook_event_name;
  const sid = input.session_id;
  if (!state.has(sid)) state.set(sid, { notified: false, running: new Set() });
  const s = state.get(sid);
  const parts = [];
  if (input.tool_name) parts.push(...toolParts(input.tool_name, input.tool_input, input.tool_use_id, facts));
  if (ev === 'PostToolBatch') {
    const calls = input.tool_calls || [];
    if (calls.length === 1) parts.push(...toolParts(calls[0].tool_name, calls[0].tool_input, calls[0].tool_use_id, facts));
    else if (!calls.length) parts.push('empty');
    else {
      parts.push('parallel');
      const each = calls.map((c) => toolParts(c.tool_name, c.tool_input, c.tool_use_id, facts))
        .map((p) => (p.length === 1 && p[0] === 'Bash' ? '' : p.join('-'))).filter(Boolean);
      parts.push(...new Set(each));
    }
  }
  if (input.agent_id && !/^Subagent/.test(ev)) parts.push(facts.async.has(input.agent_id) ? 'in-background-subagent' : 'in-subagent');
  const tasks = input.background_tasks || [];
  if (ev === 'SubagentStart' || ev === 'SubagentStop') {
    if (facts.async.has(input.agent_id)) parts.push('background');
    if (ev === 'SubagentStart' && facts.async.has(input.agent_id)) s.running.add(input.agent_id);
    if (ev === 'SubagentStop') {
      if (tasks.some((t) => t.id !== input.agent_id)) parts.push('others-running');
      if (input.stop_hook_active) parts.push('stop_hook_active');
      s.running.delete(input.agent_id);
    }
  }
  if (ev === 'Stop') {
    if (tasks.length) parts.push('background-running');
    if (input.stop_hook_active) parts.push('stop_hook_active');
    if (s.notified) parts.push('after-notification');
    s.notified = false;
  }
  if (ev === 'UserPromptSubmit' && /<task-notification>/.test(input.prompt || '')) {
    const ids = [...(input.prompt || '').matchAll(/<task-id>([^<]*)<\/task-id>/g)].map((m) => m[1]);
    parts.push('task-notification');
    if (ids.length > 1) parts.push('multiple');
    if (ids.some((id) => !facts.agents.has(id))) parts.push('shell');
    // a task that did not complete (2.1.197 reports a reviewer killed by /exit)
    for (const st of new Set([...(input.prompt || '').matchAll(/<status>([^<]*)<\/status>/g)].map((m) => m[1]))) {
      if (st !== 'completed') parts.push(st.replace(/[^A-Za-z0-9_]/g, '_'));
    }
    s.notified = true;
  }
  if (ev === 'SessionStart' && input.source && input.source !== 'startup') parts.push(input.source);
  if (ev === 'SessionEnd') {
    if (input.reason && input.reason !== 'other') parts.push(input.reason);
    if (s.running.size) parts.push('background-running');
  }
  return parts.join('-');
}

const fixtures = new Map(); // file name -> {scenario, input}
const allInputs = new Map(); // event -> [{scenario, input}]
for (const name of SCENARIOS) {
  const run = runs[name];
  const clean = sanitizer(run);
  const facts = agentFacts(run);
  const state = new Map();
  run.facts = facts;
  for (const rec of run.hooks) {
    if (!rec.input || rec.label !== rec.event) continue; // matcher probes only record
    const input = clean(rec.input);
    const ev = input.hook_event_name || rec.event;
    if (!allInputs.has(ev)) allInputs.set(ev, []);
    allInputs.get(ev).push({ scenario: name, input });
    const v = variantOf(rec.input, facts, state);
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

// --- helpers for the README -------------------------------------------------
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
const code = (s) => '`' + String(s).replace(/`/g, "'") + '`';
function fence(s, lang = 'text') {
  return ['```' + lang, String(s).replace(/```/g, '`\u200b``'), '```'].join('\n');
}
const yes = (b) => (b ? 'yes' : 'no');
const acting = (run) => run.hooks.filter((r) => r.input && r.label === r.event);
const mainRequests = (run) => run.model.filter((e) => e.request && Array.isArray(e.request.messages) && e.kind === 'main');
const blocksOf = (m) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content || []);
const strip = (b) => { const c = { ...b }; delete c.cache_control; return c; };
// The messages a request ends with after the model last spoke (the user
// message and any "system" messages after it).
function tailOf(entry) {
  const ms = entry.request.messages;
  let i = ms.length;
  while (i > 0 && ms[i - 1].role !== 'assistant') i--;
  return ms.slice(i).map((m) => ({ role: m.role, content: blocksOf(m).map(strip) }));
}
function findTail(name, pred, kind = 'main') {
  if (!has(name)) return null;
  const clean = sanitizer(runs[name]);
  for (const e of runs[name].model) {
    if (!e.request || !Array.isArray(e.request.messages) || e.kind !== kind) continue;
    const tail = tailOf(e);
    if (pred(tail)) return clean(tail);
  }
  return null;
}
const tailText = (tail) => tail.flatMap((m) => m.content.map((b) => (b.type === 'text' ? b.text : ''))).join('\n');
const fixtureOf = (scenario, pred) => [...fixtures.entries()].filter(([, x]) => x.scenario === scenario && pred(x.input)).map(([f]) => f);

// --- header -------------------------------------------------------------------
md.push('## How these were captured (generated)');
md.push('');
md.push(`Claude Code ${version}, ${mode} mode: ${MODE_TEXT[mode] || mode}. ${SCENARIOS.length} scenarios ` +
  `(\`tests/e2e/scenarios/<name>.js\`): ${SCENARIOS.map(code).join(', ')}.`);
md.push('');
md.push('Fixture ← the scenario whose run it was first seen in:');
md.push('');
md.push('| fixture | scenario |');
md.push('| --- | --- |');
for (const [file, { scenario }] of [...fixtures.entries()].sort((a, b) => a[0].localeCompare(b[0]))) md.push(`| ${code(file)} | ${scenario} |`);
md.push('');

// --- schema tables ----------------------------------------------------------
const EVENT_ORDER = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure',
  'PostToolBatch', 'SubagentStart', 'SubagentStop', 'Stop', 'MessageDisplay', 'SessionEnd'];
const events = [...allInputs.keys()].sort((a, b) => {
  const ia = EVENT_ORDER.indexOf(a); const ib = EVENT_ORDER.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
});
md.push('## Fields per event (generated)');
md.push('');
md.push('"seen" counts the inputs of that event that carry the field.');
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
  const files = [...fixtures.entries()].filter(([, x]) => x.input.hook_event_name === ev).map(([f]) => code(f));
  md.push(`### ${ev}`);
  md.push('');
  md.push(`${list.length} inputs captured. Fixtures: ${files.join(', ')}`);
  md.push('');
  md.push('| field | type | seen | example |');
  md.push('| --- | --- | --- | --- |');
  for (const [k, f] of fields) {
    md.push(`| ${code(k)} | ${[...f.types].join(' \\| ')} | ${f.n}/${list.length} | ${code(example(f.ex))} |`);
  }
  const shapeLines = [];
  for (const [k, f] of fields) {
    if (k === 'tool_input' || k === 'tool_response') continue;
    for (const s of f.shapes) if (s !== '[]') shapeLines.push(`- ${code(k)}: ${code(s)}`);
  }
  const perTool = new Map();
  for (const { input } of list) {
    if (!input.tool_name) continue;
    for (const k of ['tool_input', 'tool_response']) {
      if (!(k in input)) continue;
      const key = `${k} (${input.tool_name})`;
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
for (const label of ['PreToolUse[Task]', 'PreToolUse[Agent]', 'PostToolUse[Agent]', 'SubagentStart[^roz:roz$]',
  'SubagentStop[^roz:roz$]', 'SubagentStop[roz]', 'SubagentStop[^roz$]']) {
  const counted = {};
  for (const name of SCENARIOS) {
    for (const rec of runs[name].hooks) {
      if (rec.label !== label) continue;
      const h = rec.input.tool_name ? `tool_name=${rec.input.tool_name}` : `agent_type=${rec.input.agent_type}`;
      counted[h] = (counted[h] || 0) + 1;
    }
  }
  const desc = Object.keys(counted).length ? Object.entries(counted).map(([h, n]) => `${h} (${n}x)`).join(', ') : 'never fired';
  md.push(`- ${code(label.replace(/^(\w+)\[(.*)\]$/, '$1 matcher "$2"'))}: ${desc}`);
}
md.push('');

// --- Agent calls ------------------------------------------------------------
md.push('## Agent calls: schema, request, where they ran (generated)');
md.push('');
md.push('Per Agent call: whether the Agent tool offered to the model had a `run_in_background` parameter, what the model ' +
  'sent, whether the key was still in the PreToolUse `tool_input`, where the agent ran (the Agent PostToolUse ' +
  '`tool_response.status`: `async_launched` = background, `completed` = foreground; for runs without hooks the tool ' +
  'result text), and SubagentStart relative to the Agent PostToolUse.');
md.push('');
md.push('| scenario | schema has run_in_background | model sent | in hook tool_input | ran | SubagentStart vs PostToolUse(Agent) |');
md.push('| --- | --- | --- | --- | --- | --- |');
for (const name of SCENARIOS) {
  const run = runs[name];
  const reqs = mainRequests(run);
  for (let r = 0; r < reqs.length; r++) {
    const calls = ((reqs[r].response && reqs[r].response.content) || []).filter((b) => b.type === 'tool_use' && b.name === 'Agent');
    if (!calls.length) continue;
    const tool = (reqs[r].request.tools || []).find((t) => t.name === 'Agent');
    const schemaHas = tool ? yes(tool.input_schema && tool.input_schema.properties && 'run_in_background' in tool.input_schema.properties) : 'no Agent tool';
    for (const call of calls) {
      const sent = 'run_in_background' in call.input ? String(call.input.run_in_background) : '(absent)';
      const pre = acting(run).find((x) => x.event === 'PreToolUse' && x.input.tool_use_id === call.id);
      const post = acting(run).find((x) => x.event === 'PostToolUse' && x.input.tool_use_id === call.id);
      const inHook = pre ? ('run_in_background' in (pre.input.tool_input || {}) ? String(pre.input.tool_input.run_in_background) : '(absent)') : '(no hook ran)';
      let ran;
      if (post) ran = post.input.tool_response.status === 'async_launched' ? 'background' : `foreground (${post.input.tool_response.status})`;
      else {
        const next = reqs.slice(r + 1).find((e) => e.request.messages.some((m) => blocksOf(m).some((b) => b.type === 'tool_result' && b.tool_use_id === call.id)));
        const res = next && next.request.messages.flatMap(blocksOf).find((b) => b.type === 'tool_result' && b.tool_use_id === call.id);
        const said = res ? (typeof res.content === 'string' ? res.content : JSON.stringify(res.content)) : '';
        if (!res) ran = '?';
        else if (res.is_error) ran = `not at all: ${code(said.replace(/<\/?tool_use_error>/g, '').slice(0, 80))}`;
        else ran = `${said.includes('Async agent launched') ? 'background' : 'foreground'} (tool result)`;
      }
      let order = '';
      if (post) {
        const agentId = post.input.tool_response.agentId;
        const start = acting(run).find((x) => x.event === 'SubagentStart' && x.input.agent_id === agentId);
        if (start) {
          const d = Date.parse(start.time) - Date.parse(post.time);
          order = d < 0 ? `before, by ${-d} ms` : `after, by ${d} ms`;
        }
      }
      md.push(`| ${name} | ${schemaHas} | ${sent} | ${inHook} | ${ran} | ${order} |`);
    }
  }
}
md.push('');

// --- ordering ---------------------------------------------------------------
function timeline(name) {
  const run = runs[name];
  const t0 = run.hooks.length ? Date.parse(run.hooks[0].time) : 0;
  const rel = (t) => `${String(Date.parse(t) - t0).padStart(6)} ms`;
  const out = [];
  const models = run.model.filter((e) => e.request && e.kind !== 'count_tokens' && e.kind !== 'other' && e.kind !== 'side')
    .map((e) => ({ time: e.time, text: `${rel(e.time)}      model request: ${e.kind} turn ${e.turn}` }));
  const firstSession = (run.hooks.find((r) => r.input && r.input.session_id) || { input: {} }).input.session_id;
  let n = 0;
  for (const rec of run.hooks) {
    while (models.length && models[0].time <= rec.time) out.push(models.shift().text);
    if (rec.delayed_ms) { out.push(`${rel(rec.time)}      (${rec.event} hook done after its ${rec.delayed_ms} ms delay)`); continue; }
    if (rec.label !== rec.event || !rec.input || rec.event === 'MessageDisplay') continue;
    const i = rec.input;
    let s = rec.event;
    if (i.tool_name) s += `(${i.tool_name}${i.tool_input && i.tool_input.run_in_background !== undefined ? `, run_in_background=${i.tool_input.run_in_background}` : ''})`;
    if (i.tool_name === 'Agent' && i.tool_response && i.tool_response.status) s += ` status=${i.tool_response.status}`;
    if (i.agent_id) s += ` [${run.facts.async.has(i.agent_id) ? 'background ' : ''}subagent ${i.agent_id.slice(0, 7)}]`;
    if (rec.event === 'Stop' || rec.event === 'SubagentStop') {
      const tasks = (i.background_tasks || []).map((t) => `${t.type}:${t.status}${t.id === i.agent_id ? ':self' : ''}`);
      s += ` stop_hook_active=${i.stop_hook_active} background_tasks=[${tasks.join(', ')}]`;
    }
    if (rec.event === 'UserPromptSubmit') s += /^<task-notification>/.test(i.prompt) ? ' (task-notification)' : ' (prompt)';
    if (rec.event === 'SessionStart' || rec.event === 'SessionEnd') s += ` ${i.source || i.reason || ''}`;
    if (i.session_id !== firstSession) s += ' {another session_id}';
    if (rec.answer) s += `  -> hook answered ${JSON.stringify(rec.answer)}`;
    out.push(`${rel(rec.time)} ${String(++n).padStart(2)}. ${s}`);
  }
  out.push(...models.map((m) => m.text));
  return out.join('\n');
}
md.push('## Hook order (generated; MessageDisplay and side requests omitted)');
md.push('');
md.push('Hook runs in the order their records were appended (each record is written when the hook process has read its ' +
  'input), interleaved with the fake model\'s requests by time; times are from the first hook. Hooks of one event run in ' +
  'parallel; events close together in time (e.g. SubagentStart and the Agent PostToolUse of a background agent) can ' +
  'appear in either order from run to run.');
md.push('');
for (const name of ['capture-subagent', 'capture-background', 'capture-background-block', 'capture-agent-default',
  'capture-agent-foreground', 'capture-slow-reviewer', 'capture-two-notifications', 'capture-notifications-mid-turn',
  'capture-bash-wakeup', 'capture-subagent-start-delay', 'capture-end-with-reviewer', 'capture-end-move-background']) {
  if (!has(name)) continue;
  md.push(`### ${name}`);
  md.push('');
  md.push(fence(timeline(name)));
  md.push('');
}

// --- what the model saw -----------------------------------------------------
md.push('## What the model is shown (generated, copied from the request log)');
md.push('');
md.push('Each block is the end of a request: the messages after the model\'s last reply (role and content blocks).');
md.push('');
function showTail(title, tail) {
  md.push(title);
  md.push('');
  md.push(tail ? fence(JSON.stringify(tail, null, 2), 'json') : '(not captured)');
  md.push('');
}
const stopRe = /Stop hook (feedback|blocking error)/;
showTail('Stop hook answering `{"decision":"block","reason":"test stop block 1"}` (capture-stop-block), the main agent\'s next request:',
  findTail('capture-stop-block', (t) => stopRe.test(tailText(t))));
showTail('The same block while a background reviewer runs (capture-slow-reviewer):',
  findTail('capture-slow-reviewer', (t) => stopRe.test(tailText(t))));
showTail('SubagentStop hook answering `{"decision":"block","reason":"test subagent stop block 1"}` (capture-subagent-block), the subagent\'s next request:',
  findTail('capture-subagent-block', (t) => stopRe.test(tailText(t)), 'subagent'));
showTail('PreToolUse denials, by JSON `permissionDecision` and by exit status 2 (capture-deny):',
  has('capture-deny') ? [...new Set([findTail('capture-deny', (t) => /denied by JSON/.test(JSON.stringify(t))),
    findTail('capture-deny', (t) => /exit status 2/.test(JSON.stringify(t)))].map((x) => JSON.stringify(x)))].map((x) => JSON.parse(x)) : null);
showTail('A background reviewer\'s completion while the main agent is idle (capture-background):',
  findTail('capture-background', (t) => tailText(t).includes('<task-notification>')));
showTail('Two completions pending at once while the main agent is idle (capture-two-notifications):',
  findTail('capture-two-notifications', (t) => (tailText(t).match(/<task-notification>/g) || []).length > 1) ||
  findTail('capture-two-notifications', (t) => tailText(t).includes('<task-notification>')));
showTail('Two completions arriving while the main agent is busy in a Bash command (capture-notifications-mid-turn):',
  findTail('capture-notifications-mid-turn', (t) => tailText(t).includes('<task-notification>')));
showTail('A background Bash command\'s completion (capture-bash-wakeup):',
  findTail('capture-bash-wakeup', (t) => tailText(t).includes('<task-notification>')));
showTail('Agent tool result for `run_in_background: true` (capture-background):',
  findTail('capture-background', (t) => t.some((m) => m.content.some((b) => b.type === 'tool_result'))));
showTail('Agent tool result for a call without `run_in_background` (capture-agent-default):',
  findTail('capture-agent-default', (t) => t.some((m) => m.content.some((b) => b.type === 'tool_result'))));
showTail('Agent tool result for `run_in_background: false` (capture-agent-foreground):',
  findTail('capture-agent-foreground', (t) => t.some((m) => m.content.some((b) => b.type === 'tool_result'))));
{
  const req = has('capture-agent-default') && mainRequests(runs['capture-agent-default'])[0];
  const tool = req && (req.request.tools || []).find((t) => t.name === 'Agent');
  if (tool) {
    md.push('The Agent tool as offered to the main agent (capture-agent-default): input schema, and the lines of its description that mention the background:');
    md.push('');
    md.push(fence(JSON.stringify(tool.input_schema, null, 2), 'json'));
    md.push('');
    md.push(fence(tool.description.split('\n').filter((l) => /background/i.test(l)).join('\n') || '(none)'));
    md.push('');
  }
}

// --- identifiers ------------------------------------------------------------
if (has('capture-subagent')) {
  const run = runs['capture-subagent'];
  const hooks = acting(run).map((r) => r.input);
  const main = hooks.find((i) => i.hook_event_name === 'UserPromptSubmit');
  const start = hooks.find((i) => i.hook_event_name === 'SubagentStart');
  const stop = hooks.find((i) => i.hook_event_name === 'SubagentStop');
  const pre = hooks.find((i) => i.hook_event_name === 'PreToolUse' && i.tool_name === 'Agent');
  const post = hooks.find((i) => i.hook_event_name === 'PostToolUse' && i.tool_name === 'Agent');
  const inner = hooks.filter((i) => i.agent_id && /ToolUse/.test(i.hook_event_name));
  if (main && start && stop && pre && post) {
    md.push(`## Identifiers across one subagent run (generated, capture-subagent; it ran in the ${run.facts.async.has(start.agent_id) ? 'background' : 'foreground'})`);
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
}

// --- environment ------------------------------------------------------------
{
  md.push('## Environment of hooks and of the Bash tool (generated)');
  md.push('');
  md.push('Claude Code was started with a clean environment (see lib/netns-run.sh). Variables whose name starts with CLAUDE, per event, in the hook process:');
  md.push('');
  const perEvent = new Map();
  let sample = null;
  for (const name of SCENARIOS) {
    const clean = sanitizer(runs[name]);
    for (const rec of runs[name].hooks) {
      if (rec.label !== rec.event || !rec.env || !rec.input) continue;
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
    const extra = [...new Set([...set].flatMap((x) => x.split(', ')).filter((x) => x && !common.includes(x)))];
    if (extra.length) md.push(`- also in ${k} (not always): ${extra.map(code).join(', ')}`);
  }
  md.push('');
  if (sample) {
    md.push('Values in the SessionStart hook of capture-subagent:');
    md.push('');
    md.push(fence(JSON.stringify({ cwd: sample.cwd, ...sample.env }, null, 2), 'json'));
    md.push('');
  }
  const same = [];
  for (const name of SCENARIOS) {
    for (const rec of runs[name].hooks) {
      if (rec.label !== rec.event || !rec.env || !rec.env.CLAUDE_CODE_SESSION_ID || !rec.input) continue;
      same.push(rec.env.CLAUDE_CODE_SESSION_ID === rec.input.session_id);
    }
  }
  md.push(`- ${code('CLAUDE_CODE_SESSION_ID')} in the hook environment equals the input's ${code('session_id')}: ${same.length && same.every(Boolean) ? `yes, in all ${same.length} hook runs` : `NO (${same.filter((x) => !x).length} of ${same.length} differ)`}`);
  const pathSame = SCENARIOS.every((name) => runs[name].hooks.every((r) => !r.env || r.env.PATH === runs[name].callerPath));
  md.push(`- every hook got the caller's ${code('PATH')} unchanged (shown as ${code('$CALLER_PATH')}): ${pathSame ? 'yes' : 'NO'}`);
  md.push('');
  for (const name of ['capture-tools', 'capture-subagent']) {
    if (!has(name)) continue;
    const clean = sanitizer(runs[name]);
    const rec = runs[name].hooks.find((r) => r.label === 'PostToolUse' && r.input.tool_name === 'Bash' && /CLAUDE/.test((r.input.tool_response || {}).stdout || ''));
    if (!rec) continue;
    const where = rec.input.agent_id ? 'inside the roz:roz subagent' : 'in the main agent';
    md.push(`Bash tool environment ${where} (${code("env | grep -E '^(CLAUDE|PATH=)'")}, ${name}); the session id there is the hook input's ${code('session_id')}: ${yes(rec.input.tool_response.stdout.includes('CLAUDE_CODE_SESSION_ID=' + rec.input.session_id))}:`);
    md.push('');
    md.push(fence(clean(rec.input.tool_response.stdout)));
    md.push('');
    md.push(`PATH of the PostToolUse hook for that same call: ${code(clean(rec.env).PATH)}`);
    md.push('');
  }
}

// --- stop loop --------------------------------------------------------------
if (has('capture-stop-loop')) {
  const loop = runs['capture-stop-loop'];
  const stops = loop.hooks.filter((r) => r.label === 'Stop').length;
  const fed = mainRequests(loop).filter((e) => stopRe.test(tailText(tailOf(e)))).length;
  const result = loop.stream.find((e) => e.type === 'result');
  md.push('## Stop blocks in a row (generated)');
  md.push('');
  md.push(`With a Stop hook that blocks every time: ${stops} Stop hook runs, ${fed} of the blocks were fed back to the model` +
    (result ? `; the run then ended with result ${code(JSON.stringify({ subtype: result.subtype, is_error: result.is_error, result: result.result, num_turns: result.num_turns }))}` : '') + '.');
  md.push('');
}

// --- session end ------------------------------------------------------------
{
  const names = ['capture-end-with-reviewer', 'capture-end-move-background'].filter(has);
  if (names.length) {
    md.push('## The session ends while a reviewer runs (generated)');
    md.push('');
    for (const name of names) {
      const recs = acting(runs[name]);
      const firstStop = recs.find((r) => r.event === 'Stop' && (r.input.background_tasks || []).length);
      if (!firstStop) {
        md.push(`- ${name}: no Stop saw a background task (the reviewer ran in the foreground); SessionEnd: ` +
          `${recs.filter((r) => r.event === 'SessionEnd').map((r) => code(r.input.reason)).join(', ') || 'none'}.`);
        continue;
      }
      const after = recs.slice(recs.indexOf(firstStop) + 1);
      const ends = recs.filter((r) => r.event === 'SessionEnd');
      const t = (r) => `${Date.parse(r.time) - Date.parse(firstStop.time)} ms after that Stop`;
      const sessions = [...new Set(recs.map((r) => r.input.session_id))];
      md.push(`- ${name}: after the main agent's first Stop with the reviewer running: ` +
        (after.filter((r) => r.event !== 'MessageDisplay').map((r) => r.event +
          (r.input.tool_name ? `(${r.input.tool_name})` : '') +
          (r.input.agent_id && !/^Subagent/.test(r.event) ? ' in the reviewer' : '') +
          (r.event === 'UserPromptSubmit' && /^<task-notification>/.test(r.input.prompt) ? ' (task-notification)' : '') +
          (r.event === 'SessionEnd' ? `(${r.input.reason})` : '') +
          (r.event === 'SessionStart' ? `(${r.input.source})` : '') +
          (r.input.session_id !== recs[0].input.session_id ? ' {another session_id}' : '')).join(' → ') || 'nothing') +
        `. SessionEnd: ${ends.map((r) => `${code(r.input.reason)} ${t(r)}`).join(', ') || 'none'}. ` +
        `SubagentStop fired: ${yes(recs.some((r) => r.event === 'SubagentStop'))}; notification turn: ${yes(recs.some((r) => r.event === 'UserPromptSubmit' && /^<task-notification>/.test(r.input.prompt)))}; ` +
        `session ids: ${sessions.length}.`);
    }
    md.push('');
  }
}

// --- write README block -----------------------------------------------------
const readme = path.join(fixDir, 'README.md');
const BEGIN = '<!-- BEGIN GENERATED by capture/extract-fixtures.js; do not edit by hand -->';
const END = '<!-- END GENERATED -->';
const header = `# Hook inputs of Claude Code ${version}, ${mode} mode (captured)\n\n` +
  `Real stdin JSON that Claude Code ${version} gave the hooks of a plugin named \`roz\` in ${mode} mode, captured by\n` +
  `\`tests/e2e/capture/capture-hooks.sh -V ${version} -m ${mode}\` through the fake model. One file per event and\n` +
  'variant, `<Event>[-variant].json`; the variant names and what differs between releases and modes are in\n' +
  '`tests/e2e/fixtures/hook-inputs/README.md`. Throwaway paths are replaced (`/tmp/roz-e2e` is the run\'s results\n' +
  'directory, `/tmp/roz-e2e/work` its work tree, `$CALLER_PATH` the PATH the harness ran with); ids are real values\n' +
  'of one run.\n\n';
let text = fs.existsSync(readme) ? fs.readFileSync(readme, 'utf8') : `${header}${BEGIN}\n${END}\n`;
if (!text.includes(BEGIN) || !text.includes(END)) text += `\n${BEGIN}\n${END}\n`;
const before = text.slice(0, text.indexOf(BEGIN) + BEGIN.length);
const after = text.slice(text.indexOf(END));
fs.writeFileSync(readme, `${before}\n\n${md.join('\n')}\n${after}`);
process.stderr.write(`extract-fixtures: wrote ${fixtures.size} fixtures and the README block to ${fixDir}\n`);
