// Preload (node --import): records the module graph of this process and of every process it forks
// (they inherit the flag) into MODULE_GRAPH_FILE; see module-graph-hooks.mjs.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

register('./module-graph-hooks.mjs', import.meta.url);
const require = createRequire(import.meta.url);
process.on('exit', () => {
  if (process.env.MODULE_GRAPH_FILE)
    appendFileSync(
      process.env.MODULE_GRAPH_FILE,
      Object.keys(require.cache)
        .map((f) => `${f}\n`)
        .join(''),
    );
});
