// roz-issues-loop with a reviewer's message of 30,000 characters, three
// times what Claude Code shows of a hook's answer inline: the agent is given
// the message's start within roz's bound, with the SESSION_ID line and a
// note that `roz context` shows the rest, and the loop ends as usual.
'use strict';
module.exports = require('./roz-issues-loop.js').make({ long: true });
