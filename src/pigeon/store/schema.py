"""The files of a collection and the keys each kind of file knows (DESIGN §2).

Unknown keys are kept on load (``extra``) and written back on save, never dropped.
"""

from pigeon.auth_kinds import FIELDS as _AUTH_FIELDS

COLLECTION_FILE = "collection.toml"
FOLDER_FILE = "folder.toml"
ENVIRONMENTS_DIR = "environments"
DOTENV_FILE = ".env"
RESERVED_STEMS = ("collection", "folder")

REQUEST_KEYS = (
    "name", "method", "url", "description", "variables", "headers", "query", "body", "auth",
    "scripts", "settings", "stream", "examples",
)  # fmt: skip
COLLECTION_KEYS = (
    "name", "default_environment", "order", "variables", "headers", "auth", "scripts",
)  # fmt: skip
FOLDER_KEYS = ("name", "order", "variables", "headers", "auth", "scripts")
ENVIRONMENT_KEYS = ("variables",)
PAIR_KEYS = ("name", "value", "enabled")
FIELD_KEYS = ("name", "value", "enabled", "kind", "content_type")
BODY_KEYS = (
    "type", "content", "fields", "query", "variables", "operation_name", "path", "content_type",
)  # fmt: skip
# [auth]: its type and the fields of every kind (``pigeon.auth_kinds``), the OAuth 2.0 ones apart.
AUTH_KEYS = ("type", *(f.name for f in _AUTH_FIELDS if not f.oauth2))
OAUTH2_KEYS = tuple(f.name for f in _AUTH_FIELDS if f.oauth2)
SCRIPT_KEYS = ("pre_request", "post_response")
SETTINGS_KEYS = (
    "timeout", "follow_redirects", "verify_tls", "keep_auth_on_redirect", "send_cookies",
)  # fmt: skip
STREAM_KEYS = ("max_events", "max_seconds")
# collection.toml and environment files: how servers are reached. Read into ``transport`` and
# kept in ``extra`` as written, so saving the file never rewrites them.
TRANSPORT_SETTINGS = ("proxy", "no_proxy", "trust_env", "ca_bundle", "system_trust")
CERTIFICATE_KEYS = ("host", "cert", "key", "password")
# A WebSocket request's top-level keys ("type" is also "http"), and a [[messages]] entry's.
WEBSOCKET_KEYS = ("type", "subprotocols", "replies", "messages")
MESSAGE_KEYS = ("name", "body")
# A gRPC request's top-level keys (DESIGN §10; it shares "type" and [[messages]] above).
GRPC_KEYS = ("rpc", "protos", "import_paths")
# A saved response, [[examples]] (DESIGN §14); its headers are [[examples.headers]] pairs.
EXAMPLE_KEYS = ("name", "status", "headers", "body", "body_file")
