"""The desktop window: the only package that imports PySide6.

Widgets and models over the records of ``neardup_gui.core``; work goes through ``neardup_gui.tasks``.
"""
