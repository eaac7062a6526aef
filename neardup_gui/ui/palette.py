"""Highlight kinds of the diff panes and their colours.

Light tints of the Okabe-Ito palette, which stays distinguishable with the common forms of colour
blindness; black text stays readable on every tint. The order of ``HighlightKind`` is the painting
order: a later kind is drawn over an earlier one.
Imports PySide6.QtGui only.
"""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtGui import QColor

from neardup_gui.ui.labels import tr


class HighlightKind(IntEnum):
    """What a highlighted span means (values give the painting order)."""

    UNIQUE = 0  # text only on this side
    SHARED = 1  # a passage found on both sides
    CHANGED = 2  # a character-level difference inside a matched region
    REVISION = 3  # evidence of a revision flag (number, date, unit, negation, condition)
    CURRENT = 4  # the shared passage the N / P keys moved to


# Okabe-Ito base colours.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}


def tint(hex_colour: str, share: float) -> QColor:
    """``share`` of the colour mixed into white (0 = white, 1 = the colour)."""
    base = QColor(hex_colour)
    return QColor(
        round(255 - (255 - base.red()) * share),
        round(255 - (255 - base.green()) * share),
        round(255 - (255 - base.blue()) * share),
    )


BACKGROUND = {
    HighlightKind.UNIQUE: tint(OKABE_ITO["reddish_purple"], 0.28),
    HighlightKind.SHARED: tint(OKABE_ITO["sky_blue"], 0.25),
    HighlightKind.CHANGED: tint(OKABE_ITO["yellow"], 0.60),
    HighlightKind.REVISION: tint(OKABE_ITO["vermillion"], 0.45),
    HighlightKind.CURRENT: tint(OKABE_ITO["sky_blue"], 0.60),
}
# Revision evidence is also underlined, so it stays visible when printed in grey.
UNDERLINE = {HighlightKind.REVISION: QColor(OKABE_ITO["vermillion"])}
# The thin bar where one side lacks text the other side has: dark, so it shows on every tint.
INSERTION_COLOR = QColor(OKABE_ITO["blue"])


def legend_entries() -> list[tuple[HighlightKind, str, str]]:
    """(kind, short label, explanation) for the legend, in reading order."""
    return [
        (HighlightKind.SHARED, tr("shared"), tr("Passage found on both sides")),
        (HighlightKind.CURRENT, tr("current"), tr("The shared passage N / P moved to")),
        (HighlightKind.CHANGED, tr("changed inside match"), tr("Characters that differ inside a matched region")),
        (HighlightKind.UNIQUE, tr("only here"), tr("Text that appears only on this side")),
        (HighlightKind.REVISION, tr("revision flag"), tr("Evidence of a changed number, date, unit, negation or condition")),
    ]


def kind_label(kind: HighlightKind) -> str:
    """Short label of a highlight kind (the legend's words)."""
    for entry_kind, label, _explanation in legend_entries():
        if entry_kind == kind:
            return label
    return kind.name.lower()
