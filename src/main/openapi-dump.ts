import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../config.js';
import { System } from '../system.js';

/** Writes the OpenAPI document to a file (for linting in CI). Touches no store. */
const out = process.argv[2] ?? 'var/openapi.json';
const system = await System.create(
  { ...loadConfig({ ...process.env, DATABASE_URL: ':memory:', VAR_DIR: 'var' }) },
  { logger: pino({ level: 'silent' }) },
);
const { routes } = system.http();
const doc = routes.find((r) => r.id === 'openapi')!;
const reply = await doc.handle({ params: {}, query: {}, body: undefined, ip: '127.0.0.1' });
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(reply.body, null, 2));
await system.close();
process.stdout.write(`wrote ${out}\n`);
