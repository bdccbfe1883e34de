import type { CheckResult } from '../plans/plan.js';
import { aIpv4 } from './a-ipv4.js';
import { aaaaIpv6 } from './aaaa-ipv6.js';
import { apexSoaNsServiceOwned } from './apex-soa-ns-service-owned.js';
import { belowDname } from './below-dname.js';
import { caaFlags } from './caa-flags.js';
import { caaIssuewild } from './caa-issuewild.js';
import { caaTag } from './caa-tag.js';
import { caaValue } from './caa-value.js';
import { cnameAtApex } from './cname-at-apex.js';
import { cnameChain } from './cname-chain.js';
import { cnameExclusive } from './cname-exclusive.js';
import { cnameLoop } from './cname-loop.js';
import { cnameSingle } from './cname-single.js';
import { danglingTarget } from './dangling-target.js';
import { delegationOnlyGlue } from './delegation-only-glue.js';
import { duplicateRecords } from './duplicate-records.js';
import { gluePresent } from './glue-present.js';
import { hostLabelUnderscore } from './host-label-underscore.js';
import { labelLength } from './label-length.js';
import { mxNull } from './mx-null.js';
import { mxTargetNotCname } from './mx-target-not-cname.js';
import { mxValue } from './mx-value.js';
import { nameLength } from './name-length.js';
import { nameSyntax } from './name-syntax.js';
import { nsApex } from './ns-apex.js';
import { nsCount } from './ns-count.js';
import { nsTargetNotCname } from './ns-target-not-cname.js';
import { ownerInZone } from './owner-in-zone.js';
import { rrsetSize } from './rrset-size.js';
import { rrsetSizeOver1232 } from './rrset-size-over-1232.js';
import { rrsetTtl } from './rrset-ttl.js';
import { changeDuplicate } from './change-duplicate.js';
import { createExisting } from './create-existing.js';
import { currentMismatch } from './current-mismatch.js';
import type { InputRule } from './input-rule.js';
import { inputSyntax } from './input-syntax.js';
import { recordType } from './record-type.js';
import { zoneFileSyntax } from './zone-file-syntax.js';
import type { Rule, ZoneView } from './rule.js';
import { soaApex } from './soa-apex.js';
import { soaTimers } from './soa-timers.js';
import { soaValue } from './soa-value.js';
import { spfLookupCount } from './spf-lookup-count.js';
import { spfSingle } from './spf-single.js';
import { spfType } from './spf-type.js';
import { srvOwnerFormat } from './srv-owner-format.js';
import { srvTargetNotCname } from './srv-target-not-cname.js';
import { srvValue } from './srv-value.js';
import { targetNotAddress } from './target-not-address.js';
import { targetSyntax } from './target-syntax.js';
import { ttlRange } from './ttl-range.js';
import { txtStringLength } from './txt-string-length.js';
import { txtOctets } from './txt-octets.js';
import { valueLength } from './value-length.js';
import { wildcardPosition } from './wildcard-position.js';
import { wildcardSoaNs } from './wildcard-soa-ns.js';

export type { Rule, ZoneView } from './rule.js';
export { makeView, indexSets } from './rule.js';

/** Every zone rule ("The checks"), errors first. */
export const RULES: readonly Rule[] = [
  // names
  nameSyntax,
  labelLength,
  nameLength,
  ownerInZone,
  wildcardPosition,
  wildcardSoaNs,
  // TTLs and sets
  ttlRange,
  rrsetTtl,
  duplicateRecords,
  rrsetSize,
  // CNAME
  cnameExclusive,
  cnameSingle,
  cnameAtApex,
  cnameLoop,
  // apex
  soaApex,
  nsApex,
  apexSoaNsServiceOwned,
  // targets
  targetSyntax,
  targetNotAddress,
  nsTargetNotCname,
  mxTargetNotCname,
  srvTargetNotCname,
  // per type
  aIpv4,
  aaaaIpv6,
  mxValue,
  mxNull,
  srvOwnerFormat,
  srvValue,
  caaFlags,
  caaTag,
  caaValue,
  txtStringLength,
  txtOctets,
  valueLength,
  soaValue,
  spfSingle,
  // delegations and DNAME
  delegationOnlyGlue,
  belowDname,
  gluePresent,
  // warnings
  spfType,
  spfLookupCount,
  nsCount,
  danglingTarget,
  cnameChain,
  hostLabelUnderscore,
  caaIssuewild,
  rrsetSizeOver1232,
  soaTimers,
];

export const runRules = (zone: ZoneView, rules: readonly Rule[] = RULES): CheckResult[] => rules.flatMap((r) => r.check(zone));

/** Rules about the plan's input (reported by the plan builder and the zone-file parser). */
export const INPUT_RULES: readonly InputRule[] = [
  currentMismatch,
  createExisting,
  changeDuplicate,
  inputSyntax,
  recordType,
  zoneFileSyntax,
];
