#!/usr/bin/env bash
# FFmpeg's own libvmaf filter on VQE's libvmaf compatibility layer:
#  1. installs the layer (`cmake --install BUILD --component libvmaf`) into a
#     temporary prefix and checks the package: SONAME libvmaf.so.3,
#     libvmaf.pc version (FFmpeg's configure asks for libvmaf >= 2.0.0), the
#     exported symbols are exactly the functions of the installed headers;
#  2. builds a minimal FFmpeg from Debian's source package (fetched by
#     scripts/ffmpeg-source) with --enable-libvmaf against that prefix: only
#     the Y4M demuxer, the rawvideo decoder, the libvmaf filter and the filters
#     the ffmpeg program needs, the null muxer, the file protocol; no asm. The
#     build is cached under build/ffmpeg-compat/build/<key>, the key hashing
#     the FFmpeg version, the configure flags and the layer's headers as the
#     compiler sees them (comments aside), so a re-run only loads the freshly
#     installed layer at run time;
#  3. runs `ffmpeg -i DIST -i REF -lavfi libvmaf=...` on shared 8-bit pairs
#     and checks that the logs equal the vqe CLI's for the same settings:
#     every per-frame value, pooled and aggregate value (JSON parsed, at
#     libvmaf's precision and at full precision), XML/CSV/SUB text, and the
#     filter's "VMAF score" lines; with model=version=...|version=... (two
#     models), model overrides, feature=name=...|name=... with options,
#     n_threads and n_subsample.
# 10-bit pairs are left out: FFmpeg 5.1's filter copies only the first half
# of each row of frames above 8 bits (Netflix/vmaf#1093, fixed in later
# FFmpeg), with libvmaf as with this layer.
# Usage: check_ffmpeg_libvmaf.sh BUILD_DIR SOURCE_DIR [SHARED_DIR]
# Exit 77 (skipped) when the shared pairs, the FFmpeg source or a tool is
# missing. VQE_FFMPEG_SOURCE names an FFmpeg source folder to use instead.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
shared=${VQE_SHARED:-${3:-$src/../shared}}
cache=${VQE_FFMPEG_CACHE:-$src/build/ffmpeg-compat}
skip() { echo "check_ffmpeg_libvmaf: $*: skipping"; exit 77; }

clips=$shared/testdata/clips
small_ref=$clips/ref/carphone_176x144_420p8_20f.y4m
small_dist=$clips/dist/carphone_176x144_420p8_20f__x264_crf35.y4m
big_ref=$clips/ref/bbb_576x324_420p8_8f.y4m
big_dist=$clips/dist/bbb_576x324_420p8_8f__x264_crf23.y4m
for f in "$small_ref" "$small_dist" "$big_ref" "$big_dist"; do
  [ -f "$f" ] || skip "../shared not found (set VQE_SHARED)"
done
for tool in cc make pkg-config python3 objdump nm flock sha256sum; do
  command -v "$tool" >/dev/null || skip "$tool not installed (scripts/setup)"
done
ffsrc=${VQE_FFMPEG_SOURCE:-}
if [ -z "$ffsrc" ]; then
  ffsrc=$(ls -d "$cache"/src/*/ffmpeg-*/ 2>/dev/null | sort -V | tail -n 1 || true)
  ffsrc=${ffsrc%/}
fi
[ -n "$ffsrc" ] && [ -x "$ffsrc/configure" ] ||
  skip "no FFmpeg source in $cache/src (run scripts/ffmpeg-source)"

work=$(mktemp -d)
trap '[ -n "${VQE_KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
prefix=$work/prefix

# 1. The installed package.
cmake --install "$build" --component libvmaf --prefix "$prefix" >/dev/null
lib=$(dirname "$(find "$prefix" -name 'libvmaf.so.3' | head -n 1)")
export PKG_CONFIG_PATH=$lib/pkgconfig
soname=$(objdump -p "$lib/libvmaf.so" | sed -n 's/^ *SONAME *//p')
[ "$soname" = "libvmaf.so.3" ] || { echo "check_ffmpeg_libvmaf: SONAME is '$soname'"; exit 1; }
pkg-config --atleast-version=2.0.0 libvmaf ||
  { echo "check_ffmpeg_libvmaf: libvmaf.pc $(pkg-config --modversion libvmaf) < 2.0.0"; exit 1; }
declared=$(sed -n 's/^\(int \|void \|const char \*\)\(vmaf_[a-z_0-9]*\)(.*/\2/p' \
             "$prefix"/include/libvmaf/*.h | sort)
exported=$(nm -D --defined-only "$lib/libvmaf.so" | awk '{print $3}' | sort)
if [ "$declared" != "$exported" ] || [ "$(echo "$declared" | wc -l)" -lt 25 ]; then
  echo "check_ffmpeg_libvmaf: exported symbols differ from the headers' functions:"
  diff <(echo "$declared") <(echo "$exported") || true
  exit 1
fi
# The headers are strict C99, included as FFmpeg includes them.
printf '#include <libvmaf.h>\n#include <libvmaf/version.h>\nint main(void) { return vmaf_version() == 0; }\n' >"$work/c99.c"
cc -std=c99 -pedantic -Wall -Wextra -Werror "$work/c99.c" $(pkg-config --cflags --libs libvmaf) \
  -o "$work/c99"
LD_LIBRARY_PATH=$lib "$work/c99"

# 2. FFmpeg with --enable-libvmaf, cached.
flags=(--disable-everything --disable-autodetect --disable-doc --disable-debug
       --disable-ffplay --disable-ffprobe --disable-avdevice --disable-swresample
       --disable-swscale --disable-postproc --disable-network --disable-asm --disable-iconv
       --enable-libvmaf --enable-demuxer=yuv4mpegpipe --enable-decoder=rawvideo
       --enable-encoder=wrapped_avframe --enable-muxer=null --enable-protocol=file,pipe
       --enable-filter=libvmaf,buffer,buffersink,format,null,aformat,anull,atrim,trim,hflip,vflip,transpose)
# The headers as the compiler sees them (comments do not count).
api=$(cc -E -P -I"$prefix/include" -I"$prefix/include/libvmaf" "$prefix/include/libvmaf/libvmaf.h")
key=$( (echo "$ffsrc" "${flags[*]}"; echo "$api") | sha256sum | cut -c1-16)
ffbuild=$cache/build/$key
mkdir -p "$cache/build"
exec 9>"$cache/build/.lock"
flock 9
if [ ! -x "$ffbuild/ffmpeg" ]; then
  # Builds for other keys (older headers, flags or FFmpeg versions) go.
  find "$cache/build" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
  mkdir -p "$ffbuild.tmp"
  start=$(date +%s)
  echo "check_ffmpeg_libvmaf: building FFmpeg from $ffsrc (cache $ffbuild)"
  if ! (cd "$ffbuild.tmp" && "$ffsrc/configure" "${flags[@]}" >configure.log 2>&1 &&
        make -j"$(nproc)" ffmpeg >make.log 2>&1); then
    echo "check_ffmpeg_libvmaf: the FFmpeg build failed; its logs:"
    tail -n 30 "$ffbuild.tmp"/configure.log "$ffbuild.tmp"/ffbuild/config.log \
      "$ffbuild.tmp"/make.log 2>/dev/null || true
    exit 1
  fi
  rm -rf "$ffbuild"
  mv "$ffbuild.tmp" "$ffbuild"
  echo "check_ffmpeg_libvmaf: FFmpeg built in $(( $(date +%s) - start )) s"
fi
flock -u 9
ffmpeg=$ffbuild/ffmpeg
export LD_LIBRARY_PATH=$lib
libs=$(ldd "$ffmpeg")
grep -q "libvmaf.so.3 => $lib/" <<<"$libs" ||
  { echo "check_ffmpeg_libvmaf: ffmpeg does not load the installed layer:"; echo "$libs"; exit 1; }

# 3. FFmpeg's filter against the CLI.
vqe=$build/vqe
n=0
# run LABEL REF DIST FORMAT PRECISION 'FILTER OPTIONS' CLI-OPTIONS...
run() {
  local label=$1 ref=$2 dist=$3 fmt=$4 precision=$5 opts=$6
  shift 6
  local cli_precision=()
  [ "$precision" = max ] && cli_precision=(--precision max)
  VQE_LIBVMAF_PRECISION=$precision "$ffmpeg" -nostdin -hide_banner -loglevel info \
    -i "$dist" -i "$ref" \
    -lavfi "libvmaf=log_fmt=$fmt:log_path=$work/ff_$label.$fmt${opts:+:$opts}" \
    -f null - 2>"$work/ff_$label.log" ||
    { echo "check_ffmpeg_libvmaf: ffmpeg failed ($label):"; tail -n 20 "$work/ff_$label.log"; exit 1; }
  "$vqe" -r "$ref" -d "$dist" "--$fmt" -q -o "$work/cli_$label.$fmt" "${cli_precision[@]}" "$@"
  n=$((n + 1))
}
# compare LABEL FORMAT FRAMES NAME... : the two logs agree; NAMEs are per-frame metrics
compare() {
  python3 - "$work" "$@" <<'PY'
import json, re, sys
work, label, fmt, frames, names = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
ff_text = open(f"{work}/ff_{label}.{fmt}").read()
cli_text = open(f"{work}/cli_{label}.{fmt}").read()
def fail(msg):
    sys.exit(f"check_ffmpeg_libvmaf: {label}: {msg}")
if fmt == "json":
    ff, cli = json.loads(ff_text), json.loads(cli_text)
    for d in (ff, cli):
        d.pop("fps"); d.pop("version")
    if len(cli["frames"]) != frames:
        fail(f"the CLI wrote {len(cli['frames'])} frames, {frames} expected")
    missing = [n for n in names if n not in cli["frames"][0]["metrics"]]
    if missing:
        fail(f"no {missing} in the logs")
    if ff != cli:
        for a, b in zip(ff["frames"], cli["frames"]):
            if a != b:
                fail(f"frame {b['frameNum']} differs: ffmpeg {a} vs CLI {b}")
        fail("pooled or aggregate values differ")
    # The filter prints each model's pooled mean with %f.
    printed = re.findall(r"VMAF score: (\S+)", open(f"{work}/ff_{label}.log").read())
    models = [n for n in names if n.startswith("vmaf")]
    want = ["%f" % cli["pooled_metrics"][m]["mean"] for m in models]
    if printed != want:
        fail(f"the filter printed VMAF score {printed}, the CLI's means are {want}")
else:
    if fmt == "xml":  # the speed and the version differ
        ff_text, cli_text = (re.sub(r'(fps|version)="[^"]*"', "", t) for t in (ff_text, cli_text))
    if ff_text != cli_text:
        fail(f"the {fmt} logs differ")
    if any(n not in cli_text for n in names) or cli_text.count("\n") < frames:
        fail(f"the {fmt} log lacks frames or {names}")
PY
}

vmaf_names=(vmaf integer_adm2 integer_vif_scale0 integer_motion2)
run default "$small_ref" "$small_dist" json "" ""
compare default json 20 "${vmaf_names[@]}"
run default_max "$small_ref" "$small_dist" json max ""
compare default_max json 20 "${vmaf_names[@]}"
run two_models "$small_ref" "$small_dist" json max \
  'model=version=vmaf_v0.6.1\\:name=vmaf|version=vmaf_4k_v0.6.1\\:name=vmaf_4k:feature=name=psnr|name=float_ssim:n_threads=2' \
  -m version=vmaf_v0.6.1:name=vmaf -m version=vmaf_4k_v0.6.1:name=vmaf_4k \
  --feature psnr --feature float_ssim --threads 2
compare two_models json 20 "${vmaf_names[@]}" vmaf_4k psnr_y psnr_cb float_ssim
run options "$big_ref" "$big_dist" json max \
  'model=version=vmaf_v0.6.1neg\\:name=vmaf_neg\\:enable_transform=true\\:adm.adm_enhn_gain_limit=1.2:feature=name=psnr\\:enable_mse=true\\:enable_apsnr=true|name=float_ms_ssim:n_subsample=3:n_threads=1' \
  -m version=vmaf_v0.6.1neg:name=vmaf_neg:enable_transform:adm.adm_enhn_gain_limit=1.2 \
  --feature psnr=enable_mse=true:enable_apsnr=true --feature float_ms_ssim --subsample 3 --threads 1
compare options json 3 vmaf_neg integer_adm2_egl_1.2 mse_y float_ms_ssim
run xml "$big_ref" "$big_dist" xml "" "feature=name=float_ssim" --feature float_ssim
compare xml xml 8 vmaf float_ssim
run csv "$small_ref" "$small_dist" csv "" ""
compare csv csv 20 vmaf integer_adm2
run sub "$small_ref" "$small_dist" sub "" ""
compare sub sub 20 vmaf integer_adm2
echo "check_ffmpeg_libvmaf: FFmpeg $(basename "$ffsrc") with libvmaf.so.3 from VQE equals the CLI in $n runs"
