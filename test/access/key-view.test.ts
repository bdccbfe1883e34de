import { expect } from 'chai';
import { apiKeyFixture } from '../support/api-key.js';
import { keyStatus, viewKey } from '../../core/access/key-view.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import { endOfKyivDay } from '../../core/kernel/dates.js';

const key = (over: Partial<ApiKey> = {}): ApiKey =>
  apiKeyFixture({
    id: 'AAAAAAAAAAAA',
    name: 'view',
    conditions: { cidr: null, expiresOn: '2026-11-25', spendLimit: null },
    createdAt: new Date('2026-11-20T10:00:00Z'),
    ...over,
  });

describe('a key as the API shows it (DESIGN: status, Kyiv expiry)', () => {
  it('is active through the last millisecond of its Kyiv expiry day, expired after it; revoked wins', () => {
    const end = endOfKyivDay('2026-11-25');
    expect(keyStatus(key(), end)).to.equal('active');
    expect(keyStatus(key(), new Date(end.getTime() + 1))).to.equal('expired');
    expect(viewKey(key(), new Date(end.getTime() + 1)).status).to.equal('expired');
    expect(keyStatus(key({ revokedAt: new Date('2026-11-21T00:00:00Z') }), end)).to.equal('revoked');
  });

  it('shows the revocation time once revoked, null before', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    expect(viewKey(key(), now).revoked_at).to.equal(null);
    expect(viewKey(key({ revokedAt: new Date('2026-11-21T11:00:00Z') }), now).revoked_at).to.equal('2026-11-21T11:00:00.000Z');
  });
});
