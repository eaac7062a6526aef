#!/usr/bin/env bash
# Install what is missing, then run the whole test suite (Qt offscreen, no display needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest -q "$@"
