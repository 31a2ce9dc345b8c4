# Debian 12 (bookworm) roots in a folder, made with `debootstrap --variant=minbase`, for blackbox/fresh/check.sh (a
# newcomer's machine) and Docker/check.sh (the runtime image without a Docker daemon). Sourced, not run; needs
# root. The sourcing script defines log and die, and calls debian_root_cleanup from its EXIT trap.
#
# A prepared root is kept as a tar file in a cache folder, keyed by a text that names everything that went into it
# (the package list, the scripts that prepared it) and by its age: it is made again when that text changes or it is
# older than DEBIAN_ROOT_MAX_AGE_DAYS (7), so the cache never hides a change or a month of Debian updates. Each run
# unpacks a new copy: nothing one run leaves in a root reaches the next.
#
# Environment: DEBIAN_MIRROR (http://deb.debian.org/debian), DEBIAN_ROOT_MAX_AGE_DAYS (7; 0 makes the root anew).

DEBIAN_SUITE=bookworm
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN_ROOT_MAX_AGE_DAYS=${DEBIAN_ROOT_MAX_AGE_DAYS:-7}
DEBIAN_ROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
DEBIAN_ROOT_ACTIVE=() # roots whose mounts debian_root_cleanup undoes

# debian_root_host_tools PACKAGES... : installs on the host those Debian packages (e.g. debootstrap) that are missing.
debian_root_host_tools() {
    local missing=() p
    [[ $(id -u) == 0 ]] || die "must run as root (debootstrap, chroot and mounts need it)"
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    ((${#missing[@]} == 0)) && return 0
    log "installing on the host: ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 ||
        die "apt-get install ${missing[*]} failed"
}

# debian_root_mounts DIR : the mount points at or under DIR, deepest first.
debian_root_mounts() {
    local dir
    dir=$(realpath -m "$1")
    awk -v dir="$dir" '$5 == dir || index($5, dir "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

# debian_root_unmount DIR : unmounts everything at or under DIR (lazily when busy). Fails if something stays.
debian_root_unmount() {
    local dir=$1 point
    while read -r point; do
        [[ -n $point ]] || continue
        umount "$point" 2>/dev/null || umount -l "$point" 2>/dev/null || log "cannot unmount $point"
    done < <(debian_root_mounts "$dir")
    [[ -z $(debian_root_mounts "$dir") ]]
}

# debian_root_remove DIR : deletes a root, but never while anything is mounted in it (a bound /dev or toolchain
# would be deleted with it).
debian_root_remove() {
    local dir=$1
    [[ -e $dir ]] || return 0
    debian_root_unmount "$dir" || die "something is still mounted under $dir; not deleting it"
    rm -rf --one-file-system "$dir"
}

# debian_root_stop_processes DIR : ends the processes still running inside the root DIR (SIGTERM, then SIGKILL),
# e.g. a test that an interrupted run left behind, so that its mounts can go.
debian_root_stop_processes() {
    local dir pids=() proc i
    dir=$(realpath -m "$1")
    for proc in /proc/[0-9]*; do
        [[ $(readlink "$proc/root" 2>/dev/null) == "$dir" ]] && pids+=("${proc#/proc/}")
    done
    ((${#pids[@]})) || return 0
    log "stopping ${#pids[@]} processes left in $dir"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "${pids[@]}" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
}

# debian_root_cleanup : ends what still runs in the roots this script mounted things in and unmounts them all.
# For the EXIT trap; always returns 0.
debian_root_cleanup() {
    local dir
    for dir in "${DEBIAN_ROOT_ACTIVE[@]}"; do
        debian_root_stop_processes "$dir"
        debian_root_unmount "$dir" || log "warning: mounts left under $dir: $(debian_root_mounts "$dir" | xargs)"
    done
    DEBIAN_ROOT_ACTIVE=()
    return 0
}

# debian_root_mount_system DIR : /proc, /sys (read-only), /dev, /dev/pts and a fresh /dev/shm inside the root.
debian_root_mount_system() {
    local dir=$1
    DEBIAN_ROOT_ACTIVE+=("$dir")
    mount -t proc proc "$dir/proc"
    mount --bind /sys "$dir/sys" && mount -o remount,bind,ro "$dir/sys"
    mount --bind /dev "$dir/dev"
    mount --bind /dev/pts "$dir/dev/pts"
    mount -t tmpfs -o mode=1777,nosuid,nodev shm "$dir/dev/shm"
}

# debian_root_bind_ro SOURCE DIR : makes SOURCE visible read-only at the same path inside the root DIR.
debian_root_bind_ro() {
    local source=$1 dir=$2
    DEBIAN_ROOT_ACTIVE+=("$dir")
    mkdir -p "$dir$source"
    mount --bind "$source" "$dir$source" && mount -o remount,bind,ro "$dir$source"
}

# debian_root_network DIR : the name servers of the host, for apt (and pip) inside the root.
debian_root_network() {
    cp -L /etc/resolv.conf "$1/etc/resolv.conf"
}

# debian_root_local_cas DIR : what else a machine on this network needs to reach the package registries over
# HTTPS: the host's local certificate authorities (an HTTPS proxy may need them), in the root's store once it has
# ca-certificates, and pip told to use that store. Nothing when the host has none.
debian_root_local_cas() {
    local dir=$1
    compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null || return 0
    mkdir -p "$dir/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
    if [[ -x $dir/usr/sbin/update-ca-certificates ]]; then
        debian_root_run "$dir" update-ca-certificates >/dev/null 2>&1 || log "update-ca-certificates failed"
    fi
    printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$dir/etc/pip.conf"
}

# debian_root_run DIR COMMAND... : runs COMMAND as root in the root, with a clean environment.
debian_root_run() {
    local dir=$1
    shift
    chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH="$DEBIAN_ROOT_PATH" DEBIAN_FRONTEND=noninteractive "$@"
}

# debian_root_bootstrap DIR : a minbase bookworm root in DIR (which must not exist) with the sources a Debian 12
# installation has (bookworm, bookworm-updates, bookworm-security) and no services started by package installs.
debian_root_bootstrap() {
    local dir=$1 mirror_base=${DEBIAN_MIRROR%/debian}
    log "debootstrap --variant=minbase $DEBIAN_SUITE into $dir"
    debootstrap --variant=minbase "$DEBIAN_SUITE" "$dir" "$DEBIAN_MIRROR" >"$dir.debootstrap.log" 2>&1 ||
        { tail -20 "$dir.debootstrap.log" >&2; die "debootstrap failed (log: $dir.debootstrap.log)"; }
    rm -f "$dir.debootstrap.log"
    cat >"$dir/etc/apt/sources.list" <<EOF
deb $DEBIAN_MIRROR $DEBIAN_SUITE main
deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main
deb $mirror_base/debian-security $DEBIAN_SUITE-security main
EOF
    printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
    chmod 755 "$dir/usr/sbin/policy-rc.d"
}

# debian_root_prepare CACHE_DIR NAME KEY_TEXT BUILD_FUNCTION DEST : unpacks the cached root NAME into DEST (which
# must not exist), first making it when the cache has none for KEY_TEXT or it is too old: BUILD_FUNCTION DIR is
# then called on a new minbase root DIR (with /proc, /sys and /dev mounted, and the network settings) to install
# what it should hold.
debian_root_prepare() {
    local cache=$1 name=$2 key_text=$3 build=$4 dest=$5 key tar build_dir
    key=$(printf '%s\n%s\n' "$key_text" "$(declare -f debian_root_bootstrap debian_root_network "$build")" |
        sha256sum | cut -c1-16)
    tar=$cache/$name-$key.tar
    mkdir -p "$cache"
    if [[ -f $tar ]] && ((DEBIAN_ROOT_MAX_AGE_DAYS > 0)) &&
        [[ -z $(find "$tar" -mtime "+$((DEBIAN_ROOT_MAX_AGE_DAYS - 1))") ]]; then
        log "using the cached root $tar (made $(date -r "$tar" '+%F %H:%M'))"
    else
        build_dir=$cache/$name-$key.building
        debian_root_remove "$build_dir"
        debian_root_bootstrap "$build_dir"
        debian_root_mount_system "$build_dir"
        debian_root_network "$build_dir"
        "$build" "$build_dir" || { debian_root_unmount "$build_dir"; die "preparing the $name root failed"; }
        debian_root_run "$build_dir" apt-get clean
        debian_root_unmount "$build_dir" || die "cannot unmount under $build_dir"
        rm -f "$cache/$name-"*.tar
        tar -C "$build_dir" --numeric-owner -cf "$tar.part" . && mv "$tar.part" "$tar"
        debian_root_remove "$build_dir"
        log "cached the $name root as $tar ($(du -sh "$tar" | cut -f1))"
    fi
    [[ ! -e $dest ]] || die "$dest exists"
    mkdir -p "$dest"
    tar -C "$dest" --numeric-owner -xf "$tar"
}
