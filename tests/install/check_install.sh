#!/usr/bin/env bash
# Installs the build into a fresh prefix, builds examples/ against the
# installed package (CMake's find_package and pkg-config, shared and static)
# and checks that the C example's JSON equals the vqe CLI's, value for value.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR [SHARED_DIR]
# Exit 77 (skipped) when the shared test data is absent.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
shared=${VQE_SHARED:-${3:-$src/../shared}}
pair_ref=$shared/testdata/clips/ref/carphone_176x144_420p8_20f.y4m
pair_dist=$shared/testdata/clips/dist/carphone_176x144_420p8_20f__x264_crf35.y4m
pair10_ref=$shared/testdata/clips/ref/ciscovt2people_320x192_420p10_9f.y4m
pair10_dist=$shared/testdata/clips/dist/ciscovt2people_320x192_420p10_9f__x265_crf30.y4m
if [ ! -f "$pair_ref" ] || [ ! -f "$pair10_dist" ]; then
  echo "check_install: ../shared not found (set VQE_SHARED): skipping"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libvqe.so.0' | head -n 1)")
test -f "$libdir/libvqe.a"
test -f "$libdir/pkgconfig/vqe.pc"
test -f "$prefix/include/vqe/vqe_c.h"
soname=$(objdump -p "$libdir/libvqe.so" | sed -n 's/^ *SONAME *//p')
[ "$soname" = "libvqe.so.0" ] || { echo "check_install: SONAME is '$soname'"; exit 1; }

# CMake package.
cmake -S "$src/examples" -B "$work/ex" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/ex" >/dev/null

# pkg-config, shared and static, strict C99.
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -std=c99 -Wall -Wextra -Werror -pedantic "$src/examples/score.c" \
  $(pkg-config --cflags --libs vqe) -o "$work/score_pc"
cc -std=c99 -Wall -Wextra -Werror "$src/examples/score.c" $(pkg-config --cflags vqe) \
  $(pkg-config --static --libs vqe | sed 's/-lvqe /-Wl,-Bstatic -lvqe -Wl,-Bdynamic /') \
  -o "$work/score_pc_static"
if ldd "$work/score_pc_static" | grep -q libvqe; then
  echo "check_install: the static example links libvqe.so"; exit 1
fi

export LD_LIBRARY_PATH=$libdir
compare() {  # compare CLI.json OTHER.json: every value except fps and version equal
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("fps", None); d.pop("version", None)
if a != b:
    sys.exit(f"check_install: {sys.argv[2]} differs from the CLI's {sys.argv[1]}")
PY
}
run_pair() {  # run_pair REF DIST LABEL CLI-ARGS... -- EXAMPLE-ARGS...
  local ref=$1 dist=$2 label=$3; shift 3
  local cli=() ex=()
  while [ "$1" != "--" ]; do cli+=("$1"); shift; done; shift
  ex=("$@")
  "$build/vqe" -r "$ref" -d "$dist" --json --precision max -q -o "$work/cli_$label.json" "${cli[@]}"
  for bin in "$work/ex/score" "$work/ex/score_static" "$work/score_pc" "$work/score_pc_static"; do
    "$bin" "$ref" "$dist" "$work/c_$label.json" "${ex[@]}" >/dev/null
    compare "$work/cli_$label.json" "$work/c_$label.json"
  done
}
run_pair "$pair_ref" "$pair_dist" vmaf --
run_pair "$pair10_ref" "$pair10_dist" mix -m version=vmaf_v0.6.1 -m version=vmaf_4k_v0.6.1:name=vmaf_4k \
  --feature psnr=enable_mse=true --feature float_ssim -- \
  version=vmaf_v0.6.1 version=vmaf_4k_v0.6.1:name=vmaf_4k +psnr=enable_mse=true +float_ssim
"$work/ex/score_cpp" "$pair_ref" "$pair_dist" "$work/cpp.json" >/dev/null
compare "$work/cli_vmaf.json" "$work/cpp.json"
echo "check_install: installed package builds; C (shared, static, CMake, pkg-config) and C++ examples equal the CLI"
