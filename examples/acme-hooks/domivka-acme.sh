#!/bin/sh
# Domivka ACME DNS-01 hook: adds or removes one TXT value at _acme-challenge.<host> through the Domivka
# API, with a key that needs only `dns.acme_challenge` for the zone.
#
#   domivka-acme.sh present NAME VALUE    add VALUE; returns once Domivka's DNS server answers with it
#   domivka-acme.sh cleanup NAME VALUE    remove the value `present` added (by the id it kept)
#
# NAME: _acme-challenge.<host> (trailing dot optional), the bare <host>, or *.<host>.
# This is exactly lego's exec-provider interface; certbot-auth.sh, certbot-cleanup.sh and dns_domivka.sh
# (acme.sh) call it too.
#
# Environment:
#   DOMIVKA_KEY        the API key (required; never printed, not passed on a command line)
#   DOMIVKA_KEY_FILE   or a file whose first line is the key (used when DOMIVKA_KEY is unset)
#   DOMIVKA_API        base URL (default http://127.0.0.1:8080)
#   DOMIVKA_DOMAIN     the zone (optional: otherwise the longest suffix of <host> the API accepts)
#   DOMIVKA_STATE_DIR  where `present` keeps challenge ids for `cleanup`
#                      (default ${XDG_RUNTIME_DIR:-/tmp}/domivka-acme)
#   DOMIVKA_TIMEOUT    seconds per HTTP request (default 60)
#
# Exit status: 0 done; 1 the API refused or could not be reached (its error code and English message
# are printed on stderr); 2 usage or configuration error.
set -u

me=domivka-acme

say() { printf '%s: %s\n' "$me" "$*"; }
err() { printf '%s: %s\n' "$me" "$*" >&2; }
die() { err "$1"; exit "${2:-1}"; }

usage() { die "usage: $0 present|cleanup NAME VALUE  (NAME: _acme-challenge.<host>[.], <host> or *.<host>)" 2; }

[ "$#" -eq 3 ] || usage
action=$1 name=$2 value=$3
case $action in present|cleanup) ;; *) usage ;; esac

api=${DOMIVKA_API:-http://127.0.0.1:8080}
api=${api%/}
if [ -z "${DOMIVKA_KEY:-}" ] && [ -n "${DOMIVKA_KEY_FILE:-}" ]; then
  [ -r "$DOMIVKA_KEY_FILE" ] || die "cannot read DOMIVKA_KEY_FILE=$DOMIVKA_KEY_FILE" 2
  IFS= read -r DOMIVKA_KEY <"$DOMIVKA_KEY_FILE" || [ -n "${DOMIVKA_KEY:-}" ] || die "DOMIVKA_KEY_FILE=$DOMIVKA_KEY_FILE is empty" 2
fi
[ -n "${DOMIVKA_KEY:-}" ] || die "DOMIVKA_KEY is not set (a key holding dns.acme_challenge for the zone; or DOMIVKA_KEY_FILE)" 2
case $DOMIVKA_KEY in *[!A-Za-z0-9_-]*) die "DOMIVKA_KEY is not a Domivka key (dmk_live_… or dmk_test_…)" 2 ;; esac
command -v curl >/dev/null 2>&1 || die "curl is required" 2
timeout=${DOMIVKA_TIMEOUT:-60}
state_dir=${DOMIVKA_STATE_DIR:-${XDG_RUNTIME_DIR:-/tmp}/domivka-acme}

# The host the challenge is for: lower case, no trailing dot, no _acme-challenge. or *. prefix.
host=$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]')
host=${host%.}
host=${host#_acme-challenge.}
host=${host#\*.}
case $host in
  '' | *[!a-z0-9.-]* | .* | *..*) die "not a host name: '$name'" 2 ;;
esac
fqdn="_acme-challenge.$host"
# ACME values are base64url; anything that would need JSON escaping is refused here.
case $value in
  '' | *[!A-Za-z0-9_.~+/=-]*) die "unexpected characters in the TXT value for $fqdn" 2 ;;
esac

umask 077
if ! mkdir -p "$state_dir" 2>/dev/null || [ ! -w "$state_dir" ]; then
  die "cannot write the state directory $state_dir (set DOMIVKA_STATE_DIR)" 2
fi
tmp=$(mktemp "$state_dir/.http.XXXXXX") || die "mktemp failed in $state_dir" 2
trap 'rm -f "$tmp" "$tmp.h" "$tmp.e"' EXIT
trap 'exit 1' HUP INT TERM

# A short stable digest (for the state file name and the Idempotency-Key).
digest() {
  if command -v sha256sum >/dev/null 2>&1; then printf '%s' "$1" | sha256sum | cut -c1-40
  elif command -v openssl >/dev/null 2>&1; then printf '%s' "$1" | openssl dgst -sha256 | sed 's/^.*= *//' | cut -c1-40
  else printf '%s' "$1" | cksum | tr ' ' '-'
  fi
}
state="$state_dir/$(digest "$fqdn $value")"

# The first string value of "KEY" in the JSON body (the API answers compact JSON).
json_str() {
  tr -d '\n' <"$tmp" | awk -v k="\"$1\":\"" '{
    i = index($0, k); if (!i) exit
    s = substr($0, i + length(k)); out = ""
    while (length(s) > 0) {
      c = substr(s, 1, 1)
      if (c == "\\") { c = substr(s, 2, 1); out = out c; s = substr(s, 3); continue }
      if (c == "\"") break
      out = out c; s = substr(s, 2)
    }
    print out; exit
  }'
}

# http METHOD PATH [JSON] [IDEMPOTENCY-KEY]: sets $status (000 when unreachable); the body is in $tmp.
# The key goes to curl on stdin (-K -), so it appears neither in the output nor in `ps`. Transient
# failures are retried with the same Idempotency-Key, which makes a retried write happen once.
http() {
  set -- -X "$1" "$api$2" ${3:+"--data-binary"} ${3:+"$3"} ${4:+"-H"} ${4:+"Idempotency-Key: $4"}
  attempt=0
  while :; do
    : >"$tmp"
    status=$(printf 'header = "Authorization: Bearer %s"\n' "$DOMIVKA_KEY" | curl -sS -K - "$@" \
      -H 'Accept: application/json' -H 'Content-Type: application/json' -o "$tmp" -D "$tmp.h" \
      -w '%{http_code}' --max-time "$timeout" --retry 3 --retry-delay 1 --retry-connrefused 2>"$tmp.e") \
      || status=000
    curl_error=$(head -n 1 "$tmp.e" 2>/dev/null)
    # 409 idempotency_key_in_use: an earlier try of this very request is still running; wait for it.
    if [ "$status" != 409 ] || [ "$attempt" -ge 10 ] || [ "$(json_str code)" != idempotency_key_in_use ]; then break; fi
    attempt=$((attempt + 1))
    sleep 2
  done
}

# "403 right_missing: The key lacks …" from the error body (or the raw status when it is not ours).
refusal() {
  if [ "$status" = 000 ]; then printf 'cannot reach %s (%s)' "$api" "${curl_error:-no answer}"; return; fi
  code=$(json_str code); msg=$(json_str en)
  if [ -n "$code" ]; then printf '%s %s: %s' "$status" "$code" "$msg"
  else printf 'HTTP %s from %s' "$status" "$api"; fi
}

replayed() { grep -qi '^idempotent-replayed: *true' "$tmp.h" 2>/dev/null; }

# POST the value to one zone. Returns 0 added, 3 "not this zone" (404 domain_not_found or 403
# right_missing while guessing the zone), 1 any other refusal.
add_to() {
  zone=$1 guessing=$2
  body="{\"name\":\"$fqdn\",\"value\":\"$value\"}"
  idem="domivka-acme-$(digest "$zone $fqdn $value")"
  http POST "/v1/domains/$zone/dns/acme-challenges" "$body" "$idem"
  if [ "$status" = 201 ] && replayed && [ -f "$state.removed" ] \
    && [ "$(json_str id)" = "$(cat "$state.removed")" ]; then
    # The stored answer of an earlier present whose value cleanup has since removed (a CA handing out
    # the same pending authorization again): add it anew.
    http POST "/v1/domains/$zone/dns/acme-challenges" "$body" "$idem-$(date +%s)"
  fi
  if [ "$status" = 201 ]; then
    id=$(json_str id)
    [ -n "$id" ] || { err "unexpected answer from $api (no challenge id)"; return 1; }
    if ! { printf '%s %s\n' "$zone" "$id" >"$state.new" && mv -f "$state.new" "$state"; }; then
      err "added $fqdn (challenge $id) but could not write $state: remove it by hand"
      return 1
    fi
    rm -f "$state.removed"
    say "added TXT $fqdn in zone $zone (challenge $id); served by Domivka DNS"
    return 0
  fi
  if [ "$guessing" = yes ]; then
    case "$status $(json_str code)" in
      '404 domain_not_found' | '403 right_missing') tried="$tried
  $zone: $(refusal)"; return 3 ;;
    esac
  fi
  err "could not add TXT $fqdn in zone $zone: $(refusal)"
  return 1
}

present() {
  if [ -n "${DOMIVKA_DOMAIN:-}" ]; then
    zone=$(printf '%s' "$DOMIVKA_DOMAIN" | tr '[:upper:]' '[:lower:]'); zone=${zone%.}
    case $host in "$zone" | *".$zone") ;; *) die "$fqdn is not inside DOMIVKA_DOMAIN=$zone" 2 ;; esac
    add_to "$zone" no
    return
  fi
  # No zone given: try <host>, then each parent, longest first (never a bare TLD).
  tried='' candidate=$host
  while :; do
    case $candidate in *.*) ;; *) break ;; esac
    add_to "$candidate" yes
    rc=$?
    [ "$rc" -eq 3 ] || return "$rc"
    candidate=${candidate#*.}
  done
  err "no zone of this key accepts $fqdn; tried:$tried"
  err "(set DOMIVKA_DOMAIN to the zone, and check that the key holds dns.acme_challenge for it)"
  return 1
}

cleanup() {
  if [ ! -f "$state" ]; then
    err "nothing to remove for $fqdn: no record in $state_dir that present added this value (Domivka removes unremoved challenge values by itself after 24 h)"
    return 0
  fi
  read -r zone id <"$state" || true
  if [ -z "${zone:-}" ] || [ -z "${id:-}" ]; then die "unreadable state file $state"; fi
  http DELETE "/v1/domains/$zone/dns/acme-challenges/$id" '' "domivka-acme-rm-$id"
  case "$status $(json_str code)" in
    204*) say "removed TXT $fqdn from zone $zone (challenge $id)" ;;
    '404 challenge_not_found') say "TXT $fqdn (challenge $id) was already gone from zone $zone" ;;
    *) err "could not remove TXT $fqdn (challenge $id) from zone $zone: $(refusal)"; return 1 ;;
  esac
  # Kept so that a later present of the very same value (same Idempotency-Key, stored answer) adds it anew;
  # the API keeps idempotency records 24 h, so older marks can go.
  printf '%s\n' "$id" >"$state.removed"
  rm -f "$state"
  find "$state_dir" -type f -name '*.removed' -mtime +1 -exec rm -f {} + 2>/dev/null
  return 0
}

"$action"
