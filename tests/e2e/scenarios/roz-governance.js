// roz, intent governance in a repository that declares intents
// (.orchestration/active_intents.yaml: INT-001 IN_PROGRESS owning
// src/auth/**, INT-002 DRAFT owning src/billing/**), one prompt, one tool
// call per model turn:
//
//   1. Write src/auth/a.ts before selecting     -> denied INTENT_REQUIRED, offers INT-001 only
//   2. Bash `roz intent select INT-001`         -> the <intent_context> block with the scope
//   3. Write src/auth/a.ts                      -> written
//   4. Write src/billing/b.ts                   -> denied SCOPE_VIOLATION, nothing written
//   5. Read a.ts; a parallel writer appends to it (new mtime); Edit a.ts
//                                               -> refused as stale (by whom: see STALE_FIRST)
//      Read a.ts again; Edit                    -> edited; a second Edit without a Read -> edited
//   6. a parallel writer appends to a.ts and puts its mtime back a minute
//      (as cp -p, rsync -t, tar or touch -r do); Edit
//                                               -> denied STALE_FILE by roz on every release
//      Read; Edit                               -> edited; both parallel lines are still there
//   7. Bash `rm -rf build`                      -> roz asks; in -p nobody can answer, so Claude
//                                                  Code refuses it with roz's reason; build/ stays
// and the SessionStart briefing ("roz intent select") is in the first request.
//
// The parallel writer is the fake model server itself: reply() runs in that
// process, after Claude Code has sent the Read's result (so after the Read's
// PostToolUse hook) and before it gets the Edit. Claude Code, its tools and
// its hooks never see the write, as with another session or a person's
// editor. A Bash `echo >> a.ts` would not do: that is the session's own write.
//
// Who refuses the stale Edit of step 5 depends on the release: 2.1.197 runs
// its own read-state check (modification time) before the PreToolUse hooks,
// so roz is not asked; 2.1.331 runs the hooks first, so roz's STALE_FILE
// answers, and without roz it would apply the Edit to the changed file (its
// result only notes "the file had been modified on disk since you last read
// it"). Step 6 is the change an mtime check cannot see and roz's content
// hash does, on every release.
//
// The harness runs Claude Code with --dangerously-skip-permissions
// (bypassPermissions). A PreToolUse `ask` there is not waved through: with
// nobody to ask in -p or stream-json, Claude Code refuses the call, hands the
// model roz's reason as an error tool_result, and lists the call in the
// result's permission_denials (2.1.331 also emits a system permission_denied
// event with decision_reason_type "hook").
'use strict';
const fs = require('fs');
const path = require('path');
const t = require('../lib/roz-e2e.js');

const INTENTS = `active_intents:
  - id: INT-001
    name: JWT Authentication Migration
    status: IN_PROGRESS
    owned_scope: ["src/auth/**"]
    constraints: ["Must not use external auth providers"]
    acceptance_criteria: ["Unit tests in tests/auth/ pass"]
  - id: INT-002
    name: Billing
    status: DRAFT
    owned_scope: ["src/billing/**"]
`;

const A = 'src/auth/a.ts';
const B = 'src/billing/b.ts';
const PARALLEL_1 = 'export const fromElsewhere = 1;\n';
const PARALLEL_2 = 'export const fromElsewhere = 2;\n';
const FINAL = `export const a = 4;\n${PARALLEL_1}${PARALLEL_2}`;
const RM = 'rm -rf build';

// Releases that run their own stale-read check on Edit before the PreToolUse
// hooks (see the top): there Claude Code, not roz, refuses step 5's Edit.
const STALE_FIRST = new Set(['2.1.197']);

// The parallel writer: append `line` to a.ts unless it is there already (a
// retried request must not write twice), optionally putting the modification
// time back; logged with the time for check().
function parallelWrite(line, { mtimeBackMs = 0 } = {}) {
  const f = t.workPath(A);
  if (fs.readFileSync(f, 'utf8').includes(line)) return;
  const st = fs.statSync(f);
  fs.appendFileSync(f, line);
  if (mtimeBackMs) fs.utimesSync(f, st.atime, new Date(st.mtimeMs - mtimeBackMs));
  const log = path.join(process.env.ROZ_E2E_RESULTS, 'parallel-writes.jsonl');
  fs.appendFileSync(log, `${JSON.stringify({ line, mtimeBackMs, at: Date.now() })}\n`);
}

const read = () => ({ type: 'tool_use', name: 'Read', input: { file_path: t.workPath(A) } });
const edit = (from, to) => ({ type: 'tool_use', name: 'Edit', input: { file_path: t.workPath(A), old_string: from, new_string: to } });

// One tool call per turn; `name` labels it in check().
const STEPS = [
  { name: 'write before selecting', call: () => t.write(A, 'export const a = 1;\n') },
  { name: 'select', call: () => t.bash('roz intent select INT-001', 'Select the intent the task belongs to') },
  { name: 'write in scope', call: () => t.write(A, 'export const a = 1;\n') },
  { name: 'write out of scope', call: () => t.write(B, 'export const b = 1;\n') },
  { name: 'read', call: read },
  { name: 'edit after a parallel change', call: () => { parallelWrite(PARALLEL_1); return edit('a = 1', 'a = 2'); } },
  { name: 'read again', call: read },
  { name: 'edit after reading again', call: () => edit('a = 1', 'a = 2') },
  { name: 'edit on its own write', call: () => edit('a = 2', 'a = 3') },
  { name: 'edit after a change that keeps an old mtime', call: () => { parallelWrite(PARALLEL_2, { mtimeBackMs: 60000 }); return edit('a = 3', 'a = 4'); } },
  { name: 'read a third time', call: read },
  { name: 'edit after reading a third time', call: () => edit('a = 3', 'a = 4') },
  { name: 'rm -rf build', call: () => t.bash(RM, 'Remove the build directory') },
];

function expectText(step, call, wants, { error }) {
  if (!call.result) t.fail(`${step}: the model got no tool_result for it`);
  if (call.result.isError !== error) {
    t.fail(`${step}: the tool_result is ${call.result.isError ? 'an error' : 'a success'}, expected ${error ? 'an error' : 'a success'}: ${JSON.stringify(call.result.text.slice(0, 300))}`);
  }
  for (const w of wants) {
    if (!call.result.text.includes(w)) t.fail(`${step}: the tool_result lacks ${JSON.stringify(w)}: ${JSON.stringify(call.result.text.slice(0, 400))}`);
  }
}

module.exports = {
  prompt: 'Move the auth helper in src/auth/a.ts to JWT',
  setup({ work }) {
    fs.mkdirSync(path.join(work, '.orchestration'));
    fs.writeFileSync(path.join(work, '.orchestration', 'active_intents.yaml'), INTENTS);
    fs.mkdirSync(path.join(work, 'build'));
    fs.writeFileSync(path.join(work, 'build', 'out.o'), 'object\n');
  },
  reply(ctx) {
    if (ctx.isSubagent) return 'unexpected subagent';
    const n = t.allToolUses(ctx).length;
    if (n < STEPS.length) return [STEPS[n].call()];
    return 'The helper is moved; removing build/ needs your approval.';
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const version = process.env.ROZ_E2E_CLAUDE_VERSION || '';
    const work = path.join(run.dir, 'work');
    const sid = t.mainSessionId(run);

    // the briefing of SessionStart reached the model before its first move
    const first = t.requests(run, 'main')[0].ctx;
    const briefing = first.system + '\n' + first.allText;
    for (const w of ['Changes in this repository are governed by intent', 'roz intent select', 'INT-001']) {
      if (!briefing.includes(w)) t.fail(`the first request lacks the SessionStart briefing's ${JSON.stringify(w)}`);
    }
    t.expectAnswers(run, 'session-start', ['context'], 'the governed session started');
    t.expectAnswers(run, 'user-prompt', ['context'], 'a prompt while no intent is selected');

    const calls = t.callsOf(run);
    if (calls.length !== STEPS.length) t.fail(`the model made ${calls.length} tool calls, expected ${STEPS.length} (${calls.map((c) => c.name).join(', ')})`);
    const at = (name) => calls[STEPS.findIndex((s) => s.name === name)];
    // roz's PreToolUse answer to one tool call, or null when roz was not asked
    const pre = (call) => {
      const c = t.hookCalls(run, 'pre-tool-use').filter((h) => h.input && h.input.tool_use_id === call.id);
      if (c.length > 1) t.fail(`roz's PreToolUse ran ${c.length} times for ${call.name} ${call.id}`);
      return c.length ? t.answerOf(c[0]) : null;
    };
    const expectPre = (name, want) => {
      const got = pre(at(name));
      if (got !== want) t.fail(`${name}: roz's PreToolUse answered ${got || 'nothing (not called)'}, expected ${want}`);
    };
    const aFile = path.join(work, A);

    // 1. a change before selecting: denied, the choices named, the DRAFT one not offered
    let c = at('write before selecting');
    expectText('write before selecting', c, ['roz: INTENT_REQUIRED:', 'roz intent select', 'INT-001 (JWT Authentication Migration)'], { error: true });
    if (/INT-002/.test(c.result.text.split('\n')[0])) t.fail(`write before selecting: the refusal offers the DRAFT INT-002: ${c.result.text.split('\n')[0]}`);
    expectPre('write before selecting', 'deny');

    // 2. the handshake: the tool's output is the intent's context, scope included
    c = at('select');
    expectText('select', c, ['<intent_context>', 'id="INT-001"', '<path>src/auth/**</path>', 'Must not use external auth providers'], { error: false });
    expectPre('select', 'allow');
    const select = t.cliCalls(run, 'intent');
    if (select.length !== 1 || select[0].rc !== 0) t.fail(`roz intent select: ${select.length} call(s), rc [${select.map((x) => x.rc)}], stderr ${select.map((x) => x.stderr).join(' ')}`);

    // 3. a change in scope goes through
    expectText('write in scope', at('write in scope'), ['File created successfully'], { error: false });
    expectPre('write in scope', 'allow');

    // 4. a change out of scope is denied, naming the path and the scope
    expectText('write out of scope', at('write out of scope'), ['roz: SCOPE_VIOLATION:', B, 'src/auth/**'], { error: true });
    expectPre('write out of scope', 'deny');
    if (fs.existsSync(path.join(work, B))) t.fail(`${B} exists: the out-of-scope Write ran`);

    // 5. a parallel change with a new mtime: the Edit is refused as stale
    const writes = fs.existsSync(path.join(run.dir, 'parallel-writes.jsonl'))
      ? run.read('parallel-writes.jsonl').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
    if (writes.length !== 2) t.fail(`the parallel writer wrote ${writes.length} times, expected 2`);
    const readPost = t.hookCalls(run, 'post-tool-use').filter((h) => h.input && h.input.tool_use_id === at('read').id);
    if (readPost.length !== 1) t.fail(`roz's PostToolUse ran ${readPost.length} times for the first Read, expected once`);
    if (!(readPost[0].end <= writes[0].at)) t.fail('the parallel write came before roz had recorded the Read: the test proves nothing');
    c = at('edit after a parallel change');
    if (STALE_FIRST.has(version)) {
      expectText('edit after a parallel change', c, ['File has been modified since read'], { error: true });
      expectPre('edit after a parallel change', null);
    } else {
      expectText('edit after a parallel change', c, ['roz: STALE_FILE:', A, 'Read it again'], { error: true });
      expectPre('edit after a parallel change', 'deny');
    }
    expectText('read again', at('read again'), ['fromElsewhere = 1'], { error: false });
    expectText('edit after reading again', at('edit after reading again'), ['has been updated successfully'], { error: false });
    expectPre('edit after reading again', 'allow');
    // the session's own write is not someone else's change
    expectText('edit on its own write', at('edit on its own write'), ['has been updated successfully'], { error: false });
    expectPre('edit on its own write', 'allow');

    // 6. a parallel change that keeps an old mtime: roz's content hash sees it on every release
    expectText('edit after a change that keeps an old mtime', at('edit after a change that keeps an old mtime'), ['roz: STALE_FILE:', A], { error: true });
    expectPre('edit after a change that keeps an old mtime', 'deny');
    expectText('edit after reading a third time', at('edit after reading a third time'), ['has been updated successfully'], { error: false });
    const content = fs.readFileSync(aFile, 'utf8');
    if (content !== FINAL) t.fail(`${A} holds ${JSON.stringify(content)}, expected ${JSON.stringify(FINAL)} (a parallel change was lost, or a refused Edit ran)`);

    // 7. rm -rf build: roz asks; Claude Code, with nobody to ask, refuses it
    c = at('rm -rf build');
    expectText('rm -rf build', c, ['roz: DESTRUCTIVE_BLOCKED:', RM], { error: true });
    expectPre('rm -rf build', 'ask');
    if (!fs.existsSync(path.join(work, 'build', 'out.o'))) t.fail('build/out.o is gone: `rm -rf build` ran although roz asked');
    const result = run.stream.find((e) => e.type === 'result') || {};
    const denied = (result.permission_denials || []).map((d) => d.tool_use_id);
    if (!denied.includes(c.id)) t.fail(`the result's permission_denials do not list the rm -rf call (${JSON.stringify(result.permission_denials || null).slice(0, 300)})`);
    const event = run.stream.find((e) => e.type === 'system' && e.subtype === 'permission_denied' && e.tool_use_id === c.id);
    if (event && event.decision_reason_type !== 'hook') t.fail(`the permission_denied event gives decision_reason_type ${event.decision_reason_type}, expected hook`);

    // the session's record: the selection, and each refusal in order
    const s = t.loadSession(run, sid);
    if (!s.governance || s.governance.intent_id !== 'INT-001') t.fail(`the session's governance state names intent ${JSON.stringify(s.governance && s.governance.intent_id)}, expected INT-001`);
    t.expectTrace(s, { intent_selected: 1 });
    const refused = (s.trace || []).filter((e) => e.event_type === 'governance_refused')
      .map((e) => `${e.payload.code}/${e.payload.decision}`);
    const want = ['INTENT_REQUIRED/deny', 'SCOPE_VIOLATION/deny', ...(STALE_FIRST.has(version) ? [] : ['STALE_FILE/deny']),
      'STALE_FILE/deny', 'DESTRUCTIVE_BLOCKED/ask'];
    if (JSON.stringify(refused) !== JSON.stringify(want)) t.fail(`the trace's refusals are [${refused.join(', ')}], expected [${want.join(', ')}]`);
    t.expectAnswers(run, 'stop', ['allow'], 'governance never blocks a stop');
    t.commonChecks(run);
  },
};
