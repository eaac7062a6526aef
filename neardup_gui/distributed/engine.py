"""Client side of the distributed screen: plan the source, connect to Dask, write the outputs.

``screen_distributed`` plans the source (``sources``), runs the stages on the cluster
(``run.StageRun``, which drives ``stages`` as a Dask graph) and writes the outputs through
``tasks.write_screen_outputs``: the same manifest.csv, candidates.csv, run.json, normalized/ and
session.sqlite as an in-process screen, all or nothing. The normalized texts are written by the
workers into a staging folder of the output folder and become ``normalized/`` in one rename.

No Qt here. Imports Dask: only import it after ``require_dask``.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from neardup_gui.core.machine import usable_cores
from neardup_gui.core.progress import NULL_PROGRESS, Progress
from neardup_gui.core.records import FILE_STATUSES, METHOD_MINHASH, RunRecord, ScreenParams
from neardup_gui.distributed import DistributedRefused, DistributedScreenError, require_dask, sources
from neardup_gui.distributed.run import Collected, StageRun
from neardup_gui.io.paths import ensure_outside_source
from neardup_gui.tasks.screen import ScreenOutcome, library_versions, manifest_digest, write_screen_outputs

log = logging.getLogger(__name__)

__all__ = ["screen_distributed", "dask_client", "DEFAULT_PARTITION_DOCS"]

DEFAULT_PARTITION_DOCS = sources.DEFAULT_PARTITION_DOCS


def _now() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


def _default_workers() -> int:
    return usable_cores()


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None, memory_limit: str = "auto") -> Iterator:
    """A Dask client: connected to ``scheduler``, or to a new local cluster of ``workers`` processes.

    A local cluster has one thread per worker process, listens on 127.0.0.1 only, and gives each
    worker ``memory_limit`` (Dask's "auto": the machine's memory shared out); past it Dask spills
    results and shuffle buffers to disk.

    Raises:
        DistributedRefused: Both a scheduler and a worker count were given.
        DistributedScreenError: The scheduler cannot be reached or has no worker.
    """
    require_dask()
    from distributed import Client, LocalCluster

    if scheduler and workers:
        raise DistributedRefused("give either a scheduler address or a number of local workers, not both")
    if scheduler:
        try:
            client = Client(scheduler, timeout="30s")
        except (OSError, TimeoutError) as exc:
            raise DistributedScreenError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        try:
            yield client
        finally:
            client.close()
        return
    # The P2P shuffle logs every shuffle it starts at WARNING level; that is not news for our users.
    logging.getLogger("distributed.shuffle._scheduler_plugin").setLevel(logging.ERROR)
    n = workers or _default_workers()
    with warnings.catch_warnings():
        # Without a dashboard the scheduler still serves /health on 127.0.0.1 (port 8787, or any
        # free port when another cluster has it, with a warning that is not news either).
        warnings.filterwarnings("ignore", message="Port 8787 is already in use", category=UserWarning)
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit=memory_limit,
        )
    with cluster, Client(cluster) as client:
        yield client


def _plan(source: Path | str, params: ScreenParams, files_from: Path | str | None, parquet: Path | str | None,
          sidecar: Path | str | None, partition_docs: int, progress: Progress) -> sources.SourcePlan:  # fmt: skip
    if files_from is not None and parquet is not None:
        raise DistributedRefused("give either a file list or a Parquet table, not both")
    side = Path(sidecar) if sidecar else None
    if parquet is not None:
        if side is not None:
            raise DistributedRefused("a sidecar CSV applies to files; a Parquet table carries its own doc_id column")
        return sources.plan_parquet(source, parquet, params, partition_docs=partition_docs)
    if files_from is not None:
        return sources.plan_file_list(source, files_from, params, sidecar=side, partition_docs=partition_docs)
    return sources.plan_folder(source, params, sidecar=side, partition_docs=partition_docs, progress=progress)


def screen_distributed(
    source: Path | str,
    params: ScreenParams | None = None,
    *,
    out_dir: Path | str | None = None,
    files_from: Path | str | None = None,
    parquet: Path | str | None = None,
    sidecar: Path | str | None = None,
    client=None,
    scheduler: str | None = None,
    workers: int | None = None,
    partition_docs: int = DEFAULT_PARTITION_DOCS,
    chunk_pairs: int | None = None,
    with_normalized: bool = True,
    progress: Progress = NULL_PROGRESS,
) -> ScreenOutcome:
    """Screen on a Dask cluster; the same outcome and output files as ``tasks.screen_folder``.

    Args:
        source: The source folder (never written to). With ``files_from`` the listed files'
            folder; with ``parquet`` the folder the table's ``path`` column refers to. It is
            recorded as the run's source.
        params: Screening parameters (defaults when None); only the ``minhash`` method.
        out_dir: If given, outputs are written there (refused inside ``source``). The workers
            write the normalized texts into it, so it must be on storage they share.
        files_from: A text file listing the files to screen, one a line.
        parquet: A Parquet file or folder with ``doc_id``/``path`` and ``text`` columns.
        sidecar: Optional CSV giving doc_id / source_id / version per relative path (files only).
        client: A connected ``distributed.Client`` to use (it is left open).
        scheduler: Address of a Dask scheduler to connect to (when no client is given).
        workers: Number of local worker processes (when neither client nor scheduler is given;
            default: one per CPU).
        partition_docs: Documents per read partition.
        chunk_pairs: Candidate pairs per verification task (default: about four tasks per worker).
        with_normalized: Write ``normalized/`` (the workers write one file per document).
        progress: Stage, counts and cancellation, reported from this process.

    Returns:
        The outcome; its ``texts`` is empty (texts stay on the workers; the review reads them again).

    Raises:
        DaskUnavailable: Dask or pyarrow is not installed.
        DistributedRefused: Options that cannot work together, workers of another version.
        DistributedScreenError: The run failed on the cluster; nothing was written.
        CorpusError, OutputInsideSourceError: As ``tasks.screen_folder``.
        Cancelled: The user cancelled; nothing was written.
    """
    require_dask()
    params = params or ScreenParams()
    if params.method != METHOD_MINHASH:
        raise DistributedRefused(
            f"the Dask engine runs the minhash method (with exact groups and containment); "
            f"method {params.method!r} runs in-process only"
        )
    if params.all_scores == "always":
        raise DistributedRefused(
            "TF-IDF cosine and SimHash distance for every pair need the whole corpus's n-gram statistics "
            "in one process: run them in-process (or choose all scores 'auto' or 'never')"
        )
    started = _now()
    plan = _plan(source, params, files_from, parquet, sidecar, partition_docs, progress)
    if plan.total >= 2**31:
        raise DistributedRefused("the Dask engine numbers documents with 32 bits: at most 2,147,483,647 per screen")
    out_path = ensure_outside_source(Path(out_dir), plan.root) if out_dir is not None else None
    staging: Path | None = None
    created_out = False
    if out_path is not None:
        created_out = not out_path.exists()
        out_path.mkdir(parents=True, exist_ok=True)
        if with_normalized:
            # Not a name io.outputs clears as a leftover when the session is opened for writing.
            staging = out_path / f".dask-normalized-{uuid.uuid4().hex[:12]}"
            staging.mkdir()
    try:
        with _client_for(client, scheduler, workers) as dclient:
            run = StageRun(dclient, plan, params, staging, progress, chunk_pairs)
            try:
                collected = run.execute()
            except BaseException:
                run.cancel()
                raise
            finally:
                run.futures.clear()
        outcome = _outcome(plan, params, collected, started, out_path)
        if out_path is not None:
            progress.check()  # a cancel that arrived during the last stage still stops before any write
            _write_outputs(outcome, out_path, staging)
        return outcome
    finally:
        # After a failure: the staged texts go, and so does an output folder this run created.
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
        if created_out and out_path is not None and out_path.is_dir() and not any(out_path.iterdir()):
            out_path.rmdir()


def _write_outputs(outcome: ScreenOutcome, out_path: Path, staged: Path | None) -> None:
    """``tasks.write_screen_outputs``; the workers' folder becomes ``normalized/`` inside its
    all-or-nothing switch (one rename), or the "not written" note when there is none."""
    if staged is None:
        from neardup_gui.tasks.screen import _normalized_skipped

        write_screen_outputs(outcome, out_path, _normalized_skipped)
    else:
        write_screen_outputs(outcome, out_path, lambda folder: os.replace(staged, folder))


@contextmanager
def _client_for(client, scheduler: str | None, workers: int | None) -> Iterator:
    if client is not None:
        if scheduler or workers:
            raise DistributedRefused("a client was given: no scheduler address or worker count goes with it")
        yield client
        return
    with dask_client(scheduler, workers) as made:
        yield made


def _engine_versions(workers: int) -> dict[str, str]:
    from importlib import metadata

    out = library_versions()
    for name in ("dask", "distributed", "pyarrow"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    out["engine"] = f"dask ({workers} workers)"
    return out


def _outcome(plan: sources.SourcePlan, params: ScreenParams, got: Collected, started: str,
             out_path: Path | None) -> ScreenOutcome:  # fmt: skip
    """The run record and outcome, as ``tasks.screen_folder`` builds them."""
    documents = tuple(got.documents)
    counts: dict[str, int] = {f"files_{s}": 0 for s in FILE_STATUSES}
    for d in documents:
        counts[f"files_{d.status}"] = counts.get(f"files_{d.status}", 0) + 1
    counts["files"] = len(documents)
    counts.update(got.counts)
    notes = list(got.notes)
    changed = tuple(got.changed)
    if changed:
        notes.append(f"{len(changed)} source file(s) changed during the run; their results may be out of date")
    if plan.reads_files:
        integrity = "unchanged" if not changed else "changed: " + "; ".join(f"{p} ({w})" for p, w in changed)
    else:
        integrity = f"not checked: the texts came from the {plan.description}"
    run = RunRecord(
        run_id=datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ"),
        source=str(plan.root),
        params=params.to_dict(),
        bands=got.bands,
        rows=got.rows,
        versions=_engine_versions(got.workers),
        manifest_digest=manifest_digest(documents),
        counts=counts,
        started=started,
        finished=_now(),
        integrity=integrity,
        changed_files=tuple(p for p, _ in changed),
        normalization=params.normalize.describe(),
        notes=tuple(notes),
    )
    return ScreenOutcome(
        source=plan.root,
        params=params,
        documents=documents,
        texts={},
        candidates=tuple(got.candidates),
        run=run,
        out_dir=out_path,
        changed_files=changed,
    )
