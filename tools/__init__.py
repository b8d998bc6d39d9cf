"""Developer tools: the translation catalogue compiler and the rules-coverage report."""
