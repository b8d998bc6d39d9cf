"""The game pages (architecture §3 ``games/web/``): thin views, the presenters that turn a viewer's
:class:`~games.selectors.GameView` into panel models, and the forms that parse posted input."""
