// Mocha settings for `npm test`. Under CI a stray `.only` fails the run instead of running one test.
module.exports = {
  'node-option': ['import=tsx'],
  spec: ['test/**/*.test.ts', 'adapters/**/*.test.ts'],
  extension: ['ts'],
  timeout: 20000,
  reporter: 'spec',
  exit: true,
  'forbid-only': Boolean(process.env.CI),
};
