"""Whole runs: the one driver over an executor (`driver`: device-pool slots, or Ray actors in `distributed`), the
run lifecycle (`lifecycle`) and lock (`lock`), the live view (`live`), the suite and QA runners (`suite`,
`qa_run`), and episodes driven from outside on a one-slot pool (`interactive`: Gymnasium, MCP)."""
