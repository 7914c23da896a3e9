// roz-gate with the reviewer of each gated push started in the background
// (run_in_background: true) on every version.
'use strict';
module.exports = require('./roz-gate.js').make({ background: true });
