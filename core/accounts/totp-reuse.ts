import type { TotpVerifier } from './ports/credentials.port.js';

/**
 * After a refused code: was it a right code of a step used already (RFC 6238 §5.2 forbids a second use)?
 * Then the person is told so ("wait for the next one") instead of "wrong code". Asked only once the
 * password (or the session) has been proved, so it tells an attacker nothing they do not hold already.
 */
export const totpReused = async (totp: TotpVerifier, secret: string, code: string, at: Date, lastStep: number | null): Promise<boolean> => {
  if (lastStep === null) return false;
  const step = await totp.verify(secret, code, at, null);
  return step !== null && step <= lastStep;
};
