"""Write an SVG sprite of the Lucide icons named in a list (scripts/make-icon-sprite.sh).

Each icon's drawing (its paths, circles...) becomes a <symbol id="NAME"> with the icon's
viewBox; stroke and fill are set once on the sprite's symbols' users (static/css/site.css
``.icon``), so an icon takes the colour of the text around it (currentColor).
"""

import re
import sys
from pathlib import Path


def symbol(name, svg):
    view_box = re.search(r'viewBox="([^"]+)"', svg).group(1)
    body = svg[svg.index(">", svg.index("<svg")) + 1 : svg.rindex("</svg>")]
    body = " ".join(line.strip() for line in body.splitlines() if line.strip())
    return f'<symbol id="{name}" viewBox="{view_box}">{body}</symbol>'


def main(package, names_file, out, version):
    names = [
        line.split("#")[0].strip()
        for line in Path(names_file).read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    symbols = [
        symbol(name, (Path(package) / "icons" / f"{name}.svg").read_text()) for name in names
    ]
    Path(out).write_text(
        f"<!-- Lucide {version} (https://lucide.dev), ISC licence: static/icons/LICENSE -->\n"
        '<svg xmlns="http://www.w3.org/2000/svg">\n' + "\n".join(symbols) + "\n</svg>\n"
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
