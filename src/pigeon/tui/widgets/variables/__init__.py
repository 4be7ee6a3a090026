"""The variables pane, and where its edits are written."""
