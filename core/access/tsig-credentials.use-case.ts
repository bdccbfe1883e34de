import { TSIG_ALGORITHMS, type ApiKey, type TsigAlgorithmName } from '../kernel/caller.js';
import { DomainError } from '../kernel/errors.js';
import type { Actor } from '../kernel/person.js';
import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import { keyStatus } from './key-view.js';
import type { KeyRepository } from './ports/key-repository.port.js';
import { DNS_RIGHTS, newTsigCredential } from './tsig-credential.js';

/** What TsigCredentials is built from (one object, named, instead of positions). */
export interface TsigCredentialsDeps extends RecordingDeps {
  readonly keys: Pick<KeyRepository, 'findById' | 'setTsig'>;
  readonly secretBox: SecretBox;
}

/** A key's TSIG credential as anyone who may see the key sees it: its name and algorithm, never the secret. */
export interface TsigCredentialView {
  readonly name: string;
  readonly algorithm: TsigAlgorithmName;
}

/**
 * A key's TSIG credential (DNS UPDATE, signed queries and transfers). Keys issued before TSIG existed have
 * none: a person may give one to an active key that holds a DNS right — once; the secret is shown that
 * once and kept only sealed. A key that has one keeps it (a lost secret: revoke the key, issue a new one,
 * as for the key itself). Who may: as for revoking, an owner any key of the account, a member their own.
 */
export class TsigCredentials {
  constructor(private readonly deps: TsigCredentialsDeps) {}

  async show(actor: Actor, keyId: string): Promise<TsigCredentialView | null> {
    const key = await this.visible(actor, keyId);
    return key.tsig ? { name: key.tsig.name, algorithm: key.tsig.algorithm } : null;
  }

  async issue(actor: Actor, keyId: string, algorithm: string = 'hmac-sha256'): Promise<TsigCredentialView & { readonly secret: string }> {
    if (!(TSIG_ALGORITHMS as readonly string[]).includes(algorithm)) {
      throw new DomainError('validation_failed', {}, [{ field: '/tsig_algorithm', rule: 'enum', value: algorithm }]);
    }
    return this.deps.uow.transaction(async () => {
      const key = await this.visible(actor, keyId);
      const status = keyStatus(key, this.deps.clock.now());
      if (status !== 'active') throw new DomainError('key_not_active', { key_id: key.id, status });
      if (!key.policies.some((p) => DNS_RIGHTS.includes(p.right))) throw new DomainError('tsig_right_missing', { key_id: key.id });
      if (key.tsig) throw new DomainError('tsig_credential_exists', { key_id: key.id, name: key.tsig.name });
      const made = newTsigCredential(this.deps, key.environment, algorithm as TsigAlgorithmName);
      // Only where none is set: two tabs issuing at once get one credential, and the other a refusal.
      if (!(await this.deps.keys.setTsig(key.id, made.stored))) {
        throw new DomainError('tsig_credential_exists', { key_id: key.id, name: '' });
      }
      return made.shown;
    });
  }

  private async visible(actor: Actor, keyId: string): Promise<ApiKey> {
    const key = await this.deps.keys.findById(keyId);
    // A key of another account, or a member's view of someone else's key, is simply not found.
    if (!key || key.accountId !== actor.accountId || (actor.role === 'member' && key.createdBy !== actor.personId)) {
      throw new DomainError('key_not_found', { key_id: keyId });
    }
    return key;
  }
}
