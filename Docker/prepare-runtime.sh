#!/bin/sh
# Prepares a debian:bookworm-slim (or minbase) system to run motion-server: installs exactly the Debian packages in
# runtime-packages.txt beside this script (no recommended packages), adds the unprivileged user `motion` (uid and gid
# 10001) and its /data folder for the SQLite file. Run as root by the Dockerfile's runtime stage and, in a debootstrap
# root, by `make docker-check` (Docker/check.sh).
set -eu
here=$(dirname "$0")
packages=$(sed -e 's/#.*//' "$here/runtime-packages.txt" | tr -s ' \t\n' '   ')
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages
rm -rf /var/lib/apt/lists/*
groupadd --gid 10001 motion
useradd --uid 10001 --gid motion --home-dir /data --no-create-home --shell /usr/sbin/nologin motion
mkdir -p /data
chown motion:motion /data
