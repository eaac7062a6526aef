"""Entry script of the PyInstaller bundle: the same ``main()`` as ``neardup-gui`` and
``python -m neardup_gui``."""

import multiprocessing

# A large screen verifies pairs in a helper process (``neardup_gui.core.helper``); in the frozen
# program that process starts this executable again, and this call makes it the helper.
multiprocessing.freeze_support()

from neardup_gui.app import main  # noqa: E402 - after freeze_support, as it must be

raise SystemExit(main())
