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
