"""What the gRPC editor reads from a described service (``Session.describe_grpc``): the
methods for the picker, the request message's fields for completion, and a template of the
message with every field. Plain text work, no widgets: the parts that use it are
``grpc_rpc_picker``, ``grpc_message_area`` and ``grpc_message_editor``."""

from __future__ import annotations

import json
import re
from typing import Any

# A method's line in ``Descriptors.describe``: "  Name(pkg.In) returns (pkg.Out)  kind".
_METHOD = re.compile(r"^  (\w+)\((\S+)\) returns \((\S+)\)  (.+)$")
_SCALARS: dict[str, Any] = {
    "string": "",
    "bytes": "",
    "bool": False,
    "double": 0,
    "float": 0,
    **dict.fromkeys(("int32", "sint32", "sfixed32", "uint32", "fixed32"), 0),
    **dict.fromkeys(("int64", "sint64", "sfixed64", "uint64", "fixed64"), "0"),
}
# A key being typed: a quote after ``{`` or ``,`` (and blanks), then a name's start.
_KEY = re.compile(r'(?:^|[{,])\s*"(\w*)$')


def methods_of(lines: list[str]) -> list[tuple[str, str]]:
    """Every method the description names, as ``("pkg.Service/Method", kind)``."""
    out: list[tuple[str, str]] = []
    service = ""
    for line in lines:
        if line.startswith("service "):
            service = line.removeprefix("service ").strip()
        elif line.startswith("message "):
            service = ""
        elif service and (found := _METHOD.match(line)):
            out.append((f"{service}/{found.group(1)}", found.group(4).strip()))
    return out


def default_of(kind: str, messages: set[str]) -> Any:
    """A field's value in a template: its type's zero (a message ``{}``, an enum ``null``)."""
    if kind.startswith("repeated "):
        return []
    if kind.startswith("map<"):
        return {}
    if kind in _SCALARS:
        return _SCALARS[kind]
    return {} if kind in messages else None


def template(fields: list[tuple[str, str]], lines: list[str]) -> str:
    """The request message with every field at its zero, as pretty JSON."""
    messages = {
        line.removeprefix("message ").strip() for line in lines if line.startswith("message ")
    }
    value = {name: default_of(kind, messages) for name, kind in fields}
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def depth_of(text: str) -> int:
    """How many JSON objects and arrays are open at the end of ``text`` (strings skipped;
    a ``{{`` placeholder counts as none)."""
    depth, in_string, escaped = 0, False, False
    text = text.replace("{{", "").replace("}}", "")
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return depth


def key_typed(before: str) -> str | None:
    """The start of a top-level key being typed at the end of ``before`` (the message up to
    the cursor), or ``None`` when the cursor is not at one."""
    found = _KEY.search(before)
    if found is None:
        return None
    head = before[: found.start(1) - 1]  # up to the key's opening quote
    return found.group(1) if depth_of(head) == 1 else None


def offered(before: str, fields: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The fields that complete the key being typed, those not in the message yet first."""
    partial = key_typed(before)
    if partial is None:
        return []
    matching = [(n, k) for n, k in fields if n.startswith(partial) and n != partial]
    unused = [f for f in matching if f'"{f[0]}"' not in before]
    return unused + [f for f in matching if f not in unused]
