"""Web tests of the tournaments app (issue 34): services, sweep, pages."""
