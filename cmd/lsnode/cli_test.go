package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun_Dispatch(t *testing.T) {
	cases := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring; "" means stdout must be empty
		wantStderr string // substring; "" means stderr must be empty
	}{
		{"no args prints usage", nil, exitUsage, "", "usage: lsnode <command>"},
		{"help", []string{"help"}, exitOK, "usage: lsnode <command>", ""},
		{"--help", []string{"--help"}, exitOK, "usage: lsnode <command>", ""},
		{"-h", []string{"-h"}, exitOK, "usage: lsnode <command>", ""},
		{"help for one command", []string{"help", "version"}, exitOK, "lsnode version: print the version", ""},
		{"help for unknown command", []string{"help", "nope"}, exitUsage, "", `lsnode help: unknown command "nope"`},
		{"help with two names", []string{"help", "a", "b"}, exitUsage, "", "at most one command"},
		{"version", []string{"version"}, exitOK, "lsnode " + version, ""},
		{"version -h", []string{"version", "-h"}, exitOK, "--json", ""},
		{"--version", []string{"--version"}, exitOK, "lsnode " + version, ""},
		{"-v", []string{"-v"}, exitOK, "lsnode " + version, ""},
		{"--version --json", []string{"--version", "--json"}, exitOK, `"version": "` + version + `"`, ""},
		{"version bad flag", []string{"version", "--bogus"}, exitUsage, "", "flag provided but not defined: --bogus"},
		{"version extra arg", []string{"version", "extra"}, exitUsage, "", `lsnode version: unexpected argument "extra"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tc.wantCode, stderr)
			}
			checkOutput(t, "stdout", stdout, tc.wantStdout)
			checkOutput(t, "stderr", stderr, tc.wantStderr)
		})
	}
}

func checkOutput(t *testing.T, which, got, want string) {
	t.Helper()
	if want == "" && got != "" {
		t.Errorf("%s = %q, want it empty", which, got)
	}
	if !strings.Contains(got, want) {
		t.Errorf("%s = %q, want it to contain %q", which, got, want)
	}
}

func TestRun_UnknownCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "frobnicate", "--x")
	if code != exitUsage {
		t.Errorf("exit code = %d, want %d", code, exitUsage)
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want it empty", stdout)
	}
	if !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("stderr does not name the unknown command:\n%s", stderr)
	}
	for _, c := range commands() {
		if !strings.Contains(stderr, "  "+c.name+" ") {
			t.Errorf("stderr does not list command %q:\n%s", c.name, stderr)
		}
	}
}

func TestRun_EveryCommandRegistered(t *testing.T) {
	for _, name := range []string{"serve", "peers", "agents", "status", "events", "owed", "awaiting", "artifact", "version"} {
		if _, ok := lookup(name); !ok {
			t.Errorf("command %q is not registered", name)
		}
	}
}

func TestCommands_Table(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if c.name == "" || c.help == "" || c.run == nil {
			t.Errorf("incomplete entry %+v", c)
		}
		if strings.Contains(c.help, "\n") {
			t.Errorf("command %q: help must be one line", c.name)
		}
		if seen[c.name] {
			t.Errorf("command %q registered twice", c.name)
		}
		seen[c.name] = true
	}
}

func TestExitCode(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		wantCode   int
		wantStderr string
	}{
		{"success", nil, exitOK, ""},
		{"failure", errors.New("disk on fire"), exitFailure, "lsnode x: disk on fire\n"},
		{"wrapped usage error", fmt.Errorf("wrapped: %w", usageErrorf("need --peer")), exitUsage, "lsnode x: wrapped: need --peer\nRun 'lsnode x -h' for usage.\n"},
		{"usage error already reported", &usageError{err: errors.New("bad flag"), reported: true}, exitUsage, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := exitCode("x", tc.err, &stderr); got != tc.wantCode {
				t.Errorf("exitCode = %d, want %d", got, tc.wantCode)
			}
			if stderr.String() != tc.wantStderr {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}
