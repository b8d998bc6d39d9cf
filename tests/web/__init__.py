"""Tests of the HTML pages."""
