"""The exceptions segsim raises: every one names what was wrong and where."""

from __future__ import annotations


class SegsimError(Exception):
    """Base class of every error segsim raises on purpose."""


class InputError(SegsimError):
    """Malformed input file: names the file, the line, the field and the problem."""

    def __init__(self, path: str, line: int | None, field: str, message: str) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.message = message
        where = f"{path}:{line}" if line is not None else path
        what = f"{field}: {message}" if field else message
        super().__init__(f"{where}: {what}")


class IllegalDeclaration(SegsimError):
    """A declaration the rules forbid; the fight is left exactly as it was.

    ``rule`` names the rule (with its seed section where there is one).
    """

    def __init__(
        self,
        message: str,
        *,
        rule: str = "",
        actor: str | None = None,
        segment: int | None = None,
        policy: str | None = None,
    ) -> None:
        self.message = message
        self.rule = rule
        self.actor = actor
        self.segment = segment
        self.policy = policy
        super().__init__(self._text())

    def _text(self) -> str:
        parts = []
        if self.segment is not None:
            parts.append(f"segment {self.segment}")
        if self.actor is not None:
            parts.append(self.actor)
        if self.policy is not None:
            parts.append(f"policy {self.policy}")
        head = ", ".join(parts)
        rule = f" [{self.rule}]" if self.rule else ""
        return f"{head}: {self.message}{rule}" if head else f"{self.message}{rule}"

    def located(self, *, actor: str, segment: int, policy: str | None) -> IllegalDeclaration:
        """The same error, completed with who declared it and when."""
        return IllegalDeclaration(
            self.message, rule=self.rule, actor=actor, segment=segment, policy=policy
        )


class StaleDeclaration(IllegalDeclaration):
    """A recorded declaration that a branch replays after its branch point (its combatant
    kept on ``replay``) and that the branched fight no longer allows: the fight changed
    around it. The branch stops there, as documented; the policy named is ``replay``."""


class DiceExhausted(SegsimError):
    """Loaded dice ran out of recorded values, or the next value is for another die."""


class DiceLeftOver(SegsimError):
    """A fight given loaded dice ended with values it never used (as a fight script's
    unused rolls are an error): names how many and from which one on."""


class RecordError(SegsimError):
    """A fight record that cannot be read: names the file and the line."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")
