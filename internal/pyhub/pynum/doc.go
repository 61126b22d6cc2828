// Package pynum reads number texts as Python's int() and float() read
// them: surrounding Unicode whitespace, decimal digits of any script,
// single underscores between digits, and, for float(), inf, infinity
// and nan in any case. The HTTP routes' integer query parameters
// (node/httpapi, sync/fakehub), the MCP tools' integer arguments
// (node/mcp) and the hub's float environment variables (pytime's
// periods) all parse here, and fail with Python's ValueError texts
// (docs/compatibility.md).
package pynum
