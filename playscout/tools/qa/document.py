"""document_qa (paper Figs. 44, 46): one question asked of each listed document, read whole in
original order and cut in tokens. Without a configured document model an extractive reader
answers and says so."""

from __future__ import annotations

import functools
import time
from typing import Any

from playscout.clients.chat import ChatMessage
from playscout.clients.sync import run_sync
from playscout.search.backend_api import SearchError
from playscout.tools.declare import tool
from playscout.tools.prompts import qa_prompt
from playscout.tools.qa.args import DocumentQAArgs
from playscout.tools.qa.fanout import (
    Job,
    ask,
    check_ids,
    extract,
    fan_out,
    per_record,
    require_one_known,
    result,
)
from playscout.tools.qa.results import QAItem
from playscout.tools.roles import DOCUMENT_LLM
from playscout.tools.tokens import token_counter
from playscout.tools.tool import ToolContext, ToolError, ToolResult

NO_DOC_LLM = (
    "no document LLM configured: extractive reader; answer is the best-matching sentence, "
    "or the box-score rows the question names or asks the leader of"
)


async def document_qa_async(ctx: ToolContext, args: DocumentQAArgs) -> ToolResult:
    t0 = time.perf_counter()
    ids, notes = check_ids(args.doc_ids, ctx.qa.max_ids, "document", args.query)
    query = args.query.strip()
    try:
        records = ctx.backend.get_documents(ctx.sport, ids)
    except SearchError as e:
        raise ToolError(str(e)) from None
    require_one_known(ids, records, "document", "search_documents")
    counter = token_counter(getattr(ctx.qa, "tokenizer_path", None))
    client, ep = ctx.models.document_llm, ctx.qa.document_llm
    if client is None:
        notes.append(NO_DOC_LLM)

    def job(item: QAItem, record: Any) -> Job:
        cut = counter.truncate(record.text, ctx.qa.max_document_tokens)
        if cut.cut:
            item.notes.append(
                f"document cut to its first {cut.tokens} of {cut.total_tokens} tokens"
            )
        if client is None:
            return functools.partial(extract, cut.text, query, item)
        prompt = qa_prompt("document_qa", ctx.style, document_content=cut.text, query=query)
        msgs = [ChatMessage(role="user", content=prompt)]
        return functools.partial(ask, client, msgs, ep, item)

    missing = "document {id} not found; use doc ids from search_documents"
    jobs = per_record(ids, records, missing, job)
    items = await fan_out(jobs, ctx.qa.max_concurrency)
    source = f"model {client.model}" if client is not None else "extractive reader"
    return result("document_qa", ctx, query, source, items, notes, t0)


@tool(
    "document_qa",
    "Ask one question of each listed document (full text, read by a language model). "
    "Returns per document an answer, a confidence and the supporting evidence.",
    group="qa",
    roles=(DOCUMENT_LLM,),
)
def document_qa(ctx: ToolContext, args: DocumentQAArgs) -> ToolResult:
    """Synchronous entry for the registry; the work runs on the shared background loop."""
    return run_sync(document_qa_async(ctx, args))
