"""playscout: agentic question answering over sports video and documents at corpus scale.

The entry points, imported on first use so that `import playscout` stays cheap (no torch):

- `Settings`: every knob, from the environment (`PLAYSCOUT_...`) or a file.
- `open_backend(target)`: open an index (a directory, or an Elasticsearch URL).
- `Runtime.from_settings(settings)`: backend, model clients and corpus; `runtime.tool_context`
  and `runtime.agent` make a run.
- `Agent`: the LangGraph ReAct agent (`await agent.run(question)`, or `agent.run_sync`).
- `prepare_ask(request, settings)`, `prepare_run(request, settings)`: the use cases the CLI
  and the API share (an ask, a batch run), with the same defaults and checks.
- `run_eval(...)`: a benchmark task through the agent, resumable.
- `create_app(settings)`: the HTTP API.

The layers and what each may import are in docs/architecture.md.
"""

from __future__ import annotations

import os

from playscout import _torchvision_hook
from playscout._lazy import lazy_exports

_torchvision_hook.install()
# OpenMP threads that wait by spinning burn the cores their neighbours need: `make demo`
# beside two busy processes on 2 cores took 90.6 s wall / 84.2 CPU-s spinning and 63.1 s /
# 49.6 CPU-s waiting passively (benchmarks/demo.py --burners 2). Set before torch loads
# libgomp; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_EXPORTS = {
    "Settings": "playscout.config",
    "open_backend": "playscout.search",
    "Runtime": "playscout.runtime",
    "Agent": "playscout.agent",
    "run_eval": "playscout.eval",
    "prepare_ask": "playscout.usecases.ask",
    "prepare_run": "playscout.usecases.run",
    "create_app": "playscout.serving.app",
}
__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
