"""A GraphQL server on 127.0.0.1 for tests: graphql-core executes a small schema (users and
their posts), so introspection works as on any real server.

``graphql_server()`` yields a ``GraphQLServer``: its ``url`` is the endpoint (``/graphql``),
``requests`` records what arrived (method, path, headers, body). POST takes the standard JSON
body, GET the query parameters. ``/huge`` answers an endless JSON document, for the size cap.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from graphql import build_schema, graphql_sync

SDL = """
type Query {
  "A user by id"
  user(id: ID!): User
  users(first: Int = 10): [User!]!
  echo(text: String!): String!
}

type Mutation {
  rename(id: ID!, name: String!): User
}

type User {
  id: ID!
  name: String!
  email: String
  posts(first: Int): [Post!]!
}

type Post {
  id: ID!
  title: String!
}
"""

USERS = {
    "1": {"id": "1", "name": "Ada", "email": "ada@example.test"},
    "2": {"id": "2", "name": "Grace", "email": None},
}


def _posts(user: dict[str, Any], info: Any, first: int | None = None) -> list[dict[str, str]]:
    posts = [{"id": f"{user['id']}-{i}", "title": f"Post {i}"} for i in range(3)]
    return posts[:first] if first is not None else posts


def _schema() -> Any:
    schema = build_schema(SDL)
    query, mutation, user = (schema.get_type(n) for n in ("Query", "Mutation", "User"))
    query.fields["user"].resolve = lambda _, info, id: USERS.get(id)  # type: ignore[union-attr]
    query.fields["users"].resolve = lambda _, info, first=10: list(USERS.values())[:first]  # type: ignore[union-attr]
    query.fields["echo"].resolve = lambda _, info, text: text  # type: ignore[union-attr]
    mutation.fields["rename"].resolve = lambda _, info, id, name: {**USERS[id], "name": name}  # type: ignore[union-attr]
    user.fields["posts"].resolve = _posts  # type: ignore[union-attr]
    return schema


SCHEMA = _schema()


@dataclass
class GraphQLServer:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "graphql-test"
    record: list[dict[str, Any]]

    def _answer(self, query: str, variables: Any, operation: str | None) -> None:
        if self.path.startswith("/huge"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(b'{"data": "')
                for _ in range(1_000):  # 64 MB: the client stops reading at half of it
                    self.wfile.write(b"x" * 65536)
            return
        result = graphql_sync(SCHEMA, query, variable_values=variables, operation_name=operation)
        out: dict[str, Any] = {"data": result.data}
        if result.errors:
            out["errors"] = [e.formatted for e in result.errors]
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        self.record.append(
            {"method": "POST", "path": self.path, "headers": dict(self.headers), "body": raw}
        )
        try:
            payload = json.loads(raw)
        except ValueError:
            self.send_error(400, "body is not JSON")
            return
        self._answer(
            payload.get("query", ""), payload.get("variables"), payload.get("operationName")
        )

    def do_GET(self) -> None:
        params = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        self.record.append(
            {"method": "GET", "path": self.path, "headers": dict(self.headers), "body": b""}
        )
        variables = json.loads(params["variables"]) if "variables" in params else None
        self._answer(params.get("query", ""), variables, params.get("operationName"))

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextlib.contextmanager
def graphql_server() -> Iterator[GraphQLServer]:
    record: list[dict[str, Any]] = []
    handler = type("Handler", (_Handler,), {"record": record})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield GraphQLServer(f"http://127.0.0.1:{httpd.server_address[1]}/graphql", record)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
