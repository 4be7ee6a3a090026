"""The ``pigeon`` object a script programs against (DESIGN §8): the documented contract.

A script sees ``pigeon`` (a ``PigeonAPI``) and nothing of Pigeon's internals:

* variables: ``setVar(name, value)`` / ``set_var``, ``getVar(name)`` / ``get_var``,
  ``deleteVar(name)`` / ``delete_var``. A variable set here is a runtime variable: it
  outranks every file scope and is seen by every request of the collection for the rest of the
  session (or of one ``pigeon run``). Names and values are checked as DESIGN §3.1-3.2 say.
* ``render(text)``: the current rendering of any template, as in a text place.
* ``request``: this send's request, a copy the script may edit or replace; it is what gets
  rendered and sent. ``setHeader``, ``removeHeader`` and ``setQuery`` edit it.
* ``response`` (``post_response`` only): a read-only ``ScriptResponse`` with ``status``,
  ``reason``, ``headers`` (a case-insensitive ``ResponseHeaders``), ``text``, ``body``,
  ``json()``, ``ok``, ``url``, ``http_version``, ``elapsed_ms``, and for Server-Sent Events
  ``events`` (and ``event``, when the scripts run per event: ``pigeon.event_scripts``).
* ``stopStream()``: end a stream whose events the post-response scripts hear one by one.
* ``env``: the process environment, then the collection's ``.env`` (an ``EnvView``).
* ``log(*values)``: a line in the script log, like ``print``.
* ``send(ref, vars=None)``: send another request of the collection through the pipeline and
  get its response (``pigeon.pipeline`` does the sending; a request never sends itself).
* ``ws`` (a WebSocket request's post-response scripts, run once it is connected and its
  saved messages are sent): ``ws.send(text or bytes)``, ``ws.send_json(value)``,
  ``ws.receive(timeout=5)`` (the next message received, or ``None``), ``ws.messages`` (every
  message so far, both ways), ``ws.ping()`` (the round trip in ms), ``ws.close(code, reason)``.
* a gRPC call's ``response``: ``status`` is its status code (0 = OK), ``status_name`` its
  name, ``details``, ``headers`` the initial metadata, ``trailers`` the trailing metadata,
  ``messages`` every reply kept (JSON values, in order) and ``json()`` the last one; ``ok``
  is a status of OK. ``grpc`` (a gRPC request's post-response scripts; a bidirectional call's
  run while it is open): ``grpc.send(value or JSON text)``, ``grpc.receive(timeout=5)`` (the
  next reply, or ``None``), ``grpc.close()`` (no more messages; the replies still come).

Both spellings (``setVar`` and ``set_var``) stay: the first is what Bruno and Postman users
type, the second is what Python users expect. Everything here runs inside the script; what
runs the script is ``runner.py``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Mapping
from datetime import date
from typing import Any

from pigeon.expand import Renderer
from pigeon.model import Header, QueryParam, Request
from pigeon.scopes import MISSING, Layer, RuntimeVars, Scopes
from pigeon.template import PATH, parse
from pigeon.values import check_name, check_value

# -- the response a post-response script sees -----------------------------------------------


class ResponseHeaders(Mapping[str, str]):
    """Response headers, looked up case-insensitively; repeated headers join with ``", "``.

    ``get_list`` returns every value of a repeated header (``Set-Cookie``).
    """

    def __init__(self, pairs: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> None:
        self._pairs = [(str(k), str(v)) for k, v in pairs]
        self._names: dict[str, str] = {}
        for key, _ in self._pairs:
            self._names.setdefault(key.lower(), key)

    def __getitem__(self, name: str) -> str:
        values = self.get_list(name)
        if not values:
            raise KeyError(name)
        return ", ".join(values)

    def get_list(self, name: str) -> list[str]:
        lname = name.lower() if isinstance(name, str) else name
        return [v for k, v in self._pairs if k.lower() == lname]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names.values()))

    def __len__(self) -> int:
        return len(self._names)

    def multi_items(self) -> list[tuple[str, str]]:
        return list(self._pairs)

    def __repr__(self) -> str:
        return f"ResponseHeaders({self._pairs!r})"


_UNPARSED: Any = object()


class ScriptResponse:
    """``pigeon.response``: a read-only view of the exchange's response.

    Built from anything shaped like ``pigeon.send.Exchange``: ``status``, ``reason``,
    ``headers`` (pairs), ``text``, ``json()``, and ``elapsed_ms`` or ``timings``.
    """

    def __init__(self, exchange: Any) -> None:
        self._exchange = exchange
        self.status: int | None = getattr(exchange, "status", None)
        self.reason: str = getattr(exchange, "reason", "") or ""
        self.headers = ResponseHeaders(list(getattr(exchange, "headers", []) or []))
        self.url: str = getattr(exchange, "url", "") or ""
        self.http_version: str = getattr(exchange, "http_version", "") or ""
        self.elapsed_ms: float | None = _elapsed_ms(exchange)
        self._json: Any = _UNPARSED
        self._events: list[dict[str, Any]] | None = None
        grpc = getattr(exchange, "grpc", None)
        self.is_grpc = grpc is not None
        if isinstance(grpc, Mapping):  # the worker's facts
            details, trailers = grpc.get("details", ""), grpc.get("trailers", [])
        else:
            details, trailers = getattr(grpc, "details", ""), getattr(grpc, "trailers", [])
        self.status_name: str = self.reason if self.is_grpc else ""
        self.details: str = str(details or "")
        self.trailers = ResponseHeaders(list(trailers or []))
        self._messages: list[Any] | None = None

    @property
    def text(self) -> str:
        text = getattr(self._exchange, "text", "")
        return text() if callable(text) else (text or "")

    @property
    def body(self) -> bytes:
        body = getattr(self._exchange, "body", None)
        return body if isinstance(body, bytes) else self.text.encode("utf-8")

    @property
    def ok(self) -> bool:
        if self.is_grpc:
            return self.status == 0
        return self.status is not None and self.status < 400

    @property
    def messages(self) -> list[Any]:
        """A gRPC call's replies (JSON values, oldest first); ``[]`` for HTTP."""
        if self._messages is None:
            messages = getattr(self._exchange, "messages", None)
            if callable(messages):
                self._messages = messages()
            else:
                grpc = getattr(self._exchange, "grpc", None)
                self._messages = list(getattr(grpc, "messages", []) or [])
        return copy.deepcopy(self._messages)

    @property
    def events(self) -> list[dict[str, Any]]:
        """The Server-Sent Events received, oldest first: dicts of ``event``, ``id``,
        ``data``, ``retry`` and ``time`` (seconds since the epoch); ``[]`` for other bodies."""
        if self._events is None:
            events = getattr(self._exchange, "events", None)
            if callable(events):
                self._events = events()
            else:
                from pigeon.stream import script_events

                self._events = script_events(self._exchange)
        return self._events

    @property
    def event(self) -> dict[str, Any] | None:
        """The event this run is for, when post-response scripts run per event (a request
        with ``[stream]``); ``None`` otherwise."""
        event = getattr(self._exchange, "event", None)
        if callable(event):  # the worker's view asks the parent
            asked: dict[str, Any] | None = event()
            return asked
        return event.as_dict() if event is not None else None

    def json(self) -> Any:
        """The body parsed as JSON; ``ValueError`` if it is not JSON.

        The scripts get their own parsed copy, so one that edits it cannot change what the
        app shows as the response.
        """
        if self._json is _UNPARSED and self.is_grpc:
            messages = self.messages
            if not messages:
                raise ValueError("Response is not JSON: the call had no reply")
            self._json = messages[-1]
        if self._json is _UNPARSED:
            check = getattr(self._exchange, "json", None)
            if callable(check):
                check()  # the exchange's own errors: not JSON, empty, truncated
            self._json = json.loads(self.text)
        return self._json

    def __repr__(self) -> str:
        return f"<response {self.status} {self.reason}>"


def _elapsed_ms(exchange: Any) -> float | None:
    elapsed = getattr(exchange, "elapsed_ms", None)
    if isinstance(elapsed, (int, float)):
        return float(elapsed)
    timings = getattr(exchange, "timings", None)
    if isinstance(timings, Mapping):
        total = timings.get("total", timings.get("total_ms"))
    else:
        total = getattr(timings, "total_ms", None)
    return float(total) if isinstance(total, (int, float)) else None


# -- the pigeon object ----------------------------------------------------------------------


class EnvView(Mapping[str, str]):
    """``pigeon.env``: the process environment, then the collection's ``.env`` (read-only)."""

    def __init__(self, environ: Mapping[str, str], dotenv: Mapping[str, str]) -> None:
        self._environ = environ
        self._dotenv = dotenv

    def __getitem__(self, name: str) -> str:
        if name in self._environ:
            return self._environ[name]
        return self._dotenv[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._environ
        for name in self._dotenv:
            if name not in self._environ:
                yield name

    def __len__(self) -> int:
        return len(self._environ) + sum(1 for n in self._dotenv if n not in self._environ)


class PigeonAPI:
    """The ``pigeon`` object a script sees.

    Variables set here are runtime variables: they outrank every file scope and are visible to
    every request of the collection for the rest of the session (or ``pigeon run``).
    """

    def __init__(
        self,
        phase: str,
        request: Request,
        scopes: Scopes,
        runtime: RuntimeVars,
        response: ScriptResponse | None = None,
        write: Callable[[str], None] | None = None,
        sender: Callable[[str, dict[str, Any]], Any] | None = None,
        ws: Callable[..., Any] | None = None,
    ) -> None:
        self.phase = phase
        self._sender = sender  # sends another request through the pipeline (pigeon.send)
        self.ws = ScriptWebSocket(ws)
        self.grpc = ScriptGrpc(ws)
        self._request = request  # this send's request (a copy): edits are what gets sent
        self._scopes = scopes
        self._runtime = runtime
        self._response = response
        self._write = write or (lambda text: None)
        self.env: Mapping[str, str] = EnvView(scopes.environ, scopes.dotenv)

    # -- variables --

    def set_var(self, name: str, value: Any) -> None:
        """Set a runtime variable. ``ValueError`` for a bad name (quoting the name and the
        rule) or a value outside DESIGN §3.1 (naming the variable and the path to the part)."""
        self._runtime.set(name, value)

    setVar = set_var

    def get_var(self, name: str) -> Any:
        """The winning value of ``name`` with its placeholders rendered, or ``None``.

        A dotted or indexed path (``user.id``) is looked up as in a placeholder. The value is
        a copy: changing it changes nothing until it is set again.
        """
        if not isinstance(name, str):
            raise TypeError(f"getVar: a variable name must be a string, not {type(name).__name__}")
        renderer = Renderer(self._current_scopes())
        value = renderer.variable(name)
        if value is MISSING:
            tpl = parse("{{" + name + "}}") if "{" not in name and "}" not in name else None
            ph = tpl.single if tpl is not None else None
            if ph is not None and ph.kind == PATH:
                value = renderer.lookup(ph)
        if value is MISSING or not _is_value(value):
            return None
        return copy.deepcopy(value)

    getVar = get_var

    def delete_var(self, name: str) -> None:
        """Forget a runtime variable (file-defined variables are not touched)."""
        check_name(name)
        self._runtime.delete(name)

    deleteVar = delete_var

    def render(self, text: str) -> str:
        """The current rendering of any template, as in a text place (URL, header)."""
        if not isinstance(text, str):
            raise TypeError(f"render: expected a string, not {type(text).__name__}")
        return Renderer(self._current_scopes()).render_text(text)

    def _current_scopes(self) -> Scopes:
        """The caller's scopes with this copy's request variables and the runtime variables.

        Rebuilt on every call: a script may edit ``pigeon.request.variables`` between two
        lookups, and render caches only know about runtime changes.
        """
        return _script_scopes(self._scopes, self.request, self._runtime)

    # -- request and response --

    @property
    def request(self) -> Request:
        """This send's request, a copy the script may edit (or replace): what gets sent."""
        return self._request

    @request.setter
    def request(self, value: Request) -> None:
        if not isinstance(value, Request):
            raise TypeError(f"pigeon.request must be a Request, not {type(value).__name__}")
        self._request = value

    def set_header(self, name: str, value: str) -> None:
        """Set a header on this send's request, replacing the request's own headers of that
        name; like any request header it also replaces collection and folder ones."""
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("setHeader: the name and the value must be strings")
        lname = name.lower()
        self.request.headers = [h for h in self.request.headers if h.name.lower() != lname]
        self.request.headers.append(Header(name, value))

    setHeader = set_header

    def remove_header(self, name: str) -> None:
        """Drop the request's own headers of that name (collection and folder ones stay)."""
        lname = name.lower()
        self.request.headers = [h for h in self.request.headers if h.name.lower() != lname]

    removeHeader = remove_header

    def set_query(self, name: str, value: str) -> None:
        """Set a ``[[query]]`` parameter (percent-encoded when rendered), replacing others of
        that name."""
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("setQuery: the name and the value must be strings")
        self.request.query = [q for q in self.request.query if q.name != name]
        self.request.query.append(QueryParam(name, value))

    setQuery = set_query

    @property
    def response(self) -> ScriptResponse:
        if self._response is None:
            if self.phase != "post_response":
                raise RuntimeError("pigeon.response is only available in post_response scripts")
            raise RuntimeError("there is no response (the request was not sent)")
        error = getattr(self._response, "_exchange", None)
        error = getattr(error, "error", None)
        if error:
            raise RuntimeError(f"there is no response: {error}")
        return self._response

    def stop_stream(self) -> None:
        """End the stream this response is arriving on, keeping what arrived (a request
        with ``[stream]`` runs its post-response scripts per event); elsewhere, nothing."""
        stop = getattr(getattr(self._response, "_exchange", None), "stop_stream", None)
        if callable(stop):
            stop()

    stopStream = stop_stream

    # -- other requests --

    def send(self, ref: str, vars: Mapping[str, Any] | None = None) -> ScriptResponse:  # noqa: A002
        """Send another request of the collection (``"folder/request"``) through the same
        pipeline, its own scripts included, and return its response: for a token refresh,
        a setup or a teardown. ``vars`` are variables for that send only, above every scope.
        Runtime variables its scripts set are seen by this script and later requests."""
        if self._sender is None:
            raise RuntimeError("pigeon.send is not available here (only in pigeon run and the app)")
        if not isinstance(ref, str) or not ref.strip():
            raise TypeError("pigeon.send: name the request, e.g. pigeon.send('auth/login')")
        values = {}
        for name, value in (vars or {}).items():
            check_name(name)
            values[name] = check_value(value, name)
        return ScriptResponse(_Sent(self._sender(ref, values)))

    # -- output --

    def log(self, *values: Any, sep: str = " ") -> None:
        """Write a line to the script log (like ``print``)."""
        self._write(sep.join(str(v) for v in values) + "\n")

    def __repr__(self) -> str:
        return f"<pigeon {self.phase} {self.request.id or self.request.name}>"


class WsMessage:
    """A WebSocket message a script sees: ``direction`` ("sent" or "received"), ``kind``
    ("text" or "binary"), ``data`` (str or bytes, cut at the log's cap when ``truncated``),
    ``size`` (the whole message's bytes), ``text`` and ``json()``."""

    def __init__(self, facts: Mapping[str, Any]) -> None:
        self.direction: str = facts["direction"]
        self.kind: str = facts["kind"]
        self.data: str | bytes = facts["data"]
        self.size: int = facts["size"]
        self.truncated: bool = facts["truncated"]
        self.at: float = facts["at"]

    @property
    def text(self) -> str:
        data = self.data
        return data if isinstance(data, str) else data.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.text)

    def __repr__(self) -> str:
        return f"<WsMessage {self.direction} {self.kind} {self.data[:60]!r}>"


class ScriptWebSocket:
    """``pigeon.ws``: the WebSocket request's connection, served by the parent."""

    def __init__(self, call: Callable[..., Any] | None) -> None:
        self._call = call

    def _ask(self, *call: Any) -> Any:
        if self._call is None:
            raise RuntimeError("pigeon.ws is only there in a WebSocket request's scripts")
        return self._call(*call)

    def send(self, data: str | bytes) -> None:
        if not isinstance(data, str | bytes):
            raise TypeError("pigeon.ws.send: text (str) or binary (bytes); send_json for values")
        self._ask("send", data)

    def send_json(self, value: Any) -> None:
        self.send(json.dumps(value))

    def receive(self, timeout: float = 5.0) -> WsMessage | None:
        """The next message received that no ``receive`` returned yet, waiting at most
        ``timeout`` seconds; ``None`` when none came."""
        facts = self._ask("receive", float(timeout))
        return WsMessage(facts) if facts is not None else None

    @property
    def messages(self) -> list[WsMessage]:
        return [WsMessage(f) for f in self._ask("messages")]

    def ping(self) -> float:
        return float(self._ask("ping"))

    def close(self, code: int = 1000, reason: str = "") -> None:
        self._ask("close", int(code), str(reason))


class ScriptGrpc:
    """``pigeon.grpc``: the gRPC request's live call, served by the parent."""

    def __init__(self, call: Callable[..., Any] | None) -> None:
        self._call = call

    def _ask(self, *call: Any) -> Any:
        if self._call is None:
            raise RuntimeError("pigeon.grpc is only there in a gRPC request's scripts")
        return self._call(*call)

    def send(self, message: Any) -> None:
        """Send one message: a dict (or other JSON value), or its JSON text."""
        self._ask("grpc.send", message if isinstance(message, str) else json.dumps(message))

    def receive(self, timeout: float = 5.0) -> Any:
        """The next reply no ``receive`` returned yet (a JSON value), waiting at most
        ``timeout`` seconds; ``None`` when none came (or the call ended)."""
        facts = self._ask("grpc.receive", float(timeout))
        if facts is None:
            return None
        if facts.get("note"):
            raise ValueError(facts["note"])
        return facts["value"]

    @property
    def messages(self) -> list[Any]:
        """Every reply kept so far."""
        messages: list[Any] = self._ask("grpc.messages")
        return messages

    def close(self) -> None:
        """No more messages (the replies still come, until the status)."""
        self._ask("grpc.close")


class _Sent:
    """The response ``pigeon.send`` got, as the parent described it (body included)."""

    def __init__(self, facts: Mapping[str, Any]) -> None:
        self.status = facts.get("status")
        self.reason = facts.get("reason", "")
        self.headers = facts.get("headers", [])
        self.url = facts.get("url", "")
        self.http_version = facts.get("http_version", "")
        self.elapsed_ms = facts.get("elapsed_ms")
        self.error = facts.get("error")
        self.body = facts.get("body", b"")
        self.text = self.body.decode("utf-8", errors="replace")


def _is_value(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, dict, list, date))


def _script_scopes(scopes: Scopes, request: Request, runtime: RuntimeVars) -> Scopes:
    layers: list[Layer] = []
    have_request = have_runtime = False
    label = f"request {request.id or request.name}"
    for layer in scopes.layers:
        if layer.scope in ("runtime", "cli") and not have_request:
            layers.append(Layer("request", label, request.variables))
            have_request = True
        if layer.scope == "cli" and not have_runtime:
            layers.append(Layer("runtime", "runtime (scripts)", runtime.mapping))
            have_runtime = True
        if layer.scope == "request":
            layers.append(Layer("request", layer.label, request.variables))
            have_request = True
        elif layer.scope == "runtime":
            layers.append(Layer("runtime", layer.label, runtime.mapping))
            have_runtime = True
        else:
            layers.append(layer)
    if not have_request:
        layers.append(Layer("request", label, request.variables))
    if not have_runtime:
        layers.append(Layer("runtime", "runtime (scripts)", runtime.mapping))
    return Scopes(layers, scopes.environ, scopes.dotenv, runtime)
