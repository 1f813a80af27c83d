"""Running agents on devices: the episode loop (`episode`: `run_episode` records into a trajectory sink), agent calls
under a deadline (`calls`), start states (`start`), milestones and end states, probes and live screen questions
(`probes`, `questions`), the suite and QA runners on one worker machinery with the device pool, AVD copies and
Ray actors, the run-directory lock and `tasks check`.
"""
