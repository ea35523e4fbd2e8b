"""The preview under Zensical: the same build as `trafikist build --engine zensical`, run again
on every save, served by the core's preview server (trafikist.core.preview).

Why not `zensical serve`: its live-reload client is an inline script, which the site's
Content-Security-Policy blocks, and it rebuilds without the step after the build that finishes
the pages. Each rebuild here writes a new folder and the server switches to it at once, so a
reader never gets a half-written site; a failed rebuild keeps the last good one on disk and
shows the message on every page until a save fixes it.
"""

from __future__ import annotations

import itertools
import shutil
import signal
import sys
import threading
from typing import Any

from trafikist.base.errors import CourseError
from trafikist.base.reading import debug_requested, traceback_text
from trafikist.core.cache import files_signature
from trafikist.core.project import Project
from trafikist.zensical_adapter.build import ZensicalBuild
from trafikist.zensical_adapter.preview import PreviewServer, watch


def serve(project: Project, address: tuple[str, int]) -> int:
    """Build, serve on `address`, and rebuild on every change until interrupted."""
    builder = ZensicalBuild(project, preview=True)
    server = PreviewServer(address, builder.work / "empty")
    numbers = itertools.count(1)

    def rebuild() -> None:
        target = builder.work / f"served-{next(numbers)}"
        try:
            for warning in builder.build(target):
                print(f"WARNING  -  {warning}", file=sys.stderr)
        except CourseError as error:
            if debug_requested():
                print(traceback_text(error), end="", file=sys.stderr)
            for line in str(error).splitlines():
                print(f"ERROR    -  {line}", file=sys.stderr)
            print(
                "INFO     -  The preview shows this error on every page; the next save that "
                "fixes it brings the pages back.",
                file=sys.stderr,
            )
            server.publish(None, str(error))
            return
        old = server.publish(target)
        if old is not None:
            # The reader already has the new site; removing the old one waits on the disk
            # (a few tenths of a second), which the next save need not wait for.
            threading.Thread(target=shutil.rmtree, args=(old, True), daemon=True).start()
        print(f"INFO     -  Built; serving {server.url}", file=sys.stderr)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, _interrupt)  # a terminated preview cleans up too
    try:
        before = files_signature(builder.watched_paths)
        rebuild()
        server.start()
        print(f"INFO     -  Serving on {server.url} (Zensical; Ctrl+C stops)", file=sys.stderr)
        watch(lambda: builder.watched_paths, files_signature, rebuild, stop, before)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.close()
        builder.course.cancel()
        builder.close()
    return 0


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
