#!/usr/bin/env bash
# Builds Kokkos and Kokkos Kernels 3.4.1 from Debian 12's trilinos source package (Debian's
# binary Kokkos is Serial-only), with the backend $2:
#   openmp (default)  OpenMP+Serial, shared libraries, g++;
#   hip               HIP+Serial for AMD gfx908 (Kokkos_ARCH_VEGA908, MI100: the newest AMD GPU
#                     Kokkos 3.4 knows), static libraries, hipcc (Debian's hipcc 5.2.3).
# Only packages/kokkos and packages/kokkos-kernels are extracted and built.
# The result is cached in $1 (default ~/.cache/karman/kokkos-3.4.1-<backend>) and reused.
# Global apt state is never changed: deb-src lists live in a temporary folder.
set -euo pipefail

backend=${2:-openmp}
case "$backend" in
  openmp) backend_flags=(-DKokkos_ENABLE_OPENMP=ON) ;;
  hip)
    backend_flags=(-DCMAKE_CXX_COMPILER=hipcc -DKokkos_ENABLE_HIP=ON -DKokkos_ARCH_VEGA908=ON -DBUILD_SHARED_LIBS=OFF)
    # hipcc links for this GPU instead of probing for one (rocm_agent_enumerator fails without one).
    export HCC_AMDGPU_TARGET=gfx908
    ;;
  *) echo "karman: unknown Kokkos backend '$backend' (openmp or hip)" >&2; exit 1 ;;
esac
prefix=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/karman/kokkos-3.4.1-$backend}
stamp="$prefix/.karman-complete"
[ -f "$stamp" ] && exit 0

jobs=$(nproc 2>/dev/null || echo 2)
work=$(mktemp -d "${TMPDIR:-/tmp}/karman-kokkos.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "karman: building Kokkos 3.4.1 ($backend+Serial) and Kokkos Kernels into $prefix (a few minutes)"

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
  -DKokkos_ENABLE_SERIAL=ON "${backend_flags[@]}" \
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
step kokkos-build.log cmake --build "$work/build-kokkos" -j "$jobs"
step kokkos-install.log cmake --install "$work/build-kokkos"
# Kokkos Kernels takes its compiler from the Kokkos install (hipcc for HIP); every TPL stays off.
kk_compiler=()
[ "$backend" = hip ] && kk_compiler=(-DCMAKE_CXX_COMPILER=hipcc -DBUILD_SHARED_LIBS=OFF)
step kk-configure.log cmake -S "$src/kokkos-kernels" -B "$work/build-kk" "${common[@]}" "${kk_compiler[@]}" -DKokkos_ROOT="$prefix" \
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_TESTS=OFF \
  -DKokkosKernels_ENABLE_EXAMPLES=OFF
step kk-build.log cmake --build "$work/build-kk" -j "$jobs"
step kk-install.log cmake --install "$work/build-kk"
basename "$tarball" >"$prefix/SOURCE"
touch "$stamp"
echo "karman: Kokkos ready in $prefix"
