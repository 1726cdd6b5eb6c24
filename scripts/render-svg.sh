#!/usr/bin/env bash
# Renders an SVG picture of olla's (olla optimize --svg) to a PNG with headless
# Chromium, so a person can look at it: scripts/render-svg.sh IN.svg OUT.png
# Installs Chromium through scripts/install-deps.sh --picture when it is missing.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 IN.svg OUT.png" >&2
  exit 1
fi
in=$(realpath "$1")
out=$(realpath -m "$2")
bash "$(dirname "$0")/install-deps.sh" --picture
# The picture's own size, from its root element.
read -r width height < <(sed -n 's/.*<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$in" | head -1)
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$profile" --window-size="${width:-1300},${height:-650}" \
  --screenshot="$out" "file://$in" >/dev/null 2>&1
[ -s "$out" ] || { echo "render-svg: chromium wrote no picture" >&2; exit 3; }
echo "$out"
