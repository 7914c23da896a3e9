// roz-stale with the reviewer started in the background
// (run_in_background: true) on every version: the agent ends its turn once
// each reviewer has started, is woken by the notification; after the first
// approval it writes extra.txt, its stop is blocked as stale, the second
// reviewer (again in the background) approves, and the stop after its
// notification is allowed.
'use strict';
module.exports = require('./roz-stale.js').make({ background: true, slow: 2 });
