// Package pyhttp holds what the Python hub's HTTP answers and requests
// owe to Python's standard library: query strings read as
// dict(urllib.parse.parse_qsl(query)) reads them, parameters written as
// urllib.parse.urlencode writes them, and the HTML page of
// http.server's send_error (docs/compatibility.md, request policy and
// sync routes). node/httpapi and sync/fakehub answer with it; sync/hubpull
// and sync/fakehub ask with it.
package pyhttp
