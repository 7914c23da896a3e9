// roz-issues-loop with slow reviewers (each reads for 4 s before deciding):
// the same blocks, reviewers and model requests as with fast ones.
'use strict';
module.exports = require('./roz-issues-loop.js').make({ slow: 4 });
