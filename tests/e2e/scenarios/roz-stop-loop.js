// roz's circuit breaker: after a #roz prompt the agent never starts the
// reviewer and just keeps trying to stop. roz must block exactly max_blocks
// times (default 3; difference 1) and then let it go with the breaker
// tripped. roz-stop-loop-max5.js runs the same with max_blocks = 5 (Claude
// Code itself stops feeding blocks back after 8 in a row).
'use strict';
const t = require('../lib/roz-e2e.js');

function make(maxBlocks, rozConfig) {
  return {
    prompt: '#roz write feature.txt saying hello',
    rozConfig,
    reply(ctx) {
      if (ctx.isSubagent) return 'unexpected subagent';
      if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
      return `I am done (attempt ${ctx.countUserText(t.FEEDBACK) + 1} to stop).`;
    },
    check(run) {
      t.expectRunsSucceeded(run);
      const sid = t.mainSessionId(run);
      const fb = t.feedbackRequests(run, 'main');
      if (fb.length !== maxBlocks) t.fail(`${fb.length} Stop hook feedback messages reached the model, expected exactly max_blocks = ${maxBlocks}`);
      const last = t.requests(run, 'main').pop();
      if (last.ctx.countUserText(t.FEEDBACK) !== maxBlocks) t.fail(`the last main request holds ${last.ctx.countUserText(t.FEEDBACK)} feedback messages, expected ${maxBlocks}`);
      const want = [...Array(maxBlocks).fill('block'), 'allow'];
      t.expectAnswers(run, 'stop', want, `${maxBlocks} blocks, then the breaker lets the agent go`);
      const trip = t.hookCalls(run, 'stop').pop();
      if (!/circuit breaker tripped/.test(trip.stderr)) t.fail(`the letting-go stop gave no breaker warning on stderr: ${JSON.stringify(trip.stderr)}`);
      const s = t.loadSession(run, sid);
      if (s.review.circuit_breaker_tripped !== true) t.fail(`circuit_breaker_tripped is ${s.review.circuit_breaker_tripped}, expected true`);
      if (s.review.block_count !== maxBlocks) t.fail(`block_count ${s.review.block_count}, expected ${maxBlocks}`);
      t.expectTrace(s, { prompt_received: 1, stop_hook_called: maxBlocks + 1, roz_decision: 0 });
      if (t.reviewerRequests(run).length) t.fail('the reviewer ran, but this agent never starts it');
      t.commonChecks(run);
    },
  };
}

module.exports = { ...make(3, undefined), make };
