package httpapi

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// consoleFiles are the console's page, styles and scripts: plain HTML,
// CSS and JavaScript modules written for this project, embedded so that
// a node serves its console offline, from one binary.
//
//go:embed ui
var consoleFiles embed.FS

// consoleAsset is one embedded file as it is served.
type consoleAsset struct {
	body        []byte
	contentType string
	etag        string
}

// consoleAssets reads the embedded files once, by their path under /ui/
// ("" is the page).
func consoleAssets() map[string]consoleAsset {
	out := map[string]consoleAsset{}
	_ = fs.WalkDir(consoleFiles, "ui", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := consoleFiles.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		name := strings.TrimPrefix(p, "ui/")
		a := consoleAsset{body: body, contentType: assetType(name), etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		out[name] = a
		if name == "index.html" {
			out[""] = a
		}
		return nil
	})
	return out
}

func assetType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return "application/octet-stream"
}

// serveAsset answers GET /ui/ and its files; /ui moves to /ui/. The
// files revalidate by ETag, so a new binary's console loads at once.
func (c *console) serveAsset(w http.ResponseWriter, r *http.Request) {
	consoleHeaders(w)
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeConsoleError(w, http.StatusMethodNotAllowed, "the console's files take GET")
		return
	}
	if r.URL.Path == "/ui" {
		http.Redirect(w, r, "/ui/", http.StatusMovedPermanently)
		return
	}
	a, ok := c.assets[strings.TrimPrefix(r.URL.Path, "/ui/")]
	if !ok {
		writeConsoleError(w, http.StatusNotFound, "no such console file")
		return
	}
	h := w.Header()
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	if r.Header.Get("If-None-Match") == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, http.StatusOK, a.contentType, a.body)
}
