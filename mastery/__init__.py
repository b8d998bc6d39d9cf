"""The Django project package of Medieval Mastery online."""
