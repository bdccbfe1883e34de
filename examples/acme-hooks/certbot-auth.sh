#!/bin/sh
# certbot --manual --preferred-challenges dns --manual-auth-hook certbot-auth.sh
# Adds CERTBOT_VALIDATION at _acme-challenge.<CERTBOT_DOMAIN> (a wildcard's at its base name) and returns
# once Domivka's DNS server answers with it. Configuration: DOMIVKA_KEY, DOMIVKA_API, DOMIVKA_DOMAIN,
# DOMIVKA_STATE_DIR (see domivka-acme.sh). DOMIVKA_HOOK overrides where domivka-acme.sh is.
hook=${DOMIVKA_HOOK:-$(dirname "$0")/domivka-acme.sh}
if [ -z "${CERTBOT_DOMAIN:-}" ] || [ -z "${CERTBOT_VALIDATION:-}" ]; then
  echo "certbot-auth.sh: CERTBOT_DOMAIN and CERTBOT_VALIDATION are not set (run it as certbot's --manual-auth-hook)" >&2
  exit 2
fi
exec "$hook" present "$CERTBOT_DOMAIN" "$CERTBOT_VALIDATION"
