"""Pigeon's widgets, one per module."""
