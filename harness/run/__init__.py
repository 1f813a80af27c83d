"""Running agents on tasks: the episode loop, the suite runner and its device pool, milestones and end states,
the one scoring function, trajectories (record writes, trajectory reads), the HTML report, tasks check and
the run-directory lock.
"""
