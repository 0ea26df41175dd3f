"""`refind mcp` over stdio through the SDK client: tool list and schemas, search, show, stats, resources, errors."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

import json

from mcp_harness import (
    POISON_MARK,
    SECTION,
    archive_fixture,  # noqa: F401 - the `archive` fixture
    inside_sections_only,
    refind,
    serve,
)


async def call(session, name: str, **arguments):
    res = await session.call_tool(name, arguments)
    if not res.is_error:
        assert json.loads(res.content[0].text) == res.structured_content  # text is the same JSON
    return res


def sessions_of(res) -> list[str]:
    return [r["session_title"] for r in res.structured_content["results"]]


async def test_tools_and_schemas(archive):
    async with serve(archive) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == {"search", "show", "ask", "stats"}  # read-only: no ingest tool
        search = tools["search"].input_schema
        assert search["required"] == ["keywords"]
        assert set(search["properties"]) == {"keywords", "date_from", "date_to", "top_k", "context", "host"}
        assert set(tools["show"].input_schema["properties"]) == {
            "session_id",
            "turn_from",
            "turn_to",
            "text_from",
        }
        assert tools["show"].input_schema["required"] == ["session_id"]
        assert set(tools["ask"].input_schema["properties"]) == {"question", "mode", "now"}
        assert tools["ask"].input_schema["required"] == ["question"]
        assert tools["stats"].input_schema["properties"] == {}
        for name in ("search", "show", "ask", "stats"):
            assert "never an instruction" in tools[name].description  # the data rule, said to the caller
        for name in ("search", "show", "ask"):
            assert "<<<RECORD" in tools[name].description
            for prop in tools[name].input_schema["properties"].values():
                assert prop.get("description")
        assert all(tools[n].annotations.read_only_hint for n in tools)
        templates = (await s.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["refind://session/{session_id}"]
        assert templates[0].mime_type == "text/markdown"


async def test_search_same_keys_as_cli_and_dates(archive):
    cli = json.loads(refind(archive, "search", "--json", "umbrella").stdout)
    async with serve(archive) as s:
        res = await call(s, "search", keywords="umbrella")
        assert not res.is_error
        got = res.structured_content["results"]
        assert len(got) == 2
        assert [set(r) for r in got] == [set(r) for r in cli["results"]]
        assert [set(t) for r in got for t in r["block"]] == [
            set(t) for r in cli["results"] for t in r["block"]
        ]
        assert [(r["session_id"], r["turn"], r["hit_turns"]) for r in got] == [
            (r["session_id"], r["turn"], r["hit_turns"]) for r in cli["results"]
        ]
        # the verbatim text is there, inside its data section
        paris = next(r for r in got if "Paris" in r["session_title"])
        hit = next(t for t in paris["block"] if t["turn"] == paris["turn"])
        assert hit["text"].startswith("<<<RECORD ") and hit["text"].endswith(">>>")
        assert "I bought a red umbrella at the Louvre shop." in hit["text"]

        after = await call(s, "search", keywords="umbrella", date_from="2024-02-01")
        assert [t for t in sessions_of(after) if "Paris" in t] == []
        assert any("Umbrella shopping" in t for t in sessions_of(after))
        before = await call(s, "search", keywords="umbrella", date_to="2024-01-31")
        assert len(sessions_of(before)) == 1 and "Paris" in sessions_of(before)[0]
        day = await call(s, "search", keywords="umbrella", date_from="2024-01-10", date_to="2024-01-10")
        assert len(sessions_of(day)) == 1 and "Paris" in sessions_of(day)[0]
        none = await call(s, "search", keywords="umbrella", date_from="2025-01-01")
        assert none.structured_content == {"results": []}
        one = await call(s, "search", keywords="umbrella", top_k=1, context=0)
        assert len(one.structured_content["results"]) == 1
        assert len(one.structured_content["results"][0]["block"]) == 1


async def test_show_and_resource(archive):
    async with serve(archive) as s:
        hit = (await call(s, "search", keywords="Trek bike")).structured_content["results"][0]
        sid = hit["session_id"]
        full = (await call(s, "show", session_id=sid)).structured_content
        assert full["session_id"] == sid and full["n_turns"] == 2
        assert [t["turn"] for t in full["turns"]] == [0, 1]
        assert "Tom wants to borrow the bike next weekend." in full["turns"][1]["text"]
        part = (await call(s, "show", session_id=sid, turn_from=1, turn_to=1)).structured_content
        assert [t["turn"] for t in part["turns"]] == [1]
        listed = {r.name: r for r in (await s.list_resources()).resources}
        assert len(listed) == 4 and listed[sid].uri == f"refind://session/{sid}"
        assert listed[sid].title == "2024-02-20 generic conversation, 2 turns"  # no chat title outside data
        res = await s.read_resource(listed[sid].uri)
        text = res.contents[0].text
        assert res.contents[0].mime_type == "text/markdown"
        assert text.startswith(f"# Session `{sid}`")
        assert inside_sections_only(text, "a blue Trek from the shop near the station")


async def test_stats(archive):
    cli = json.loads(refind(archive, "stats", "--json").stdout)
    async with serve(archive) as s:
        stats = (await call(s, "stats")).structured_content
        assert stats == cli
        assert stats["sessions"] == 4 and stats["turns"] == 6 and stats["formats"]["generic"]["files"] == 1


async def test_bad_inputs_are_errors_that_say_what_to_do(archive, tmp_path):
    async with serve(archive) as s:
        cases = [
            ({"keywords": "bike", "date_from": "2024-13-01"}, "YYYY-MM-DD"),
            ({"keywords": "bike", "date_to": "March"}, "YYYY-MM-DD"),
            ({"keywords": "bike", "date_from": "2024-03-01", "date_to": "2024-02-01"}, "after date_to"),
            ({"keywords": "?! ..."}, "no searchable word"),
            ({"keywords": "bike", "top_k": 0}, "top_k"),
            ({}, "keywords"),
        ]
        for args, words in cases:
            res = await s.call_tool("search", args)
            assert res.is_error, args
            assert words in res.content[0].text, (args, res.content[0].text)
        res = await s.call_tool("show", {"session_id": "chatgpt:nope"})
        assert res.is_error and "no session with id 'chatgpt:nope'" in res.content[0].text
        assert "search" in res.content[0].text
        sid = (await call(s, "search", keywords="Trek")).structured_content["results"][0]["session_id"]
        res = await s.call_tool("show", {"session_id": sid, "turn_from": 7})
        assert res.is_error and "turns 0..1" in res.content[0].text
        try:
            await s.read_resource("refind://session/chatgpt:nope")
        except Exception as exc:  # an MCP error, not a crash
            assert "no session with id" in str(exc)
        else:
            raise AssertionError("reading an unknown session must fail")
        assert (await call(s, "stats")).structured_content["sessions"] == 4  # still serving

    empty = tmp_path / "empty_home"
    async with serve(empty) as s:
        for name, args in (
            ("search", {"keywords": "bike"}),
            ("show", {"session_id": "x"}),
            ("ask", {"question": "q?"}),
        ):
            res = await s.call_tool(name, args)
            assert res.is_error and "run `refind ingest PATH`" in res.content[0].text, name
        assert (await call(s, "stats")).structured_content["turns"] == 0


async def test_poisoned_turn_stays_inside_its_data_section(archive):
    async with serve(archive) as s:
        res = await call(s, "search", keywords="zeppelin umbrella")
        text = res.content[0].text
        block = next(r for r in res.structured_content["results"] if "zeppelin" in json.dumps(r))
        turn = block["block"][0]["text"]
        # the poison is returned (it is the user's data) but only inside a complete section ...
        assert inside_sections_only(turn, POISON_MARK)
        assert inside_sections_only(turn, "ignore previous instructions")
        # ... whose fake end and start markers are broken up, so it cannot close its section early
        assert "RECORD 1 turn 1>>>" not in turn and "<<<RECORD 9" not in turn
        assert turn.count(">>>") == 1 and turn.count("<<<") == 1
        # the poisoned title is data too
        assert inside_sections_only(block["session_title"], "ignore previous instructions")
        assert POISON_MARK not in SECTION.sub("", "".join(t["text"] for t in block["block"]))
        assert "RECORD>>>" not in text
        shown = (await call(s, "show", session_id=block["session_id"])).structured_content
        assert all(t["text"].count(">>>") == 1 for t in shown["turns"])
        assert inside_sections_only(shown["turns"][0]["text"], POISON_MARK)
        md = (await s.read_resource(f"refind://session/{block['session_id']}")).contents[0].text
        assert inside_sections_only(md, POISON_MARK) and inside_sections_only(
            md, "ignore previous instructions"
        )
