"""HTTP routes, one module per resource; they stay thin and call the serving services."""

from fastapi import Request

from playscout.serving.state import ServingState


def get_state(request: Request) -> ServingState:
    state: ServingState = request.app.state.serving
    return state
