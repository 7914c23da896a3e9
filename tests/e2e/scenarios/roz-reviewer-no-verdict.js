// roz, a reviewer that forgets to record its verdict: the roz:roz subagent
// reads the context and then just ends with a text reply. roz's SubagentStop
// must block it with the `roz decide <sid> COMPLETE|ISSUES` commands; the
// reviewer then decides and ends, and the main agent may stop.
'use strict';
const t = require('../lib/roz-e2e.js');

module.exports = {
  prompt: '#roz write feature.txt saying hello',
  reply(ctx) {
    if (t.isReviewer(ctx)) {
      const sid = t.sidOf(ctx);
      if (ctx.turn === 0) return [t.bash(`roz context ${sid}`, 'Read the review context')];
      const fedBack = ctx.messages.some((m) => m.role === 'user' && t.FEEDBACK_RE.test(JSON.stringify(m.content)));
      if (!fedBack) return 'Looks good to me.'; // no verdict
      return t.reviewer(ctx);
    }
    if (ctx.isSubagent) return 'unexpected subagent';
    if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
    const wait = t.waitForReviewer(ctx);
    if (wait) return wait;
    if (t.isFeedback(ctx) && t.sidOf(ctx)) {
      return t.spawnReviewerOnce(ctx, t.sidOf(ctx), { round: t.agentCalls(ctx).length + 1, what: 'write feature.txt' });
    }
    return 'feature.txt is written.';
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const sid = t.mainSessionId(run);
    const fb = t.feedbackRequests(run, 'subagent').filter((r) => t.isReviewer(r.ctx));
    if (!fb.length) t.fail('the reviewer ended without a verdict and was not blocked: no Stop hook feedback reached it');
    const text = fb[0].ctx.lastUserText;
    if (!text.includes(`roz decide ${sid} COMPLETE`)) t.fail(`the reviewer's Stop hook feedback lacks "roz decide ${sid} COMPLETE": ${JSON.stringify(text.slice(0, 300))}`);
    if (fb.length !== 1) t.fail(`the reviewer got ${fb.length} Stop hook feedback messages, expected 1`);
    t.expectAnswers(run, 'subagent-stop', ['block', 'allow'], 'no verdict blocked, then the verdict let the reviewer end');
    const decide = t.cliCalls(run, 'decide');
    if (decide.length !== 1 || decide[0].rc !== 0) t.fail(`roz decide: ${decide.length} calls, rc ${decide.map((c) => c.rc)}`);
    if (decide[0].start < t.hookCalls(run, 'subagent-stop')[0].end) t.fail('roz decide ran before the blocked SubagentStop');
    const m = t.metrics(run);
    t.expectAnswers(run, 'stop', ['block', ...Array(m.waits).fill('allow'), 'allow'], 'review required, waits while the reviewer worked, then approved');
    const s = t.loadSession(run, sid);
    if (s.review.decision.type !== 'complete') t.fail(`final decision ${s.review.decision.type}, expected complete`);
    t.expectTrace(s, { prompt_received: 1, stop_hook_called: 2 + m.waits, roz_decision: 1 });
    t.commonChecks(run);
  },
};
