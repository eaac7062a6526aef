#!/usr/bin/env bash
# Install what is missing, then start the desktop app.
# With no folder given the app opens the bundled sample corpus (resources/sample).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --gui
exec .venv/bin/python -m neardup_gui "$@"
