#!/usr/bin/env bash
# Install a built bundle (dist/neardup) for the current user, or system-wide with --system:
# the program folder, a `neardup` command, the menu entry (.desktop), icons and AppStream metadata.
# Usage: packaging/install_linux.sh [--system] [BUNDLE_DIR]     (default BUNDLE_DIR: dist/neardup)
#        packaging/install_linux.sh --uninstall [--system]
set -euo pipefail
cd "$(dirname "$0")/.."

APP_ID=io.github.neardup.NeardupGui
PREFIX="$HOME/.local"
uninstall=0
bundle=dist/neardup
for arg in "$@"; do
    case "$arg" in
        --system) PREFIX=/usr/local ;;
        --uninstall) uninstall=1 ;;
        *) bundle="$arg" ;;
    esac
done
OPT="$PREFIX/lib/neardup"
SHARE="$PREFIX/share"

if [[ $uninstall -eq 1 ]]; then
    rm -rf "$OPT" "$PREFIX/bin/neardup" "$SHARE/applications/$APP_ID.desktop" "$SHARE/metainfo/$APP_ID.metainfo.xml"
    rm -f "$SHARE"/icons/hicolor/*/apps/"$APP_ID".png "$SHARE/icons/hicolor/scalable/apps/$APP_ID.svg"
    echo "removed neardup from $PREFIX"
    exit 0
fi

[[ -x "$bundle/neardup" ]] || { echo "no built bundle at $bundle (run scripts/build_bundle.sh first)" >&2; exit 1; }
mkdir -p "$OPT" "$PREFIX/bin" "$SHARE/applications" "$SHARE/metainfo" "$SHARE/icons/hicolor/scalable/apps"
rm -rf "$OPT" && cp -a "$bundle" "$OPT"
ln -sfn "$OPT/neardup" "$PREFIX/bin/neardup"
install -m 644 "packaging/$APP_ID.desktop" "$SHARE/applications/$APP_ID.desktop"
install -m 644 "packaging/$APP_ID.metainfo.xml" "$SHARE/metainfo/$APP_ID.metainfo.xml"
for png in resources/icons/neardup_gui-*.png; do
    size=${png##*-}; size=${size%.png}
    mkdir -p "$SHARE/icons/hicolor/${size}x${size}/apps"
    install -m 644 "$png" "$SHARE/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done
install -m 644 resources/icons/neardup_gui.svg "$SHARE/icons/hicolor/scalable/apps/$APP_ID.svg"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$SHARE/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$SHARE/icons/hicolor" || true
echo "installed neardup in $OPT; start it from the menu or with: $PREFIX/bin/neardup"
