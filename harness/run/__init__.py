"""Running agents on devices, in five parts a reader finds by name (each imports only the parts listed before it):

- `judge`: live judging of a screen and the device state - milestones (the hit rule), state checks, end states;
- `loop`: one episode - agent calls under a deadline, start states, probes and live screen questions, the
  step-at-a-time session and `run_episode`;
- `fleet`: the devices - the pool that leases, health-checks, quarantines and replaces them, AVD copies, core
  pinning;
- `orchestration`: whole runs - the one driver over an executor (pool slots or Ray actors), the run lifecycle and
  lock, the live view, the suite and QA runners, episodes driven from outside (Gymnasium, MCP);
- `authoring`: tasks made and proven - `tasks record` (a demonstration into a task) and `tasks check`.
"""
