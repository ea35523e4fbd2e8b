"""The authors' command line: build or preview the site with either engine, scaffold a module
or a dive, and check the course.

    trafikist build [--engine mkdocs|zensical] [-f mkdocs.yml] [-d SITE_DIR] [--strict]
    trafikist serve [--engine mkdocs|zensical] [-f mkdocs.yml] [-a HOST:PORT]
    trafikist new module "Title" [--summary TEXT] [--status planned|built] [--id ID]
    trafikist new dive MODULE "Title" [--summary TEXT] [--status planned|built] [--id ID]
    trafikist check
    trafikist model run SCENARIO [--overrides JSON] [--indent N]
    trafikist model console SCENARIO      run it, then read console lines from stdin
    trafikist model choices               the model's own choices, as JSON

The engine is MkDocs unless `--engine` or the environment variable TRAFIKIST_ENGINE says
otherwise; under MkDocs, `build` and `serve` are `mkdocs build` and `mkdocs serve` (other
options go to them). Every bad input ends with the same one-line messages
(`FILE:LINE: what. Fix: how.`) and exit status 1, never a traceback: whatever else goes wrong
becomes one such line too, naming the file being read (the build guard). `--debug`, before or
after the command, or TRAFIKIST_DEBUG=1, adds the traceback of what the guard caught.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trafikist.base.errors import CourseError, display_path
from trafikist.base.reading import (
    DEBUG_VARIABLE,
    debug_requested,
    reading,
    traceback_text,
    unexpected,
)
from trafikist.core.staging import Terminated, terminate_as_interrupt
from trafikist.course.structure import Status

if TYPE_CHECKING:
    from trafikist.core.site import Site
    from trafikist.course.scaffold import Created

# The rest of the package is imported by the command that needs it: the imports take seconds
# on a busy machine, and the command's interrupt and SIGTERM handling is set before them.


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, passed_on = parser.parse_known_args(argv)
    args.passed_on = passed_on
    if passed_on and getattr(args, "engine", None) != "mkdocs":
        parser.error(f"unrecognized arguments: {' '.join(passed_on)}")
    if args.debug:
        os.environ[DEBUG_VARIABLE] = "1"  # for MkDocs' plugin and the checks' child too
    restore = terminate_as_interrupt()  # SIGTERM cleans up as Ctrl-C does
    try:
        with reading(_read_first(args)):
            return int(args.run(args) or 0)
    except BrokenPipeError:
        # The reader of the output went away (`… | head`): nothing more to say, to anyone.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt as interrupt:
        # Every step has removed what it made (the staging and work folders) on its way out.
        building = args.run is _build
        print(
            "Interrupted: the build stopped; the last good site is unchanged."
            if building
            else "Interrupted.",
            file=sys.stderr,
        )
        return 143 if isinstance(interrupt, Terminated) else 130
    except CourseError as error:
        _print_failure(error)
        return 1
    except Exception as error:  # the build guard: one line, the traceback under --debug
        _print_failure(unexpected(error, _read_first(args)), error)
        return 1
    finally:
        restore()


def _read_first(args: argparse.Namespace) -> Path:
    """What the guard names when a command fails before it reads any source of its own."""
    for name in ("file", "config_file", "modules_dir"):
        if isinstance(path := getattr(args, name, None), Path):
            return path
    return Path("mkdocs.yml")


def _print_failure(
    error: CourseError, caught: BaseException | None = None, prefix: str = ""
) -> None:
    if debug_requested():
        print(traceback_text(caught or error), end="", file=sys.stderr)
    for line in str(error).splitlines():
        print(f"{prefix}{line}", file=sys.stderr)
    if prefix:
        return
    count = len(error.problems)
    print(
        f"trafikist: {count} problem{'s' if count != 1 else ''}; nothing was changed.",
        file=sys.stderr,
    )


ENGINES = ("mkdocs", "zensical")
ABORTED = "Aborted: the build failed; the last good site is unchanged."


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trafikist", description=__doc__.split("\n")[0])
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    build = commands.add_parser("build", help="build the site (into site/ by default)")
    serve = commands.add_parser("serve", help="preview the site, rebuilt on every save")
    for sub, run in ((build, _build), (serve, _serve)):
        sub.add_argument(
            "--engine",
            choices=ENGINES,
            default=os.environ.get("TRAFIKIST_ENGINE", "mkdocs"),
            help="mkdocs (default, or TRAFIKIST_ENGINE) or zensical",
        )
        sub.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"))
        sub.set_defaults(run=run)
    build.add_argument("-d", "--site-dir", type=Path, help="default: site_dir of mkdocs.yml")
    build.add_argument("-s", "--strict", action="store_true", help="warnings end the build")
    build.add_argument("-c", "--clean", action="store_true", help="zensical: empty its cache")
    serve.add_argument("-a", "--dev-addr", default="127.0.0.1:8000", metavar="HOST:PORT")

    new = commands.add_parser("new", help="create a module or a dive from the template")
    kinds = new.add_subparsers(required=True, metavar="KIND")
    module = kinds.add_parser("module", help="the next numbered module")
    module.add_argument("title")
    dive = kinds.add_parser("dive", help="the next dive of a module")
    dive.add_argument("module", help="the module's number (04), id or folder name")
    dive.add_argument("title")
    for sub, kind in ((module, "module"), (dive, "dive")):
        sub.add_argument("--summary", help="the page's one-line summary")
        sub.add_argument(
            "--status",
            choices=[status.value for status in Status],
            default=Status.PLANNED.value,
            help="planned (default): readers see the title and summary only",
        )
        sub.add_argument("--id", dest="page_id", help="the page id (default: from the title)")
        _modules_dir_option(sub)
        sub.set_defaults(run=_new, kind=kind)

    check = commands.add_parser("check", help="load and check the course as the build does")
    _modules_dir_option(check)
    check.add_argument(
        "--lenient",
        action="store_true",
        help="report unsourced sentences and unchecked facts as warnings (a strict build fails)",
    )
    check.add_argument(
        "--registry",
        help="trafikey's registry (a checkout or the snapshot); default: TRAFIKIST_REGISTRY "
        "or registry/",
    )
    check.set_defaults(run=_check)

    model = commands.add_parser("model", help="run the model of trafikey and EchoMQ")
    model_commands = model.add_subparsers(required=True, metavar="ACTION")
    model_run = model_commands.add_parser("run", help="run a scenario and print its JSON trace")
    model_run.add_argument("file", type=Path)
    model_run.add_argument("--overrides", default=None, help="a JSON object of reader controls")
    model_run.add_argument("--indent", type=int, default=None)
    console = model_commands.add_parser("console", help="run a scenario, then read commands")
    console.add_argument("file", type=Path)
    choices = model_commands.add_parser("choices", help="the model's own choices, as JSON")
    for sub, action in ((model_run, "run"), (console, "console"), (choices, "choices")):
        sub.add_argument("--registry", help="trafikey's registry (default: registry/)")
        sub.set_defaults(run=_model, action=action)
    return _with_debug(parser)


DEBUG_HELP = f"show the traceback of an unexpected failure (or {DEBUG_VARIABLE}=1)"


def _with_debug(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`--debug` after every command too (`trafikist build --debug`), as before it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                # No default of its own: it would hide a `--debug` given before the command.
                command.add_argument(
                    "--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP
                )
                _with_debug(command)
    return parser


def _build(args: argparse.Namespace) -> int:
    if args.engine == "mkdocs":
        options = ["-f", str(args.config_file)]
        options += ["-d", str(args.site_dir)] if args.site_dir else []
        options += ["--strict"] if args.strict else []
        return _mkdocs("build", *options, *args.passed_on)
    from trafikist.core.project import read_project
    from trafikist.zensical_adapter.build import ZensicalBuild

    try:
        project = read_project(args.config_file, args.site_dir)
        builder = ZensicalBuild(project, strict=args.strict)
        try:
            warnings = builder.build(project.site_dir, clean=args.clean)
        finally:
            builder.close()
    except Exception as error:  # a CourseError, or what the guard makes of anything else
        failure = error if isinstance(error, CourseError) else unexpected(error, args.config_file)
        _print_failure(failure, None if failure is error else error, prefix="ERROR    -  ")
        print(ABORTED, file=sys.stderr)
        return 1
    for warning in warnings:
        print(f"WARNING  -  {warning}", file=sys.stderr)
    print(f"INFO     -  Built with Zensical into {display_path(project.site_dir)}", file=sys.stderr)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from trafikist.core.preview import address_problem, parse_address

    problem = address_problem(args.dev_addr)
    if problem is not None:
        print(f"ERROR    -  {problem}", file=sys.stderr)
        return 1
    if args.engine == "mkdocs":
        return _mkdocs(
            "serve", "-f", str(args.config_file), "--dev-addr", args.dev_addr, *args.passed_on
        )
    from trafikist.core.project import read_project
    from trafikist.zensical_adapter.serve import serve

    return serve(read_project(args.config_file), parse_address(args.dev_addr))


def _mkdocs(command: str, *options: str) -> int:
    """Under MkDocs the command is MkDocs' own (the plugin does the course's work)."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # the theme's notice: docs/architecture.md
    os.execv(sys.executable, [sys.executable, "-m", "mkdocs", command, *options])


def _modules_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--modules-dir", type=Path, default=Path("modules"), help="default: modules"
    )


def _refuse_a_broken_course(modules_dir: Path) -> None:
    """A new page goes only into a course that loads and whose links resolve: it never hides
    an old error."""
    from trafikist.checks.links import check_id_links
    from trafikist.course.loader import load_course

    problems = check_id_links(load_course(modules_dir))
    if problems:
        raise CourseError(problems)


def _new(args: argparse.Namespace) -> int:
    """`trafikist new module TITLE` or `trafikist new dive MODULE TITLE`."""
    from trafikist.course.scaffold import NewPage, new_dive, new_module

    _refuse_a_broken_course(args.modules_dir)
    new = NewPage(args.title, args.summary, Status(args.status), args.page_id)
    if args.kind == "dive":
        created = new_dive(args.modules_dir, args.module, new)
    else:
        created = new_module(args.modules_dir, new)
    try:
        return _report(created, args.modules_dir)
    except BaseException:  # the course refuses the new page (or Ctrl-C): it goes again
        created.undo()
        raise


def _report(created: Created, modules_dir: Path) -> int:
    """The new page must leave a course that still loads."""
    _check_course(modules_dir, None)
    print(
        f"created {display_path(created.path)}: {created.kind.value} {created.number:02d}, "
        f"id '{created.page_id}', {created.status.value}. Preview it with: scripts/serve"
    )
    return 0


def _check(args: argparse.Namespace) -> int:
    warnings: list[str] = []
    site = _check_course(args.modules_dir, args.registry, strict=not args.lenient, warn=warnings)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"the course is fine: {len(site.pages())} pages.")
    return 0


def _check_course(
    modules_dir: Path, registry: str | None, strict: bool = True, warn: list[str] | None = None
) -> Site:
    from trafikist.core.site import load_site

    return load_site(
        modules_dir,
        base_dir=Path.cwd(),
        registry=registry or os.environ.get("TRAFIKIST_REGISTRY"),
        strict=strict,
        warn=(lambda problem: warn.append(str(problem))) if warn is not None else None,
    )


def _model(args: argparse.Namespace) -> int:
    """The model on one scenario. A bad scenario prints one line, `error: FILE: FIELD: what.
    Fix: how.`, and exits 2."""
    from trafikist.model import ScenarioError, Simulation, choices_as_json, install_command_table
    from trafikist.model.console import execute_line
    from trafikist.registry import export_command_table, load_registry, resolve_registry_path

    if args.action == "choices":
        print(json.dumps(choices_as_json(), indent=2))
        return 0
    indent = getattr(args, "indent", None)
    if indent is not None and not 0 <= indent <= MAX_INDENT:
        print(
            f"error: --indent: {indent} is outside 0 to {MAX_INDENT}. Fix: Pass --indent 2 "
            "(or leave it out for one line).",
            file=sys.stderr,
        )
        return 2
    registry = load_registry(resolve_registry_path(args.registry, Path.cwd()))
    install_command_table(export_command_table(registry))
    try:
        data = _scenario_file(args.file)
        overrides = None
        if getattr(args, "overrides", None):
            try:
                overrides = json.loads(args.overrides)
            except json.JSONDecodeError as error:
                raise ScenarioError(
                    "--overrides",
                    "",
                    f"is not valid JSON ({error.msg}).",
                    "Pass a JSON object, e.g. '{\"wire\": 6}'.",
                ) from None
        simulation = Simulation(data, overrides, source=str(args.file))
        trace = simulation.run()
    except ScenarioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.action == "run":
        text = json.dumps(trace, sort_keys=True, indent=args.indent)
        if len(text) > MAX_TRACE_CHARS:  # the model's caps hold it well under this
            print(
                f"error: {args.file}: the trace is {len(text):,} characters, more than the "
                f"{MAX_TRACE_CHARS:,} `model run` writes. Fix: Shorten the run, or drop --indent.",
                file=sys.stderr,
            )
            return 2
        print(text)
        return 0
    while line := sys.stdin.readline(MAX_CONSOLE_LINE + 1):
        if len(line) > MAX_CONSOLE_LINE and not line.endswith("\n"):
            while (rest := sys.stdin.readline(MAX_CONSOLE_LINE)) and not rest.endswith("\n"):
                pass  # the rest of the line goes unread into nothing
            print(f"(error) the line is longer than {MAX_CONSOLE_LINE:,} characters; not sent.")
            continue
        print(execute_line(simulation.server, line.rstrip("\n")))
    return 0


# What `model run` reads and writes at most: a scenario is some hundred lines (the largest of
# the course is 2 KB); a trace is held by the model's caps (trafikist.model.simulation.MAX_STEPS);
# `--indent` past 8 only adds spaces (--indent 100000000 asked for gigabytes); a console line
# past 1 MB is no command a reader types.
MAX_SCENARIO_BYTES = 1_000_000
MAX_TRACE_CHARS = 256_000_000
MAX_INDENT = 8
MAX_CONSOLE_LINE = 1_000_000


def _scenario_file(path: Path) -> Any:
    """A scenario file: YAML (.yml, .yaml) or JSON, of at most MAX_SCENARIO_BYTES."""
    from trafikist.base.files import read_bounded
    from trafikist.course.sources import load_yaml_node
    from trafikist.model import ScenarioError

    try:
        data = read_bounded(path, MAX_SCENARIO_BYTES)
    except OSError as error:
        raise ScenarioError(
            str(path), "", f"cannot be read ({error.strerror}).", "Check the file's path."
        ) from None
    if data is None:
        raise ScenarioError(
            str(path),
            "",
            f"holds more than {MAX_SCENARIO_BYTES:,} bytes; it was not read further.",
            "Name a scenario file (a few hundred lines at most), not a device or a log.",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ScenarioError(
            str(path),
            f"line {data[: error.start].count(b'\n') + 1}",
            f"is not UTF-8 text (byte {data[error.start]:#04x}).",
            "Save the file as UTF-8.",
        ) from None
    if path.suffix in (".yml", ".yaml"):
        try:  # the course's reader: no aliases, bounded nesting, no key given twice
            return load_yaml_node(text, path)[0]
        except CourseError as error:
            problem = error.problems[0]
            where = f"line {problem.line}" if problem.line else ""
            what = problem.what if problem.what.endswith(".") else problem.what + "."
            raise ScenarioError(str(path), where, what, problem.fix) from None
    try:
        return json.loads(text)
    except RecursionError:
        raise ScenarioError(
            str(path), "", "nests too deep.", "Flatten it: a scenario nests a few levels."
        ) from None
    except json.JSONDecodeError as error:
        raise ScenarioError(
            str(path),
            f"line {error.lineno}",
            f"is not valid JSON ({error.msg}).",
            "Fix the JSON there, or name the file .yml for YAML.",
        ) from None


if __name__ == "__main__":
    sys.exit(main())
