// roz, a review that finds problems: the first reviewer records ISSUES with a
// --message; roz must feed exactly that message back to the main agent as
// the reason it cannot stop; the agent fixes, starts the reviewer again, the
// second reviewer approves, and the agent may stop.
//
// With a background reviewer (2.1.331's default) the ISSUES reach the agent
// at the stop after the task notification, and the fix gets its own
// reviewer; stops while a reviewer works are let through, never counted.
// make() builds the variants (see roz-happy-path.js).
'use strict';
const t = require('../lib/roz-e2e.js');

const UNIQUE = 'ISSUE-7f3a: feature.txt must end with a exclamation mark';

// A reviewer's message far longer than Claude Code shows whole: its first
// line is what the agent acts on, its last must be cut from the Stop answer.
const LONG_END = 'ISSUE-LAST-LINE-c91d';
function longMessage() {
  const lines = [UNIQUE];
  for (let i = 0; lines.join('\n').length < 30000; i++) lines.push(`- finding ${i}: the handler drops the last line of its input`);
  lines.push(LONG_END);
  return lines.join('\n');
}

function make({ slow = 0, background, long = false } = {}) {
  const message = long ? longMessage() : UNIQUE;
  const spawn = (ctx) => t.spawnReviewerOnce(ctx, t.sidOf(ctx), { round: t.agentCalls(ctx).length + 1, background, what: 'write feature.txt' });
  return {
    prompt: '#roz write feature.txt saying hello!',
    timeout: 60 + 4 * slow,
    reply(ctx) {
      if (t.isReviewer(ctx)) {
        return t.reviewer(ctx, {
          slow,
          verdict: (c) => (t.reviewRound(c) === 1
            ? { verdict: 'ISSUES', summary: 'missing exclamation mark', message }
            : { verdict: 'COMPLETE', summary: 'fix verified' }),
        });
      }
      if (ctx.isSubagent) return 'unexpected subagent';
      if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
      const wait = t.waitForReviewer(ctx);
      if (wait) return wait;
      if (t.isFeedback(ctx)) {
        if (!t.sidOf(ctx)) return 'The stop hook feedback carried no SESSION_ID.';
        if (ctx.lastUserText.includes(UNIQUE)) return [t.write('fix.txt', 'hello!\n')];
        return spawn(ctx);
      }
      const last = t.lastCalls(ctx);
      // after the fix, ask for the review again
      if (last.length && last[0].name === 'Write' && last[0].input.file_path.endsWith('fix.txt')) return spawn(ctx);
      return 'Done.';
    },
    check(run) {
      t.expectRunsSucceeded(run);
      const sid = t.mainSessionId(run);
      const fb = t.feedbackRequests(run, 'main');
      if (fb.length < 2) t.fail(`the main agent received ${fb.length} Stop hook feedback message(s), expected 2 (the block, then the reviewer's ISSUES)`);
      const issues = fb.filter((r) => r.ctx.lastUserText.includes(UNIQUE));
      if (issues.length !== 1) {
        t.fail(`the reviewer's --message did not reach the main agent as Stop hook feedback (${issues.length} times); ` +
          `feedback texts: ${fb.map((r) => JSON.stringify(r.ctx.lastUserText.slice(0, 120))).join(' | ')}`);
      }
      if (!issues[0].ctx.lastUserText.includes(`SESSION_ID=${sid}`)) t.fail('the ISSUES feedback does not tell the agent the SESSION_ID to restart the reviewer with');
      // the ISSUES feedback must come after the first reviewer ran, not before
      const firstDecide = run.model.find((e) => e.kind === 'subagent' && JSON.stringify(e.response).includes('roz decide'));
      if (!firstDecide || issues[0].entry.seq < firstDecide.seq) t.fail('the ISSUES feedback arrived before any reviewer decided');
      if (fb.length !== 2) t.fail(`the main agent received ${fb.length} Stop hook feedback messages, expected exactly 2`);
      const m = t.metrics(run);
      const stops = t.answers(run, 'stop');
      const blocks = stops.filter((a) => a === 'block').length;
      if (blocks !== 2 || stops[stops.length - 1] !== 'allow' || stops.length !== 3 + m.waits) {
        t.fail(`roz answered the stops [${stops.join(', ')}], expected two blocks (review required, ISSUES), ${m.waits} let through while a reviewer worked, and a final allow`);
      }

      const rv = t.reviewerRequests(run).filter((r) => r.ctx.turn === 0);
      if (rv.length !== 2) t.fail(`the reviewer was started ${rv.length} times, expected 2`);
      if (m.reviewers !== 2) t.fail(`${m.reviewers} reviewer runs started, expected 2`);
      const decide = t.cliCalls(run, 'decide');
      if (decide.length !== 2 || decide.some((c) => c.rc !== 0)) t.fail(`roz decide: ${decide.length} calls, rc ${decide.map((c) => c.rc)}`);
      t.expectAnswers(run, 'subagent-stop', ['allow', 'allow'], 'each reviewer stopped after deciding');

      const s = t.loadSession(run, sid);
      if (s.review.decision.type !== 'complete') t.fail(`final decision ${JSON.stringify(s.review.decision)}, expected complete`);
      const outcomes = (s.review.attempts || []).map((a) => `${a.outcome.type}/${a.outcome.decision_type || '-'}`);
      if (JSON.stringify(outcomes) !== JSON.stringify(['success/issues', 'success/complete'])) t.fail(`attempt outcomes ${outcomes}, expected [success/issues, success/complete]`);
      t.expectTrace(s, { prompt_received: 1, stop_hook_called: 3 + m.waits, roz_decision: 2 });
      if (s.review.circuit_breaker_tripped) t.fail('the circuit breaker tripped');
      if (long) t.expectBoundedIssues(run, sid, issues[0].ctx.lastUserText, message, LONG_END);
      t.commonChecks(run);
    },
  };
}

module.exports = make();
module.exports.make = make;
