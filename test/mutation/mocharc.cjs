// Mocha settings for the mutation run (stryker.config.mjs): tsx is loaded by Stryker's node arguments.
// A generous timeout: instrumented code under two runners on a shared machine is several times slower.
module.exports = { extension: ['ts'], timeout: 300000 };
