import { expect } from 'chai';
import { route, type Route } from '../../adapters/http/route.js';
import { schema, type FromSchema } from '../../adapters/http/schema-type.js';

/** Compile-time equality: `Is<A, B>` is `true` only when A and B are the same type. */
type Is<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const holds = <T extends true>(): T => true as T;

/**
 * Routes are typed by the schemas ajv validates with (STYLE 15): these are checked by the compiler
 * (npm run typecheck); the runtime assertions only make the file a spec.
 */
describe('Route handlers are typed by their JSON Schemas', () => {
  it('reads type, enum, required, items, nullable types and oneOf', () => {
    const s = schema({
      type: 'object',
      additionalProperties: false,
      required: ['name', 'kind'],
      properties: {
        name: { type: 'string', maxLength: 10 },
        kind: { type: 'string', enum: ['a', 'b'] },
        count: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
        note: { type: ['string', 'null'] },
        limit: { oneOf: [{ type: 'integer' }, { type: 'null' }] },
      },
    });
    expect(s.required).to.deep.equal(['name', 'kind']);
    expect(
      holds<
        Is<
          FromSchema<typeof s>,
          { name: string; kind: 'a' | 'b'; count?: number; tags?: string[]; note?: string | null; limit?: number | null }
        >
      >(),
    ).to.equal(true);
    const either = schema({
      type: 'object',
      oneOf: [{ required: ['x'] }, { required: ['y'] }],
      properties: { x: { type: 'string' }, y: { type: 'boolean' } },
    });
    expect(either.oneOf).to.have.length(2);
    expect(holds<Is<FromSchema<typeof either>, { x: string; y?: boolean } | { y: boolean; x?: string }>>()).to.equal(true);
  });

  it('gives a key route its key, a session route its person, and path parameters as strings', () => {
    const r: Route = route({
      id: 'probe',
      method: 'POST',
      path: '/v1/things/{domain}/parts/{id}',
      tag: 'Test',
      writes: true,
      summary: 'probe',
      access: { kind: 'key', rights: { names: ['dns.edit'], of: (i) => [{ right: 'dns.edit', domain: i.params.domain }] } },
      body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
      responses: { 200: { description: 'ok' } },
      handle: async (i) => {
        const typed: [string, string, string, number] = [i.key.id, i.params.domain, i.params.id, i.body.n];
        // @ts-expect-error: the body schema has no such field
        void i.body.other;
        return { status: 200, body: typed };
      },
    });
    expect(r.id).to.equal('probe');
  });
});
