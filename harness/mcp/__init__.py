"""The MCP server of `droidharness mcp`: the phone tools (tools.py) and their serving over the official `mcp` SDK
(server.py). docs/mcp.md has the tools, the transports and a client configuration."""
