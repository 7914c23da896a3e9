#!/usr/bin/env node
// Fake Anthropic Messages API for roz's end-to-end tests.
//
// Usage:
//   node fake-model.js --script <scenario.js> [--log <requests.jsonl>]
//                      [--port <n>] [--port-file <path>] [--host 127.0.0.1]
// Every option can also come from the environment:
//   FAKE_MODEL_SCRIPT, FAKE_MODEL_LOG, FAKE_MODEL_PORT, FAKE_MODEL_PORT_FILE
//
// The script module exports either a function `reply(ctx)` or an object with
// a `reply(ctx)` method (a scenario module; other keys are ignored here).
// `reply` returns one of:
//   - a string                        -> one text block, stop_reason end_turn
//   - an array of content blocks      -> stop_reason tool_use if any tool_use
//   - { content: [...], stop_reason } -> as given
// Content blocks are {type:'text', text} or {type:'tool_use', name, input}
// (an `id` is made up when missing). Several tool_use blocks in one reply are
// parallel tool calls. Returning null/undefined gives a short text reply.
// An optional `sideReply(ctx)` answers side requests (requests without tools,
// e.g. title generation); the default is a short text.
//
// ctx (see makeContext below):
//   body            the parsed request body
//   isSubagent      the system prompt contains cc_is_subagent=true
//   isSideRequest   no tools offered and not a subagent
//   isMain          neither of the above
//   system          the system prompt as one string
//   systemHas(s)    system prompt contains s (e.g. a marker in an agent's .md)
//   turn            number of assistant messages in the request (0 = first)
//   prompt          the conversation's first user text (the -p prompt or the
//                   Agent tool's prompt for a subagent)
//   lastUserText    text blocks of the last user message, joined by newlines
//                   ("Stop hook feedback:\n...", "<task-notification>...")
//   toolResults     [{tool_use_id, is_error, text}] of the last user message
//   sessionIds      every SESSION_ID=<id> seen in the conversation, in order
//   sessionId       the last of them, or null
//   seen(s|re)      any conversation text contains s / matches re
//   countUserText(s) number of user text blocks containing s
//   messages, lastUser, toolNames, allText, meta {seq, url, headers}
// A throwing reply() is answered with HTTP 400 (not retried by Claude Code)
// and logged with its stack.
//
// Only the Node standard library is used. The server listens on loopback only.
'use strict';

const http = require('http');
const fs = require('fs');
const path = require('path');

function parseArgs(argv) {
  const opts = {
    script: process.env.FAKE_MODEL_SCRIPT || '',
    log: process.env.FAKE_MODEL_LOG || '',
    port: process.env.FAKE_MODEL_PORT || '0',
    portFile: process.env.FAKE_MODEL_PORT_FILE || '',
    host: '127.0.0.1',
  };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`missing value for ${a}`);
      return argv[++i];
    };
    if (a === '--script') opts.script = next();
    else if (a === '--log') opts.log = next();
    else if (a === '--port') opts.port = next();
    else if (a === '--port-file') opts.portFile = next();
    else if (a === '--host') opts.host = next();
    else if (a === '-h' || a === '--help') {
      process.stdout.write('usage: fake-model.js --script FILE [--log FILE] [--port N] [--port-file FILE]\n');
      process.exit(0);
    } else throw new Error(`unknown argument: ${a}`);
  }
  if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(opts.host)) {
    throw new Error(`refusing to listen on non-loopback host ${opts.host}`);
  }
  return opts;
}

// ---------------------------------------------------------------------------
// Request inspection helpers (exported so scenario scripts can reuse them).

function blocksOf(message) {
  if (!message) return [];
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}

function systemText(body) {
  const s = body && body.system;
  if (!s) return '';
  if (typeof s === 'string') return s;
  if (Array.isArray(s)) return s.map((b) => (b && typeof b.text === 'string' ? b.text : '')).join('\n');
  return '';
}

function toolResultText(block) {
  const c = block.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((x) => (x && x.type === 'text' ? x.text : '')).join('\n');
  return '';
}

// All text the conversation contains (user/assistant text, tool inputs and
// tool results), used to find markers such as SESSION_ID=....
function conversationText(body) {
  const parts = [];
  for (const m of (body && body.messages) || []) {
    for (const b of blocksOf(m)) {
      if (b.type === 'text') parts.push(b.text);
      else if (b.type === 'tool_result') parts.push(toolResultText(b));
      else if (b.type === 'tool_use') parts.push(JSON.stringify(b.input));
    }
  }
  return parts.join('\n');
}

function makeContext(body, meta) {
  const messages = (body && body.messages) || [];
  const system = systemText(body);
  const isSubagent = system.includes('cc_is_subagent=true');
  const turn = messages.filter((m) => m.role === 'assistant').length;
  let lastUser = null;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') { lastUser = messages[i]; break; }
  }
  const lastBlocks = blocksOf(lastUser);
  const lastUserTexts = lastBlocks.filter((b) => b.type === 'text').map((b) => b.text);
  const toolResults = lastBlocks.filter((b) => b.type === 'tool_result').map((b) => ({
    tool_use_id: b.tool_use_id,
    is_error: !!b.is_error,
    text: toolResultText(b),
  }));
  // The first user message is the prompt (Claude Code may prepend
  // <system-reminder> text blocks; the prompt is the last text block).
  const firstTexts = blocksOf(messages.find((m) => m.role === 'user')).filter((b) => b.type === 'text')
    .map((b) => b.text);
  const allText = conversationText(body);
  const sessionIds = [];
  for (const m of allText.matchAll(/SESSION_ID=([A-Za-z0-9._:-]+)/g)) {
    if (!sessionIds.includes(m[1])) sessionIds.push(m[1]);
  }
  const toolNames = ((body && body.tools) || []).map((t) => t.name).filter(Boolean);
  // A side request (title/summary generation and the like) carries no tools
  // and is not a subagent.
  const isSideRequest = !isSubagent && toolNames.length === 0;
  return {
    body,
    meta,
    system,
    messages,
    isSubagent,
    isSideRequest,
    isMain: !isSubagent && !isSideRequest,
    turn,
    lastUser,
    lastUserTexts,
    lastUserText: lastUserTexts.join('\n'),
    toolResults,
    prompt: firstTexts.length ? firstTexts[firstTexts.length - 1] : '',
    firstUserText: firstTexts.join('\n'),
    allText,
    sessionIds,
    sessionId: sessionIds.length ? sessionIds[sessionIds.length - 1] : null,
    toolNames,
    // true when the system prompt (e.g. the agent's own instructions) holds s
    systemHas: (s) => system.includes(s),
    // true when any text of the conversation holds s (string) or matches s (RegExp)
    seen: (s) => (s instanceof RegExp ? s.test(allText) : allText.includes(s)),
    // how many user text blocks so far contain s (e.g. 'Stop hook feedback')
    countUserText: (s) => messages.filter((m) => m.role === 'user')
      .reduce((n, m) => n + blocksOf(m).filter((b) => b.type === 'text' && b.text.includes(s)).length, 0),
  };
}

// ---------------------------------------------------------------------------
// Reply construction.

// ids are unique per server run: a random tag plus a counter
const idTag = require('crypto').randomBytes(4).toString('hex');
let idCounter = 0;
function nextId(prefix) {
  idCounter += 1;
  return `${prefix}_fake${idTag}${String(idCounter).padStart(4, '0')}`;
}

function normalizeReply(r) {
  if (r === null || r === undefined) r = 'ok';
  if (typeof r === 'string') r = [{ type: 'text', text: r }];
  let content;
  let stopReason;
  if (Array.isArray(r)) content = r;
  else if (typeof r === 'object' && Array.isArray(r.content)) {
    content = r.content;
    stopReason = r.stop_reason;
  } else throw new Error(`script returned an unusable reply: ${JSON.stringify(r)}`);
  content = content.map((b) => {
    if (typeof b === 'string') return { type: 'text', text: b };
    if (b.type === 'tool_use') return { type: 'tool_use', id: b.id || nextId('toolu'), name: b.name, input: b.input || {} };
    if (b.type === 'text') return { type: 'text', text: String(b.text) };
    throw new Error(`unsupported content block type ${b.type}`);
  });
  if (content.length === 0) content = [{ type: 'text', text: 'ok' }];
  if (!stopReason) stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  return { content, stop_reason: stopReason };
}

function usage() {
  return { input_tokens: 12, output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function messageJson(model, reply) {
  return {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: reply.content,
    stop_reason: reply.stop_reason,
    stop_sequence: null,
    usage: usage(),
  };
}

function sseEvents(model, reply) {
  const msg = messageJson(model, reply);
  const ev = [];
  ev.push(['message_start', { type: 'message_start', message: { ...msg, content: [], stop_reason: null, usage: { ...usage(), output_tokens: 1 } } }]);
  reply.content.forEach((b, index) => {
    if (b.type === 'text') {
      ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } }]);
    } else {
      ev.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }]);
      ev.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } }]);
    }
    ev.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  ev.push(['message_delta', { type: 'message_delta', delta: { stop_reason: reply.stop_reason, stop_sequence: null }, usage: { output_tokens: 8 } }]);
  ev.push(['message_stop', { type: 'message_stop' }]);
  return { msg, text: ev.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('') };
}

// ---------------------------------------------------------------------------

function main() {
  const opts = parseArgs(process.argv);
  if (!opts.script) throw new Error('no script given (--script or FAKE_MODEL_SCRIPT)');
  const mod = require(path.resolve(opts.script));
  const replyFn = typeof mod === 'function' ? mod : mod && typeof mod.reply === 'function' ? mod.reply.bind(mod) : null;
  if (!replyFn) throw new Error(`${opts.script} exports no reply function`);
  const sideReply = mod && typeof mod.sideReply === 'function' ? mod.sideReply.bind(mod) : () => 'Test session';

  let seq = 0;
  const logFd = opts.log ? fs.openSync(opts.log, 'a') : null;
  const log = (entry) => {
    if (logFd !== null) fs.writeSync(logFd, JSON.stringify(entry) + '\n');
  };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      seq += 1;
      const entry = { seq, time: new Date().toISOString(), method: req.method, url: req.url };
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      if (raw) {
        try { body = JSON.parse(raw); } catch (e) { entry.raw_body = raw.slice(0, 4096); }
      }
      // The log line is written (synchronously) before the response goes
      // out, so whoever got a response can already read its log entry.
      const send = (status, headers, payload) => {
        log(entry);
        res.writeHead(status, headers);
        res.end(payload);
      };
      try {
        const urlPath = req.url.split('?')[0];
        if (req.method === 'POST' && /\/v1\/messages\/count_tokens$/.test(urlPath)) {
          entry.kind = 'count_tokens';
          entry.response = { input_tokens: 42 };
          send(200, { 'content-type': 'application/json' }, JSON.stringify(entry.response));
        } else if (req.method === 'POST' && /\/v1\/messages$/.test(urlPath) && body) {
          const ctx = makeContext(body, { seq, url: req.url, headers: req.headers });
          entry.kind = ctx.isSubagent ? 'subagent' : ctx.isSideRequest ? 'side' : 'main';
          entry.turn = ctx.turn;
          entry.request = body;
          const reply = normalizeReply(ctx.isSideRequest ? sideReply(ctx) : replyFn(ctx));
          const model = body.model || 'claude-fake';
          if (body.stream) {
            const { msg, text } = sseEvents(model, reply);
            entry.response = msg;
            send(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': nextId('req') }, text);
          } else {
            entry.response = messageJson(model, reply);
            send(200, { 'content-type': 'application/json', 'request-id': nextId('req') }, JSON.stringify(entry.response));
          }
        } else {
          entry.kind = 'other';
          if (body) entry.request = body;
          entry.response = {};
          send(200, { 'content-type': 'application/json' }, '{}');
        }
      } catch (err) {
        entry.kind = entry.kind || 'error';
        entry.error = String(err && err.stack ? err.stack : err);
        process.stderr.write(`fake-model: ${entry.error}\n`);
        // 400 is not retried by Claude Code, so a broken script fails fast.
        send(400, { 'content-type': 'application/json' },
          JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: `fake-model script error: ${err}` } }));
      }
    });
  });

  const shutdown = () => server.close(() => process.exit(0));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  server.listen(Number(opts.port), opts.host, () => {
    const port = server.address().port;
    if (opts.portFile) {
      // write then rename so a reader never sees a partial file
      fs.writeFileSync(opts.portFile + '.tmp', `${port}\n`);
      fs.renameSync(opts.portFile + '.tmp', opts.portFile);
    }
    process.stderr.write(`fake-model: listening on ${opts.host}:${port}\n`);
  });
}

module.exports = { makeContext, systemText, conversationText, blocksOf, normalizeReply };

if (require.main === module) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`fake-model: ${err.message}\n`);
    process.exit(2);
  }
}
