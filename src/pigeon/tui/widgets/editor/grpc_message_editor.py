"""A gRPC request's message (its JSON body), or its stream's messages (``[[messages]]``, sent
in order by a client or bidirectional stream): JSON completed from the method's input type,
and ``f9`` to fill in a template with every field. The method's fields are described by
``Session.describe_grpc`` in a worker, once per URL, method and files."""

from __future__ import annotations

import asyncio
import copy
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from pigeon.model import Message
from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.session_of import session_of
from pigeon.tui.widgets.editor.grpc_fields import template
from pigeon.tui.widgets.editor.grpc_message_area import GrpcMessageArea
from pigeon.tui.widgets.editor.messages import RequestEdited

if TYPE_CHECKING:
    from collections.abc import Callable

    from pigeon.model import Request
    from pigeon.scopes import Scopes
    from pigeon.session import Described, Session

Source = tuple[str, str, tuple[str, ...]]  # what a description depends on: URL, method, files


class GrpcMessageEditor(Vertical):
    DEFAULT_CSS = beside(__file__)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f9",
            "template",
            "Message template",
            id="grpc.template",
            tooltip="Fill the message with every field of the method's input type",
        ),
        Binding("a", "add", "Add message", id="grpc.add_message"),
        Binding("d,delete", "remove", "Delete message", id="grpc.delete_message"),
    ]

    def __init__(
        self,
        scopes: Callable[[], Scopes | None],
        *,
        stream: bool = False,
        id: str | None = None,
    ) -> None:
        """``stream``: the request's ``[[messages]]``, else its one message (the body)."""
        super().__init__(id=id)
        self._scopes = scopes
        self.stream = stream
        self.request: Request | None = None
        self.described: Described | None = None
        self._described_for: Source | None = None
        self._chosen = 0  # the stream's message in the editor
        self._template_wanted = False

    @property
    def session(self) -> Session:
        return session_of(self)

    def compose(self) -> ComposeResult:
        if self.stream:
            yield OptionList(id="grpc-stream-list", compact=True)
        area = GrpcMessageArea.code_editor(
            "", language="json", tab_behavior="focus", soft_wrap=True, id="grpc-message"
        )
        yield area.completing(self._scopes)

    @property
    def area(self) -> GrpcMessageArea:
        return self.query_one(GrpcMessageArea)

    # -- the request ----------------------------------------------------------------------------

    def show(self, request: Request) -> None:
        """Edit ``request``'s message (or messages), and describe its method's input type."""
        self.request = request
        if self.stream:
            self._chosen = min(self._chosen, max(len(request.messages) - 1, 0))
            self._fill_list()
        self._load()
        if self._described_for != self._source(request):
            self._describe()

    def _load(self) -> None:
        request = self.request
        if request is None:
            return
        text = request.body.content if not self.stream else self._message_text()
        area = self.area
        area.display = not self.stream or bool(request.messages)
        if area.text != text:
            with self.prevent(TextArea.Changed):
                area.load_text(text)
        self._title()

    def _message_text(self) -> str:
        messages = self.request.messages if self.request is not None else []
        return messages[self._chosen].body if 0 <= self._chosen < len(messages) else ""

    def _fill_list(self) -> None:
        messages = self.request.messages if self.request is not None else []
        options = self.query_one("#grpc-stream-list", OptionList)
        options.clear_options()
        for i, message in enumerate(messages):
            first = printable(" ".join(message.body.split()))[:50]
            options.add_option(Option(f"{printable(message.name)}  {first}", id=str(i)))
        if not messages:
            options.add_option(Option("no messages: press a to add (the body is sent instead)"))
        elif options.highlighted != self._chosen:
            options.highlighted = self._chosen

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None and int(event.option.id) != self._chosen:
            self._chosen = int(event.option.id)
            self._load()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.area.focus()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        request = self.request
        if request is None:
            return
        text = event.text_area.text
        if not self.stream:
            request.body.content = text
            if request.body.type not in ("json",):
                request.body.type = "json"  # a gRPC message is JSON
        elif 0 <= self._chosen < len(request.messages):
            request.messages[self._chosen].body = text
            self._fill_list()
        self.post_message(RequestEdited())

    # -- the method's fields --------------------------------------------------------------------

    @staticmethod
    def _source(request: Request) -> Source:
        return request.url, request.grpc.rpc, tuple(request.grpc.protos)

    def _describe(self) -> None:
        if self.request is None:
            return
        self._described_for = self._source(self.request)
        self.described = None
        self.area.use_fields([])
        if self.request.grpc.rpc.strip():
            self._title("describing the method…")
            self._fetch(copy.deepcopy(self.request))
        else:
            self._title("no method chosen (RPC tab)")

    @work(group="grpc-describe", exclusive=True, exit_on_error=False)
    async def _fetch(self, request: Request) -> None:
        try:
            await asyncio.to_thread(self.session.load_grpc)  # its imports: not on the UI loop
            described = await self.session.describe_grpc(request)
        except Exception as exc:  # GrpcError, or a defect: one line either way
            self._title(f"⚠ {' '.join(str(exc).split())}")
            self._template_wanted = False
            return
        if self.request is None or self._source(self.request) != self._source(request):
            return  # the method changed meanwhile
        self.described = described
        self.area.use_fields(described.fields)
        self._title()
        if self._template_wanted:
            self._template_wanted = False
            self._fill_template()

    def _title(self, note: str | None = None) -> None:
        what = "Messages" if self.stream else "Message"
        described = self.described
        if note is None and described is not None:
            note = f"{described.input_type} ({described.kind}) · f9 fills every field"
        self.area.border_title = printable(f"{what} · {note}" if note else what)

    # -- keys -----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add", "remove"):
            return self.stream and not self.area.has_focus
        return True

    def action_template(self) -> None:
        """Fill the message with every field of the input type (described first if need be)."""
        request = self.request
        if request is None:
            return
        if self.stream and not request.messages:
            self.action_add()
        if self.described is not None and self._described_for == self._source(request):
            self._fill_template()
            return
        self._template_wanted = True
        self._describe()

    def _fill_template(self) -> None:
        described = self.described
        if described is None:
            return
        area = self.area
        area.replace(template(described.fields, described.lines), (0, 0), area.document.end)
        area.focus()

    def action_add(self) -> None:
        request = self.request
        if request is None:
            return
        request.messages.append(Message(f"message {len(request.messages) + 1}", "{}"))
        self._chosen = len(request.messages) - 1
        self._fill_list()
        self._load()
        self.post_message(RequestEdited())

    def action_remove(self) -> None:
        request = self.request
        if request is None or not 0 <= self._chosen < len(request.messages):
            return
        del request.messages[self._chosen]
        self._chosen = max(0, min(self._chosen, len(request.messages) - 1))
        self._fill_list()
        self._load()
        self.post_message(RequestEdited())
