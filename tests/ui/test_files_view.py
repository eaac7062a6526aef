"""The Files tab's table: sorting by every column, with and without the files not compared."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt

from neardup_gui.core.records import FILE_STATUSES, STATUS_OK, Document
from neardup_gui.ui.files_view import SORT_ROLE, FileColumn, FilesModel


def _documents(n: int = 300) -> list[Document]:
    rng = random.Random(5)
    names = ["稿件", "Archive", "archive", "评论", "b", "B"]
    out = []
    for i in range(n):
        status = STATUS_OK if rng.random() < 0.7 else rng.choice(sorted(FILE_STATUSES))
        out.append(Document(
            doc_id=f"d{i:04d}", source_id=rng.choice(names), version=rng.choice(["v1", "V2", "v10"]),
            path=f"{rng.choice(names)}/{rng.choice(names)}{rng.randrange(40):03d}.txt", size=rng.randrange(0, 50),
            mtime=0.0, sha256="", encoding=rng.choice(["utf-8", "gb18030", "UTF-16", ""]),
            chars=rng.choice([0, 5, 12, 12, 900]), status=status,
            message="" if status == STATUS_OK else rng.choice(["Empty file", "binary (NUL bytes)", "too large"]),
        ))  # fmt: skip
    return out


def _column(model: FilesModel, column: int, role: int) -> list:
    return [model.index(r, column).data(role) for r in range(model.rowCount())]


@pytest.mark.parametrize("order", [Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder])
@pytest.mark.parametrize("problems_only", [False, True])
def test_sorting_by_each_column_orders_the_rows_by_their_sort_values_stably(qapp, order, problems_only) -> None:
    docs = _documents()
    for column in FileColumn:
        model = FilesModel()
        model.set_documents(tuple(docs))
        model.set_problems_only(problems_only)
        shown = [model.document(r) for r in range(model.rowCount())]
        values = {id(d): v for d, v in zip(shown, _column(model, column, SORT_ROLE))}
        # the sort value is the number shown, or the text shown casefolded
        numbers = {FileColumn.SIZE: "size", FileColumn.CHARS: "chars"}
        shown_text = _column(model, column, Qt.ItemDataRole.DisplayRole)
        expected_values = ([getattr(d, numbers[column]) for d in shown] if column in numbers
                           else [t.casefold() for t in shown_text])  # fmt: skip
        assert list(values.values()) == expected_values, column.name
        model.sort(column, order)
        expected = sorted(shown, key=lambda d: values[id(d)], reverse=order == Qt.SortOrder.DescendingOrder)
        assert [model.document(r) for r in range(model.rowCount())] == expected, column.name
        if problems_only:  # every file, shown again, is in the same order
            model.set_problems_only(False)
            everything = [model.document(r) for r in range(model.rowCount())]
            keys = [model.index(r, column).data(SORT_ROLE) for r in range(model.rowCount())]
            assert keys == sorted(keys, reverse=order == Qt.SortOrder.DescendingOrder), column.name
            assert sorted(map(id, everything)) == sorted(map(id, docs))


def test_the_current_row_follows_its_file_when_sorted(qapp) -> None:
    from PySide6.QtCore import QPersistentModelIndex

    docs = _documents()
    model = FilesModel()
    model.set_documents(tuple(docs))
    held = QPersistentModelIndex(model.index(17, FileColumn.PATH))
    chosen = model.document(17)
    for column in (FileColumn.SIZE, FileColumn.PATH, FileColumn.STATUS):
        model.sort(column, Qt.SortOrder.DescendingOrder)
        assert model.document(held.row()) is chosen and held.column() == FileColumn.PATH


@pytest.fixture
def chinese(qapp):
    """The window in Chinese (as chosen in Preferences), English again afterwards."""
    from neardup_gui.ui.i18n import install_language

    assert install_language(qapp, "zh_CN") == "zh_CN"
    yield
    install_language(qapp, "en")


def _screened_folder_of_problems(make_window, qtbot, tmp_path):
    """A window that screened a folder with two texts, an empty, a binary and an undecodable file."""
    from ui_factories import SCREEN_TIMEOUT_MS

    source = tmp_path / "稿件"
    source.mkdir()
    (source / "甲.txt").write_text("这是一篇用来比较的正常稿件，内容足够长，可以参与比较。" * 4, encoding="utf-8")
    (source / "乙.txt").write_text("这是一篇用来比较的正常稿件，内容足够长，可以参与对照。" * 4, encoding="utf-8")
    (source / "空.txt").write_bytes(b"")
    (source / "图片.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    (source / "乱码.txt").write_bytes(b"abc \xff\xfe\xfd def \x80\xff")
    window = make_window(source)
    with qtbot.waitSignal(window.outcome_shown, timeout=SCREEN_TIMEOUT_MS):
        assert window.start_screen()
    return window


def test_the_files_tab_says_why_in_chinese_and_keeps_the_record_in_english(
    chinese, make_window, qtbot, tmp_path
) -> None:
    from neardup_gui.ui.file_messages import file_message_text

    window = _screened_folder_of_problems(make_window, qtbot, tmp_path)
    view = window.files_view.table.model()  # what the table shows (the proxy)
    rows = {view.index(r, FileColumn.PATH).data(): r for r in range(view.rowCount())}
    why = {path: view.index(r, FileColumn.MESSAGE).data() for path, r in rows.items()}
    assert why["空.txt"] == "空文件（0 字节）"
    assert why["图片.txt"] == "二进制数据：PNG 图片"
    assert why["乱码.txt"].startswith("不是有效的 UTF-8（") and "0xFF" in why["乱码.txt"]
    assert "GB18030、Big5 和 UTF-16" in why["乱码.txt"]
    assert why["甲.txt"] == why["乙.txt"] == ""
    summary = window.files_view.summary.text()  # Chinese punctuation between the statuses too
    assert summary.startswith("5 个文件。") and "：" in summary and "；" in summary
    assert ";" not in summary and ": " not in summary
    # The record stays the engine's English; the tooltip shows both.
    recorded = {d.path: d.message for d in window.outcome.documents}
    assert recorded["空.txt"] == "empty file (0 bytes)" and recorded["图片.txt"] == "binary data: PNG image"
    tip = view.index(rows["图片.txt"], FileColumn.MESSAGE).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "二进制数据：PNG 图片\n\n记录原文：binary data: PNG image"
    assert view.index(rows["甲.txt"], FileColumn.MESSAGE).data(Qt.ItemDataRole.ToolTipRole) == "甲.txt"
    # Sorted by the words shown, with the files not compared only.
    window.files_view.problems_only.setChecked(True)
    window.files_view.table.sortByColumn(FileColumn.MESSAGE, Qt.SortOrder.AscendingOrder)
    shown = [view.index(r, FileColumn.MESSAGE).data() for r in range(view.rowCount())]
    assert len(shown) == 3 and shown == sorted(shown, key=str.casefold)
    assert shown == sorted(file_message_text(recorded[p]) for p in ("空.txt", "图片.txt", "乱码.txt"))


def test_files_that_changed_during_the_screen_are_listed_with_chinese_reasons(
    chinese, make_window, qtbot, tmp_path
) -> None:
    from dataclasses import replace

    window = _screened_folder_of_problems(make_window, qtbot, tmp_path)
    # A change while the files were read cannot be timed from here: the screen's end is told so.
    changed = (("甲.txt", "size 120 -> 98; modification time changed; content changed (SHA-256)"), ("乙.txt", "missing"))
    window.workspaces.screened_ready.emit(replace(window.outcome, changed_files=changed))
    box = window.last_message
    assert box is not None and box.windowTitle() == "筛查期间文件有改动"
    assert box.detailedText().splitlines() == [
        "甲.txt: 大小由 120 字节变为 98 字节；修改时间已改变；内容已改变（SHA-256 不同）",
        "乙.txt: 文件已不存在",
    ]
