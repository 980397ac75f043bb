#!/usr/bin/env python3
"""Build docs/rules.md from the rule table (`heredoc_lint.rules.RULES`).

    python scripts/gen_rules_doc.py            # rewrite docs/rules.md
    python scripts/gen_rules_doc.py --check    # exit 1 if docs/rules.md is out of date

The page holds the table of every rule (code, name, default severity, whether
it has a fix, summary) and then each rule's documentation, as
`heredoc_lint.rules.docstring` read it from the rule module's docstring: the
sections What it does / Why is this bad? / Example / Use instead / Fix safety,
one heading level down (the docstring's first line is the table's summary, and
whether the rule has a fix comes from its Fix safety section).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "rules.md"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from heredoc_lint.rules.doc import render  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if the file is out of date instead of writing it",
    )
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write")
    args = parser.parse_args(argv)
    text = render()
    current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
    if args.check:
        if current != text:
            print(
                f"{args.output} is out of date: run python scripts/gen_rules_doc.py",
                file=sys.stderr,
            )
            return 1
        return 0
    if current != text:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
