"""The app's door to gRPC (DESIGN §1, §10): ``Session.call_grpc`` makes a call as ``pigeon run``
does, its replies live for a view, and records it; ``Session.describe_grpc`` tells a view the
services, methods and the input message's fields."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from collection_files import write
from grpc_servers import Server, serve
from pigeon.rpc import GrpcError
from pigeon.session import Session


@pytest.fixture(scope="module")
def greeter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("greeter")) as server:
        yield server


def session_for(root: Path, port: int, **requests: str) -> Session:
    write(root, "collection.toml", f'name = "app"\n[variables]\nport = {port}\n')
    for name, rpc_and_rest in requests.items():
        write(
            root,
            f"{name}.toml",
            f'type = "grpc"\nurl = "grpc://127.0.0.1:{{{{port}}}}"\n{rpc_and_rest}',
        )
    return Session.open(root)


async def test_a_call_from_the_app_is_heard_live_and_recorded(
    tmp_path: Path, greeter: Server
) -> None:
    from pigeon.history import list_entries

    session = session_for(
        tmp_path,
        greeter.port,
        count='rpc = "pigeon.test.Greeter/Count"\n[body]\ntype = "json"\ncontent = \'{"count": 3}\'\n',
    )
    heard: list[int] = []
    threads: set[str] = set()

    def changed() -> None:
        threads.add(threading.current_thread().name)
        heard.append(call.call.received if call.call is not None else -1)

    (request,) = session.collection.requests()
    call = await session.call_grpc(request, trusted=False, on_change=changed)
    assert call.call is not None and call.call.kind == "server stream"
    result = await call.run()
    await session.close()
    assert result.error is None and result.exchange is not None
    assert result.exchange.status == 0 and result.exchange.reason == "OK"
    assert result.exchange.grpc is not None
    assert result.exchange.grpc.messages == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert heard == sorted(heard) and {1, 2, 3} <= set(heard)  # each reply, as it came
    assert threads == {"pigeon-grpc"}
    (entry,) = list_entries(tmp_path)
    assert entry.request_id == "count" and entry.ok


async def test_a_bidirectional_call_is_driven_by_its_holder(
    tmp_path: Path, greeter: Server
) -> None:
    session = session_for(tmp_path, greeter.port, echo='rpc = "pigeon.test.Greeter/Echo"\n')
    (request,) = session.collection.requests()
    call = await session.call_grpc(request, trusted=False)
    live = call.call
    assert live is not None and live.kind == "bidirectional"
    await live.open()
    await live.send('{"n": 4}')
    reply = await live.receive(timeout=5)
    assert reply is not None and reply.value == {"n": 8}
    await live.send('{"n": 5}')
    await live.close_sending()
    await live.finished()
    result = await call.finish()
    await session.close()
    assert result.error is None and result.frames == (2, 2)
    assert live.values() == [{"n": 8}, {"n": 10}]


async def test_a_call_that_cannot_be_made_says_why(tmp_path: Path, greeter: Server) -> None:
    session = session_for(tmp_path, greeter.port, bad='rpc = "pigeon.test.Greeter/Nope"\n')
    (request,) = session.collection.requests()
    call = await session.call_grpc(request, trusted=False)
    await session.close()
    assert call.call is None
    assert call.result.error is not None and "has no method 'Nope'" in call.result.error


async def test_describe_names_the_methods_kind_and_its_input_fields(
    tmp_path: Path, greeter: Server
) -> None:
    session = session_for(tmp_path, greeter.port, hello='rpc = "pigeon.test.Greeter/SayHello"\n')
    (request,) = session.collection.requests()
    described = await session.describe_grpc(request)
    assert described.kind == "unary" and described.input_type == "pigeon.test.HelloRequest"
    assert described.fields[:3] == [("name", "string"), ("count", "int32"), ("big", "int64")]
    assert "service pigeon.test.Greeter" in described.lines
    request.grpc.rpc = "pigeon.test.Nope/X"
    with pytest.raises(GrpcError, match="reflection"):
        await session.describe_grpc(request)
    await session.close()


async def test_a_send_from_the_app_of_a_grpc_request_reuses_the_sessions_channel(
    tmp_path: Path, greeter: Server
) -> None:
    session = session_for(
        tmp_path,
        greeter.port,
        hello='rpc = "pigeon.test.Greeter/SayHello"\n[body]\ntype = "json"\ncontent = "{}"\n',
    )
    (request,) = session.collection.requests()
    first = await session.send(request, trusted=False)
    second = await session.send(request, trusted=False)
    assert session.grpc is not None and len(session.grpc.channels) == 1
    await session.close()
    assert first.exchange is not None and second.exchange is not None
    assert first.exchange.ok and second.exchange.reason == "OK"
    assert session.grpc is None  # closed with the session


async def test_a_cancelled_call_is_recorded_as_a_call(tmp_path: Path, greeter: Server) -> None:
    from pigeon.history import list_entries, to_request

    session = session_for(tmp_path, greeter.port, hang='rpc = "pigeon.test.Greeter/Hang"\n')
    (request,) = session.collection.requests()
    assert session.record_cancelled(request, 1500.0) is None
    (entry,) = list_entries(tmp_path)
    assert entry.method == "GRPC" and entry.error == "cancelled after 1.50 s"
    again = to_request(entry)
    assert again.kind == "grpc" and again.grpc.rpc == "pigeon.test.Greeter/Hang"
