// roz with a background reviewer: after the first blocked stop the main agent
// starts roz:roz with `run_in_background: true` and at once tries to stop
// again while it runs (Claude Code's Stop input lists the running roz:roz in
// `background_tasks`). The reviewer waits until roz has seen that stop, then
// decides COMPLETE; the main agent, blocked, waits for the verdict and stops
// (allowed), and only then does the reviewer end. Claude Code then starts a
// `<task-notification>` user turn (UserPromptSubmit fires with it); that turn
// must not reset roz's decision (difference 13), so the stop after it is
// allowed. (A background agent that ends while the main turn is still
// running is reported differently: as a role "system" message inside that
// turn, with no UserPromptSubmit.)
//
// Today roz blocks the stop made while the reviewer runs and counts it toward
// the circuit breaker. The hardening work will change this; then flip
// BACKGROUND_STOP_COUNTS below to false (the check then only requires that
// such a stop does not count toward the breaker).
'use strict';
const t = require('../lib/roz-e2e.js');

// TODO(hardening): flip to false once a stop made while roz:roz runs in the
// background no longer counts toward the circuit breaker.
const BACKGROUND_STOP_COUNTS = true;

const sessionFileOf = (sid) => `"$ROZ_HOME/sessions/${sid}.json"`;

module.exports = {
  prompt: '#roz write feature.txt saying hello',
  timeout: 90,
  reply(ctx) {
    if (t.isReviewer(ctx)) {
      const sid = t.sidOf(ctx);
      if (ctx.turn === 0) {
        // wait (at most 10 s) until roz has recorded two stops of the main
        // agent: the first one, and the one made while this reviewer runs
        return [t.bash(`for i in $(seq 1 200); do [ "$(grep -o stop_hook_called ${sessionFileOf(sid)} | wc -l)" -ge 2 ] && break; sleep 0.05; done; ` +
          `echo "stops seen: $(grep -o stop_hook_called ${sessionFileOf(sid)} | wc -l)"`, 'Wait for the main agent to stop')];
      }
      const ran = t.allToolUses(ctx).map((u) => String(u.input.command || ''));
      if (ran.some((c) => c.startsWith('roz decide')) && !ran.some((c) => c.includes('-ge 3'))) {
        // stay running until the main agent's stop after the verdict was
        // handled, so that this reviewer's end comes as a new
        // <task-notification> turn (a background agent finishing while the
        // main turn still runs is reported inside that turn instead)
        return [t.bash(`for i in $(seq 1 200); do [ "$(grep -o stop_hook_called ${sessionFileOf(sid)} | wc -l)" -ge 3 ] && break; sleep 0.05; done; ` +
          `echo "stops seen: $(grep -o stop_hook_called ${sessionFileOf(sid)} | wc -l)"`, 'Wait for the main agent to stop again')];
      }
      return t.reviewer(ctx);
    }
    if (ctx.isSubagent) return 'unexpected subagent';
    if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
    if (t.isTaskNotification(ctx)) return 'The background reviewer has reported back.';
    const sid = t.sidOf(ctx);
    if (t.isFeedback(ctx) && sid) {
      if (!t.agentCalls(ctx).length) {
        return [t.spawnReviewer(sid, { background: true, what: 'write feature.txt' })];
      }
      // blocked while the reviewer runs: wait (at most 10 s) for its verdict
      return [t.bash(`for i in $(seq 1 200); do roz context ${sid} | grep -q '^Decision: *complete' && break; sleep 0.05; done; ` +
        `roz context ${sid} | grep '^Decision:'`, 'Wait for the background review')];
    }
    const last = t.lastCalls(ctx)[0];
    if (last && last.name === 'Agent') return 'The reviewer runs in the background; I am done.';
    return 'feature.txt is written.';
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

    if (BACKGROUND_STOP_COUNTS) {
      // today's behaviour
      if (bgAnswer !== 'block' || s.review.block_count !== 2) {
        t.fail(`expected today's behaviour: the stop while roz:roz runs is blocked and counted (got ${bgAnswer}, block_count ${s.review.block_count}); ` +
          'if the hardening landed, flip BACKGROUND_STOP_COUNTS to false');
      }
      const maxBlocks = (s.trace.find((e) => e.event_type === 'stop_hook_called') || { payload: {} }).payload.max_blocks;
      t.note(`TODO(hardening): a stop made while roz:roz runs in the background is answered "${bgAnswer}" and counted toward the breaker (block_count ${s.review.block_count}, max_blocks ${maxBlocks})`);
    } else if (s.review.block_count !== 1) {
      t.fail(`a stop made while roz:roz runs in the background still counts toward the breaker: block_count ${s.review.block_count}, expected 1 (answer ${bgAnswer})`);
    }
    t.commonChecks(run);
  },
};
