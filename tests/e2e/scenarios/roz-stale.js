// roz, an approval the work outgrew: a #roz prompt, the agent writes
// feature.txt, its stop is blocked, the reviewer approves, and then the agent
// writes a second file (extra.txt) before it stops. The approval covered
// feature.txt only, so roz blocks that stop naming extra.txt (and not
// feature.txt), with a ready-made prompt for the reviewer (SESSION_ID,
// ROUND=2); the agent starts the reviewer again with it, the second reviewer
// approves, and the next stop is allowed. The session's trace holds one
// approval_stale event naming extra.txt.
//
// make({change: false}) is the same task without the second file (the
// same case roz-happy-path.js checks): approve, nothing more, stop. That stop must cost
// nothing: one main-agent request after the verdict (the one that hears the
// reviewer's result), no feedback, no approval_stale, and no look at the
// working tree (no git run by the final Stop hook).
//
// Stops while a background reviewer works are let through (m.waits), as in
// roz-happy-path.js. make({background, slow}) builds the variants.
'use strict';
const t = require('../lib/roz-e2e.js');

const STALE_STOP_HEAD = 'roz: the work changed after the reviewer approved it, so that approval no longer covers it.\n\n';
const STALE_STOP_END = 'Once the reviewer approves, you can stop.';

function wrote(ctx, name) {
  return t.allToolUses(ctx).some((u) => u.name === 'Write' && String((u.input || {}).file_path).endsWith(`/${name}`));
}

// The prompt the stale block offers, its placeholder filled in as an agent would.
function stalePrompt(text) {
  const block = t.fencedBlock(text);
  if (!block) return null;
  return block.replace(/\[Why you changed these files after the approval\]/, 'The user also wanted extra.txt.');
}

// Each Stop hook call labelled: 'block', 'wait' (let through while a reviewer
// worked), 'allow'.
function stopLabels(run) {
  const running = (c) => ((c.input && c.input.background_tasks) || [])
    .some((b) => b.agent_type === 'roz:roz' && b.status === 'running');
  return t.hookCalls(run, 'stop').map((c) => {
    const a = t.answerOf(c);
    return a === 'allow' && running(c) ? 'wait' : a;
  });
}

// The main agent's requests made after roz recorded `decide`, leaving out the
// turn that only ends because a background reviewer was launched (it answers
// the launch, not the verdict).
function mainRequestsAfter(run, decide) {
  return t.requests(run, 'main').filter((r) => Date.parse(r.entry.time) > decide.end)
    .filter((r) => !t.waitForReviewer(r.ctx));
}

function make({ slow = 0, background, change = true } = {}) {
  return {
    prompt: '#roz write feature.txt saying hello',
    timeout: 90 + 4 * slow,
    setup: t.setupGitRecorder,
    reply(ctx) {
      if (t.isReviewer(ctx)) return t.reviewer(ctx, { slow });
      if (ctx.isSubagent) return 'unexpected subagent';
      if (ctx.turn === 0) return [t.write('feature.txt', 'hello\n')];
      const wait = t.waitForReviewer(ctx);
      if (wait) return wait;
      const round = t.agentCalls(ctx).length + 1;
      if (t.isFeedback(ctx)) {
        if (!t.sidOf(ctx)) return 'The stop hook feedback carried no SESSION_ID.';
        if (ctx.lastUserText.includes(t.STALE_MARK)) {
          const prompt = stalePrompt(ctx.lastUserText);
          if (!prompt) return 'The stale block offered no reviewer prompt.';
          return t.spawnReviewerWithPromptOnce(ctx, prompt, { round, background });
        }
        return t.spawnReviewerOnce(ctx, t.sidOf(ctx), { round, background, what: 'write feature.txt' });
      }
      // the reviewer approved feature.txt: now the agent does a little more
      if (change && t.reviewerReportedBack(ctx) && !wrote(ctx, 'extra.txt')) return [t.write('extra.txt', 'and more\n')];
      return 'Done.';
    },
    check(run) {
      t.expectRunsSucceeded(run);
      const sid = t.mainSessionId(run);
      const m = t.metrics(run);
      const labels = stopLabels(run);
      const stops = t.hookCalls(run, 'stop');
      const core = labels.filter((l) => l !== 'wait');
      const wantCore = change ? ['block', 'block', 'allow'] : ['block', 'allow'];
      if (JSON.stringify(core) !== JSON.stringify(wantCore)) {
        t.fail(`roz answered the stops [${labels.join(', ')}], expected [${wantCore.join(', ')}] with any number of waits ` +
          '(stops let through while a background reviewer worked)');
      }
      // a wait only follows a reviewer's launch, and says so on stderr
      stops.forEach((c, i) => {
        if (labels[i] !== 'wait') return;
        if (!c.stderr.includes('still working on session')) t.fail(`a stop let through while the reviewer worked said nothing on stderr: ${JSON.stringify(c.stderr)}`);
      });
      if (m.waits !== labels.filter((l) => l === 'wait').length) t.fail(`metrics counted ${m.waits} waits, the labels ${labels.join(',')}`);

      const blocks = stops.filter((c) => t.answerOf(c) === 'block');
      if (!blocks[0].output.reason.includes(t.REVIEW_REQUIRED)) t.fail(`the first block is not roz's review template: ${JSON.stringify(blocks[0].output.reason.slice(0, 200))}`);
      const decide = t.cliCalls(run, 'decide');
      const nReviews = change ? 2 : 1;
      if (decide.length !== nReviews || decide.some((c) => c.rc !== 0)) {
        t.fail(`roz decide: ${decide.length} call(s) (expected ${nReviews}), rc ${decide.map((c) => c.rc)}, stderr ${decide.map((c) => c.stderr).join(' ')}`);
      }
      if (m.reviewers !== nReviews) t.fail(`${m.reviewers} reviewers started, expected ${nReviews}`);
      const rv = t.reviewerRequests(run).filter((r) => r.ctx.turn === 0);
      if (rv.length !== nReviews) t.fail(`the reviewer made ${rv.length} first requests, expected ${nReviews}`);
      if (!rv[0].ctx.prompt.includes(`SESSION_ID=${sid}`)) t.fail(`the first reviewer's prompt lacks SESSION_ID=${sid}`);
      t.expectAnswers(run, 'subagent-stop', Array(nReviews).fill('allow'), 'each reviewer stopped after deciding');
      const fb = t.feedbackRequests(run, 'main');
      if (fb.length !== nReviews) t.fail(`the main agent received ${fb.length} Stop hook feedback messages, expected ${nReviews}`);

      const s = t.loadSession(run, sid);
      if (!s.review || !s.review.decision || s.review.decision.type !== 'complete') t.fail(`decision is ${JSON.stringify(s.review && s.review.decision)}, expected complete`);
      if (s.review.circuit_breaker_tripped) t.fail('the circuit breaker tripped');
      if ((s.review.user_prompts || []).length !== 1) t.fail(`stored prompts ${JSON.stringify(s.review.user_prompts)}: a task notification was stored as a prompt`);
      const staleEvents = t.traceEvents(s, 'approval_stale');
      t.expectTrace(s, { prompt_received: 1, stop_hook_called: stops.length, roz_decision: nReviews, approval_stale: change ? 1 : 0 });
      const work = s.review.work || {};
      if (!work.base_set) t.fail(`the review cycle took no baseline of the working tree: review.work ${JSON.stringify(work).slice(0, 300)}`);
      if ((work.stale || []).length) t.fail(`review.work.stale is ${JSON.stringify(work.stale)} after the last approval, expected none`);
      if (!work.approved_set) t.fail('the last approval is not bound to the work (review.work.approved_set is not set)');

      // the final stop, after the last verdict: one request to hear it, no feedback, no look
      const lastDecide = decide[decide.length - 1];
      const after = mainRequestsAfter(run, lastDecide);
      if (after.length !== 1) {
        t.fail(`the main agent made ${after.length} requests after the last verdict, expected exactly 1 (the one that hears the reviewer's result): ` +
          after.map((r) => `#${r.entry.seq} ${JSON.stringify(r.ctx.lastUserText.slice(0, 80))}`).join(' | '));
      }
      if (t.isFeedback(after[0].ctx)) t.fail('the main agent got Stop feedback after the last verdict');
      const finalStops = stops.filter((c) => c.start > lastDecide.end);
      if (finalStops.length !== 1 || t.answerOf(finalStops[0]) !== 'allow') {
        t.fail(`roz answered the stops after the last verdict [${finalStops.map(t.answerOf).join(', ')}], expected [allow]`);
      }
      const looked = t.gitCallsOf(run, finalStops[0]);
      if (!change && looked.length) {
        t.fail(`nothing ran after the approval, yet the final Stop hook looked at the working tree: git ${looked.map((g) => JSON.stringify(g.args)).join(', ')}`);
      }
      if (looked.length) t.note(`note: the final Stop hook ran git ${looked.length} time(s) (a look at the working tree)`);

      if (!change) {
        if (staleEvents.length) t.fail(`approval_stale in the trace of an unchanged task: ${JSON.stringify(staleEvents)}`);
        if (stops.some((c) => String((c.output || {}).reason || '').includes(t.STALE_MARK))) t.fail('a stop was blocked as stale though nothing changed after the approval');
        // the main agent's requests are those of roz without stale checks: 4 (Write, stop, spawn, hear the verdict), +1 (end the turn) per background launch
        const launches = t.callsOf(run).filter((c) => c.name === 'Agent' && c.result && /Async agent launched|working in the background/.test(c.result.text)).length;
        const want = 4 + launches;
        if (m.main_requests !== want) t.fail(`the main agent made ${m.main_requests} requests, expected ${want} (4 + ${launches} background launch(es))`);
        t.commonChecks(run);
        return;
      }

      // 1. the stale block: after the first verdict, naming extra.txt only, with the prompt for round 2
      const stale = blocks[1];
      if (stale.start < decide[0].end) t.fail('the second block came before the first verdict');
      const reason = stale.output.reason;
      if (!reason.startsWith(STALE_STOP_HEAD)) t.fail(`the second block does not begin with roz's stale sentence: ${JSON.stringify(reason.slice(0, 200))}`);
      const files = t.staleFiles(reason);
      if (JSON.stringify(files) !== '["extra.txt"]') t.fail(`the stale block lists [${files.join(', ')}] under "Changed since the approval:", expected [extra.txt]: ${JSON.stringify(reason.slice(0, 400))}`);
      if (reason.includes('feature.txt')) t.fail(`the stale block names feature.txt, which the reviewer had approved: ${JSON.stringify(reason)}`);
      const block = t.fencedBlock(reason);
      if (!block) t.fail(`the stale block offers no reviewer prompt: ${JSON.stringify(reason)}`);
      for (const want of [`SESSION_ID=${sid}`, 'ROUND=2', 'extra.txt']) {
        if (!block.includes(want)) t.fail(`the stale block's reviewer prompt lacks ${JSON.stringify(want)}: ${JSON.stringify(block)}`);
      }
      if (!reason.trimEnd().endsWith(STALE_STOP_END)) t.fail(`the stale block does not end with ${JSON.stringify(STALE_STOP_END)}: ${JSON.stringify(reason.slice(-200))}`);
      // what the model was given
      if (!fb[1].ctx.lastUserText.includes(STALE_STOP_HEAD.trim()) || !fb[1].ctx.lastUserText.includes(`SESSION_ID=${sid}`) ||
        !fb[1].ctx.lastUserText.includes('ROUND=2') || !fb[1].ctx.lastUserText.includes('extra.txt')) {
        t.fail(`the second Stop feedback the agent got is not the stale block: ${JSON.stringify(fb[1].ctx.lastUserText.slice(0, 400))}`);
      }
      // 2. the second reviewer got that prompt, and was the one who decided last
      if (!rv[1].ctx.prompt.includes('ROUND=2') || !rv[1].ctx.prompt.includes(`SESSION_ID=${sid}`) || !rv[1].ctx.prompt.includes('extra.txt')) {
        t.fail(`the second reviewer's prompt is not the stale block's: ${JSON.stringify(rv[1].ctx.prompt.slice(0, 300))}`);
      }
      if (decide[1].start < stale.end) t.fail('the second verdict was recorded before the stale block');
      // 3. the trace
      const ev = staleEvents[0];
      const payload = ev.payload || ev.data || ev;
      if (JSON.stringify(payload.files) !== '["extra.txt"]' || payload.round !== 2) {
        t.fail(`the approval_stale event is ${JSON.stringify(ev)}, expected files [extra.txt], round 2`);
      }
      if (work.round !== 1) t.fail(`review.work.round is ${JSON.stringify(work.round)}, expected 1 (one re-review asked for)`);
      t.commonChecks(run);
    },
  };
}

module.exports = make();
module.exports.make = make;
