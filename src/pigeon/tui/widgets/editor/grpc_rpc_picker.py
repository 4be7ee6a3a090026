"""A gRPC request's method: typed (``package.Service/Method``) or picked from the services the
server's reflection lists, or its ``.proto`` files declare (``Session.describe_grpc``, in a
worker: the network and the compiling are gRPC's own thread's). ``/`` filters the list,
``enter`` takes a method, ``r`` asks the server again."""

from __future__ import annotations

import asyncio
import copy
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from pigeon.terminal import printable
from pigeon.tui.css import beside
from pigeon.tui.input_undo import UndoableInput
from pigeon.tui.session_of import session_of
from pigeon.tui.widgets.editor.grpc_fields import methods_of
from pigeon.tui.widgets.editor.messages import RequestEdited

if TYPE_CHECKING:
    from pigeon.model import Request
    from pigeon.session import Session


class GrpcRpcPicker(Vertical):
    DEFAULT_CSS = beside(__file__)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter methods", id="grpc.filter"),
        Binding("r", "reload", "Reload methods", id="grpc.reload"),
        Binding("escape", "close_filter", "Close", id="grpc.close_filter", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: Request | None = None
        self.methods: list[tuple[str, str]] = []  # (rpc, kind), as described
        self._listed_for: tuple[str, tuple[str, ...]] | None = None  # (URL, protos) listed

    @property
    def session(self) -> Session:
        return session_of(self)

    def compose(self) -> ComposeResult:
        with Horizontal(id="grpc-rpc-row"):
            yield Label("Method ")
            yield UndoableInput(placeholder="package.Service/Method", compact=True, id="grpc-rpc")
        yield Static("", id="grpc-methods-note", markup=False)
        with Horizontal(id="grpc-filter-row"):
            yield Label("/", id="grpc-filter-prompt")
            yield Input(placeholder="part of a name", compact=True, id="grpc-filter")
        yield OptionList(id="grpc-methods", compact=True)

    # -- the request ----------------------------------------------------------------------------

    def show(self, request: Request) -> None:
        """Edit ``request``'s method; list what its server offers (once per URL and files)."""
        self.request = request
        rpc = self.query_one("#grpc-rpc", Input)
        if rpc.value != request.grpc.rpc:
            with self.prevent(Input.Changed):
                rpc.value = request.grpc.rpc
        if self._listed_for != self._source(request):
            self.action_reload()

    @staticmethod
    def _source(request: Request) -> tuple[str, tuple[str, ...]]:
        return request.url, tuple(request.grpc.protos)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "grpc-filter":
            self._fill()
        elif self.request is not None:
            self.request.grpc.rpc = event.value.strip()
            self.post_message(RequestEdited())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "grpc-filter":
            self.query_one(OptionList).focus()

    # -- the list -------------------------------------------------------------------------------

    def action_reload(self) -> None:
        if self.request is None:
            return
        listing = copy.deepcopy(self.request)
        listing.grpc.rpc = ""  # every service, not the one method's
        self._listed_for = self._source(self.request)
        self._note("Asking the server for its services…")
        self._list(listing)

    @work(group="grpc-methods", exclusive=True, exit_on_error=False)
    async def _list(self, request: Request) -> None:
        try:
            await asyncio.to_thread(self.session.load_grpc)  # its imports: not on the UI loop
            described = await self.session.describe_grpc(request)
        except Exception as exc:  # GrpcError, or a defect: one line either way
            self.methods = []
            self._fill()
            self._note(f"No methods: {' '.join(str(exc).split())}", error=True)
            return
        self.methods = methods_of(described.lines)
        self._fill()
        where = "its .proto files" if request.grpc.protos else "reflection"
        count = len(self.methods)
        self._note(
            f"{count} method{'s' if count != 1 else ''} from {where} · / filters · r asks again"
        )

    def _note(self, text: str, error: bool = False) -> None:
        note = self.query_one("#grpc-methods-note", Static)
        note.update(printable(text))
        note.set_class(error, "-error")

    def _fill(self) -> None:
        words = self.query_one("#grpc-filter", Input).value.lower().split()
        options = self.query_one(OptionList)
        options.clear_options()
        current = self.request.grpc.rpc if self.request is not None else ""
        for rpc, kind in self.methods:
            if all(word in rpc.lower() for word in words):
                mark = "●" if rpc == current else " "
                options.add_option(Option(f"{mark} {printable(rpc)}  ({kind})", id=rpc))
        if options.option_count:
            options.highlighted = 0

    @property
    def listed(self) -> list[str]:
        """The methods the list shows now (filtered)."""
        options = self.query_one(OptionList)
        return [str(options.get_option_at_index(i).id) for i in range(options.option_count)]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A method picked: the request calls it."""
        event.stop()
        if self.request is None or event.option.id is None:
            return
        self.query_one("#grpc-rpc", Input).value = event.option.id  # its Changed edits
        self._fill()

    def action_filter(self) -> None:
        self.add_class("-filtering")
        self.query_one("#grpc-filter", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_filter":
            return self.has_class("-filtering")
        if action in ("filter", "reload"):  # typed in the method's own field
            return not self.query_one("#grpc-rpc", Input).has_focus
        return True

    def action_close_filter(self) -> None:
        self.remove_class("-filtering")
        self.query_one("#grpc-filter", Input).value = ""
        self.query_one(OptionList).focus()
