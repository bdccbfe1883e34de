import { expect } from 'chai';
import { DomainError } from '../../core/kernel/errors.js';

/** The DomainError a call or a promise ends in; fails the test when it succeeds or throws anything else. */
export const refusal = async (p: Promise<unknown> | (() => unknown)): Promise<DomainError> => {
  let caught: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a DomainError').to.be.instanceOf(DomainError);
  return caught as DomainError;
};

/** A refusal as one line, `code {params}` (or 'none' when the call succeeds); anything but a DomainError is thrown on. */
export const refusalText = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return `${e.code} ${JSON.stringify(e.params)}`;
    throw e;
  }
  return 'none';
};
