import { expect } from 'chai';

/** A response as the harness returns it. */
export type Res = { status: number; headers: Headers | Record<string, string>; body: any };

const CYRILLIC = /[\u0400-\u04FF]/;

/** The seed's error shape (section 7): a 4xx, a stable code, real uk and en text, actions, no internals. */
export const expectErrorShape = (r: Res, status?: number, code?: string): void => {
  const dump = JSON.stringify(r.body);
  if (status !== undefined) expect(r.status, dump).to.equal(status);
  expect(r.status, dump).to.be.within(400, 499);
  expect(r.body, dump).to.be.an('object');
  expect(Object.keys(r.body), dump).to.deep.equal(['error']);
  const e = r.body.error;
  if (code !== undefined) expect(e.code, dump).to.equal(code);
  expect(e.code).to.match(/^[a-z][a-z0-9_]*$/);
  expect(e.message.uk, dump).to.be.a('string').and.match(CYRILLIC);
  expect(e.message.en, dump).to.be.a('string').and.not.equal('').and.not.equal(e.message.uk);
  expect(e.actions).to.be.an('array');
  for (const a of e.actions) {
    expect(a.type).to.be.a('string').and.not.equal('');
    expect(a.href).to.be.a('string').and.match(/^\//);
  }
  expect(dump).not.to.match(/\bat [\w.<>]+ \(|node_modules|\.ts:\d+|Error:|stack/);
};
