"""A run's devices: the device pool (`pool`: leases, health checks, quarantine, replacement) over one backend per
device kind behind one protocol (`backend`: `Backend`, `Fleet`): devices in threads (`embedded`), device processes
(`processes`), in-process devices (`inprocess`), a user's emulator (`emulator`), a phone (`phone`); the private adb
server embedded devices share (`server`); which kind a slot gets (`kinds`); AVD copies (`avd`) and core pinning
(`affinity`)."""
