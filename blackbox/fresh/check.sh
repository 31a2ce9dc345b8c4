#!/usr/bin/env bash
# The newcomer's proof: `make test` on a fresh Debian 12 that has only the Swift toolchain and its documented
# prerequisites. Makes a bookworm root with `debootstrap --variant=minbase` (cached as blackbox/support/debian-root.sh
# describes), installs exactly those prerequisites (no recommended packages), binds the toolchain read-only at its
# own path and /proc, /sys and /dev, clones the committed HEAD into /root/motion-server with `git clone`, and runs
# `make test` there as root with the toolchain on PATH: everything else it needs, `make deps` must install. Prints
# how long that took and exits with make's status. Mounts are undone on every exit, failure or not.
#
# Usage: blackbox/fresh/check.sh [TARGET...]   (make targets; default: test)
# Environment (defaults):
#   FRESH_DIR=.build-fresh          the roots, the cache and make's log (make.log)
#   SWIFT_TOOLCHAIN=<from PATH>     the toolchain folder holding usr/bin/swift (here /opt/swift)
#   KEEP_ROOT=0                     1 keeps the root after a success too (it is always kept after a failure)
set -euo pipefail

log() { echo "[fresh $(date +%T)] $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

REPO=$(cd "$(dirname "$0")/../.." && pwd)
source "$REPO/blackbox/support/debian-root.sh"

# The Swift toolchain's prerequisites on Debian 12 (swift.org, "Installing Swift" for Linux), with make, curl,
# ca-certificates, python3 and procps, as a newcomer's machine has them.
PREREQUISITES=(binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev libsqlite3-0
    libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev pkg-config tzdata zlib1g-dev make curl ca-certificates
    python3 procps)

TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(test)
FRESH_DIR=$(realpath -m "${FRESH_DIR:-$REPO/.build-fresh}")
ROOT=$FRESH_DIR/root
if [[ -z ${SWIFT_TOOLCHAIN:-} ]]; then
    swift=$(command -v swift) || die "no swift on PATH; set SWIFT_TOOLCHAIN"
    SWIFT_TOOLCHAIN=$(dirname "$(dirname "$(dirname "$(realpath "$swift")")")")
fi
[[ -x $SWIFT_TOOLCHAIN/usr/bin/swift ]] || die "$SWIFT_TOOLCHAIN/usr/bin/swift is missing"

COMMIT=$(git -C "$REPO" rev-parse HEAD)
[[ -z $(git -C "$REPO" status --porcelain --untracked-files=no) ]] ||
    log "warning: uncommitted changes in $REPO are not tested (the root gets commit ${COMMIT:0:12})"

trap debian_root_cleanup EXIT
trap 'exit 130' INT TERM
debian_root_host_tools debootstrap git

install_prerequisites() {
    debian_root_local_cas "$1"
    debian_root_run "$1" apt-get update -qq
    debian_root_run "$1" apt-get install -y -qq --no-install-recommends "${PREREQUISITES[@]}" >&2
}

STARTED=$(date +%s)
debian_root_remove "$ROOT"
debian_root_prepare "$FRESH_DIR/cache" bookworm-swift-prerequisites "${PREREQUISITES[*]}" install_prerequisites "$ROOT"
debian_root_network "$ROOT"
debian_root_mount_system "$ROOT"
debian_root_bind_ro "$SWIFT_TOOLCHAIN" "$ROOT"

log "cloning commit ${COMMIT:0:12} into $ROOT/root/motion-server"
git clone -q --no-hardlinks "$REPO" "$ROOT/root/motion-server"
git -C "$ROOT/root/motion-server" checkout -q --detach "$COMMIT"

log "make ${TARGETS[*]} in the fresh root (log: $FRESH_DIR/make.log)"
MAKE_STARTED=$(date +%s)
status=0
# In the background with `wait`, so that SIGINT or SIGTERM ends the run at once (the EXIT trap then stops what runs
# in the root and unmounts).
chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb PATH="$SWIFT_TOOLCHAIN/usr/bin:$DEBIAN_ROOT_PATH" \
    /bin/bash -c 'cd /root/motion-server && make "$@"' make "${TARGETS[@]}" > >(tee "$FRESH_DIR/make.log") 2>&1 &
wait $! || status=$?
FINISHED=$(date +%s)

minutes() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
debian_root_cleanup
verdict=$([[ $status == 0 ]] && echo passed || echo "FAILED (exit $status)")
echo "fresh Debian 12 root, commit ${COMMIT:0:12}, $(date -u '+%F'): make ${TARGETS[*]} $verdict in" \
    "$(minutes $((FINISHED - MAKE_STARTED))) ($(minutes $((FINISHED - STARTED))) with the root); $(nproc) cores"
if [[ $status == 0 && ${KEEP_ROOT:-0} != 1 ]]; then
    debian_root_remove "$ROOT"
else
    log "the root stays in $ROOT for a look (removed by the next run)"
fi
exit "$status"
