// Helpers for the roz-* scenarios: scripting the main agent and the roz:roz
// reviewer in the fake model (reply side), and reading a run's artefacts in
// check() (check side). Every check helper throws an Error whose message says
// what roz (or Claude Code) did wrong, so a failing scenario names its reason.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { makeContext, blocksOf } = require('../fake-model.js');

// How a Stop/SubagentStop block reaches the model: 2.1.197 writes
// "Stop hook feedback:\n<reason>", 2.1.331 "Stop hook blocking error from
// command: "roz hook stop": <reason>".
const FEEDBACK = 'Stop hook feedback:';
const FEEDBACK_RE = /Stop hook feedback:|Stop hook blocking error from command/;
const GATE_MARK = 'roz: this action needs an independent review first';
const REVIEW_REQUIRED = '# Review required';

// ---------------------------------------------------------------------------
// Recognising the reviewer. Claude Code puts the agent's .md body into the
// subagent's system prompt; its first line is the marker.

const AGENT_MD = path.join(__dirname, '..', '..', '..', 'plugin', 'agents', 'roz.md');

function reviewerMarker() {
  const text = fs.readFileSync(AGENT_MD, 'utf8');
  const body = text.replace(/^---\n[\s\S]*?\n---\n/, '');
  const line = body.split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (!line) throw new Error(`${AGENT_MD}: empty agent body, cannot recognise the reviewer`);
  return line;
}
const REVIEWER_MARK = reviewerMarker();

function isReviewer(ctx) {
  return ctx.isSubagent && ctx.systemHas(REVIEWER_MARK);
}

// ---------------------------------------------------------------------------
// Reply side: content blocks and conversation state.

function shq(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

// Set-up for the scenarios that push: a bare repository at <dir>/remote.git
// as `origin`, with main pushed to it, and a committer configured.
function setupPushRemote({ sh, dir }) {
  const remote = path.join(dir, 'remote.git');
  sh(`git init -q --bare -b main ${shq(remote)}`);
  sh(`git remote add origin ${shq(remote)}`);
  sh('git config user.name e2e && git config user.email e2e@example.invalid && git config commit.gpgsign false');
  sh('git push -q origin main');
}

function bash(command, description = 'Run a command') {
  return { type: 'tool_use', name: 'Bash', input: { command, description } };
}

function workPath(name) {
  const work = process.env.ROZ_E2E_WORK;
  if (!work) throw new Error('ROZ_E2E_WORK is not set (the fake model runs outside the harness?)');
  return path.join(work, name);
}

function write(name, content) {
  return { type: 'tool_use', name: 'Write', input: { file_path: workPath(name), content } };
}

// The Agent call the block message asks for. `round` (1, 2, ...) goes into the
// prompt as REVIEW_ROUND=<n> so the reviewer script knows which review it is.
// `background`: true asks for a background run, false for a foreground one,
// undefined leaves it to Claude Code (2.1.197: foreground, 2.1.331: background).
function spawnReviewer(sid, { round = 1, background, what = 'the task' } = {}) {
  const input = {
    subagent_type: 'roz:roz',
    description: `roz review ${round}`,
    prompt: `SESSION_ID=${sid}\nREVIEW_ROUND=${round}\n\n## What was asked\n${what}\n\n` +
      '## What you did\nWrote the files the user asked for.\n\n## Files changed\nsee git status\n',
  };
  if (background !== undefined) input.run_in_background = background;
  return { type: 'tool_use', name: 'Agent', input };
}

// tool_use blocks of the last assistant message, each with the tool_result
// the last user message holds for it (or null).
function lastCalls(ctx) {
  let lastAssistant = null;
  for (let i = ctx.messages.length - 1; i >= 0; i--) {
    if (ctx.messages[i].role === 'assistant') { lastAssistant = ctx.messages[i]; break; }
  }
  const uses = blocksOf(lastAssistant).filter((b) => b.type === 'tool_use');
  return uses.map((u) => ({
    name: u.name,
    input: u.input || {},
    result: ctx.toolResults.find((r) => r.tool_use_id === u.id) || null,
  }));
}

// Every tool_use of the conversation so far.
function allToolUses(ctx) {
  const out = [];
  for (const m of ctx.messages) {
    if (m.role !== 'assistant') continue;
    for (const b of blocksOf(m)) if (b.type === 'tool_use') out.push(b);
  }
  return out;
}

function agentCalls(ctx) {
  return allToolUses(ctx).filter((u) => u.name === 'Agent');
}

function isFeedback(ctx) {
  return FEEDBACK_RE.test(ctx.lastUserText);
}

// A background task's completion: 2.1.197 sends the bare <task-notification>
// as the user turn, 2.1.331 wraps it (and may batch several) in a
// <system-reminder> marked as not coming from the user.
function isTaskNotification(ctx) {
  return ctx.toolResults.length === 0 && ctx.lastUserText.includes('<task-notification>');
}

// ---------------------------------------------------------------------------
// Background reviewers. The scripted main agent behaves as a real model does
// under Claude Code's background agents: once the Agent tool says the
// reviewer is working in the background, it ends its turn and waits for the
// notification; it never starts a second reviewer while one is at work.

function toolResultTextOf(block) {
  const c = block.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((x) => (x && x.type === 'text' ? x.text : '')).join('\n');
  return '';
}

const ASYNC_RE = /Async agent launched|working in the background/;

// Every Agent call for roz:roz so far: {id, async, refused, done, notified}.
function reviewerLaunches(ctx) {
  const results = new Map();
  const userTexts = [];
  for (const m of ctx.messages) {
    for (const b of blocksOf(m)) {
      if (b.type === 'tool_result') results.set(b.tool_use_id, { text: toolResultTextOf(b), isError: !!b.is_error });
      else if (m.role === 'user' && b.type === 'text') userTexts.push(b.text);
    }
  }
  const notes = userTexts.join('\n');
  return allToolUses(ctx)
    .filter((u) => u.name === 'Agent' && (u.input || {}).subagent_type === 'roz:roz')
    .map((u) => {
      const r = results.get(u.id) || { text: '', isError: false };
      const async = !r.isError && ASYNC_RE.test(r.text);
      return {
        id: u.id,
        async,
        refused: r.isError,
        done: results.has(u.id) && !r.isError && !async,
        notified: notes.includes(`<tool-use-id>${u.id}</tool-use-id>`),
      };
    });
}

// A reviewer started in the background has not reported back yet.
function reviewerInFlight(ctx) {
  return reviewerLaunches(ctx).some((l) => l.async && !l.notified);
}

// The reply a real agent gives right after starting a background reviewer
// (or being told one already works): end the turn. null otherwise.
function waitForReviewer(ctx) {
  const last = lastCalls(ctx).find((c) => c.name === 'Agent' && (c.input || {}).subagent_type === 'roz:roz');
  if (!last || !last.result) return null;
  if (!last.result.is_error && ASYNC_RE.test(last.result.text)) return 'The roz:roz reviewer is working in the background; I will wait for its result.';
  if (last.result.is_error && last.result.text.includes('already reviewing')) return 'A reviewer is already at work; I will wait for its result.';
  return null;
}

// The last Agent call for roz:roz finished in the foreground, or its
// background run has just reported back: the review is over.
function reviewerReportedBack(ctx) {
  const last = lastCalls(ctx).find((c) => c.name === 'Agent' && (c.input || {}).subagent_type === 'roz:roz');
  if (last && last.result && !last.result.is_error && !ASYNC_RE.test(last.result.text)) return true;
  return isTaskNotification(ctx) && reviewerLaunches(ctx).some((l) => l.async && l.notified);
}

// The spawn, unless a reviewer is already at work (then end the turn).
function spawnReviewerOnce(ctx, sid, opts) {
  if (reviewerInFlight(ctx)) return 'A reviewer is already at work; I will wait for its result.';
  return [spawnReviewer(sid, opts)];
}

// The last user message is a new prompt typed by the user (first prompt, or
// a later one given with --resume): text, no tool results, no hook feedback.
function isNewPrompt(ctx) {
  return ctx.toolResults.length === 0 && ctx.lastUserText !== '' && !isFeedback(ctx) && !isTaskNotification(ctx);
}

// The last SESSION_ID=<id> of the conversation. roz session ids are ASCII
// letters, digits, '-' and '_' (ctx.sessionId of fake-model.js also takes
// '.', so it would swallow the full stop roz's ISSUES message puts after
// the id).
function sidOf(ctx) {
  const all = [...ctx.allText.matchAll(/SESSION_ID=([A-Za-z0-9_-]+)/g)];
  return all.length ? all[all.length - 1][1] : null;
}

// REVIEW_ROUND=<n> from a reviewer's prompt (1 when missing).
function reviewRound(ctx) {
  const m = ctx.prompt.match(/REVIEW_ROUND=(\d+)/) || ctx.allText.match(/REVIEW_ROUND=(\d+)/);
  return m ? Number(m[1]) : 1;
}

// The standard reviewer: `roz context <sid>`, then `roz decide <sid> ...`
// (verdict(ctx) -> {verdict, summary, message}; default COMPLETE), then a
// closing text. Commands it already ran decide the next step, so hook
// feedback in between does not confuse it.
// `slow`: seconds it spends reading the work first (a slow reviewer).
function reviewer(ctx, { verdict, slow = 0 } = {}) {
  const sid = sidOf(ctx);
  if (!sid) return 'There is no SESSION_ID in my prompt, so I cannot record a verdict.';
  const ran = allToolUses(ctx).map((u) => String((u.input && u.input.command) || ''));
  if (slow > 0 && !ran.some((c) => c.startsWith('sleep '))) return [bash(`sleep ${slow}; git status --short`, 'Read the work carefully')];
  if (!ran.some((c) => c.startsWith('roz context'))) return [bash(`roz context ${sid}`, 'Read the review context')];
  if (!ran.some((c) => c.startsWith('roz decide'))) {
    const v = verdict ? verdict(ctx) : { verdict: 'COMPLETE', summary: 'checked the files against the request' };
    let cmd = `roz decide ${sid} ${v.verdict} ${shq(v.summary)}`;
    if (v.message) cmd += ` --message ${shq(v.message)}`;
    return [bash(cmd, 'Record the verdict')];
  }
  return `Review ${reviewRound(ctx)} of ${sid} recorded.`;
}

// ---------------------------------------------------------------------------
// Check side.

function fail(msg) {
  throw new Error(msg);
}

// Printed with the run's output (run-all.sh shows it indented).
function note(msg) {
  process.stderr.write(`${msg}\n`);
}

function initEvents(run) {
  return run.stream.filter((e) => e.type === 'system' && e.subtype === 'init');
}

// The session id Claude Code reported (first init event).
function mainSessionId(run) {
  const init = initEvents(run)[0];
  if (!init || !init.session_id) fail('stream.jsonl has no init event with a session_id (did Claude Code start?)');
  return init.session_id;
}

// The model a ledger record of session `sid` names: the one SessionStart named
// (without the context-size tag "[1m]"), else the one the session's transcript
// names in its assistant entries (`claude -p` names none to the hooks), as
// provider/model; undefined when neither says.
function recordModel(run, sid) {
  const start = hookCalls(run, 'session-start').find((h) => h.input && h.input.session_id === sid);
  let named = start && start.input.model;
  if (!named && start && start.input.transcript_path && fs.existsSync(start.input.transcript_path)) {
    for (const line of fs.readFileSync(start.input.transcript_path, 'utf8').split('\n')) {
      let e;
      try { e = JSON.parse(line); } catch (_) { continue; }
      const m = e && e.type === 'assistant' && e.message && e.message.model;
      if (m && m !== '<synthetic>') named = m;
    }
  }
  const bare = named && named.replace(/\[[^\]]*\]$/, '');
  return bare ? (bare.includes('/') ? bare : `anthropic/${bare}`) : undefined;
}

// Every `claude -p` run ended with a successful result event.
function expectRunsSucceeded(run, nRuns = 1) {
  if (run.streams.length !== nRuns) fail(`expected ${nRuns} claude run(s), found ${run.streams.length}`);
  run.streams.forEach((s, i) => {
    const results = s.filter((e) => e.type === 'result');
    if (!results.length) fail(`run ${i + 1}: no result event in stream.${i + 1}.jsonl`);
    for (const r of results) {
      if (r.is_error || r.subtype !== 'success') fail(`run ${i + 1}: result is an error: ${JSON.stringify(r).slice(0, 400)}`);
    }
  });
  const errs = run.model.filter((e) => e.error);
  if (errs.length) fail(`the fake model's script threw: ${errs[0].error.split('\n')[0]}`);
}

function ctxOf(entry) {
  return makeContext(entry.request, { seq: entry.seq });
}

// Requests of one kind ('main' or 'subagent') in order, with their ctx.
function requests(run, kind) {
  return run.model.filter((e) => e.kind === kind && e.request).map((e) => ({ entry: e, ctx: ctxOf(e) }));
}

// Every tool call of the main conversation with its result, from the last
// main request (it carries the whole conversation).
function callsOf(run) {
  const main = requests(run, 'main');
  if (!main.length) fail('the model got no main request');
  const msgs = main[main.length - 1].ctx.messages;
  const results = new Map();
  for (const m of msgs) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      const text = typeof b.content === 'string' ? b.content
        : (b.content || []).map((x) => (x && x.type === 'text' ? x.text : '')).join('\n');
      results.set(b.tool_use_id, { isError: !!b.is_error, text });
    }
  }
  return allToolUses({ messages: msgs }).map((u) => ({ id: u.id, name: u.name, input: u.input || {}, result: results.get(u.id) || null }));
}

function reviewerRequests(run) {
  return requests(run, 'subagent').filter((r) => isReviewer(r.ctx));
}

// Requests whose last user message carries Stop/SubagentStop feedback: each
// one is a block Claude Code fed back to the model.
function feedbackRequests(run, kind) {
  return requests(run, kind).filter((r) => FEEDBACK_RE.test(r.ctx.lastUserText));
}

function hookCalls(run, event) {
  return run.rozCalls.filter((c) => c.hook === event);
}

// What one hook call answered: 'allow' ({}), 'block', 'deny', 'ask' (the
// person decides: destructive commands, governance's escalation), 'context',
// or 'bad:<why>'.
function answerOf(call) {
  if (call.rc !== 0) return `bad:exit ${call.rc}`;
  const o = call.output;
  if (o === undefined) return `bad:stdout not JSON: ${JSON.stringify(call.stdout.slice(0, 80))}`;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return 'bad:not an object';
  if (Object.keys(o).length === 0) return 'allow';
  if (o.decision === 'block') return 'block';
  const h = o.hookSpecificOutput;
  if (h && h.permissionDecision === 'deny') return 'deny';
  if (h && h.permissionDecision === 'ask') return 'ask';
  if (h && h.permissionDecision) return `bad:permissionDecision ${h.permissionDecision}`;
  if (h && h.additionalContext) return 'context';
  return `bad:${JSON.stringify(o).slice(0, 80)}`;
}

function answers(run, event, filter = () => true) {
  return hookCalls(run, event).filter(filter).map(answerOf);
}

function inSubagent(call) {
  return !!(call.input && call.input.agent_type);
}

function expectAnswers(run, event, expected, what, filter) {
  const got = answers(run, event, filter);
  if (JSON.stringify(got) !== JSON.stringify(expected)) {
    fail(`${what}: roz answered the ${event} hooks [${got.join(', ')}], expected [${expected.join(', ')}]`);
  }
}

// Bash-tool calls of `roz <command>` (decide, context, ...).
function cliCalls(run, command) {
  return run.rozCalls.filter((c) => c.hook === null && c.args[0] === command);
}

function sessionFile(run, sid) {
  return path.join(run.rozHome, 'sessions', `${sid}.json`);
}

function loadSession(run, sid) {
  const file = sessionFile(run, sid);
  if (!fs.existsSync(file)) {
    const have = run.sessionFiles().map((f) => f.id);
    fail(`roz wrote no session file for ${sid} under ROZ_HOME (sessions there: [${have.join(', ')}])`);
  }
  const text = fs.readFileSync(file, 'utf8');
  let session = null;
  try {
    session = JSON.parse(text);
  } catch (e) {
    fail(`session file ${file} is not valid JSON (${e.message}): ${text.slice(0, 200)}`);
  }
  // the trace lives beside the state, an event per line; every whole line must be one
  const traceFile = path.join(run.rozHome, 'sessions', `${sid}.trace.jsonl`);
  const lines = fs.existsSync(traceFile) ? fs.readFileSync(traceFile, 'utf8').split('\n') : [''];
  if (lines[lines.length - 1] !== '') fail(`trace file ${traceFile} ends mid-line`);
  const events = lines.slice(0, -1).map((l, i) => {
    try { return JSON.parse(l); } catch (e) { return fail(`trace file ${traceFile} line ${i + 1} is not JSON: ${l.slice(0, 200)}`); }
  });
  session.trace = events.concat(session.trace || []);
  return session;
}

function traceTypes(session) {
  return (session.trace || []).map((e) => e.event_type);
}

function traceCounts(session) {
  const n = {};
  for (const t of traceTypes(session)) n[t] = (n[t] || 0) + 1;
  return n;
}

// Exact counts of the named trace event types (others are not looked at).
function expectTrace(session, expected) {
  const n = traceCounts(session);
  const bad = Object.entries(expected).filter(([t, want]) => (n[t] || 0) !== want);
  if (bad.length) {
    fail(`session trace: ${bad.map(([t, want]) => `${t} x${n[t] || 0}, expected x${want}`).join('; ')} ` +
      `(trace: ${traceTypes(session).join(', ')})`);
  }
}

// Invariants of every roz scenario: roz was called by the hooks, each
// started in exec form (no shell in front of it), every hook exited 0 with a
// JSON object, none ever answered "allow", every session file is valid JSON.
function commonChecks(run) {
  const hooks = run.rozCalls.filter((c) => c.hook !== null);
  if (!hooks.length) fail('roz was never called by a hook (plugin not loaded, or no roz on PATH?)');
  const noReal = run.rozCalls.find((c) => !c.real);
  if (noReal) fail(`no roz on PATH behind the recording shim (call ${noReal.args.join(' ')})`);
  for (const c of hooks) {
    if (c.launch !== 'exec') fail(`roz hook ${c.hook} was started through a shell (the plugin's hooks.json is not in exec form?)`);
    const a = answerOf(c);
    if (a.startsWith('bad:')) fail(`roz hook ${c.hook} answered badly (${a.slice(4)}); stderr: ${c.stderr.slice(0, 200)}`);
    if (/"permissionDecision"\s*:\s*"allow"/.test(c.stdout)) fail(`roz hook ${c.hook} answered permissionDecision "allow": ${c.stdout}`);
  }
  for (const f of run.sessionFiles()) {
    try { JSON.parse(f.text); } catch (e) { fail(`session file ${f.file} is not valid JSON: ${e.message}`); }
  }
}

// The most text roz puts in one answer, in characters as Claude Code counts
// them (UTF-16 code units, JavaScript's length): ROZ_OUTPUT_MAX_CHARS.
const OUTPUT_MAX_CHARS = 9000;

// A reviewer's message longer than an answer may be: the Stop answer that
// carried it stays within the bound, keeps the message's start and the
// SESSION_ID line, leaves out its last line `end`, and says that
// `roz context <sid>` shows the whole message, which it does; `seen` (what
// the agent was given) is that answer.
function expectBoundedIssues(run, sid, seen, message, end) {
  const reasons = hookCalls(run, 'stop').filter((c) => answerOf(c) === 'block').map((c) => c.output.reason)
    .filter((r) => r.includes('the reviewer found problems'));
  if (reasons.length !== 1) fail(`${reasons.length} Stop answers carried the reviewer's ISSUES, expected 1`);
  const reason = reasons[0];
  const note = `\`roz context ${sid}\` shows the reviewer's whole message.]`;
  if (reason.length > OUTPUT_MAX_CHARS) fail(`the ISSUES answer is ${reason.length} characters, over the bound of ${OUTPUT_MAX_CHARS}`);
  if (!reason.includes(message.split('\n')[0])) fail('the ISSUES answer lost the start of the reviewer\'s message');
  if (reason.includes(end)) fail(`the ISSUES answer (${reason.length} characters) kept the message's last line; nothing was cut`);
  if (!reason.includes(note)) fail(`the ISSUES answer does not say where the rest is (${JSON.stringify(reason.slice(-600))})`);
  if (!reason.includes(`SESSION_ID=${sid}`)) fail('the cut ISSUES answer lost the SESSION_ID line the next review needs');
  if (!seen.includes(note) || seen.includes(end)) fail('the agent was not given the bounded answer');
  const context = execFileSync('roz', ['context', sid], { env: { ...process.env, ROZ_HOME: run.rozHome }, encoding: 'utf8' });
  if (!context.includes(end)) fail(`roz context ${sid} does not show the reviewer's whole message`);
}

// The figures of a run that say what the review loop cost: stops roz
// blocked, stops it let through while a reviewer worked, reviewers started,
// requests the main agent made. Written to <results>/metrics.json for
// run-all.sh's table.
function metrics(run, extra = {}) {
  const stops = hookCalls(run, 'stop');
  const running = (c) => ((c.input && c.input.background_tasks) || [])
    .some((b) => b.agent_type === 'roz:roz' && b.status === 'running');
  const m = {
    stop_blocks: stops.filter((c) => answerOf(c) === 'block').length,
    waits: stops.filter((c) => answerOf(c) === 'allow' && running(c)).length,
    reviewers: hookCalls(run, 'subagent-start').filter((c) => c.input && c.input.agent_type === 'roz:roz').length,
    main_requests: requests(run, 'main').length,
    ...extra,
  };
  fs.writeFileSync(path.join(run.dir, 'metrics.json'), `${JSON.stringify(m)}\n`);
  return m;
}

// git in a directory of the run, for checks.
function git(dir, ...args) {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// ---------------------------------------------------------------------------
// A stale approval (the roz-stale* scenarios): the work changed after the
// reviewer approved it, and roz asks for a review of what changed.

// How roz's stale block (Stop) or denial (a gated call's retry) begins.
const STALE_MARK = 'roz: the work changed after the reviewer approved';

// The first ``` fenced block of a text (roz's ready-made reviewer prompt), or null.
function fencedBlock(text) {
  const m = String(text).match(/```[^\n]*\n([\s\S]*?)\n```/);
  return m ? m[1] : null;
}

// The files a stale message lists under "Changed since the approval:".
function staleFiles(text) {
  const m = String(text).match(/Changed since the approval:\n((?: {2}.*\n)*)/);
  return m ? m[1].split('\n').filter(Boolean).map((l) => l.trim()) : [];
}

// The Agent call for roz:roz with a prompt of the agent's own (e.g. the one
// a stale block offers), unless a reviewer is already at work.
function spawnReviewerWithPromptOnce(ctx, prompt, { round = 1, background } = {}) {
  if (reviewerInFlight(ctx)) return 'A reviewer is already at work; I will wait for its result.';
  const input = { subagent_type: 'roz:roz', description: `roz review ${round}`, prompt };
  if (background !== undefined) input.run_in_background = background;
  return [{ type: 'tool_use', name: 'Agent', input }];
}

// The trace events of one type, in order.
function traceEvents(session, type) {
  return (session.trace || []).filter((e) => e.event_type === type);
}

// A recording `git` first on PATH (setup side: <results>/bin, beside the roz
// shim): each call appends "<ms since the epoch> <pid of its grandparent>
// <args>" to <results>/git-calls.log and runs the real git. roz runs git
// itself (posix_spawnp), so a roz call's own git runs are the lines whose
// grandparent is that call's shim (its id ends in -<pid>): what roz looked
// at in one hook call (gitCallsOf).
function setupGitRecorder({ sh, dir }) {
  const real = sh('command -v git').toString().trim();
  if (!real.startsWith('/')) throw new Error(`no git on PATH for the recorder (${real})`);
  const bin = path.join(dir, 'bin');
  if (!fs.existsSync(bin)) throw new Error(`${bin} does not exist (not a roz scenario?)`);
  const log = path.join(dir, 'git-calls.log');
  fs.writeFileSync(path.join(bin, 'git'), [
    '#!/usr/bin/env bash',
    '# recording git of the roz-stale scenarios (lib/roz-e2e.js setupGitRecorder)',
    'gp=0',
    'if read -r _pid _comm _state ppid _rest < "/proc/$PPID/stat" 2>/dev/null; then gp=$ppid; fi',
    't=${EPOCHREALTIME/./}',
    `printf '%s %s %s\\n' "\${t:0:13}.\${t:13}" "$gp" "$*" >> ${shq(log)}`,
    `exec ${shq(real)} "$@"`,
    '',
  ].join('\n'), { mode: 0o755 });
  fs.writeFileSync(log, '');
}

// Every call of the recording git: {t (ms), gp (pid), args}.
function gitCalls(run) {
  const file = path.join(run.dir, 'git-calls.log');
  if (!fs.existsSync(file)) fail('git-calls.log is missing (the scenario\'s setup did not install the recording git)');
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
    const [t, gp, ...rest] = l.split(' ');
    return { t: Number(t), gp: Number(gp), args: rest.join(' ') };
  });
}

// The git runs roz made within one recorded roz call.
function gitCallsOf(run, call) {
  const pid = Number(call.id.split('-').pop());
  return gitCalls(run).filter((g) => g.gp === pid && g.t >= call.start - 1 && g.t <= call.end + 1);
}

module.exports = {
  STALE_MARK,
  fencedBlock,
  staleFiles,
  spawnReviewerWithPromptOnce,
  traceEvents,
  setupGitRecorder,
  gitCalls,
  gitCallsOf,
  setupPushRemote,
  OUTPUT_MAX_CHARS,
  expectBoundedIssues,
  FEEDBACK,
  FEEDBACK_RE,
  reviewerLaunches,
  reviewerInFlight,
  waitForReviewer,
  reviewerReportedBack,
  spawnReviewerOnce,
  metrics,
  GATE_MARK,
  REVIEW_REQUIRED,
  REVIEWER_MARK,
  isReviewer,
  shq,
  bash,
  write,
  workPath,
  spawnReviewer,
  lastCalls,
  allToolUses,
  callsOf,
  agentCalls,
  isFeedback,
  isTaskNotification,
  isNewPrompt,
  sidOf,
  reviewRound,
  reviewer,
  fail,
  note,
  mainSessionId,
  recordModel,
  expectRunsSucceeded,
  requests,
  reviewerRequests,
  feedbackRequests,
  hookCalls,
  answerOf,
  answers,
  inSubagent,
  expectAnswers,
  cliCalls,
  sessionFile,
  loadSession,
  traceTypes,
  traceCounts,
  expectTrace,
  commonChecks,
  git,
};
