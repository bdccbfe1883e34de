/**
 * A dependencies object with defaults for what the caller left out or set to undefined — what default
 * parameters did when constructors took positions.
 */
export const withDefaults = <T extends object, D extends Partial<T>>(deps: T, defaults: D): Required<T> => {
  const out: Record<string, unknown> = { ...defaults };
  for (const [k, v] of Object.entries(deps)) if (v !== undefined) out[k] = v;
  return out as Required<T>;
};
