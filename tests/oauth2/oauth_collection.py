"""A collection whose requests need an OAuth 2.0 token from ``tests/oauth_server.py``."""

from __future__ import annotations

from pathlib import Path

from collection_files import write

GRANTS = {
    "client_credentials": """\
grant = "client_credentials"
client_id = "cc-client"
client_secret = "{{$env.CLIENT_SECRET}}"
scope = "read"
""",
    "body_auth": """\
grant = "client_credentials"
client_id = "post-client"
client_secret = "post-secret-1a2b3c"
client_auth = "body"
""",
    "password": """\
grant = "password"
client_id = "cc-client"
client_secret = "{{$env.CLIENT_SECRET}}"
username = "ada"
password = "{{$env.ADA_PASSWORD}}"
""",
    "refresh_token": """\
grant = "refresh_token"
client_id = "cc-client"
client_secret = "{{$env.CLIENT_SECRET}}"
refresh_token = "{{$env.REFRESH_TOKEN}}"
""",
    "device_code": """\
grant = "device_code"
client_id = "public-client"
device_url = "{{oauth}}/device"
scope = "read"
""",
    "authorization_code": """\
grant = "authorization_code"
client_id = "public-client"
auth_url = "{{oauth}}/authorize"
scope = "profile"
""",
}


def oauth_collection(root: Path, base: str, extra_env: str = "") -> Path:
    """One request per grant, each ``GET {{oauth}}/me`` with that grant's auth."""
    write(root, "collection.toml", f'name = "oauth"\n\n[variables]\noauth = "{base}"\n')
    write(
        root,
        ".env",
        "CLIENT_SECRET=cc-secret-9f8e7d\nADA_PASSWORD=lovelace-pw-77\n" + extra_env,
    )
    for name, fields in GRANTS.items():
        write(
            root,
            f"{name}.toml",
            f'name = "{name}"\nurl = "{{{{oauth}}}}/me"\n\n[auth]\ntype = "oauth2"\n'
            f'token_url = "{{{{oauth}}}}/token"\n{fields}',
        )
    return root
