import type { JsonSchema } from '../../../adapters/http/route.js';

/**
 * A valid value for a route's JSON schema (the same schema the app validates with), so a route whose
 * right comes from its body (a resolver) can be exercised without a hand-written sample. Strings under a
 * property whose name says "domain" get the domain under test.
 */
export const sampleOf = (schema: JsonSchema | undefined, domain: string, prop = ''): unknown => {
  if (!schema) return undefined;
  const s = schema as Record<string, any>;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) {
    const first = (s.oneOf ?? s.anyOf)[0] as Record<string, any>;
    if (first.type || first.properties) return sampleOf({ ...first }, domain, prop);
    // oneOf of "required" alternatives over the outer properties: satisfy the first only.
    return sampleOf(
      { ...s, oneOf: undefined, anyOf: undefined, required: [...(s.required ?? []), ...(first.required ?? [])] },
      domain,
      prop,
    );
  }
  switch (type ?? (s.properties ? 'object' : undefined)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of (s.required ?? []) as string[]) out[name] = sampleOf(s.properties?.[name] ?? { type: 'string' }, domain, name);
      return out;
    }
    case 'array': {
      const n = Math.max(1, s.minItems ?? 1);
      return Array.from({ length: n }, () => sampleOf(s.items, domain, prop));
    }
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string': {
      if (/domain|host/i.test(prop)) return domain;
      if (s.format === 'date') return '2030-01-01';
      if (s.format === 'date-time') return '2030-01-01T00:00:00Z';
      if (s.format === 'email') return 'hostile@example.com';
      if (s.format === 'uri') return 'https://example.com/hook';
      const min = s.minLength ?? 1;
      return 'x'.repeat(Math.max(min, 1)).slice(0, s.maxLength ?? 1000);
    }
    default:
      return null;
  }
};
