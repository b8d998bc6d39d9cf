"""Template tags of The Anarchy's app (the profile's Castle Defence panel)."""
