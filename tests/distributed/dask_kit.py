"""Helpers of the Dask engine tests: parameters, a corpus that exercises every corpus-wide choice,
and a worker plugin that makes a worker process die the way a crashed or killed one does."""

from __future__ import annotations

import os
import random
import sys
from contextlib import contextmanager
from pathlib import Path

from neardup_gui.core.records import ScreenParams

# TF-IDF and SimHash scores for every pair are in-process only; compare the rest.
PARAMS = ScreenParams(all_scores="never")
# A small bucket cap, so the tricky corpus caps LSH buckets and ignores boilerplate samples.
TRICKY_PARAMS = ScreenParams(all_scores="never", bucket_cap=3)


def write_tricky_corpus(root: Path) -> None:
    """A corpus that exercises every corpus-wide choice of the engine.

    - 14 documents under one long shared header (boilerplate for the template index and the
      containment samples held by more than ``bucket_cap`` documents);
    - a document, 4 exact copies of it (an exact group of 5) and 7 light edits (LSH buckets far
      over a cap of 3: stars around the first member), plus an excerpt of it;
    - a document and an excerpt of it (found by the containment index only);
    - 12 exact copies of another document (66 pairs: reported as a star);
    - unrelated documents, a text shorter than k, an empty file and a binary file.
    """
    rng = random.Random(5)

    def text(n: int) -> str:
        return "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(n))

    def write(rel: str, content: str | bytes) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")

    header = text(400)
    for i in range(14):
        write(f"通知/n{i:02d}.txt", header + "\n" + text(150))
    base = text(1500)
    write("稿件/base.txt", base)
    for i in range(4):
        write(f"转载/copy{i}.txt", base)
    for i in range(7):
        chars = list(base)
        for p in rng.sample(range(len(chars)), 15):
            chars[p] = chr(0x4E00 + rng.randrange(3000))
        write(f"修订/edit{i}.txt", "".join(chars))
    write("摘录/excerpt.txt", base[300:800])
    solo = text(1200)
    write("稿件/solo.txt", solo)
    write("摘录/solo_part.txt", solo[100:500])
    other = text(900)
    for i in range(12):
        write(f"复制/c{i:02d}.txt", other)
    for i in range(20):
        write(f"其他/u{i:02d}.txt", text(800))
    write("其他/short.txt", "短文")
    write("其他/empty.txt", "")
    write("其他/blob.txt", bytes(range(256)) * 4)



class KillWorker:
    """Worker plugin: the worker process exits at once (no clean-up, as after SIGKILL) when a task
    whose key starts with ``prefix`` starts executing. With a ``marker`` file only the first such
    task anywhere kills its worker (the file records it); without one, every such task does."""

    name = "neardup-test-kill-worker"

    def __init__(self, prefix: str, marker: str | None = None) -> None:
        self.prefix = prefix
        self.marker = marker

    def setup(self, worker) -> None:
        pass

    def teardown(self, worker) -> None:
        pass

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish != "executing" or not (isinstance(key, str) and key.startswith(self.prefix)):
            return
        if self.marker is not None:
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
        os._exit(1)


@contextmanager
def killing_workers(client, prefix: str, marker: Path | None = None):
    """Install ``KillWorker`` on every worker (and on the ones the nannies start again) meanwhile."""
    import cloudpickle
    from distributed import WorkerPlugin

    # The workers cannot import this test module: ship the plugin class by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    plugin_type = type("KillWorkerPlugin", (KillWorker, WorkerPlugin), {"__module__": __name__})
    plugin = plugin_type(prefix, str(marker) if marker is not None else None)
    client.register_plugin(plugin, name=KillWorker.name)
    try:
        yield
    finally:
        client.unregister_worker_plugin(KillWorker.name)
        client.wait_for_workers(2, timeout=60)


def _set_allowed_failures(dask_scheduler, n: int) -> int:
    before = dask_scheduler.allowed_failures
    dask_scheduler.allowed_failures = n
    return before


@contextmanager
def failures_allowed(client, n: int):
    """Meanwhile the scheduler gives up on a task after its worker died ``n + 1`` times."""
    before = client.run_on_scheduler(_set_allowed_failures, n=n)
    try:
        yield
    finally:
        client.run_on_scheduler(_set_allowed_failures, n=before)
