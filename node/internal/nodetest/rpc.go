package nodetest

// ToolsList is a tools/list request with id 1.
const ToolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
