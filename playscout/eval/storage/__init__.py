"""Storage: a run directory on disk. Its typed result rows (`records`), the crash-safe JSONL
stores of results and judgements (`store`), the run's status (`status`) and the human verdicts
kept beside them (`human`). The bottom of eval: it imports nothing of eval but its errors."""
