"""Plain records passed between the stages of the engine, the stores and the views.

Frozen dataclasses only: no behaviour beyond small derived properties, no I/O.
Must not import Qt, pandas or anything under ``neardup_gui.io``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any

# ---------------------------------------------------------------------------
# File statuses (manifest). Every file found gets exactly one.
STATUS_OK = "ok"
STATUS_EMPTY = "empty"
STATUS_BINARY = "binary"
STATUS_UNDECODABLE = "undecodable"
STATUS_UNREADABLE = "unreadable"
STATUS_TOO_LARGE = "too_large"
STATUS_NO_SHINGLES = "no_shingles"
STATUS_SKIPPED_LINK = "skipped_link"
STATUS_EXCLUDED = "excluded"
STATUS_NO_TEXT_LAYER = "no_text_layer"  # a PDF without a text layer (scanned); no OCR is done
FILE_STATUSES = (
    STATUS_OK,
    STATUS_EMPTY,
    STATUS_BINARY,
    STATUS_UNDECODABLE,
    STATUS_UNREADABLE,
    STATUS_TOO_LARGE,
    STATUS_NO_SHINGLES,
    STATUS_SKIPPED_LINK,
    STATUS_EXCLUDED,
    STATUS_NO_TEXT_LAYER,
)

# ---------------------------------------------------------------------------
# Candidate flags (what a score hides).
FLAG_EXACT_NORMALIZED = "exact_normalized"
FLAG_EXACT_BYTES = "exact_bytes"
FLAG_CONTAINED = "contained"
FLAG_NUMBER_CHANGED = "number_changed"
FLAG_DATE_CHANGED = "date_changed"
FLAG_UNIT_CHANGED = "unit_changed"
FLAG_NEGATION_CHANGED = "negation_changed"
FLAG_CONDITION_CHANGED = "condition_changed"
FLAG_TEMPLATE_ONLY = "template_only"
FLAG_QUOTATION = "quotation"
REVISION_FLAGS = (
    FLAG_NUMBER_CHANGED,
    FLAG_DATE_CHANGED,
    FLAG_UNIT_CHANGED,
    FLAG_NEGATION_CHANGED,
    FLAG_CONDITION_CHANGED,
)

# ---------------------------------------------------------------------------
# Review statuses (the seed's vocabulary; never an action on files).
REVIEW_PENDING = "pending"
REVIEW_KEEP_BOTH = "keep_both"
REVIEW_SUGGEST_MERGE = "suggest_merge_entry"
REVIEW_PUBLIC_QUOTATION = "public_quotation"
REVIEW_VALID_REVISION = "valid_revision"
REVIEW_PENDING_ARBITRATION = "pending_arbitration"
REVIEW_STATUSES = (
    REVIEW_PENDING,
    REVIEW_KEEP_BOTH,
    REVIEW_SUGGEST_MERGE,
    REVIEW_PUBLIC_QUOTATION,
    REVIEW_VALID_REVISION,
    REVIEW_PENDING_ARBITRATION,
)

# Methods the engine offers.
METHOD_MINHASH = "minhash"
METHOD_EXACT = "exact"
METHOD_CONTAINMENT = "containment"
METHOD_JACCARD = "jaccard"
METHOD_TFIDF = "tfidf"
METHOD_SIMHASH = "simhash"
METHODS = (METHOD_MINHASH, METHOD_EXACT, METHOD_JACCARD, METHOD_TFIDF, METHOD_SIMHASH)

NORMALIZE_PRESETS = ("alnum", "punct", "whitespace")


TOO_LONG = "time"
TOO_MUCH_MEMORY = "memory"


class TooLarge(ValueError):
    """A method would take longer, or need more memory, than this folder on this machine allows
    (exact Jaccard on every pair, a TF-IDF model); the message says how much, and what to choose
    instead. Raised before the work starts: a refusal, not a failure.

    The message is English (the command line's); a caller that speaks another language says it
    from the attributes.

    Attributes:
        what: ``TOO_LONG`` (``need`` and ``limit`` in seconds: the estimate and the longest
            allowed) or ``TOO_MUCH_MEMORY`` (in bytes: the estimated peak and what the machine
            has available); "" when not given.
        method: The method refused (``METHODS``), or "" for every pair's TF-IDF and SimHash scores.
        documents: How many documents the estimate counted.
        chars: Their characters (0 when the estimate did not count them).
    """

    def __init__(
        self,
        message: str,
        *,
        what: str = "",
        method: str = "",
        documents: int = 0,
        chars: int = 0,
        need: float = 0.0,
        limit: float = 0.0,
    ) -> None:
        super().__init__(message)
        self.what, self.method, self.documents, self.chars = what, method, documents, chars
        self.need, self.limit = need, limit

    def detached(self) -> TooLarge:
        """The same refusal without the traceback and context it was raised with (their frames hold
        whatever the raising code held), to hand to another thread."""
        return TooLarge(str(self), what=self.what, method=self.method, documents=self.documents, chars=self.chars,
                        need=self.need, limit=self.limit)  # fmt: skip


@dataclass(frozen=True, slots=True, weakref_slot=True)
class Document:
    """One file found in the source folder (a manifest row).

    Slotted: 136 bytes a document instead of ~460 with a ``__dict__`` (~33 MB at 100,000 files,
    held by every screen and by the window while a result is shown).

    Attributes:
        doc_id: Stable identifier derived from the relative path (or given by the sidecar CSV).
        source_id: Where the text came from; default the first subfolder.
        version: Version label; default ``v1``.
        path: Path relative to the source folder, ``/`` separators.
        size: Size in bytes.
        mtime: Modification time, seconds since the epoch (UTC).
        sha256: Hex SHA-256 of the file's bytes ("" when unreadable).
        encoding: Encoding the text was decoded with ("" when not decoded).
        chars: Number of code points of the decoded text.
        status: One of ``FILE_STATUSES``.
        message: Human-readable explanation of the status.
        extractor: How the text was obtained ("text" for plain files).
    """

    doc_id: str
    source_id: str
    version: str
    path: str
    size: int
    mtime: float
    sha256: str
    encoding: str
    chars: int
    status: str
    message: str = ""
    extractor: str = "text"

    @property
    def usable(self) -> bool:
        return self.status == STATUS_OK


def document(
    doc_id: str,
    source_id: str,
    version: str,
    path: str,
    size: int,
    mtime: float,
    sha256: str,
    encoding: str,
    chars: int,
    status: str,
    message: str = "",
    extractor: str = "text",
) -> Document:
    """``Document(...)``, the same object, made by setting each slot through its descriptor
    instead of through the frozen class's ``__init__``, which sets each field through
    ``object.__setattr__``: ~0.75 against 1.3 µs a document, ~0.05 s for each 100,000-file scan
    and for each reading of a session's manifest. Kept in step with ``Document``'s fields (and
    its lack of a ``__post_init__``) by a test."""
    made = _new_object(Document)
    _set_doc_id(made, doc_id)
    _set_source_id(made, source_id)
    _set_version(made, version)
    _set_path(made, path)
    _set_size(made, size)
    _set_mtime(made, mtime)
    _set_sha256(made, sha256)
    _set_encoding(made, encoding)
    _set_chars(made, chars)
    _set_status(made, status)
    _set_message(made, message)
    _set_extractor(made, extractor)
    return made


_new_object = object.__new__
_set_attribute = object.__setattr__
# Each field's slot set directly (what the frozen class's ``__init__`` does through ``object.__setattr__``).
(_set_doc_id, _set_source_id, _set_version, _set_path, _set_size, _set_mtime, _set_sha256, _set_encoding, _set_chars,
 _set_status, _set_message, _set_extractor) = (getattr(Document, f.name).__set__ for f in fields(Document))  # fmt: skip


def candidate_with(candidate: Candidate, **changes: Any) -> Candidate:
    """``dataclasses.replace(candidate, **changes)``, the same object, made by copying its
    ``__dict__`` (``replace`` builds every field's keyword and sets each through the frozen
    class's ``__init__``: ~20 us a candidate, 0.7 s for the 38,000 pairs of a folder of drafts,
    against ~1 us). Only for fields of ``Candidate``, which has no ``__post_init__`` (tested)."""
    values = dict(candidate.__dict__)
    for name in changes:
        if name not in values:
            raise TypeError(f"Candidate has no field {name!r}")
    values.update(changes)
    made = _new_object(Candidate)
    _set_attribute(made, "__dict__", values)
    return made


@dataclass(frozen=True)
class NormalizeOptions:
    """How raw text becomes the normalized text that is shingled.

    Attributes:
        nfkc: Apply Unicode NFKC (full-width to half-width, compatibility forms).
        case: ``casefold``, ``lower`` or ``none``.
        keep: ``alnum`` keeps letters and digits only (seed default); ``punct`` drops whitespace
            and invisible characters but keeps punctuation; ``whitespace`` drops whitespace only.
    """

    nfkc: bool = True
    case: str = "casefold"
    keep: str = "alnum"

    @classmethod
    def preset(cls, name: str) -> NormalizeOptions:
        if name == "alnum":
            return cls(True, "casefold", "alnum")
        if name == "punct":
            return cls(True, "casefold", "punct")
        if name == "whitespace":
            return cls(True, "lower", "whitespace")
        raise ValueError(f"unknown normalization preset {name!r}; choose one of {NORMALIZE_PRESETS}")

    def describe(self) -> str:
        parts = ["NFKC" if self.nfkc else "no NFKC", self.case if self.case != "none" else "case kept"]
        parts.append(
            {
                "alnum": "keep letters and digits only",
                "punct": "drop whitespace and invisible characters, keep punctuation",
                "whitespace": "drop whitespace only",
            }[self.keep]
        )
        return "; ".join(parts)


@dataclass(frozen=True)
class ScreenParams:
    """Every parameter that changes what a screen finds. Hashable: it keys caches and runs.

    Attributes:
        method: One of ``METHODS``; ``minhash`` is the default.
        k: Shingle length in characters (1..32).
        num_perm: MinHash permutations.
        seed: Seed of the MinHash permutations (datasketch-compatible).
        threshold: The score a verified pair must reach, in (0, 1] (a share, not a percent): exact
            Jaccard for the ``minhash`` and ``jaccard`` methods, TF-IDF cosine for ``tfidf``. It also
            sets the LSH banding when bands and rows are not given.
        bands, rows: Explicit LSH banding; when None, datasketch's optimal choice for threshold.
        containment_threshold: Containment |A∩B|/|A| in [0, 1] that also makes a pair a candidate;
            0 disables the containment index.
        containment_sample: One shingle in this many (chosen by hash, so consistently across
            documents) enters the containment index.
        normalize: Normalization rules.
        include, exclude: Glob patterns on relative paths.
        max_bytes: Files larger than this get status ``too_large``.
        bucket_cap: LSH buckets larger than this are paired as a star, not all pairs.
        cluster_limit: A group of more than this many files linked by proposed pairs (one text
            filled in or copied many times) is verified sparsely: each file's closest partners and
            the links keeping the group connected (``core.methods.dense``); 0 verifies every pair.
        ngram_min, ngram_max: Character n-gram range of the TF-IDF method.
        simhash_distance: Maximum Hamming distance of the SimHash method.
        docx_tables: Read the text of tables in .docx files (row by row).
        docx_headers_footers: Read page headers and footers of .docx files (off: they repeat the
            same letterhead in every manuscript).
        all_scores: Compute TF-IDF cosine and SimHash distance for every pair whatever the method:
            ``auto`` (for folders up to a few million characters), ``always`` or ``never``.
        scope: Which pairs may be compared (``core.scope``): ``all``, ``within`` (same value of
            ``scope_field``), ``new_vs_reference`` or ``across`` (sets given by ``scope_patterns``).
        scope_field: Field for ``within``: ``source_id``, ``version`` or a sidecar CSV column.
        scope_patterns: Glob patterns on relative paths naming the reference (or first) set.
    """

    method: str = METHOD_MINHASH
    k: int = 5
    num_perm: int = 128
    seed: int = 1
    threshold: float = 0.5
    bands: int | None = None
    rows: int | None = None
    containment_threshold: float = 0.8
    containment_sample: int = 16
    normalize: NormalizeOptions = field(default_factory=NormalizeOptions)
    include: tuple[str, ...] = ("*.txt", "*.md")
    exclude: tuple[str, ...] = ()
    max_bytes: int = 20 * 1024 * 1024
    bucket_cap: int = 200
    cluster_limit: int = 50
    ngram_min: int = 2
    ngram_max: int = 3
    simhash_distance: int = 3
    docx_tables: bool = True
    docx_headers_footers: bool = False
    all_scores: str = "auto"
    scope: str = "all"
    scope_field: str = "source_id"
    scope_patterns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; choose one of {', '.join(METHODS)}")
        if not 1 <= self.k <= 32:
            raise ValueError(f"k must be between 1 and 32 characters, got {self.k}")
        if self.num_perm < 2:
            raise ValueError("num_perm must be at least 2")
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold is a Jaccard value in (0, 1], got {self.threshold}")
        if (self.bands is None) != (self.rows is None):
            raise ValueError("give both bands and rows, or neither")
        if self.bands is not None and self.rows is not None:
            if self.bands < 1 or self.rows < 1:
                raise ValueError("bands and rows must be positive")
            if self.bands * self.rows > self.num_perm:
                raise ValueError(
                    f"bands x rows = {self.bands * self.rows} exceeds num_perm = {self.num_perm}"
                )
        if not 0.0 <= self.containment_threshold <= 1.0:
            raise ValueError("containment_threshold is a share in [0, 1]")
        if self.containment_sample < 1:
            raise ValueError("containment_sample must be at least 1")
        if self.ngram_min < 1 or self.ngram_max < self.ngram_min:
            raise ValueError("n-gram range must satisfy 1 <= min <= max")
        if self.scope not in ("all", "within", "new_vs_reference", "across"):
            raise ValueError("scope is one of all, within, new_vs_reference, across")
        if self.scope in ("new_vs_reference", "across") and not self.scope_patterns:
            raise ValueError(f"scope {self.scope} needs patterns naming the reference set")
        if self.all_scores not in ("auto", "always", "never"):
            raise ValueError("all_scores is one of auto, always, never")
        if self.cluster_limit < 0:
            raise ValueError("cluster_limit must be 0 (verify every pair) or more")
        if not 0 <= self.simhash_distance <= 64:
            raise ValueError("simhash_distance must be between 0 and 64 bits")

    def with_(self, **changes: Any) -> ScreenParams:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, NormalizeOptions):
                value = {"nfkc": value.nfkc, "case": value.case, "keep": value.keep}
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScreenParams:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        if isinstance(kwargs.get("normalize"), dict):
            kwargs["normalize"] = NormalizeOptions(**kwargs["normalize"])
        elif isinstance(kwargs.get("normalize"), str):
            kwargs["normalize"] = NormalizeOptions.preset(kwargs["normalize"])
        for name in ("include", "exclude", "scope_patterns"):
            if name in kwargs:
                kwargs[name] = tuple(kwargs[name])
        return cls(**kwargs)


@dataclass(frozen=True, slots=True)
class Segment:
    """A passage shared by both texts, as code-point offsets into each raw text (end exclusive)."""

    left_start: int
    left_end: int
    right_start: int
    right_end: int


@dataclass(frozen=True)
class FlagEvidence:
    """Why a flag was raised: the raw spans on each side (code-point offsets, end exclusive)."""

    flag: str
    left_spans: tuple[tuple[int, int], ...] = ()
    right_spans: tuple[tuple[int, int], ...] = ()
    note: str = ""


def shared_strings(texts: Iterable[str], table: dict[str, str]) -> tuple[str, ...]:
    """``tuple(texts)``, each string replaced by the equal one already in ``table`` (added there
    when new): for a candidate's methods, flags and shared-shingle sample, with one table for the
    candidates made or read together. A cluster of near copies repeats the same few strings in
    every one of its pairs, each a string object of its own otherwise (the sample alone was 1.9 KB
    a pair: 20,000 filled-in copies of one template gave 452,774 pairs). Not ``sys.intern``: some
    Pythons (the first releases of 3.12, free-threaded builds) never free an interned string."""
    texts = texts if isinstance(texts, (list, tuple)) else list(texts)
    return tuple(map(table.setdefault, texts, texts))  # in C: twice as fast as a generator


class SharedWhereRepeated:
    """``shared_strings`` where the strings repeat, plain tuples where they do not.

    Called with each candidate's shared-shingle sample in turn: the first ``PROBE`` of every
    ``BLOCK`` samples are looked up in the table; the rest of the block is too when at least half of
    those strings were held already (a cluster of near copies, each sample the template's), and is
    left as it is otherwise. Looking up ~20 mostly distinct strings a pair took 0.05-0.1 s of the
    0.33 s of reading back 8,800 pairs at 100,000 files, and saved nothing."""

    BLOCK = 512
    PROBE = 32

    def __init__(self) -> None:
        self.table: dict[str, str] = {}
        self._calls = self._probed = self._new = 0
        self._sharing = True

    def __call__(self, texts: Iterable[str]) -> tuple[str, ...]:
        at = self._calls % self.BLOCK
        self._calls += 1
        if at >= self.PROBE:
            return shared_strings(texts, self.table) if self._sharing else tuple(texts)
        held = len(self.table)
        out = shared_strings(texts, self.table)
        self._probed += len(out)
        self._new += len(self.table) - held
        if at == self.PROBE - 1:
            self._sharing = 2 * self._new <= self._probed
            self._probed = self._new = 0
        return out


@dataclass(frozen=True)
class Candidate:
    """A verified pair of documents. ``left`` sorts before ``right`` by path.

    Scores are shares in [0, 1] unless noted. ``containment_left`` is |L∩R|/|L| (how much of the
    left document lies in the right one), ``containment_right`` is |L∩R|/|R|.
    """

    left: str
    right: str
    methods: tuple[str, ...]
    jaccard: float
    containment_left: float
    containment_right: float
    minhash_estimate: float | None
    shared_shingles: int
    shingles_left: int
    shingles_right: int
    length_ratio: float
    score: float
    flags: tuple[str, ...] = ()
    shared_sample: tuple[str, ...] = ()
    segments: tuple[Segment, ...] = ()
    evidence: tuple[FlagEvidence, ...] = ()
    tfidf_cosine: float | None = None
    simhash_distance: int | None = None
    suggestion: str = REVIEW_PENDING

    @property
    def key(self) -> tuple[str, str]:
        return (self.left, self.right)

    @property
    def containment_max(self) -> float:
        return max(self.containment_left, self.containment_right)


@dataclass(frozen=True)
class Decision:
    """One reviewer's opinion on one pair. Decisions are history: never updated, only added.

    Attributes:
        left, right: doc_ids of the pair (same order as the candidate).
        status: One of ``REVIEW_STATUSES``.
        reviewer: Who decided.
        time: ISO 8601 with time zone.
        reason: Free text.
        retained: ``left``, ``right``, ``both`` or "".
        related_source: Original source / author / reprint permission notes.
        left_sha256, right_sha256: File hashes the decision was made on (stale when they change).
    """

    left: str
    right: str
    status: str
    reviewer: str
    time: str
    reason: str = ""
    retained: str = ""
    related_source: str = ""
    original_source: str = ""
    author: str = ""
    reprint_permission: str = ""
    left_sha256: str = ""
    right_sha256: str = ""


@dataclass(frozen=True)
class Arbitration:
    """The final word on a pair whose reviewers disagreed, stored beside their opinions."""

    left: str
    right: str
    arbitrator: str
    status: str
    reason: str
    time: str


@dataclass(frozen=True)
class RunRecord:
    """What a screen did, enough to reproduce and audit it.

    Attributes:
        run_id: Unique id of the run (UTC start time plus a short digest).
        source: Absolute path of the source folder.
        params: ``ScreenParams.to_dict()``.
        bands, rows: The LSH banding actually used.
        versions: Program, Python and library versions.
        manifest_digest: SHA-256 over the manifest rows (doc_id, path, size, sha256, status).
        counts: Files per status, candidates per method, pairs proposed and verified, ...
        started, finished: ISO 8601 with time zone.
        integrity: ``unchanged`` or a description of files that changed during the run.
        changed_files: Relative paths whose size, mtime or SHA-256 changed during the run.
        normalization: Human-readable normalization rules.
        notes: Warnings worth showing (capped buckets, scope exclusions, ...).
    """

    run_id: str
    source: str
    params: dict[str, Any]
    bands: int
    rows: int
    versions: dict[str, str]
    manifest_digest: str
    counts: dict[str, int]
    started: str
    finished: str
    integrity: str = "unchecked"
    changed_files: tuple[str, ...] = ()
    normalization: str = ""
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["changed_files"] = list(self.changed_files)
        out["notes"] = list(self.notes)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["changed_files"] = tuple(kwargs.get("changed_files", ()))
        kwargs["notes"] = tuple(kwargs.get("notes", ()))
        return cls(**kwargs)
