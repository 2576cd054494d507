"""Property-based requests from the OpenAPI spec (schemathesis): no input yields a 5xx."""

from __future__ import annotations

from collections.abc import Callable

import pytest

schemathesis = pytest.importorskip("schemathesis")


def _checker(op, failures: list[str]) -> Callable[[], None]:
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=op.as_strategy())
    def check(case) -> None:
        response = case.call()
        intended = response.status_code == 501 and op.path.startswith("/v1/runs")
        if response.status_code >= 500 and not intended:  # 501: no RunService, by design
            failures.append(
                f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:200]}"
            )

    return check


@pytest.mark.slow
def test_no_server_errors_from_the_spec(app_factory):
    schema = schemathesis.openapi.from_asgi("/openapi.json", app_factory())
    failures: list[str] = []
    operations = [o.ok() for o in schema.get_all_operations()]
    assert len(operations) >= 9
    for op in operations:
        if op.path != "/readyz":  # 503 is its job when a model is down
            _checker(op, failures)()
    assert not failures
