"""A round robin of the built-in RinKaNou tactics on the sabre duel, both sides each,
on common fight seeds, with 95 % Wilson intervals.

The same from the command line (add --workers 2, or --backend ray, for the same table):
    segsim tournament examples/scenarios/duel.toml \
        --policies aggressive defender parrier counter pressure --fights 40 --seed 2026

docs-test: replace "--fights 40" "--fights 2" (the documentation's test keeps it short)
"""

from segsim.experiment import run, tournament

experiment = tournament(
    "examples/scenarios/duel.toml",
    ["aggressive", "defender", "parrier", "counter", "pressure"],
    fights=40,
    seed=2026,
    chunk=20,
)
results = run(experiment)  # workers=2 or backend="ray" give the same results
summary = results.summary()
text = summary.text()
print(text[text.index("round robin") :])

best = max(summary.pairs, key=lambda p: p.rate)
print(
    f"strongest pairing: {best.a} scores {100 * best.rate:.0f} % against {best.b} "
    f"(95 % CI {100 * best.interval[0]:.0f}-{100 * best.interval[1]:.0f} %, {best.n} fights)"
)
