"""The ``neardup screen`` options of the Dask engine, and the call they make.

``neardup_gui.cli`` adds these options to its ``screen`` command (``add_options``) and hands the
screen over here when any of them asks for Dask (``requested`` / ``screen``). Importing this module
does not import Dask.

No Qt here.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import ScreenParams
from neardup_gui.distributed import INSTALL_HINT, DistributedRefused

__all__ = ["add_options", "requested", "screen"]

_DASK_ONLY = ("scheduler", "workers", "files_from", "parquet")


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--engine``, ``--scheduler``, ``--workers``, ``--files-from`` and ``--parquet``."""
    group = parser.add_argument_group("Dask engine", f"screen on a Dask cluster (needs: {INSTALL_HINT})")
    group.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="run the screen in this process (local, the default) or on a Dask cluster",
    )
    group.add_argument(
        "--scheduler", metavar="ADDRESS", help="Dask scheduler to use, e.g. tcp://10.0.0.5:8786 (default: a local cluster)"
    )
    group.add_argument(
        "--workers", type=int, metavar="N", help="worker processes of the local cluster (default: one per CPU)"
    )
    group.add_argument(
        "--files-from",
        type=Path,
        metavar="LIST",
        help="screen the files listed in LIST (UTF-8, one path a line, absolute or relative to SOURCE)",
    )
    group.add_argument(
        "--parquet",
        type=Path,
        metavar="TABLE",
        help="screen the texts of a Parquet file or folder with doc_id, path and text columns "
        "(SOURCE: the folder its paths refer to)",
    )


def requested(args: argparse.Namespace) -> bool:
    """True when the command line asks for the Dask engine or one of its options."""
    return getattr(args, "engine", "local") == "dask" or any(getattr(args, n, None) is not None for n in _DASK_ONLY)


def screen(args: argparse.Namespace, params: ScreenParams, progress: Progress | None = None):
    """Run ``neardup screen`` on Dask with the parsed options.

    Raises:
        DistributedRefused: Dask options without ``--engine dask``, conflicting options, Dask not
            installed (the message says how to install it).
        DistributedScreenError: The run failed on the cluster.
    """
    given = [f"--{n.replace('_', '-')}" for n in _DASK_ONLY if getattr(args, n, None) is not None]
    if args.engine != "dask":
        raise DistributedRefused(f"{', '.join(given)} need --engine dask")
    if args.scheduler and args.workers:
        raise DistributedRefused("give either --scheduler or --workers, not both")
    if args.workers is not None and args.workers < 1:
        raise DistributedRefused("--workers must be at least 1")
    for option, path in (("--files-from", args.files_from), ("--parquet", args.parquet)):
        if path is not None and not Path(path).exists():
            raise DistributedRefused(f"{option}: not found: {path}")
    from neardup_gui.distributed import screen_distributed

    return screen_distributed(
        args.source,
        params,
        out_dir=args.out,
        files_from=args.files_from,
        parquet=args.parquet,
        sidecar=args.sidecar,
        scheduler=args.scheduler,
        workers=args.workers,
        with_normalized=not getattr(args, "no_normalized", False),
        progress=progress or NULL_PROGRESS,
    )
