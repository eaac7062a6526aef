"""Command line: ``neardup screen SOURCE --out OUTDIR`` and the review commands.

A thin layer over ``neardup_gui.tasks``: parse, call, print. Exit codes: 0 success, 1 failure
during the work, 2 refused input (bad options, missing folder, output inside the source), 130
cancelled by Ctrl-C.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from neardup_gui import __version__
from neardup_gui.core.estimate import ScreenEstimate
from neardup_gui.core.methods.bruteforce import format_duration
from neardup_gui.core.progress import (
    EXPORT_STAGE_LABELS,
    OPEN_ENDED_STAGES,
    STAGE_LABELS,
    STAGES,
    Cancelled,
)
from neardup_gui.core.records import METHODS, NORMALIZE_PRESETS, NormalizeOptions, ScreenParams, TooLarge

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REFUSED = 2
EXIT_CANCELLED = 130
SCREEN_STAGES = frozenset(name for name, _weight in STAGES)


class StderrProgress:
    """Progress on stderr: a redrawn bar in a terminal, plain lines (one per stage step) otherwise.

    A screen's stages fill one bar, with the time left in a terminal (``core.estimate``); any other stage (an export's
    ``workbook`` and ``workbook_check``) fills a bar of its own. A stage reported without a total
    (``list``, or a workbook checked without knowing its size) is counted instead.
    """

    def __init__(self, stream=None, min_interval: float = 0.2) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.min_interval = min_interval
        self._last = 0.0
        self._stage = ""
        self._drawn = 0  # characters of the bar's line on screen
        self._estimate = ScreenEstimate()  # a screen's share and time left (core.estimate)
        self._started: float | None = None  # when the screen's first stage was reported

    def plan(self, seconds: dict[str, float]) -> None:
        """The engine's estimate of some stages' work (``core.estimate.plan_stages``)."""
        self._estimate.plan(seconds)

    def report(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        new_stage = stage != self._stage
        screen_stage = stage in SCREEN_STAGES
        open_ended = stage in OPEN_ENDED_STAGES or (total <= 0 and not screen_stage)  # counts, no total
        finished = done >= total and not open_ended
        if not new_stage and not finished and now - self._last < self.min_interval:
            return
        self._last = now
        label = STAGE_LABELS.get(stage) or EXPORT_STAGE_LABELS.get(stage, stage)
        if not screen_stage:  # an export's stage: its own bar, or a count when its size is unknown
            frac = None if open_ended else min(1.0, done / total)
            counted = f"{done:,} so far" if open_ended else f"{done:,}/{total:,}"
        else:
            if self._started is None:
                self._started = now
            self._estimate.report(stage, done, total)
            frac = self._estimate.share()
            counted = f"{done:,} found" if open_ended else f"{done:,}/{total:,}"
            left = self._estimate.seconds_left(now - self._started)
            if left is not None and self.tty:
                counted += f", about {format_duration(left)} left"
        if self.tty:
            width = 30
            if frac is None:
                line = f"{label}: {counted}"
            else:
                filled = int(width * frac)
                line = f"[{'#' * filled}{'.' * (width - filled)}] {frac:4.0%} {label} {counted}"
            # Spaces over what a longer previous line left on screen.
            self.stream.write(f"\r{line}{' ' * max(3, self._drawn - len(line))}")
            self._drawn = len(line)
            self.stream.flush()
        elif new_stage or finished:
            self.stream.write(f"{label}: {counted}\n" if frac is None else f"{frac:4.0%} {label}: {counted}\n")
        self._stage = stage

    def check(self) -> None:
        pass

    def close(self) -> None:
        if self.tty and self._stage:
            self.stream.write("\n")
            self.stream.flush()
        self._stage = ""
        self._drawn = 0


def _params_from_args(args: argparse.Namespace) -> ScreenParams:
    if args.threshold is not None and (args.bands is not None or args.rows is not None):
        raise ValueError("give either --threshold or --bands with --rows, not both")
    if (args.bands is None) != (args.rows is None):
        raise ValueError("--bands and --rows go together")
    kwargs = dict(
        method=args.method,
        k=args.k,
        num_perm=args.num_perm,
        seed=args.seed,
        bands=args.bands,
        rows=args.rows,
        normalize=NormalizeOptions.preset(args.normalize),
        max_bytes=args.max_bytes,
        containment_threshold=args.containment,
        docx_tables=not args.no_docx_tables,
        docx_headers_footers=args.docx_headers_footers,
        all_scores=args.all_scores,
        scope=args.scope,
        scope_field=args.scope_field,
        scope_patterns=tuple(args.reference),
    )
    if args.threshold is not None:
        kwargs["threshold"] = args.threshold
    if args.include:
        kwargs["include"] = tuple(args.include)
    if args.exclude:
        kwargs["exclude"] = tuple(args.exclude)
    if args.ngram:
        lo, _, hi = args.ngram.partition(",")
        kwargs["ngram_min"], kwargs["ngram_max"] = int(lo), int(hi or lo)
    if args.simhash_distance is not None:
        kwargs["simhash_distance"] = args.simhash_distance
    if args.cluster_limit is not None:
        kwargs["cluster_limit"] = args.cluster_limit
    return ScreenParams(**kwargs)


def _add_screen(sub: argparse._SubParsersAction) -> None:
    d = ScreenParams()
    p = sub.add_parser(
        "screen",
        help="screen a folder for near-duplicates and write the results",
        description="Screen SOURCE (read-only) and write manifest.csv, candidates.csv, run.json, "
        "normalized/ and session.sqlite into OUTDIR. Nothing in SOURCE is ever changed.",
    )
    p.add_argument("source", type=Path, help="folder to screen (never written to)")
    p.add_argument("--out", type=Path, required=True, help="output folder (must not be inside SOURCE)")
    p.add_argument("--method", choices=METHODS, default=d.method, help="candidate method (default %(default)s)")
    p.add_argument("--k", type=int, default=d.k, help="shingle length in characters, 1-32 (default %(default)s)")
    p.add_argument("--num-perm", type=int, default=d.num_perm, help="MinHash permutations (default %(default)s)")
    p.add_argument("--seed", type=int, default=d.seed, help="MinHash seed (default %(default)s)")
    p.add_argument("--threshold", type=float, default=None, help=f"Jaccard threshold 0-1 (default {d.threshold})")
    p.add_argument("--bands", type=int, default=None, help="LSH bands (with --rows) instead of --threshold")
    p.add_argument("--rows", type=int, default=None, help="LSH rows per band (with --bands)")
    p.add_argument(
        "--containment",
        type=float,
        default=d.containment_threshold,
        help="also report pairs where one text lies this much inside the other, 0-1; 0 turns it off "
        "(default %(default)s)",
    )
    p.add_argument("--normalize", choices=NORMALIZE_PRESETS, default="alnum", help="normalization rules")
    p.add_argument(
        "--include",
        nargs="+",
        metavar="GLOB",
        help="file patterns to read (default *.txt *.md); *.docx, *.html/*.htm and *.pdf are read through "
        "their text extractors",
    )
    p.add_argument("--docx-headers-footers", action="store_true", help=".docx: also read page headers and footers")
    p.add_argument("--no-docx-tables", action="store_true", help=".docx: leave out the text of tables")
    p.add_argument("--exclude", nargs="+", metavar="GLOB", help="file patterns to skip")
    p.add_argument("--sidecar", type=Path, help="CSV with path and doc_id/source_id/version columns")
    p.add_argument("--max-bytes", type=int, default=d.max_bytes, help="larger files are listed as too_large")
    p.add_argument("--ngram", help="TF-IDF character n-gram range, e.g. 2,3")
    p.add_argument("--simhash-distance", type=int, help="SimHash Hamming distance threshold")
    p.add_argument(
        "--cluster-limit",
        type=int,
        metavar="N",
        help="in a group of more than N files linked as near copies (one text filled in many times), verify "
        "only each file's closest partners and the links keeping the group connected; 0 verifies every pair "
        f"(default {d.cluster_limit})",
    )
    p.add_argument(
        "--all-scores",
        choices=("auto", "always", "never"),
        default="auto",
        help="also compute TF-IDF cosine and SimHash distance for every pair (auto: for folders up to a few "
        "million characters)",
    )
    p.add_argument(
        "--scope",
        choices=("all", "within", "new_vs_reference", "across"),
        default="all",
        help="which pairs to compare: all; within the same --scope-field; new documents against a reference "
        "archive named by --reference (the archive is not compared with itself); or only across the two sets",
    )
    p.add_argument("--scope-field", default="source_id", help="field for --scope within (source_id, version or a sidecar column)")
    p.add_argument("--reference", nargs="+", metavar="GLOB", default=[], help="patterns naming the reference (or first) set")
    from neardup_gui.distributed import cli as dask_cli

    dask_cli.add_options(p)
    p.add_argument(
        "--no-normalized",
        action="store_true",
        help="do not write normalized/ (one file per document; slow to create for large folders)",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="prepare every file afresh and do not keep OUT/cache/prepare.npz (results are the same; "
        "the cache only lets a rescan skip files whose SHA-256 did not change)",
    )
    p.add_argument(
        "--reread",
        action="store_true",
        help="open and hash every file, also those whose size, times and inode are unchanged since the last "
        "screen into OUT (by default those are not read again and keep the SHA-256 recorded then)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_cmd_screen)


def _cmd_screen(args: argparse.Namespace) -> int:
    from neardup_gui import tasks
    from neardup_gui.io.corpus import CorpusError
    from neardup_gui.io.paths import OutputInsideSourceError, ensure_outside_source
    from neardup_gui.io.prepcache import StoredRowsChanged
    from neardup_gui.io.session import SessionInUseError, SessionVersionError

    try:
        params = _params_from_args(args)
    except ValueError as exc:
        print(f"neardup: error: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    if not args.source.is_dir():
        print(f"neardup: error: source folder not found: {args.source}", file=sys.stderr)
        return EXIT_REFUSED
    try:
        ensure_outside_source(args.out, args.source)
    except OutputInsideSourceError as exc:
        print(f"neardup: error: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    if args.sidecar is not None and not args.sidecar.is_file():
        print(f"neardup: error: sidecar file not found: {args.sidecar}", file=sys.stderr)
        return EXIT_REFUSED
    from neardup_gui.distributed import DistributedRefused, DistributedScreenError
    from neardup_gui.distributed import cli as dask_cli

    progress = None if args.quiet else StderrProgress()

    def say(message: str) -> None:
        if progress is not None:
            progress.close()  # end the progress bar's line first
        print(message, file=sys.stderr)

    try:
        if dask_cli.requested(args):
            outcome = dask_cli.screen(args, params, progress)
        else:
            outcome = tasks.screen_folder(
                args.source,
                params,
                out_dir=args.out,
                sidecar=args.sidecar,
                with_normalized=not args.no_normalized,
                use_cache=not args.no_cache,
                reread=args.reread,
                verify_helper=True,
                read_helper=True,
                **({"progress": progress} if progress else {}),
            )
    except (CorpusError, OutputInsideSourceError, DistributedRefused, SessionInUseError, SessionVersionError,
            TooLarge, StoredRowsChanged) as exc:  # fmt: skip
        say(f"neardup: error: {exc}")
        return EXIT_REFUSED
    except DistributedScreenError as exc:
        say(f"neardup: error: {exc}")
        return EXIT_FAILED
    except (Cancelled, KeyboardInterrupt):
        say("neardup: cancelled; nothing was written")
        return EXIT_CANCELLED
    if progress is not None:
        progress.close()
    run = outcome.run
    ok = run.counts.get("files_ok", 0)
    print(
        f"{run.counts.get('files', 0)} files, {ok} compared, {len(outcome.candidates)} candidate pairs "
        f"(k={params.k}, {run.bands} bands x {run.rows} rows, threshold {params.threshold}); "
        f"results in {outcome.out_dir}"
    )
    skipped = {k[6:]: v for k, v in run.counts.items() if k.startswith("files_") and k != "files_ok" and v}
    if skipped:
        print("not compared: " + ", ".join(f"{v} {k}" for k, v in sorted(skipped.items())) + " (see manifest.csv)")
    reused = run.counts.get("prepared_from_cache", 0)
    if reused:
        print(f"{reused} of {ok} documents unchanged since the last screen here: taken from {outcome.out_dir}/cache")
    unopened = run.counts.get("unchanged_files_not_read", 0)
    if unopened:
        print(f"{unopened} files not opened: size, times and inode as the last screen here recorded them")
    for note in run.notes:
        print(f"note: {note}", file=sys.stderr)
    for path, what in outcome.changed_files:
        print(f"warning: source file changed during the run: {path} ({what})", file=sys.stderr)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neardup",
        description="Find copies, revisions, shared templates and quotations among texts. Candidates only: "
        "the originals are never changed.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_screen(sub)
    from neardup_gui import cli_review

    cli_review.add_review_commands(sub)
    from neardup_gui import cli_evaluate

    cli_evaluate.add_evaluate_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_REFUSED
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("\nneardup: cancelled", file=sys.stderr)
        return EXIT_CANCELLED


if __name__ == "__main__":
    raise SystemExit(main())
