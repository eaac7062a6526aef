"""What a similarity score hides: revision, template, quotation and containment flags for a pair.

- ``revision_evidence``: changed numbers, dates, units, negations and conditions (``revision``);
- ``TemplateIndex`` / ``template_evidence``: boilerplate shared across the corpus (``template``);
- ``quotation_evidence`` / ``contained_evidence``: the shape of the overlap (``overlap``);
- ``annotate``: all of them on one ``Candidate``, with a suggested review status (``annotate``).

Word lists live in ``lexicon``; number and date reading in ``tokens``. Spans are raw code-point
offsets, end exclusive; an insertion is a zero-length span on the side that lacks the text.

Pure Python + numpy: never imports Qt or ``neardup_gui.io``.
"""

from neardup_gui.core.flags.annotate import FLAG_ORDER, OWNED_FLAGS, annotate, suggestion_for
from neardup_gui.core.flags.overlap import (
    NOTE_LEFT_INSIDE,
    NOTE_RIGHT_INSIDE,
    contained_evidence,
    quotation_evidence,
    quote_spans,
)
from neardup_gui.core.flags.revision import REVISION_ORDER, revision_evidence
from neardup_gui.core.flags.template import BoilerplatePassage, TemplateIndex, template_evidence

__all__ = [
    "BoilerplatePassage",
    "FLAG_ORDER",
    "NOTE_LEFT_INSIDE",
    "NOTE_RIGHT_INSIDE",
    "OWNED_FLAGS",
    "REVISION_ORDER",
    "TemplateIndex",
    "annotate",
    "contained_evidence",
    "quotation_evidence",
    "quote_spans",
    "revision_evidence",
    "suggestion_for",
    "template_evidence",
]
