// roz-happy-path with a slow reviewer (it reads for 4 s before deciding): the
// blocks, reviewers and model requests must be the same as with a fast one.
'use strict';
module.exports = require('./roz-happy-path.js').make({ slow: 4 });
