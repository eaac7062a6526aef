"""Entry script of the PyInstaller bundle: the same ``main()`` as ``neardup-gui`` and
``python -m neardup_gui``."""

import multiprocessing

# ``neardup_gui.core.helper`` verifies pairs in a spawned process (the window does not use it yet);
# in the frozen program such a process starts this executable again, and this call makes it the
# helper instead of a second window.
multiprocessing.freeze_support()

from neardup_gui.app import main  # noqa: E402 - after freeze_support, as it must be

raise SystemExit(main())
