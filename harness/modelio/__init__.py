"""Model input and output: what a vision-language model is shown and how its text becomes a unified action.

The prompts (prompting.py, prompts/), the screenshot prepared for a model (imaging.py), the output formats' parsers
and formatters (parsers/: json, UI-TARS, Qwen, AgentCPM-GUI). The `openai` agent, offline evaluation and the SFT
export share them, so a prompt or a format means the same everywhere.
"""
