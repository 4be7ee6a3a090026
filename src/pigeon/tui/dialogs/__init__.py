"""Modal dialogs: each asks one question and returns its answer to the screen that opened it."""
