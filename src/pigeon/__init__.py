"""Pigeon: a keyboard-driven HTTP API client for the terminal."""

__version__ = "0.1.0"
