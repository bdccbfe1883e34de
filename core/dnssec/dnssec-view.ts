import { presentDnskey } from './foreign-keys.js';
import type { DnssecState, Rollover } from './dnssec-state.js';
import { dsAtParentOf } from './parent-ds.js';

type RolloverView = {
  kind: 'csk' | 'algorithm';
  step: string;
  next_step_at: string | null;
  started_at: string;
  old_key_tag: number;
  new_key_tag: number;
  steps: Array<{ step: string; at: string; note?: string }>;
};

/** GET/PUT /v1/domains/{domain}/dnssec (DESIGN: DNSSEC). No private key material, ever. */
export interface DnssecView {
  enabled: boolean;
  algorithm: number | null;
  status: string | null;
  /** The parent holds our DS (DNSSEC on), or any DS (DNSSEC off: a stray one to remove), as the registry tells. */
  ds_at_parent: boolean;
  /** Every DS the registry holds for the domain; null when it cannot tell (a hosted domain, no answer). */
  parent_ds: string[] | null;
  keys: Array<{
    tag: number;
    algorithm: number;
    flags: number;
    role: string;
    state: string;
    dnskey: string;
    created_at: string;
    published_at: string | null;
    active_at: string | null;
    retired_at: string | null;
  }>;
  ds: string[];
  /** Other operators' keys our DNSKEY set carries (RFC 8901 model 2): a signed zone moving in or out. */
  foreign_keys: Array<{ tag: number; algorithm: number; flags: number; dnskey: string; added_at: string; note: string | null }>;
  signatures: { inception: string; expiration: string } | null;
  /** While "disabling": when signing stops (account time). */
  stop_signing_at: string | null;
  /** The rollover under way (status "rolling"), else null; its steps with their times. */
  rollover: RolloverView | null;
  /** The last finished rollover's timeline, and when the next automatic one starts. */
  last_rollover: RolloverView | null;
  next_rollover_at: string | null;
}

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

const rolloverView = (r: Rollover | null | undefined, finished: boolean): RolloverView | null =>
  r
    ? {
        kind: r.kind,
        step: r.step,
        next_step_at: finished ? null : r.nextAt.toISOString(),
        started_at: r.startedAt.toISOString(),
        old_key_tag: r.oldKeyTag,
        new_key_tag: r.newKeyTag,
        steps: r.history.map((h) => ({ step: h.step, at: h.at.toISOString(), ...(h.note ? { note: h.note } : {}) })),
      }
    : null;

export const dnssecView = (s: DnssecState | null, window: { inception: number; expiration: number } | null): DnssecView =>
  s === null
    ? {
        enabled: false,
        algorithm: null,
        status: null,
        ds_at_parent: false,
        parent_ds: null,
        keys: [],
        ds: [],
        foreign_keys: [],
        signatures: null,
        stop_signing_at: null,
        rollover: null,
        last_rollover: null,
        next_rollover_at: null,
      }
    : {
        enabled: true,
        algorithm: s.algorithm,
        status: s.status,
        ds_at_parent: s.dsAtParent,
        parent_ds: null,
        keys: s.keys.map((k) => ({
          tag: k.tag,
          algorithm: k.algorithm,
          flags: k.flags,
          role: k.role,
          state: k.state,
          dnskey: presentDnskey(k),
          created_at: k.createdAt.toISOString(),
          published_at: iso(k.publishedAt),
          active_at: iso(k.activeAt),
          retired_at: iso(k.retiredAt),
        })),
        ds: s.keys.filter((k) => k.state === 'active').map((k) => k.ds),
        foreign_keys: (s.foreignKeys ?? []).map((k) => ({
          tag: k.tag,
          algorithm: k.algorithm,
          flags: k.flags,
          dnskey: presentDnskey(k),
          added_at: k.addedAt.toISOString(),
          note: k.note,
        })),
        signatures: window
          ? { inception: new Date(window.inception * 1000).toISOString(), expiration: new Date(window.expiration * 1000).toISOString() }
          : null,
        stop_signing_at: iso(s.stopSigningAt),
        rollover: rolloverView(s.rollover, false),
        last_rollover: rolloverView(s.lastRollover, true),
        next_rollover_at: iso(s.nextRolloverAt),
      };

/** The view with what the registry holds (parent-ds.ts): it, not our record of what we sent, is the authority. */
export const withParentDs = (
  view: DnssecView,
  state: Pick<DnssecState, 'keys' | 'dsAtParent'> | null,
  held: readonly string[] | null,
): DnssecView => ({ ...view, ds_at_parent: dsAtParentOf(state, held), parent_ds: held ? [...held] : null });
