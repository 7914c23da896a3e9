// roz-happy-path with the reviewer started in the background
// (run_in_background: true) on every version: the agent ends its turn once
// the reviewer has started, is woken by the notification, and stops.
'use strict';
module.exports = require('./roz-happy-path.js').make({ background: true, slow: 2 });
