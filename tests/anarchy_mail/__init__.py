"""Castle Defence by email (issue 33)."""
