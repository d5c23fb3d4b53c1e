#!/bin/sh
# The compiler launcher of Karman's CPU builds (CMakeLists.txt, KARMAN_USE_CCACHE): runs the
# compile command given as arguments (ccache, then the compiler and its arguments). A
# precompiled header is compiled without the one it replaces: ccache's preprocessing pass runs
# with -fpch-preprocess, which reads a .gch lying beside the header it includes, so a rebuilt
# header would be keyed on the stale one's hash and an incremental build would never store the
# entry a fresh clone of the same sources looks up (docs/building.md, "ccache").
output=
previous=
for argument in "$@"; do
  [ "$previous" = "-o" ] && output=$argument
  previous=$argument
done
case "$output" in
  *.gch) rm -f "$output" ;;
esac
exec "$@"
