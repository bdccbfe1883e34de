// Mocha settings for `npm test`. Under CI a stray `.only` fails the run instead of running one test.
module.exports = {
  'node-option': ['import=tsx'],
  spec: ['test/**/*.test.ts', 'adapters/**/*.test.ts'],
  extension: ['ts'],
  timeout: 30000,
  // Two test files at a time, each in its own process: the suite spends most of its time waiting on peers
  // (Pebble, Knot, Chromium, child servers) with one core idle; two jobs take CI from ~51 to ~30 minutes.
  // Every suite already makes its own database, ports and temporary directories.
  parallel: true,
  jobs: 2,
  reporter: 'spec',
  exit: true,
  'forbid-only': Boolean(process.env.CI),
};
