// roz's circuit breaker with `[circuit_breaker] max_blocks = 5` in config:
// exactly five blocks reach the model, the sixth stop is let through.
'use strict';
const { make } = require('./roz-stop-loop.js');

module.exports = make(5, '[circuit_breaker]\nmax_blocks = 5\n');
