package pyhttp

import "testing"

// TestErrorPage checks the page against CPython 3.11's
// http.server.DEFAULT_ERROR_MESSAGE filled as send_error fills it.
func TestErrorPage(t *testing.T) {
	page := func(code, message, explain string) string {
		return "<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n" +
			"        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n" +
			"        <p>Error code: " + code + "</p>\n        <p>Message: " + message + ".</p>\n" +
			"        <p>Error code explanation: " + code + " - " + explain + ".</p>\n    </body>\n</html>\n"
	}
	tests := []struct {
		status  int
		message string
		want    string
	}{
		{404, "", page("404", "Not Found", "Nothing matches the given URI")},
		{501, "Unsupported method ('BREW')", page("501", "Unsupported method ('BREW')", "Server does not support this operation")},
		{401, "a<b&c>", page("401", "a&lt;b&amp;c&gt;", "No permission -- see authorization schemes")},
	}
	for _, tt := range tests {
		if got := string(ErrorPage(tt.status, tt.message)); got != tt.want {
			t.Errorf("ErrorPage(%d, %q) =\n%s\nwant\n%s", tt.status, tt.message, got, tt.want)
		}
	}
}
