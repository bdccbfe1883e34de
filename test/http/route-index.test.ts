import { expect } from 'chai';
import Router from '@koa/router';
import { RouteIndex } from '../../adapters/http/route-index.js';
import type { Route } from '../../adapters/http/index.js';
import { STORES } from '../support/stores.js';
import { startApi } from '../support/system.js';

const koaPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Parameter values: plain, upper case, percent-encoded (valid, invalid, an encoded slash), non-ASCII. */
const VALUES = ['domivka-demo.com.ua', 'ABC', 'a%20b', '%E0%A4%A', '%2F', 'приклад.укр', 'x'];

/** Paths near each pattern: as declared, with its parameters filled, in other cases, with slashes added or taken away. */
const pathsNear = (pattern: string): string[] => {
  const out = new Set<string>();
  for (const v of VALUES) {
    const p = pattern.replace(/:(\w+)/g, () => v);
    out.add(p);
    out.add(`${p}/`);
    out.add(`${p}//`);
    out.add(p.toUpperCase());
    out.add(p.replace(/^\/v1\//, '/V1/'));
    out.add(`${p}/extra`);
    out.add(p.slice(0, p.lastIndexOf('/')) || '/');
    out.add(p.replace(/\//g, '//'));
    // Characters that upper- or lower-case to ASCII letters: a pattern without the u flag matches none of them.
    out.add(p.replace(/k/g, '\u212a').replace(/s/g, '\u017f'));
    out.add(p.replace(/i/g, '\u0130'));
    out.add(p.replace(/d/g, '%64'));
  }
  return [...out];
};

describe('The route index picks the route @koa/router would, testing only a few patterns', () => {
  let routes: Route[];
  before(async () => {
    const api = await startApi(STORES[0]!);
    routes = api.system.http().routes;
    await api.close();
  });

  it('for every route of the API, and paths near each, the same route and the same decoded parameters (or none)', () => {
    const router = new Router();
    for (const r of routes) router[r.method.toLowerCase() as 'get'](koaPath(r.path), async () => undefined);
    const index = RouteIndex.of<unknown>(router);
    const paths = new Set(['/', '', '/v1', '/v1/', '//', '/console/', '/healthz', '/HEALTHZ/', '/v1/domains', '/V1/DOMAINS/']);
    for (const r of routes) for (const p of pathsNear(koaPath(r.path))) paths.add(p);
    let matched = 0;
    let compared = 0;
    for (const path of paths) {
      for (const method of METHODS) {
        const layer = router.match(path, method).pathAndMethod[0];
        const expected = layer ? { path: layer.path, params: layer.params(path, layer.captures(path)) } : null;
        const found = index.find(method, path);
        const actual = found ? { path: found.route.path, params: found.params } : null;
        expect(actual, `${method} ${path}`).to.deep.equal(expected);
        compared++;
        if (expected) matched++;
      }
    }
    expect(routes.length).to.be.greaterThan(50);
    expect(matched, 'requests that found a route').to.be.greaterThan(routes.length * 10);
    expect(compared - matched, 'requests that found none').to.be.greaterThan(routes.length * 10);
  });

  it('the first route declared wins where two patterns match, as in the router', () => {
    const router = new Router();
    router.get('/v1/things/:id', async () => undefined);
    router.get('/v1/things/special', async () => undefined);
    router.get('/v1/:kind/special', async () => undefined);
    router.post('/v1/:kind/special', async () => undefined);
    const index = RouteIndex.of<unknown>(router);
    expect(index.find('GET', '/v1/things/special')?.route.path).to.equal('/v1/things/:id');
    expect(index.find('GET', '/v1/others/special')?.route.path).to.equal('/v1/:kind/special');
    expect(index.find('HEAD', '/v1/others/special')?.params).to.deep.equal({ kind: 'others' });
    expect(index.find('POST', '/v1/things/special')?.route.path).to.equal('/v1/:kind/special');
    expect(index.find('DELETE', '/v1/things/special')).to.equal(null);
  });
});
