"""The CLI's edges as a newcomer meets them: missing paths, bad dates, bad numbers, an empty archive,
short session ids, closed pipes, pasteable suggested commands, and result blocks that keep their layout."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from refind_desktop.cli import SIGPIPE_EXIT, main
from refind_desktop.terminal import shell_command

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "refind_desktop" / "samples"
LISBON = "chatgpt:c0ffee00-0000-4000-8000-000000000001"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """`refind ARGV` in process: (exit code, stdout, stderr); argparse errors give their exit code."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def samples(capsys) -> None:
    """The bundled sample chats, ingested."""
    assert main(["ingest", str(SAMPLES)]) == 0
    capsys.readouterr()


# --- ingest of paths that do not exist ---------------------------------------------------------------


def test_ingest_of_nothing_that_exists_fails_and_reads_nothing(tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, "ingest", str(tmp_path / "nope"), str(tmp_path / "no such folder"))
    assert code == 5 and out == ""
    assert f"'{tmp_path / 'no such folder'}'" in err  # quoted as the shell needs
    assert "nothing was ingested" in err and len(err.strip().splitlines()) == 1
    assert run(capsys, "stats", "--json")[0] == 0


def test_ingest_reads_what_exists_and_fails_for_the_rest(tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, "ingest", str(SAMPLES / "whatsapp"), str(tmp_path / "gone dir"), "--json")
    assert code == 5
    report = json.loads(out)
    assert report["added_turns"] > 0 and report["missing"] == [str(tmp_path / "gone dir")]
    assert f"'{tmp_path / 'gone dir'}' does not exist" in err
    code, out, _ = run(capsys, "stats", "--json")
    assert json.loads(out)["formats"]["whatsapp"]["files"] == 1


# --- suggested commands are pasteable ----------------------------------------------------------------


def test_suggested_commands_quote_paths_for_the_shell(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "WhatsApp Chat - Jonas"
    folder.mkdir()
    (folder / "WhatsApp Chat with Jonas.txt").write_text(
        "13/08/2025, 19:02 - Jonas: the ladder is in the shed\n", encoding="utf-8"
    )
    assert run(capsys, "ingest", str(folder))[0] == 0
    assert run(capsys, "forget", str(folder))[0] == 0
    code, out, err = run(capsys, "ingest", str(folder), "--json")
    [skip] = json.loads(out)["skipped"]
    suggested = skip["reason"].split("run `")[1].split("`")[0]
    assert shlex.split(suggested) == ["refind", "unforget", str(folder)]
    code, out, _ = run(capsys, "unforget", str(folder))
    assert code == 0
    suggested = out.split("`")[1]
    assert shlex.split(suggested) == ["refind", "ingest", str(folder)]


def test_shell_command_round_trips_through_the_shell() -> None:
    odd = ["/home/me/WhatsApp Chat - Jonas", "it's $HOME", "a;b", "plain"]
    line = shell_command("refind", "ingest", *odd)
    assert line.startswith("refind ingest '/home/me/WhatsApp Chat - Jonas' ")
    assert shlex.split(line) == ["refind", "ingest", *odd]
    done = subprocess.run(["sh", "-c", f"printf '%s\\n' {line}"], capture_output=True, text=True)
    assert done.stdout.splitlines() == ["refind", "ingest", *odd]


# --- dates ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,says",
    [
        ("2025-13-01", "month 13 is not a month"),
        ("2025-02-30", "February 2025 has 28 days"),
        ("2024-04-31", "April 2024 has 30 days"),
        ("0000-01-01", "year 0 is not a year"),
        ("May 3", "dates are written YYYY-MM-DD"),
    ],
)
def test_a_bad_date_is_an_argument_error_that_says_what_is_wrong(value: str, says: str, capsys) -> None:
    code, out, err = run(capsys, "search", "x", "--from", value)
    assert code == 2 and out == ""
    assert says in err and "argument --from" in err
    assert "configuration error" not in err and "Traceback" not in err


def test_extreme_days_are_ordinary_bounds(samples, capsys) -> None:
    for argv in (
        ("--to", "9999-12-31"),
        ("--from", "0001-01-01"),
        ("--from", "0001-01-01", "--to", "9999-12-31"),
    ):
        code, out, err = run(capsys, "search", "flight", "Lisbon", *argv, "--json")
        assert code == 0, err
        assert json.loads(out)["results"][0]["session_id"] == LISBON
    for argv in (("--from", "9999-01-01"), ("--to", "0001-01-02")):
        code, out, err = run(capsys, "search", "flight", "Lisbon", *argv, "--json")
        assert code == 0 and json.loads(out)["results"] == [], err


def test_from_after_to_is_an_error(samples, capsys) -> None:
    code, out, err = run(capsys, "search", "flight", "--from", "2025-05-01", "--to", "2025-04-01")
    assert code == 2 and out == ""
    assert err.strip() == (
        "refind: argument error: --from 2025-05-01 is after --to 2025-04-01: swap them (both days are included)"
    )
    assert run(capsys, "search", "flight", "--from", "2025-03-10", "--to", "2025-03-10")[0] == 0


@pytest.mark.parametrize(
    "argv,says",
    [
        (("search", "x", "--top-k", "0"), "argument --top-k: must be 1 or more, got 0"),
        (("search", "x", "--top-k", "-3"), "argument --top-k: must be 1 or more, got -3"),
        (("search", "x", "--context", "-1"), "argument --context: must be 0 or more, got -1"),
        (("show", "x", "--turn", "-1"), "argument --turn: must be 0 or more, got -1"),
        (("sessions", "--limit", "-2"), "argument --limit: must be 0 or more, got -2"),
    ],
)
def test_numbers_out_of_range_are_errors(argv: tuple[str, ...], says: str, capsys) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and says in err


def test_ask_now_with_a_bad_day_is_an_argument_error(samples, capsys) -> None:
    code, _, err = run(capsys, "ask", "when is my flight", "--now", "2025-13-01")
    assert code == 2
    assert "refind: argument error: --now takes YYYY-MM-DD" in err and "month 13 is not a month" in err


# --- an empty archive says how to fill it ------------------------------------------------------------


@pytest.mark.parametrize("argv", [("search", "flight"), ("sessions",)])
def test_empty_archive_says_how_to_ingest(argv: tuple[str, ...], capsys) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 0 and out == ""
    assert "nothing is indexed yet" in err and "refind ingest PATH" in err


def test_no_results_in_a_full_archive_says_so(samples, capsys) -> None:
    code, out, err = run(capsys, "search", "zeppelin")
    assert (code, out, err.strip()) == (0, "", "no results")


# --- show takes the start of a session id ------------------------------------------------------------


def test_show_accepts_a_unique_prefix(samples, capsys) -> None:
    code, whole, _ = run(capsys, "show", LISBON, "--json")
    assert code == 0 and json.loads(whole)["session_id"] == LISBON
    code, out, err = run(capsys, "show", "c0ffee00-0000-4000-8000-000000000001", "--json")  # no `chatgpt:`
    assert code == 0 and out == whole, err
    shown = set()
    for prefix in ("cursor:3e4f", "3e4f5a6b"):  # the start of the id, or of its part after the format
        code, out, err = run(capsys, "show", prefix, "--json")
        assert code == 0, err
        shown.add(json.loads(out)["session_id"])
    assert shown == {"cursor:3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7"}


def test_show_lists_the_candidates_of_an_ambiguous_prefix(samples, capsys) -> None:
    code, out, err = run(capsys, "show", "chatgpt:c0ffee")
    assert code == 5 and out == ""
    lines = err.strip().splitlines()
    assert lines[0] == "sessions whose id starts with 'chatgpt:c0ffee':"
    assert [ln.split()[0] for ln in lines[1:4]] == [
        f"chatgpt:c0ffee00-0000-4000-8000-00000000000{i}" for i in (1, 2, 3)
    ]
    assert "Lisbon trip planning" in lines[1]
    assert (
        lines[-1]
        == "refind: ambiguous id: 'chatgpt:c0ffee' is the start of several session ids; give more of it"
    )
    code, _, err = run(capsys, "show", "chatgpt:zzz")
    assert code == 5 and "no session 'chatgpt:zzz'" in err
    code, _, err = run(capsys, "show", "%")  # compared as text, not as a LIKE pattern
    assert code == 5 and "no session '%'" in err


# --- a closed pipe ends quietly ----------------------------------------------------------------------


@pytest.mark.parametrize("argv", [("sessions",), ("search", "flight"), ("show", LISBON), ("stats",)])
def test_a_closed_pipe_ends_quietly(argv: tuple[str, ...], samples, refind_home: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line, as with `| head -0`
    try:
        done = subprocess.run(
            [sys.executable, "-m", "refind_desktop", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, REFIND_HOME=str(refind_home), PYTHONPATH=str(ROOT)),
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.stderr == "" and done.returncode == SIGPIPE_EXIT == 141


# --- search output ------------------------------------------------------------------------------------


def test_search_shows_speaker_names_of_group_chats(samples, capsys) -> None:
    code, out, _ = run(capsys, "search", "blue", "Canyon", "bike", "--context", "1")
    assert code == 0
    assert "  >    0  Sam: Hey Maya, Tom asked to borrow my road bike for the Alps trip" in out
    assert "  >    1  Maya: The blue Canyon one?" in out
    assert "       3  Maya: And the spare tubes are in the garage, left shelf" in out


def test_search_keeps_the_layout_of_multi_line_turns(samples, capsys) -> None:
    code, out, _ = run(capsys, "search", "flight", "Lisbon", "airline", "--top-k", "1")
    assert code == 0
    lines = out.rstrip("\n").splitlines()
    assert lines[0].startswith("[1] Lisbon trip planning (2025-03-10 ")
    body = lines[1:]
    assert body and all(ln.strip() for ln in body)  # no blank line inside a block
    assert not any(ln.lstrip().startswith(">Assistant") for ln in body)
    for ln in body:  # a turn's first line (`  > 12  text`) or a continuation indented under its text
        assert ln[:2] == "  " and ln[2] in "> " and (ln[3:10].strip().isdigit() or ln[:10].isspace())
        assert ln[10] != " "
    first = body.index(next(ln for ln in body if ln[3:].startswith("    2  User: Booked it.")))
    assert body[first + 1].startswith(" " * 10 + "Assistant: Great.")


def test_search_cuts_long_turns_at_a_word_with_an_ellipsis(tmp_path: Path, capsys) -> None:
    words = " ".join(f"filler{i}" for i in range(300))
    chat = tmp_path / "long.jsonl"
    chat.write_text(
        json.dumps({"role": "user", "content": f"{words} the quokka lives on Rottnest {words}"})
        + "\n"
        + json.dumps({"role": "assistant", "content": "Noted."})
        + "\n",
        encoding="utf-8",
    )
    assert run(capsys, "ingest", str(chat))[0] == 0
    code, out, err = run(capsys, "search", "quokka")
    assert code == 0
    hit = next(ln for ln in out.splitlines() if ln.startswith("  >"))
    assert "quokka lives on Rottnest" in hit  # the window opens near the word that was searched
    text = hit[10:]
    assert text.startswith("…filler") and text.endswith("…")
    assert all(
        w.startswith("filler") or w in {"the", "quokka", "lives", "on", "Rottnest"}
        for w in text.strip("…").split()
    )
    assert len(text) <= 402
    assert "refind show" in err and "--turn 0" in err
