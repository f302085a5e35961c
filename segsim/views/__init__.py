"""Views of a fight: the timeline (terminal text and SVG) and the HTML fight viewer.

The views read records (or fights through the record visitors); the fight and the
record never import them at module level, so ``Fight._repr_svg_`` and ``_repr_html_``
reach them lazily.
"""

from __future__ import annotations

from segsim.views.timeline import (
    Mark,
    Row,
    Span,
    Timeline,
    TimelineBuilder,
    timeline,
    timeline_svg,
    timeline_text,
)

__all__ = [
    "Mark",
    "Row",
    "Span",
    "Timeline",
    "TimelineBuilder",
    "timeline",
    "timeline_svg",
    "timeline_text",
]
