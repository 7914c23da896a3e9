// roz, three reviewed tasks in one Claude Code session: `claude -p` takes one
// prompt per run, so the second and third prompts are new runs with
// `--resume <session>` (same session id, SessionStart source "resume").
// Every task's first stop must be blocked and reviewed: block counts belong
// to one review cycle (difference 8), so the third task must not trip the
// circuit breaker and slip through unreviewed. In stream-json mode the three
// prompts go to one process, each once the previous task is idle.
// make({background}) builds the variants.
'use strict';
const t = require('../lib/roz-e2e.js');

const taskOf = (text) => { const m = text.match(/#roz task (\d+)/); return m ? Number(m[1]) : 0; };

// the task number of the latest user prompt of the conversation
function currentTask(ctx) {
  let n = 0;
  for (const m of ctx.messages) {
    if (m.role !== 'user') continue;
    const text = (Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }])
      .filter((b) => b.type === 'text').map((b) => b.text).join('\n');
    if (!t.FEEDBACK_RE.test(text) && taskOf(text)) n = taskOf(text);
  }
  return n;
}

function make({ background } = {}) {
  return {
  prompts: ['#roz task 1: write task-1.txt', '#roz task 2: write task-2.txt', '#roz task 3: write task-3.txt'],
  reply(ctx) {
    if (t.isReviewer(ctx)) return t.reviewer(ctx);
    if (ctx.isSubagent) return 'unexpected subagent';
    const n = currentTask(ctx);
    if (t.isNewPrompt(ctx)) return [t.write(`task-${n}.txt`, `task ${n}\n`)];
    const wait = t.waitForReviewer(ctx);
    if (wait) return wait;
    if (t.isFeedback(ctx)) {
      if (!t.sidOf(ctx)) return 'The stop hook feedback carried no SESSION_ID.';
      return t.spawnReviewerOnce(ctx, t.sidOf(ctx), { round: t.agentCalls(ctx).length + 1, background, what: `task ${n}` });
    }
    return `Task ${n} is done.`;
  },
  check(run) {
    t.expectRunsSucceeded(run, 3);
    const sid = t.mainSessionId(run);
    run.streams.forEach((s, i) => {
      const init = s.find((e) => e.type === 'system' && e.subtype === 'init');
      if (!init || init.session_id !== sid) t.fail(`run ${i + 1} has session ${init && init.session_id}, expected the resumed ${sid}`);
    });
    for (let r = 1; r <= 3; r++) {
      const stops = t.answers(run, 'stop', (c) => c.run === r);
      if (stops[0] !== 'block') t.fail(`task ${r}: its first stop was not blocked (roz answered [${stops.join(', ')}]); the task went unreviewed`);
      if (stops.filter((a) => a === 'block').length !== 1 || stops[stops.length - 1] !== 'allow') t.fail(`task ${r}: roz answered the stops [${stops.join(', ')}], expected one block, then allows (waits while the reviewer worked, the last after its verdict)`);
      const fed = run.streams[r - 1].filter((e) => e.type === 'user' && t.FEEDBACK_RE.test(JSON.stringify(e.message)));
      if (fed.length !== 1) t.fail(`task ${r}: ${fed.length} Stop hook feedback messages in its stream, expected 1`);
      const decides = t.cliCalls(run, 'decide').filter((c) => c.run === r && c.rc === 0);
      if (decides.length !== 1) t.fail(`task ${r}: ${decides.length} successful roz decide calls, expected 1`);
    }
    const s = t.loadSession(run, sid);
    if (s.review.circuit_breaker_tripped) t.fail('the circuit breaker tripped during three reviewed tasks');
    const outcomes = (s.review.attempts || []).map((a) => `${a.outcome.type}/${a.outcome.decision_type || '-'}`);
    if (JSON.stringify(outcomes) !== JSON.stringify(['success/complete', 'success/complete', 'success/complete'])) {
      t.fail(`attempt outcomes [${outcomes}], expected three review cycles ending success/complete`);
    }
    if ((s.review.user_prompts || []).length !== 3) t.fail(`stored prompts: ${JSON.stringify(s.review.user_prompts)}, expected the three #roz prompts`);
    if (s.review.decision.type !== 'complete') t.fail(`final decision ${s.review.decision.type}, expected complete`);
    const m = t.metrics(run);
    const streamJson = process.env.ROZ_E2E_MODE === 'stream-json';
    // one process in stream-json mode: one SessionStart and one SessionEnd
    t.expectTrace(s, { prompt_received: 3, stop_hook_called: 6 + m.waits, roz_decision: 3, session_start: 1, session_end: streamJson ? 1 : 3 });
    if (m.reviewers !== 3 || m.stop_blocks !== 3) t.fail(`${m.reviewers} reviewers and ${m.stop_blocks} blocks, expected 3 and 3`);
    t.commonChecks(run);
  },
  };
}

module.exports = make();
module.exports.make = make;
