"""A small HTML tree on top of html.parser, enough to read a built page the way a reader sees it.

root = parse(html)
article = root.find("article", "md-content__inner")
for figure in article.find_all("figure", "tk-excerpt"):
    print(figure.text())
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset(
    "area base br col embed hr img input link meta source track wbr".split()  # noqa: SIM905
)


@dataclass
class Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)
    parent: Node | None = None

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        def match(node: Node) -> bool:
            if tag is not None and node.tag != tag:
                return False
            if cls is not None and cls not in node.classes:
                return False
            return all(node.attrs.get(name) == value for name, value in attrs.items())

        return [node for node in self.iter() if match(node)]

    def find(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node | None:
        found = self.find_all(tag, cls, **attrs)
        return found[0] if found else None

    def text(self, skip: Callable[[Node], bool] | None = None) -> str:
        """The text content, in document order; `skip` leaves out whole subtrees."""
        parts: list[str] = []

        def walk(node: Node) -> None:
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                elif skip is None or not skip(child):
                    walk(child)

        walk(self)
        return "".join(parts)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self._current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {name: value or "" for name, value in attrs}, parent=self._current)
        self._current.children.append(node)
        if tag not in VOID:
            self._current = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {name: value or "" for name, value in attrs}, parent=self._current)
        self._current.children.append(node)

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self._current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self._current = node.parent

    def handle_data(self, data: str) -> None:
        self._current.children.append(data)


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root
