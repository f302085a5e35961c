"""Table mode: a live fight at the table, run from a browser (``segsim table``).

The game master runs the fight from one page; each player declares for their own
fighters from their own device, in secret and at the same time; segsim resolves,
shows and records. :mod:`segsim.table.session` drives the engine's paused API
(:meth:`~segsim.fight.Fight.advance` / :meth:`~segsim.fight.Fight.submit`) and holds no
rules of its own; :mod:`segsim.table.app` serves it over HTTP (the optional ``table``
extra: Starlette and uvicorn). See docs/table.md.
"""

from segsim.table.session import TABLE_POLICY, TableError, TableSession, TableSetup

__all__ = ["TABLE_POLICY", "TableError", "TableSession", "TableSetup"]
