"""Files and formats: the read-only source-folder reader, the review session store, exports and
app-data paths. Never imports PySide6 (or anything that does).

Import the modules directly (``from neardup_gui.io.corpus import scan_folder``); this package
re-exports nothing so that importing one of them does not load the others.
"""
