package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/datadir"
)

// runServeIn runs `lsnode serve --data dir args...` in-process. A serve
// that starts (a flag that should have been refused) is stopped after a
// few seconds, so the test fails on the dir it created instead of hanging.
func runServeIn(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	args = append([]string{"serve", "--data", dir, "--memory-limit", "off"}, args...)
	code := run(ctx, args, &out, &errb)
	return code, errb.String()
}

// TestServe_BadFlagsLeaveTheDataDirUntouched: every flag and address is
// checked before the data dir is created or opened, so a refused serve
// leaves a new dir absent and an existing empty one empty.
func TestServe_BadFlagsLeaveTheDataDirUntouched(t *testing.T) {
	badKey := filepath.Join(t.TempDir(), "gossip.key")
	if err := os.WriteFile(badKey, []byte("not base64\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"http port out of range", []string{"--http", "127.0.0.1:99999"}, nil, "port 99999 is not in 0..65535"},
		{"http port not a number", []string{"--http", "127.0.0.1:eighty"}, nil, `port "eighty"`},
		{"http without port", []string{"--http", "127.0.0.1"}, nil, "missing port"},
		{"grpc port out of range", []string{"--grpc", "127.0.0.1:70000"}, nil, "--grpc"},
		{"gossip port out of range", []string{"--grpc", "127.0.0.1:0", "--gossip", "127.0.0.1:99999"}, nil, "BindAddr"},
		{"advertise not an IP", []string{"--grpc", "127.0.0.1:0", "--gossip", "127.0.0.1:0", "--advertise", "host:7946"}, nil, "AdvertiseAddr"},
		{"advertise without gossip", []string{"--advertise", "127.0.0.1:7946"}, nil, "--advertise needs --gossip"},
		{"grpc-advertise without grpc", []string{"--grpc-advertise", "127.0.0.1:8766"}, nil, "--grpc-advertise needs --grpc"},
		{"grpc-advertise port 0", []string{"--grpc", "127.0.0.1:0", "--grpc-advertise", "127.0.0.1:0"}, nil, "--grpc-advertise"},
		{"peer port out of range", []string{"--grpc", "127.0.0.1:0", "--peer", "127.0.0.1:99999"}, nil, "--peer"},
		{"peer without port", []string{"--grpc", "127.0.0.1:0", "--peer", "node-2"}, nil, "--peer"},
		{"join port out of range", []string{"--grpc", "127.0.0.1:0", "--gossip", "127.0.0.1:0", "--join", "127.0.0.1:99999"}, nil, "--join"},
		{"two listeners on one port", []string{"--http", "127.0.0.1:18765", "--grpc", "0.0.0.0:18765"}, nil, "--http and --grpc both bind port 18765"},
		{"bad duration flag", []string{"--max-long-poll", "soon"}, nil, `--max-long-poll: want a duration with a unit, such as 30s or 5m, got "soon"`},
		{"bad duration variable", nil, map[string]string{"LSNODE_MAX_LONG_POLL": "soon"}, "LSNODE_MAX_LONG_POLL"},
		{"negative shutdown timeout", []string{"--shutdown-timeout", "-1s"}, nil, "--shutdown-timeout"},
		{"peer without grpc", []string{"--peer", "127.0.0.1:8766"}, nil, "--peer needs --grpc"},
		{"public bind without token", []string{"--http", "0.0.0.0:0"}, nil, "bearer token"},
		{"missing TLS key pair", []string{"--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem"}, nil, "HTTPS key pair"},
		{"unreadable gossip key file", []string{"--grpc", "127.0.0.1:0", "--gossip", "127.0.0.1:0", "--gossip-key-file", badKey}, nil, "gossip key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			dir := filepath.Join(t.TempDir(), "new")
			code, stderr := runServeIn(t, dir, tc.args...)
			if code == exitOK || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want a failure naming %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the refused serve created its data dir (stat: %v)", err)
			}
		})
	}
	// A port that is valid but in use is found only once the store is
	// open: the failed start takes back what it created.
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, flag := range []string{"--http", "--grpc"} {
		t.Run(flag+" port in use", func(t *testing.T) {
			args := []string{"--http", "127.0.0.1:0", flag, held.Addr().String()}
			dir := filepath.Join(t.TempDir(), "new")
			if code, stderr := runServeIn(t, dir, args...); code == exitOK || !strings.Contains(stderr, "address already in use") {
				t.Fatalf("serve on a port in use: exit %d, %s", code, stderr)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the failed serve left its new data dir (stat: %v)", err)
			}
			existing := t.TempDir()
			if code, stderr := runServeIn(t, existing, args...); code == exitOK {
				t.Fatalf("serve on a port in use: %s", stderr)
			}
			if names, err := os.ReadDir(existing); err != nil || len(names) != 0 {
				t.Errorf("the failed serve left %v in an empty data dir (%v)", names, err)
			}
		})
	}
	t.Run("existing dir stays empty", func(t *testing.T) {
		dir := t.TempDir()
		if code, stderr := runServeIn(t, dir, "--http", "127.0.0.1:99999"); code == exitOK {
			t.Fatalf("serve on port 99999 succeeded: %s", stderr)
		}
		if names, err := os.ReadDir(dir); err != nil || len(names) != 0 {
			t.Errorf("the refused serve left %v in its data dir (%v)", names, err)
		}
	})
}

// TestServe_HeldDataDirIsRefused: a serve on a dir whose lock another
// holder has exits 1 naming the dir, the holder's pid and its address,
// and creates nothing in the dir.
func TestServe_HeldDataDirIsRefused(t *testing.T) {
	dir := t.TempDir()
	l, err := datadir.Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := l.SetHTTP("http://127.0.0.1:18765"); err != nil {
		t.Fatal(err)
	}
	code, stderr := runServeIn(t, dir, "--http", "127.0.0.1:0")
	if code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	for _, want := range []string{dir, "pid " + strconv.Itoa(os.Getpid()), "http://127.0.0.1:18765"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not name %s", stderr, want)
		}
	}
	if names, err := os.ReadDir(dir); err != nil || len(names) != 1 || names[0].Name() != datadir.LockFile {
		t.Errorf("the refused serve left %v in the held dir (%v), want only %s", names, err, datadir.LockFile)
	}
}
