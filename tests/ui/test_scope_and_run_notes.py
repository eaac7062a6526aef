"""Comparison scope in the Parameters panel, "About this run" notes, Defaults, workspaces root and
the Recent workspaces menu."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import Qt
from PySide6.QtWidgets import QMessageBox

from neardup_gui.core.records import RunRecord, ScreenParams
from neardup_gui.ui.app_menus import apply_preferences
from neardup_gui.ui.params_panel import ParamsPanel
from neardup_gui.ui.run_notes import RunNotes
from ui_factories import SCREEN_TIMEOUT_MS

REFERENCE = "历史稿件/*"


def choose_scope(panel: ParamsPanel, scope: str, field: str = "", patterns: str = "") -> None:
    box = panel.scope_box
    box.scope_combo.setCurrentIndex(box.scope_combo.findData(scope))
    if field:
        box.field_combo.setCurrentText(field)
    box.patterns_edit.setText(patterns)


def make_run(notes: tuple[str, ...] = (), changed: tuple[str, ...] = (), **counts: int) -> RunRecord:
    return RunRecord(
        run_id="r", source="/src", params={}, bands=25, rows=5, versions={}, manifest_digest="d",
        counts=dict(counts), started="s", finished="f", changed_files=changed, notes=notes,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("scope", "field", "patterns", "expected"),
    [
        ("all", "", "", ("all", "source_id", ())),
        ("within", "version", "", ("within", "version", ())),
        ("within", "product", "", ("within", "product", ())),  # a sidecar column
        ("new_vs_reference", "", "历史稿件/* archive/*.txt", ("new_vs_reference", "source_id", (REFERENCE, "archive/*.txt"))),
        ("across", "", "train/*", ("across", "source_id", ("train/*",))),
    ],
)
def test_scope_controls_give_the_screen_parameters(qtbot, scope, field, patterns, expected) -> None:
    panel = ParamsPanel()
    qtbot.addWidget(panel)
    choose_scope(panel, scope, field, patterns)
    params = panel.params()
    assert (params.scope, params.scope_field, params.scope_patterns) == expected
    assert panel.scope_box.field_combo.isEnabled() == (scope == "within")
    assert panel.scope_box.patterns_edit.isEnabled() == (scope in ("new_vs_reference", "across"))
    panel.set_params(ScreenParams())
    panel.set_params(params)  # shown again as given
    assert panel.params() == params


def test_scope_names_are_words_not_codes(qtbot) -> None:
    panel = ParamsPanel()
    qtbot.addWidget(panel)
    combo = panel.scope_box.scope_combo
    names = [combo.itemText(i) for i in range(combo.count())]
    assert names[0] == "All pairs" and "New documents against a reference archive" in names
    assert not any("_" in name for name in names)


def test_missing_reference_patterns_are_explained_and_the_screen_refused(make_window, sample, qtbot) -> None:
    window = make_window(sample)
    panel = window.params_panel
    choose_scope(panel, "new_vs_reference")
    assert "patterns naming the reference archive" in panel.error_label.text()
    with pytest.raises(ValueError):
        panel.params()
    assert not window.start_screen()
    box = window.last_message
    assert isinstance(box, QMessageBox) and "patterns naming the reference archive" in box.text()
    panel.scope_box.patterns_edit.setText(REFERENCE)
    assert panel.error_label.text() == ""


def test_screening_new_documents_against_the_archive_says_how_many_pairs_were_left_out(
    make_window, sample, qtbot
) -> None:
    window = make_window(sample)
    choose_scope(window.params_panel, "new_vs_reference", patterns=REFERENCE)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    outcome = window.outcome
    left_out = outcome.run.counts["left_out_by_scope"]
    assert left_out > 0  # the sample's archive holds a revision pair and a follow-up of its own
    paths = [(outcome.document(c.left).path, outcome.document(c.right).path) for c in outcome.candidates]
    assert not any(a.startswith("历史稿件/") and b.startswith("历史稿件/") for a, b in paths)
    notes = window.run_notes
    assert notes.isVisibleTo(window)
    assert notes.text().startswith("About this run:")
    assert f"{left_out} proposed pairs were left out" in notes.text() and REFERENCE in notes.text()
    assert f"{left_out} proposed pairs were left out" in notes.toolTip()
    assert f"left out {left_out} proposed pairs" in window.statusBar().currentMessage()


def test_a_screen_of_all_pairs_without_notes_hides_the_line(screened) -> None:
    assert screened.outcome.run.notes == ()
    assert not screened.run_notes.isVisibleTo(screened)
    assert "left out" not in screened.statusBar().currentMessage()


def test_run_notes_say_capped_buckets_skipped_scores_changed_files_and_unknown_notes(qtbot) -> None:
    notes = RunNotes()
    qtbot.addWidget(notes)
    run = make_run(
        notes=(
            "3 LSH buckets held more than 200 documents and were paired around their first member only (likely boilerplate)",
            (
                "TF-IDF cosine and SimHash distance were not computed for every pair (9,000,000 characters is above "
                "the automatic limit of 5,000,000); choose the tfidf or simhash method, or all scores 'always', to get them"
            ),
            "2 source file(s) changed during the run; their results may be out of date",
            "a <b>new</b> kind of note",
        ),
        changed=("a.txt", "b.txt"),
        capped_buckets=3,
    )
    notes.show_run(run, ScreenParams(bucket_cap=200))
    assert len(notes.lines) == 4
    text = notes.text()
    assert "3 LSH buckets held more than 200 documents" in text
    assert "(9,000,000 characters is above the automatic limit of 5,000,000)" in text
    assert "2 source file(s) changed during the run" in text
    assert "a <b>new</b> kind of note" in text  # shown as written, never as markup
    tip = notes.toolTip()
    assert tip.count("•") == 4
    # Every note in the tooltip, and the markup-looking one shown as typed (Qt reads it as plain text, or escaped).
    assert ("a <b>new</b> kind of note" in tip and not Qt.mightBeRichText(tip)) or "&lt;b&gt;new&lt;/b&gt;" in tip
    notes.show_run(make_run(), ScreenParams())
    assert notes.lines == [] and notes.isHidden()


def test_defaults_button_shows_the_default_parameters_from_preferences(make_window, settings) -> None:
    settings.set_default_params(ScreenParams(k=3, threshold=0.6))
    window = make_window()
    panel = window.params_panel
    panel.set_params(ScreenParams(k=9, threshold=0.9))
    panel.reset_button.click()
    assert (panel.params().k, panel.params().threshold) == (3, 0.6)
    settings.set_default_params(ScreenParams(k=4))  # changed in Preferences while the window is open
    apply_preferences(window, settings, {"params"})
    panel.set_params(ScreenParams(k=9))
    panel.reset_button.click()
    assert panel.params().k == 4


def test_a_new_source_gets_its_workspace_under_the_chosen_workspaces_folder(make_window, settings, sample, tmp_path) -> None:
    root = tmp_path / "工作区根目录"
    settings.set_workspaces_root(root)
    window = make_window()
    assert window.set_source(sample, screen=False)
    assert window.workspace is not None and window.workspace.parent == root


def test_recent_workspaces_menu_reopens_a_workspace_shown_before(make_window, sample, tmp_path, qtbot) -> None:
    window = make_window(sample, tmp_path / "ws")
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        window.start_screen()
    window.settings.set_last_workspace(tmp_path / "gone")  # a workspace deleted since
    window.settings.set_last_workspace(tmp_path / "ws")
    menus = window.menus
    menus.fill_recent_workspaces_menu()
    actions = {a.text(): a for a in menus.recent_workspaces_menu.actions()}
    assert list(actions) == [str(tmp_path / "ws"), str(tmp_path / "gone")]
    assert not actions[str(tmp_path / "gone")].isEnabled()
    with qtbot.waitSignal(window.workspaces.workspace_loaded, timeout=SCREEN_TIMEOUT_MS) as loaded:
        actions[str(tmp_path / "ws")].trigger()
    assert Path(loaded.args[0].out_dir) == (tmp_path / "ws").resolve()


def test_scope_is_remembered_with_the_other_parameters(make_window, sample, qtbot) -> None:
    window = make_window(sample)
    choose_scope(window.params_panel, "new_vs_reference", patterns=REFERENCE)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    window.close()
    params = make_window().params_panel.params()
    assert (params.scope, params.scope_patterns) == ("new_vs_reference", (REFERENCE,))


def test_run_notes_say_how_many_pairs_of_a_large_cluster_were_set_aside(qtbot) -> None:
    from neardup_gui.core.pipeline import cluster_note

    notes = RunNotes()
    qtbot.addWidget(notes)
    engine_note = cluster_note(1, 2000, 70960, 50)  # as the engine writes it into the run record
    run = make_run(notes=(engine_note,), large_clusters=1, clustered_documents=2000, set_aside_in_large_clusters=70960)
    notes.show_run(run, ScreenParams(cluster_limit=50))
    assert len(notes.lines) == 1  # said in the window's words, not also as the engine wrote it
    line = notes.lines[0]
    assert line.startswith("1 group(s) of more than 50 files")
    assert "(2,000 files)" in line and "70,960 of the pairs" in line
    assert "Groups tab" in line
