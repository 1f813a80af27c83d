"""A run's devices: the device pool (`pool.py`: leases, health checks, quarantine, replacement) over one backend
per device kind (`backend.py`: the protocol), AVD copies (`avd.py`) and core pinning (`affinity.py`)."""
