// roz, a slow reviewer in the background while the agent keeps being woken:
// after the first blocked stop the agent starts roz:roz in the background
// and two background shell jobs (1 s and 2 s), and ends its turn. Each job's
// completion wakes it with a task notification; each time it ends its turn
// again. The reviewer reads for 6 s, so every one of those stops comes
// while it works: each is let through, none is blocked or counted toward
// the circuit breaker, and no second reviewer is started. The stop after
// the reviewer's own notification meets its COMPLETE.
'use strict';
const t = require('../lib/roz-e2e.js');

const JOBS = ['sleep 1; echo job one done', 'sleep 2; echo job two done'];

function job(command, n) {
  return { type: 'tool_use', name: 'Bash', input: { command, description: `Background job ${n}`, run_in_background: true } };
}

module.exports = {
  prompt: '#roz write feature.txt saying hello',
  timeout: 90,
  reply(ctx) {
    if (t.isReviewer(ctx)) return t.reviewer(ctx, { slow: 6 });
    if (ctx.isSubagent) return 'unexpected subagent';
    if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
    if (t.isFeedback(ctx) && t.sidOf(ctx) && !t.agentCalls(ctx).length) {
      return [t.spawnReviewer(t.sidOf(ctx), { background: true, what: 'write feature.txt' }), ...JOBS.map(job)];
    }
    if (t.isTaskNotification(ctx)) return 'Noted; still waiting for the reviewer if it has not reported back.';
    return 'The reviewer and two jobs are running in the background; I will wait.';
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const sid = t.mainSessionId(run);
    const m = t.metrics(run);
    const stops = t.hookCalls(run, 'stop');
    const answers = stops.map(t.answerOf);
    if (answers[0] !== 'block') t.fail(`the first stop (before any reviewer) was answered ${answers[0]}, expected block`);
    if (answers.slice(1).some((a) => a !== 'allow')) t.fail(`a stop after the reviewer started was blocked: [${answers.join(', ')}]`);
    if (m.waits < 2) t.fail(`only ${m.waits} stop(s) came while the reviewer worked; the scenario means the agent to be woken at least twice by the jobs`);
    for (const c of stops.slice(1, 1 + m.waits)) {
      if (!c.stderr.includes('still working on session')) t.fail(`a stop let through while the reviewer worked said nothing on stderr: ${JSON.stringify(c.stderr)}`);
    }
    if (m.reviewers !== 1) t.fail(`${m.reviewers} reviewers started, expected exactly 1`);
    if (m.stop_blocks !== 1) t.fail(`${m.stop_blocks} stops blocked, expected 1`);
    const notes = t.hookCalls(run, 'user-prompt').filter((c) => c.input && String(c.input.prompt).trimStart().startsWith('<task-notification>'));
    if (notes.length < 3) t.fail(`${notes.length} task notifications passed UserPromptSubmit, expected 3 (two jobs and the reviewer)`);
    if (notes.some((c) => t.answerOf(c) !== 'allow')) t.fail('roz answered a task notification with something other than {}');
    const s = t.loadSession(run, sid);
    if (s.review.decision.type !== 'complete' || !s.review.decision_trusted) t.fail(`decision ${JSON.stringify(s.review.decision)} trusted=${s.review.decision_trusted}, expected a vouched-for complete`);
    if (s.review.block_count !== 1 || s.review.circuit_breaker_tripped) t.fail(`block_count ${s.review.block_count}, breaker ${s.review.circuit_breaker_tripped}: waits were counted`);
    if ((s.review.user_prompts || []).length !== 1) t.fail(`stored prompts ${JSON.stringify(s.review.user_prompts)}: a notification was stored as a prompt`);
    const lets = (s.trace || []).filter((e) => e.event_type === 'stop_hook_called' && e.payload && e.payload.let_through === 'reviewer_working');
    if (lets.length !== m.waits) t.fail(`the trace shows ${lets.length} stops let through for the reviewer, expected ${m.waits}`);
    t.expectTrace(s, { prompt_received: 1, roz_decision: 1, reviewer_started: 1, reviewer_stopped: 1 });
    t.commonChecks(run);
  },
};
