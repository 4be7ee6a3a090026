"""Pigeon's screens and modal dialogs, one per module."""
