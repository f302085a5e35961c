"""``python -m segsim.schema [--check] [--doc PATH]``: regenerate (or check) the record
schema shipped in the package and the event-type section of docs/record-format.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from segsim.schema import SCHEMA_FILE, schema_text, update_doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m segsim.schema", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if anything is stale")
    parser.add_argument(
        "--doc", default="docs/record-format.md", help="the format document to update"
    )
    args = parser.parse_args(argv)
    targets = [(SCHEMA_FILE, schema_text())]
    doc = Path(args.doc)
    if doc.is_file():
        targets.append((doc, update_doc(doc.read_text(encoding="utf-8"))))
    else:
        print(f"note: no {doc} here; only the schema is handled", file=sys.stderr)
    stale = []
    for path, text in targets:
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(text, encoding="utf-8", newline="\n")
            print(f"updated {path}")
    if args.check and stale:
        for path in stale:
            print(f"out of date: {path} (run python -m segsim.schema)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
