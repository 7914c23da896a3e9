// roz under parallel tool calls, gated variant of roz-parallel.js: the gate
// `Bash:git status*` matches three of the six parallel read-only commands.
// All three are denied (three `roz hook pre-tool-use` processes write the
// session at the same time), the other three run, and the trace has exactly
// three gate_blocked events (none lost to a concurrent write).
'use strict';
const { make } = require('./roz-parallel.js');

module.exports = make({ gate: 'Bash:git status*', gated: true });
