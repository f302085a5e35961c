"""Driving a fight one declaration boundary at a time, for agents outside the simulation.

Each agent's combatant gets an :class:`Agent` policy, whose ``external`` attribute
makes the fight pause its declaration phase instead of calling ``decide``
(:meth:`segsim.fight.Fight.advance`). So :meth:`FightDriver.act` hands the agents'
choices to the paused phase (:meth:`~segsim.fight.Fight.submit`), and
:meth:`~segsim.fight.Fight.advance` steps the SimPy environment event by event (the
scenario's own policies deciding inside it as usual) until a phase asks an agent again
or the fight ends. No thread, no re-simulation: the SimPy queue simply is not stepped
while the agents think, and the phase they were asked in completes exactly as it would
have with an in-process policy (same state, same order, same record).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from segsim.actions import DeclarationLike, PolicyOutput
from segsim.envs.catalogue import Catalogue, catalogue_for
from segsim.envs.features import encoder_for, to_array
from segsim.errors import IllegalDeclaration, SegsimError
from segsim.experiment import PolicySpec, assign_policies, build_policy
from segsim.fight import Fight
from segsim.policy import Observation
from segsim.scenario import Scenario


class Agent:
    """The policy of a combatant whose decisions come from outside the fight."""

    external = True
    reactive = True

    def __init__(self, name: str = "agent") -> None:
        self.name = name

    def decide(self, observation: Observation) -> PolicyOutput:
        raise RuntimeError(
            f"{observation.actor} is played by an agent: drive the fight with "
            "Fight.advance() and Fight.submit()"
        )


class FightDriver:
    """A scenario's fights with some combatants played by agents.

    ``agents``: the combatant ids the agents play (default: all). ``policies``: other
    combatants' policy replacements (id or side -> policy spec). ``shaping``: each step,
    add ``shaping`` x (damage dealt - damage taken) / 10 to an agent's reward. The
    outcome gives +1 (its side won), -1 (lost, or taken out of the fight), ``stalemate``
    (default -1) when the fight ends with nobody left to act (every fighter waiting or
    declaring nothing, so nothing will ever happen again), and 0 when the scenario's
    time limit cuts it (a truncation, not an end).

    Why a stalemate is a loss by default: the env is a fight to win, and waiting forever
    wins nothing; scored 0 it would be the safe harbour a learner finds first (two
    random agents that both wait reach it at once), better than every lost fight.
    ``stalemate=0.0`` scores it as a draw.
    """

    def __init__(
        self,
        scenario: Scenario,
        agents: Sequence[str] | None = None,
        *,
        policies: Mapping[str, PolicySpec] | None = None,
        shaping: float = 0.0,
        stalemate: float = -1.0,
    ) -> None:
        self.scenario = scenario
        self.stalemate = stalemate
        order = [c.id for c in scenario.combatants]
        self.order = order
        self.agents = list(agents) if agents is not None else list(order)
        unknown = [a for a in self.agents if a not in order]
        if unknown or not self.agents:
            raise SegsimError(
                f"{scenario.path}: agents must be combatants of the scenario "
                f"({', '.join(order)}), not {', '.join(unknown) or 'none'}"
            )
        self.side = {c.id: c.side for c in scenario.combatants}
        ruleset = scenario.ruleset.name
        self.policies = {
            cid: spec
            for cid, spec in assign_policies(scenario, policies or {}).items()
            if cid not in self.agents
        }
        for spec in self.policies.values():
            build_policy(ruleset, spec)  # fail now on an unknown policy
        self.slot_ids = {cid: [o for o in order if o != cid] for cid in self.agents}
        self.catalogue: Catalogue = catalogue_for(ruleset, len(order) - 1)
        self.encode = encoder_for(ruleset)
        self.shaping = shaping
        self.fight: Fight | None = None
        self.pending: Mapping[str, Observation] = {}
        self._masks: dict[str, np.ndarray[Any, np.dtype[np.int8]]] = {}
        self._seen = 0
        probe = self._new_fight(0)
        probe_obs = probe.ruleset.observe(probe.state, self.agents[0], 0, True)
        self.size = len(self.encode(probe_obs, self.slot_ids[self.agents[0]]))

    # ------------------------------------------------------------ fights

    def _new_fight(self, seed: int) -> Fight:
        ruleset = self.scenario.ruleset.name
        policies: dict[str, Any] = {cid: Agent() for cid in self.agents}
        for cid, spec in self.policies.items():
            policies[cid] = build_policy(ruleset, spec)
        return self.scenario.fight(seed, policies=policies)

    def reset(self, seed: int) -> None:
        self.fight = self._new_fight(seed)
        self._seen = 0
        self._advance()

    def _advance(self) -> None:
        assert self.fight is not None
        self.pending = self.fight.advance()
        self._masks = {}

    @property
    def ended(self) -> bool:
        return self.fight is not None and self.fight.ended

    def in_fight(self, cid: str) -> bool:
        assert self.fight is not None
        return self.fight.state.combatants[cid].in_fight

    # ------------------------------------------------------------ observations

    def observation(self, cid: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        """The agent's feature vector: from its pending observation if it is asked now,
        else from a fresh one of the current state."""
        assert self.fight is not None
        obs = self.pending.get(cid)
        if obs is None:
            fight = self.fight
            obs = fight.ruleset.observe(fight.state, cid, fight.state.segment, False)
        return to_array(self.encode(obs, self.slot_ids[cid]))

    def mask(self, cid: str) -> np.ndarray[Any, np.dtype[np.int8]]:
        """1 for each catalogue entry the agent may choose now (continue is always 1)."""
        got = self._masks.get(cid)
        if got is not None:
            return got
        mask = np.zeros(len(self.catalogue), dtype=np.int8)
        mask[0] = 1
        obs = self.pending.get(cid)
        if obs is not None and not self.ended:
            for i in range(1, len(self.catalogue)):
                decls = self.catalogue.resolve(i, obs, self.slot_ids[cid])
                if decls and self._legal(cid, decls, obs.segment):
                    mask[i] = 1
        self._masks[cid] = mask
        return mask

    def _legal(self, cid: str, decls: Sequence[DeclarationLike], segment: int) -> bool:
        from segsim.actions import ActionSpec, Declaration

        fight = self.fight
        assert fight is not None
        planned: list[ActionSpec] = []
        try:
            for d in decls:
                if not isinstance(d, Declaration):
                    return False
                planned.append(fight.ruleset.plan(fight.state, cid, d, segment, planned))
        except IllegalDeclaration:
            return False
        return True

    def declarations(self, cid: str, index: int) -> list[DeclarationLike] | None:
        """What catalogue entry ``index`` means for ``cid`` now (None: not legal now)."""
        obs = self.pending.get(cid)
        if obs is None:
            return [] if index == 0 else None
        if not 0 <= index < len(self.catalogue) or not self.mask(cid)[index]:
            return None
        return self.catalogue.resolve(index, obs, self.slot_ids[cid])

    # ------------------------------------------------------------ acting

    def act(self, actions: Mapping[str, Any]) -> set[str]:
        """Give the asked agents' choices to the paused phase and run to the next
        boundary. An illegal choice counts as continue; returns who chose one."""
        fight = self.fight
        assert fight is not None
        illegal: set[str] = set()
        if fight.ended:
            return illegal
        decisions: dict[str, PolicyOutput] = {}
        for cid in self.pending:
            raw = actions.get(cid, 0)
            index = int(raw) if raw is not None else 0
            decls = self.declarations(cid, index)
            if decls is None:
                illegal.add(cid)
                decls = []
            decisions[cid] = decls or None
        while True:
            try:
                fight.submit(decisions)
                break
            except IllegalDeclaration as exc:  # pragma: no cover - the mask plans each one
                who = exc.actor or ""
                if who not in decisions or decisions[who] is None:
                    raise
                illegal.add(who)
                decisions[who] = None
        self._advance()
        return illegal

    def rewards(self) -> dict[str, float]:
        """Each agent's reward for the step just taken (shaping, then the outcome)."""
        fight = self.fight
        assert fight is not None
        out = dict.fromkeys(self.agents, 0.0)
        history = fight.history
        if self.shaping:
            for ev in history[self._seen :]:
                attacker = getattr(ev, "attacker", None)
                damage = getattr(ev, "damage", None)
                if attacker is None or not isinstance(damage, int):
                    continue
                if ev.actor in out:
                    out[ev.actor] -= self.shaping * damage / 10.0
                if attacker in out:
                    out[attacker] += self.shaping * damage / 10.0
        self._seen = len(history)
        return out

    def outcome_reward(self, cid: str) -> float:
        """+1 if the agent's side won, -1 if it lost or the agent is out, ``stalemate``
        (-1 by default) if nobody is left to act, else 0 (the time limit)."""
        fight = self.fight
        assert fight is not None
        if fight.ended and fight.outcome is not None:
            winner = fight.outcome.winner
            if winner is None:
                if not self.in_fight(cid):
                    return -1.0
                return self.stalemate if fight.outcome.result == "stalemate" else 0.0
            return 1.0 if winner == self.side[cid] else -1.0
        return -1.0 if not self.in_fight(cid) else 0.0

    def truncated(self) -> bool:
        fight = self.fight
        return bool(
            fight is not None
            and fight.ended
            and fight.outcome is not None
            and fight.outcome.result == "time limit"
        )

    def render(self, since: int = 0) -> str:
        """The fight's events from ``since`` as text lines (die draws left out)."""
        fight = self.fight
        if fight is None:
            return ""
        lines = [
            f"{ev.t:>5}  {ev.describe()}" for ev in fight.history[since:] if ev.TYPE != "die.rolled"
        ]
        return "\n".join(lines)
