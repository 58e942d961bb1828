#!/usr/bin/env bash
# The README's set-up on a machine that has never seen this project: a fresh Debian root (debootstrap, minbase: no
# Node.js, no bubblewrap, no compilers), entered with chroot, a clone of this checkout's HEAD in it; there the README's
# install line in a new virtual environment, then its main job, exactly as the README writes them.
#
#   sudo tools/fresh_root.sh [ROOT] [all|install|main]   # ROOT: default /var/tmp/fresh-root, made on first use (about
#                                                          # 200 MB); install or main: that phase alone (main reuses /venv)
#
# Needs root (debootstrap, chroot, mounts) and the network to Debian and PyPI. Prints each phase's time and exits with
# the first failing phase's status. What it checks is issue 43's "fresh container or VM" item: the install line and
# the main job are the whole set-up (Node.js and bubblewrap come from pinned PyPI wheels, `sandbox.find_tool`).
set -euo pipefail
ROOT=${1:-/var/tmp/fresh-root}
WHAT=${2:-all}
REPO=$(cd "$(dirname "$0")/.." && pwd)
block() { awk -v h="## $1" '$0==h{f=1;next} f&&/^```bash/{b=1;next} b&&/^```/{exit} b&&NF{print;exit}' "$REPO/README.md"; }
INSTALL=$(block "Install (a Linux machine, no GPU needed)")
MAIN=$(awk '/^```bash/{b=1;next} b&&/^```/{b=0} b&&/^papermill --log-output nbs\/train.ipynb/{print;exit}' "$REPO/README.md")
[ -n "$INSTALL" ] && [ -n "$MAIN" ] || { echo "fresh_root: cannot find the install line or the main job in README.md"; exit 1; }
t0=$(date +%s); phase() { echo "== $1 ($(( $(date +%s) - t0 )) s so far)"; }

if [ ! -x "$ROOT/usr/bin/python3" ]; then
  phase "debootstrap a minimal Debian root at $ROOT"
  debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,git,ca-certificates bookworm "$ROOT" http://deb.debian.org/debian
fi
mountpoint -q "$ROOT" || mount --bind "$ROOT" "$ROOT"    # (see below)
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# This machine's network intercepts TLS with its own authority: the root gets this machine's CA bundle, and pip, Node
# and Python are pointed at it. Nothing else of this machine's environment goes in (`env -i` below).
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
CA=/etc/ssl/certs/ca-certificates.crt
# Nor does it reach download.pytorch.org, where the install line's first step finds `torch==...+cpu`: this machine's
# copy of that wheel (its pip's find-links folder) stands in for the PyTorch CPU index, read-only. PyPI is the real one.
FIND=""
if [ -d /opt/wheels ]; then
  mkdir -p "$ROOT/opt/wheels"; mountpoint -q "$ROOT/opt/wheels" || mount --bind -o ro /opt/wheels "$ROOT/opt/wheels"
  FIND="PIP_FIND_LINKS=/opt/wheels"
fi
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
            PIP_CERT=$CA SSL_CERT_FILE=$CA NODE_EXTRA_CA_CERTS=$CA REQUESTS_CA_BUNDLE=$CA $FIND "$@"; }
# the root is a mount point of its own, as a container's or a VM's is: bubblewrap makes `/` a slave mount, which fails
# (EINVAL) on a plain folder entered with chroot
mountpoint -q "$ROOT" || mount --bind "$ROOT" "$ROOT"
for m in proc sys dev; do mountpoint -q "$ROOT/$m" || mount --rbind "/$m" "$ROOT/$m"; done
trap 'for m in dev sys proc opt/wheels; do umount -lR "$ROOT/$m" 2>/dev/null || true; done; umount -l "$ROOT" 2>/dev/null || true' EXIT
if [ "$WHAT" != main ]; then
rm -rf "$ROOT/repo" && git clone -q "$REPO" "$ROOT/repo"
phase "what the fresh root has (no Node.js, no bubblewrap)"
in_root /bin/sh -c 'for t in node npm bwrap; do command -v $t >/dev/null && { echo "  $t: $(command -v $t) (should not be there)"; exit 1; } || echo "  $t: absent"; done; python3 --version'
phase "the README's install line, in a new virtual environment: $INSTALL"
in_root /bin/bash -c "set -e; rm -rf /venv; python3 -m venv /venv; . /venv/bin/activate; cd /repo; pip install -q --upgrade pip; $INSTALL"
fi
[ "$WHAT" = install ] && { phase "installed"; exit 0; }
phase "what the README names for a minimal machine: libnuma1 g++ python3-dev"
in_root /bin/sh -c 'apt-get update -qq && apt-get install -y -qq libnuma1 g++ python3-dev >/dev/null && echo "  libnuma1, g++, python3-dev: installed"'
phase "the README's main job: $MAIN"
in_root /bin/bash -c "set -e; . /venv/bin/activate; cd /repo; $MAIN"
in_root /bin/bash -c "cd /repo && git status --short && ls runs/local/"
phase "done: install line and main job ran to the end"
