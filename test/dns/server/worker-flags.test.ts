import { expect } from 'chai';
import { workerExecArgv } from '../../../adapters/dns/cluster.js';

/**
 * A DNS worker runs with a small young generation whatever its parent runs with (`npm start` gives the API
 * 64 MB semi-spaces, which a worker would grow to while loading every zone and keep): the parent's other
 * node flags are passed on as they are.
 */
describe('DNS cluster: the node flags of a worker', () => {
  it("replaces the parent's semi-space size with the worker's and keeps every other flag in order", () => {
    expect(workerExecArgv(['--enable-source-maps', '--max-semi-space-size=64', '--import', 'tsx'])).to.deep.equal([
      '--enable-source-maps',
      '--import',
      'tsx',
      '--max-semi-space-size=1',
    ]);
    expect(workerExecArgv(['--max_semi_space_size=32'])).to.deep.equal(['--max-semi-space-size=1']);
    expect(workerExecArgv([])).to.deep.equal(['--max-semi-space-size=1']);
  });
});
