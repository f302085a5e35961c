"""segsim's own fuzz suite: strategies (:mod:`fuzz.strategies`), how a case is run and
judged (:mod:`fuzz.cases`), the time-bounded run (``make fuzz``: :mod:`fuzz.run`) and the
replay soak (``make soak``: :mod:`fuzz.soak`)."""
