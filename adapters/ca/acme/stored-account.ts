import { readFileSync } from 'node:fs';
import type { AcmeCertificateAuthority } from './index.js';
import type { CertificateAuthority, IssueOrder, IssuedCertificate } from '../../../core/certificates/ports/certificate-authority.port.js';
import type { SecretBox } from '../../../core/kernel/secret-box.port.js';

/** Where the ACME account key is kept (sealed), one per directory URL; the SQL store serves it. */
export interface AcmeAccountKeys {
  acmeAccountKey(directoryUrl: string): Promise<string | null>;
  /** Saves the key unless one is there already, and returns the one kept. */
  saveAcmeAccountKeyIfAbsent(directoryUrl: string, keySealed: string): Promise<string>;
}

/**
 * The ACME adapter with its account key kept in the store (sealed with DATA_KEY), one per directory
 * URL, so every process and every restart uses one ACME account. Built on first use.
 */
export class StoredAccountAcmeCa implements CertificateAuthority {
  readonly kind = 'acme' as const;
  private ca: Promise<AcmeCertificateAuthority> | null = null;

  constructor(
    private readonly options: { directoryUrl: string; email: string | null; caFile: string | null },
    private readonly material: AcmeAccountKeys,
    private readonly box: SecretBox,
  ) {}

  private instance(): Promise<AcmeCertificateAuthority> {
    this.ca ??= (async () => {
      // Loaded on first use: processes whose test CA is the sandbox never load acme-client.
      const { AcmeCertificateAuthority } = await import('./index.js');
      const { directoryUrl, email, caFile } = this.options;
      let sealed = await this.material.acmeAccountKey(directoryUrl);
      if (!sealed) {
        const fresh = new AcmeCertificateAuthority({
          directoryUrl,
          termsOfServiceAgreed: true,
          ...(caFile ? { caPem: readFileSync(caFile, 'utf8') } : {}),
        });
        sealed = await this.material.saveAcmeAccountKeyIfAbsent(directoryUrl, this.box.seal(await fresh.accountKeyPem()));
      }
      return new AcmeCertificateAuthority({
        directoryUrl,
        termsOfServiceAgreed: true,
        accountKeyPem: this.box.open(sealed),
        ...(email ? { email } : {}),
        ...(caFile ? { caPem: readFileSync(caFile, 'utf8') } : {}),
      });
    })().catch((err: unknown) => {
      this.ca = null;
      throw err;
    });
    return this.ca;
  }

  async issue(order: IssueOrder): Promise<IssuedCertificate> {
    return (await this.instance()).issue(order);
  }

  async revoke(certificatePem: string, reason?: number): Promise<void> {
    return (await this.instance()).revoke(certificatePem, reason);
  }

  async rootPem(): Promise<string | null> {
    return null;
  }
}
