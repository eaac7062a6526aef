"""Review commands of the command line: ``decide``, ``arbitrate``, ``export`` and ``verify``.

``neardup_gui.cli`` calls ``add_review_commands(subparsers)``; each subcommand sets ``func``
(``func(args) -> int``). OUTDIR is a screen's output folder holding ``session.sqlite``. Pairs are
named by doc_id or by path relative to the source folder (as in the manifest).

Exit codes (as in ``cli``): 0 done; 1 the workbook changed since signing; 2 refused (unknown
document, bad option, session in use, unreadable workbook).

No Qt here.
"""

from __future__ import annotations

import argparse
import functools
import os
import sqlite3
import sys
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from neardup_gui.tasks import CSV_NAMES
from neardup_gui.core.records import (
    REVIEW_PENDING_ARBITRATION,
    REVIEW_STATUSES,
    Arbitration,
    Decision,
    Document,
)
from neardup_gui.io.session import (
    SESSION_FILENAME,
    ReviewSession,
    SessionInUseError,
    SessionReadOnlyError,
    SessionVersionError,
)

EXIT_OK = 0
EXIT_CHANGED = 1
EXIT_REFUSED = 2


class _Refused(Exception):
    """Bad input: print the message and exit with EXIT_REFUSED."""


def _error(message: str) -> int:
    print(f"neardup: error: {message}", file=sys.stderr)
    return EXIT_REFUSED


def _open_session(outdir: Path, read_only: bool = False) -> ReviewSession:
    path = Path(outdir) / SESSION_FILENAME
    if not path.is_file():
        raise _Refused(f"no review session in {outdir} (expected {path}; run `neardup screen` first)")
    return ReviewSession.open(path, read_only=read_only)


def _key(text: str) -> str:
    text = unicodedata.normalize("NFC", text.replace("\\", "/"))
    while text.startswith("./"):
        text = text[2:]
    return text


def resolve_document(session: ReviewSession, name: str) -> Document:
    """Find a document of the latest run by doc_id, relative path or absolute path.

    Raises:
        _Refused: No run, or no document matches.
    """
    run_id = session.latest_run_id()
    if run_id is None:
        raise _Refused(f"{session.path} holds no screening run")
    documents = session.documents(run_id)
    for doc in documents:
        if doc.doc_id == name:
            return doc
    wanted = _key(name)
    source = session.run(run_id).source
    if source and os.path.isabs(name):
        try:
            wanted = _key(os.path.relpath(name, source))
        except ValueError:  # another drive on Windows
            pass
    for doc in documents:
        if _key(doc.path) == wanted:
            return doc
    raise _Refused(
        f"no document {name!r} in run {run_id}: give a doc_id or a path relative to the source "
        f"folder as listed in the manifest (e.g. {documents[0].path!r})"
        if documents
        else f"no document {name!r}: run {run_id} lists no files"
    )


def _pair(session: ReviewSession, args: argparse.Namespace) -> tuple[Document, Document]:
    left, right = resolve_document(session, args.left), resolve_document(session, args.right)
    if left.doc_id == right.doc_id:
        raise _Refused("--left and --right name the same document")
    return left, right


def _guarded(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn expected failures into a message on stderr and exit code 2."""

    @functools.wraps(func)
    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except (_Refused, SessionInUseError, SessionReadOnlyError, SessionVersionError,
                ValueError, sqlite3.DatabaseError) as exc:  # fmt: skip
            return _error(str(exc))
        except OSError as exc:
            return _error(str(exc))

    return run


@_guarded
def cmd_decide(args: argparse.Namespace) -> int:
    """Record one reviewer's decision on a pair (one committed transaction)."""
    with _open_session(args.outdir) as session:
        left, right = _pair(session, args)
        stored = session.add_decision(
            Decision(
                left=left.doc_id, right=right.doc_id, status=args.status, reviewer=args.reviewer,
                time=args.time or "", reason=args.reason, retained=args.retained or "",
                related_source=args.related_source, original_source=args.original_source,
                author=args.author, reprint_permission=args.reprint_permission,
            )
        )  # fmt: skip
        state = session.pair_state(stored.left, stored.right)
        in_run = (stored.left, stored.right) in {c.key for c in session.candidates()}
    docs = {left.doc_id: left, right.doc_id: right}
    print(
        f"saved: {docs[stored.left].path} <-> {docs[stored.right].path}: {stored.status} by "
        f"{stored.reviewer} at {stored.time}; the pair is now {state.status}"
    )
    if state.status == REVIEW_PENDING_ARBITRATION:
        print("note: reviewers disagree on this pair; record the final word with `neardup arbitrate`")
    if not in_run:
        print("note: this pair is not a candidate of the latest run", file=sys.stderr)
    return EXIT_OK


@_guarded
def cmd_arbitrate(args: argparse.Namespace) -> int:
    """Record an arbitration: the final status of a pair whose reviewers disagreed."""
    with _open_session(args.outdir) as session:
        left, right = _pair(session, args)
        before = session.pair_state(left.doc_id, right.doc_id)
        stored = session.add_arbitration(
            Arbitration(left.doc_id, right.doc_id, args.arbitrator, args.status, args.reason,
                        args.time or "")  # fmt: skip
        )
        state = session.pair_state(stored.left, stored.right)
    print(
        f"saved: arbitration by {stored.arbitrator} at {stored.time}: {stored.status}; "
        f"the pair is now {state.status} ({len(state.decisions)} reviewer opinions kept)"
    )
    if before.status != REVIEW_PENDING_ARBITRATION:
        print(f"note: the pair was {before.status}, not pending arbitration", file=sys.stderr)
    return EXIT_OK


@_guarded
def cmd_export(args: argparse.Namespace) -> int:
    """Write the signed workbook and/or the CSV files of a session."""
    from neardup_gui.cli import StderrProgress
    from neardup_gui.tasks import ExportRefused, export_review

    # An archive's workbook takes minutes: its rows written, then checked, on stderr.
    progress = None if args.quiet else StderrProgress()
    try:
        result = export_review(
            args.outdir,
            xlsx=args.xlsx,
            csv_dir=args.csv,
            signed_by=args.signed_by,
            run_id=args.run,
            language=args.language,
            with_texts=not args.no_texts,
            **({"progress": progress} if progress else {}),
        )
    except ExportRefused as exc:
        raise _Refused(str(exc)) from None
    finally:
        if progress is not None:
            progress.close()  # end the bar's line before any message
    if result.unreadable:
        print(
            f"note: {len(result.unreadable)} files could not be re-read unchanged from the source folder; "
            "their excerpts are given as offsets",
            file=sys.stderr,
        )
    summary = result.workbook
    if summary is not None:
        print(
            f"wrote {args.xlsx}: {summary.counts['candidates']} candidates, "
            f"{summary.counts['decisions']} decisions, {summary.counts['arbitrations']} "
            f"arbitrations; signed by {summary.signed_by} at {summary.signed_at}; "
            f"digest {summary.digest}"
        )
        from neardup_gui.io.workbook import SHEET_ROWS

        for name, more in summary.continued.items():
            print(f"note: the {name} table goes on over {len(more)} more sheet(s), {', '.join(more)}: "
                  f"a sheet holds at most {SHEET_ROWS:,} rows")  # fmt: skip
    if result.csv_counts:
        n, m, k = result.csv_counts.values()
        print(f"wrote {n} candidates, {m} review records and {k} id mappings as CSV in {args.csv}")
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    """Check whether a signed workbook is unchanged since it was signed."""
    from neardup_gui.io.workbook import verify_workbook

    if not Path(args.workbook).is_file():
        return _error(f"no such file: {args.workbook}")
    from neardup_gui.cli import StderrProgress

    progress = None if args.quiet else StderrProgress()
    try:
        result = verify_workbook(Path(args.workbook), **({"progress": progress} if progress else {}))
    finally:
        if progress is not None:
            progress.close()
    if not result.readable:
        return _error(result.message)
    print(result.message, file=sys.stdout if result.ok else sys.stderr)
    return EXIT_OK if result.ok else EXIT_CHANGED


def add_review_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register ``decide``, ``arbitrate``, ``export`` and ``verify`` on a subparsers object."""
    conclusions = [s for s in REVIEW_STATUSES if s != REVIEW_PENDING_ARBITRATION]

    def pair_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("outdir", type=Path, metavar="OUTDIR", help="screen output folder")
        p.add_argument("--left", required=True, metavar="PATH|DOC_ID", help="first document")
        p.add_argument("--right", required=True, metavar="PATH|DOC_ID", help="second document")
        p.add_argument("--reason", default="", help="why (free text)")
        p.add_argument("--time", help="ISO 8601 time with zone (default: now)")

    p = subparsers.add_parser(
        "decide", help="record a review decision on a pair",
        description="Append one reviewer's decision to the session's history. A different "
        "opinion from a second reviewer puts the pair in pending_arbitration.",
    )  # fmt: skip
    pair_options(p)
    p.add_argument("--status", required=True, choices=REVIEW_STATUSES)
    p.add_argument("--reviewer", required=True, help="your name")
    p.add_argument("--retained", choices=("left", "right", "both"), help="version kept as the entry")
    p.add_argument("--related-source", default="", help="related source notes")
    p.add_argument("--original-source", default="", help="original source (出处)")
    p.add_argument("--author", default="", help="author")
    p.add_argument("--reprint-permission", default="", help="reprint permission (转载授权)")
    p.set_defaults(func=cmd_decide)

    p = subparsers.add_parser(
        "arbitrate", help="record the final word on a disputed pair",
        description="Store an arbitration beside the reviewers' opinions (which are kept).",
    )  # fmt: skip
    pair_options(p)
    p.add_argument("--status", required=True, choices=conclusions)
    p.add_argument("--arbitrator", required=True, help="your name")
    p.set_defaults(func=cmd_arbitrate)

    p = subparsers.add_parser(
        "export", help="write the signed Excel workbook and/or CSV files",
        description="Export a session: --xlsx writes the signed audit workbook, --csv writes "
        f"{', '.join(CSV_NAMES.values())} (UTF-8 with BOM).",
    )  # fmt: skip
    p.add_argument("outdir", type=Path, metavar="OUTDIR", help="screen output folder")
    p.add_argument("--xlsx", type=Path, metavar="FILE", help="workbook to write")
    p.add_argument("--csv", type=Path, metavar="DIR", help="folder for the CSV files")
    p.add_argument("--signed-by", required=True, metavar="NAME", help="who signs the export")
    p.add_argument("--run", metavar="RUN_ID", help="which run (default: the latest)")
    p.add_argument("--language", choices=("en", "zh"), default="en", help="headings and notes")
    p.add_argument("--no-texts", action="store_true",
                   help="do not re-read the source files for excerpts (give offsets)")  # fmt: skip
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=cmd_export)

    p = subparsers.add_parser(
        "verify", help="check a signed workbook is unchanged",
        description="Recompute the workbook's digest. Exit 0 when unchanged since signing, 1 when "
        "a sheet differs (named), 2 when the file is not a readable signed workbook.",
    )  # fmt: skip
    p.add_argument("workbook", type=Path, metavar="WORKBOOK.xlsx")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=cmd_verify)


def main(argv: Sequence[str] | None = None) -> int:
    """Run only the review commands (``python -m neardup_gui.cli_review ...``)."""
    parser = argparse.ArgumentParser(prog="neardup")
    add_review_commands(parser.add_subparsers(dest="command", metavar="COMMAND", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
