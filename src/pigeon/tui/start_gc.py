"""The garbage collector is held off while the app starts, and what start-up built is kept out
of its later passes.

Start-up allocates some 300,000 objects (modules, classes, the stylesheet, the first screen's
widgets) and nearly all of them live as long as the app. Collecting while they are made cost
35-45 ms of a 300 ms start, a full pass among them: ``pigeon`` pauses the collector before it
imports the app (``cli.cmd_app``), and the main screen resumes it once its first frame is on
the terminal, after ``gc.freeze()`` has moved what exists then out of the collector's reach,
so that later full passes do not walk it again. An app that is not started by ``pigeon`` (a
test's) never paused the collector, and resuming it does nothing.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Hold off collecting until ``resume``."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze what start-up built and collect again (once; a no-op unless ``pause`` ran)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
