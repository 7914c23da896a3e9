// roz-three-tasks with every reviewer started in the background
// (run_in_background: true) on every version.
'use strict';
module.exports = require('./roz-three-tasks.js').make({ background: true });
