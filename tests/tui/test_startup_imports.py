"""What the first screen's path imports: the app, its main screen and the demo's session, in a
fresh interpreter. The parts the first frame does not show load later (docs/architecture.md,
"Start-up"); one imported at the top of a module on this path again fails here."""

from __future__ import annotations

import json
import subprocess
import sys

LOADED_LATER = [
    "tomlkit",  # writing files
    "pigeon.tomlwrite",
    "pigeon.store.tree",
    "pigeon.store.write",
    "pigeon.render",  # the preview and the send
    "pigeon.exchange",
    "dotenv",  # a collection's .env (the demo has none)
    "textual.widgets._text_area",  # the editor's tabs, tree-sitter with them
    "pigeon.tui.widgets.editor.url_bar",
    "pigeon.tui.widgets.response.response_pane",
    "pigeon.tui.dialogs.device_code",  # OAuth 2.0 sign-in dialogs
    "pigeon.external_editor",  # ctrl+e
    # The libraries of the response views and body types, loaded by their first use.
    "httpx_sse",
    "httpx_ws",
    "wsproto",
    "graphql",
    "jq",
    "PIL",
    "textual_image",
    "pigeon.websocket",
    # gRPC: its libraries and Pigeon's calls, loaded by the first gRPC request
    "grpc",
    "grpc_reflection",
    "grpc_tools",
    "google.protobuf",
    "pigeon.rpc",
    "pigeon.tui.widgets.response.folding_view",
    "pigeon.tui.dialogs.diff",
    # The libraries of auth kinds, loaded by a request of the kind.
    "spnego",
    "joserfc",
    "authlib.oauth1",
    # The MCP SDK: `pigeon mcp`'s alone.
    "mcp",
    "pigeon.mcp_server",
]

PROBE = """
import json, sys
from pigeon.tui.app import PigeonApp, open_session
from pigeon.tui.external_edit import editable
from pigeon.tui.screens.main import MainScreen
from pigeon.tui.widgets.collection.collection_tree import CollectionTree

session = open_session(None, None)
try:
    PigeonApp(session, remember_theme=False)
    editable(CollectionTree())  # ctrl+e's check, made for every key line (the tree has focus)
finally:
    session.echo.stop()
print(json.dumps(sorted(sys.modules)))
"""


def test_the_first_screen_path_leaves_the_rest_unloaded() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    loaded = set(json.loads(out.splitlines()[-1]))
    assert "pigeon.tui.screens.main" in loaded  # the probe did reach the main screen
    assert [name for name in LOADED_LATER if name in loaded] == []
