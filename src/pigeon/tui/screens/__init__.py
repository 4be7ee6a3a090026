"""Pigeon's screens: the main screen, help and the script log."""
