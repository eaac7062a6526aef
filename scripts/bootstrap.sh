#!/usr/bin/env bash
# Set up everything neardup_gui needs on a fresh machine, then stay quiet on later runs.
#   - Debian packages Qt and Chinese text need (only the missing ones, only where apt-get exists)
#   - a virtual environment in .venv with the package and its test extra installed
# Usage: scripts/bootstrap.sh [--gui]   (--gui adds the X11 libraries a real window needs)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}

# Offscreen Qt, fonts and the CJK font; --gui adds the xcb libraries of a real desktop session.
DEB_PACKAGES=(libegl1 libgl1 libglib2.0-0 libfontconfig1 libxkbcommon0 libdbus-1-3 fonts-wqy-microhei)
if [[ "${1:-}" == "--gui" ]]; then
    DEB_PACKAGES+=(libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0
                   libxcb-render-util0 libxcb-image0 libxcb-xinerama0 libxcb-randr0)
fi

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
    for p in "${DEB_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
fi
if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing+=(python3-venv)
fi
if [[ ${#missing[@]} -gt 0 ]]; then
    if command -v apt-get >/dev/null 2>&1; then
        SUDO=""
        [[ $(id -u) -ne 0 ]] && SUDO="sudo"
        echo "bootstrap: installing Debian packages: ${missing[*]}" >&2
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "bootstrap: no apt-get here; make sure these are installed: ${missing[*]}" >&2
    fi
fi

if [[ ! -x "$VENV/bin/python" ]]; then
    echo "bootstrap: creating $VENV" >&2
    "$PYTHON" -m venv "$VENV"
fi

# Reinstall only when the project's requirements changed since the last install.
stamp="$VENV/.neardup-installed"
want=$(cat pyproject.toml | sha256sum | cut -d' ' -f1)
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "bootstrap: installing neardup_gui and its dependencies into $VENV" >&2
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[test]"
    echo "$want" > "$stamp"
fi
