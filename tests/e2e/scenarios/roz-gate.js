// roz, a gated tool call: with `tools = ["Bash:git push*"]` and
// approval_scope "prompt", `git push origin HEAD` is denied (the model gets an
// error tool_result carrying roz's reason and the SESSION_ID), the reviewer
// approves, the retried push really runs (to a bare remote in the results
// directory). A second user prompt (a second run, --resume) needs a new
// review: the push is gated again, reviewed, and then runs.
//
// With a background reviewer the agent ends its turn once the reviewer has
// started (roz lets the stop through: the push has not happened) and
// retries the push when the notification wakes it. make({background})
// builds the variants.
'use strict';
const path = require('path');
const t = require('../lib/roz-e2e.js');

const PUSH = 'git push origin HEAD';

function commitCmd(n) {
  return `echo "change ${n}" > change-${n}.txt && git add change-${n}.txt && git commit -q -m "change ${n}" && git log -1 --format=%s`;
}

function promptNumber(ctx) {
  let n = 0;
  for (const m of ctx.messages) {
    if (m.role !== 'user') continue;
    const text = (Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }])
      .filter((b) => b.type === 'text').map((b) => b.text).join('\n');
    const k = text.match(/PUSH_TASK=(\d+)/);
    if (k && !t.FEEDBACK_RE.test(text)) n = Number(k[1]);
  }
  return n;
}

function make({ background } = {}) {
  return {
  prompts: [
    'PUSH_TASK=1 commit change-1.txt and push it to origin',
    'PUSH_TASK=2 now commit change-2.txt and push that too',
  ],
  rozConfig: '[review.gates]\ntools = ["Bash:git push*"]\napproval_scope = "prompt"\n',
  setup: t.setupPushRemote,
  reply(ctx) {
    if (t.isReviewer(ctx)) return t.reviewer(ctx);
    if (ctx.isSubagent) return 'unexpected subagent';
    const n = promptNumber(ctx);
    if (t.isNewPrompt(ctx)) return [t.bash(commitCmd(n), `Commit change ${n}`)];
    const wait = t.waitForReviewer(ctx);
    if (wait) return wait;
    if (t.isFeedback(ctx)) {
      // not expected here (the gate review is done before the agent stops)
      return t.spawnReviewerOnce(ctx, t.sidOf(ctx), { round: t.agentCalls(ctx).length + 1, background, what: `push change ${n}` });
    }
    // the reviewer has reported back (foreground result or notification): push again
    if (t.reviewerReportedBack(ctx)) return [t.bash(PUSH, 'Push to origin again')];
    const last = t.lastCalls(ctx)[0];
    if (!last) return 'Nothing to do.';
    if (last.name === 'Bash' && last.input.command.startsWith('echo "change')) return [t.bash(PUSH, 'Push to origin')];
    if (last.name === 'Bash' && last.input.command === PUSH) {
      if (last.result && last.result.is_error && last.result.text.includes(t.GATE_MARK)) {
        const sid = t.sidOf(ctx);
        if (!sid) return 'The denial carried no SESSION_ID.';
        return t.spawnReviewerOnce(ctx, sid, { round: t.agentCalls(ctx).length + 1, background, what: `push change ${n}` });
      }
      return `Pushed change ${n}.`;
    }
    return `Done with change ${n}.`;
  },
  check(run) {
    t.expectRunsSucceeded(run, 2);
    const sid = t.mainSessionId(run);
    const pushes = t.hookCalls(run, 'pre-tool-use').filter((c) => c.input && c.input.tool_name === 'Bash' &&
      c.input.tool_input && c.input.tool_input.command === PUSH);
    const byRun = (r) => pushes.filter((c) => c.run === r).map(t.answerOf);
    for (const r of [1, 2]) {
      const got = byRun(r);
      if (got[0] !== 'deny') t.fail(`prompt ${r}: the first git push was not denied by roz (PreToolUse answers [${got.join(', ')}])` +
        (r === 2 ? '; the approval of prompt 1 leaked into prompt 2 (approval_scope "prompt")' : ''));
      if (JSON.stringify(got) !== '["deny","allow"]') t.fail(`prompt ${r}: PreToolUse answers for git push [${got.join(', ')}], expected [deny, allow]`);
    }
    // what the model saw for the denials
    const denials = t.requests(run, 'main').map((r) => r.ctx.toolResults).flat()
      .filter((tr) => tr.is_error && tr.text.includes(t.GATE_MARK));
    if (denials.length !== 2) t.fail(`the model saw ${denials.length} roz gate denials as error tool_results, expected 2`);
    for (const d of denials) {
      if (!d.text.includes(`SESSION_ID=${sid}`) || !d.text.includes('Bash:git push')) t.fail(`the denial lacks the SESSION_ID or the gated call: ${d.text.slice(0, 300)}`);
    }
    // the pushes really happened, after the reviews
    const remote = path.join(run.dir, 'remote.git');
    const log = t.git(run.dir, '--git-dir', remote, 'log', '--format=%s', 'main').trim().split('\n');
    if (JSON.stringify(log) !== JSON.stringify(['change 2', 'change 1', 'initial commit'])) t.fail(`the bare remote's main has [${log.join(', ')}], expected change 2, change 1, initial commit`);
    const ctxCalls = t.cliCalls(run, 'context');
    if (!ctxCalls.length || !ctxCalls[0].stdout.includes('git push')) t.fail(`roz context did not show the gated git push: ${ctxCalls.length ? ctxCalls[0].stdout.slice(0, 300) : 'never called'}`);
    for (const r of [1, 2]) {
      const stops = t.answers(run, 'stop', (c) => c.run === r);
      if (stops.some((a) => a !== 'allow')) t.fail(`prompt ${r}: a stop after the approved push was blocked ([${stops.join(', ')}])`);
    }
    const s = t.loadSession(run, sid);
    t.expectTrace(s, { gate_blocked: 2, gate_allowed: 2, roz_decision: 2 });
    if (s.review.decision.type !== 'complete') t.fail(`final decision ${s.review.decision.type}, expected complete`);
    const m = t.metrics(run);
    if (m.reviewers !== 2) t.fail(`${m.reviewers} reviewers started, expected one per push`);
    if (m.stop_blocks !== 0) t.fail(`${m.stop_blocks} stops blocked, expected none (the gate asks for the review)`);
    t.commonChecks(run);
  },
  };
}

module.exports = make();
module.exports.make = make;
