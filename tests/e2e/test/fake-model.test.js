// Unit tests of fake-model.js (no Claude Code, no namespace needed):
//   node --test tests/e2e/test/
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { makeContext, normalizeReply } = require('../fake-model.js');

const FAKE = path.join(__dirname, '..', 'fake-model.js');

function request(port, method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers: data ? { 'content-type': 'application/json', 'content-length': data.length } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

function parseSse(text) {
  return text.split('\n\n').filter(Boolean).map((chunk) => {
    const ev = /^event: (.*)$/m.exec(chunk)[1];
    const data = JSON.parse(/^data: (.*)$/m.exec(chunk)[1]);
    return { ev, data };
  });
}

async function startServer(t, scriptSource) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-model-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'script.js');
  fs.writeFileSync(script, scriptSource);
  const log = path.join(dir, 'log.jsonl');
  const portFile = path.join(dir, 'port');
  const child = spawn(process.execPath, [FAKE, '--script', script, '--log', log, '--port', '0', '--port-file', portFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => child.kill('SIGTERM'));
  const deadline = Date.now() + 5000;
  while (!fs.existsSync(portFile)) {
    if (Date.now() > deadline) throw new Error('fake model did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  const port = Number(fs.readFileSync(portFile, 'utf8'));
  const readLog = () => fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  return { port, readLog };
}

const SCRIPT = `
module.exports = {
  prompt: 'unused',
  reply(ctx) {
    if (ctx.isSubagent) return 'sub ' + ctx.turn + ' ' + ctx.sessionId;
    if (ctx.turn === 0) return [{ type: 'text', text: 'calling' },
      { type: 'tool_use', name: 'Bash', input: { command: 'echo a' } },
      { type: 'tool_use', name: 'Bash', input: { command: 'echo b' } }];
    if (ctx.lastUserText === 'boom') throw new Error('scripted failure');
    return { content: [{ type: 'text', text: 'results ' + ctx.toolResults.map((r) => r.text).join(',') }], stop_reason: 'end_turn' };
  },
  sideReply() { return 'A title'; },
};`;

const TOOLS = [{ name: 'Bash', input_schema: { type: 'object' } }];

test('streams text and parallel tool_use blocks as server-sent events', async (t) => {
  const { port, readLog } = await startServer(t, SCRIPT);
  const res = await request(port, 'POST', '/v1/messages?beta=true', {
    model: 'm', stream: true, tools: TOOLS, system: [{ type: 'text', text: 'main' }],
    messages: [{ role: 'user', content: 'SESSION_ID=s1 hi' }],
  });
  assert.strictEqual(res.status, 200);
  assert.match(res.headers['content-type'], /text\/event-stream/);
  const evs = parseSse(res.text);
  assert.deepStrictEqual(evs.map((e) => e.ev), ['message_start',
    'content_block_start', 'content_block_delta', 'content_block_stop',
    'content_block_start', 'content_block_delta', 'content_block_stop',
    'content_block_start', 'content_block_delta', 'content_block_stop',
    'message_delta', 'message_stop']);
  assert.strictEqual(evs[2].data.delta.type, 'text_delta');
  assert.strictEqual(evs[4].data.content_block.type, 'tool_use');
  assert.strictEqual(evs[5].data.delta.type, 'input_json_delta');
  assert.deepStrictEqual(JSON.parse(evs[5].data.delta.partial_json), { command: 'echo a' });
  assert.notStrictEqual(evs[4].data.content_block.id, evs[7].data.content_block.id);
  assert.strictEqual(evs[10].data.delta.stop_reason, 'tool_use');
  const log = readLog();
  assert.strictEqual(log.length, 1);
  assert.strictEqual(log[0].kind, 'main');
  assert.strictEqual(log[0].turn, 0);
  assert.strictEqual(log[0].response.content.length, 3);
});

test('answers plain JSON when stream is false, with turn and tool results', async (t) => {
  const { port } = await startServer(t, SCRIPT);
  const res = await request(port, 'POST', '/v1/messages', {
    model: 'm', tools: TOOLS, system: 'main',
    messages: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'A' }] }] },
    ],
  });
  const msg = JSON.parse(res.text);
  assert.strictEqual(msg.type, 'message');
  assert.strictEqual(msg.stop_reason, 'end_turn');
  assert.strictEqual(msg.content[0].text, 'results A');
});

test('recognises subagents, side requests, count_tokens and other paths', async (t) => {
  const { port, readLog } = await startServer(t, SCRIPT);
  const sub = JSON.parse((await request(port, 'POST', '/v1/messages', {
    model: 'm', tools: TOOLS, system: [{ type: 'text', text: 'x cc_is_subagent=true' }],
    messages: [{ role: 'user', content: 'SESSION_ID=abc-1 review' }],
  })).text);
  assert.strictEqual(sub.content[0].text, 'sub 0 abc-1');
  const side = JSON.parse((await request(port, 'POST', '/v1/messages', { model: 'm', system: 'title', messages: [{ role: 'user', content: 'x' }] })).text);
  assert.strictEqual(side.content[0].text, 'A title');
  const ct = JSON.parse((await request(port, 'POST', '/v1/messages/count_tokens?beta=true', { messages: [] })).text);
  assert.ok(ct.input_tokens > 0);
  const head = await request(port, 'HEAD', '/');
  assert.strictEqual(head.status, 200);
  assert.deepStrictEqual(readLog().map((e) => e.kind), ['subagent', 'side', 'count_tokens', 'other']);
});

test('a throwing script gives a 400 error and is logged', async (t) => {
  const { port, readLog } = await startServer(t, SCRIPT);
  const res = await request(port, 'POST', '/v1/messages', {
    model: 'm', tools: TOOLS, system: 'main',
    messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'boom' }],
  });
  assert.strictEqual(res.status, 400);
  assert.match(readLog()[0].error, /scripted failure/);
});

test('context helpers', () => {
  const ctx = makeContext({
    system: [{ type: 'text', text: 'agent MARKER' }],
    tools: TOOLS,
    messages: [
      { role: 'user', content: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }, { type: 'text', text: 'SESSION_ID=one do it' }] },
      { role: 'system', content: 'agent list' },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      { role: 'user', content: [{ type: 'text', text: 'Stop hook feedback:\nSESSION_ID=two' }] },
    ],
  }, {});
  assert.strictEqual(ctx.turn, 1);
  assert.strictEqual(ctx.prompt, 'SESSION_ID=one do it');
  assert.deepStrictEqual(ctx.sessionIds, ['one', 'two']);
  assert.strictEqual(ctx.sessionId, 'two');
  assert.strictEqual(ctx.countUserText('Stop hook feedback'), 1);
  assert.ok(ctx.systemHas('MARKER'));
  assert.ok(ctx.isMain);
  assert.deepStrictEqual(normalizeReply('hi'), { content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' });
});
