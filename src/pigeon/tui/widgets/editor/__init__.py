"""The request editor: the URL bar, its preview and one tab per part of the request."""
