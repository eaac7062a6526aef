"""A folder of long manuscripts: the engine's time and peak memory against the lower bound.

Each manuscript joins ``--chapters`` consecutive articles of the synthetic corpus (~1,500 characters
each: 50 chapters make ~75,000 characters); every tenth gets a revision beside it (a tenth of its
chapters replaced by other articles, one chapter added). About as many characters as a folder
of 100,000 articles held in far fewer, far longer files: what made the boilerplate sample hold
every sampled text's full shingle set (6.4 GB for 2,200 manuscripts until session 23) and what
makes verification align long texts with scattered edits.

Runs ``bench_screen``'s lower bound (read + decode + one pass over every shingle hash) and its
engine (``screen_folder`` from files, warm, no outputs: the stages and the peak memory), each in its
own process, and prints both and their ratio.

    .venv/bin/python bench/bench_long.py --manuscripts 2000     # ~165 million characters, ~80 s
    .venv/bin/python bench/bench_long.py --manuscripts 500
    .venv/bin/python bench/bench_long.py --manuscripts 200 --chapters 14 --drafts 20

With ``--drafts N`` every manuscript is kept as N successive drafts instead (each a few sentences
edited in two chapters from the one before: an editor who keeps every version), so that each
manuscript is a family of N near copies: every pair of a family is verified, and the first
boilerplate sample, which cannot tell a family from a template, takes most of their shingles for
candidates until a second sample drops them (200 manuscripts x 20 drafts of ~20,800 characters:
46.6 s and 1.6 GB in session 34, 20-29 s and 1.3-1.45 GB in session 35).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_screen import ensure_corpus, run_child  # noqa: E402


def _text(path: Path) -> str:
    data = path.read_bytes()
    for encoding in ("utf-8", "gb18030", "utf-16"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            pass
    return ""


def make_manuscripts(source: Path, out: Path, count: int, chapters: int, seed: int = 5) -> int:
    """Write the manuscripts (and their revisions) under ``out``; returns the number of files."""
    articles = sorted(p for p in source.rglob("*.txt"))
    need = count * chapters
    if len(articles) < need:
        raise SystemExit(f"{source} has {len(articles)} articles; {need} are needed")
    rng = random.Random(seed)
    files = 0
    for i in range(count):
        parts = [_text(p) for p in articles[i * chapters : (i + 1) * chapters]]
        folder = out / f"vol{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"ms{i:05d}.txt").write_text("\n\n".join(parts), "utf-8")
        files += 1
        if i % 10 == 0:
            revised = list(parts)
            for _ in range(max(1, chapters // 10)):
                revised[rng.randrange(chapters)] = _text(articles[rng.randrange(len(articles))])
            revised.insert(rng.randrange(chapters), _text(articles[rng.randrange(len(articles))]))
            (folder / f"ms{i:05d}_rev.txt").write_text("\n\n".join(revised), "utf-8")
            files += 1
    return files


def make_drafts(source: Path, out: Path, count: int, chapters: int, drafts: int, seed: int = 2) -> int:
    """Write ``drafts`` successive drafts of each of ``count`` manuscripts under ``out``."""
    articles = sorted(p for p in source.rglob("*.txt"))
    if len(articles) < count * chapters:
        raise SystemExit(f"{source} has {len(articles)} articles; {count * chapters} are needed")
    rng = random.Random(seed)
    for i in range(count):
        current = [_text(p) for p in articles[i * chapters : (i + 1) * chapters]]
        folder = out / f"ms{i:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        for d in range(drafts):
            for _ in range(2):
                c = rng.randrange(chapters)
                at = rng.randrange(max(1, len(current[c]) - 50))
                current[c] = current[c][:at] + "修改" + current[c][at + 20 :]
            (folder / f"draft{d:02d}.txt").write_text("\n\n".join(current), "utf-8")
    return count * drafts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manuscripts", type=int, default=500)
    parser.add_argument("--chapters", type=int, default=50)
    parser.add_argument("--drafts", type=int, default=0, help="N drafts of every manuscript instead of one revision in ten")
    parser.add_argument("--corpora", type=Path, default=HERE / "corpora")
    args = parser.parse_args()
    articles = args.manuscripts * args.chapters
    source = ensure_corpus(10000 if articles <= 10000 else 100000, 7, args.corpora)
    if args.drafts:
        folder = args.corpora / f"drafts_{args.manuscripts}x{args.chapters}x{args.drafts}"
    else:
        folder = args.corpora / f"long_{args.manuscripts}x{args.chapters}"
    marker = folder / ".complete"
    if not marker.exists():
        if args.drafts:
            files = make_drafts(source, folder, args.manuscripts, args.chapters, args.drafts)
        else:
            files = make_manuscripts(source, folder, args.manuscripts, args.chapters)
        marker.write_text(str(files))
    files = int(marker.read_text())
    chars = sum(len(_text(p)) for p in folder.rglob("*.txt"))
    print(f"folder: {folder} ({files} files, {chars:,} characters, {chars // files:,} a file)")
    lower = run_child("lower_bound", folder)
    ours = run_child("engine", folder)
    lb = lower["total"]
    print(f"{'approach':60} {'seconds':>8} {'peak MB':>8} {'ratio':>7}")
    print(f"{'lower bound: read + decode + one pass over shingle hashes':60} {lb:8.2f}")
    print(f"{'engine from files, warm, no outputs (read .. verify, flags)':60} {ours['engine']:8.2f} "
          f"{ours['peak_mb']:8.0f} {ours['engine'] / lb:6.1f}x")  # fmt: skip
    for stage, seconds in ours["stages"].items():
        print(f"    {stage:56} {seconds:8.2f}")
    print(f"candidates: {ours['candidates']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
