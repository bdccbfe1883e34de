#!/bin/sh
# certbot --manual --preferred-challenges dns --manual-cleanup-hook certbot-cleanup.sh
# Removes the value certbot-auth.sh added for CERTBOT_DOMAIN / CERTBOT_VALIDATION (by the challenge id it
# kept in DOMIVKA_STATE_DIR). Configuration as for certbot-auth.sh.
hook=${DOMIVKA_HOOK:-$(dirname "$0")/domivka-acme.sh}
if [ -z "${CERTBOT_DOMAIN:-}" ] || [ -z "${CERTBOT_VALIDATION:-}" ]; then
  echo "certbot-cleanup.sh: CERTBOT_DOMAIN and CERTBOT_VALIDATION are not set (run it as certbot's --manual-cleanup-hook)" >&2
  exit 2
fi
exec "$hook" cleanup "$CERTBOT_DOMAIN" "$CERTBOT_VALIDATION"
