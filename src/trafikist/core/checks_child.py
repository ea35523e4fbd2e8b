"""The course's checks on the second core, while the engine builds on the first.

A cold build spends about half a second checking every page (registry, sources, runs, Valkey
statements, link targets; `trafikist.core.site.load_site`) before it renders anything, and an
engine's Markdown pass is Python bound to one core. A one-shot build (not a preview, which
keeps its checks' memo across rebuilds in its own process) can instead start a child that runs
the full `load_site`, go on with `load_site(checks=False)` and the engine's build, and take
the child's verdict before the site is swapped in: the same problems, in the same words, and
the last good site kept when there are any. An exception in the child that is not a
CourseError comes back as the build guard's one line, naming the file the child was reading
(its traceback, under --debug, on the child's standard error, which is the build's).

The child is a new interpreter (`python -P -m trafikist.core.checks_child`), never a fork: a
build process runs threads (the memory snapshot's Node waits in one, and an engine may run its
own), and a forked child of a threaded process can deadlock on a lock some other thread held.
What the child runs is a module-level function, sent with its arguments by pickle on its
standard input; its verdict comes back on its standard output. The price of a new interpreter
is its start and its imports, on the child's own core while the parent builds.
"""

from __future__ import annotations

import contextlib
import pickle
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from trafikist.base.errors import CourseError, Problem
from trafikist.base.reading import debug_requested, unexpected

# A verdict: ("ok", warnings), ("problems", problems) or ("failed", what went wrong).
Verdict = tuple[str, Any]


@dataclass
class ChecksInChild:
    """A child process running `check(*args)`, a full `load_site` that returns its warnings."""

    process: subprocess.Popen[bytes]

    @classmethod
    def start(
        cls,
        check: Callable[..., list[Problem]],
        *args: object,
        config_file: str = "mkdocs.yml",
    ) -> ChecksInChild:
        """Start the child. `check` must be a module-level function (it is sent by name), and
        `args` plain data; `config_file` is what the guard names when the child reads nothing."""
        job = pickle.dumps((check, args, config_file))
        sys.stdout.flush()
        sys.stderr.flush()
        process = subprocess.Popen(
            # -P: the build's folder (the child's working directory) never shadows a module.
            [sys.executable, "-P", "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert process.stdin is not None
        try:
            process.stdin.write(job)  # a few hundred bytes: the pipe takes them at once
            process.stdin.close()
        except BrokenPipeError:
            pass  # the child is gone already: verdict() says so
        return cls(process)

    def verdict(self) -> list[Problem]:
        """Wait for the child; returns its warnings, raises CourseError with its problems."""
        assert self.process.stdout is not None
        with self.process.stdout as pipe:
            data = pipe.read()
        status = self.process.wait()
        if not data:
            raise RuntimeError(f"the course's checks ended without a verdict (status {status})")
        kind, value = pickle.loads(data)
        if kind == "problems":
            raise CourseError(value)
        if kind == "failed":
            raise RuntimeError(f"the course's checks failed: {value}")
        return list(value)

    def cancel(self) -> None:
        """The build stopped first: end the child."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _run(job: IO[bytes]) -> Verdict:
    """The child's part: read the job, run it, and say how it went."""
    config_file = "mkdocs.yml"
    try:
        check, args, config_file = pickle.load(job)
        return ("ok", check(*args))
    except CourseError as error:
        return ("problems", error.problems)
    except Exception as error:  # the guard's line, naming the file being read
        if debug_requested():
            traceback.print_exc()
            sys.stderr.flush()
        return ("problems", unexpected(error, config_file).problems)
    except BaseException as error:  # the parent reports it as a failure
        return ("failed", f"{type(error).__name__}: {error}")


def main() -> None:
    verdict_pipe = sys.stdout.buffer
    sys.stdout = sys.stderr  # what the checks might print cannot garble the verdict
    verdict = _run(sys.stdin.buffer)
    pickle.dump(verdict, verdict_pipe)
    verdict_pipe.flush()


if __name__ == "__main__":
    main()
