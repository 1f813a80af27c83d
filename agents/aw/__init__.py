"""Reference solutions of AndroidWorld's task classes, per app (`agents/androidworld_reference.py` merges them)."""
