"""What the store tests share: sample files and helpers."""

from __future__ import annotations

from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "collections" / "demo"

FULL_REQUEST = """\
name = "Create user"
method = "POST"
url = "{{base_url}}/users/{{user.id}}?expand={{opts.expand}}"
description = '''
Creates a user.
Second line.
'''
future_key = "kept"

[variables]
page = 2
ratio = 0.5
on = true
when = 2024-01-02T03:04:05.678Z
local_when = 2024-01-02T03:04:05
day = 2024-01-02
big = 9007199254740993
user = { id = 7, address = { city = "London" }, "key with spaces" = 1 }
items = [{ id = 1 }, { id = 2 }]
"api.version" = "v1"

[[headers]]
name = "X-Api-Key"
value = "{{creds.key}}"

[[headers]]
name = "X-Api-Secret"
value = "{{creds.secret}}"
enabled = false
note = "unknown inside a header"

[[query]]
name = "q"
value = "{{search}}"

[[query]]
name = "off"
enabled = false

[body]
type = "multipart"
content = '''
{"name": "{{user.name}}", "age": {{user.age}}}
'''
encoding = "unknown inside body"

[[body.fields]]
name = "title"
value = "hello"

[[body.fields]]
name = "upload"
value = "data/file.bin"
kind = "file"
content_type = "application/octet-stream"
enabled = false

[auth]
type = "api_key"
key = "X-Key"
value = "{{creds.key}}"
location = "query"
scope_hint = "unknown inside auth"

[scripts]
pre_request = '''
pigeon.setVar("created", datetime.now(timezone.utc))
'''
post_response = '''
pigeon.setVar("user_id", pigeon.response.json()["id"])
'''
language = "python"

[settings]
timeout = 12.5
follow_redirects = false
verify_tls = false
http2 = true

[plugin]
enabled = true
"""


def temp_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))
