#!/usr/bin/env bash
# Builds Kokkos and Kokkos Kernels 3.4.1 with the OpenMP and Serial backends from
# Debian 12's trilinos source package (Debian's binary Kokkos is Serial-only).
# Only packages/kokkos and packages/kokkos-kernels are extracted and built.
# The result is cached in $1 (default ~/.cache/karman/kokkos-3.4.1-openmp) and reused.
# Global apt state is never changed: deb-src lists live in a temporary folder.
set -euo pipefail

prefix=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/karman/kokkos-3.4.1-openmp}
stamp="$prefix/.karman-complete"
[ -f "$stamp" ] && exit 0

jobs=$(nproc 2>/dev/null || echo 2)
work=$(mktemp -d "${TMPDIR:-/tmp}/karman-kokkos.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "karman: building Kokkos 3.4.1 (OpenMP+Serial) and Kokkos Kernels into $prefix (about a minute)"

# Runs a step quietly into its log; on failure shows the log's end (the work folder is removed).
step() {
  local log=$1
  shift
  if ! "$@" >"$work/$log" 2>&1; then
    echo "karman: Kokkos bootstrap step failed: $*" >&2
    tail -n 30 "$work/$log" >&2
    exit 1
  fi
}

# A temporary apt configuration whose only sources are deb-src copies of this machine's own.
mkdir -p "$work/apt/sources.list.d" "$work/apt/lists/partial" "$work/apt/archives/partial"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed -E 's/^Types:.*/Types: deb-src/' "$f" >"$work/apt/sources.list.d/$(basename "$f")"
done
if [ -f /etc/apt/sources.list ]; then
  sed -nE 's/^deb (.*)/deb-src \1/p' /etc/apt/sources.list >"$work/apt/sources.list.d/karman-src.list"
fi
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/apt/sources.list.d"
  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache::Archives=$work/apt/archives"
  -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
apt-get "${apt_opts[@]}" update -qq
(cd "$work" && apt-get "${apt_opts[@]}" source --download-only -qq trilinos 2>&1 | grep -v -i unsandboxed || true)
tarball=$(ls "$work"/trilinos_*.orig.tar.* | head -n1)
[ -f "$tarball" ] || { echo "karman: apt-get source trilinos gave no orig tarball" >&2; exit 1; }

mkdir -p "$work/src"
tar -xf "$tarball" -C "$work/src" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
src=$(ls -d "$work"/src/*/packages)

common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
  -DBUILD_SHARED_LIBS=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_INSTALL_PREFIX="$prefix"
  -DCMAKE_INSTALL_RPATH="$prefix/lib" -DCMAKE_INSTALL_LIBDIR=lib)
step kokkos-configure.log cmake -S "$src/kokkos" -B "$work/build-kokkos" "${common[@]}" \
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON \
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
step kokkos-build.log cmake --build "$work/build-kokkos" -j "$jobs"
step kokkos-install.log cmake --install "$work/build-kokkos"
step kk-configure.log cmake -S "$src/kokkos-kernels" -B "$work/build-kk" "${common[@]}" -DKokkos_ROOT="$prefix" \
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_TESTS=OFF \
  -DKokkosKernels_ENABLE_EXAMPLES=OFF
step kk-build.log cmake --build "$work/build-kk" -j "$jobs"
step kk-install.log cmake --install "$work/build-kk"
basename "$tarball" >"$prefix/SOURCE"
touch "$stamp"
echo "karman: Kokkos ready in $prefix"
