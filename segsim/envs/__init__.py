"""Reinforcement-learning environments over segsim fights (extra ``segsim[rl]``).

* :class:`FightParallelEnv` / :func:`parallel_env`: PettingZoo parallel API, every
  chosen combatant an agent; :func:`aec_env`: its AEC form (PettingZoo's conversion).
* :class:`FightEnv`: Gymnasium, one agent against the scenario's other policies.
* :class:`Catalogue`: the stable action numbering with its mask;
  :class:`FightDriver`: the stepping both build on (usable without either library).
* :mod:`segsim.envs.learner`: a small numpy learner (a linear softmax policy trained by
  REINFORCE) for the Gymnasium env.
"""

from __future__ import annotations

_RL = ("numpy", "gymnasium", "pettingzoo")


def _missing(exc: ModuleNotFoundError) -> ModuleNotFoundError:
    """A missing library of the ``rl`` extra, said so (other import errors stay as they are)."""
    top = (exc.name or "").partition(".")[0]
    if top not in _RL:
        return exc
    return ModuleNotFoundError(
        f"segsim.envs needs {top} (the rl extra): pip install 'segsim[rl]'", name=exc.name
    )


try:
    from segsim.envs.catalogue import Catalogue, Entry, catalogue_for, register_catalogue
    from segsim.envs.driver import Agent, FightDriver
    from segsim.envs.features import encoder_for, register_encoder
except ModuleNotFoundError as exc:
    raise _missing(exc) from None

__all__ = [
    "Agent",
    "Catalogue",
    "Entry",
    "FightDriver",
    "FightEnv",
    "FightParallelEnv",
    "aec_env",
    "catalogue_for",
    "encoder_for",
    "parallel_env",
    "register_catalogue",
    "register_encoder",
]


def __getattr__(name: str) -> object:
    """The Gymnasium and PettingZoo envs, imported when first used."""
    try:
        if name == "FightEnv":
            from segsim.envs.single import FightEnv

            return FightEnv
        if name in ("FightParallelEnv", "parallel_env", "aec_env"):
            from segsim.envs import parallel

            return getattr(parallel, name)
    except ModuleNotFoundError as exc:
        raise _missing(exc) from None
    raise AttributeError(f"module 'segsim.envs' has no attribute {name!r}")
