"""Remote executors: hook points served by another process over JSON-RPC 2.0 or MCP."""
