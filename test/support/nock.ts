import nock from 'nock';

/**
 * nock replaces node:http's ClientRequest for the whole process the moment it is imported. Left on,
 * every other suite's HTTP goes through its interceptor layer: slower, and a keep-alive client of the
 * hostile suites hung in it. So nock is off between the suites that use it: `useNock()` in a describe
 * turns it on for that describe only and restores node:http afterwards.
 */
nock.restore();

export const useNock = (): void => {
  before(() => {
    if (!nock.isActive()) nock.activate();
  });
  after(() => {
    nock.cleanAll();
    nock.enableNetConnect();
    nock.restore();
  });
};

export default nock;
