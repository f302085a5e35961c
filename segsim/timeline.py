"""The timeline views, kept importable here: they live in :mod:`segsim.views`."""

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
