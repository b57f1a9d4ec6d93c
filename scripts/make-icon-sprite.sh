#!/usr/bin/env bash
# Makes static/icons/sprite.svg from Lucide (lucide-static on npm, ISC licence): one
# <symbol> per icon named in static/icons/icons.txt, drawn on pages as
# <svg><use href=".../sprite.svg#NAME"/></svg> (templates/_icons.html). Run it after
# changing icons.txt; the sprite and the licence are committed, so the site needs no
# npm at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
version=1.62.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack -q "lucide-static@$version" >/dev/null && tar xzf "lucide-static-$version.tgz")
.venv/bin/python scripts/icon_sprite.py "$work/package" static/icons/icons.txt static/icons/sprite.svg "$version"
cp "$work/package/LICENSE" static/icons/LICENSE
echo "static/icons/sprite.svg: $(grep -c '<symbol' static/icons/sprite.svg) icons"
