"""Running: one batch run of a task. What it is (`spec`), what it needs before it starts
(`preflight`), the runner (resumable, concurrent), the response cache, the spans of its
questions (`tracing`), what ran and the comparability stamp it records (`ran`, `stamp`) and the
judge step over a finished run (`judge`)."""
