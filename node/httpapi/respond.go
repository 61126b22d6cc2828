package httpapi

import (
	"net/http"
	"strconv"

	"github.com/lsnode/lsnode/internal/pyhub/pyhttp"
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

const (
	contentJSON = "application/json; charset=utf-8"
	contentText = "text/plain; charset=utf-8"
	contentHTML = pyhttp.PageContentType
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

// writeErrorPage sends the HTML page Python's BaseHTTPRequestHandler
// send_error produces (the hub answers 401, 403 and 404 with it).
func writeErrorPage(w http.ResponseWriter, status int, message string) {
	writeBody(w, status, contentHTML, pyhttp.ErrorPage(status, message))
}
