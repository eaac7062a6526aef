"""``python -m neardup_gui`` starts the desktop application."""

from neardup_gui.app import main

raise SystemExit(main())
