// roz, one reviewer per attempt: an agent that has started roz:roz in the
// background tries to start a second one while the first still works. roz
// refuses the second Agent call (an error tool_result telling it to end its
// turn and wait); the agent waits, the first reviewer's verdict stands, and
// only one reviewer ever ran.
'use strict';
const t = require('../lib/roz-e2e.js');

module.exports = {
  prompt: '#roz write feature.txt saying hello',
  timeout: 90,
  reply(ctx) {
    if (t.isReviewer(ctx)) return t.reviewer(ctx, { slow: 3 });
    if (ctx.isSubagent) return 'unexpected subagent';
    if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
    const sid = t.sidOf(ctx);
    const launches = t.reviewerLaunches(ctx);
    const last = t.lastCalls(ctx).find((c) => c.name === 'Agent');
    // right after the first launch: impatient, start another
    if (last && launches.length === 1 && launches[0].async) {
      return [t.spawnReviewer(sid, { round: 2, background: true, what: 'write feature.txt' })];
    }
    const wait = t.waitForReviewer(ctx);
    if (wait) return wait;
    if (t.isFeedback(ctx) && sid && !launches.length) {
      return [t.spawnReviewer(sid, { round: 1, background: true, what: 'write feature.txt' })];
    }
    return 'feature.txt is written.';
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const sid = t.mainSessionId(run);
    const agentCalls = t.hookCalls(run, 'pre-tool-use').filter((c) => !t.inSubagent(c) && c.input && c.input.tool_name === 'Agent');
    const got = agentCalls.map(t.answerOf);
    if (JSON.stringify(got) !== '["allow","deny"]') t.fail(`roz answered the two Agent calls [${got.join(', ')}], expected [allow, deny]`);
    const refusal = t.requests(run, 'main').map((r) => r.ctx.toolResults).flat().find((r) => r.is_error && r.text.includes('already reviewing this session'));
    if (!refusal) t.fail('the model was never told that a reviewer is already at work');
    if (!refusal.text.includes('end your turn') || !refusal.text.includes(`SESSION_ID=${sid}`)) t.fail(`the refusal does not say what to do: ${refusal.text.slice(0, 300)}`);
    const m = t.metrics(run);
    if (m.reviewers !== 1) t.fail(`${m.reviewers} reviewers ran, expected 1`);
    if (m.stop_blocks !== 1) t.fail(`${m.stop_blocks} stops blocked, expected 1`);
    const s = t.loadSession(run, sid);
    if (s.review.decision.type !== 'complete' || !s.review.decision_trusted) t.fail(`decision ${JSON.stringify(s.review.decision)}, expected the first reviewer's vouched-for COMPLETE`);
    t.commonChecks(run);
  },
};
