// roz-issues-loop with both reviewers started in the background
// (run_in_background: true) on every version: ISSUES reach the agent at the
// stop after the first notification, the fix gets its own reviewer.
'use strict';
module.exports = require('./roz-issues-loop.js').make({ background: true, slow: 2 });
