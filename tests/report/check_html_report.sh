#!/usr/bin/env bash
# The HTML report in a real browser: vqe writes the JSON log (full precision)
# and the report of a shared pair; headless Chromium runs the page's scripts
# (Chart.js inlined, no network), and the data the chart drew must equal the
# JSON log's per-frame values, name by name, frame by frame; then Chromium
# saves a screenshot (BUILD_DIR/report/report.png).
# Usage: check_html_report.sh VQE_BINARY BUILD_DIR [SHARED_DIR]
# Exit 77 (skipped) without Chromium or the shared clips.
set -euo pipefail
vqe=$1
build=$(cd "$2" && pwd)
shared=${VQE_SHARED:-${3:-$(dirname "$0")/../../../shared}}
ref=$shared/testdata/clips/ref/bbb_576x324_420p8_8f.y4m
dist=$shared/testdata/clips/dist/bbb_576x324_420p8_8f__x264_crf45.y4m
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "check_html_report: chromium not found: skipping"; exit 77; fi
if [ ! -f "$ref" ] || [ ! -f "$dist" ]; then
  echo "check_html_report: shared clips not found (set VQE_SHARED): skipping"; exit 77
fi
out=$build/report
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$vqe" -r "$ref" -d "$dist" -m version=vmaf_v0.6.1 --feature psnr --feature float_ssim \
  --json --precision max -o "$work/scores.json" --html "$out/report.html" -q
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$work/profile" --virtual-time-budget=10000)
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$out/report.html" \
  > "$work/dom.html" 2> "$work/chromium.log" || { cat "$work/chromium.log"; exit 1; }
python3 - "$work/dom.html" "$work/scores.json" <<'PY'
import html, json, math, re, sys
dom = open(sys.argv[1]).read()
m = re.search(r'<pre id="vqe-drawn" hidden="">(.*?)</pre>', dom, re.S)
if not m or not m.group(1).strip():
    sys.exit("check_html_report: the page drew no chart (no data in #vqe-drawn)")
drawn = json.loads(html.unescape(m.group(1)))
log = json.load(open(sys.argv[2]))
frames = [f["frameNum"] for f in log["frames"]]
if drawn["frames"] != frames:
    sys.exit(f"check_html_report: chart frames {drawn['frames']} != log frames {frames}")
names = list(log["frames"][0]["metrics"].keys())
if sorted(drawn["series"].keys()) != sorted(names):
    sys.exit(f"check_html_report: chart names {sorted(drawn['series'])} != log names {sorted(names)}")
for name in names:
    for i, f in enumerate(log["frames"]):
        want, got = f["metrics"][name], drawn["series"][name][i]
        if want is None or (isinstance(want, float) and not math.isfinite(want)):
            ok = got is None
        else:
            ok = got == want
        if not ok:
            sys.exit(f"check_html_report: {name} frame {i}: chart {got!r}, log {want!r}")
if drawn["shown"] != ["vmaf"]:
    sys.exit(f"check_html_report: shown at first {drawn['shown']}, expected the VMAF score")
print(f"check_html_report: the chart drew {len(names)} series x {len(frames)} frames, "
      "equal to the JSON log")
PY
timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size=1280,1400 \
  --screenshot="$out/report.png" "file://$out/report.html" > /dev/null 2>> "$work/chromium.log" \
  || { cat "$work/chromium.log"; exit 1; }
size=$(stat -c %s "$out/report.png")
[ "$size" -gt 20000 ] || { echo "check_html_report: screenshot too small ($size bytes)"; exit 1; }
echo "check_html_report: screenshot $out/report.png ($size bytes)"
