package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestBuildInfo_String(t *testing.T) {
	cases := []struct {
		name string
		bi   buildInfo
		want string
	}{
		{"no commit", buildInfo{Version: "1.2.3", GoVersion: "go1.26.8"}, "lsnode 1.2.3 (go1.26.8)"},
		{"commit is shortened", buildInfo{Version: "1.2.3", GoVersion: "go1.26.8", Commit: "0123456789abcdef0123"}, "lsnode 1.2.3 (go1.26.8, 0123456789ab)"},
		{"modified tree", buildInfo{Version: "1.2.3", GoVersion: "go1.26.8", Commit: "abc", Modified: true}, "lsnode 1.2.3 (go1.26.8, abc-dirty)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.bi.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVersion_Text(t *testing.T) {
	code, stdout, _ := runCLI(t, "version")
	if code != exitOK {
		t.Fatalf("exit code = %d", code)
	}
	want := "lsnode " + version + " (" + runtime.Version()
	if !strings.HasPrefix(stdout, want) || !strings.HasSuffix(stdout, ")\n") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("stdout = %q, want one line starting %q", stdout, want)
	}
}

func TestVersion_JSON(t *testing.T) {
	code, stdout, _ := runCLI(t, "version", "--json")
	if code != exitOK {
		t.Fatalf("exit code = %d", code)
	}
	var got buildInfo
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if got != readBuildInfo() {
		t.Errorf("JSON = %+v, want %+v", got, readBuildInfo())
	}
	if got.Version != version || got.GoVersion != runtime.Version() {
		t.Errorf("JSON = %+v, want version %q and go %q", got, version, runtime.Version())
	}
}
