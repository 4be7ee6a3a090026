"""SVG snapshots of a profile's result at 80x24 and 120x40: a fixed set of results drawn
(nothing is sent), so the percentiles, the histogram's bars and the errors are the same every
run. Update with ``pytest --snapshot-update`` after a deliberate change, and look at the new
SVGs first."""

from __future__ import annotations

import pytest
from test_snapshots_dialogs import dialog_shown
from test_tui_snapshots import demo_app

from pigeon.profile import Sample, Samples
from pigeon.tui.screens.profile import ProfileScreen

SIZES = [(80, 24), (120, 40)]


@pytest.fixture(autouse=True)
def _private_config(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def results():
    """200 sends, 8 at once: most between 11 and 30 ms, a tail to 640 ms, a few errors."""
    samples = Samples()
    for n in range(180):
        samples.add(Sample(11.0 + (n * 7) % 20, 1_840))
    for ms in (45.0, 60.0, 75.0, 90.0, 120.0, 150.0, 210.0, 320.0, 480.0, 640.0):
        samples.add(Sample(ms, 1_840))
    for _ in range(6):
        samples.add(Sample(35.0, 410, "status 5xx", "503 Service Unavailable"))
    for _ in range(4):
        samples.add(
            Sample(None, 0, "timeout", "Timed out after 5 s waiting for the response headers")
        )
    return samples.stats(sends=200, at_once=8, seconds=1.6, stopped=False)


def showing_results(pilot) -> object:
    async def run(pilot) -> None:
        app = pilot.app
        request = next(r for r in app.session.collection.requests() if r.id == "users/list-users")
        await app.push_screen(ProfileScreen(app.session, request, shown=results()))
        await dialog_shown(pilot)

    return run(pilot)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_profile_results(snap_compare, tmp_path, size) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=size, run_before=showing_results)
