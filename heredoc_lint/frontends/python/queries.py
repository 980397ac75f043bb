"""What rules ask of a layer that a Python fragment started."""

from __future__ import annotations

from typing import TYPE_CHECKING

from heredoc_lint.frontends.python.model import PyFragment

if TYPE_CHECKING:
    from heredoc_lint.layers.layer import Layer


def fragment_of(layer: Layer) -> tuple[PyFragment, Layer] | None:
    """The Python fragment behind `layer` (any depth) and its root layer."""
    root = layer.root
    origin = root.origin
    return (origin, root) if isinstance(origin, PyFragment) else None


def root_index(layer: Layer, index: int) -> int | None:
    """The index in the root layer's text of layer.text[index]."""
    while layer.parent is not None:
        if not layer.parent_offsets or not 0 <= index < len(layer.parent_offsets):
            return None
        index = layer.parent_offsets[index]
        layer = layer.parent
    return index


def runtime_spans(layer: Layer) -> tuple[tuple[int, int], ...]:
    """The spans of layer.text that hold values known only at run time.

    For a root these are its `interpolations`; a child layer (an ssh string inside a
    `shell=True` string) inherits the placeholders that its parent passed down.
    """
    if layer.parent is None or layer.interpolations:
        return layer.interpolations
    parent = runtime_spans(layer.parent)
    if not parent:
        return ()
    spans: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    run_start = 0
    for k in range(len(layer.text)):
        p = layer.parent_offsets[k] if k < len(layer.parent_offsets) else -1
        owner = next((s for s in parent if s[0] <= p < s[1]), None)
        if owner != current:
            if current is not None:
                spans.append((run_start, k))
            current, run_start = owner, k
    if current is not None:
        spans.append((run_start, len(layer.text)))
    return tuple(spans)
