"""The key line at the bottom: Textual's ``Footer``, its keys drawn by one widget.

Textual's footer composes one ``FooterKey`` widget per key and rebuilds them all whenever the
screen says its bindings may have changed: on every focus change and every
``refresh_bindings`` (a send starting and ending, a body loaded). A dozen widgets, each styled
anew and laid out, cost the first frame some 40 ms, and a rebuild held a send's status line
back by tens of milliseconds. Here one ``KeyLine`` draws the keys, styled as ``FooterKey``
styles them (its rules, as component classes), answers a click and a hover on each, and is
given the new keys in place; only the palette key, docked over the line's right end, stays a
``FooterKey``. What the line shows is what ``Footer.compose`` would compose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.geometry import Region
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.app import ComposeResult
    from textual.css.styles import StylesBase
    from textual.screen import Screen


class Key(NamedTuple):
    """One key on the line: what ``Footer.compose`` reads from a binding."""

    key: str
    key_display: str
    description: str
    action: str
    tooltip: str
    enabled: bool


def _stacked(layers: Sequence[StylesBase]) -> Style:
    """``DOMNode.rich_style`` over ``layers`` (outermost first): each background over the
    ones below, the innermost colour, the text styles added up."""
    background = Color(0, 0, 0, 0)
    color = Color(255, 255, 255, 0)
    style = Style()
    opacity = 1.0
    for styles in layers:
        has_rule = styles.has_rule
        opacity *= styles.opacity
        if has_rule("background"):
            text_background = background + styles.background.tint(styles.background_tint)
            background += styles.background.tint(styles.background_tint).multiply_alpha(opacity)
        else:
            text_background = background
        if has_rule("color"):
            color = styles.color
        style += styles.text_style
        if has_rule("auto_color") and styles.auto_color:
            color = text_background.get_contrast_text(color.a)
    return style + Style.from_color(
        (background + color).rich_color if (background.a or color.a) else None,
        background.rich_color if background.a else None,
    )


class KeyLine(Widget):
    """The footer's keys in one widget, each drawn as a ``FooterKey`` draws itself, one cell
    apart (a ``FooterKey``'s right margin; the last one's is the line's)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "key-line--item",
        "key-line--hover",
        "key-line--disabled",
        "key-line--key",
        "key-line--description",
    }
    # FooterKey's rules (textual/widgets/_footer.py), each state a component class.
    DEFAULT_CSS = """
    KeyLine {
        width: auto;
        height: 1;
        margin-right: 1;  /* the last key's: the footer's own background */
        text-wrap: nowrap;
        &.-over-key {
            pointer: pointer;
        }
        .key-line--item {
            background: $footer-item-background;
        }
        .key-line--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .key-line--disabled {
            text-style: dim;
        }
        .key-line--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
            padding: 0 1;
        }
        .key-line--description {
            padding: 0 1 0 0;
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        &.-compact {
            .key-line--key {
                padding: 0;
            }
            .key-line--description {
                padding: 0 0 0 1;
            }
        }
    }
    """

    compact = reactive(True, toggle_class="-compact")
    keys: reactive[tuple[Key, ...]] = reactive((), layout=True)
    _hover: reactive[int | None] = reactive(None)

    def __init__(self, keys: tuple[Key, ...] = ()) -> None:
        super().__init__()
        self.set_reactive(KeyLine.keys, keys)
        self.set_reactive(Widget.shrink, False)  # cut by the palette key, as FooterKeys were
        self._spans: list[tuple[int, int]] = []  # each key's first cell and the one after

    def render(self) -> Text:
        base = [node.styles for node in reversed(self.ancestors_with_self)]
        key_styles = self.get_component_styles("key-line--key")
        description_styles = self.get_component_styles("key-line--description")
        key_padding, description_padding = key_styles.padding, description_styles.padding
        looks: dict[tuple[bool, bool], tuple[Style, Style, Style]] = {}  # by enabled, hovered
        line = Text()
        self._spans = []
        for index, key in enumerate(self.keys):
            if index:
                line.append(" ")  # the margin between keys
            state = (key.enabled, index == self._hover)
            if state not in looks:
                states = ["key-line--item"]
                if not key.enabled:
                    states.append("key-line--disabled")
                if index == self._hover:
                    states.append("key-line--hover")
                item = [*base, self.get_component_styles(*states)]
                looks[state] = (
                    _stacked(item),
                    _stacked([*item, key_styles]),
                    _stacked([*item, description_styles]),
                )
            item_style, key_style, description_style = looks[state]
            if key.description:
                label = Text.assemble(
                    (" " * key_padding.left + key.key_display + " " * key_padding.right, key_style),
                    (
                        " " * description_padding.left
                        + key.description
                        + " " * description_padding.right,
                        description_style,
                    ),
                )
            else:
                label = Text.assemble((key.key_display, key_style))
            label.stylize_before(item_style)
            start = line.cell_len
            line.append_text(label)
            self._spans.append((start, line.cell_len))
        return line

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines drawn, the cells between keys the footer's own blank (a ``FooterKey``'s
        margin showed the footer under it: only its background, no text colour)."""
        lines = super().render_lines(crop)
        gaps = {end - crop.x for _, end in self._spans[:-1]}
        if not gaps:
            return lines
        blank = Strip.blank(1, Style.from_color(bgcolor=self.background_colors[1].rich_color))
        drawn = []
        for strip in lines:
            length = strip.cell_length
            cuts = sorted({c for g in gaps for c in (g, g + 1) if 0 < c < length} | {length})
            pieces, start = [], 0
            for piece, cut in zip(strip.divide(cuts), cuts, strict=True):
                pieces.append(blank if start in gaps and cut == start + 1 else piece)
                start = cut
            drawn.append(Strip.join(pieces))
        return drawn

    def key_at(self, x: int) -> int | None:
        """The index of the key drawn at cell ``x``, if any."""
        return next((i for i, (a, b) in enumerate(self._spans) if a <= x < b), None)

    def watch_keys(self) -> None:
        self._hover = None

    def watch__hover(self, hover: int | None) -> None:
        self.set_class(hover is not None, "-over-key")
        self.tooltip = self.keys[hover].tooltip or None if hover is not None else None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover = self.key_at(event.x)

    def on_leave(self) -> None:
        self._hover = None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self.key_at(event.x)
        if index is None:
            return
        key = self.keys[index]
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()


class KeyFooter(Footer):
    """A ``Footer`` whose keys are one ``KeyLine``, updated in place."""

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
        self.line = KeyLine()
        self._palette: Key | None = None  # the palette key composed
        self._update_due = False  # an update of the keys is to come after the next frame

    @property
    def shown(self) -> list[Key]:
        """The keys on the line, in order (the palette key last, when it shows)."""
        return [*self.line.keys, *([self._palette] if self._palette else [])]

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self._update_soon()

    def _update_soon(self) -> None:
        """Update the keys after the next frame (a send's status line goes out first), once
        for any number of changes meanwhile: a send starting and ending says so several times."""
        if self.is_attached and not self._update_due:
            self._update_due = True
            self.call_after_refresh(self._update_keys)

    def on_mount(self) -> None:
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def on_unmount(self) -> None:
        self.app.screen_change_signal.unsubscribe(self)

    def _screen_changed(self, _screen: Screen) -> None:
        """A dialog opened over this line's screen leaves some of its keys dead (the panes'),
        and no binding of this screen need change to say so: the line is brought up to date
        after each screen change's first frame."""
        self._update_soon()

    def compose(self) -> ComposeResult:
        # The keys are known now (the app's and the screen's at least): the line is in the
        # first frame, and the focus's keys change it in place.
        keys, palette = self._keys_shown()
        self.line = KeyLine(keys).data_bind(compact=Footer.compact)
        yield self.line
        self._palette = palette
        if palette is not None:
            yield FooterKey(
                palette.key,
                palette.key_display,
                palette.description,
                palette.action,
                classes="-command-palette",
                disabled=not palette.enabled,
                tooltip=palette.tooltip,
            )

    def _update_keys(self) -> None:
        self._update_due = False
        if not self.is_attached:
            return
        keys, palette = self._keys_shown()
        if palette != self._palette:
            self.call_after_refresh(self.recompose)
            return
        self.line.keys = keys

    def _keys_shown(self) -> tuple[tuple[Key, ...], Key | None]:
        """The keys the line shows, in order, and the palette key: as ``Footer.compose``
        composes them, the first binding of each action (no binding here has a group)."""
        app = self.app
        bindings = self.screen.active_bindings
        keys: dict[str, Key] = {}
        for _node, binding, enabled, tooltip in bindings.values():
            if binding.show and binding.action not in keys:
                display = app.get_key_display(binding)
                shown = (binding.key, display, binding.description, binding.action, tooltip)
                keys[binding.action] = Key(*shown, enabled)
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            found = bindings.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _node, binding, enabled, _tooltip = found
                palette = Key(
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    binding.tooltip or binding.description,
                    enabled,
                )
        return tuple(keys.values()), palette
