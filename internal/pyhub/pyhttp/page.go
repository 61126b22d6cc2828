package pyhttp

import (
	"fmt"
	"net/http"
	"strings"
)

// PageContentType is the Content-Type of an ErrorPage, spelled as
// http.server spells it.
const PageContentType = "text/html;charset=utf-8"

// pageExplain holds the explanations http.server prints on its error
// pages, for the statuses the hub (and lsnode in its place) sends as
// pages.
var pageExplain = map[int]string{
	http.StatusUnauthorized:     "No permission -- see authorization schemes",
	http.StatusForbidden:        "Request forbidden -- authorization will not succeed",
	http.StatusNotFound:         "Nothing matches the given URI",
	http.StatusMethodNotAllowed: "Specified method is invalid for this resource",
	http.StatusNotImplemented:   "Server does not support this operation",
}

// pageEscaper escapes a page message as Python's html.escape(quote=False).
var pageEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// ErrorPage is the HTML body of BaseHTTPRequestHandler.send_error(status,
// message); an empty message is the status text, as send_error makes it.
func ErrorPage(status int, message string) []byte {
	if message == "" {
		message = http.StatusText(status)
	}
	return fmt.Appendf(nil, `<!DOCTYPE HTML>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <title>Error response</title>
    </head>
    <body>
        <h1>Error response</h1>
        <p>Error code: %d</p>
        <p>Message: %s.</p>
        <p>Error code explanation: %d - %s.</p>
    </body>
</html>
`, status, pageEscaper.Replace(message), status, pageExplain[status])
}
