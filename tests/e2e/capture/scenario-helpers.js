// Pieces the capture scenarios (scenarios/capture-*.js) share: the Agent
// call, the reviewer's one Bash command, the shell loops with which a
// reviewer waits for something the main agent does, and how the main agent
// tells a task notification, Stop feedback and a background launch apart in
// every release. Each scenario then reads as the story it captures.
'use strict';

// The counter files record-hook.js keeps (one per event, plus
// Agent-<status> per Agent PostToolUse).
const counter = (name) => `"$ROZ_E2E_RESULTS/hook-count-${name}"`;

// Shell test: event `name` has fired at least `n` times.
function fired(name, n = 1) {
  return `[ "$(cat ${counter(name)} 2>/dev/null || echo 0)" -ge ${n} ]`;
}

// Shell loop waiting (at most `max` seconds) until `cond` holds. A reviewer
// that turned out to run in the foreground must not wait for the main
// agent's next Stop, which only comes after it: when no Agent call has come
// back "async_launched" within 2 s, the loop gives up.
function waitUntil(cond, { max = 30, foregroundGivesUp = true } = {}) {
  const giveUp = foregroundGivesUp ? ` || { [ $i -ge 20 ] && ! ${fired('Agent-async_launched')}; }` : '';
  return `i=0; until ${cond}${giveUp}; do i=$((i+1)); [ $i -ge ${max * 10} ] && break; sleep 0.1; done`;
}

// An Agent tool_use block; `background` undefined leaves run_in_background
// out, as a model does when nothing asks for it.
function agentCall(ctx, { type = 'roz:roz', description = 'Roz review', prompt, background } = {}) {
  const input = { subagent_type: type, description, prompt: prompt || `SESSION_ID=${ctx.sessionId} review` };
  if (type === null) delete input.subagent_type;
  if (background !== undefined) input.run_in_background = background;
  return { type: 'tool_use', name: 'Agent', input };
}

// An Agent call that runs the reviewer in the background the way a model
// following the tool's own description would: where run_in_background is
// offered as an opt-in (2.1.197: "Set to true to run this agent in the
// background") it asks for true; where agents run in the background by
// default, or the parameter is not offered (2.1.331), it leaves it out.
function backgroundAgentCall(ctx, opts = {}) {
  const tool = ((ctx.body && ctx.body.tools) || []).find((t) => t.name === 'Agent');
  const param = tool && tool.input_schema && tool.input_schema.properties && tool.input_schema.properties.run_in_background;
  const optIn = param && !/by default/.test(param.description || '');
  return agentCall(ctx, { ...opts, background: optIn ? true : undefined });
}

// The reviewer: one Bash command (after an optional wait), then its verdict.
function reviewer(ctx, { wait = '', echo = 'review-done', text } = {}) {
  if (ctx.turn === 0) {
    const command = `${wait ? `${wait}; ` : ''}echo ${echo}`;
    return [{ type: 'tool_use', name: 'Bash', input: { command, description: 'Reviewer command' } }];
  }
  return text || `Review for ${ctx.sessionId}: LGTM.`;
}

// Text of everything the conversation got since the model last spoke: the
// last user message and, in 2.1.331, messages with role "system" after it (a
// notification that arrives while the main agent works comes as one of
// those; ctx.lastUserText leaves them out).
function sinceLastReply(ctx) {
  const texts = [];
  for (let i = ctx.messages.length - 1; i >= 0 && ctx.messages[i].role !== 'assistant'; i--) {
    const m = ctx.messages[i];
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content || [];
    for (const b of blocks) if (b.type === 'text') texts.unshift(b.text);
  }
  return texts.join('\n');
}

// 2.1.197 shows a Stop block as "Stop hook feedback:\n<reason>", 2.1.331 as
// "Stop hook blocking error from command: ...: <reason>"; a notification is a
// bare <task-notification> (2.1.197) or one inside a <system-reminder> or a
// system message (2.1.331), several possibly at once.
const isNotification = (ctx) => sinceLastReply(ctx).includes('<task-notification>');
const notificationCount = (ctx) => (sinceLastReply(ctx).match(/<task-notification>/g) || []).length;
const isStopFeedback = (ctx) => /Stop hook (feedback|blocking error)/.test(sinceLastReply(ctx));
const launchedInBackground = (ctx) => ctx.toolResults.some((r) => r.text.includes('Async agent launched'));

// The main agent after its first turn: it waits for a background reviewer by
// ending its turn, acknowledges Stop feedback and notifications.
function mainAfter(ctx) {
  if (isNotification(ctx)) return `The roz review has reported back (${notificationCount(ctx)} notification(s)).`;
  if (isStopFeedback(ctx)) return 'Still waiting for the roz review.';
  if (launchedInBackground(ctx)) return 'roz reviews in the background; I will stop until it reports back.';
  return 'The roz review is finished.';
}

module.exports = {
  fired, waitUntil, agentCall, backgroundAgentCall, reviewer, sinceLastReply, isNotification, notificationCount, isStopFeedback,
  launchedInBackground, mainAfter,
};
