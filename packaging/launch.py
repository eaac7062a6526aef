"""Entry script of the PyInstaller bundle: the same ``main()`` as ``neardup-gui`` and
``python -m neardup_gui``."""

from neardup_gui.app import main

raise SystemExit(main())
