// roz, the whole reviewed task: a #roz prompt, the agent writes a file and
// tries to stop, roz blocks with its template, the agent starts roz:roz with
// the SESSION_ID from the block, the reviewer runs `roz context` and
// `roz decide ... COMPLETE`, and the agent's next stop is allowed.
'use strict';
const t = require('../lib/roz-e2e.js');

module.exports = {
  prompt: '#roz write feature.txt saying hello',
  reply(ctx) {
    if (t.isReviewer(ctx)) return t.reviewer(ctx);
    if (ctx.isSubagent) return 'unexpected subagent';
    if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
    if (t.isFeedback(ctx)) {
      if (!t.sidOf(ctx)) return 'The stop hook feedback carried no SESSION_ID.';
      return [t.spawnReviewer(t.sidOf(ctx), { round: t.agentCalls(ctx).length + 1, what: 'write feature.txt' })];
    }
    return 'feature.txt is written.';
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const sid = t.mainSessionId(run);

    // 1. the first stop was blocked with roz's template, naming the session and the agent
    const fb = t.feedbackRequests(run, 'main');
    if (fb.length !== 1) t.fail(`the main agent received ${fb.length} Stop hook feedback messages, expected 1 (roz did not block the first stop?)`);
    const text = fb[0].ctx.lastUserText;
    for (const want of [t.REVIEW_REQUIRED, `SESSION_ID=${sid}`, 'roz:roz']) {
      if (!text.includes(want)) t.fail(`the Stop hook feedback lacks ${JSON.stringify(want)}: ${JSON.stringify(text.slice(0, 300))}`);
    }
    t.expectAnswers(run, 'stop', ['block', 'allow'], 'first stop blocked, stop after the review allowed');

    // 2. the reviewer was started with the session id and recorded its verdict
    const rv = t.reviewerRequests(run);
    if (!rv.length) t.fail('the roz:roz reviewer never made a request (was the Agent call refused?)');
    if (!rv[0].ctx.prompt.includes(`SESSION_ID=${sid}`)) t.fail(`the reviewer's prompt lacks SESSION_ID=${sid}`);
    const ctxCalls = t.cliCalls(run, 'context');
    if (ctxCalls.length !== 1 || ctxCalls[0].rc !== 0) t.fail(`roz context: ${ctxCalls.length} call(s), rc ${ctxCalls.map((c) => c.rc)}`);
    if (!ctxCalls[0].stdout.includes('#roz write feature.txt')) t.fail(`roz context did not show the user's prompt: ${ctxCalls[0].stdout.slice(0, 300)}`);
    const decide = t.cliCalls(run, 'decide');
    if (decide.length !== 1 || decide[0].rc !== 0) t.fail(`roz decide: ${decide.length} call(s), rc ${decide.map((c) => c.rc)}, stderr ${decide.map((c) => c.stderr).join(' ')}`);
    t.expectAnswers(run, 'subagent-stop', ['allow'], 'the reviewer stopped after deciding');

    // 3. the session file
    const s = t.loadSession(run, sid);
    if (!s.review || !s.review.decision || s.review.decision.type !== 'complete') t.fail(`decision is ${JSON.stringify(s.review && s.review.decision)}, expected complete`);
    const at = s.review.attempts || [];
    if (at.length !== 1 || !at[0].outcome || at[0].outcome.type !== 'success') t.fail(`attempts ${JSON.stringify(at)}, expected one with outcome success`);
    t.expectTrace(s, { prompt_received: 1, stop_hook_called: 2, roz_decision: 1 });
    t.commonChecks(run);
  },
};
