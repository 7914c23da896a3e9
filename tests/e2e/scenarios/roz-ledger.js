// roz, the record of a governed session: every write lands in the ledger
// (.orchestration/agent_trace.jsonl) with the hashes of the lines it wrote,
// `roz ledger verify` tells whether the code still matches, and the
// reviewer's ISSUES become a lesson in .orchestration/CLAUDE.md.
//
// A repository whose .orchestration/active_intents.yaml has INT-001
// IN_PROGRESS owning src/**; one `#roz` prompt, one tool call per turn:
//
//   1. Bash `roz intent select INT-001`
//   2. Write src/a.ts (10 lines)                 -> record 1: lines 1-10
//   3. Edit src/a.ts, lines 5-6 replaced         -> record 2: lines 5-6, where new_string landed,
//                                                   mixed (lines that were there, rewritten)
//   4. Write src/b.ts (8 lines)                  -> record 3: lines 1-8
//   5. Bash `roz ledger verify --json --all`     -> exit 0: the Edit's and b.ts's ranges intact,
//                                                   the Write of a.ts superseded by the Edit
//   6. a parallel writer cuts the Edit's two lines and pastes them at the
//      end of a.ts; `roz ledger verify --json`   -> exit 0: that range moved to lines 9-10
//   7. a parallel writer changes line 2 of b.ts; `roz ledger verify --json
//      --all --strict`                          -> exit 1: b.ts's range edited (by a person),
//                                                   which fails the run under --strict only
//   8. the stop is blocked for review; the roz:roz reviewer reads
//      `roz context` (the intent and the session's recorded changes) and
//      records ISSUES with a --message        -> one dated line under [INT-001] in
//                                                .orchestration/CLAUDE.md
//   9. the agent asks for a second review, which approves; the stop passes.
//
// check() then reads the ledger itself: three Agent Trace 0.1 records, each
// one JSON line, path relative, the session's id and INT-001 in them, the
// git HEAD as revision, and content hashes equal to the sha256 of the exact
// lines computed here (joined by "\n", without terminators).
//
// The moved block is the Edit's range: a Write's range is its whole file,
// so reordering lines inside src/b.ts leaves no window of the file with the
// recorded hash, and verify rightly calls that range edited.
//
// The parallel writer is the fake model's own process (reply() runs after
// Claude Code has sent the previous tool's result, so after its PostToolUse
// hook, and before it gets the next call), as another editor would be: the
// session's hooks never see those changes, so the ledger still holds
// exactly the three records of the agent's writes.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const t = require('../lib/roz-e2e.js');

const INTENTS = `active_intents:
  - id: INT-001
    name: Ledger demo
    status: IN_PROGRESS
    owned_scope: ["src/**"]
    constraints: ["Keep every export named"]
    acceptance_criteria: ["b.ts exports b1 to b8"]
`;

const A = 'src/a.ts';
const B = 'src/b.ts';
const A_LINES = Array.from({ length: 10 }, (_, i) => `export const a${i + 1} = ${i + 1};`);
const EDIT_OLD = A_LINES.slice(4, 6).join('\n');
const EDIT_LINES = ['export const a5 = 50;', 'export const a6 = 60;'];
const B_LINES = Array.from({ length: 8 }, (_, i) => `export function b${i + 1}() { return ${i + 1}; }`);
const B_CHANGED = 'export function b2() { return 22; }';
const UNIQUE = 'LESSON-5c1e: b.ts was changed outside the session; its ledger range no longer verifies';
const VERIFY = 'roz ledger verify --json --all';
const VERIFY_STRICT = 'roz ledger verify --json --all --strict';

const text = (lines) => `${lines.join('\n')}\n`;
const sha = (lines) => `sha256:${crypto.createHash('sha256').update(lines.join('\n')).digest('hex')}`;
const AFTER_EDIT = [...A_LINES.slice(0, 4), ...EDIT_LINES, ...A_LINES.slice(6)];
const AFTER_MOVE = [...A_LINES.slice(0, 4), ...A_LINES.slice(6), ...EDIT_LINES];

// The parallel writer: rewrite a file from `from` to `to` unless it holds
// `to` already (a retried request must not write twice); logged for check().
function parallelWrite(name, from, to) {
  const f = t.workPath(name);
  const now = fs.readFileSync(f, 'utf8');
  if (now === text(to)) return;
  if (now !== text(from)) throw new Error(`parallel writer: ${name} is not as the session left it: ${JSON.stringify(now)}`);
  fs.writeFileSync(f, text(to));
  const log = path.join(process.env.ROZ_E2E_RESULTS, 'parallel-writes.jsonl');
  fs.appendFileSync(log, `${JSON.stringify({ name, at: Date.now() })}\n`);
}

const STEPS = [
  { name: 'select', call: () => t.bash('roz intent select INT-001', 'Select the intent the task belongs to') },
  { name: 'write a', call: () => t.write(A, text(A_LINES)) },
  { name: 'edit a', call: () => ({ type: 'tool_use', name: 'Edit', input: { file_path: t.workPath(A), old_string: EDIT_OLD, new_string: EDIT_LINES.join('\n') } }) },
  { name: 'write b', call: () => t.write(B, text(B_LINES)) },
  { name: 'verify intact', call: () => t.bash(VERIFY, 'Check the ledger against the code') },
  {
    name: 'verify moved',
    call: () => { parallelWrite(A, AFTER_EDIT, AFTER_MOVE); return t.bash(VERIFY, 'Check the ledger after the block moved'); },
  },
  {
    name: 'verify changed',
    call: () => {
      parallelWrite(B, B_LINES, [B_LINES[0], B_CHANGED, ...B_LINES.slice(2)]);
      return t.bash(VERIFY_STRICT, 'Check the ledger strictly after b.ts changed');
    },
  },
];

// The n-th `roz ledger verify` run by the Bash tool: its exit status and parsed report.
function verifyRun(run, n, label) {
  const calls = t.cliCalls(run, 'ledger');
  if (calls.length < n + 1) t.fail(`${label}: roz ledger verify ran ${calls.length} time(s), expected a run #${n + 1}`);
  const c = calls[n];
  let report;
  try { report = JSON.parse(c.stdout); } catch (e) {
    t.fail(`${label}: roz ledger verify --json printed no JSON (${e.message}): ${JSON.stringify(c.stdout.slice(0, 300))}; stderr ${c.stderr.slice(0, 200)}`);
  }
  return { rc: c.rc, report };
}

// The items of a report as "state path start-end [-> start-end]", sorted.
function itemsOf(report) {
  return (report.items || []).map((i) => `${i.state} ${i.path} ${i.start_line}-${i.end_line}` +
    (i.moved_to ? ` -> ${i.moved_to.path} ${i.moved_to.start_line}-${i.moved_to.end_line}` : '')).sort();
}

function expectVerify(run, n, label, { rc, items, counts }) {
  const v = verifyRun(run, n, label);
  if (v.rc !== rc) t.fail(`${label}: roz ledger verify exited ${v.rc}, expected ${rc}; stdout ${v.report ? JSON.stringify(v.report.summary) : ''}`);
  const got = itemsOf(v.report);
  if (JSON.stringify(got) !== JSON.stringify([...items].sort())) t.fail(`${label}: verify reports [${got.join('; ')}], expected [${[...items].sort().join('; ')}]`);
  const s = v.report.summary || {};
  for (const [k, want] of Object.entries(counts)) {
    if (s[k] !== want) t.fail(`${label}: verify's summary has ${k} ${JSON.stringify(s[k])}, expected ${JSON.stringify(want)} (${JSON.stringify(s)})`);
  }
  for (const i of v.report.items) {
    if (i.intent_id !== 'INT-001') t.fail(`${label}: the item for ${i.path} ${i.start_line}-${i.end_line} names intent ${JSON.stringify(i.intent_id)}`);
  }
  return v;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

// One ledger record as the session must have written it.
// A path as roz names it in a file:// URL: every byte but [A-Za-z0-9._~/-] percent-encoded.
function fileUrl(p) {
  return 'file://' + [...Buffer.from(p, 'utf8')].map((b) => {
    const c = String.fromCharCode(b);
    return /[A-Za-z0-9._~/-]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

function expectRecord(rec, i, { sid, transcript, revision, model, tool, file, ranges }) {
  const at = `ledger record ${i + 1} (${tool} ${file})`;
  if (rec.version !== '0.1.0') t.fail(`${at}: version ${JSON.stringify(rec.version)}, expected "0.1.0"`);
  if (!UUID_RE.test(rec.id || '')) t.fail(`${at}: id ${JSON.stringify(rec.id)} is not a UUID`);
  if (!RFC3339_RE.test(rec.timestamp || '')) t.fail(`${at}: timestamp ${JSON.stringify(rec.timestamp)} is not RFC 3339`);
  if (!rec.vcs || rec.vcs.type !== 'git' || rec.vcs.revision !== revision) t.fail(`${at}: vcs ${JSON.stringify(rec.vcs)}, expected git at ${revision}`);
  if (!rec.tool || rec.tool.name !== 'roz' || !rec.tool.version) t.fail(`${at}: tool ${JSON.stringify(rec.tool)}, expected roz with its version`);
  if (!Array.isArray(rec.files) || rec.files.length !== 1) t.fail(`${at}: ${JSON.stringify(rec.files).slice(0, 200)} is not one file`);
  const f = rec.files[0];
  if (f.path !== file) t.fail(`${at}: path ${JSON.stringify(f.path)}, expected ${JSON.stringify(file)} (relative to the repository)`);
  if (!Array.isArray(f.conversations) || f.conversations.length !== 1) t.fail(`${at}: expected one conversation, got ${JSON.stringify(f.conversations).slice(0, 200)}`);
  const c = f.conversations[0];
  // the conversation: the session's transcript, as a file:// URL
  const url = transcript ? fileUrl(transcript) : `urn:claude-code:session:${sid}`;
  if (c.url !== url) t.fail(`${at}: conversation url ${JSON.stringify(c.url)}, expected ${JSON.stringify(url)}`);
  if (!c.contributor || c.contributor.type !== 'ai') t.fail(`${at}: contributor ${JSON.stringify(c.contributor)}, expected type ai`);
  // model_id: what SessionStart named, else what the transcript names
  if (c.contributor.model_id !== model) t.fail(`${at}: model_id ${JSON.stringify(c.contributor.model_id)}, expected ${JSON.stringify(model)}`);
  const rel = (c.related || []).filter((r) => r.type === 'specification' && r.url === 'urn:roz:intent:INT-001');
  if (rel.length !== 1) t.fail(`${at}: related ${JSON.stringify(c.related)} does not name INT-001 as the specification`);
  const got = JSON.stringify(c.ranges);
  if (got !== JSON.stringify(ranges)) t.fail(`${at}: ranges ${got}, expected ${JSON.stringify(ranges)}`);
  const m = rec.metadata && rec.metadata.roz;
  if (!m) t.fail(`${at}: no metadata.roz`);
  if (m.intent_id !== 'INT-001' || m.session_id !== sid || m.tool_name !== tool || m.mutation_class !== 'INTENT_EVOLUTION') {
    t.fail(`${at}: metadata.roz ${JSON.stringify(m)}, expected INT-001, session ${sid}, ${tool}, INTENT_EVOLUTION`);
  }
}

module.exports = {
  prompt: '#roz add src/a.ts and src/b.ts, then check the ledger',
  setup({ work }) {
    fs.mkdirSync(path.join(work, '.orchestration'));
    fs.writeFileSync(path.join(work, '.orchestration', 'active_intents.yaml'), INTENTS);
    fs.mkdirSync(path.join(work, 'src'));
  },
  reply(ctx) {
    if (t.isReviewer(ctx)) {
      return t.reviewer(ctx, {
        verdict: (c) => (t.reviewRound(c) === 1
          ? { verdict: 'ISSUES', summary: 'b.ts no longer matches its record', message: UNIQUE }
          : { verdict: 'COMPLETE', summary: 'the record is explained' }),
      });
    }
    if (ctx.isSubagent) return 'unexpected subagent';
    const n = t.allToolUses(ctx).length;
    if (n < STEPS.length) return [STEPS[n].call()];
    const wait = t.waitForReviewer(ctx);
    if (wait) return wait;
    if (t.isFeedback(ctx)) {
      if (!t.sidOf(ctx)) return 'The stop hook feedback carried no SESSION_ID.';
      return t.spawnReviewerOnce(ctx, t.sidOf(ctx), { round: t.agentCalls(ctx).length + 1, what: 'add src/a.ts and src/b.ts' });
    }
    return 'Done: src/a.ts and src/b.ts are written and recorded.';
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const work = path.join(run.dir, 'work');
    const sid = t.mainSessionId(run);
    const revision = t.git(work, 'rev-parse', 'HEAD').trim();
    const start = t.hookCalls(run, 'session-start').find((h) => h.input && h.input.session_id === sid);
    const transcript = start && start.input.transcript_path;
    // SessionStart's model without its context-size tag, else the transcript's (-p names none to the hooks)
    const model = t.recordModel(run, sid);
    if (!model) t.fail('neither SessionStart nor the transcript names the model');
    // the Edit rewrote lines that were there: its range is mixed, with the model that rewrote them
    const mixed = { type: 'mixed', model_id: model };

    const calls = t.callsOf(run).filter((c) => c.name !== 'Agent');
    if (calls.length !== STEPS.length) t.fail(`the main agent made ${calls.length} tool calls besides Agent, expected ${STEPS.length} (${calls.map((c) => c.name).join(', ')})`);
    const at = (name) => calls[STEPS.findIndex((s) => s.name === name)];
    for (const name of ['select', 'write a', 'edit a', 'write b']) {
      const c = at(name);
      if (!c.result || c.result.isError) t.fail(`${name}: the tool failed: ${JSON.stringify(c.result && c.result.text.slice(0, 300))}`);
    }

    // the ledger: three records, one JSON line each, with the hashes of the exact lines
    const ledgerFile = path.join(work, '.orchestration', 'agent_trace.jsonl');
    if (!fs.existsSync(ledgerFile)) t.fail('no .orchestration/agent_trace.jsonl: the writes were not recorded');
    const raw = fs.readFileSync(ledgerFile, 'utf8');
    if (!raw.endsWith('\n')) t.fail('the ledger does not end with a newline');
    const lines = raw.split('\n').slice(0, -1);
    if (lines.length !== 3) t.fail(`the ledger holds ${lines.length} lines, expected 3 (one per write): ${raw.slice(0, 600)}`);
    const recs = lines.map((l, i) => {
      try { return JSON.parse(l); } catch (e) { return t.fail(`ledger line ${i + 1} is not JSON (${e.message}): ${l.slice(0, 200)}`); }
    });
    expectRecord(recs[0], 0, { sid, transcript, revision, model, tool: 'Write', file: A, ranges: [{ start_line: 1, end_line: 10, content_hash: sha(A_LINES) }] });
    expectRecord(recs[1], 1, { sid, transcript, revision, model, tool: 'Edit', file: A, ranges: [{ start_line: 5, end_line: 6, content_hash: sha(EDIT_LINES), contributor: mixed }] });
    expectRecord(recs[2], 2, { sid, transcript, revision, model, tool: 'Write', file: B, ranges: [{ start_line: 1, end_line: 8, content_hash: sha(B_LINES) }] });
    if (new Set(recs.map((r) => r.id)).size !== 3) t.fail('two ledger records share an id');
    // one record per write, appended by the write's own PostToolUse
    const posts = t.hookCalls(run, 'post-tool-use').filter((h) => h.input && ['Write', 'Edit'].includes(h.input.tool_name));
    if (posts.length !== 3) t.fail(`roz's PostToolUse ran ${posts.length} times for Write/Edit, expected 3`);
    for (const p of posts) if (p.stderr.trim()) t.fail(`PostToolUse of ${p.input.tool_name} warned: ${p.stderr.slice(0, 300)}`);

    // verify in the session: intact, then the moved block, then a changed line
    const writes = fs.existsSync(path.join(run.dir, 'parallel-writes.jsonl'))
      ? run.read('parallel-writes.jsonl').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
    if (writes.length !== 2) t.fail(`the parallel writer wrote ${writes.length} times, expected 2`);
    expectVerify(run, 0, 'verify after the writes', {
      rc: 0,
      items: [`superseded ${A} 1-10`, `intact ${A} 5-6`, `intact ${B} 1-8`],
      counts: { records: 3, ranges: 3, intact: 2, superseded: 1, moved: 0, edited: 0, missing: 0, bad_lines: 0, passed: true },
    });
    expectVerify(run, 1, 'verify after the block moved', {
      rc: 0,
      items: [`superseded ${A} 1-10`, `moved ${A} 5-6 -> ${A} 9-10`, `intact ${B} 1-8`],
      counts: { intact: 1, moved: 1, superseded: 1, edited: 0, missing: 0, passed: true },
    });
    // a person's edit is reported; under --strict it fails the run
    expectVerify(run, 2, 'verify --strict after b.ts changed', {
      rc: 1,
      items: [`superseded ${A} 1-10`, `moved ${A} 5-6 -> ${A} 9-10`, `edited ${B} 1-8`],
      counts: { intact: 0, moved: 1, edited: 1, superseded: 1, missing: 0, strict: true, passed: false },
    });
    // what the agent saw: a success, a success, a failed command
    if (at('verify intact').result.isError || at('verify moved').result.isError) t.fail('a passing roz ledger verify reached the agent as a failed command');
    if (!at('verify changed').result.isError) t.fail('roz ledger verify --strict with an edited range reached the agent as a success');
    // no verify run is a write: the ledger did not grow
    for (const name of ['verify intact', 'verify moved', 'verify changed']) {
      const pre = t.hookCalls(run, 'pre-tool-use').filter((h) => h.input && h.input.tool_use_id === at(name).id).map(t.answerOf);
      if (JSON.stringify(pre) !== '["allow"]') t.fail(`${name}: roz's PreToolUse answered [${pre}], expected [allow]`);
    }

    // the reviewer read the record, and its ISSUES became a lesson under INT-001
    const ctxCalls = t.cliCalls(run, 'context');
    if (!ctxCalls.length) t.fail('the reviewer never ran roz context');
    const shown = ctxCalls[0].stdout;
    for (const w of ['INT-001', 'Keep every export named', `${A}  lines 1-10`, `${A}  lines 5-6`, `${B}  lines 1-8`]) {
      if (!shown.includes(w)) t.fail(`roz context does not show ${JSON.stringify(w)}: ${JSON.stringify(shown.slice(0, 800))}`);
    }
    const decide = t.cliCalls(run, 'decide');
    if (decide.length !== 2 || decide.some((c) => c.rc !== 0)) t.fail(`roz decide: ${decide.length} calls, rc [${decide.map((c) => c.rc)}], stderr ${decide.map((c) => c.stderr).join(' ')}`);
    const lessonsFile = path.join(work, '.orchestration', 'CLAUDE.md');
    if (!fs.existsSync(lessonsFile)) t.fail('no .orchestration/CLAUDE.md: the ISSUES verdict did not become a lesson');
    const lessons = fs.readFileSync(lessonsFile, 'utf8').split('\n').filter((l) => l.includes(UNIQUE));
    if (lessons.length !== 1) t.fail(`.orchestration/CLAUDE.md holds the reviewer's message ${lessons.length} times, expected once: ${fs.readFileSync(lessonsFile, 'utf8').slice(0, 600)}`);
    const m = lessons[0].match(/^- (\d{4}-\d{2}-\d{2}) \[INT-001\] \(roz:roz review of ([^)]+)\): (.*)$/);
    if (!m || m[2] !== sid || m[3] !== UNIQUE) t.fail(`the lesson is ${JSON.stringify(lessons[0])}, expected "- <date> [INT-001] (roz:roz review of ${sid}): ${UNIQUE}"`);
    const day = (ms) => new Date(ms).toISOString().slice(0, 10);
    const when = decide[0];
    if (m[1] !== day(when.start) && m[1] !== day(when.end)) t.fail(`the lesson is dated ${m[1]}, the verdict was given on ${day(when.start)}`);
    // and the ISSUES reached the agent, which had the work reviewed again
    const fb = t.feedbackRequests(run, 'main').filter((r) => r.ctx.lastUserText.includes(UNIQUE));
    if (fb.length !== 1) t.fail(`the reviewer's message reached the main agent as stop feedback ${fb.length} times, expected once`);
    const s = t.loadSession(run, sid);
    if (!s.governance || s.governance.intent_id !== 'INT-001') t.fail(`the session names intent ${JSON.stringify(s.governance && s.governance.intent_id)}, expected INT-001`);
    const outcomes = (s.review.attempts || []).map((a) => `${a.outcome.type}/${a.outcome.decision_type || '-'}`);
    if (JSON.stringify(outcomes) !== JSON.stringify(['success/issues', 'success/complete'])) t.fail(`review attempts [${outcomes}], expected [success/issues, success/complete]`);
    if (s.review.decision.type !== 'complete') t.fail(`final decision ${JSON.stringify(s.review.decision)}, expected complete`);
    t.expectTrace(s, { intent_selected: 1, governance_refused: 0, record_failed: 0 });
    t.metrics(run);
    t.commonChecks(run);
  },
};
