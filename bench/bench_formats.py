"""The same articles as plain text, Word, web pages and PDF: a screen of each, against the text's.

An editor's folders hold manuscripts in Word, saved web pages and PDFs beside plain text. This
writes the first ``--docs`` articles of the synthetic corpus in each format (once, under
``bench/corpora/formats_<docs>``: .docx written by python-docx, a paragraph a line; .html with a
navigation bar around an ``<article>``; .pdf by the tests' writer, a Type0 font with a ToUnicode
map as word processors write Chinese), then screens each folder in its own process
(``screen_folder`` with outputs, no cache, the include pattern of its format) and prints the time,
the time a file, the peak memory and each ratio to the plain-text screen of the same run. The
same candidates are expected from every format; the script says when they differ.

Then the baseline the .docx reading replaced (session 34): python-docx opening each file, timed in
this process against ``io.extract.docx_text.extract`` on the same files (CPU time, best of 3).

    .venv/bin/python bench/bench_formats.py                 # 2,000 articles a format, ~2 min the first time
    .venv/bin/python bench/bench_formats.py --docs 500
"""

from __future__ import annotations

import argparse
import html
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from bench_screen import ensure_corpus  # noqa: E402

FORMATS = ("txt", "docx", "html", "pdf")


def _text(path: Path) -> str:
    data = path.read_bytes()
    for encoding in ("utf-8", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            pass
    return ""


def _docx(text: str) -> bytes:
    import docx

    document = docx.Document()
    for line in text.splitlines():
        document.add_paragraph(line)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _html(text: str) -> bytes:
    body = "".join(f"<p>{html.escape(line)}</p>" for line in text.splitlines() if line.strip())
    nav = "".join(f"<li><a href='#'>{n}</a></li>" for n in ("首页", "新闻中心", "政务公开", "办事服务"))
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>稿件</title></head><body>"
            f"<nav><ul>{nav}</ul></nav><article>{body}</article><footer>版权所有</footer></body></html>")  # fmt: skip
    return page.encode("utf-8")


def _pdf(text: str) -> bytes:
    from test_extract import make_pdf  # the tests' writer (tests/io, on the path in make_folders)

    lines = [text[i : i + 40] for i in range(0, len(text), 40)]
    return make_pdf([lines[i : i + 40] for i in range(0, len(lines), 40)] or [[]])


def make_folders(source: Path, out: Path, docs: int) -> None:
    """Write the first ``docs`` articles of ``source`` in every format under ``out/<format>/``."""
    articles = sorted(source.rglob("*.txt"))[:docs]
    sys.path.insert(0, str(ROOT / "tests" / "io"))  # the PDFs the extractor is tested on
    writers = {"txt": lambda t: t.encode("utf-8"), "docx": _docx, "html": _html, "pdf": _pdf}
    for fmt, write in writers.items():
        folder = out / fmt
        folder.mkdir(parents=True, exist_ok=True)
        for i, path in enumerate(articles):
            (folder / f"{i:05d}.{fmt}").write_bytes(write(_text(path)))


def _child(folder: str, fmt: str, out_dir: str) -> dict:
    import resource

    from neardup_gui.core.records import ScreenParams
    from neardup_gui.tasks import screen_folder

    t = time.perf_counter()
    outcome = screen_folder(folder, ScreenParams(include=(f"*.{fmt}",)), out_dir=out_dir, use_cache=False,
                            with_normalized=False, verify_helper=True, read_helper=True)  # fmt: skip
    seconds = time.perf_counter() - t
    ok = sum(d.status == "ok" for d in outcome.documents)
    stem = {d.doc_id: Path(d.path).stem for d in outcome.documents}
    pairs = sorted(sorted((stem[c.left], stem[c.right])) for c in outcome.candidates)
    return {"seconds": seconds, "ok": ok, "files": len(outcome.documents), "pairs": pairs,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # fmt: skip


def run_child(folder: Path, fmt: str, out_dir: Path) -> dict:
    import shutil

    shutil.rmtree(out_dir, ignore_errors=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, __file__, "--child", str(folder), fmt, str(out_dir)],
                          capture_output=True, text=True, env=env)  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"screening {folder} failed:\n{proc.stderr}")
    shutil.rmtree(out_dir, ignore_errors=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def docx_baseline(folder: Path, files: int = 300, repeat: int = 3) -> tuple[float, float]:
    """ms a file, best of ``repeat``: python-docx opening each .docx, and our extraction of it."""
    import docx

    from neardup_gui.io.extract import docx_text
    from neardup_gui.io.extract.base import ExtractOptions

    datas = [p.read_bytes() for p in sorted(folder.glob("*.docx"))[:files]]

    def best(fn) -> float:
        times = []
        for _ in range(repeat):
            t = time.process_time()
            for data in datas:
                fn(data)
            times.append(time.process_time() - t)
        return 1000 * min(times) / max(1, len(datas))

    return best(lambda d: docx.Document(io.BytesIO(d))), best(lambda d: docx_text.extract(d, ExtractOptions()))


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(_child(sys.argv[2], sys.argv[3], sys.argv[4])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=2000, help="articles written in each format")
    parser.add_argument("--corpora", type=Path, default=HERE / "corpora")
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    args = parser.parse_args()
    source = ensure_corpus(10_000 if args.docs <= 10_000 else 100_000, 7, args.corpora)
    base = args.corpora / f"formats_{args.docs}"
    marker = base / ".complete"
    if not marker.exists():
        print(f"writing {args.docs} articles in {len(FORMATS)} formats into {base} ...", file=sys.stderr)
        t = time.perf_counter()
        make_folders(source, base, args.docs)
        marker.write_text("ok")
        print(f"  written in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    formats = ["txt"] + [f for f in args.formats if f != "txt"]  # the baseline first
    results = {fmt: run_child(base / fmt, fmt, base.parent / f".out_formats_{fmt}") for fmt in formats}
    text = results["txt"]
    print(f"{args.docs} articles a format (screen_folder with outputs, no cache, each in its own process)")
    print(f"{'format':8} {'files ok':>9} {'seconds':>8} {'ms/file':>8} {'peak MB':>8} {'time vs txt':>12} "
          f"{'memory vs txt':>14}  same pairs as txt")  # fmt: skip
    for fmt, r in results.items():
        same = "yes" if r["pairs"] == text["pairs"] else f"NO ({len(r['pairs'])} against {len(text['pairs'])})"
        print(f"{fmt:8} {r['ok']:>9} {r['seconds']:8.2f} {1000 * r['seconds'] / max(1, r['files']):8.2f} "
              f"{r['peak_mb']:8.0f} {r['seconds'] / text['seconds']:11.1f}x {r['peak_mb'] / text['peak_mb']:13.1f}x  "
              f"{same}")  # fmt: skip
    if "docx" in formats:
        theirs, ours = docx_baseline(base / "docx")
        print(f"reading a .docx (CPU, best of 3): python-docx opening it {theirs:.2f} ms, ours extracting its text "
              f"{ours:.2f} ms: {theirs / ours:.0f}x faster")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
