// Module hooks for tests (node --import test/support/module-graph.mjs): every module a process loads,
// ESM through the resolve hook and CommonJS from require.cache at exit, is appended to MODULE_GRAPH_FILE.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (process.env.MODULE_GRAPH_FILE) appendFileSync(process.env.MODULE_GRAPH_FILE, `${r.url}\n`);
  return r;
}
