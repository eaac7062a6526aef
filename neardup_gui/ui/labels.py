"""Words the window shows for the engine's codes (statuses, flags, methods), and the ``tr`` helper.

Every user-visible string outside a QObject goes through ``tr`` so one translation file covers the
whole window. Codes stay in English in files and the database; only their labels are translated.
Imports PySide6.QtCore only.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP

from neardup_gui.core import records as r

CONTEXT = "neardup"


def tr(text: str, context: str = CONTEXT) -> str:
    """Translate ``text`` (the one translation helper for code outside QObject methods)."""
    return QCoreApplication.translate(context, text)


# Review statuses: the English word first, the seed's Chinese term beside it.
_REVIEW = {
    r.REVIEW_PENDING: QT_TRANSLATE_NOOP(CONTEXT, "Pending · 待审"),
    r.REVIEW_KEEP_BOTH: QT_TRANSLATE_NOOP(CONTEXT, "Keep both · 保留双方"),
    r.REVIEW_SUGGEST_MERGE: QT_TRANSLATE_NOOP(CONTEXT, "Suggest merged entry · 建议合并检索入口"),
    r.REVIEW_PUBLIC_QUOTATION: QT_TRANSLATE_NOOP(CONTEXT, "Public quotation · 公共引用"),
    r.REVIEW_VALID_REVISION: QT_TRANSLATE_NOOP(CONTEXT, "Valid revision · 有效修订"),
    r.REVIEW_PENDING_ARBITRATION: QT_TRANSLATE_NOOP(CONTEXT, "Needs arbitration · 待仲裁"),
}

_FLAGS = {
    r.FLAG_EXACT_NORMALIZED: QT_TRANSLATE_NOOP(CONTEXT, "same text"),
    r.FLAG_EXACT_BYTES: QT_TRANSLATE_NOOP(CONTEXT, "identical files"),
    r.FLAG_CONTAINED: QT_TRANSLATE_NOOP(CONTEXT, "one inside the other"),
    r.FLAG_NUMBER_CHANGED: QT_TRANSLATE_NOOP(CONTEXT, "number changed"),
    r.FLAG_DATE_CHANGED: QT_TRANSLATE_NOOP(CONTEXT, "date changed"),
    r.FLAG_UNIT_CHANGED: QT_TRANSLATE_NOOP(CONTEXT, "unit changed"),
    r.FLAG_NEGATION_CHANGED: QT_TRANSLATE_NOOP(CONTEXT, "negation changed"),
    r.FLAG_CONDITION_CHANGED: QT_TRANSLATE_NOOP(CONTEXT, "condition changed"),
    r.FLAG_TEMPLATE_ONLY: QT_TRANSLATE_NOOP(CONTEXT, "template only"),
    r.FLAG_QUOTATION: QT_TRANSLATE_NOOP(CONTEXT, "quotation"),
}

_FILE_STATUS = {
    r.STATUS_OK: QT_TRANSLATE_NOOP(CONTEXT, "read"),
    r.STATUS_EMPTY: QT_TRANSLATE_NOOP(CONTEXT, "empty"),
    r.STATUS_BINARY: QT_TRANSLATE_NOOP(CONTEXT, "binary, skipped"),
    r.STATUS_UNDECODABLE: QT_TRANSLATE_NOOP(CONTEXT, "unknown encoding"),
    r.STATUS_UNREADABLE: QT_TRANSLATE_NOOP(CONTEXT, "unreadable"),
    r.STATUS_TOO_LARGE: QT_TRANSLATE_NOOP(CONTEXT, "too large"),
    r.STATUS_NO_SHINGLES: QT_TRANSLATE_NOOP(CONTEXT, "too short to compare"),
    r.STATUS_SKIPPED_LINK: QT_TRANSLATE_NOOP(CONTEXT, "link, skipped"),
    r.STATUS_EXCLUDED: QT_TRANSLATE_NOOP(CONTEXT, "excluded by pattern"),
}

_METHODS = {
    r.METHOD_MINHASH: QT_TRANSLATE_NOOP(CONTEXT, "MinHash + LSH (Jaccard)"),
    r.METHOD_EXACT: QT_TRANSLATE_NOOP(CONTEXT, "Exact copies only"),
    r.METHOD_JACCARD: QT_TRANSLATE_NOOP(CONTEXT, "Exact Jaccard, all pairs"),
    r.METHOD_TFIDF: QT_TRANSLATE_NOOP(CONTEXT, "Character TF-IDF cosine"),
    r.METHOD_SIMHASH: QT_TRANSLATE_NOOP(CONTEXT, "SimHash"),
    r.METHOD_CONTAINMENT: QT_TRANSLATE_NOOP(CONTEXT, "Containment"),
}

_RETAINED = {
    "": QT_TRANSLATE_NOOP(CONTEXT, "Not chosen"),
    "left": QT_TRANSLATE_NOOP(CONTEXT, "Left"),
    "right": QT_TRANSLATE_NOOP(CONTEXT, "Right"),
    "both": QT_TRANSLATE_NOOP(CONTEXT, "Both"),
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


def flags_text(flags: tuple[str, ...] | list[str]) -> str:
    """Flags as one readable line, in the engine's order."""
    return ", ".join(flag_label(f) for f in flags)


def file_status_label(status: str) -> str:
    """Why a file was or was not compared, in words."""
    return _label(_FILE_STATUS, status)


def method_label(method: str) -> str:
    """Name of a screening method."""
    return _label(_METHODS, method)


def retained_label(retained: str) -> str:
    """Label of a retained-version choice (``left``, ``right``, ``both`` or empty)."""
    return _label(_RETAINED, retained)


def format_size(size: int) -> str:
    """Bytes as a short human-readable size (1 KB = 1024 bytes)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


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
