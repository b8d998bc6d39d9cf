"""Template tags of the accounts app."""
