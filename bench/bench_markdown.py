#!/usr/bin/env python3
"""The Markdown frontend's cost on large documents.

    python3 bench/bench_markdown.py [--repeat 7] [FILE.md ...]

For each document (by default a generated 1 MB README: prose, lists, blockquotes, and
fenced blocks of shell, console and other languages, in the shapes runbooks use), prints
its size, how many shell fragments the frontend finds, and the least CPU time of
`--repeat` runs of the frontend alone (`fragments`) and of the whole check (`check_text`).
The first call, which pays for imports, is timed on its own.  Not a test: it asserts
nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNBOOK = ROOT / "fixtures" / "docs" / "runbook.md"

SECTION = """
## Step {n}

Some prose about step {n}, with `inline code`, a [link](https://example.com/{n}) and
*emphasis*.  It goes on for a while so that the document is mostly text, as a real
README is.

1. First do this:

   ```bash
   ssh node-{n} "sudo systemctl restart api-{n}"
   ```

2. Then check it:

   ```console
   $ ssh node-{n} 'systemctl status api-{n}'
   active (running)
   ```

   - a nested point

     ```sh
     scp ./conf-{n}.yml node-{n}:/etc/api/
     ```

> A quoted note
> ```python
> print({n})
> ```

!!! note
    ```bash
    rsync -a ./build/ node-{n}:/srv/
    ```

| a | b |
|---|---|
| {n} | x |

```yaml
key: value-{n}
```
"""


def generated(size: int) -> str:
    parts = [RUNBOOK.read_text()]
    n = 0
    while sum(map(len, parts)) < size:
        parts.append(SECTION.format(n=n))
        n += 1
    return "".join(parts)


def cpu_cost(run: Callable[[], object], repeat: int) -> float:
    """The least CPU time of `repeat` runs: the noise of a busy machine only adds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--size", type=int, default=1_000_000, help="of the generated README")
    args = parser.parse_args()
    documents = [(str(p), p.read_text(encoding="utf-8", errors="replace")) for p in args.files]
    if not documents:
        documents = [(f"generated README ({args.size:,} chars)", generated(args.size))]

    start = time.process_time()
    from heredoc_lint.engine import check_text
    from heredoc_lint.frontends.markdown import fragments

    fragments("```bash\necho\n```\n")
    first = time.process_time() - start
    print(f"imports and first call: {first * 1000:.1f} ms")
    for name, text in documents:
        found = fragments(text, name)
        frontend = cpu_cost(lambda text=text: fragments(text), args.repeat)
        whole = cpu_cost(lambda text=text: check_text(text, "markdown"), max(1, args.repeat // 3))
        print(
            f"{name}: {len(text):,} chars, {len(found)} shell fragments; "
            f"frontend {frontend * 1000:.1f} ms, check_text {whole * 1000:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
