"""The course's checks on the second core, while the engine builds on the first.

A cold build spends about 0.4 s checking every page (registry, sources, runs, link targets;
`trafikist.core.site.load_site`) before it renders anything, and the engine's Markdown pass is
Python bound to one core. A one-shot build (not a preview, which keeps its checks across
rebuilds in this process) can instead fork a child that runs the full `load_site`, go on with
`load_site(checks=False)` and the engine's build, and take the child's verdict before the site
is swapped in: the same problems, in the same words, and the last good site kept when there
are any. Where the system has no fork, the checks run first, as before. An exception in the
child that is not a CourseError comes back as the build guard's one line, naming the file the
child was reading (its traceback, under --debug, on the child's standard error).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from trafikist.base.errors import CourseError, Problem
from trafikist.base.reading import debug_requested, unexpected

PARALLEL = hasattr(os, "fork")


@dataclass
class ChecksInChild:
    """A forked child running `check`, a full `load_site` that returns its warnings."""

    pid: int
    reader: int

    @classmethod
    def start(
        cls, check: Callable[[], list[Problem]], config_file: str = "mkdocs.yml"
    ) -> ChecksInChild:
        sys.stdout.flush()
        sys.stderr.flush()
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: check, send the verdict, leave without cleaning up
            os.close(reader)
            try:
                verdict: tuple[str, object] = ("ok", check())
            except CourseError as error:
                verdict = ("problems", error.problems)
            except Exception as error:  # the guard's line, naming the file being read
                if debug_requested():
                    traceback.print_exc()
                    sys.stderr.flush()
                verdict = ("problems", unexpected(error, config_file).problems)
            except BaseException as error:  # the parent reports it as a failure
                verdict = ("failed", f"{type(error).__name__}: {error}")
            with os.fdopen(writer, "wb") as pipe:
                pickle.dump(verdict, pipe)
            os._exit(0)
        os.close(writer)
        return cls(pid, reader)

    def verdict(self) -> list[Problem]:
        """Wait for the child; returns its warnings, raises CourseError with its problems."""
        with os.fdopen(self.reader, "rb") as pipe:
            data = pipe.read()
        os.waitpid(self.pid, 0)
        if not data:
            raise RuntimeError("the course's checks ended without a verdict")
        kind, value = pickle.loads(data)
        if kind == "problems":
            raise CourseError(value)  # type: ignore[arg-type]
        if kind == "failed":
            raise RuntimeError(f"the course's checks failed: {value}")
        return value  # type: ignore[return-value]

    def cancel(self) -> None:
        """The build stopped first: end the child."""
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.reader)
