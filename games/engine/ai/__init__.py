"""The bots' game knowledge (issue 17): what a seat knows (:mod:`.observe`), how good a position is for it
(:mod:`.evaluate`) and the three levels that decide from that alone (:mod:`.levels`). Pure and seeded like
the rest of the engine; a bot never receives a state, only an :class:`~.observe.Observation`."""
