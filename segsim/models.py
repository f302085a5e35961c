"""Where the shipped game content lives (``models/``, package data in a wheel)."""

from __future__ import annotations

from pathlib import Path


def models_dir() -> Path:
    """The ``models`` folder: inside the installed package, or beside it in a checkout."""
    here = Path(__file__).resolve().parent
    packaged = here / "models"
    if packaged.is_dir():
        return packaged
    return here.parent / "models"
