import { generateSecret, generateURI, verify } from 'otplib';
import type { TotpVerifier } from '../../../core/accounts/ports/credentials.port.js';

/** RFC 6238 TOTP (30 s, 6 digits, SHA-1 — what authenticator apps support) through otplib. */
export class OtplibTotp implements TotpVerifier {
  /** Accept the previous and the next 30-second step for clock drift (RFC 6238 §5.2). */
  constructor(private readonly toleranceSeconds = 30) {}

  generateSecret(): string {
    return generateSecret();
  }

  async verify(secret: string, code: string, at: Date, afterStep: number | null): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(at.getTime() / 1000),
      epochTolerance: this.toleranceSeconds,
      ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
    });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }

  uri(secret: string, label: string): string {
    return generateURI({ issuer: 'Domivka', label, secret });
  }
}
