package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

const (
	contentJSON = "application/json; charset=utf-8"
	contentText = "text/plain; charset=utf-8"
	contentHTML = "text/html;charset=utf-8"
)

// writeJSON writes v as the Python hub writes its JSON bodies (json.dumps
// with ", " and ": " separators). v is a pyjson value: use pyjson.Object
// where key order matters.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := pyjson.Compact(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error": "internal error: response not encodable"}`)
	}
	writeBody(w, status, contentJSON, body)
}

// writeBody writes a complete response with its length.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// errorJSON is the {"error": msg} body of the routes' refusals.
func errorJSON(msg string) pyjson.Object {
	return pyjson.Object{{Key: "error", Value: msg}}
}

// errorPageExplain holds the explanations Python's http.server prints on
// its error pages, for the statuses this surface sends as pages.
var errorPageExplain = map[int]string{
	http.StatusUnauthorized:     "No permission -- see authorization schemes",
	http.StatusForbidden:        "Request forbidden -- authorization will not succeed",
	http.StatusNotFound:         "Nothing matches the given URI",
	http.StatusNotImplemented:   "Server does not support this operation",
	http.StatusMethodNotAllowed: "Specified method is invalid for this resource",
}

// pageEscaper escapes a page message as Python's html.escape(quote=False).
var pageEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// writeErrorPage sends the HTML page Python's BaseHTTPRequestHandler
// send_error produces (the hub answers 401, 403 and 404 with it).
func writeErrorPage(w http.ResponseWriter, status int, message string) {
	if message == "" {
		message = http.StatusText(status)
	}
	body := fmt.Sprintf(`<!DOCTYPE HTML>
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
`, status, pageEscaper.Replace(message), status, errorPageExplain[status])
	writeBody(w, status, contentHTML, []byte(body))
}
