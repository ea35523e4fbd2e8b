"""The authors' preview, whatever the engine: how a failed build shows, and the reload client.

A failed build must not stop the preview or leave the browser waiting: the author sees the
message on the page they are previewing, fixes the file, saves, and the page comes back.

Both engines' previews reload a page with the same client, a file of the site's origin, which
the site's Content-Security-Policy allows where an inline script is blocked: every HTML page
loads `/__trafikist/reload.js`, which waits on a poll address and reloads the page when a new
build is in place (`with_reload`). The MkDocs adapter points it at `mkdocs serve`'s own reload
endpoint; the Zensical adapter's preview server answers it itself. The error message's look,
`/__trafikist/preview.css`, comes the same way: the preview's pages alone load it, and the
readers' stylesheet does not carry it (module 04's page has a weight budget).
"""

from __future__ import annotations

import errno
import html
import re
import socket

ERROR_TITLE = "The course does not build"
ERROR_CLASS = "tk-build-error"
FIX_NOTE = "Fix the file named below and save it: this page reloads by itself."
RELOAD_SCRIPT = "__trafikist/reload.js"  # under the site's root, in both engines' previews
PREVIEW_STYLE = "__trafikist/preview.css"  # likewise
# Asks `data-poll` (which answers once a newer build is in place, or after a while) and reloads
# the page when the answer differs from the build it was served from (`data-build`). A page
# that shows a failed build's message starts at the top, where the message is; the next good
# build comes back at the place the author was reading (kept for the tab across the reloads,
# in place of the browser's own restoration, which would scroll the message out of sight).
RELOAD_CLIENT = (
    "const { poll, build } = document.currentScript.dataset;\n"
    'const place = "trafikist-preview-place:" + location.pathname;\n'
    'const failed = () => document.querySelector(".tk-build-error") !== null;\n'
    'history.scrollRestoration = "manual";\n'
    "function settle() {\n"
    "  const kept = sessionStorage.getItem(place);\n"
    "  if (failed()) return window.scrollTo(0, 0);\n"
    "  sessionStorage.removeItem(place);\n"
    "  if (kept !== null) window.scrollTo(0, Number(kept));\n"
    "}\n"
    'if (document.readyState === "complete") settle();\n'
    'else addEventListener("load", settle, { once: true });\n'
    "async function wait() {\n"
    "  for (;;) {\n"
    "    try {\n"
    '      const answer = await fetch(poll, { cache: "no-store" });\n'
    "      if ((await answer.text()).trim() !== build) {\n"
    "        if (!failed()) sessionStorage.setItem(place, String(window.scrollY));\n"
    "        return location.reload();\n"
    "      }\n"
    "    } catch {\n"
    "      await new Promise((resolve) => setTimeout(resolve, 1000));\n"
    "    }\n"
    "  }\n"
    "}\n"
    "wait();\n"
)
# The error block's look on a page of the theme, first on the page in either palette (served at
# PREVIEW_STYLE: the pages' policy refuses inline styles). The last good page, its content
# replaced by the message, loses its table of contents, which would name sections that are no
# longer there.
PREVIEW_CSS = """\
.md-typeset .tk-build-error {
  margin: 1em 0;
  padding: 0.8em 1.2em;
  border: 2px solid #c62828;
  border-radius: 4px;
  background: #fff5f5;
  color: #3b0a0a;
}
[data-md-color-scheme="slate"] .md-typeset .tk-build-error {
  border-color: #ef9a9a;
  background: #2b1113;
  color: #ffe4e4;
}
.md-typeset .tk-build-error p { margin: 0 0 0.5em; }
.md-typeset .tk-build-error ul { margin: 0; padding-left: 1.2em; white-space: pre-wrap; }
.md-typeset .tk-build-error code { background: none; color: inherit; word-break: break-word; }
body[data-tk-build-error] .md-sidebar--secondary { display: none; }
"""
# The standalone page, which has neither the theme nor its policy, carries these.
STANDALONE_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
    ".tk-build-error{border:2px solid #c62828;border-radius:4px;padding:.8em 1.2em;"
    "margin:1em 0;background:#fff5f5;color:#3b0a0a}"
    ".tk-build-error p{margin:0 0 .5em}.tk-build-error ul{margin:0;padding-left:1.2em;"
    "white-space:pre-wrap}"
)
ARTICLE = re.compile(r"(<article\b[^>]*>)(.*?)(</article>)", re.S)


def with_reload(page: str, root: str, poll: str, build: str) -> str:
    """A page that loads the reload client and the error message's look (files of the site's
    origin, which the page's policy allows, where an inline script or style would be
    blocked)."""
    style = f'<link rel="stylesheet" href="{root}{PREVIEW_STYLE}">'
    tag = f'<script src="{root}{RELOAD_SCRIPT}" data-poll="{poll}" data-build="{build}"></script>'
    at = page.find("</head>")
    if at < 0:
        tag = style + tag
    else:
        page = page[:at] + style + page[at:]
    at = page.rfind("</body>")
    return page + tag if at < 0 else page[:at] + tag + page[at:]


def error_html(message: str) -> str:
    """The message as a block of HTML: one line per problem, as the terminal prints it."""
    lines = [line for line in message.splitlines() if line.strip()] or ["(no message)"]
    items = "\n".join(f"<li><code>{html.escape(line, quote=False)}</code></li>" for line in lines)
    return (
        f'<div class="{ERROR_CLASS}" role="alert">\n'
        f"<p>{FIX_NOTE}</p>\n"
        f"<ul>\n{items}\n</ul>\n</div>\n"
    )


def error_markdown(message: str) -> str:
    """A whole page for the site's theme: front matter, then the message as raw HTML."""
    return f'---\ntitle: "{ERROR_TITLE}"\n---\n\n# {ERROR_TITLE}\n\n{error_html(message)}'


def with_error(page: str, message: str) -> str:
    """A page of the last good build, its content replaced by the message: the theme's look,
    navigation and scripts stay, and the message is the first thing on the page."""
    block = f'<h1 id="tk-build-error">{ERROR_TITLE}</h1>\n{error_html(message)}'
    # The page's table of contents names sections the message replaced: it goes too.
    page = re.sub(r"<body\b", "<body data-tk-build-error", page, count=1)
    match = ARTICLE.search(page)
    if match is None:
        return insert_after_body(page, block)
    return page[: match.start(2)] + block + page[match.end(2) :]


def error_page(message: str) -> str:
    """A standalone page for when the theme itself cannot run."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{ERROR_TITLE}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{STANDALONE_STYLE}</style></head>\n<body>\n"
        f"<h1>{ERROR_TITLE}</h1>\n{error_html(message)}</body></html>\n"
    )


def insert_after_body(page: str, block: str) -> str:
    """Put a block at the top of an HTML page (the theme's 404 page, for one)."""
    match = re.search(r"<body[^>]*>", page)
    if match is None:
        return block + page
    return page[: match.end()] + "\n" + block + page[match.end() :]


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` (or `:PORT`, or `PORT`) as the previews take it; ValueError otherwise."""
    host, _, port = text.rpartition(":")
    number = int(port)
    if not 0 < number < 65536:
        raise ValueError(text)
    return host or "127.0.0.1", number


def address_problem(text: str) -> str | None:
    """Why the preview cannot serve on `text`, with the fix, or None: checked before the first
    build, so an address in use does not end a minute's build with a traceback."""
    fix = "pick a free port: scripts/serve --dev-addr 127.0.0.1:8001 (or TRAFIKIST_ADDR)."
    try:
        host, port = parse_address(text)
    except ValueError:
        return (
            f"'{text}' is not an address to serve on. Fix: write it as HOST:PORT, as in "
            "scripts/serve --dev-addr 127.0.0.1:8001."
        )
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            # As the servers bind: a preview stopped a moment ago leaves connections in
            # TIME_WAIT on the port, which the new server may reuse; only a listener is "in use".
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host.strip("[]"), port))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return (
                f"{host}:{port} is in use: another preview (or another program) serves there. "
                f"Fix: stop it (Ctrl+C in its terminal), or {fix}"
            )
        return f"cannot serve on {text}: {error.strerror}. Fix: {fix}"
    return None
