"""Template tags and filters of the game pages."""
