"""The key line at the bottom: Textual's ``Footer``, updated in place.

Textual's footer rebuilds all its keys (a dozen widgets, each styled anew, and a relayout)
whenever the screen says its bindings may have changed: on every focus change and every
``refresh_bindings`` (a send starting and ending, a body loaded). Most of those change nothing
on the line, or only whether a key is enabled, or show or hide one key (``esc`` while a send
is in flight); rebuilding then held a send's status line back by tens of milliseconds. This
footer switches keys on or off and shows or hides them where they are, mounts a key it has
not shown yet, and rebuilds only when the keys it keeps are out of order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen

# Everything ``Footer.compose`` reads from a binding, but whether it is enabled.
Shown = tuple[str, str, str, str, str]


class KeyFooter(Footer):
    """A ``Footer`` that updates its keys in place instead of rebuilding them."""

    # Compact, Textual's palette key keeps a key's right margin: the keys that overflow the
    # line showed through in its last column (``^p PaletteL``). A padding is drawn over them.
    DEFAULT_CSS = """
    KeyFooter.-compact FooterKey.-command-palette {
        margin-right: 0;
        padding-right: 1;
    }
    """

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._keys: dict[Shown, FooterKey] = {}  # every key composed or mounted, shown or not

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._update_keys)

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        wanted = self._keys_shown() if self._bindings_ready else None
        keys = [w for w in widgets if type(w) is FooterKey and not w.has_class("-command-palette")]
        self._keys = {}
        if wanted is not None and len(wanted) == len(keys):
            self._keys = {shown: key for (shown, _), key in zip(wanted, keys, strict=True)}
        yield from widgets

    async def _update_keys(self) -> None:
        if not self.is_attached:
            return
        wanted = self._keys_shown()
        if wanted is None or not self._keys:
            await self.recompose()
            return
        order = [self._keys[s] for s, _ in wanted if s in self._keys]
        if order != [k for k in self.children if k in order]:  # type: ignore[comparison-overlap]
            await self.recompose()
            return
        visible = {s for s, _ in wanted}
        for shown, footer_key in self._keys.items():
            footer_key.display = shown in visible
        previous = None
        for shown, enabled in wanted:
            key = self._keys.get(shown)
            if key is None:
                key = self._new_key(shown)
                self._keys[shown] = key
                if previous is None:
                    await self.mount(key, before=0)
                else:
                    await self.mount(key, after=previous)
            key.disabled = not enabled
            previous = key

    def _new_key(self, shown: Shown) -> FooterKey:
        key, display, description, action, tooltip = shown
        return FooterKey(key, display, description, action, tooltip=tooltip).data_bind(
            compact=Footer.compact
        )

    def _keys_shown(self) -> list[tuple[Shown, bool]] | None:
        """The keys the line shows, in order, and whether each is enabled: as ``Footer``
        composes them, the first binding of each action. ``None`` when some are grouped
        (``Footer`` composes those together: rebuild)."""
        app = self.app
        keys: dict[str, tuple[Shown, bool]] = {}
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in keys:
                continue
            if binding.group is not None:
                return None
            shown = (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                tooltip,
            )
            keys[binding.action] = (shown, enabled)
        return list(keys.values())
