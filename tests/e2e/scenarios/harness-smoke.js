// Harness self-test: one prompt, one text answer, no plugin.
'use strict';
module.exports = {
  prompt: 'Say hello.',
  timeout: 60,
  plugin: false, // tests the harness, not roz
  reply(ctx) {
    return 'Hello from the fake model.';
  },
  check(run) {
    const result = run.stream.find((e) => e.type === 'result');
    if (!result) return 'no result event in stream.jsonl';
    if (result.is_error) return `result is an error: ${JSON.stringify(result)}`;
    if (!String(result.result).includes('Hello from the fake model.')) return `unexpected result ${result.result}`;
    if (!run.model.some((e) => e.kind === 'main')) return 'the fake model saw no main-conversation request';
  },
};
