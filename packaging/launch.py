"""Entry script of the PyInstaller bundle: the same ``main()`` as ``neardup-gui`` and
``python -m neardup_gui``."""

import multiprocessing

# ``neardup_gui.core.warmup`` compiles the kernels in a spawned process on the first start,
# ``neardup_gui.io.corpus`` reads a share of a large folder's files in one (30,000 files or more),
# and ``neardup_gui.core.helper`` verifies pairs in one (40,000 documents or more on two or three
# cores, 20,000 on four or more); in the frozen program such a process starts this executable
# again, and this call makes it that process instead of a second window.
multiprocessing.freeze_support()

from neardup_gui.app import main  # noqa: E402 - after freeze_support, as it must be

raise SystemExit(main())
