// roz, a gate's approval the work outgrew: with `tools = ["Bash:git push*"]`
// and approval_scope "prompt", the agent commits and pushes; the push is
// denied, the reviewer approves, and then the agent writes one more file
// (extra.txt) before it pushes again. The approval covered the work without
// extra.txt, so the retried push is denied naming extra.txt (and nothing
// the reviewer saw), with a ready-made prompt for the reviewer (SESSION_ID,
// ROUND=2) and "run the action again"; the agent starts the reviewer with
// it, the second reviewer approves, the push runs (it reaches the bare
// remote), and the stop after it is allowed. No stop is blocked.
//
// make({background}) builds variants (true: every reviewer in the
// background, also on 2.1.197).
'use strict';
const path = require('path');
const t = require('../lib/roz-e2e.js');

const PUSH = 'git push origin HEAD';
const COMMIT = 'echo "change 1" > change-1.txt && git add change-1.txt && git commit -q -m "change 1" && git log -1 --format=%s';
const STALE_GATE_END = 'Once the reviewer approves, run the action again.';

function wrote(ctx, name) {
  return t.allToolUses(ctx).some((u) => u.name === 'Write' && String((u.input || {}).file_path).endsWith(`/${name}`));
}

function make({ background } = {}) {
  return {
    prompt: 'commit change-1.txt and push it to origin',
    timeout: 90,
    rozConfig: '[review.gates]\ntools = ["Bash:git push*"]\napproval_scope = "prompt"\n',
    setup(env) {
      t.setupPushRemote(env);
      t.setupGitRecorder(env);
    },
    reply(ctx) {
      if (t.isReviewer(ctx)) return t.reviewer(ctx);
      if (ctx.isSubagent) return 'unexpected subagent';
      if (ctx.turn === 0) return [t.bash(COMMIT, 'Commit change 1')];
      const wait = t.waitForReviewer(ctx);
      if (wait) return wait;
      const round = t.agentCalls(ctx).length + 1;
      if (t.isFeedback(ctx)) return 'Unexpected Stop feedback: the gate asks for the review before I stop.';
      if (t.reviewerReportedBack(ctx)) {
        // approved: the first time the agent adds a file before pushing again
        if (!wrote(ctx, 'extra.txt')) return [t.write('extra.txt', 'one more thing\n')];
        return [t.bash(PUSH, 'Push to origin again')];
      }
      const last = t.lastCalls(ctx)[0];
      if (!last) return 'Nothing to do.';
      if (last.name === 'Bash' && last.input.command === COMMIT) return [t.bash(PUSH, 'Push to origin')];
      if (last.name === 'Write') return [t.bash(PUSH, 'Push to origin again')];
      if (last.name === 'Bash' && last.input.command === PUSH) {
        const r = last.result;
        if (r && r.is_error && r.text.includes(t.STALE_MARK)) {
          const block = t.fencedBlock(r.text);
          if (!block) return 'The stale denial offered no reviewer prompt.';
          const prompt = block.replace(/\[Why you changed these files after the approval\]/, 'I added extra.txt after the review.');
          return t.spawnReviewerWithPromptOnce(ctx, prompt, { round, background });
        }
        if (r && r.is_error && r.text.includes(t.GATE_MARK)) {
          const sid = t.sidOf(ctx);
          if (!sid) return 'The denial carried no SESSION_ID.';
          return t.spawnReviewerOnce(ctx, sid, { round, background, what: 'push change 1' });
        }
        return 'Pushed change 1.';
      }
      return 'Done.';
    },
    check(run) {
      t.expectRunsSucceeded(run);
      const sid = t.mainSessionId(run);
      const pushes = t.hookCalls(run, 'pre-tool-use').filter((c) => c.input && c.input.tool_name === 'Bash' &&
        c.input.tool_input && c.input.tool_input.command === PUSH);
      const got = pushes.map(t.answerOf);
      if (JSON.stringify(got) !== '["deny","deny","allow"]') t.fail(`PreToolUse answers for git push [${got.join(', ')}], expected [deny, deny, allow] (gated, stale after the edit, approved)`);
      const decide = t.cliCalls(run, 'decide');
      if (decide.length !== 2 || decide.some((c) => c.rc !== 0)) t.fail(`roz decide: ${decide.length} call(s) (expected 2), rc ${decide.map((c) => c.rc)}`);

      // 1. the first denial is the gate's; the second, after the first verdict and the edit, the stale one
      const first = pushes[0].output.hookSpecificOutput.permissionDecisionReason;
      if (!first.includes(t.GATE_MARK) || !first.includes(`SESSION_ID=${sid}`)) t.fail(`the first push's denial is not roz's gate message: ${JSON.stringify(first.slice(0, 300))}`);
      const stale = pushes[1];
      if (stale.start < decide[0].end) t.fail('the second push was denied before the first verdict');
      const reason = stale.output.hookSpecificOutput.permissionDecisionReason;
      const head = 'roz: the work changed after the reviewer approved `Bash:git push';
      if (!reason.startsWith(head)) t.fail(`the second denial does not begin with ${JSON.stringify(head)}: ${JSON.stringify(reason.slice(0, 200))}`);
      if (!reason.includes('`, so that approval no longer covers it.\n\n')) t.fail(`the second denial lacks "so that approval no longer covers it": ${JSON.stringify(reason.slice(0, 200))}`);
      const files = t.staleFiles(reason);
      if (JSON.stringify(files) !== '["extra.txt"]') t.fail(`the stale denial lists [${files.join(', ')}], expected [extra.txt]: ${JSON.stringify(reason.slice(0, 400))}`);
      if (reason.includes('change-1.txt')) t.fail(`the stale denial names change-1.txt, which the reviewer had approved: ${JSON.stringify(reason)}`);
      const block = t.fencedBlock(reason);
      for (const want of [`SESSION_ID=${sid}`, 'ROUND=2', 'extra.txt']) {
        if (!block || !block.includes(want)) t.fail(`the stale denial's reviewer prompt lacks ${JSON.stringify(want)}: ${JSON.stringify(block)}`);
      }
      if (!reason.trimEnd().endsWith(STALE_GATE_END)) t.fail(`the stale denial does not end with ${JSON.stringify(STALE_GATE_END)}: ${JSON.stringify(reason.slice(-200))}`);
      if (pushes[2].start < decide[1].end) t.fail('the push was allowed before the second verdict');
      // what the model saw
      const errs = t.requests(run, 'main').map((r) => r.ctx.toolResults).flat().filter((tr) => tr.is_error);
      const seenStale = errs.filter((tr) => tr.text.includes(t.STALE_MARK));
      if (seenStale.length !== 1 || !seenStale[0].text.includes('extra.txt') || !seenStale[0].text.includes('ROUND=2')) {
        t.fail(`the model saw ${seenStale.length} stale denials as error tool_results, expected 1 naming extra.txt with ROUND=2`);
      }
      const rv = t.reviewerRequests(run).filter((r) => r.ctx.turn === 0);
      if (rv.length !== 2) t.fail(`the reviewer made ${rv.length} first requests, expected 2`);
      if (!rv[1].ctx.prompt.includes('ROUND=2') || !rv[1].ctx.prompt.includes('extra.txt')) t.fail(`the second reviewer's prompt is not the stale denial's: ${JSON.stringify(rv[1].ctx.prompt.slice(0, 300))}`);
      t.expectAnswers(run, 'subagent-stop', ['allow', 'allow'], 'each reviewer stopped after deciding');

      // 2. the push really happened, once
      const remote = path.join(run.dir, 'remote.git');
      const log = t.git(run.dir, '--git-dir', remote, 'log', '--format=%s', 'main').trim().split('\n');
      if (JSON.stringify(log) !== JSON.stringify(['change 1', 'initial commit'])) t.fail(`the bare remote's main has [${log.join(', ')}], expected change 1, initial commit`);

      // 3. no stop was blocked; the figures
      const stops = t.answers(run, 'stop');
      if (stops.some((a) => a !== 'allow')) t.fail(`a stop was blocked ([${stops.join(', ')}]); the gate asks for the reviews`);
      const m = t.metrics(run);
      if (m.reviewers !== 2) t.fail(`${m.reviewers} reviewers started, expected 2`);
      if (m.stop_blocks !== 0) t.fail(`${m.stop_blocks} stops blocked, expected none`);

      // 4. the session
      const s = t.loadSession(run, sid);
      t.expectTrace(s, { gate_blocked: 2, gate_allowed: 1, roz_decision: 2, approval_stale: 1 });
      const blocked = t.traceEvents(s, 'gate_blocked');
      if (!blocked[1].payload || blocked[1].payload.stale !== true) t.fail(`the second gate_blocked is not marked stale: ${JSON.stringify(blocked[1])}`);
      const ev = t.traceEvents(s, 'approval_stale')[0];
      if (JSON.stringify(ev.payload.files) !== '["extra.txt"]' || ev.payload.round !== 2) t.fail(`the approval_stale event is ${JSON.stringify(ev)}, expected files [extra.txt], round 2`);
      if (s.review.decision.type !== 'complete') t.fail(`final decision ${JSON.stringify(s.review.decision)}, expected complete`);
      if (s.review.circuit_breaker_tripped) t.fail('the circuit breaker tripped');
      const work = s.review.work || {};
      if ((work.stale || []).length) t.fail(`review.work.stale is ${JSON.stringify(work.stale)} after the last approval, expected none`);
      t.commonChecks(run);
    },
  };
}

module.exports = make();
module.exports.make = make;
