"""The window under overlapping work: screening again while a long pair's diff is still computed.

The long pair is compared on a pool thread; a new screen starts before (or while) that answer
arrives. The window must not crash, must drop the answer of a pair it no longer shows, and must end
with the texts and highlights of the pair selected after the screen.
"""

from __future__ import annotations

from pathlib import Path

from reliability_kit import BASE, EDITED

from neardup_gui.core.normalize import normalize
from neardup_gui.ui.candidate_model import CANDIDATE_ROLE
from neardup_gui.ui.diff_view import BACKGROUND_CHARS
from neardup_gui.ui.main_window import MainWindow
from neardup_gui.ui.palette import HighlightKind
from neardup_gui.ui.settings import AppSettings

SCREEN_TIMEOUT_MS = 60_000


def test_screening_again_while_a_long_diff_loads_ends_with_the_selected_pair_drawn(qtbot, tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    long_text = "".join(f"第{i}段。" + (BASE if i % 2 else EDITED) for i in range(90))
    assert 2 * len(long_text) > BACKGROUND_CHARS
    (source / "long_a.txt").write_text(long_text, encoding="utf-8")
    (source / "long_b.txt").write_text(long_text.replace("第7段", "第七段"), encoding="utf-8")
    (source / "short_a.txt").write_text(BASE, encoding="utf-8")
    (source / "short_b.txt").write_text(EDITED, encoding="utf-8")
    window = MainWindow(AppSettings.in_file(tmp_path / "settings.ini"))
    qtbot.addWidget(window)
    assert window.set_source(source, screen=False) and window.set_workspace(tmp_path / "workspace")
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    view = window.candidate_view
    assert view.proxy.rowCount() >= 2
    for _ in range(3):
        # Select the long pair (coming from another): its diff goes to the pool thread.
        long_row = short_row = None
        for r in range(view.proxy.rowCount()):
            c = view.proxy.index(r, 0).data(CANDIDATE_ROLE)
            paths = {window.outcome.document(c.left).path, window.outcome.document(c.right).path}
            if paths == {"long_a.txt", "long_b.txt"}:
                long_row = r
            else:
                short_row = r
        assert long_row is not None and short_row is not None
        view.table.selectRow(short_row)
        view.table.selectRow(long_row)
        assert not window.diff_view.is_drawn()  # compared on the pool thread, not yet back
        first_request = window.diff_view.request_id
        with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
            assert window.start_screen()
            assert not window.start_screen()  # one screen at a time
        qtbot.waitUntil(window.diff_view.is_drawn, timeout=SCREEN_TIMEOUT_MS)
        current = view.current_candidate()
        assert current is not None and window.diff_view.request_id >= first_request
        texts = window.outcome.texts
        assert window.diff_view.left.toPlainText() == texts[current.left]
        assert window.diff_view.right.toPlainText() == texts[current.right]
        # The highlights are those of the pair shown: shared passages equal after normalization.
        options = window.outcome.params.normalize
        left = window.diff_view.left.highlights(HighlightKind.SHARED)
        right = window.diff_view.right.highlights(HighlightKind.SHARED)
        assert left and len(left) == len(right)
        for a, b in zip(left, right):
            assert normalize(window.diff_view.left.highlighted_text(a), options).text == normalize(
                window.diff_view.right.highlighted_text(b), options
            ).text
    window.close()
