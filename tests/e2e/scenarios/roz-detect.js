// roz, detection in a repository that declares intents (INT-001 owns
// src/auth/**): a change the command line does not show is caught from the
// working tree. One prompt, one tool call per model turn:
//
//   1. Bash `roz intent select INT-001`
//   2. Write src/auth/gen.sh (in scope): a script that writes
//      src/auth/gen.ts (in scope, two lines), changes one line of the
//      committed src/auth/session.ts in place (sed -i) and writes
//      docs/new.md (out of scope)
//   3. Bash `sh src/auth/gen.sh`: the line names no target, so prevention
//      lets it run; detection's PostToolUse answer blocks, naming
//      docs/new.md and how to undo it, and the model is told
//   4. the model ends its turn: roz holds the stop, naming docs/new.md
//   5. Bash `rm docs/new.md` (out of scope, but undoing a standing change is
//      allowed); the model ends its turn again: the stop goes through
//
// The ledger holds the script's in-scope files as a Bash record: gen.ts with
// its two lines, session.ts with the one line the script changed (not the
// whole file), and nothing of docs/new.md.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const t = require('../lib/roz-e2e.js');

const INTENTS = `active_intents:
  - id: INT-001
    name: JWT Authentication Migration
    status: IN_PROGRESS
    owned_scope: ["src/auth/**"]
`;

const GEN = 'export const gen = 1;\nexport const more = 2;\n';
const SESSION = 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\n';
const SESSION_AFTER = SESSION.replace('b = 2', 'b = 20');
const SCRIPT = `printf 'export const gen = 1;\\nexport const more = 2;\\n' > src/auth/gen.ts\n` +
  `sed -i 's/b = 2;/b = 20;/' src/auth/session.ts\n` +
  `printf 'notes\\n' > docs/new.md\n`;
const OUT = 'docs/new.md';

const STEPS = [
  { name: 'select', call: () => t.bash('roz intent select INT-001', 'Select the intent the task belongs to') },
  { name: 'write the script', call: () => t.write('src/auth/gen.sh', SCRIPT) },
  { name: 'run the script', call: () => t.bash('sh src/auth/gen.sh', 'Run the generator') },
];

module.exports = {
  prompt: 'Generate src/auth/gen.ts with the generator script',
  setup({ work }) {
    fs.mkdirSync(path.join(work, '.orchestration'));
    fs.writeFileSync(path.join(work, '.orchestration', 'active_intents.yaml'), INTENTS);
    fs.mkdirSync(path.join(work, 'src', 'auth'), { recursive: true });
    fs.mkdirSync(path.join(work, 'docs'));
    fs.writeFileSync(path.join(work, 'docs', 'README.md'), 'docs\n');
    fs.writeFileSync(path.join(work, 'src', 'auth', 'session.ts'), SESSION);
    t.git(work, 'add', '-A');
    t.git(work, '-c', 'user.name=e2e', '-c', 'user.email=e2e@example.invalid', '-c', 'commit.gpgsign=false',
      'commit', '-q', '-m', 'the project before the task');
  },
  reply(ctx) {
    if (ctx.isSubagent) return 'unexpected subagent';
    const n = t.allToolUses(ctx).length;
    if (n < STEPS.length) return [STEPS[n].call()];
    if (n === STEPS.length) {
      if (t.isFeedback(ctx)) return [t.bash(`rm ${OUT}`, 'Undo the change outside the intent')];
      return 'The generator ran.';
    }
    return `Removed ${OUT}; src/auth/gen.ts stays.`;
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const work = path.join(run.dir, 'work');
    const sid = t.mainSessionId(run);
    const calls = t.callsOf(run);
    if (calls.length !== STEPS.length + 1) t.fail(`the model made ${calls.length} tool calls, expected ${STEPS.length + 1} (${calls.map((c) => c.name).join(', ')})`);
    const post = (call) => {
      const c = t.hookCalls(run, 'post-tool-use').filter((h) => h.input && h.input.tool_use_id === call.id);
      if (c.length !== 1) t.fail(`roz's PostToolUse ran ${c.length} times for ${call.name} ${call.id}`);
      return c[0];
    };
    const pre = (call) => t.hookCalls(run, 'pre-tool-use').filter((h) => h.input && h.input.tool_use_id === call.id).map(t.answerOf);

    // 3. the script ran (prevention saw nothing to refuse), detection told the model at once
    const script = calls[2];
    if (JSON.stringify(pre(script)) !== '["allow"]') t.fail(`running the script: roz's PreToolUse answered ${JSON.stringify(pre(script))}, expected allow`);
    const told = post(script);
    if (t.answerOf(told) !== 'block') t.fail(`running the script: roz's PostToolUse answered ${t.answerOf(told)}, expected block`);
    const reason = (told.output && told.output.reason) || '';
    for (const w of [`${OUT}: created`, 'owned_scope', `remove ${OUT}`, 'roz intent accept']) {
      if (!reason.includes(w)) t.fail(`the PostToolUse answer lacks ${JSON.stringify(w)}: ${JSON.stringify(reason.slice(0, 300))}`);
    }
    if (reason.includes('src/auth/gen.ts') || reason.includes('src/auth/session.ts')) t.fail('the PostToolUse answer names an in-scope file as a violation');
    const main = t.requests(run, 'main');
    const after = main.find((r) => r.ctx.allText.includes(`${OUT}: created`));
    if (!after) t.fail('no request to the model carries roz\'s PostToolUse reason');

    // 4. the stop is held, naming the file; 5. undone, the stop goes through
    t.expectAnswers(run, 'stop', ['block', 'allow'], 'a change outside the intent holds the stop until undone');
    const held = t.hookCalls(run, 'stop')[0];
    if (!((held.output && held.output.reason) || '').includes(OUT)) t.fail(`the held stop does not name ${OUT}`);
    const undo = calls[3];
    if (undo.name !== 'Bash' || undo.input.command !== `rm ${OUT}`) t.fail(`the fourth call is ${undo.name} ${JSON.stringify(undo.input)}, expected the rm`);
    if (JSON.stringify(pre(undo)) !== '["allow"]') t.fail(`undoing: roz's PreToolUse answered ${JSON.stringify(pre(undo))}, expected allow`);
    if (fs.existsSync(path.join(work, OUT))) t.fail(`${OUT} still exists`);
    const gen = path.join(work, 'src', 'auth', 'gen.ts');
    if (!fs.existsSync(gen) || fs.readFileSync(gen, 'utf8') !== GEN) t.fail('src/auth/gen.ts is not what the script wrote');
    if (fs.readFileSync(path.join(work, 'src', 'auth', 'session.ts'), 'utf8') !== SESSION_AFTER) t.fail('src/auth/session.ts is not what the script made it');

    // the session's record: the violation detected, then gone
    const s = t.loadSession(run, sid);
    const detected = (s.trace || []).filter((e) => e.event_type === 'governance_refused' && e.payload.decision === 'detected');
    if (detected.length !== 1 || detected[0].payload.path !== OUT || detected[0].payload.code !== 'SCOPE_VIOLATION') {
      t.fail(`the trace's detections are ${JSON.stringify(detected.map((e) => e.payload))}, expected one SCOPE_VIOLATION of ${OUT}`);
    }
    if (s.governance && (s.governance.violations || []).length) t.fail(`the session still keeps violations: ${JSON.stringify(s.governance.violations)}`);

    // the ledger: the script's in-scope files, recorded from the tree, with the lines each really changed
    const ledger = fs.readFileSync(path.join(work, '.orchestration', 'agent_trace.jsonl'), 'utf8')
      .split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const bashRecs = ledger.filter((r) => r.metadata && r.metadata.roz && r.metadata.roz.tool_name === 'Bash');
    const files = bashRecs.flatMap((r) => r.files.map((f) => f.path));
    if (JSON.stringify(files.slice().sort()) !== JSON.stringify(['src/auth/gen.ts', 'src/auth/session.ts'])) {
      t.fail(`the ledger's Bash records name ${JSON.stringify(files)}, expected src/auth/gen.ts and src/auth/session.ts`);
    }
    const rangesOf = (p) => bashRecs.flatMap((r) => r.files.filter((f) => f.path === p)).flatMap((f) => f.conversations[0].ranges);
    const sha = (text) => `sha256:${crypto.createHash('sha256').update(text).digest('hex')}`;
    const want = {
      'src/auth/gen.ts': [{ start_line: 1, end_line: 2, content_hash: sha(GEN.trimEnd()) }],
      // a committed line the script rewrote in place: mixed, with the model that rewrote it
      'src/auth/session.ts': [{ start_line: 2, end_line: 2, content_hash: sha('export const b = 20;'),
        contributor: { type: 'mixed', model_id: t.recordModel(run, sid) } }],
    };
    for (const [p, w] of Object.entries(want)) {
      const got = rangesOf(p);
      if (JSON.stringify(got) !== JSON.stringify(w)) t.fail(`the ledger's ranges of ${p} are ${JSON.stringify(got)}, expected ${JSON.stringify(w)}`);
    }
    if (ledger.some((r) => r.files.some((f) => f.path === OUT))) t.fail(`the ledger records ${OUT}`);
    t.commonChecks(run);
  },
};
