#!/bin/sh
# lego's exec DNS provider (`--dns exec`, EXEC_PATH=this file): lego runs
#   lego-exec.sh present _acme-challenge.<host>. VALUE
#   lego-exec.sh cleanup _acme-challenge.<host>. VALUE
# which is domivka-acme.sh's own interface. Configuration: DOMIVKA_KEY, DOMIVKA_API, DOMIVKA_DOMAIN,
# DOMIVKA_STATE_DIR (see domivka-acme.sh). DOMIVKA_HOOK overrides where domivka-acme.sh is.
hook=${DOMIVKA_HOOK:-$(dirname "$0")/domivka-acme.sh}
if [ "$#" -ne 3 ]; then
  echo "lego-exec.sh: lego's exec provider calls this as: present|cleanup FQDN VALUE (EXEC_MODE must not be RAW)" >&2
  exit 2
fi
exec "$hook" "$@"
