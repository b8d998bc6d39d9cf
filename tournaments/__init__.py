"""The tournaments app of Medieval Mastery (issue 34): round robin, Swiss and single elimination events.

For now only the pure seating core lives here (``tournaments.seating``: no Django, no project imports);
the models, services, pages and tasks come later.
"""
