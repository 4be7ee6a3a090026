"""The left pane: the environment, the collection tree and the history."""
