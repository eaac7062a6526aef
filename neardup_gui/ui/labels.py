"""Words the window shows for the engine's codes (statuses, flags, methods), and the ``tr`` helper.

Every user-visible string outside a QObject goes through ``tr`` so one translation file covers the
whole window. Codes stay in English in files and the database; only their labels are translated.
Imports PySide6.QtCore only.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtGui import Qt as QtGui

from neardup_gui.core import records as r
from neardup_gui.core.memory import human_size
from neardup_gui.core.progress import STAGE_LABELS

CONTEXT = "neardup"


def tr(text: str, context: str = CONTEXT) -> str:
    """Translate ``text`` (the one translation helper for code outside QObject methods).

    The label tables below are extracted under the literal context ``neardup`` (lupdate cannot read
    a variable); lupdate files a bare ``tr("…")`` call under the empty context, so that is looked up
    too.
    """
    translated = QCoreApplication.translate(context, text)
    if translated == text and context:
        translated = QCoreApplication.translate("", text)
    return translated


# Review statuses: the English word first, the seed's Chinese term beside it.
_REVIEW = {
    r.REVIEW_PENDING: QT_TRANSLATE_NOOP("neardup", "Pending · 待审"),
    r.REVIEW_KEEP_BOTH: QT_TRANSLATE_NOOP("neardup", "Keep both · 保留双方"),
    r.REVIEW_SUGGEST_MERGE: QT_TRANSLATE_NOOP("neardup", "Suggest merged entry · 建议合并检索入口"),
    r.REVIEW_PUBLIC_QUOTATION: QT_TRANSLATE_NOOP("neardup", "Public quotation · 公共引用"),
    r.REVIEW_VALID_REVISION: QT_TRANSLATE_NOOP("neardup", "Valid revision · 有效修订"),
    r.REVIEW_PENDING_ARBITRATION: QT_TRANSLATE_NOOP("neardup", "Needs arbitration · 待仲裁"),
}

_FLAGS = {
    r.FLAG_EXACT_NORMALIZED: QT_TRANSLATE_NOOP("neardup", "same text"),
    r.FLAG_EXACT_BYTES: QT_TRANSLATE_NOOP("neardup", "identical files"),
    r.FLAG_CONTAINED: QT_TRANSLATE_NOOP("neardup", "one inside the other"),
    r.FLAG_NUMBER_CHANGED: QT_TRANSLATE_NOOP("neardup", "number changed"),
    r.FLAG_DATE_CHANGED: QT_TRANSLATE_NOOP("neardup", "date changed"),
    r.FLAG_UNIT_CHANGED: QT_TRANSLATE_NOOP("neardup", "unit changed"),
    r.FLAG_NEGATION_CHANGED: QT_TRANSLATE_NOOP("neardup", "negation changed"),
    r.FLAG_CONDITION_CHANGED: QT_TRANSLATE_NOOP("neardup", "condition changed"),
    r.FLAG_TEMPLATE_ONLY: QT_TRANSLATE_NOOP("neardup", "template only"),
    r.FLAG_QUOTATION: QT_TRANSLATE_NOOP("neardup", "quotation"),
}

_FILE_STATUS = {
    r.STATUS_OK: QT_TRANSLATE_NOOP("neardup", "read"),
    r.STATUS_EMPTY: QT_TRANSLATE_NOOP("neardup", "empty"),
    r.STATUS_BINARY: QT_TRANSLATE_NOOP("neardup", "binary, skipped"),
    r.STATUS_UNDECODABLE: QT_TRANSLATE_NOOP("neardup", "cannot be decoded or extracted"),
    r.STATUS_UNREADABLE: QT_TRANSLATE_NOOP("neardup", "unreadable"),
    r.STATUS_TOO_LARGE: QT_TRANSLATE_NOOP("neardup", "too large"),
    r.STATUS_NO_SHINGLES: QT_TRANSLATE_NOOP("neardup", "too short to compare"),
    r.STATUS_SKIPPED_LINK: QT_TRANSLATE_NOOP("neardup", "link, skipped"),
    r.STATUS_EXCLUDED: QT_TRANSLATE_NOOP("neardup", "excluded by pattern"),
    r.STATUS_NO_TEXT_LAYER: QT_TRANSLATE_NOOP("neardup", "no text layer (scanned PDF)"),
}

_METHODS = {
    r.METHOD_MINHASH: QT_TRANSLATE_NOOP("neardup", "MinHash + LSH (Jaccard)"),
    r.METHOD_EXACT: QT_TRANSLATE_NOOP("neardup", "Exact copies only"),
    r.METHOD_JACCARD: QT_TRANSLATE_NOOP("neardup", "Exact Jaccard, all pairs"),
    r.METHOD_TFIDF: QT_TRANSLATE_NOOP("neardup", "Character TF-IDF cosine"),
    r.METHOD_SIMHASH: QT_TRANSLATE_NOOP("neardup", "SimHash"),
    r.METHOD_CONTAINMENT: QT_TRANSLATE_NOOP("neardup", "Containment"),
}

# Short names for the "Found by" column.
_METHODS_SHORT = {
    r.METHOD_MINHASH: QT_TRANSLATE_NOOP("neardup", "MinHash"),
    r.METHOD_EXACT: QT_TRANSLATE_NOOP("neardup", "exact copy"),
    r.METHOD_JACCARD: QT_TRANSLATE_NOOP("neardup", "Jaccard"),
    r.METHOD_TFIDF: QT_TRANSLATE_NOOP("neardup", "TF-IDF"),
    r.METHOD_SIMHASH: QT_TRANSLATE_NOOP("neardup", "SimHash"),
    r.METHOD_CONTAINMENT: QT_TRANSLATE_NOOP("neardup", "containment"),
}

# Stages of a screen (``core.progress.STAGES``) as the progress bar names them.
_STAGES = {
    "list": QT_TRANSLATE_NOOP("neardup", "Listing files"),
    "read": QT_TRANSLATE_NOOP("neardup", "Reading files"),
    "normalize": QT_TRANSLATE_NOOP("neardup", "Normalizing"),
    "shingle": QT_TRANSLATE_NOOP("neardup", "Shingling and signing"),
    "candidates": QT_TRANSLATE_NOOP("neardup", "Finding candidates"),
    "verify": QT_TRANSLATE_NOOP("neardup", "Verifying pairs"),
    "flags": QT_TRANSLATE_NOOP("neardup", "Checking revisions and templates"),
    "check": QT_TRANSLATE_NOOP("neardup", "Checking the source files again"),
    "write": QT_TRANSLATE_NOOP("neardup", "Writing the results"),
}

# Comparison scopes (``core.scope.SCOPES``) as the Parameters panel offers them.
_SCOPES = {
    "all": QT_TRANSLATE_NOOP("neardup", "All pairs"),
    "within": QT_TRANSLATE_NOOP("neardup", "Only within the same value of a field"),
    "new_vs_reference": QT_TRANSLATE_NOOP("neardup", "New documents against a reference archive"),
    "across": QT_TRANSLATE_NOOP("neardup", "Only across two sets"),
}

_RETAINED = {
    "": QT_TRANSLATE_NOOP("neardup", "Not chosen"),
    "left": QT_TRANSLATE_NOOP("neardup", "Left"),
    "right": QT_TRANSLATE_NOOP("neardup", "Right"),
    "both": QT_TRANSLATE_NOOP("neardup", "Both"),
}


def _label(table: dict[str, str], code: str) -> str:
    text = table.get(code)
    return tr(text) if text is not None else code.replace("_", " ")


def review_label(status: str) -> str:
    """Label of a review status, e.g. ``Keep both · 保留双方``."""
    return _label(_REVIEW, status)


def flag_label(flag: str) -> str:
    """Readable words for a candidate flag, e.g. ``number changed``."""
    return _label(_FLAGS, flag)


def list_separator() -> str:
    """What separates the items of a short list: ``, `` in English, ``、`` in Chinese."""
    # The literal context and comment let lupdate extract it (the comment tells the translator what it is).
    return QCoreApplication.translate("neardup", ", ", "between the items of a short list (flags, methods)")


def flags_text(flags: tuple[str, ...] | list[str]) -> str:
    """Flags as one readable line, in the engine's order."""
    return list_separator().join(flag_label(f) for f in flags)


def file_status_label(status: str) -> str:
    """Why a file was or was not compared, in words."""
    return _label(_FILE_STATUS, status)


def method_label(method: str) -> str:
    """Name of a screening method."""
    return _label(_METHODS, method)


def methods_text(methods: tuple[str, ...] | list[str]) -> str:
    """The methods that found a pair, as short names, e.g. ``MinHash, containment``."""
    return list_separator().join(_label(_METHODS_SHORT, m) for m in methods)


def stage_label(stage: str) -> str:
    """Name of a stage of the screen (``read``, ``normalize``, …) for the progress bar."""
    text = _STAGES.get(stage)
    return tr(text) if text is not None else STAGE_LABELS.get(stage, stage)


def stage_labels() -> list[str]:
    """Every stage name, translated (the progress bar sizes itself for the longest)."""
    return [stage_label(stage) for stage in _STAGES]


def scope_label(scope: str) -> str:
    """Name of a comparison scope, e.g. ``New documents against a reference archive``."""
    return _label(_SCOPES, scope)


def scope_text(params: r.ScreenParams) -> str:
    """What the scope of ``params`` compares, in one translated phrase (run notes, status bar)."""
    patterns = " ".join(params.scope_patterns) or tr("(no pattern)")
    if params.scope == "within":
        return tr("only pairs with the same {0}").format(params.scope_field)
    if params.scope == "new_vs_reference":
        return tr("new documents against the reference archive {0} (the archive is not compared with itself)").format(
            patterns
        )
    if params.scope == "across":
        return tr("only pairs across the two sets: {0} against the rest").format(patterns)
    return tr("all pairs")


def retained_label(retained: str) -> str:
    """Label of a retained-version choice (``left``, ``right``, ``both`` or empty)."""
    return _label(_RETAINED, retained)


def literal_tooltip(text: str | None) -> str | None:
    """A tooltip that shows ``text`` as typed.

    Qt renders a tooltip as HTML when it "might be rich text", so a file named ``<b>x</b>.txt``
    would show as a bold "x.txt"; such text is escaped inside a paragraph that keeps its lines.
    """
    if not text or not QtGui.mightBeRichText(text):
        return text
    return '<p style="white-space:pre-wrap">' + html.escape(text) + "</p>"


def format_size(size: int) -> str:
    """Bytes as a short human-readable size (1 KB = 1024 bytes): the engine's ``human_size`` with
    the window's "B"."""
    return human_size(size, byte_unit="B")


def format_span(seconds: float) -> str:
    """A length of time such as ``2 min``, ``3 h 20 min`` or ``12 days 5 h`` (rounded)."""
    s = max(0, round(seconds))
    if s < 60:
        return tr("{0} s").format(s)
    minutes = round(s / 60)
    if minutes < 60:
        return tr("{0} min").format(minutes)
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return tr("{0} h {1} min").format(hours, minutes)
    days, hours = divmod(hours, 24)
    return tr("{0} days {1} h").format(f"{days:,}", hours)


def refusal_text(refusal: r.TooLarge) -> str:
    """What a refused screen (``core.records.TooLarge``) would have needed, and what to choose
    instead, in the interface language; the engine's English message when the refusal is of a
    kind the window does not know."""
    docs, chars = f"{refusal.documents:,}", f"{refusal.chars:,}"
    if refusal.what == r.TOO_LONG and refusal.method == r.METHOD_JACCARD:
        return tr(
            "Comparing every pair of these {0} documents by exact Jaccard would take about {1}; this method is "
            "refused past {2}. Choose MinHash + LSH (the default) for a folder this large, or screen part of it."
        ).format(docs, format_span(refusal.need), format_span(refusal.limit))
    if refusal.what == r.TOO_MUCH_MEMORY:
        need, have = format_size(int(refusal.need)), format_size(int(refusal.limit))
        if refusal.method == r.METHOD_TFIDF:
            text = tr(
                "The character TF-IDF cosine method over {0} documents ({1} characters) needs about {2} of memory at "
                "its peak, and this computer has {3} available. Choose MinHash + LSH (the default) for a folder this "
                "large, or screen part of it."
            )
        elif refusal.method == r.METHOD_SIMHASH:
            text = tr(
                "The SimHash method over {0} documents ({1} characters) needs about {2} of memory at its peak, and "
                "this computer has {3} available. Choose MinHash + LSH (the default) for a folder this large, or "
                "screen part of it."
            )
        else:
            text = tr(
                "TF-IDF cosine and SimHash scores for every pair of {0} documents ({1} characters) need about {2} of "
                "memory at their peak, and this computer has {3} available. Leave these scores to the automatic "
                "setting (they are then left out of screens this large), or screen part of the folder."
            )
        return text.format(docs, chars, need, have)
    return str(refusal)


def format_duration(seconds: float) -> str:
    """A time left such as ``about 2 min 5 s`` (rounded; never negative)."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return tr("about {0} s").format(seconds)
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return tr("about {0} min {1} s").format(minutes, secs)
    hours, minutes = divmod(minutes, 60)
    return tr("about {0} h {1} min").format(hours, minutes)
