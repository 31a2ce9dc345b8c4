#!/bin/sh
# stage.sh BINARY DEST: lays out under DEST everything the runtime image holds of the project, at the paths it has
# there: DEST/usr/local/bin/motion-server (BINARY) and DEST/usr/local/share/motion-server/Public (the web front
# end). The Dockerfile's build stage and `make docker-check` (Docker/check.sh) both use it, then copy DEST to /.
set -eu
[ $# = 2 ] || { echo "usage: stage.sh BINARY DEST" >&2; exit 2; }
binary=$1
dest=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dest/usr/local/bin" "$dest/usr/local/share/motion-server"
cp "$binary" "$dest/usr/local/bin/motion-server"
chmod 755 "$dest/usr/local/bin/motion-server"
rm -rf "$dest/usr/local/share/motion-server/Public"
cp -R "$repo/Public" "$dest/usr/local/share/motion-server/Public"
chmod -R a+rX,go-w "$dest/usr/local/share/motion-server"
