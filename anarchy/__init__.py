"""The Anarchy's Castle Defence, the site's second game (issue 33).

``anarchy.engine`` is the pure rules engine and solver (no Django); the rest of this package is the Django
app: the planner, the daily puzzle, its leaderboard and the streak.
"""
