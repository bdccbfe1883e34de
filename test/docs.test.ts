import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withCatalogues } from '../src/main/docs.js';

describe('README', () => {
  const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

  it('starts with the two commands', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(firstBlock).to.contain('npm ci && npm start').and.contain('npm test');
  });

  it('its rights and error catalogues match the code (run `npm run docs` after changing either)', () => {
    expect(readme).to.equal(withCatalogues(readme));
  });
});
