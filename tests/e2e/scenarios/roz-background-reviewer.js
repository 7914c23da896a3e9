// roz with a background reviewer: after the first blocked stop the main agent
// starts roz:roz with `run_in_background: true` and keeps trying to stop
// while it runs (Claude Code's Stop input lists the running roz:roz in
// `background_tasks`). roz asks it to wait rather than start another
// reviewer, without counting those stops toward the circuit breaker, and
// after max_blocks such waits lets the turn end. The reviewer, which holds
// off until then, records COMPLETE and ends; Claude Code then starts a
// `<task-notification>` user turn (UserPromptSubmit fires with it), which must
// not reset roz's decision (difference 13), so the stop after it is allowed.
// (A background agent that ends while the main turn is still running is
// reported differently: as a role "system" message inside that turn.)
'use strict';
const t = require('../lib/roz-e2e.js');

const sessionFileOf = (sid) => `"$ROZ_HOME/sessions/${sid}.json"`;

module.exports = {
  prompt: '#roz write feature.txt saying hello',
  timeout: 90,
  reply(ctx) {
    if (t.isReviewer(ctx)) {
      const sid = t.sidOf(ctx);
      if (ctx.turn === 0) {
        // hold off (at most 15 s) until the main agent's turn has ended: its
        // first stop, three waits, and the stop roz then lets through
        return [t.bash(`for i in $(seq 1 300); do [ "$(grep -o stop_hook_called ${sessionFileOf(sid)} | wc -l)" -ge 5 ] && break; sleep 0.05; done; ` +
          `echo "stops seen: $(grep -o stop_hook_called ${sessionFileOf(sid)} | wc -l)"`, 'Wait for the main agent to stop')];
      }
      return t.reviewer(ctx);
    }
    if (ctx.isSubagent) return 'unexpected subagent';
    if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
    if (t.isTaskNotification(ctx)) return 'The background reviewer has reported back.';
    const sid = t.sidOf(ctx);
    if (t.isFeedback(ctx) && sid && !t.agentCalls(ctx).length) {
      return [t.spawnReviewer(sid, { background: true, what: 'write feature.txt' })];
    }
    // told to wait, or the reviewer was just started: end the turn again
    return 'Waiting for the background reviewer.';
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const sid = t.mainSessionId(run);
    const stops = t.hookCalls(run, 'stop');
    const running = (c) => ((c.input && c.input.background_tasks) || [])
      .some((b) => b.agent_type === 'roz:roz' && b.status === 'running');
    if (!stops.length) t.fail('roz saw no Stop');
    if (t.answerOf(stops[0]) !== 'block' || running(stops[0])) t.fail(`the first stop (before the reviewer started) was answered ${t.answerOf(stops[0])}, expected block`);
    const whileRunning = stops.filter(running);
    if (!whileRunning.length) t.fail('no Stop ran while the background roz:roz was running (scenario timing broken?)');
    const bgAnswer = t.answerOf(whileRunning[0]);

    // the task notification turn
    const notif = t.requests(run, 'main').filter((r) => t.isTaskNotification(r.ctx));
    if (!notif.length) t.fail('no <task-notification> turn reached the main agent');
    const ups = t.hookCalls(run, 'user-prompt').filter((c) => c.input && String(c.input.prompt).trimStart().startsWith('<task-notification>'));
    if (ups.length !== 1 || t.answerOf(ups[0]) !== 'allow') t.fail(`roz's UserPromptSubmit for the task notification: ${ups.length} calls, answers [${ups.map(t.answerOf)}]`);
    const afterNotif = stops.filter((c) => c.start > ups[0].end).map(t.answerOf);
    if (!afterNotif.length) t.fail('no Stop after the task notification');
    if (afterNotif.some((a) => a !== 'allow')) t.fail(`a stop after the <task-notification> turn was blocked ([${afterNotif.join(', ')}]): the notification reset roz's decision`);
    t.expectAnswers(run, 'subagent-stop', ['allow'], 'the background reviewer decided before ending');

    const s = t.loadSession(run, sid);
    if (s.review.decision.type !== 'complete') t.fail(`final decision ${s.review.decision.type}, expected complete (did the task notification reset it?)`);
    if ((s.review.user_prompts || []).length !== 1) t.fail(`stored prompts ${JSON.stringify(s.review.user_prompts)}: the task notification was stored as a prompt`);
    t.expectTrace(s, { prompt_received: 1, roz_decision: 1 });
    if (s.review.circuit_breaker_tripped) t.fail('the circuit breaker tripped');

    const whileAnswers = whileRunning.map(t.answerOf);
    if (JSON.stringify(whileAnswers) !== '["block","block","block","allow"]') t.fail(`stops while roz:roz ran were answered [${whileAnswers}], expected three waits then allow`);
    const waitShown = t.requests(run, 'main').some((r) => JSON.stringify(r.entry.request).includes('still working in the background'));
    if (!waitShown) t.fail('the agent was never told to wait for the background reviewer');
    if (s.review.block_count !== 1) t.fail(`stops made while roz:roz ran in the background counted toward the breaker: block_count ${s.review.block_count}, expected 1`);
    if (s.review.wait_blocks !== 3) t.fail(`wait_blocks ${s.review.wait_blocks}, expected 3`);
    if (!s.review.decision_trusted) t.fail('the reviewer\'s verdict was not vouched for by its SubagentStop');
    if (t.agentCalls && t.reviewerRequests(run).filter((r) => r.ctx.turn === 0).length !== 1) t.fail('more than one reviewer was started');
    t.commonChecks(run);
  },
};
