package mcp

// structuredSince is the first MCP version whose tools have an
// outputSchema and whose results carry structuredContent.
const structuredSince = "2025-06-18"

// wantsStructured reports whether a client speaking protocol version
// (the MCP-Protocol-Version header, or the request's _meta in the
// sessionless protocol) gets structured results and output schemas: the
// hub's bare clients (no version) and the 2024-11-05 and 2025-03-26 eras
// get the hub's answer, the newer eras also the structured one
// (docs/compatibility.md, "MCP client eras"). Versions are dates, so
// they compare as strings.
func wantsStructured(version string) bool { return version >= structuredSince }
