"""Live judging: does a screen (and the device state behind it) meet a task's checks? Milestones (`milestones`: the
hit rule), state checks read through the device's shell (`state_check`), end states (`end_state`)."""
