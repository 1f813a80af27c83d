"""One episode: agent calls under a deadline (`calls`), the task's start state (`start`), probes and live screen
questions (`probes`, `questions`), the step-at-a-time session (`session`) and the loop that asks an agent for
each step (`episode.run_episode`)."""
