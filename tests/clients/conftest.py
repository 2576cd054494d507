from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.clients.fake_openai_server import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv
