#!/bin/sh
# render-svg.sh IN.svg [OUT.png] - render an SVG headless with Debian's
# chromium and write a PNG screenshot (default: IN with .png). Used to check
# `collc draw` output the way a browser shows it. Installs chromium with apt
# only when it is missing.
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 IN.svg [OUT.png]" >&2
    exit 2
fi
in=$1
out=${2:-${in%.svg}.png}
[ -f "$in" ] || { echo "$0: no such file: $in" >&2; exit 1; }

browser=
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
    echo "$0: chromium not found; installing it with apt-get" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
    browser=chromium
fi

# The window must be as large as the drawing: read width/height from the
# root <svg> element (collc draw always writes both, in pixels).
size=$(python3 - "$in" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
w = int(float(root.get("width", "800").rstrip("px")))
h = int(float(root.get("height", "600").rstrip("px")))
print(f"{max(w, 100)},{max(h, 100)}")
PY
)

abs=$(cd "$(dirname "$in")" && pwd)/$(basename "$in")
absout=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$profile" --window-size="$size" \
    --screenshot="$absout" "file://$abs" >/dev/null 2>&1
[ -s "$absout" ] || { echo "$0: chromium wrote no screenshot" >&2; exit 1; }
echo "$absout"
