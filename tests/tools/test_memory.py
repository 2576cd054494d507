"""memory: per-run notes, bounded, isolated between contexts, safe under concurrent calls."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from playscout.tools.memory import MemoryArgs, memory
from playscout.tools.registry import call_tool
from playscout.tools.session_memory import MAX_ENTRIES, SessionMemory
from playscout.tools.tool import Tool, ToolContext, ToolError

TOOLS = {"memory": Tool("memory", "notes", MemoryArgs, memory)}


def _ctx() -> ToolContext:
    return ToolContext(backend=None, sport="basketball")  # type: ignore[arg-type]  # unused here


def _call(ctx: ToolContext, **raw: Any):  # type: ignore[no-untyped-def]
    return call_tool(TOOLS, ctx, "memory", raw)


def test_write_read_list_delete_round_trip() -> None:
    ctx = _ctx()
    assert _call(ctx, action="write", key="target game", value="401584793").observation == (
        "saved note 'target game' (1/100)"
    )
    assert (
        _call(ctx, action="write", key="clips", value="401584793_141\n401584793_150").error is None
    )
    assert _call(ctx, action="write", key="target game", value="401584794").observation == (
        "updated note 'target game' (2/100)"
    )
    assert _call(ctx, action="read", key=" target game ").observation == "target game: 401584794"
    listed = _call(ctx, action="list")
    assert listed.observation.splitlines() == [
        "2 note(s)",
        "- target game: 401584794",
        "- clips: 401584793_141 401584793_150",
    ]
    assert listed.data.notes == {
        "target game": "401584794",
        "clips": "401584793_141\n401584793_150",
    }
    assert _call(ctx, action="delete", key="clips").observation == "deleted note 'clips' (1 left)"
    missing = _call(ctx, action="read", key="clips")
    assert missing.error == "no note 'clips'; keys: target game"


def test_list_preview_is_cut() -> None:
    ctx = _ctx()
    _call(ctx, action="write", key="long", value="x" * 500)
    line = _call(ctx, action="list").observation.splitlines()[1]
    assert line == "- long: " + "x" * 120 + "..."


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"action": "write", "key": "k"}, "give a value"),
        ({"action": "write", "key": "k", "value": "   "}, "give a value"),
        ({"action": "write", "value": "v"}, "give a key"),
        ({"action": "write", "key": "k" * 65, "value": "v"}, "key longer than 64"),
        ({"action": "write", "key": "a\nb", "value": "v"}, "printable text on one line"),
        ({"action": "write", "key": "k", "value": "v" * 2001}, "value longer than 2000"),
        ({"action": "delete", "key": "nope"}, "no note 'nope' to delete"),
        ({"action": "search", "key": "k"}, "invalid argument action"),
        ({"action": "read", "key": "k", "session": "other"}, "invalid argument session"),
    ],
)
def test_errors(raw: dict[str, Any], message: str) -> None:
    result = _call(_ctx(), **raw)
    assert result.error is not None and message in result.error


def test_limits_are_inclusive() -> None:
    ctx = _ctx()
    assert _call(ctx, action="write", key="k" * 64, value="v" * 2000).error is None


def test_full_memory_refuses_new_keys_but_updates_old_ones() -> None:
    store = SessionMemory()
    for i in range(MAX_ENTRIES):
        store.write(f"k{i}", "v")
    with pytest.raises(ToolError, match="memory is full"):
        store.write("one more", "v")
    assert store.write("k0", "new") is True and store.read("k0") == "new"
    store.delete("k1")
    store.write("one more", "v")
    assert len(store) == MAX_ENTRIES


def test_contexts_do_not_share_notes() -> None:
    a, b = _ctx(), _ctx()
    _call(a, action="write", key="game", value="A")
    assert _call(b, action="read", key="game").error is not None
    assert a.memory is not b.memory


def test_the_context_memory_is_the_store() -> None:
    ctx = _ctx()
    own = SessionMemory(max_entries=1)
    ctx.memory = own
    _call(ctx, action="write", key="a", value="1")
    assert own.read("a") == "1"
    assert "memory is full (1 notes)" in (
        _call(ctx, action="write", key="b", value="2").error or ""
    )


def test_concurrent_writers_never_exceed_the_bound() -> None:
    store = SessionMemory()
    full: list[int] = []

    def writer(t: int) -> None:
        for i in range(50):
            try:
                store.write(f"{t}-{i}", "v")
            except ToolError:
                full.append(1)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store) == MAX_ENTRIES and len(full) == 8 * 50 - MAX_ENTRIES
