"""The response pane: the status line and one view per kind of response (body, events, image, WebSocket)."""
