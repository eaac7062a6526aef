"""``python -m neardup_gui`` starts the desktop application."""

from neardup_gui.app import main

if __name__ == "__main__":  # not when a helper process imports it (``core.helper``, ``io.corpus``)
    raise SystemExit(main())
