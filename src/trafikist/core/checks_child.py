"""The course's checks on the second core, while the engine builds on the first.

A cold build spends most of a second checking every page (registry, sources, runs, Valkey
statements, link targets; `trafikist.core.site.load_site`) before it renders anything, and an
engine's Markdown pass is Python bound to one core. A one-shot build (not a preview, which
keeps its checks' memo across rebuilds in its own process) can instead start a child that runs
the full `load_site`, go on with `load_site(checks=False)` and the engine's build, and take
the child's verdict before the site is swapped in: the same problems, in the same words, and
the last good site kept when there are any. An exception in the child that is not a
CourseError comes back as the build guard's one line, naming the file the child was reading
(its traceback, under --debug, on the child's standard error, which is the build's).

How the child starts depends on the threads the build runs at that moment, as the operating
system counts them (an engine's compiled code may start threads Python does not know of):

- none but the main one (both adapters start the checks before anything starts a thread): a
  fork. It inherits every module the build imported, where a new interpreter would start and
  import them again, about half a second of CPU time in every build; and a process with one
  thread holds no lock that another thread could leave held in the child.
- any other: a new interpreter (`python -P -m trafikist.core.checks_child`), never a fork: a
  forked child of a threaded process can deadlock on a lock some other thread held. What it
  runs is a module-level function, sent with its arguments by pickle on its standard input.

Either way the verdict comes back by pickle on a pipe of its own, and what the checks print
goes to the build's standard error.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import pickle
import select
import signal
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
# What the child runs: the check, its arguments, and the file the guard names by default.
Job = tuple[Callable[..., list[Problem]], tuple[object, ...], str]


def threads() -> int:
    """The threads of this process, as the operating system counts them (0: unknown)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


@dataclass
class ChecksInChild:
    """A child process running `check(*args)`, a full `load_site` that returns its warnings."""

    pid: int
    pipe: IO[bytes]  # the verdict comes on it
    forked: bool
    process: subprocess.Popen[bytes] | None = None  # a new interpreter's (not forked)
    returncode: int | None = None  # once the child ended

    @classmethod
    def start(
        cls,
        check: Callable[..., list[Problem]],
        *args: object,
        config_file: str = "mkdocs.yml",
    ) -> ChecksInChild:
        """Start the child. `check` must be a module-level function (a new interpreter gets
        it by name), and `args` plain data; `config_file` is what the guard names when the
        child reads nothing."""
        job: Job = (check, args, config_file)
        sys.stdout.flush()
        sys.stderr.flush()
        if threads() == 1:
            return cls._fork(job)
        return cls._spawn(job)

    @classmethod
    def _fork(cls, job: Job) -> ChecksInChild:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run the job, send the verdict, and leave at once
            status = 0
            try:
                os.close(read)
                sys.stdout = sys.stderr  # what the checks might print is the build's to show
                with open(write, "wb") as pipe:
                    # A fresh context: the file the build was reading is not the child's.
                    pickle.dump(contextvars.Context().run(_run, job), pipe)
            except BaseException:
                status = 1
            finally:
                sys.stderr.flush()
                os._exit(status)  # never the parent's exit handlers, nor its build
        os.close(write)
        return cls(pid, open(read, "rb"), forked=True)

    @classmethod
    def _spawn(cls, job: Job) -> ChecksInChild:
        process = subprocess.Popen(
            # -P: the build's folder (the child's working directory) never shadows a module.
            [sys.executable, "-P", "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(pickle.dumps(job))  # a few hundred bytes: taken at once
            process.stdin.close()
        except BrokenPipeError:
            pass  # the child is gone already: verdict() says so
        return cls(process.pid, process.stdout, forked=False, process=process)

    def checking(self) -> bool:
        """True while the child checks: it has not begun to send its verdict, nor ended."""
        if self.returncode is not None or self.pipe.closed:
            return False
        readable, _, _ = select.select([self.pipe], [], [], 0)
        return not readable

    def verdict(self) -> list[Problem]:
        """Wait for the child; returns its warnings, raises CourseError with its problems."""
        with self.pipe as pipe:
            data = pipe.read()
        status = self._wait()
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
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._wait()
        self.pipe.close()

    def _wait(self) -> int:
        if self.returncode is None:
            if self.process is not None:
                self.returncode = self.process.wait()
            else:
                self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode


def _run(job: Job | IO[bytes]) -> Verdict:
    """The child's part: run the job (or read it first), and say how it went."""
    config_file = "mkdocs.yml"
    try:
        check, args, config_file = job if isinstance(job, tuple) else pickle.load(job)
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
