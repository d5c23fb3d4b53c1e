#!/usr/bin/env bash
# Installs the Debian 12 packages Karman builds against, only those missing, plus any package
# named as argument (`make hip-check` adds hipcc libamdhip64-dev rocm-device-libs).
# Idempotent: a machine that has them all runs no apt command at all.
set -euo pipefail

packages=(
  build-essential cmake make git ca-certificates xz-utils
  libopenmpi-dev openmpi-bin
  libhdf5-openmpi-dev hdf5-tools
  libgtest-dev libcli11-dev nlohmann-json3-dev
  python3 ccache
  gnuplot-nox
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "karman: missing packages ${missing[*]} and no apt-get to install them; install them or pass KOKKOS_ROOT and your own toolchain" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "karman: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "karman: installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
