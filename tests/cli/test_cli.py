"""`trafikist build --engine …`, the documented command, builds the course with either engine
into the folder it is given; without the option, TRAFIKIST_ENGINE names the engine."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, build_env
from trafikist import cli


@pytest.mark.slow
def test_trafikist_build_builds_with_the_engine_it_names(engine: str, tmp_path: Path) -> None:
    site = tmp_path / "site"
    command = [sys.executable, "-m", "trafikist.cli", "build", "--engine", engine, "-d", str(site)]
    result = subprocess.run(
        command, cwd=ROOT, env=build_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    home = (site / "index.html").read_text(encoding="utf-8")
    generator = "mkdocs-1.6.1, mkdocs-material-9.8.2" if engine == "mkdocs" else "zensical-0.0.73"
    assert f'<meta name="generator" content="{generator}">' in home
    assert 'http-equiv="Content-Security-Policy"' in home


def test_the_engine_defaults_to_mkdocs_or_to_trafikist_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TRAFIKIST_ENGINE", raising=False)
    assert cli._parser().parse_args(["build"]).engine == "mkdocs"
    monkeypatch.setenv("TRAFIKIST_ENGINE", "zensical")
    assert cli._parser().parse_args(["serve"]).engine == "zensical"
    assert cli._parser().parse_args(["build", "--engine", "mkdocs"]).engine == "mkdocs"


# -- `trafikist model run|console`: what they read and write is bounded (issue 28) ------------

SCENARIO = ROOT / "modules/04-blocking-timers-and-the-bus/scenarios/promote-due.yml"


def _model(
    capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None,
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> tuple[int, str, str]:  # fmt: skip
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = cli.main(["model", *args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("source", ["/dev/zero", "/dev/urandom"])
def test_model_run_reads_a_bounded_file(
    source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scenario that is a device (or a log) is refused after its first megabyte, not read
    until memory runs out."""
    endless = tmp_path / "scenario.yml"
    endless.symlink_to(source)
    status, out, err = _model(capsys, "run", str(endless))
    assert (status, out) == (2, "")
    assert err == (
        f"error: {endless}: holds more than 1,000,000 bytes; it was not read further. Fix: Name "
        "a scenario file (a few hundred lines at most), not a device or a log.\n"
    )


@pytest.mark.parametrize("indent", ["100000000", "-1", "9"])
def test_model_run_refuses_an_indent_past_eight(
    indent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _model(capsys, "run", str(SCENARIO), "--indent", indent)
    assert (status, out) == (2, "")
    assert err == (
        f"error: --indent: {indent} is outside 0 to 8. Fix: Pass --indent 2 (or leave it out "
        "for one line).\n"
    )


def test_model_run_reads_yaml_as_the_course_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No aliases (ten levels of ten are ten billion values), no key twice, bounded nesting."""
    scenario = tmp_path / "aliases.yml"
    lines = ["l0: &l0 [a, a, a, a, a, a, a, a, a, a]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 10)]
    scenario.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, _, err = _model(capsys, "run", str(scenario))
    assert status == 2
    assert err.startswith(
        f"error: {scenario}: line 2: the YAML alias '*l0' repeats a value anchored elsewhere;"
    ), err
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000, encoding="utf-8")
    status, _, err = _model(capsys, "run", str(deep))
    assert (status, err) == (2, f"error: {deep}: nests too deep. Fix: Flatten it: a scenario "
                                "nests a few levels.\n")  # fmt: skip


def test_model_console_skips_a_line_past_its_bound(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    long_line = "a" * 2_000_001
    status, out, _ = _model(
        capsys, "console", str(SCENARIO), stdin=f"PING\n{long_line}\nPING\n",
        monkeypatch=monkeypatch,
    )  # fmt: skip
    assert status == 0
    assert out.splitlines() == [
        "PONG",
        "(error) the line is longer than 1,000,000 characters; not sent.",
        "PONG",
    ]


@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
def test_serve_refuses_an_address_in_use_before_it_builds(
    engine: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under either engine: one line with the fix, at once, no build and no traceback."""
    import socket

    monkeypatch.setattr(cli, "_mkdocs", lambda *args: pytest.fail("mkdocs serve started"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = cli.main(["serve", "--engine", engine, "--dev-addr", f"127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert status == 1
    assert err == (
        f"ERROR    -  127.0.0.1:{port} is in use: another preview (or another program) serves "
        "there. Fix: stop it (Ctrl+C in its terminal), or pick a free port: scripts/serve "
        "--dev-addr 127.0.0.1:8001 (or TRAFIKIST_ADDR).\n"
    )
    assert cli.main(["serve", "--dev-addr", "8000:x"]) == 1
    assert "is not an address to serve on" in capsys.readouterr().err


def test_serve_takes_a_port_a_stopped_server_just_left() -> None:
    """A server stopped a moment ago leaves its closed connections in TIME_WAIT on the port: the
    next preview binds there as the servers do (SO_REUSEADDR), so the port is not "in use"."""
    import socket

    from trafikist.core.preview import address_problem

    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as HTTP servers bind
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = server.accept()
        accepted.close()  # the side that closes first holds TIME_WAIT on the server's port
        client.close()
    with socket.socket() as plain, pytest.raises(OSError):  # the probe as it was: refused
        plain.bind(("127.0.0.1", port))
    assert address_problem(f"127.0.0.1:{port}") is None
