import { loadConfig } from '../config.js';
import { System } from '../system.js';

/** `npm run migrate`: applies migrations and exits. */
const system = await System.create(loadConfig());
await system.migrate();
await system.close();
process.stdout.write('migrations applied\n');
