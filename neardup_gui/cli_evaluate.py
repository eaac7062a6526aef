"""``neardup evaluate OUTDIR --labels FILE``: the command-line face of ``tasks.evaluate``.

``neardup_gui.cli`` calls ``add_evaluate_command(subparsers)``. Exit codes: 0 done, 1 failure while
working, 2 refused input (no screen in OUTDIR, bad labels, bad option, session in use, audit too
large without sampling), 130 cancelled. No Qt here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from neardup_gui.core.evaluate import AUDIT_LIMIT, DEFAULT_KS, DEFAULT_THRESHOLDS, AuditTooLargeError, EvaluationReport
from neardup_gui.core.progress import NULL_PROGRESS, Cancelled
from neardup_gui.io.corpus import CorpusError
from neardup_gui.io.labels import LabelsError
from neardup_gui.io.session import SessionInUseError, SessionVersionError
from neardup_gui.cli import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_REFUSED
from neardup_gui.tasks.evaluate import FILES, EvaluationError, evaluate_outdir

__all__ = ["add_evaluate_command", "format_table"]


def _float_list(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None
    if not values or any(not 0.0 < v <= 1.0 for v in values):
        raise argparse.ArgumentTypeError(f"thresholds are Jaccard values in (0, 1], got {text!r}")
    return values


def _int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas, got {text!r}") from None
    if not values or any(not 1 <= v <= 32 for v in values):
        raise argparse.ArgumentTypeError(f"shingle sizes are 1 to 32 characters, got {text!r}")
    return values


def add_evaluate_command(sub: argparse._SubParsersAction) -> None:
    """Add ``evaluate`` to the CLI's subcommands."""
    p = sub.add_parser(
        "evaluate",
        help="compare a screen with labelled pairs: thresholds, recall, LSH misses",
        description="Re-read the folder screened into OUTDIR with the recorded parameters and compare "
        "its candidates with labelled pairs, for each shingle size and threshold. Writes thresholds.csv "
        "and evaluation_pairs.csv into OUTDIR and the table into the session (workbook sheet Thresholds).",
    )
    p.add_argument("outdir", type=Path, help="output folder of `neardup screen`")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--labels", type=Path, metavar="FILE",
                     help="CSV or XLSX with columns left,right,label[,reason,split]; left/right are "
                     "doc_ids or paths relative to the source folder; label 1 = belongs in merge review")  # fmt: skip
    how.add_argument("--from-decisions", action="store_true",
                     help="use the session's review decisions as labels (merge = 1, other statuses = 0)")  # fmt: skip
    p.add_argument("--thresholds", type=_float_list, default=list(DEFAULT_THRESHOLDS),
                   help="Jaccard thresholds, e.g. 0.5,0.7,0.9 (the default)")  # fmt: skip
    p.add_argument("--k", type=_int_list, default=list(DEFAULT_KS),
                   help="shingle sizes; each gets its own shingles, signatures and candidates (default 3,5,7)")  # fmt: skip
    p.add_argument("--audit-misses", action="store_true",
                   help="score every pair of documents exactly and list those LSH did not return")  # fmt: skip
    p.add_argument("--audit-limit", type=int, default=AUDIT_LIMIT,
                   help="most documents audited without sampling (default %(default)s)")  # fmt: skip
    p.add_argument("--audit-sample", type=int, metavar="N", help="audit a random sample of N documents")
    p.add_argument("--group-by", choices=("split", "source"), default="split",
                   help="extra rows per labels split (default) or per source_id family")  # fmt: skip
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_cmd_evaluate)


class _StageLines:
    """Progress as one line per shingle size and audit on stderr."""

    def __init__(self, ks: Sequence[int]) -> None:
        self.ks = list(dict.fromkeys(ks))

    def report(self, stage: str, done: int, total: int) -> None:
        if stage == "evaluate" and done < total:
            print(f"evaluating k={self.ks[done]} ({done + 1} of {total})", file=sys.stderr)
        elif stage == "audit" and done == 0:
            print(f"  auditing all pairs of {total} documents", file=sys.stderr)

    def check(self) -> None:
        pass


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def format_table(report: EvaluationReport) -> str:
    """The threshold table as aligned text (— = empty: no predicted positive, or no positive)."""
    head = ["k", "threshold", "split", "candidates", "TP", "FP", "FN", "precision", "recall", "cand.recall"]
    audited = any(ev.audit is not None for ev in report.per_k)
    if audited:
        head.append("LSH misses")
    lines = [head]
    for r in report.rows:
        cells = [str(r.k), f"{r.threshold:g}", r.split, str(r.candidates), str(r.tp), str(r.fp), str(r.fn),
                 _num(r.precision), _num(r.recall), _num(r.candidate_recall)]  # fmt: skip
        if audited:
            cells.append("" if r.lsh_misses is None else str(r.lsh_misses))
        lines.append(cells)
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.rjust(w) if i != 2 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
                     for row in lines)  # fmt: skip


def _cmd_evaluate(args: argparse.Namespace) -> int:
    if args.audit_sample is not None and args.audit_sample < 2:
        print("neardup: error: --audit-sample needs at least 2 documents", file=sys.stderr)
        return EXIT_REFUSED
    try:
        run = evaluate_outdir(
            args.outdir, labels_file=args.labels, from_decisions=args.from_decisions,
            thresholds=args.thresholds, ks=args.k, audit=args.audit_misses, audit_limit=args.audit_limit,
            audit_sample=args.audit_sample, group_by=args.group_by,
            progress=NULL_PROGRESS if args.quiet else _StageLines(args.k), read_helper=True,
        )  # fmt: skip
    except AuditTooLargeError as exc:
        print(f"neardup: error: {exc} Use --audit-sample N, or raise --audit-limit.", file=sys.stderr)
        return EXIT_REFUSED
    except (EvaluationError, LabelsError, CorpusError, SessionInUseError, SessionVersionError, ValueError) as exc:
        print(f"neardup: error: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except (Cancelled, KeyboardInterrupt):
        print("neardup: cancelled; nothing was written", file=sys.stderr)
        return EXIT_CANCELLED
    except OSError as exc:
        print(f"neardup: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    labels, report = run.labels, run.report
    splits = ", ".join(f"{s} {sum(1 for p in labels.pairs if p.split == s)}" for s in report.splits)
    print(f"labels: {labels.source}: {len(labels.pairs)} pairs ({labels.positives} positive, "
          f"{labels.negatives} negative{'; ' + splits if splits and args.group_by == 'split' else ''})")  # fmt: skip
    print(f"source: {run.source}; LSH {report.per_k[0].bands} bands x {report.per_k[0].rows} rows; "
          "candidates = candidate-stage pairs with Jaccard >= threshold; — = empty (no denominator)")
    print(format_table(report))
    for ev in report.per_k:
        if ev.audit is None:
            continue
        a = ev.audit
        scope = f"a sample of {a.documents} of {a.total_documents}" if a.sampled else f"all {a.documents}"
        print(f"k={ev.k}: miss audit over {scope} documents ({a.pairs_compared:,} pairs): "
              f"{len(a.misses)} pair(s) with Jaccard >= {a.min_threshold:g} not returned by LSH")  # fmt: skip
        by_id = {d.doc_id: d for d in run.documents}
        for m in a.misses[:10]:
            print(f"  {m.jaccard:.3f}  {by_id[m.left].path}  <->  {by_id[m.right].path}")
        if len(a.misses) > 10:
            print(f"  … {len(a.misses) - 10} more in {FILES['misses']}")
    for w in run.warnings:
        print(f"warning: {w}", file=sys.stderr)
    where = "and the session (workbook sheet Thresholds)" if run.stored_in_session else ""
    print("written: " + ", ".join(p.name for p in run.written) + f" in {run.out_dir} {where}".rstrip())
    return EXIT_OK
