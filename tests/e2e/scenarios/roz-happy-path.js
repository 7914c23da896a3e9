// roz, the whole reviewed task: a #roz prompt, the agent writes a file and
// tries to stop, roz blocks with its template, the agent starts roz:roz with
// the SESSION_ID from the block, the reviewer runs `roz context` and
// `roz decide ... COMPLETE`, and the agent's next stop is allowed.
//
// Claude Code 2.1.197 runs the reviewer in the foreground by default and
// 2.1.331 in the background: then the agent ends its turn once the reviewer
// has started (roz lets that stop through without counting it), is woken by
// the task notification, and its next stop meets the verdict. The figures
// (blocks, reviewers, requests) must not depend on which, nor on how long
// the reviewer takes. The approval is bound to the work (roz/work.h) at no
// cost here: nothing runs after it, so the last stop looks at nothing (a
// recording git on PATH shows no git run). make() builds the variants:
// `slow` (seconds the reviewer reads before deciding), `background`
// (true/false forces the Agent call's run_in_background; undefined leaves it
// to Claude Code).
'use strict';
const t = require('../lib/roz-e2e.js');

function make({ slow = 0, background } = {}) {
  return {
    prompt: '#roz write feature.txt saying hello',
    timeout: 60 + 2 * slow,
    setup: t.setupGitRecorder,
    reply(ctx) {
      if (t.isReviewer(ctx)) return t.reviewer(ctx, { slow });
      if (ctx.isSubagent) return 'unexpected subagent';
      if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
      const wait = t.waitForReviewer(ctx);
      if (wait) return wait;
      if (t.isFeedback(ctx)) {
        if (!t.sidOf(ctx)) return 'The stop hook feedback carried no SESSION_ID.';
        return t.spawnReviewerOnce(ctx, t.sidOf(ctx), { round: t.agentCalls(ctx).length + 1, background, what: 'write feature.txt' });
      }
      return 'feature.txt is written.';
    },
    check(run) {
      t.expectRunsSucceeded(run);
      const sid = t.mainSessionId(run);

      // 1. the first stop was blocked with roz's template, naming the session and the agent
      const fb = t.feedbackRequests(run, 'main');
      if (fb.length !== 1) t.fail(`the main agent received ${fb.length} Stop hook feedback messages, expected 1 (roz did not block the first stop, or blocked a wait?)`);
      const text = fb[0].ctx.lastUserText;
      for (const want of [t.REVIEW_REQUIRED, `SESSION_ID=${sid}`, 'roz:roz']) {
        if (!text.includes(want)) t.fail(`the Stop hook feedback lacks ${JSON.stringify(want)}: ${JSON.stringify(text.slice(0, 300))}`);
      }
      const m = t.metrics(run);
      const stops = t.answers(run, 'stop');
      const want = ['block', ...Array(m.waits).fill('allow'), 'allow'];
      if (JSON.stringify(stops) !== JSON.stringify(want)) t.fail(`roz answered the stops [${stops.join(', ')}], expected [${want.join(', ')}]: the first blocked, any while the reviewer worked let through, the one after the verdict allowed`);
      if (m.reviewers !== 1) t.fail(`${m.reviewers} reviewers started, expected 1`);

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
      // a stop let through while the reviewer worked says so on stderr
      for (const c of t.hookCalls(run, 'stop').slice(1, 1 + m.waits)) {
        if (!c.stderr.includes('still working on session')) t.fail(`a stop let through while the reviewer worked said nothing on stderr: ${JSON.stringify(c.stderr)}`);
      }

      // 3. the session file
      const s = t.loadSession(run, sid);
      if (!s.review || !s.review.decision || s.review.decision.type !== 'complete') t.fail(`decision is ${JSON.stringify(s.review && s.review.decision)}, expected complete`);
      const at = s.review.attempts || [];
      if (at.length !== 1 || !at[0].outcome || at[0].outcome.type !== 'success') t.fail(`attempts ${JSON.stringify(at)}, expected one with outcome success`);
      t.expectTrace(s, { prompt_received: 1, stop_hook_called: 2 + m.waits, roz_decision: 1 });
      if ((s.review.user_prompts || []).length !== 1) t.fail(`stored prompts ${JSON.stringify(s.review.user_prompts)}: a task notification was stored as a prompt`);
      if (background === true && m.waits < 1) t.note(`note: no stop came while the background reviewer worked (it finished first)`);

      // 4. the approval is bound to the work, and costs nothing when nothing ran since: no extra
      // turn (4 requests: Write, stop, spawn, hear the verdict; +1 per background launch), no look
      const work = s.review.work || {};
      if (!work.base_set || !work.approved_set) t.fail(`the approval is not bound to the work: review.work ${JSON.stringify(work).slice(0, 300)}`);
      if (t.traceEvents(s, 'approval_stale').length) t.fail('approval_stale in the trace, though nothing changed after the approval');
      const launches = t.callsOf(run).filter((c) => c.name === 'Agent' && c.result && /Async agent launched|working in the background/.test(c.result.text)).length;
      if (m.main_requests !== 4 + launches) t.fail(`the main agent made ${m.main_requests} requests, expected ${4 + launches} (4 + ${launches} background launch(es))`);
      const finalStops = t.hookCalls(run, 'stop').filter((c) => c.start > decide[0].end);
      if (finalStops.length !== 1) t.fail(`${finalStops.length} stops after the verdict, expected 1`);
      const looked = t.gitCallsOf(run, finalStops[0]);
      if (looked.length) t.fail(`nothing ran after the approval, yet the final Stop hook looked at the working tree: git ${looked.map((g) => JSON.stringify(g.args)).join(', ')}`);
      t.commonChecks(run);
    },
  };
}

module.exports = make();
module.exports.make = make;
