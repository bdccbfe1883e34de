/**
 * The TypeScript type of the values a JSON Schema accepts, so a route's handler is typed by the very
 * schema ajv validates its input with (STYLE 15). It covers the keywords our route schemas use — type
 * (one or a list), enum, const, properties + required, items, oneOf / anyOf — and reads nothing else
 * (patterns, lengths and limits narrow values, not types). Written here rather than taken from
 * json-schema-to-ts: that package types all of JSON Schema, which costs compile time on every route,
 * and ours need only this much. test/unit/schema-type.test.ts pins what it answers.
 *
 * Schemas must keep their literal types: declare them inline in a route, or through `schema()`.
 */
export type FromSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly oneOf: readonly (infer O)[] }
      ? Branches<S, O>
      : S extends { readonly anyOf: readonly (infer O)[] }
        ? Branches<S, O>
        : S extends { readonly type: infer T }
          ? T extends readonly (infer U)[]
            ? OfType<U, S>
            : OfType<T, S>
          : S extends { readonly properties: object }
            ? Obj<S>
            : unknown;

type OfType<T, S> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? FromSchema<I>[]
            : unknown[]
          : T extends 'object'
            ? Obj<S>
            : unknown;

/** A branch that is a whole schema stands alone; one that only adds `required` (one field of several) narrows the schema it sits in. */
type Branches<S, O> = O extends unknown
  ? O extends { readonly type: unknown } | { readonly enum: unknown } | { readonly const: unknown } | { readonly properties: unknown }
    ? FromSchema<O>
    : FromSchema<Omit<S, 'oneOf' | 'anyOf'> & O>
  : never;

type Required<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type Obj<S> = S extends { readonly properties: infer P }
  ? Flat<
      { -readonly [K in keyof P & Required<S>]: FromSchema<P[K]> } & { -readonly [K in Exclude<keyof P, Required<S>>]?: FromSchema<P[K]> }
    >
  : Record<string, unknown>;

type Flat<T> = { [K in keyof T]: T[K] } & {};

/** Declares a schema shared by several routes, keeping its literal types (a `const` type parameter, no cast). */
export const schema = <const S extends Record<string, unknown>>(s: S): S => s;
