"""Tables as records (scinum.datasets.tables) and `scinum build jsonl` reading CSV and Parquet."""

import math

import numpy as np
import pandas as pd
import pytest

from scinum.cli.main import main as scinum
from scinum.datasets.directory import Dataset
from scinum.errors import DatasetError, RecordError
from scinum.datasets.tables import column_path, frame_to_records, read_table


def test_frame_rows_become_records_with_missing_cells_left_out():
    df = pd.DataFrame({"Solar.R": [190.0, np.nan], "Month": [5, 6], "site": ["a", None], "ok": [True, False]})
    assert frame_to_records(df) == [{"Solar.R": 190.0, "Month": 5, "site": "a", "ok": True}, {"Month": 6, "ok": False}]
    assert column_path("Solar.R") == '["Solar.R"]' and column_path("Ozone") == "Ozone"
    with pytest.raises(RecordError, match=r"row 1, column 'x': value inf is not finite"):
        frame_to_records(pd.DataFrame({"x": [1.0, math.inf]}))
    with pytest.raises(RecordError, match="complex"):
        frame_to_records(pd.DataFrame({"x": [1 + 2j]}))


def test_build_reads_a_csv_table(tmp_path, capsys):
    src = tmp_path / "air.csv"
    src.write_text("Ozone,Solar.R,Wind\n41,190,7.4\n36,,8.0\n12,149,12.6\n")
    assert scinum(["build", "jsonl", str(tmp_path / "ds"), "--train", str(src), "--fields", '["Solar.R"]']) == 0
    recs = list(Dataset(tmp_path / "ds").records("train"))
    assert recs == [{"Ozone": 41, "Solar.R": 190.0, "Wind": 7.4}, {"Ozone": 36, "Wind": 8.0}, {"Ozone": 12, "Solar.R": 149.0, "Wind": 12.6}]
    assert Dataset(tmp_path / "ds").manifest["splits"]["train"]["fields"]['["Solar.R"]']["count"] == 2
    out, err = capsys.readouterr()
    assert out == "" and "jsonl: wrote" in err  # messages on stderr: stdout carries data
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1,inf\n")
    capsys.readouterr()
    assert scinum(["build", "jsonl", str(tmp_path / "ds2"), "--train", str(bad)]) != 0
    assert "bad.csv:2, row 1, column 'y': value inf is not finite" in capsys.readouterr().err  # 1-based row, file line
    assert not (tmp_path / "ds2").exists()


def test_parquet_needs_pyarrow_or_reads_like_csv(tmp_path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        (tmp_path / "t.parquet").write_bytes(b"PAR1")
        with pytest.raises(DatasetError, match=r"t.parquet: reading Parquet needs pyarrow: pip install pyarrow"):
            read_table(tmp_path / "t.parquet")
        return
    pd.DataFrame({"a": [1.5, np.nan], "b": ["x", "y"]}).to_parquet(tmp_path / "t.parquet")
    assert scinum(["build", "jsonl", str(tmp_path / "ds"), "--train", str(tmp_path / "t.parquet")]) == 0
    assert list(Dataset(tmp_path / "ds").records("train")) == [{"a": 1.5, "b": "x"}, {"b": "y"}]
