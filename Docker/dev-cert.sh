#!/usr/bin/env sh
# A self-signed ECDSA P-256 certificate for this machine's names and addresses (hostname, localhost, every address
# `hostname -I` lists, 127.0.0.1, ::1), valid for 825 days (the most Apple's platforms accept), for development: a
# phone on the same network can then use https:// and wss:// after trusting it. Writes DIR/cert.pem and DIR/key.pem
# (default DIR: ./data/tls); keeps an existing pair unless FORCE=1.
set -eu
DIR=${1:-data/tls}
if [ -s "$DIR/cert.pem" ] && [ -s "$DIR/key.pem" ] && [ "${FORCE:-0}" != 1 ]; then
    echo "$DIR/cert.pem exists (FORCE=1 makes a new one)"
    exit 0
fi
command -v openssl >/dev/null || { echo "dev-cert: needs the openssl command (apt-get install openssl)" >&2; exit 1; }
mkdir -p "$DIR"
NAME=$(hostname 2>/dev/null || echo localhost)
SAN="DNS:localhost,IP:127.0.0.1,IP:::1"
[ "$NAME" != localhost ] && SAN="DNS:$NAME,$SAN"
FULL=$(hostname -f 2>/dev/null || true)
[ -n "$FULL" ] && [ "$FULL" != "$NAME" ] && [ "$FULL" != localhost ] && SAN="$SAN,DNS:$FULL"
for address in $(hostname -I 2>/dev/null || true); do
    case $address in 127.*|::1) ;; *) SAN="$SAN,IP:$address" ;; esac
done
umask 077
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -days 825 \
    -keyout "$DIR/key.pem" -out "$DIR/cert.pem" -subj "/CN=$NAME/O=motion-server development" \
    -addext "subjectAltName=$SAN" -addext "extendedKeyUsage=serverAuth" 2>/dev/null
chmod 644 "$DIR/cert.pem"
echo "made $DIR/cert.pem and $DIR/key.pem for $SAN"
echo "run:  make run ARGS=\"--host 0.0.0.0 --port 8443 --tls-cert $DIR/cert.pem --tls-key $DIR/key.pem\""
