import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ERROR_TABLE, errorBody } from '../../adapters/http/index.js';
import { DEMO_EMAIL } from '../../core/sandbox/seed-demo.use-case.js';
import { DomainError, isDomainError } from '../../core/kernel/errors.js';
import { parseUah } from '../../core/kernel/money.js';
import { loadConfig } from '../config.js';
import { runMain } from './process.js';
import { System } from '../system.js';
import { TOKENS } from '../tokens.js';

/**
 * `npm run sandbox:key -- --rights R1,R2 --domains a.example,b.example | --label L [--cidr C]
 *  [--expires YYYY-MM-DD] [--spend-limit UAH] [--template T] [--name N] [--json]`
 *
 * Issues a test key for the sandbox demo account through the same use case a human uses (DESIGN).
 * Binds no port and starts no worker, so it runs beside `npm start` on the same store; it seeds the
 * demo account only if the store has none yet (never re-seeds).
 */
const USAGE = `usage: npm run sandbox:key -- (--rights R1,R2 | --template T) (--domains a.example,b.example | --label L)
       [--cidr 203.0.113.0/24] [--expires YYYY-MM-DD] [--spend-limit UAH] [--name NAME]
       [--tsig-algorithm hmac-sha256|hmac-sha512] [--json]`;

const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);

const main = async (): Promise<number> => {
  let args;
  try {
    args = parseArgs({
      options: {
        rights: { type: 'string' },
        template: { type: 'string' },
        domains: { type: 'string' },
        label: { type: 'string' },
        cidr: { type: 'string' },
        expires: { type: 'string' },
        'spend-limit': { type: 'string' },
        name: { type: 'string' },
        'tsig-algorithm': { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = loadConfig();
  const system = await System.create(config, { logger: pino({ level: 'warn' }, pino.destination(2)) });
  try {
    await system.migrate();
    const seeded = await system.get(TOKENS.SeedDemo).execute();
    if (seeded) {
      const file = join(config.varDir, 'demo-credentials.txt');
      writeFileSync(file, `Sandbox demo owner: ${seeded.email} / ${seeded.password} / TOTP secret ${seeded.totpSecret}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
      process.stderr.write(`Seeded the sandbox demo account; its sign-in is in ${file}\n`);
    }
    const owner = await system.store.accounts.findPersonByEmail(DEMO_EMAIL);
    if (!owner) throw new Error('the sandbox demo account is missing');
    let spendLimit: number | null = null;
    if (args['spend-limit'] !== undefined) {
      try {
        spendLimit = parseUah(args['spend-limit']);
      } catch {
        throw new DomainError('validation_failed', {}, [{ field: '--spend-limit', rule: 'format', value: args['spend-limit'] }]);
      }
    }
    const issued = await system.get(TOKENS.IssueKey).issue(
      { personId: owner.id, accountId: owner.accountId, role: owner.role },
      {
        environment: 'test',
        ...(args.name !== undefined ? { name: args.name } : {}),
        ...(args.template !== undefined ? { template: args.template } : {}),
        ...(args.rights !== undefined ? { rights: list(args.rights)! } : {}),
        ...(args.domains !== undefined ? { domains: list(args.domains)! } : {}),
        ...(args.label !== undefined ? { label: args.label } : {}),
        ...(args['tsig-algorithm'] !== undefined ? { tsig_algorithm: args['tsig-algorithm'] } : {}),
        conditions: { cidr: args.cidr ?? null, expires_on: args.expires ?? null, spend_limit: spendLimit },
      },
    );
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ id: issued.key.id, key: issued.secret, summary: issued.summary, tsig: issued.tsig })}\n`);
    } else {
      process.stdout.write(
        `Test key ${issued.key.id} issued for the sandbox demo account. It is shown once:\n\n  ${issued.secret}\n\n` +
          `${issued.summary.uk}\n\n${issued.summary.en}\n` +
          (issued.tsig
            ? `\nDNS UPDATE (TSIG) credential, also shown once: ${issued.tsig.algorithm}:${issued.tsig.name}:${issued.tsig.secret}\n`
            : ''),
      );
    }
    return 0;
  } catch (err) {
    if (!isDomainError(err)) throw err;
    const body = errorBody(err.code, err.params, err.details);
    if (args.json) process.stdout.write(`${JSON.stringify(body)}\n`);
    const details = (err.details ?? []).map((d) => `  - ${JSON.stringify(d)}`).join('\n');
    process.stderr.write(
      `error ${err.code} (HTTP ${ERROR_TABLE[err.code].status})\n  uk: ${body.error.message.uk}\n  en: ${body.error.message.en}\n${details ? `${details}\n` : ''}`,
    );
    return 1;
  } finally {
    await system.close();
  }
};

runMain(main);
