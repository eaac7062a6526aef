"""Test configuration shared by every test package.

Qt must run without a screen: the platform plugin is chosen before anything imports Qt, and only
when the caller did not choose one (a developer may run the UI tests on a real display).
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from hypothesis import settings  # noqa: E402 - after the Qt platform choice above

# Property tests draw the same examples on every run, so a run that passes today passes tomorrow
# (CI included). HYPOTHESIS_PROFILE=explore searches fresh examples: run it when changing the
# engine, and turn what it finds into a plain regression test.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
