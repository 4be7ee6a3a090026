"""What Pigeon hides, and where (DESIGN §7): one list of secret names, one rule for body fields,
one mask string.

* ``secret_name``: a header, query parameter, variable or environment variable whose name
  says it holds a credential (``Authorization``, ``X-Api-Key``, ``api_key``, ``client_secret``,
  ``session``, ``cookie``, ``signature``...). The app masks such values on screen until the
  user reveals them; history and reports never write them.
* ``secret_field``: a JSON, form or multipart field of a body; narrower, because a JSON
  document has many harmless fields called ``key`` or ``token_type``.
* ``Masker``: everything that is written (history, reports) goes through it: names above,
  every copy of a ``.env`` value, and copies of values it masked by name.

The scheme word of an ``Authorization`` value stays readable (``Bearer •••``).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import AnyStr
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit, urlunsplit

from pigeon.auth_kinds import schemes

MASK = "•••"

# One list of secret names: a header, a query parameter, a variable or an environment variable
# whose name matches holds a credential.
_SECRET_NAME = re.compile(
    r"token|secret|passw(?:or)?d|pwd|passphrase|api[-_.]?key|(?:^|[-_.\s])key(?:$|[-_.\s])"
    r"|access[-_.]?key|auth|session|cookie|credential|private|signature|^sig$|jwt",
    re.I,
)
# The scheme words of Pigeon's auth kinds, and others servers use.
_SCHEMES = schemes() | {"token", "negotiate", "ntlm"}
_SCHEME_HEADERS = {"authorization", "proxy-authorization"}


def secret_name(name: str) -> bool:
    """Whether a header, query parameter or variable of this name holds a secret."""
    return bool(_SECRET_NAME.search(name))


def mask_value(name: str, value: str) -> str:
    """A header's value for display with its secret hidden; a scheme (``Bearer``) stays."""
    if not value or not secret_name(name):
        return value
    scheme, _, rest = value.partition(" ")
    if rest and scheme.lower() in _SCHEMES:
        return f"{scheme} {MASK}"
    return MASK


_QUERY_PARAM = re.compile(r"([?&])([^=&#]+)=([^&#]*)")


def mask_url(url: str) -> str:
    """The URL with the values of secret-looking query parameters hidden, for display."""
    if "?" not in url:
        return url

    def hide(match: re.Match[str]) -> str:
        sep, name, value = match.groups()
        if value and secret_name(unquote_plus(name)):
            return f"{sep}{name}={MASK}"
        return match.group(0)

    base, _, rest = url.partition("?")
    return base + _QUERY_PARAM.sub(hide, "?" + rest)


_MIN_SECRET_IN_TEXT = 6  # shorter .env values are masked only where they are a whole value
_MIN_LEARNED = 4  # shorter values masked by name are not looked for inside other text

# Body fields holding secrets, matched on the name without case, "-", "_", "." or spaces (so
# ``client_secret``, ``clientSecret`` and ``Client-Secret`` are one name). Narrower than the
# header rule: a JSON document has many harmless fields called ``key`` or ``token_type``.
_SECRET_FIELDS = frozenset({"pass", "pwd"})
_SECRET_FIELD_PART = re.compile(
    r"passw(?:or)?d|passphrase|passcode|secret|tokens?$|apikey|authorization$|cookie"
    r"|credential|sessionid|privatekey"
)
_FIELD_NOISE = re.compile(r"[-_.\s]")
# Finds every name secret_field() picks (and more), on the raw text: a quick first look.
_FIELD_HINT = re.compile(
    r"pass|pwd|secret|token|api[-_.\s]?key|authorization|cookie|credential"
    r"|session[-_.\s]?id|private[-_.\s]?key",
    re.I,
)
_PREFIX = _MIN_LEARNED  # secrets are indexed by this many first characters
_JSON_TYPE = re.compile(r"^application/(?:[\w.+-]*\+)?json$")
_FORM_TEXT = re.compile(r"[^=&\s]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*")
_JSON_TOKEN = re.compile(
    r'(?P<string>"[^"\\]*(?:\\.[^"\\]*)*")|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)'
    r"|(?P<punct>[{}\[\]:,])|(?P<other>\s+|true|false|null)",
    re.S,
)
_BOUNDARY = re.compile(r'boundary="?([^";]+)"?', re.I)
_PART_NAME = re.compile(rb'\bname="([^"]*)"', re.I)


def secret_field(name: str) -> bool:
    """Whether a JSON, form or multipart field of this name holds a secret."""
    key = _FIELD_NOISE.sub("", name.lower())
    return key in _SECRET_FIELDS or _SECRET_FIELD_PART.search(key) is not None


@dataclass(slots=True)
class _Frame:
    """An open JSON object or array while a body is scanned."""

    is_object: bool
    secret: bool  # inside the value of a secret field: everything in it is masked
    key_secret: bool = False  # the current member's name is a secret field
    expect_key: bool = True


class _Secrets:
    """The values to find inside text, longest first. A few are searched for one by one (a
    fast substring search each); many (a response full of tokens) through an index of their
    first characters, so a text costs one lookup per character however many there are."""

    _FEW = 8

    def __init__(self) -> None:
        self._values: list[str] = []
        self._sorted = True
        self._by_prefix: dict[str, list[str]] = {}

    @property
    def values(self) -> list[str]:
        if not self._sorted:
            self._values.sort(key=len, reverse=True)
            self._sorted = True
        return self._values

    def __len__(self) -> int:
        return len(self._values)

    def add(self, value: str) -> None:
        if len(value) < _PREFIX:
            return
        bucket = self._by_prefix.setdefault(value[:_PREFIX], [])
        if value in bucket:
            return
        bucket.append(value)
        bucket.sort(key=len, reverse=True)
        self._values.append(value)
        self._sorted = False

    def mask(self, text: str) -> str:
        """``text`` with every known secret masked. Secrets that overlap in it are masked as
        one (``abcdef`` and ``defghi`` in ``abcdefghi``), so no part of either is left."""
        if len(self._values) <= self._FEW:
            return _masked(text, _found(text, self.values), MASK)
        index = self._by_prefix
        spans: list[tuple[int, int]] = []
        for i in range(len(text) - _PREFIX + 1):
            for secret in index.get(text[i : i + _PREFIX], ()):
                if text.startswith(secret, i):  # longest first: a shorter one is inside it
                    spans.append((i, i + len(secret)))
                    break
        return _masked(text, spans, MASK)

    def mask_bytes(self, data: bytes) -> bytes:
        """``mask`` for bytes: each secret is looked for as its UTF-8 bytes."""
        secrets = [secret.encode("utf-8") for secret in self.values]
        return _masked(data, _found(data, secrets), MASK.encode("utf-8"))


def _found(text: AnyStr, secrets: Iterable[AnyStr]) -> list[tuple[int, int]]:
    """Where each secret is in ``text``, overlaps included: ``(start, end)`` by start."""
    spans = []
    for secret in secrets:
        at = text.find(secret)
        while at >= 0:
            spans.append((at, at + len(secret)))
            at = text.find(secret, at + 1)
    spans.sort()
    return spans


def _masked(text: AnyStr, spans: list[tuple[int, int]], mask: AnyStr) -> AnyStr:
    """``text`` with one ``mask`` for each run of overlapping spans (sorted by start)."""
    if not spans:
        return text
    pieces: list[AnyStr] = []
    start = 0
    begin, end = spans[0]
    for left, right in spans[1:]:
        if left < end:  # overlapping: one mask for both
            end = max(end, right)
            continue
        pieces += (text[start:begin], mask)
        start, begin, end = end, left, right
    pieces += (text[start:begin], mask, text[end:])
    return text[:0].join(pieces)


class Masker:
    """Replaces secrets in headers, URLs and bodies before they are written."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.exact = {s for s in secrets if s}
        self._secrets = _Secrets()
        for value in self.exact:
            if len(value) >= _MIN_SECRET_IN_TEXT:
                self._secrets.add(value)

    @property
    def in_text(self) -> list[str]:
        """Every value masked wherever it appears, longest first."""
        return self._secrets.values

    def learn(self, value: str) -> None:
        """Remember a value masked by its name, so its copies elsewhere (an echo of the
        request in the response body) are masked too."""
        value = value.strip()
        if len(value) >= _MIN_LEARNED:
            self._secrets.add(value)

    def text(self, text: str) -> str:
        return self._secrets.mask(text)

    def value(self, value: str) -> str:
        return MASK if value in self.exact else self.text(value)

    def header(self, name: str, value: str) -> str:
        lname = name.lower()
        if lname in _SCHEME_HEADERS:
            scheme, space, rest = value.strip().partition(" ")
            self.learn(rest if space else value)
            return f"{scheme} {MASK}" if space and rest else MASK
        if secret_name(name):
            self.learn(value)
            for part in re.split(r"[;,]\s*", value) if "cookie" in lname else ():
                self.learn(part.partition("=")[2])
            return MASK if value else value
        return self.value(value)

    def headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(n, self.header(n, v)) for n, v in headers]

    def url(self, url: str) -> str:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:  # user:password@host
            userinfo, _, host = netloc.rpartition("@")
            user, colon, password = userinfo.partition(":")
            if colon:
                self.learn(unquote(password))  # an echo of the URL or of its Basic auth
                netloc = f"{user}:{MASK}@{host}"
        query = parts.query
        if query:
            query = self.pairs(query, lambda name: secret_name(name) or secret_field(name))
        masked = urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
        return self.text(masked)

    def pairs(self, text: str, secret: Callable[[str], bool] = secret_field) -> str:
        """``a=1&b=2`` (a query string or a urlencoded form) with the values of the names
        ``secret`` picks, or that are or hold a known secret, masked."""
        pieces = []
        for piece in text.split("&"):
            name, eq, value = piece.partition("=")
            plain_name, plain_value = unquote_plus(name), unquote_plus(value)
            if eq and value and (secret(plain_name) or plain_value in self.exact):
                self.learn(plain_value)
                self.learn(value)
                pieces.append(f"{name}={quote(MASK)}")
            elif eq and self.text(plain_value) != plain_value:
                pieces.append(f"{name}={quote_plus(self.text(plain_value))}")
            else:
                pieces.append(piece)
        return "&".join(pieces)

    def body(self, data: bytes, content_type: str = "") -> bytes:
        """A body with its secret fields (JSON, urlencoded and multipart) and every known
        secret masked. JSON stays JSON, laid out as it was: a masked value becomes the
        string ``"•••"``. A body cut short (by a cap) is masked as far as it goes."""
        ctype = content_type.split(";", 1)[0].strip().lower()
        if ctype.startswith("multipart/"):
            boundary = _BOUNDARY.search(content_type)
            if boundary:
                data = self._multipart(data, boundary.group(1).encode("latin-1", "replace"))
            return self._secrets.mask_bytes(data)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._secrets.mask_bytes(data)
        if _JSON_TYPE.match(ctype) or text.lstrip()[:1] in ("{", "["):
            if not self._may_hold_secrets(text):
                return data
            return self.json(text).encode("utf-8")
        if ctype == "application/x-www-form-urlencoded" or _FORM_TEXT.fullmatch(text.strip()):
            return self.text(self.pairs(text)).encode("utf-8")
        return self.text(text).encode("utf-8")

    def _may_hold_secrets(self, text: str) -> bool:
        """Whether a JSON text is worth scanning token by token: most big documents have no
        secret-looking field and no known secret, and are stored as they are."""
        return (
            _FIELD_HINT.search(text) is not None
            or any(value in text for value in self.exact)
            or self.text(text) != text
        )

    def _multipart(self, data: bytes, boundary: bytes) -> bytes:
        """Mask the content of the text parts whose field name is a secret."""
        delimiter = b"--" + boundary
        parts = data.split(delimiter)
        for index, part in enumerate(parts[1:], 1):
            head, sep, content = part.partition(b"\r\n\r\n")
            name = _PART_NAME.search(head)
            if not sep or name is None or b"filename=" in head.lower():
                continue
            if not secret_field(name.group(1).decode("utf-8", "replace")):
                continue
            value, end = (content[:-2], b"\r\n") if content.endswith(b"\r\n") else (content, b"")
            if value:
                self.learn(value.decode("utf-8", "replace"))
                parts[index] = head + sep + MASK.encode("utf-8") + end
        return delimiter.join(parts)

    def json(self, text: str) -> str:
        """Mask a JSON text token by token, so its layout is kept and a truncated document
        (or one that is not JSON after all) is masked as far as it can be read."""
        out: list[str] = []
        stack: list[_Frame] = []

        def secret_here() -> bool:
            if not stack:
                return False
            top = stack[-1]
            return top.key_secret if top.is_object else top.secret

        pos, end = 0, len(text)
        while pos < end:
            match = _JSON_TOKEN.match(text, pos)
            if match is None:
                rest = text[pos:]
                in_key = bool(stack) and stack[-1].is_object and stack[-1].expect_key
                if rest.startswith('"') and secret_here() and not in_key:
                    out.append(f'"{MASK}')  # a secret value cut off by the end of the text
                else:
                    out.append(self.text(rest))
                break
            pos = match.end()
            token, kind = match.group(), match.lastgroup
            top = stack[-1] if stack else None
            if kind == "string":
                if top is not None and top.is_object and top.expect_key:
                    name = _json_string(token)
                    top.key_secret = top.secret or secret_field(name if name is not None else token)
                    out.append(self._json_string(token, False))
                else:
                    out.append(self._json_string(token, secret_here()))
            elif kind == "number":
                out.append(self._json_number(token, secret_here()))
            elif token in "{[":
                stack.append(_Frame(is_object=token == "{", secret=secret_here()))
                out.append(token)
            elif token in "}]":
                if stack:
                    stack.pop()
                out.append(token)
            else:
                if top is not None and top.is_object and token in ":,":
                    top.expect_key = token == ","
                out.append(token)
        return "".join(out)

    def _json_string(self, token: str, secret: bool) -> str:
        value = _json_string(token)
        if secret and value != "":
            if value is not None:
                self.learn(value)
            return f'"{MASK}"'
        if value is None:  # a bad escape: mask as plain text (the mask has no quote)
            return self.text(token)
        if value in self.exact:
            return f'"{MASK}"'
        head = value.lstrip()[:1]
        if head in ("{", "["):  # a body within the body, as an echo server shows it back
            masked = self.json(value) if self._may_hold_secrets(value) else value
        elif "=" in value and _FORM_TEXT.fullmatch(value.strip()):
            masked = self.text(self.pairs(value))
        else:
            masked = self.text(value)
        return token if masked == value else json.dumps(masked, ensure_ascii=False)

    def _json_number(self, token: str, secret: bool) -> str:
        if secret:
            self.learn(token)
            return f'"{MASK}"'
        if token in self.exact or self.text(token) != token:
            return f'"{MASK}"'
        return token


def _json_string(token: str) -> str | None:
    """A JSON string token's value, ``None`` if it is not a valid one."""
    if "\\" not in token:  # nothing to decode (the common case, and a quick one)
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def dotenv_secrets(root: Path) -> list[str]:
    """The values of the collection's ``.env`` (read literally; bad lines are skipped)."""
    path = Path(root) / ".env"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    from dotenv.parser import parse_stream  # only for a collection that has a .env

    return [b.value for b in parse_stream(io.StringIO(text)) if not b.error and b.value]
