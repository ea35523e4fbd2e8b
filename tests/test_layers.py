"""The layer contract of the package, read from every module's imports with `ast` (imports
inside functions and under TYPE_CHECKING included). Each failure names the rule it breaks.

    layer 0  base                          stdlib only: errors, the bounded memo, file signatures
    layer 1  model, model_view             stdlib only, in the page's wheel; the model imports
                                           nothing outside itself
    layer 2  registry                      the snapshot reader
    layer 3  course                        loader, page syntax, renderer, reference pages
    layer 4  checks                        every check, one entry point
    layer 5  core                          the build core: no engine in it
    layer 6  mkdocs_plugin, zensical_adapter   the adapters, one per engine
    layer 7  cli                           the command line

A module imports only its own layer's packages and those below it, and the files of one
subpackage import each other in one direction (no circle); docs/architecture.md draws
the same table (test_the_architecture_page_draws_these_layers).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

from support import ROOT

PACKAGE = ROOT / "src" / "trafikist"
LAYERS: tuple[tuple[str, ...], ...] = (
    ("base",),
    ("model", "model_view"),
    ("registry",),
    ("course",),
    ("checks",),
    ("core",),
    ("mkdocs_plugin", "zensical_adapter"),
    ("cli",),
)
LAYER_OF = {name: index for index, names in enumerate(LAYERS) for name in names}
STDLIB_ONLY = ("base", "model", "model_view")
ENGINES = ("mkdocs", "material", "zensical")
ENGINE_SIDES = ("mkdocs_plugin", "zensical_adapter", "cli")
MAX_INNER_IMPORTS = 3  # outside cli.py, each with a comment that says why


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, e.g. trafikist.course.render
    target: str  # the imported module, e.g. trafikist.model.choices or yaml
    line: int
    in_function: bool
    why: str  # the comment on the import's line or the line above it


def package_of(module: str) -> str:
    """`trafikist.course.render` -> course; `trafikist.cli` -> cli; `trafikist` -> ""."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imports() -> list[Import]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines), filename=str(path))
        inside = {
            id(node)
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            for node in ast.walk(function)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".")
                    if parts[-1] != "__init__":
                        base = base[:-1]
                    base = base[: len(base) - node.level + 1]
                    prefix = ".".join(base)
                    targets = [f"{prefix}.{node.module}" if node.module else prefix]
                else:
                    targets = [node.module or ""]
                # `from trafikist.course import syntax` imports the module trafikist.course.syntax
                targets = [
                    f"{targets[0]}.{alias.name}"
                    if (
                        PACKAGE.parent / targets[0].replace(".", "/") / f"{alias.name}.py"
                    ).is_file()
                    else targets[0]
                    for alias in node.names
                ]
            else:
                continue
            line = node.lineno
            why = _reason(lines, line)
            for target in dict.fromkeys(targets):
                found.append(Import(module, target, line, id(node) in inside, why))
    return found


def _reason(lines: list[str], line: int) -> str:
    """The comment on an import's line, or on the line above its run of imports."""
    if "#" in lines[line - 1]:
        return lines[line - 1].split("#", 1)[1].strip()
    index = line - 2
    while index >= 0 and lines[index].lstrip().startswith(("from ", "import ")):
        index -= 1
    above = lines[index].strip() if index >= 0 else ""
    return above.removeprefix("#").strip() if above.startswith("#") else ""


IMPORTS = imports()
OWN = [item for item in IMPORTS if item.target.startswith("trafikist")]


def test_no_cycle_between_subpackages() -> None:
    edges: dict[str, set[str]] = {}
    for item in OWN:
        source, target = package_of(item.module), package_of(item.target)
        if source and target and source != target:
            edges.setdefault(source, set()).add(target)
    cycles = []
    for start in edges:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for following in edges.get(node, ()):
                if following == start:
                    cycles.append(" -> ".join([*path, start]))
                elif following not in path:
                    stack.append((following, [*path, following]))
    assert not cycles, "rule 'no cycle between subpackages' broken: " + "; ".join(sorted(cycles))


def file_circles(imports: list[Import]) -> list[list[str]]:
    """The circles of imports between the files of one subpackage (type-only imports count:
    they tie the files together as much), each as the modules it joins, sorted."""
    edges: dict[str, set[str]] = {}
    for item in imports:
        if item.module != item.target and package_of(item.module) == package_of(item.target):
            edges.setdefault(item.module, set()).add(item.target)
    # Tarjan's strongly connected components: a component of two modules or more is a circle.
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in edges.get(module, ()):
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(edges):
        if module not in order:
            visit(module)
    return sorted(circles)


def test_no_circle_between_the_files_of_a_subpackage() -> None:
    circles = file_circles(OWN)
    assert not circles, "rule 'no circle between the files of a subpackage' broken: " + "; ".join(
        " <-> ".join(circle) for circle in circles
    )


def test_a_circle_between_two_files_is_found() -> None:
    """The rule can fail: a type-only import back from a handler to the server is a circle."""
    back = Import("trafikist.model.builtins", "trafikist.model.server", 1, False, "")
    assert ["trafikist.model.builtins", "trafikist.model.server"] in file_circles([*OWN, back])


def test_every_subpackage_has_a_layer() -> None:
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    packages |= {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    missing = sorted(packages - set(LAYER_OF))
    assert not missing, f"rule 'every part of the package has a layer' broken: {missing}"


def test_no_upward_import() -> None:
    upward = [
        f"{item.module}:{item.line} imports {item.target} (layer "
        f"{LAYER_OF[package_of(item.target)]} above {LAYER_OF[package_of(item.module)]})"
        for item in OWN
        if package_of(item.module) in LAYER_OF
        and package_of(item.target) in LAYER_OF
        and LAYER_OF[package_of(item.target)] > LAYER_OF[package_of(item.module)]
    ]
    assert not upward, "rule 'no upward import' broken:\n" + "\n".join(upward)


def test_the_model_imports_nothing_outside_itself_and_only_the_standard_library() -> None:
    broken = []
    for item in IMPORTS:
        package = package_of(item.module)
        if package not in STDLIB_ONLY:
            continue
        top = item.target.split(".")[0]
        if top == "trafikist":
            allowed = {"model"} if package in ("model", "model_view") else {"base"}
            allowed |= {package} | ({"model"} if package == "model_view" else set())
            if package_of(item.target) not in allowed:
                broken.append(f"{item.module}:{item.line} imports {item.target}")
        elif top not in sys.stdlib_module_names and top != "__future__":
            broken.append(f"{item.module}:{item.line} imports {item.target} (not the stdlib)")
    assert not broken, (
        "rule 'the model (and the base) import only themselves and the standard library' "
        "broken:\n" + "\n".join(broken)
    )


def test_no_engine_import_outside_the_adapters_and_the_command_line() -> None:
    broken = [
        f"{item.module}:{item.line} imports {item.target}"
        for item in IMPORTS
        if item.target.split(".")[0] in ENGINES and package_of(item.module) not in ENGINE_SIDES
    ]
    assert not broken, "rule 'no engine import outside the adapters and the CLI' broken:\n" + (
        "\n".join(broken)
    )


def test_few_imports_inside_functions_each_with_its_reason() -> None:
    inner = [item for item in IMPORTS if item.in_function and package_of(item.module) != "cli"]
    unexplained = [
        f"{item.module}:{item.line} imports {item.target}" for item in inner if not item.why
    ]
    assert len(inner) <= MAX_INNER_IMPORTS and not unexplained, (
        f"rule 'at most {MAX_INNER_IMPORTS} imports inside functions outside cli.py, each with a "
        f"comment saying why' broken ({len(inner)} found):\n"
        + "\n".join(f"{item.module}:{item.line} imports {item.target}" for item in inner)
    )


def test_the_architecture_page_draws_these_layers() -> None:
    """docs/architecture.md has one line per layer, `layer N: name, name`, bottom first."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawn = [
        tuple(name.strip("` ") for name in line.split(":", 1)[1].split("—")[0].split(","))
        for line in page.splitlines()
        if line.startswith("layer ") and ":" in line
    ]
    assert drawn == [tuple(layer) for layer in LAYERS], drawn
