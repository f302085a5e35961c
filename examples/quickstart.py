"""A RinKaNou duel in a few lines of Python: load a scenario, run it, read the events."""

from segsim import load_scenario
from segsim.record import write_record

scenario = load_scenario("examples/scenarios/duel.toml")
fight = scenario.fight(seed=7)
outcome = fight.run()

for event in fight.history:
    if event.TYPE in ("attack.resolved", "combatant.out"):
        print(f"segment {event.t:>3}: {event.describe()}")
print(f"{outcome.result}: side {outcome.winner} after {fight.history[-1].t + 1} segments")
write_record(fight, "quickstart-record.jsonl")
