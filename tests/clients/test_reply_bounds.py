"""Reply bounds (clients/wire.py): texts cut on a character boundary and the cut recorded, a
body cut off mid-string read back to its last whole character. Over a real socket in
tests/faults/test_big_replies.py; here the edges (multibyte text, escapes, tool arguments)."""

from __future__ import annotations

import json

from playscout.clients.chat import ChatResponse, ToolCall
from playscout.clients.wire import body_limit, bound_reply, partial_response, reply_cap


def test_the_cap_is_the_smaller_of_the_byte_cap_and_32_bytes_a_token() -> None:
    assert reply_cap(1024, 1_000_000) == 32_768
    assert reply_cap(100_000, 1_000_000) == 1_000_000
    assert body_limit(32_768) > 6 * 32_768  # a fully escaped text still fits


def test_texts_over_the_cap_are_cut_on_a_character_boundary_and_recorded() -> None:
    reply = ChatResponse(
        content="é" * 100,  # 200 bytes
        reasoning="r" * 10,
        tool_calls=[ToolCall(id="c", name="search", arguments='{"q": "' + "z" * 300 + '"}')],
        finish_reason="stop",
    )
    cut = bound_reply(reply, 51)
    assert cut.content == "é" * 25  # 50 bytes: the 26th would need 52
    assert cut.reasoning == "r" * 10 and len(cut.tool_calls[0].arguments) == 51
    assert cut.finish_reason == "length" and cut.cut_from_bytes == 200 + 10 + 309
    assert bound_reply(reply, 1000) is reply  # under the cap: untouched, nothing recorded


def test_a_body_cut_off_mid_string_keeps_its_whole_characters() -> None:
    text = 'say "hi" \\ é 😀 ' * 50
    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]})
    for end in range(len(body) - 60, len(body) - 20):  # every cut, escapes and pairs included
        got = partial_response(body[:end].encode(), 10_000, 0.1, "m", read=10**6)
        assert text.startswith(got.content) and len(got.content) > len(text) - 40, end
        assert got.finish_reason == "length" and got.cut_from_bytes == 10**6
    assert partial_response(b'{"choices": [', 100, 0.1, "m", read=99).content == ""
