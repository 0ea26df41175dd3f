"""`refind bench --small-files N`: the many-small-files figures beside the one-file figure, in one run."""

from __future__ import annotations

import json

from refind_desktop.cli import main


def test_bench_small_files_reports_both_layouts_a_reingest_and_new_files(capsys, tmp_path):
    rc = main(
        [
            "bench",
            "--turns", "0",
            "--chatgpt-mb", "0",
            "--longmemeval", str(tmp_path / "absent.json"),
            "--small-files", "40",
            "--no-bm25s",
        ]
    )  # fmt: skip
    assert rc == 0
    res = json.loads(capsys.readouterr().out)["small_files"]
    assert res["turns"] == 80
    assert res["one_file"]["files_read"] == 1 and res["one_file"]["turns_added"] == 80
    many = res["one_file_per_session"]
    assert many["files_read"] == 40 and many["turns_added"] == 80 and many["index_commits"] >= 1
    assert (
        res["reingest_unchanged"]["files_unchanged"] == 40 and res["reingest_unchanged"]["index_commits"] == 0
    )
    assert len(res["new_file_searchable_s"]) == 3 and all(s < 60 for s in res["new_file_searchable_s"])
    assert res["ratio_many_over_one"] > 0 and res["goal_within_s"] > 1
