"""Test configuration shared by every test package.

Qt must run without a screen: the platform plugin is chosen before anything imports Qt, and only
when the caller did not choose one (a developer may run the UI tests on a real display).
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
