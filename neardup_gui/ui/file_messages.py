"""Why a file was not compared (``Document.message``, or what changed in it), in the window's language.

The engine's message of a file stays English in every record (manifest, session, workbook, CSV);
the window recognises each of its templates and says it in the interface language. {0}, {1}, …
stand for the variable parts (sizes, patterns, paths, link targets, encodings, an exception's own
text), which are kept as they are. The first template that matches a whole message, or a part of
one joined with "; ", is used: specific templates come before general ones. When the engine's
wording changes, the message shows in English until its template here is changed too (a test
screens a real folder of bad files and requires every message it gets to be recognised).

Imports PySide6.QtCore only.
"""

from __future__ import annotations

import re
import string

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from neardup_gui.ui.labels import tr

__all__ = ["MESSAGE_CONTEXT", "file_message_text"]

MESSAGE_CONTEXT = "file message"


class _Template:
    """One message template, and templates for those of its variable parts that are phrases of
    their own (e.g. the kind of binary file); a part no template matches is kept."""

    def __init__(self, english: str, nested: dict[int, tuple[_Template, ...]] | None = None) -> None:
        self.english = english
        self.nested = nested or {}
        pieces = list(string.Formatter().parse(english))
        pattern = "".join(re.escape(text) + (f"(?P<p{name}>.*?)" if name is not None else "")
                          for text, name, _s, _c in pieces)  # fmt: skip
        self._regex = re.compile(pattern, re.DOTALL)
        self._fields = sum(name is not None for _t, name, _s, _c in pieces)
        # Checked before the regular expression: most parts fail them.
        self._prefix = pieces[0][0] if pieces else ""
        self._suffix = pieces[-1][0] if pieces and pieces[-1][1] is None else ""

    def say(self, text: str) -> str | None:
        """``text`` in the interface language when it fits this template, else None."""
        if not (text.startswith(self._prefix) and text.endswith(self._suffix)):
            return None
        found = self._regex.fullmatch(text)
        if found is None:
            return None
        values = [found[f"p{i}"] for i in range(self._fields)]
        for i, templates in self.nested.items():
            values[i] = _say(values[i], templates) or values[i]
        return tr(self.english, MESSAGE_CONTEXT).format(*values)


def _say(text: str, templates: tuple[_Template, ...]) -> str | None:
    for template in templates:
        said = template.say(text)
        if said is not None:
            return said
    return None


def _templates(*items: str | tuple[str, dict[int, tuple[_Template, ...]]]) -> tuple[_Template, ...]:
    return tuple(_Template(item) if isinstance(item, str) else _Template(*item) for item in items)


# What ``io.decoding.detect_binary`` names, and the other reason a file is binary.
_BINARY_KINDS = _templates(
    QT_TRANSLATE_NOOP("file message", "PNG image"),
    QT_TRANSLATE_NOOP("file message", "JPEG image"),
    QT_TRANSLATE_NOOP("file message", "GIF image"),
    QT_TRANSLATE_NOOP("file message", "PDF document"),
    QT_TRANSLATE_NOOP("file message", "ZIP archive (also .docx, .xlsx, .epub)"),
    QT_TRANSLATE_NOOP("file message", "ZIP archive (empty)"),
    QT_TRANSLATE_NOOP("file message", "OLE2 file (old .doc/.xls)"),
    QT_TRANSLATE_NOOP("file message", "gzip archive"),
    QT_TRANSLATE_NOOP("file message", "7-Zip archive"),
    QT_TRANSLATE_NOOP("file message", "RAR archive"),
    QT_TRANSLATE_NOOP("file message", "ELF executable"),
    QT_TRANSLATE_NOOP("file message", "SQLite database"),
    QT_TRANSLATE_NOOP("file message", "contains NUL bytes"),
)

# A size under 1 KB as ``core.memory.human_size`` writes it in a message (larger ones need no words).
_SIZES = _templates(QT_TRANSLATE_NOOP("file message", "{0} bytes"))

_FILE_MESSAGES = _templates(
    # Listing the folder (io.walk; a listed file that is missing: distributed.sources)
    QT_TRANSLATE_NOOP("file message", "folder could not be listed: {0}"),
    QT_TRANSLATE_NOOP("file message", "could not be examined: {0}"),
    QT_TRANSLATE_NOOP("file message", "hidden folder, not searched"),
    QT_TRANSLATE_NOOP("file message", "hidden file"),
    QT_TRANSLATE_NOOP("file message", "symbolic link to {0}, outside the source folder; not followed"),
    QT_TRANSLATE_NOOP("file message", "symlink loop (the link leads back to itself)"),
    QT_TRANSLATE_NOOP("file message", "symlink loop"),
    QT_TRANSLATE_NOOP("file message", "broken symbolic link (to {0})"),
    QT_TRANSLATE_NOOP("file message", "folder excluded by pattern {0}"),
    QT_TRANSLATE_NOOP("file message", "excluded by pattern {0}"),
    QT_TRANSLATE_NOOP("file message", "not matched by the include patterns {0}"),
    QT_TRANSLATE_NOOP("file message", "not a regular file (device, pipe or socket)"),
    QT_TRANSLATE_NOOP("file message", "listed file not found"),
    # Reading and decoding (io.corpus, io.decoding)
    QT_TRANSLATE_NOOP("file message", "could not be opened: {0}"),
    QT_TRANSLATE_NOOP("file message", "could not be read: {0}"),
    (QT_TRANSLATE_NOOP("file message", "{0}, larger than the limit of {1}; not read"), {0: _SIZES, 1: _SIZES}),
    (QT_TRANSLATE_NOOP("file message", "grew while being read; larger than the limit of {0}; not read"), {0: _SIZES}),
    QT_TRANSLATE_NOOP("file message", "empty file (0 bytes)"),
    (QT_TRANSLATE_NOOP("file message", "binary data: {0}"), {0: _BINARY_KINDS}),
    (
        QT_TRANSLATE_NOOP("file message", "not valid UTF-8 ({0}), and GB18030, Big5 and UTF-16 give no plausible text"),
        {0: _templates(QT_TRANSLATE_NOOP("file message", "byte {0} at byte {1} of {2}"))},
    ),
    QT_TRANSLATE_NOOP("file message", "only a byte-order mark"),
    QT_TRANSLATE_NOOP("file message", "only whitespace ({0} characters)"),
    QT_TRANSLATE_NOOP("file message", "file name is not valid UTF-8 (bytes shown as \\xNN)"),
    # Word files (io.extract.docx_text)
    QT_TRANSLATE_NOOP("file message", "not a valid .docx file: its part {0} is missing"),
    QT_TRANSLATE_NOOP("file message", "not a valid .docx file: it has no main document part"),
    QT_TRANSLATE_NOOP("file message", "not a valid .docx file: its main part has no content type"),
    QT_TRANSLATE_NOOP("file message", "not a valid .docx file: its main part is {0}"),
    (QT_TRANSLATE_NOOP("file message", "not a valid .docx file: it is a {0}"), {0: _BINARY_KINDS}),
    QT_TRANSLATE_NOOP("file message", "not a valid .docx file: it is not a ZIP package"),
    QT_TRANSLATE_NOOP("file message", "unpacks to {0} MB, over the limit of {1} MB for a .docx file; not read"),
    QT_TRANSLATE_NOOP("file message", "the document contains no text"),
    # Web pages (io.extract.html_text)
    QT_TRANSLATE_NOOP("file message", "declared charset {0} does not decode the page"),
    QT_TRANSLATE_NOOP("file message", "declared charset {0} is unknown"),
    QT_TRANSLATE_NOOP("file message", "read as {0}"),
    QT_TRANSLATE_NOOP("file message", "the page contains only whitespace"),
    QT_TRANSLATE_NOOP("file message", "the page could not be parsed: {0}"),
    QT_TRANSLATE_NOOP("file message", "the page has no main text (only markup or navigation)"),
    # PDF (io.extract.pdf_text)
    (QT_TRANSLATE_NOOP("file message", "not a valid PDF file: it is a {0}"), {0: _BINARY_KINDS}),
    QT_TRANSLATE_NOOP("file message", "not a valid PDF file: it has no PDF header"),
    QT_TRANSLATE_NOOP("file message", "not a valid PDF file: {0}"),
    QT_TRANSLATE_NOOP("file message", "the PDF is protected by a password; its text cannot be read"),
    QT_TRANSLATE_NOOP("file message", "the PDF has no pages"),
    QT_TRANSLATE_NOOP("file message", "not a readable PDF: none of its {0} page(s) has text"),
    QT_TRANSLATE_NOOP(
        "file message",
        "no text layer: none of its {0} page(s) has text (a scan or images?); text recognition (OCR) is not done",
    ),
    QT_TRANSLATE_NOOP(
        "file message", "the text layer does not map to readable characters (fonts without a Unicode map)"
    ),
    (
        QT_TRANSLATE_NOOP("file message", "{0} of {1} pages have no text (page {2})"),
        {2: _templates(QT_TRANSLATE_NOOP("file message", "{0} and {1} more"))},
    ),
    QT_TRANSLATE_NOOP("file message", "page {0}: {1}"),
    # Any format (io.extract): after the formats' own, more specific messages
    QT_TRANSLATE_NOOP("file message", "the {0} extractor needs {1}: {2}"),
    QT_TRANSLATE_NOOP("file message", "not a valid .{0} file: {1}"),
    QT_TRANSLATE_NOOP("file message", "no text"),
    # Tables read by the distributed engine (distributed.sources)
    QT_TRANSLATE_NOOP("file message", "no text (null in the table)"),
    QT_TRANSLATE_NOOP("file message", "empty text"),
    # Comparing (core.pipeline)
    QT_TRANSLATE_NOOP("file message", "normalized text shorter than k={0} characters; not compared"),
    # What changed in a file since it was read (io.corpus, the check after a screen)
    QT_TRANSLATE_NOOP("file message", "missing"),
    QT_TRANSLATE_NOOP("file message", "cannot be examined: {0}"),
    QT_TRANSLATE_NOOP("file message", "cannot be read: {0}"),
    QT_TRANSLATE_NOOP("file message", "size {0} -> {1}"),
    QT_TRANSLATE_NOOP("file message", "modification time changed"),
    QT_TRANSLATE_NOOP("file message", "content changed (SHA-256)"),
)

_PART_SEPARATOR = "; "


def file_message_text(message: str) -> str:
    """A file's message (``Document.message``, or what changed in it) in the interface language.

    A message joined from several parts with "; " is said part by part: the parts are grouped so
    that as little text as possible is left unrecognised, and then into as many messages as
    possible (a template's own "; ", or an exception text's, stays inside its part). Unrecognised
    parts, and a message none of whose parts is recognised, come back unchanged; so does every
    message when the interface is in English.
    """
    if not message:
        return message
    parts = message.split(_PART_SEPARATOR)
    # best[i]: (characters left unrecognised, -messages recognised, the parts said) for parts[i:]
    best: list[tuple[int, int, list[str]]] = [(0, 0, [])] * (len(parts) + 1)
    for i in range(len(parts) - 1, -1, -1):
        kept = parts[i]
        rest = best[i + 1]
        choice = (len(kept) + rest[0], rest[1], [kept, *rest[2]])
        for j in range(i + 1, len(parts) + 1):
            said = _say(_PART_SEPARATOR.join(parts[i:j]), _FILE_MESSAGES)
            if said is not None:
                rest = best[j]
                choice = min(choice, (rest[0], rest[1] - 1, [said, *rest[2]]), key=lambda c: c[:2])
        best[i] = choice
    if best[0][1] == 0:
        return message
    # The literal context and comment let lupdate extract it (the comment tells the translator what it is).
    separator = QCoreApplication.translate("file message", "; ", "between the parts of a file's message")
    return separator.join(best[0][2])
