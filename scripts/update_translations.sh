#!/usr/bin/env bash
# Refresh the translation sources from the code, then compile them for the program.
#   1. pyside6-lupdate collects every tr()/translate()/QT_TR_NOOP string of the window code
#      (neardup_gui/ui/**/*.py and neardup_gui/app.py) into resources/translations/neardup_gui_<lang>.ts,
#      keeping the translations already made (strings no longer in the code stay as "vanished").
#   2. pyside6-lrelease compiles each .ts into the .qm file the program loads.
# Translate new strings in Qt Linguist (.venv/bin/pyside6-linguist FILE.ts) or any editor, run
# this script again, and commit both the .ts and the .qm.
# Usage: scripts/update_translations.sh [--prune]   (--prune drops the vanished strings)
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${VENV:-.venv}/bin
LANGUAGES=(zh_CN)
DIR=resources/translations
mkdir -p "$DIR"

mapfile -t SOURCES < <(find neardup_gui/ui -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort; echo neardup_gui/app.py)
extra=()
[[ "${1:-}" == "--prune" ]] && extra+=(-no-obsolete)

for lang in "${LANGUAGES[@]}"; do
    ts="$DIR/neardup_gui_${lang}.ts"
    "$BIN/pyside6-lupdate" "${SOURCES[@]}" -source-language en -target-language "$lang" \
        -locations relative "${extra[@]}" -ts "$ts"
    "$BIN/pyside6-lrelease" -removeidentical "$ts" -qm "$DIR/neardup_gui_${lang}.qm"
    # Say how many strings still wait for a translator.
    python3 - "$ts" <<'PY'
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
todo = [m.findtext("source") for m in root.iter("message")
        if (m.find("translation").get("type") or "") == "unfinished"]
print(f"{sys.argv[1]}: {len(todo)} string(s) without a finished translation")
for text in todo[:20]:
    print("  ", (text or "").replace("\n", "\\n")[:100])
PY
done
