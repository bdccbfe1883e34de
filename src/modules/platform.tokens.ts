import { token } from './token.js';
import type { Recorder } from '../../core/kernel/recorder.js';
import type { McpTools } from '../../adapters/mcp/index.js';
import type { Logger } from 'pino';
import type { SqlStore } from '../../adapters/sql/index.js';
import type { SecretHasher } from '../../core/kernel/secret-hasher.port.js';
import type { PasswordHasher, TotpVerifier } from '../../core/accounts/ports/credentials.port.js';
import type { Clock } from '../../core/kernel/clock.port.js';
import type { Environments } from '../../core/kernel/environments.port.js';
import type { Registrar } from '../../core/domains/ports/registrar.port.js';
import type { Payments } from '../../core/billing/ports/payments.port.js';
import type { CertificateAuthority } from '../../core/certificates/ports/certificate-authority.port.js';
import type { Random } from '../../core/kernel/random.port.js';
import type { SecretBox } from '../../core/kernel/secret-box.port.js';
import type { Config } from '../config.js';
import type { DelegationResolver } from '../../core/domains/ports/delegation-resolver.port.js';

/** Injection tokens of the platform capability (src/ binds them by explicit token; core/ has no decorators). */
export const PLATFORM_TOKENS = {
  Config: token<Config>('Config'),
  Logger: token<Logger>('Logger'),
  Store: token<SqlStore>('Store'),
  Clock: token<Clock>('Clock'),
  Random: token<Random>('Random'),
  SecretHasher: token<SecretHasher>('SecretHasher'),
  PasswordHasher: token<PasswordHasher>('PasswordHasher'),
  Totp: token<TotpVerifier>('Totp'),
  SecretBox: token<SecretBox>('SecretBox'),
  TestAdapters: token<EnvironmentAdapters>('TestAdapters'),
  LiveAdapters: token<EnvironmentAdapters>('LiveAdapters'),
  Environments: token<Environments<EnvironmentAdapters>>('Environments'),
  Recorder: token<Recorder>('Recorder'),
  Mcp: token<Pick<McpTools, 'handle'>>('Mcp'),
} as const;

/** One environment's adapter set: every capability's `Environments<…>` port is served by these. */
export interface EnvironmentAdapters {
  readonly registrar: Registrar;
  readonly payments: Payments;
  readonly ca: CertificateAuthority;
  /** Where the world's DNS delegates a hosted domain, and the TXT proof its outside nameservers serve. */
  readonly delegations: DelegationResolver;
}
