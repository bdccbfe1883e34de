#!/usr/bin/env sh
# acme.sh DNS API hook for Domivka (acme.sh --issue --dns dns_domivka …). NOT TESTED WITH acme.sh ITSELF:
# acme.sh is not a Debian package, so this repository's tests only call these two functions with
# acme.sh's helpers stubbed. The work is done by domivka-acme.sh (which acme.sh does not copy: point
# DOMIVKA_HOOK at it).
#
#   export DOMIVKA_KEY=dmk_…               a key holding dns.acme_challenge for the zone
#   export DOMIVKA_HOOK=/path/to/examples/acme-hooks/domivka-acme.sh
#   export DOMIVKA_API=https://…           optional (default http://127.0.0.1:8080)
#   export DOMIVKA_DOMAIN=example.com.ua   optional (default: guessed from the name)
#   cp dns_domivka.sh ~/.acme.sh/dnsapi/
#   acme.sh --issue --dns dns_domivka -d example.com.ua -d '*.example.com.ua'
#
# acme.sh saves these in the account configuration for renewals.

# shellcheck disable=SC2034
dns_domivka_info='Domivka (an ACME-only key: dns.acme_challenge)
Options:
 DOMIVKA_KEY API key holding dns.acme_challenge for the zone
 DOMIVKA_HOOK Path of domivka-acme.sh
 DOMIVKA_API API base URL. Optional, default http://127.0.0.1:8080
 DOMIVKA_DOMAIN The zone. Optional
'

# Usage: dns_domivka_add _acme-challenge.www.example.com.ua "XKrxpRBosdIKFzxW_CT3KLZNf6q0HG9i01zxXp5CPBs"
dns_domivka_add() {
  _domivka_hook present "$1" "$2"
}

# Usage: dns_domivka_rm _acme-challenge.www.example.com.ua "XKrxpRBosdIKFzxW_CT3KLZNf6q0HG9i01zxXp5CPBs"
dns_domivka_rm() {
  _domivka_hook cleanup "$1" "$2"
}

_domivka_hook() {
  DOMIVKA_KEY="${DOMIVKA_KEY:-$(_readaccountconf_mutable DOMIVKA_KEY)}"
  DOMIVKA_HOOK="${DOMIVKA_HOOK:-$(_readaccountconf_mutable DOMIVKA_HOOK)}"
  DOMIVKA_API="${DOMIVKA_API:-$(_readaccountconf_mutable DOMIVKA_API)}"
  DOMIVKA_DOMAIN="${DOMIVKA_DOMAIN:-$(_readaccountconf_mutable DOMIVKA_DOMAIN)}"
  if [ -z "$DOMIVKA_KEY" ] || [ -z "$DOMIVKA_HOOK" ]; then
    _err "Set DOMIVKA_KEY (a key holding dns.acme_challenge) and DOMIVKA_HOOK (path of domivka-acme.sh)."
    return 1
  fi
  if [ ! -x "$DOMIVKA_HOOK" ]; then
    _err "DOMIVKA_HOOK=$DOMIVKA_HOOK is not an executable file."
    return 1
  fi
  _saveaccountconf_mutable DOMIVKA_KEY "$DOMIVKA_KEY"
  _saveaccountconf_mutable DOMIVKA_HOOK "$DOMIVKA_HOOK"
  _saveaccountconf_mutable DOMIVKA_API "$DOMIVKA_API"
  _saveaccountconf_mutable DOMIVKA_DOMAIN "$DOMIVKA_DOMAIN"
  _info "Domivka: $1 $2"
  DOMIVKA_KEY="$DOMIVKA_KEY" DOMIVKA_API="${DOMIVKA_API:-http://127.0.0.1:8080}" DOMIVKA_DOMAIN="$DOMIVKA_DOMAIN" \
    "$DOMIVKA_HOOK" "$1" "$2" "$3"
}
