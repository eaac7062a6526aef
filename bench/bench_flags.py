"""Time the per-pair "passages and flags" work: pair_diff, annotate and TemplateIndex.build.

    python bench/bench_flags.py                       # screen bench/corpora/zh_10000_7 (made once)
    python bench/bench_flags.py --docs 2000           # a smaller generated corpus
    python bench/bench_flags.py --folder some/folder  # any folder of texts

Builds the realistic input once with the engine's own stages (read the folder, ``prepare``,
``propose``, ``verify_pairs``), then times, over every kept candidate pair:

- ``pair_diff`` with the pre-computed normalizations (as ``verify_pairs`` calls it);
- ``flags.annotate`` with the pair's diff, hashes and the corpus template index (as
  ``pipeline.annotate_candidates`` calls it), and inside it ``revision_evidence`` alone;
- ``TemplateIndex.build`` over all documents' hash arrays (best of ``--repeat``).

Prints ms per pair and totals, and with ``--json`` one JSON line for scripts. Times are CPU time of
this process (``time.process_time``; every timed call is single-threaded), the best of ``--repeat``
runs: on the shared 2-core machine wall-clock time mostly measures the other jobs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))


def build_input(folder: Path) -> dict:
    """Read the folder and run the stages up to verification; returns what the timed calls need."""
    from neardup_gui.core.normalize import normalize
    from neardup_gui.core.pipeline import prepare, propose
    from neardup_gui.core.records import ScreenParams
    from neardup_gui.core.verify import verify_pairs
    from neardup_gui.io.corpus import scan_folder

    params = ScreenParams()
    t = time.perf_counter()
    loaded = scan_folder(folder, workers=2)
    texts = loaded.texts
    by_id = {d.doc_id: d for d in loaded.documents}
    usable = [d.doc_id for d in loaded.usable()]
    prepared = prepare(usable, texts, params)
    proposals = propose(prepared, params)
    kept, _rejected, diffs = verify_pairs(prepared, proposals, by_id, texts, params)
    norms = {}
    for c in kept:
        for d in (c.left, c.right):
            if d not in norms:
                norms[d] = normalize(texts[d], params.normalize)
    print(
        f"input: {len(usable)} documents, {len(kept)} kept pairs, built in {time.perf_counter() - t:.1f} s",
        file=sys.stderr,
    )
    return {"params": params, "texts": texts, "prepared": prepared, "kept": kept, "diffs": diffs, "norms": norms}


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def measure(data: dict, repeat: int) -> dict:
    """Best-of-``repeat`` seconds of each stage over all kept pairs."""
    from neardup_gui.core import flags as flagmod
    from neardup_gui.core.diffspans import pair_diff
    from neardup_gui.core.flags.revision import revision_evidence

    params, texts, prepared, kept, norms = (data[k] for k in ("params", "texts", "prepared", "kept", "norms"))
    pairs = [(c, texts[c.left], texts[c.right], norms[c.left], norms[c.right]) for c in kept]
    index = {d: i for i, d in enumerate(prepared.doc_ids)}
    diffs: list = []

    def run_diffs() -> None:
        diffs.clear()
        for _c, lt, rt, ln, rn in pairs:
            diffs.append(pair_diff(lt, rt, params.normalize, min_len=params.k, left_norm=ln, right_norm=rn))

    template_holder: list = []

    def run_template() -> None:
        template_holder[:] = [flagmod.TemplateIndex.build(prepared.hashes, k=params.k, options=params.normalize)]

    def run_annotate() -> None:
        template = template_holder[0]
        for (c, lt, rt, _ln, _rn), diff in zip(pairs, diffs):
            flagmod.annotate(
                c,
                lt,
                rt,
                diff,
                left_hashes=prepared.hashes[index[c.left]],
                right_hashes=prepared.hashes[index[c.right]],
                template=template,
                containment_threshold=params.containment_threshold,
            )

    def run_revision() -> None:
        for (_c, lt, rt, _ln, _rn), diff in zip(pairs, diffs):
            revision_evidence(lt, rt, diff)

    out = {"pairs": len(pairs), "documents": len(prepared.hashes)}
    out["pair_diff_s"] = _best(run_diffs, repeat)
    out["template_build_s"] = _best(run_template, repeat)
    out["annotate_s"] = _best(run_annotate, repeat)
    out["revision_s"] = _best(run_revision, repeat)
    n = max(1, len(pairs))
    for key in ("pair_diff", "annotate", "revision"):
        out[f"{key}_ms_per_pair"] = 1000 * out[f"{key}_s"] / n
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=10000, help="documents of the generated corpus (default 10000)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--folder", type=Path, help="screen this folder instead of a generated corpus")
    ap.add_argument("--repeat", type=int, default=3, help="runs per stage; the best is reported")
    ap.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = ap.parse_args(argv)
    if args.folder is not None:
        folder = args.folder
    else:
        from bench_screen import ensure_corpus

        folder = ensure_corpus(args.docs, args.seed, HERE / "corpora")
    res = measure(build_input(folder), args.repeat)
    print(f"{res['documents']} documents, {res['pairs']} kept pairs (best of {args.repeat})")
    print(f"  pair_diff            {res['pair_diff_ms_per_pair']:7.3f} ms/pair  {res['pair_diff_s']:7.3f} s")
    print(f"  annotate             {res['annotate_ms_per_pair']:7.3f} ms/pair  {res['annotate_s']:7.3f} s")
    print(f"    revision_evidence  {res['revision_ms_per_pair']:7.3f} ms/pair  {res['revision_s']:7.3f} s")
    print(f"  TemplateIndex.build                  {res['template_build_s']:7.3f} s")
    if args.json:
        print(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
