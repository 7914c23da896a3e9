// roz-stale's no-change case: the reviewer approves and the agent does
// nothing more before it stops. Binding the approval to the work must cost
// nothing here: the stop after the verdict is allowed, the main agent makes
// exactly the requests it made before approvals were bound (one after the
// verdict, to hear it; no Stop feedback), the trace has no approval_stale,
// and the final Stop hook runs no git (no look at the working tree).
// The reviewer runs where Claude Code puts it (2.1.197: foreground,
// 2.1.331 and later: background).
'use strict';
module.exports = require('./roz-stale.js').make({ change: false });
