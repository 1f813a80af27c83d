"""Prompt files of the agents (package data: *.md read with importlib.resources)."""
