#!/usr/bin/env bash
# Build the desktop bundle with PyInstaller (packaging/neardup_gui.spec), then smoke-test it:
#   1. `neardup --version` prints the program version;
#   2. `neardup --capture` screens the bundled sample offscreen (English, then Chinese) and saves
#      a PNG of the window (exit 0) — resources, translations and Qt plugins are in the bundle;
#   3. a capture of a generated folder large enough for the compiled (numba) MinHash kernel, which
#      must write its cache to the app-data folder, not inside the bundle.
# Prints the bundle size and the time of each step. Nothing outside dist/ and build/ is written
# (the smoke tests use a temporary app-data folder).
# Usage: scripts/build_bundle.sh [--skip-build] [--archive] [--no-numba]
#   --skip-build  only smoke-test dist/neardup as it is
#   --archive     also write dist/neardup-<version>-<os>-<arch>.tar.gz
#   --no-numba    leave numba and LLVM out (~175 MB smaller; MinHash signatures use numpy)
# Environment: VENV (default .venv), DIST (default dist).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
DIST=${DIST:-dist}
PY="$VENV/bin/python"
build=1
archive=0
numba=1
for arg in "$@"; do
    case "$arg" in
        --skip-build) build=0 ;;
        --archive) archive=1 ;;
        --no-numba) numba=0 ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done

step() { echo "== $*" >&2; }
now() { date +%s; }
fail() { echo "build_bundle: FAILED: $*" >&2; exit 1; }

[[ -x "$PY" ]] || bash scripts/bootstrap.sh
version=$("$PY" -c 'import neardup_gui; print(neardup_gui.__version__)')
ls resources/translations/*.qm >/dev/null 2>&1 || fail "no compiled translations (run scripts/update_translations.sh)"

if [[ $build -eq 1 ]]; then
    if ! "$PY" -c 'import PyInstaller' 2>/dev/null; then
        step "installing PyInstaller (the packaging extra)"
        "$PY" -m pip install -q --disable-pip-version-check "pyinstaller>=6.10"
    fi
    step "building $DIST/neardup with PyInstaller $("$PY" -c 'import PyInstaller; print(PyInstaller.__version__)')"
    t0=$(now)
    NEARDUP_BUNDLE_NO_NUMBA=$(( 1 - numba )) "$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
        --distpath "$DIST" --workpath build/pyinstaller packaging/neardup_gui.spec
    echo "build: $(( $(now) - t0 )) s" >&2
fi

exe="$DIST/neardup/neardup"
[[ -x "$exe" ]] || fail "no program at $exe"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export QT_QPA_PLATFORM=offscreen NEARDUP_GUI_DATA_DIR="$scratch/appdata"

step "smoke test: --version"
out=$("$exe" --version)
[[ "$out" == *"$version"* ]] || fail "--version printed '$out', expected $version"

for lang in en zh_CN; do
    step "smoke test: --capture of the sample ($lang)"
    t0=$(now)
    "$exe" --capture "$scratch/window-$lang.png" --language "$lang" >/dev/null || fail "capture ($lang) exited non-zero"
    [[ -s "$scratch/window-$lang.png" ]] || fail "capture ($lang) wrote no PNG"
    echo "capture $lang: $(( $(now) - t0 )) s" >&2
done
grep -q "neardup_gui started" "$scratch/appdata/logs/neardup_gui.log" || fail "no log file in the app-data folder"

step "smoke test: --capture of a large folder (compiled prepare and MinHash kernels)"
"$PY" - "$scratch/large" <<'PY'
import random, sys
from pathlib import Path
folder = Path(sys.argv[1]); folder.mkdir()
rng = random.Random(7)
chars = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
# 1,250 texts: ~3.1 million shingles, above the size at which the compiled kernel is used and the
# 3 million characters past which TF-IDF scores are not computed for every pair
for i in range(1250):
    (folder / f"doc{i:04d}.txt").write_text("".join(rng.choices(chars, k=2500)), encoding="utf-8")
for i in range(70):  # 70 edited copies, each to be found
    text = (folder / f"doc{i:04d}.txt").read_text(encoding="utf-8")
    (folder / f"doc{i:04d}_copy.txt").write_text(text[:-10] + "补充一句话", encoding="utf-8")
PY
# The check after the run stats in one compiled call only files whose stamp can vouch for them: not
# those written less than io.corpus.SETTLE_NS (2 s) before the screen (hashed again instead). A
# capture does not warm the kernels up, so that check is what loads the compiled stat below: let
# the files settle first (without it the check found none settled when the bundle started quickly).
sleep 3
t0=$(now)
"$exe" --capture "$scratch/large.png" "$scratch/large" --workspace "$scratch/large-workspace" --language en \
    >/dev/null || fail "large capture exited non-zero"
echo "capture large: $(( $(now) - t0 )) s" >&2
if [[ -d "$DIST/neardup/_internal/llvmlite" ]]; then
    ls "$scratch"/appdata/numba-cache/*/*.nbi >/dev/null 2>&1 || fail "numba wrote no cache in the app-data folder"
    ls "$scratch"/appdata/numba-cache/*/_prepkernel.prepare_batch-*.nbi >/dev/null 2>&1 \
        || fail "the compiled prepare kernel was not used (no numba cache for it)"
    ls "$scratch"/appdata/numba-cache/*/_diffkernel.verify_batch-*.nbi >/dev/null 2>&1 \
        || fail "the compiled diff was not used (no numba cache for it)"
    # The anchors of long alignments: compiled by the diff kernel from core/anchors.py's source.
    ls "$scratch"/appdata/numba-cache/*/anchors.chain-*.nbi >/dev/null 2>&1 \
        || fail "the compiled anchors were not used (no numba cache for them)"
    # The containment index's sort (its module is loaded by name: missed if the spec does not list it).
    ls "$scratch"/appdata/numba-cache/*/_sortkernel.radix_runs-*.nbi >/dev/null 2>&1 \
        || fail "the compiled sort was not used (no numba cache for it)"
    # The walk's and the check's one-call stats (Linux only; loaded by the window's warm-up).
    if [[ "$(uname -s)" == Linux ]]; then
        ls "$scratch"/appdata/numba-cache/*/_statkernel.statx_names-*.nbi >/dev/null 2>&1 \
            || fail "the compiled stat was not loaded (no numba cache for it)"
    fi
fi
grep -q "doc0000_copy" "$scratch/large-workspace/candidates.csv" || fail "the planted copy was not found"
copies=$(grep -c "_copy" "$scratch/large-workspace/candidates.csv" || true)
[[ "$copies" -eq 70 ]] || fail "expected the 70 planted copies among the candidates, found $copies"

size=$(du -sh "$DIST/neardup" | cut -f1)
echo "bundle: $DIST/neardup ($size, $(find "$DIST/neardup" -type f | wc -l) files), version $version" >&2
if [[ $archive -eq 1 ]]; then
    name="neardup-$version-$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m).tar.gz"
    tar -C "$DIST" -czf "$DIST/$name" neardup
    echo "archive: $DIST/$name ($(du -sh "$DIST/$name" | cut -f1))" >&2
fi
echo "build_bundle: OK" >&2
