"""Draw a model trace: the timeline (SVG) and the readable trace (an HTML table).

This module runs twice with the same input: in CPython at build time, to bake the static form
into the page, and in Pyodide in the page, after a live run. Same trace, same markup, by
construction. So it is pure stdlib, and every number is formatted with a fixed precision (never
`repr` of a float), which is the same in every Python.

Every text that comes from a trace (job ids, stream names, argument vectors, replies) goes
through `html.escape`: a scenario or a console session can hold any bytes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

from trafikist.model.trace import Failure, Reply, State, Step, Trace, jobs_in

# -- layout of the timeline (SVG user units) ----------------------------------------------------
# The page draws one unit as one CSS pixel or more (duty.css: min-width), so the 12-unit text
# never renders under 12 px; on a screen narrower than WIDTH the figure scrolls in its box.
# Each lane's name is written above it, not beside it: the whole width is the run's, and on a
# phone the drawing is about two screens wide.
WIDTH = 640
FONT = 12  # duty.css sets it: .tk-tl
CHAR_WIDTH = 7.2  # of the 12-unit monospace font, to decide whether a label fits in its bar
PLOT_LEFT = 12  # half of the first tick label ("0 s"), centred on the first tick
RIGHT_MARGIN = 22  # half of the widest tick label ("12.5 s"), centred on the last tick
PLOT_WIDTH = WIDTH - PLOT_LEFT - RIGHT_MARGIN
AXIS_HEIGHT = 20
NAME_LINE = 15  # a lane's name, above the lane
ROW = 18  # one job (or one counter, or one client's commands) in a lane
BAR = 14
LANE_GAP = 5
MIN_BAR = 2  # a stay of zero virtual time still shows as a sliver

# The queue's places, in the order a job moves through them; CSS class of each, and what the
# legend calls its colour. One colour means one thing on every timeline of the site: every
# client's commands are drawn alike, each in a lane of its own that names it.
QUEUE_LANES = (
    ("schedule", "s"),
    ("pending", "p"),
    ("active", "a"),
    ("dead", "d"),
    ("done", "f"),
)
PAST_DUE = "sl"
COLOURS = {
    "s": "schedule",
    PAST_DUE: "past due, still in schedule",
    "p": "pending",
    "a": "active",
    "d": "dead",
    "f": "done",
    "x": "stream length",
    "g": "pending entries",
    "n": "failure count",
}
# Events drawn in their client's lane: the kinds a reader must not miss, each a mark of its own.
MARKED_EVENTS = {"crash": "✕", "restart": "↻", "refused": "⊘"}
# Events the trace table leaves out: the blocked command's reply cell says it already.
EVENTS_SHOWN_IN_REPLY = frozenset({"wake", "timeout"})
BREAKABLE_WORD = re.compile(r"[^\s<>]*[-/][^\s<>]*")
PLAIN_WORD = re.compile(r"^[\w@:./+*<>=-]+$")


def fmt(value: float, digits: int = 1) -> str:
    """A coordinate or a time, always the same text for the same number in every Python."""
    text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def fmt0(value: float) -> str:
    """A coordinate in whole SVG units: the timeline is 640 units wide, so that is precise
    enough, and it keeps the page light."""
    return fmt(value, 0)


def whole(value: float) -> int:
    """A coordinate in whole SVG units, as a number (fmt0's, for the paths' arithmetic)."""
    return int(fmt0(value))


def _pair(a: int, b: int) -> str:
    # SVG path data needs no space before a minus sign.
    return f"{a}{b}" if b < 0 else f"{a} {b}"


def path_data(pieces: Iterable[tuple[int, int, str, int, int]]) -> str:
    """The path data of `pieces`, each (x, y, drawing, dx, dy): the drawing starts at (x, y)
    and ends dx, dy away from it (0, 0 after a closed rectangle). Each piece after the first
    moves there from where the last one ended, absolutely (`M`) or relatively (`m`), whichever
    is shorter: the same drawing in fewer bytes (nine timelines share module 04's weight
    budget)."""
    parts: list[str] = []
    at: tuple[int, int] | None = None
    for x, y, drawing, dx, dy in pieces:
        move = f"M{_pair(x, y)}"
        if at is not None:
            relative = f"m{_pair(x - at[0], y - at[1])}"
            move = relative if len(relative) < len(move) else move
        parts.append(move + drawing)
        at = (x + dx, y + dy)
    return "".join(parts)


def seconds(value: float) -> str:
    return f"{value:.3f}"


def esc(text: Any) -> str:
    """Text for an attribute value (quotes escaped too)."""
    return html.escape(str(text), quote=True)


def escape_text(value: Any) -> str:
    """Text for element content: <, > and & escaped; quotes stay as they are (fewer bytes)."""
    return html.escape(str(value), quote=False)


# -- the timeline --------------------------------------------------------------------------------


def snapshots(trace: Trace) -> list[tuple[float, State]]:
    """(time, state) from the start to the last step; each state holds until the next one."""
    found = [(0.0, trace["initial"])]
    found += [(float(step["t"]), step["state"]) for step in trace["steps"]]
    return found


def stays(
    shots: list[tuple[float, State]], lane: str, end: float
) -> dict[str, list[tuple[float, float]]]:
    """For each job, the intervals during which it sits in `lane`, in order of first arrival."""
    open_since: dict[str, float] = {}
    found: dict[str, list[tuple[float, float]]] = {}
    for t, state in shots:
        jobs = jobs_in(state, lane)
        present = set(jobs)
        for job in list(open_since):
            if job not in present:
                found[job].append((open_since.pop(job), t))
        for job in jobs:
            if job not in open_since:
                open_since[job] = t
                found.setdefault(job, [])
    for job, since in open_since.items():
        found[job].append((since, end))
    return found


def counter_series(
    shots: list[tuple[float, State]], section: str, end: float
) -> dict[str, list[tuple[float, float, str]]]:
    """For each name in a state section (streams, pel, failures): (start, end, label) runs."""
    runs: dict[str, list[tuple[float, float, str]]] = {}
    current: dict[str, tuple[float, str]] = {}
    for t, state in shots:
        values = _section(state, section)
        for name in list(current):
            if name not in values:
                since, label = current.pop(name)
                runs[name].append((since, t, label))
        for name, value in values.items():
            label = _counter_label(section, value)
            if name in current and current[name][1] == label:
                continue
            if name in current:
                since, old = current[name]
                runs[name].append((since, t, old))
            current[name] = (t, label)
            runs.setdefault(name, [])
    for name, (since, label) in current.items():
        runs[name].append((since, end, label))
    return runs


def _section(state: State, section: str) -> Mapping[str, int | Failure]:
    """A bus section of a state: streams, pel or failures (empty on a run without a bus)."""
    if section == "streams":
        return state.get("streams", {})
    if section == "pel":
        return state.get("pel", {})
    return state.get("failures", {})


def _counter_label(section: str, value: int | Failure) -> str:
    if isinstance(value, dict):  # a failure counter
        ttl = value["ttl"]
        ttl_text = "no TTL" if ttl == -1 else f"TTL {ttl}"
        return f"{value['count']} · {ttl_text}"
    return str(value)


def _nice_step(duration: float) -> float:
    for step in (0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200):
        if duration / step <= 10:
            return float(step)
    return 3600.0


def clients_in_order(trace: Trace) -> list[str]:
    """The trace's clients: the scenario's processes first, then whoever else sent a command."""
    names = [process["name"] for process in trace["processes"]]
    for step in trace["steps"]:
        if step["client"] not in names:
            names.append(step["client"])
    return names


def render_timeline_svg(trace: Trace) -> str:
    """Where each job sits over virtual time, the bus counters, and when each client sends."""
    duration = float(trace["duration"] or 1.0)
    shots = snapshots(trace)
    end = max(duration, shots[-1][0])

    def x(t: float) -> float:
        return PLOT_LEFT + PLOT_WIDTH * min(max(t, 0.0), end) / end

    parts: list[str] = []
    y = AXIS_HEIGHT

    # Axis: a tick and a time label at round numbers of seconds.
    step = _nice_step(end)
    ticks: list[tuple[int, int, str, int, int]] = []
    labels: list[str] = []
    count = int(end / step + 1e-9)
    for index in range(count + 1):
        t = index * step
        ticks.append((whole(x(t)), AXIS_HEIGHT - 4, "v4", 0, 4))
        labels.append(f'<tspan x="{fmt0(x(t))}">{fmt(t, 2)} s</tspan>')
    # One text of tspans on one baseline: each label is placed by its x alone, in less markup
    # (nine timelines share module 04's weight budget).
    parts.append(f'<text class="tk-tl__tick" y="{AXIS_HEIGHT - 7}">{"".join(labels)}</text>')
    axis = path_data([(PLOT_LEFT, AXIS_HEIGHT, f"H{WIDTH - RIGHT_MARGIN}", PLOT_WIDTH, 0), *ticks])
    parts.append(f'<path class="tk-tl__axis" d="{axis}"/>')
    axis_end = len(parts)
    y += 4
    lanes = _Lanes()

    # Commands: a lane for each client, a short upright stroke for each command it sends, and
    # under them the marks of what befell it (a crash, a restart, a refusal). Every client is
    # drawn alike: its lane's name says whose commands they are.
    strokes: dict[str, list[tuple[int, int, str, int, int]]] = {}
    marks: dict[str, list[tuple[float, str]]] = {}
    for step_data in trace["steps"]:
        strokes.setdefault(step_data["client"], []).append(
            (whole(x(float(step_data["t"]))), 0, f"v{BAR}", 0, BAR)
        )
    for event in trace["events"]:
        if event["kind"] in MARKED_EVENTS:
            marks.setdefault(event["client"], []).append((x(float(event["t"])), event["kind"]))
    clients = clients_in_order(trace)
    clients += [name for name in marks if name not in clients]
    cmd_pieces: list[tuple[int, int, str, int, int]] = []
    for name in clients:
        if name not in strokes and name not in marks:
            continue
        lanes.name(f"{name} · commands", y)
        top = y + NAME_LINE + (ROW - BAR) // 2
        for stroke in dict.fromkeys(strokes.get(name, [])):  # a millisecond apart: one stroke
            cmd_pieces.append((stroke[0], top, *stroke[2:]))
        y += NAME_LINE + ROW
        if name in marks:
            for at, kind in marks[name]:
                parts.append(
                    f'<text class="tk-tl__event tk-tl__event--{esc(kind)}" '
                    f'x="{fmt0(at)}" y="{y + 11}">{MARKED_EVENTS[kind]}</text>'
                )
            y += ROW - 4
        y += LANE_GAP
    if cmd_pieces:
        parts.append(f'<path class="tk-tl__cmd" d="{path_data(cmd_pieces)}"/>')

    # The queue's places: one sub-row per job that ever sits there.
    bars = _Bars()
    due = trace["due"]
    if trace["jobs"]:
        for lane, css in QUEUE_LANES:
            if lane == "done" and not any(state["done"] for _, state in shots):
                continue
            by_job = stays(shots, lane, end)
            rows = max(1, len(by_job))
            y = lanes.box(lane, y, rows)
            for row, (job, intervals) in enumerate(by_job.items()):
                top = y + row * ROW + (ROW - BAR) // 2
                for start, stop in intervals:
                    pieces = [(start, stop, css)]
                    job_due = due.get(job)
                    if lane == "schedule" and job_due is not None and start < job_due < stop:
                        # Past its due time a job still waits in schedule until a sweep moves it.
                        pieces = [(start, job_due, css), (job_due, stop, PAST_DUE)]
                    elif lane == "schedule" and job_due is not None and job_due <= start:
                        pieces = [(start, stop, PAST_DUE)]
                    for first, last, piece_css in pieces:
                        bars.add(x(first), x(last), top, piece_css, job)
            y += rows * ROW + LANE_GAP

    # The bus: stream lengths, the group's pending entries, the failure counts and their TTL.
    for section, css, prefix in (
        ("streams", "x", "stream "),
        ("pel", "g", "pending "),
        ("failures", "n", "count "),
    ):
        for name, runs in counter_series(shots, section, end).items():
            y = lanes.box(prefix + _short_name(section, name), y, 1)
            top = y + (ROW - BAR) // 2
            for start, stop, label in runs:
                if label not in ("0", ""):
                    bars.add(x(start), x(stop), top, css, label)
            y += ROW + LANE_GAP

    # The lanes' backgrounds under everything else, their names above them.
    parts[axis_end:axis_end] = lanes.markup()
    parts += bars.markup()
    height = y + 2
    label = esc(
        f"Timeline of {trace['scenario']}: each job and bus entry over "
        f"{fmt(duration, 3)} s, and each client's commands"
    )
    return (
        f'<svg class="tk-tl" viewBox="0 0 {WIDTH} {fmt(height)}" width="{WIDTH}" '
        f'height="{fmt(height)}" role="img" aria-label="{label}">' + "".join(parts) + "</svg>"
    )


def _short_name(section: str, name: str) -> str:
    if section == "failures":
        # `<stream>:failures:<entry id>`: the entry id is what tells two counts apart.
        return name.rsplit(":", 1)[-1]
    if section == "pel":
        stream, _, group = name.partition(" ")
        return f"{group} · {stream}"
    return name


class _Lanes:
    """Every lane's background as one path and every lane's name as one text of tspans: the
    same drawing in less markup (nine timelines share module 04's weight budget)."""

    LONGEST = 80  # characters of a lane's name: the drawing's width

    def __init__(self) -> None:
        self.backgrounds: list[tuple[int, int, str, int, int]] = []
        self.names: list[str] = []

    def name(self, text: str, top: int) -> None:
        """The lane's name on its own line at `top`, above the lane."""
        shown = text if len(text) <= self.LONGEST else text[: self.LONGEST - 1] + "…"
        self.names.append(
            f'<tspan x="{PLOT_LEFT}" y="{top + NAME_LINE - 4}">{escape_text(shown)}</tspan>'
        )

    def box(self, text: str, top: int, rows: int) -> int:
        """A named lane of `rows` rows whose name starts at `top`; where its rows start."""
        self.name(text, top)
        top += NAME_LINE
        drawing = f"h{PLOT_WIDTH}v{rows * ROW}h-{PLOT_WIDTH}z"
        self.backgrounds.append((PLOT_LEFT, top, drawing, 0, 0))
        return top

    def markup(self) -> list[str]:
        parts = []
        if self.backgrounds:
            parts.append(f'<path class="tk-tl__bg" d="{path_data(self.backgrounds)}"/>')
        if self.names:
            parts.append(f'<text class="tk-tl__lane">{"".join(self.names)}</text>')
        return parts


class _Bars:
    """Bars as one path per colour (a rectangle is `M x y h w v 10 h -w z`: about a third of
    the bytes of a <rect>), and the labels that fit inside their bar, drawn on top."""

    def __init__(self) -> None:
        self.paths: dict[str, list[tuple[int, int, str, int, int]]] = {}
        self.labels: list[str] = []

    def add(self, left: float, right: float, top: int, css: str, label: str) -> None:
        left_unit = round(left)
        width = max(round(right) - left_unit, MIN_BAR)
        self.paths.setdefault(css, []).append((left_unit, top, f"h{width}v{BAR}h-{width}z", 0, 0))
        if width >= CHAR_WIDTH * len(label) + 4:
            self.labels.append(
                f'<text x="{left_unit + 2}" y="{top + BAR - 3}">{escape_text(label)}</text>'
            )

    def markup(self) -> list[str]:
        paths = [f'<path class="{css}" d="{path_data(d)}"/>' for css, d in self.paths.items()]
        return paths + self.labels


# -- the readable trace --------------------------------------------------------------------------


def quote_arg(arg: Any) -> str:
    """An argument as valkey-cli users write it: bare when plain, in double quotes otherwise."""
    text = str(arg)
    if PLAIN_WORD.match(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def reply_text(reply: Reply, nested: bool = False) -> str:
    """A reply on one line, in valkey-cli's words: (integer) 1, (nil), "text", (error) …"""
    if isinstance(reply, dict) and "error" in reply:
        return f"(error) {reply['error']}"
    if reply is None:
        return "(nil)"
    if isinstance(reply, bool):
        return f"(integer) {int(reply)}"
    if isinstance(reply, int):
        return str(reply) if nested else f"(integer) {reply}"
    if isinstance(reply, str):
        return quote_arg(reply) if nested else f'"{reply}"'
    if isinstance(reply, list):
        if not reply:
            return "[]" if nested else "(empty array)"
        inner = ", ".join(reply_text(item, nested=True) for item in reply)
        return f"[{inner}]" if nested else f"{len(reply)} items: [{inner}]"


def step_reply(step: Step) -> str:
    reply = reply_text(step["reply"])
    if not step.get("blocked"):
        return reply
    replied = step.get("replied")
    if replied is None:
        return "blocked until the end of the run"
    return f"{reply} at {seconds(float(replied))} (blocked)"


def trace_rows(
    trace: Trace, decides: tuple[str, int] | None = None
) -> list[tuple[float, int, int, str]]:
    """Steps and events merged by time; at the same time a step comes before an event. The row
    that `decides` names, ("step", index) or ("event", index), is marked: a question's answer
    turns on it."""
    rows: list[tuple[float, int, int, str]] = []
    for index, step in enumerate(trace["steps"]):
        command = " ".join(quote_arg(arg) for arg in step["argv"])
        if step.get("pipeline"):
            command += "  (pipelined)"
        # Whole cells and rows: each engine's search must see where they end to leave the
        # trace out of its index; the page the reader gets drops the end tags again
        # (trafikist.core.theme), which HTML allows, so a long trace stays light.
        cells = (
            f"<td>{seconds(float(step['t']))}</td><td>{escape_text(step['client'])}</td>"
            f"<td>{escape_text(step['via'])}</td><td>{whole_words(command)}</td>"
            f"<td>{whole_words(step_reply(step))}</td>"
        )
        mark = ' class="tk-trace__decides"' if decides == ("step", index) else ""
        rows.append((float(step["t"]), 0, index, f"<tr{mark}>{cells}</tr>"))
    for index, event in enumerate(trace["events"]):
        if event["kind"] in EVENTS_SHOWN_IN_REPLY:
            continue
        words = f"{event['kind']}: {event['text']}"
        cells = (
            f"<td>{seconds(float(event['t']))}</td><td>{escape_text(event['client'])}</td>"
            f'<td colspan="3">{whole_words(words)}</td>'
        )
        decided = " tk-trace__decides" if decides == ("event", index) else ""
        row = f'<tr class="tk-trace__event{decided}">{cells}</tr>'
        rows.append((float(event["t"]), 1, index, row))
    rows.sort(key=lambda row: row[:3])
    return rows


def whole_words(text: str) -> str:
    """Element content whose lines break between words only: a browser breaks a line after a
    hyphen or a slash too, inside an entry id ("1700000001500-" and "0"), so each word that
    has one is kept whole (duty.css: a trace's <span>; no class, for the page's weight)."""
    return BREAKABLE_WORD.sub(r"<span>\g<0></span>", escape_text(text))


def render_trace_html(
    trace: Trace, decides: tuple[str, int] | None = None, of: str = "", rows_at: str = ""
) -> str:
    """The commands sent, in order, with their replies and the run's events, as a table; with
    `decides`, the row a question turns on is marked and the table is open; `of` ends the name
    of its scrolling region (a page may hold the same run twice: the regions' names differ).
    With `rows_at`, the address of the run's own page (run_page), the table stays there: the
    closed <details> holds a link to it, and the page's script (widgets/duty/duty.js) puts the
    table in the link's place when the reader first opens it, as this function without
    `rows_at` writes it."""
    summary = trace_summary(trace)
    opened = " open" if decides else ""
    if rows_at:
        return (
            f'<details class="tk-trace" data-search-exclude data-rows="{esc(rows_at)}">'
            f"<summary>{escape_text(summary)}</summary>\n"
            f'<p class="tk-trace__file"><a href="{esc(rows_at)}">The trace of '
            f"{escape_text(trace['scenario'])}, on a page of its own</a></p></details>"
        )
    # The search of either engine leaves the whole trace out of its index.
    return (
        f'<details class="tk-trace" data-search-exclude{opened}>'
        f"<summary>{escape_text(summary)}</summary>\n"
        f"{trace_box(trace, decides, of)}</details>"
    )


def run_link_html(trace: Trace, run_at: str) -> str:
    """A duty's run as its panel holds it until the reader picks the duty: a link to the run's
    own page (run_page), whose drawing and trace the page's script (widgets/duty/duty.js) puts
    in the link's place. A module shows nine duties' runs and the reader sees one at a time:
    their drawings and traces were a third of the page's weight."""
    return (
        f'<p class="tk-run__file" data-run-at="{esc(run_at)}"><a href="{esc(run_at)}">The run '
        f"of {escape_text(trace['scenario'])} on the model, its timeline and its trace, on a "
        "page of its own</a></p>"
    )


def trace_summary(trace: Trace) -> str:
    return f"Trace · {len(trace['steps'])} commands, {len(trace['events'])} events"


def trace_box(trace: Trace, decides: tuple[str, int] | None = None, of: str = "") -> str:
    """The trace's table in the box it scrolls in (render_trace_html)."""
    region = trace_summary(trace) + of
    head = "".join(f"<th>{name}</th>" for name in ("t (s)", "client", "call", "command", "reply"))
    # A header row of <th> heads its columns (no `scope` needed); the rows need no newline.
    body = "".join(row[3] for row in trace_rows(trace, decides))
    # A long trace scrolls in its own box, which a keyboard must be able to reach (tabindex).
    return (
        f'<div class="tk-trace__scroll" tabindex="0" role="region" '
        f'aria-label="{esc(region)}">'
        f'<table class="tk-trace__table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def run_page(
    result: str, trace: Trace, stylesheet: str, back: str, back_text: str, theme: str, scope: str
) -> str:
    """A run as a page of its own: what a duty's panel links to (run_link_html,
    render_trace_html's `rows_at`), for a reader with JavaScript off, and where the page's
    script takes the drawing and the trace from (the `.tk-run__result` box holds `result`, as
    render_result_html writes it). No inline script or style (the site's
    Content-Security-Policy); `stylesheet`, `back`, `theme` (the folder of the theme's palette
    scripts, widgets/theme/) and `scope` (the site's root) are relative to the page's own
    address. The palette is the reader's, as on every page of the site: the theme's two
    scripts read the one the reader chose, which the theme keeps under the site's root; without
    JavaScript the page is light, as every page is."""
    title = f"The run of {trace['scenario']} · Trafikist"
    policy = "default-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'"
    return (
        '<!doctype html>\n<html lang="en" class="tk-run-page"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        f"<title>{escape_text(title)}</title>"
        # No icon of its own: without this line the browser asks the site's root for one.
        '<link rel="icon" href="data:,">'
        f'<link rel="stylesheet" href="{esc(stylesheet)}">'
        f'<script src="{esc(theme)}/md-globals.js" data-md-scope="{esc(scope)}"></script>'
        "</head>\n"
        f'<body><script src="{esc(theme)}/md-palette.js"></script><main class="md-typeset">'
        f"<h1>The run of {escape_text(trace['scenario'])} on the model</h1>\n"
        f'<p><a href="{esc(back)}">{escape_text(back_text)}</a></p>\n'
        f'<div class="tk-run__result">{result}</div>\n</main></body></html>\n'
    )


# -- the whole result ----------------------------------------------------------------------------


def legend_html(drawn: str) -> str:
    """What each colour and mark of the `drawn` timeline means: each one it shows, and only
    those."""
    command = '<span class="tk-tl__swatch tk-tl__cmd"></span>a command'
    keys = [f'<span class="tk-tl__key">{command}</span>'] if "tk-tl__cmd" in drawn else []
    keys += [
        f'<span class="tk-tl__key"><span class="tk-tl__swatch {css}"></span>{text}</span>'
        for css, text in COLOURS.items()
        if f'class="{css}"' in drawn
    ]
    keys += [
        f'<span class="tk-tl__key"><span class="tk-tl__mark" aria-hidden="true">{mark}</span>'
        f"{kind}</span>"
        for kind, mark in MARKED_EVENTS.items()
        if f"tk-tl__event--{kind}" in drawn
    ]
    return f'<span class="tk-tl__legend">{"".join(keys)}</span>'


def choices_html(trace: Trace, known: Iterable[str], href: str = "#tk-choice-") -> str:
    """Links to the model's own choices this run relied on (the widget lists their words;
    elsewhere `href` points at the page of the model's choices), each at `href` + its id."""
    known_ids = set(known)
    ids = [choice for choice in trace["choices"] if choice in known_ids]
    if not ids:
        return ""
    links = ", ".join(f'<a href="{esc(href + choice)}">{escape_text(choice)}</a>' for choice in ids)
    return (
        '<p class="tk-run__choices">The model\'s own choices this run relies on, where the course '
        f"gives no value: {links}.</p>"
    )


def summarize(trace: Trace) -> str:
    steps = trace["steps"]
    clients = [name for name in clients_in_order(trace) if any(s["client"] == name for s in steps)]
    final = trace["final"]
    # Each place a job can wait in, and done when a job got there (its lane is drawn then):
    # a run that ends with every job done says where they went.
    places = ", ".join(
        f"{lane} {len(jobs_in(final, lane))}"
        for lane, _ in QUEUE_LANES
        if lane != "done" or jobs_in(final, lane)
    )
    by = f" by {', '.join(clients)}" if clients else ""
    text = (
        f"Ran {trace['scenario']}: {len(steps)} commands{by} in "
        f"{fmt(float(trace['duration'] or 0), 3)} s of virtual time"
    )
    if trace["jobs"]:
        text += f"; at the end: {places}"
    return text + "."


def render_result_html(
    trace: Trace,
    known_choices: Iterable[str] = (),
    decides: tuple[str, int] | None = None,
    choices_href: str = "#tk-choice-",
    of: str = "",
    rows_at: str = "",
) -> str:
    """The timeline, its legend, the choices note and the trace: what a duty's panel shows
    (its trace's rows at `rows_at`: render_trace_html);
    with `decides`, a question's run, the row it turns on marked (render_trace_html), its
    choices linked at `choices_href` (choices_html); `of` ends the names of its scrolling
    regions (", for the question: …" where the page also shows the duty's run of the same
    scenario)."""
    caption = escape_text(summarize(trace))
    # On a screen narrower than the drawing, it scrolls sideways in this box, which a keyboard
    # must be able to reach (tabindex), and the page does not.
    name = esc(f"Timeline of {trace['scenario']}{of}")
    scroll_box = f'<div class="tk-tl__scroll" tabindex="0" role="region" aria-label="{name}">'
    drawn = render_timeline_svg(trace)
    # The drawing's labels and the trace's rows are no prose: both engines' search leaves out
    # what carries data-search-exclude.
    return (
        f'<figure class="tk-run__figure" data-search-exclude>{scroll_box}{drawn}</div>\n'
        f'<figcaption><span class="tk-tl__hint">Scroll sideways: the run goes on to '
        f"{fmt(float(trace['duration'] or 0), 3)} s.</span> {caption} {legend_html(drawn)}"
        "</figcaption></figure>\n"
        f"{choices_html(trace, known_choices, choices_href)}\n"
        f"{render_trace_html(trace, decides, of, rows_at)}"
    )
