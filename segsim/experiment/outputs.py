"""Checks of an experiment's output files, made before the first fight: a missing extra
or a folder that does not exist is found in a second, not after an hour of fights."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from segsim.experiment.design import ExperimentError


def _need(module: str, extra: str, what: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ExperimentError(f"{what} needs {module}: pip install 'segsim[{extra}]'")


def check_path(path: str | Path, what: str) -> None:
    """``path`` can be written: its folder exists and it is not itself a folder."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ExperimentError(f"{what} {path}: is a folder, not a file")
    if not folder.is_dir():
        raise ExperimentError(f"{what} {path}: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise ExperimentError(f"{what} {path}: the folder {folder} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise ExperimentError(f"{what} {path}: the file is not writable")


def check_outputs(
    *,
    table: str | Path | None = None,
    plot: str | Path | None = None,
    report: str | Path | None = None,
) -> None:
    """Every output can be written and its extra is installed; else an
    :class:`ExperimentError` saying which file or which extra."""
    if table is not None:
        from segsim.experiment.tables import table_format

        check_path(table, "table")
        kind = table_format(table)
        if kind == ".parquet":
            _need("pyarrow", "parquet", "a Parquet table")
    if plot is not None:
        check_path(plot, "plot")
        _need("matplotlib", "plot", "--plot")
    if report is not None:
        check_path(report, "report")


__all__ = ["check_outputs", "check_path"]
