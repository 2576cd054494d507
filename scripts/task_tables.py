"""Rewrite the generated task and format tables of docs/published-data.md from the task
declarations (playscout/eval/tasks/listing.py); tests/eval/tasks/test_registry.py fails until
this is run after a task is added or changed. Run from the repository root."""

from __future__ import annotations

from pathlib import Path

from playscout.eval.tasks.listing import with_tables

DOC = Path("docs/published-data.md")


def main() -> None:
    text = DOC.read_text()
    new = with_tables(text)
    DOC.write_text(new)
    print(f"{DOC}: {'rewritten' if new != text else 'already up to date'}")


if __name__ == "__main__":
    main()
