#!/usr/bin/env bash
# Makes the TLS test certificates into DIR (default: Tests/HTTPServerTests/Fixtures/tls, where they are committed):
# self-signed, for localhost, 127.0.0.1 and ::1, valid for 100 years. They exist for the tests only; their keys are
# public. Needs the `openssl` command.
#   ecdsa.pem/ecdsa.key      ECDSA P-256 (the server's default in tests)
#   ecdsa2.pem/ecdsa2.key    another ECDSA P-256 pair (a certificate reload must show the new one)
#   rsa.pem/rsa.key          RSA 2048
#   other.pem/other.key      ECDSA P-256 for other.example only (a client asking for localhost must refuse it)
#   expired.pem              valid 2020-01-01 to 2021-01-01, key ecdsa.key
#   future.pem               valid from 2200-01-01, key ecdsa.key
#   encrypted.key            ecdsa.key under the passphrase "secret"
#   garbage.pem              not PEM at all
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${1:-Tests/HTTPServerTests/Fixtures/tls}
mkdir -p "$DIR"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SAN="subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"
self_signed() { # name key-algorithm-options...
    local name=$1
    shift
    openssl req -x509 -newkey "$@" -nodes -keyout "$DIR/$name.key" -out "$DIR/$name.pem" -days 36500 \
        -subj "/CN=localhost/O=motion-server tests" -addext "$SAN" 2>/dev/null
}
self_signed ecdsa ec -pkeyopt ec_paramgen_curve:P-256
self_signed ecdsa2 ec -pkeyopt ec_paramgen_curve:P-256
self_signed rsa rsa:2048
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$DIR/other.key" -out "$DIR/other.pem" \
    -days 36500 -subj "/CN=other.example" -addext "subjectAltName=DNS:other.example" 2>/dev/null
# Dates in the past or the future need `openssl ca` (req refuses them).
mkdir -p "$WORK/db"
touch "$WORK/db/index.txt"
echo 01 >"$WORK/db/serial"
cat >"$WORK/ca.cnf" <<CNF
[ca]
default_ca = self
[self]
database = $WORK/db/index.txt
new_certs_dir = $WORK/db
serial = $WORK/db/serial
default_md = sha256
policy = any
copy_extensions = copy
unique_subject = no
[any]
commonName = supplied
CNF
openssl req -new -key "$DIR/ecdsa.key" -subj "/CN=localhost" -addext "$SAN" -out "$WORK/request.csr" 2>/dev/null
dated() { # name start end
    openssl ca -batch -config "$WORK/ca.cnf" -selfsign -keyfile "$DIR/ecdsa.key" -in "$WORK/request.csr" \
        -out "$DIR/$1.pem" -startdate "$2" -enddate "$3" -notext 2>/dev/null
}
dated expired 20200101000000Z 20210101000000Z
dated future 22000101000000Z 22010101000000Z
openssl pkey -in "$DIR/ecdsa.key" -aes256 -passout pass:secret -out "$DIR/encrypted.key"
printf 'this is not a certificate\n' >"$DIR/garbage.pem"
echo "test certificates in $DIR"
