"""Management commands of Castle Defence."""
