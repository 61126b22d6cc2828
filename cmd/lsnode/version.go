package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is this build's version. Release builds set it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// buildInfo says what this binary is.
type buildInfo struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	Commit    string `json:"commit,omitempty"` // VCS revision, when the build recorded one
	Modified  bool   `json:"modified,omitempty"`
}

// readBuildInfo takes the commit from the VCS stamp that `go build` records
// (-buildvcs); binaries built without one, such as test binaries, have none.
func readBuildInfo() buildInfo {
	bi := buildInfo{Version: version, GoVersion: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return bi
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			bi.Commit = s.Value
		case "vcs.modified":
			bi.Modified = s.Value == "true"
		}
	}
	return bi
}

// String is the one-line form: lsnode 0.1.0-dev (go1.26.8, 0123456789ab-dirty).
func (b buildInfo) String() string {
	if b.Commit == "" {
		return fmt.Sprintf("lsnode %s (%s)", b.Version, b.GoVersion)
	}
	commit := b.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if b.Modified {
		commit += "-dirty"
	}
	return fmt.Sprintf("lsnode %s (%s, %s)", b.Version, b.GoVersion, commit)
}

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stdout, stderr)
	asJSON := fs.Bool("json", false, "print the version as a JSON object")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	bi := readBuildInfo()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(bi)
	}
	_, err := fmt.Fprintln(stdout, bi)
	return err
}
