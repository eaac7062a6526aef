"""The stages of a distributed screen as a Dask graph, driven from the client.

1. read + decode + normalize + shingle + sign, one task per partition (``stages.prepare_partition``);
   the results stay on the workers, which also write the normalized texts into a staging folder in
   the output folder. The client gathers the manifest rows and two 16-byte digests per document.
2. on the client: exact groups (equal normalized digests; the first in manifest order represents
   the group) and distinct shingle sets (the documents the template index counts).
3. per partition: band keys and containment samples of the representatives, and the two passes of
   the template count (added up by a tree of small tasks).
4. shuffles (Dask dataframes, P2P by default): band keys grouped on the key and paired per bucket;
   containment samples grouped on the hash, paired, and shuffled again on the pair to add up the
   shared samples.
5. on the client: pairs expanded to the members of exact groups, as ``core.pipeline.propose`` does.
6. verification and flags per chunk of pairs (``stages.verify_chunk``), reading only the chunk's
   documents: files are read again on the worker; Parquet texts are joined to the chunks by a shuffle.
7. the source files are re-hashed on the workers (the integrity check).

Progress is reported from the client as tasks finish; ``progress.check()`` is honoured between
completions. A worker that dies is replaced by Dask and its lost results recomputed from the source
(every task is a pure function of its inputs); a task that keeps killing workers ends the run with
``DistributedScreenError``.

No Qt here. Imports Dask: only import it after ``require_dask``.
"""

from __future__ import annotations

import logging
import time
import uuid
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from neardup_gui import __version__
from neardup_gui.core.methods import exact
from neardup_gui.core.methods.minhash_lsh import unique_pairs
from neardup_gui.core.methods.dense import agreement, thin_dense, without
from neardup_gui.core.pipeline import banding, cluster_note, group_pairs_in_scope, scope_mask, sort_candidates
from neardup_gui.core.progress import Progress
from neardup_gui.core.scope import allowed as scope_allowed
from neardup_gui.core.scope import describe as describe_scope
from neardup_gui.core.scope import scope_labels
from neardup_gui.core.records import (
    METHOD_CONTAINMENT,
    METHOD_EXACT,
    METHOD_MINHASH,
    STATUS_NO_SHINGLES,
    Candidate,
    Document,
    ScreenParams,
)
from neardup_gui.distributed import DistributedRefused, DistributedScreenError, sources, stages
from neardup_gui.io.sidecar import check_unique_ids

log = logging.getLogger(__name__)

__all__ = ["Collected", "StageRun", "check_workers"]

_FAN_IN = 8
# Rows per partition after a shuffle. Band keys: 4M rows is ~60 MB. Containment samples: each row
# pairs with up to bucket_cap others, so 1M rows (~16 MB) can still become ~1 GB of pairs in the task.
_BAND_ROWS_PER_PARTITION = 4_000_000
_SAMPLE_ROWS_PER_PARTITION = 1_000_000
_POLL_S = 0.05


def _worker_version() -> str:
    import neardup_gui

    return neardup_gui.__version__


def check_workers(client) -> int:
    """Number of workers, after checking they run this version of neardup_gui."""
    try:
        client.wait_for_workers(1, timeout=60)
    except TimeoutError:
        raise DistributedScreenError("no Dask worker joined the scheduler within 60 s") from None
    versions = set(client.run(_worker_version).values())
    if versions != {__version__}:
        raise DistributedRefused(
            f"the Dask workers run neardup_gui {', '.join(sorted(versions))} but this client runs "
            f"{__version__}; install the same version on the workers"
        )
    return len(client.nthreads())


@dataclass
class Collected:
    """What a run hands back to the client: the final manifest, sorted candidates, counts as
    ``core.pipeline.screen`` gives them, notes, integrity changes, banding, number of workers."""

    documents: list[Document]
    candidates: list[Candidate]
    counts: dict[str, int]
    notes: list[str]
    changed: list[tuple[str, str]]
    bands: int
    rows: int
    workers: int


@contextmanager
def _graph_size_expected():
    # The read tasks carry every file's path and ids (~200 bytes a document) and verification
    # tasks the manifest rows of their pairs: large graphs are the design here, not an accident.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
        yield


class StageRun:
    """One distributed screen on a connected client (the stages as methods, in order)."""

    def __init__(
        self, client, plan: sources.SourcePlan, params: ScreenParams, staging: Path | None, progress: Progress,
        chunk_pairs: int | None,
    ) -> None:  # fmt: skip
        self.client = client
        self.plan = plan
        self.params = params
        self.staging = staging
        self.progress = progress
        self.token = uuid.uuid4().hex[:12]
        self.futures: list = []
        self.chunk_pairs = chunk_pairs

    # -- helpers ----------------------------------------------------------------------------------
    def _keys(self, name: str, n: int) -> list[str]:
        return [f"neardup-{name}-{self.token}-{i}" for i in range(n)]

    def _map(self, func, *iterables, name: str, **kwargs) -> list:
        seqs = [list(it) for it in iterables]
        with _graph_size_expected():
            futures = self.client.map(func, *seqs, key=self._keys(name, len(seqs[0])), pure=False, **kwargs)
        self.futures.extend(futures)
        return futures

    def _submit(self, func, *args, name: str, **kwargs):
        key = f"neardup-{name}-{self.token}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(func, *args, key=key, pure=False, **kwargs)
        self.futures.append(future)
        return future

    def cancel(self) -> None:
        """Stop the run's outstanding tasks (after a failure or a cancel)."""
        pending = [f for f in self.futures if not f.done()]
        if pending:
            try:
                self.client.cancel(pending)
            except Exception:  # the scheduler may be gone already; the run is failing anyway
                log.debug("could not cancel %d Dask tasks", len(pending), exc_info=True)

    def _release(self, futures: list) -> None:
        gone = {id(f) for f in futures}
        self.futures = [f for f in self.futures if id(f) not in gone]
        for f in futures:
            f.release()

    def _tree(self, func, futures: list, name: str):
        """Reduce ``futures`` with ``func`` in a tree of small tasks; the root future."""
        level = list(futures)
        while len(level) > 1:
            below = level
            level = [self._submit(func, *below[i : i + _FAN_IN], name=name) for i in range(0, len(below), _FAN_IN)]
            if below is not futures:
                self._release(below)  # kept by the scheduler until the level above has run
        return level[0]

    def _compute(self, delayed_parts: list) -> list:
        with _graph_size_expected():
            futures = self.client.compute(delayed_parts)
        self.futures.extend(futures)
        return futures

    def _drain(self, futures: list, stage: str, weights: Sequence[int] | None = None, start: int = 0,
               total: int | None = None, fetch: bool = True) -> list:  # fmt: skip
        """Results of ``futures`` in order, reporting progress as they finish.

        With ``fetch=False`` the results stay on the workers (only failures are raised here).
        ``progress.check()`` runs at least every ``_POLL_S`` seconds.
        """
        from distributed import as_completed

        weights = list(weights) if weights is not None else [1] * len(futures)
        total = total if total is not None else start + sum(weights)
        position = {f.key: i for i, f in enumerate(futures)}
        results: list = [None] * len(futures)
        done = start
        self.progress.report(stage, done, total)
        finished = as_completed(futures)
        while not finished.is_empty():
            self.progress.check()
            batch = finished.next_batch(block=False)
            if not batch:
                time.sleep(_POLL_S)  # as_completed has no wait with a timeout; polling keeps cancel prompt
                continue
            failed = [f for f in batch if f.status != "finished"]
            if failed:
                self._result(failed[0])  # raises
            values = self._gather(batch) if fetch else [None] * len(batch)
            for future, value in zip(batch, values):
                i = position[future.key]
                results[i] = value
                done += weights[i]
            self.progress.report(stage, done, total)
        return results

    def _gather(self, futures: list) -> list:
        try:
            return self.client.gather(futures)
        except Exception:
            for future in futures:
                if future.status != "finished":
                    self._result(future)
            raise

    @staticmethod
    def _result(future):
        """The future's result, with cluster failures turned into ``DistributedScreenError``."""
        from distributed import KilledWorker
        from distributed.client import FutureCancelledError

        try:
            return future.result()
        except KilledWorker as exc:
            raise DistributedScreenError(
                f"Dask workers kept dying while running {exc.task!r} (last on {exc.last_worker.address}); "
                "the screen stopped and nothing was written. Check the workers' memory limit and logs."
            ) from None
        except sources.SourceChangedError as exc:
            raise DistributedScreenError(str(exc)) from None
        except FutureCancelledError as exc:
            raise DistributedScreenError(
                f"Dask dropped a task of the screen ({exc}); the screen stopped and nothing was written"
            ) from None
        except (OSError, ConnectionError) as exc:
            if future.status == "error":
                raise
            raise DistributedScreenError(f"lost the Dask scheduler: {exc}") from None

    # -- stages -----------------------------------------------------------------------------------
    def execute(self) -> Collected:
        params = self.params
        bands, rows = banding(params)
        workers = check_workers(self.client)
        preps = self._map(
            stages.prepare_partition,
            self.plan.partitions,
            name="prepare",
            params=params,
            normalized_dir=str(self.staging) if self.staging else None,
        )
        summary_futures = self._map(stages.summarize, preps, name="summary")
        summaries = self._drain(summary_futures, "read", [len(p) for p in self.plan.partitions])
        documents, shingled = self._manifest(summaries)
        self.progress.report("normalize", 1, 1)
        counts: dict[str, int] = {"documents_compared": shingled.n}
        notes: list[str] = []
        candidates: list[Candidate] = []
        if shingled.n >= 2:
            notes.append(
                "TF-IDF cosine and SimHash distance are not computed by the Dask engine; screen in-process "
                "to get them"
            )
            candidates = self._screen(preps, shingled, documents, counts, notes, bands, rows)
        else:
            notes.append("fewer than two usable documents: nothing to compare")
        changed = self._integrity(summary_futures, summaries)
        return Collected(documents, candidates, counts, notes, changed, bands, rows, workers)

    def _manifest(self, summaries: list[stages.PartSummary]) -> tuple[list[Document], Shingled]:
        docs: list[Document | None] = [None] * self.plan.total
        for pos, doc in self.plan.fixed:
            docs[pos] = doc
        for s in summaries:
            for p, d in zip(s.doc_pos.tolist(), s.documents):
                docs[p] = d
        no_sh = set(np.concatenate([s.no_shingles for s in summaries]).tolist()) if summaries else set()
        message = f"normalized text shorter than k={self.params.k} characters; not compared"
        documents = [replace(d, status=STATUS_NO_SHINGLES, message=message) if p in no_sh else d
                     for p, d in enumerate(docs)]  # fmt: skip
        if not self.plan.reads_files:
            try:
                check_unique_ids(documents)
            except Exception as exc:
                raise DistributedRefused(str(exc).replace("sidecar CSV", "table")) from None
        if self.staging is not None:
            self._check_staging(summaries)
        return documents, Shingled.from_summaries(summaries)

    def _check_staging(self, summaries: list[stages.PartSummary]) -> None:
        # Workers write normalized texts into the output folder; on a cluster whose workers do not
        # share the client's file system they would land elsewhere. Look for each partition's files.
        for s in summaries:
            if s.normalized_written:
                written = [d for d in s.documents if d.status == "ok"]
                if written and not (self.staging / f"{written[0].doc_id}.txt").exists():
                    raise DistributedScreenError(
                        f"the workers could not write into {self.staging.parent}: the output folder "
                        "must be on storage the workers share with this machine"
                    )

    def _screen(self, preps, sh: Shingled, documents: list[Document], counts: dict[str, int],
                notes: list[str], bands: int, rows: int) -> list[Candidate]:  # fmt: skip
        params = self.params
        template, counting = self._template(preps, sh)
        band_parts = self._map(stages.band_frame, preps, sh.split(sh.is_rep), name="bands", bands=bands, rows=rows)
        sample_parts = []
        if params.containment_threshold > 0:
            sample_parts = self._map(
                stages.sample_frame, preps, sh.split(sh.is_rep), name="samples", sample=params.containment_sample
            )
        sig_parts = []
        if params.cluster_limit > 0:  # the signatures outlive the shingles, for ``_thin``
            sig_parts = self._map(stages.rep_signatures, preps, sh.split(sh.is_rep), name="repsigs")
        self._drain(band_parts + sample_parts + [template] + sig_parts, "shingle", fetch=False)
        # Everything that needed the shingle arrays has run: free the workers' memory.
        self._release(preps + counting)
        lsh_pairs, capped, cont_pairs, ignored = self._candidates(
            band_parts, sample_parts, int(sh.is_rep.sum()) * bands, sh.shingles // max(1, params.containment_sample)
        )
        aside = None
        if sig_parts:
            lsh_pairs, cont_pairs, aside = self._thin(lsh_pairs, cont_pairs, sh, sig_parts, documents)
            self._release(sig_parts)
        by_method = self._proposals(sh, lsh_pairs, cont_pairs)
        if params.scope != "all":
            left_out = self._apply_scope(by_method, documents)
            counts["left_out_by_scope"] = left_out
            notes.append(f"comparison scope: {describe_scope(params)}; {left_out} proposed pairs left out by it")
        for method, pairs in by_method.items():
            counts[f"proposed_{method}"] = len(pairs)
        counts["capped_buckets"] = capped
        counts["boilerplate_samples_ignored"] = ignored
        if capped:
            notes.append(
                f"{capped} LSH buckets held more than {params.bucket_cap} documents and were "
                "paired around their first member only (likely boilerplate)"
            )
        if aside is not None:
            counts["large_clusters"], counts["clustered_documents"], counts["set_aside_in_large_clusters"] = aside
            notes.append(cluster_note(*aside, params.cluster_limit))
        all_pairs = sorted(set().union(*by_method.values()))
        kept, rejected = self._verify(all_pairs, by_method, sh, documents, template)
        counts["proposed_pairs"] = len(all_pairs)
        counts["rejected_by_verification"] = rejected
        counts["candidates"] = len(kept)
        by_id = {d.doc_id: d for d in documents}
        return sort_candidates(kept, by_id)

    def _template(self, preps, sh: Shingled) -> tuple[object, list]:
        """The corpus-wide template index as a future (it stays on the cluster), and the futures
        of its intermediate counts (to release once it is computed)."""
        params = self.params
        n_distinct = int(sh.is_first.sum())
        min_count = stages.template_min_count(n_distinct)
        if n_distinct < min_count:
            index = self._submit(
                stages.empty_template_index, min_count, n_distinct, params.k, params.normalize, name="template"
            )
            return index, []
        firsts = sh.split(sh.is_first)
        passes = self._map(stages.bucket_counts, preps, firsts, name="buckets")
        totals = self._tree(stages.add_arrays, passes, "bsum")
        heavy = self._submit(stages.heavy_buckets, totals, min_count, name="heavy")
        counted = self._map(stages.template_counts, preps, firsts, name="tcount", heavy=heavy)
        merged = self._tree(stages.merge_counts, counted, "tmerge")
        index = self._submit(
            stages.template_index, merged, min_count, n_distinct, params.k, params.normalize, name="template"
        )
        return index, [*passes, totals, heavy, *counted, merged]

    def _shuffle_partitions(self, rows: int, per_partition: int) -> int:
        return max(len(self.client.nthreads()), -(-rows // per_partition))

    def _candidates(self, band_parts: list, sample_parts: list, band_rows: int, sample_rows: int
                    ) -> tuple[np.ndarray, int, np.ndarray, int]:  # fmt: skip
        """LSH and containment pairs of representatives (positions), capped buckets, ignored samples."""
        import dask
        import dask.dataframe as dd

        params = self.params
        cap = params.bucket_cap
        by_key = dd.from_delayed(band_parts, meta=stages.BAND_META, verify_meta=False).shuffle(
            on="key", npartitions=self._shuffle_partitions(band_rows, _BAND_ROWS_PER_PARTITION)
        )
        tasks = [dask.delayed(stages.lsh_partition_pairs)(part, cap) for part in by_key.to_delayed()]
        n_lsh = len(tasks)
        n_ignored = 0
        if sample_parts:
            nparts = self._shuffle_partitions(sample_rows, _SAMPLE_ROWS_PER_PARTITION)
            by_hash = dd.from_delayed(sample_parts, meta=stages.SAMPLE_META, verify_meta=False).shuffle(
                on="h", npartitions=nparts
            )
            partial = [dask.delayed(stages.containment_partition, nout=2)(part, cap) for part in by_hash.to_delayed()]
            by_pair = dd.from_delayed([p[0] for p in partial], meta=stages.SHARED_META, verify_meta=False).shuffle(
                on=["lo", "hi"], npartitions=nparts
            )
            tasks += [p[1] for p in partial]
            n_ignored = len(partial)
            threshold = params.containment_threshold
            tasks += [dask.delayed(stages.containment_accept)(part, threshold) for part in by_pair.to_delayed()]
        results = self._drain(self._compute(tasks), "candidates")
        lsh_out = results[:n_lsh]
        lsh = [p for p, _ in lsh_out if p.size]
        capped = int(sum(c for _, c in lsh_out))
        ignored = int(sum(results[n_lsh : n_lsh + n_ignored]))
        cont = [p for p in results[n_lsh + n_ignored :] if p.size]
        empty = np.zeros((0, 2), dtype=np.int64)
        return (np.concatenate(lsh) if lsh else empty, capped, np.concatenate(cont) if cont else empty, ignored)

    def _thin(self, lsh: np.ndarray, contained: np.ndarray, sh: Shingled, sig_parts: list, documents: list[Document]
              ) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int] | None]:  # fmt: skip
        """Set aside pairs inside large clusters as ``core.pipeline.propose`` does (the same pairs:
        the same signatures), fetching only the signature rows of those clusters' representatives.

        Returns the pairs of LSH and of the containment index kept, and (large clusters, their
        files, document pairs set aside), or None when nothing was set aside.
        """
        params = self.params
        span = self.plan.total
        pairs = unique_pairs(np.concatenate([lsh, contained]).astype(np.int64).reshape(-1, 2), span)
        members = sh.members()
        multi = np.zeros(span, dtype=bool)
        multi[list(members)] = True

        def expand(a: int, b: int) -> list[tuple[int, int]]:
            return [(min(x, y), max(x, y)) for x, y in exact.pairs_between(members.get(a, [a]), members.get(b, [b]))]

        if params.scope != "all" and pairs.shape[0]:  # closest partners among the pairs in scope
            in_scope = scope_mask([d.doc_id for d in documents], scope_labels(documents, params, self.plan.fields),
                                  params.scope)  # fmt: skip
            several = multi[pairs[:, 0]] | multi[pairs[:, 1]]
            pairs = pairs[group_pairs_in_scope(pairs, several, pairs[~several], in_scope, expand)]
        files = np.bincount(sh.pos[sh.rep_index], minlength=span)
        firsts = [int(sh.pos[lo]) if hi > lo else -1 for lo, hi in sh.bounds]
        lasts = [int(sh.pos[hi - 1]) if hi > lo else -2 for lo, hi in sh.bounds]

        def agreement_of(left: np.ndarray, right: np.ndarray) -> np.ndarray:
            wanted = np.unique(np.concatenate([left, right]))
            parts, asked = [], []
            for part, first, last in zip(sig_parts, firsts, lasts):
                inside = wanted[(wanted >= first) & (wanted <= last)]
                if inside.size:
                    parts.append(self._submit(stages.signature_rows, part, inside, name="sigrows"))
                    asked.append(inside)
            got = self._drain(parts, "candidates")
            self._release(parts)
            order = np.concatenate(asked)
            rows = np.zeros(span, dtype=np.int64)
            rows[order] = np.arange(order.size)
            return agreement(np.concatenate(got), rows, left, right)

        thinned = thin_dense(pairs, span, params.cluster_limit, agreement_of, params.num_perm, files=files)
        if not thinned.set_aside:
            return lsh, contained, None
        dropped = pairs[~thinned.keep]  # sorted, as ``pairs``
        several = multi[dropped[:, 0]] | multi[dropped[:, 1]]
        set_aside = int(np.count_nonzero(~several)) + sum(len(expand(a, b)) for a, b in dropped[several].tolist())
        aside = (thinned.clusters, thinned.documents, set_aside)
        return without(lsh, dropped, span), without(contained, dropped, span), aside

    def _proposals(self, sh: Shingled, lsh_pairs: np.ndarray, cont_pairs: np.ndarray) -> dict[str, set]:
        """Pairs per method in positions, expanded to exact-group members as ``core.pipeline.propose``."""
        members = sh.members()

        def expand(a: int, b: int) -> list[tuple[int, int]]:
            left, right = members.get(a, [a]), members.get(b, [b])
            return [(min(x, y), max(x, y)) for x, y in exact.pairs_between(left, right)]

        by_method: dict[str, set[tuple[int, int]]] = {METHOD_EXACT: set(), METHOD_MINHASH: set()}
        for group in members.values():
            by_method[METHOD_EXACT].update(exact.pairs_within(group))
        span = self.plan.total
        for a, b in unique_pairs(lsh_pairs, span).tolist():
            by_method[METHOD_MINHASH].update(expand(a, b))
        if self.params.containment_threshold > 0:
            by_method[METHOD_CONTAINMENT] = set()
            for a, b in unique_pairs(cont_pairs, span).tolist():
                by_method[METHOD_CONTAINMENT].update(expand(a, b))
        return by_method

    def _apply_scope(self, by_method: dict[str, set], documents: list[Document]) -> int:
        """Drop proposed pairs outside the comparison scope, as ``core.pipeline`` does; how many."""
        labels = scope_labels(documents, self.params, self.plan.fields)
        scope = self.params.scope
        dropped: set[tuple[int, int]] = set()
        for method, pairs in by_method.items():
            outside = {
                (a, b)
                for a, b in pairs
                if not scope_allowed(scope, labels.get(documents[a].doc_id, ""), labels.get(documents[b].doc_id, ""))
            }
            by_method[method] = pairs - outside
            dropped |= outside
        return len(dropped)

    def _chunk_size(self, n_pairs: int) -> int:
        if self.chunk_pairs:
            return self.chunk_pairs
        workers = max(1, len(self.client.nthreads()))
        return int(min(2000, max(64, -(-n_pairs // (4 * workers)))))

    def _verify(self, all_pairs: list[tuple[int, int]], by_method: dict[str, set], sh: Shingled,
                documents: list[Document], template) -> tuple[list[Candidate], int]:  # fmt: skip
        if not all_pairs:
            self.progress.report("verify", 0, 0)
            return [], 0
        size = self._chunk_size(len(all_pairs))
        chunks: list[stages.VerifyChunk] = []
        items = FileItems(self.plan) if self.plan.reads_files else None
        for lo in range(0, len(all_pairs), size):
            block = all_pairs[lo : lo + size]
            positions = sorted({p for pair in block for p in pair})
            methods = tuple(tuple(m for m, s in by_method.items() if pair in s) for pair in block)
            chunks.append(
                stages.VerifyChunk(
                    np.asarray(block, dtype=np.int64),
                    methods,
                    {p: documents[p] for p in positions},
                    {p: sh.rep_of(p) for p in positions},
                    tuple(items.get(p) for p in positions) if items else (),
                    self.plan.partitions[0].max_bytes if items else 0,
                    self.plan.partitions[0].extract if items else None,
                )
            )
        if items is not None:
            texts = [None] * len(chunks)
        else:
            texts = self._parquet_texts(chunks)
        futures = self._map(stages.verify_chunk, chunks, texts, name="verify", params=self.params, template=template)
        results = self._drain(futures, "verify", [len(c.pairs) for c in chunks])
        kept = [cand for got, _ in results for cand in got]
        self.progress.report("flags", len(kept), len(kept))
        return kept, sum(r for _, r in results)

    def _parquet_texts(self, chunks: list[stages.VerifyChunk]) -> list:
        """Per chunk, a future of its documents' texts, joined from the table by a shuffle."""
        import dask.dataframe as dd

        need = pd.DataFrame(
            {
                "pos": np.concatenate([np.fromiter(c.documents, dtype=np.int64) for c in chunks]),
                "chunk": np.concatenate([np.full(len(c.documents), n, dtype=np.int64) for n, c in enumerate(chunks)]),
            }
        )
        wanted = np.unique(need["pos"].to_numpy())
        fetches = []
        for part in self.plan.partitions:
            inside = wanted[(wanted >= part.first_pos) & (wanted < part.first_pos + part.rows)]
            if inside.size:
                fetches.append(self._submit(sources.parquet_texts, part, inside, name="fetch"))
        meta = pd.DataFrame({"pos": np.zeros(0, np.int64), "text": pd.Series([], dtype=object)})
        texts = dd.from_delayed(fetches, meta=meta, verify_meta=False)
        needed = dd.from_pandas(need, npartitions=max(1, min(len(fetches), len(chunks))))
        joined = needed.merge(texts, on="pos", how="inner").set_index(
            "chunk", divisions=list(range(len(chunks) + 1))
        )
        return self._compute(joined.to_delayed())

    def _integrity(self, summary_futures: list, summaries: list[stages.PartSummary]) -> list[tuple[str, str]]:
        """Re-hash the files on the workers, from the manifest rows they already hold."""
        if not self.plan.reads_files:
            return []
        root = str(self.plan.root)
        found = self._drain(
            self._map(stages.integrity_changes, [root] * len(summary_futures), summary_futures, name="integrity"),
            "flags",
            [len(s.documents) for s in summaries],
        )
        return [change for part in found for change in part]

@dataclass
class Shingled:
    """Per shingled document (in manifest order): position, digests, and the groups they form."""

    pos: np.ndarray
    ndigest: np.ndarray
    adigest: np.ndarray
    bounds: list[tuple[int, int]]
    rep_index: np.ndarray
    is_rep: np.ndarray
    is_first: np.ndarray
    shingles: int = 0

    @property
    def n(self) -> int:
        return int(self.pos.size)

    @classmethod
    def from_summaries(cls, summaries: Sequence[stages.PartSummary]) -> Shingled:
        pos = np.concatenate([s.pos for s in summaries]) if summaries else np.zeros(0, np.int64)
        nd = np.concatenate([s.ndigest for s in summaries]) if summaries else np.zeros(0, "S16")
        ad = np.concatenate([s.adigest for s in summaries]) if summaries else np.zeros(0, "S16")
        bounds, start = [], 0
        for s in summaries:
            bounds.append((start, start + s.pos.size))
            start += s.pos.size
        n = pos.size
        if n:
            # The representative of an exact group is its first member in manifest order.
            _, first, inverse = np.unique(nd, return_index=True, return_inverse=True)
            rep_index = first[inverse.reshape(-1)]
            _, afirst = np.unique(ad, return_index=True)
        else:
            rep_index = np.zeros(0, np.int64)
            afirst = np.zeros(0, np.int64)
        is_first = np.zeros(n, dtype=bool)
        is_first[afirst] = True
        total = sum(s.shingles for s in summaries)
        return cls(pos, nd, ad, bounds, rep_index, rep_index == np.arange(n), is_first, total)

    def split(self, mask: np.ndarray) -> list[np.ndarray]:
        """A per-document mask cut into the partitions' slices."""
        return [mask[a:b] for a, b in self.bounds]

    def rep_of(self, pos: int) -> int:
        i = int(np.searchsorted(self.pos, pos))
        return int(self.pos[self.rep_index[i]])

    def members(self) -> dict[int, list[int]]:
        """Representative position -> member positions (ascending), for groups of two or more."""
        counts = np.bincount(self.rep_index, minlength=self.n)
        multi = np.flatnonzero(counts[self.rep_index] > 1)
        out: dict[int, list[int]] = {}
        for i in multi.tolist():  # ascending, so members are in manifest order
            out.setdefault(int(self.pos[self.rep_index[i]]), []).append(int(self.pos[i]))
        return out


class FileItems:
    """pos -> the ``FileItem`` to re-read it, over a plan's file partitions."""

    def __init__(self, plan: sources.SourcePlan) -> None:
        self._parts = plan.partitions
        self._firsts = np.array([p.items[0].pos for p in plan.partitions], dtype=np.int64)
        self._pos = [np.fromiter((it.pos for it in p.items), dtype=np.int64) for p in plan.partitions]

    def get(self, pos: int) -> sources.FileItem:
        k = int(np.searchsorted(self._firsts, pos, side="right")) - 1
        j = int(np.searchsorted(self._pos[k], pos))
        return self._parts[k].items[j]
