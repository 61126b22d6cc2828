//go:build e2e

// Package e2e holds black-box tests that run real lsnode binaries. The
// binary comes from LSNODE_BIN (`make e2e` builds bin/lsnode and sets it).
package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// Harness timeouts.
const (
	startTimeout = 20 * time.Second // from exec to a 200 on /healthz
	stopTimeout  = 20 * time.Second // from SIGTERM to exit
	cliTimeout   = 60 * time.Second // one client command
	// requestTimeout bounds one request of the harness (and of rpDo): a
	// node that stops answering must not hang a poll.
	requestTimeout = 5 * time.Second
)

// lsnodeBin is the binary under test; the test is skipped without one.
func lsnodeBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("LSNODE_BIN")
	if bin == "" {
		t.Skip("LSNODE_BIN is not set (run `make e2e`)")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("LSNODE_BIN: %v", err)
	}
	return bin
}

// nodeOptions configure one `lsnode serve` process.
type nodeOptions struct {
	DataDir string   // "" means a fresh temp dir
	Port    int      // 0 means a free port, picked again if the bind races
	Token   string   // bearer token, passed by file; "" means none
	Args    []string // extra serve flags
	Env     []string // extra environment, KEY=VALUE

	// Netns runs the node inside that network namespace (`ip netns exec`,
	// see netns.go); Host is the address its HTTP listener binds and the
	// test reaches it at, "" meaning 127.0.0.1. A node in a namespace
	// needs Host set to its address there (testNet.Addr).
	Netns string
	Host  string

	// CAFile, when set, is the CA that signed the node's HTTPS certificate
	// (pass --tls-cert/--tls-key in Args): the node is reached over
	// https, and the harness and CLI (LSNODE_TLS_CA) trust this CA.
	CAFile string
}

// lsnodeProc is one running `lsnode serve` on 127.0.0.1.
type lsnodeProc struct {
	t    testing.TB
	opts nodeOptions
	URL  string // http://127.0.0.1:<port>

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs *lockedBuffer // stdout and stderr of every run
	http *http.Client  // trusts opts.CAFile; set by startLsnode
	done chan struct{} // closed when the process has exited
	err  error         // the exit status, once done
}

// startLsnode starts a node and waits until it answers /healthz. The
// test's cleanup stops it.
func startLsnode(t testing.TB, opts nodeOptions) *lsnodeProc {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	p := &lsnodeProc{t: t, opts: opts, logs: &lockedBuffer{}, http: &http.Client{Timeout: requestTimeout}}
	if opts.CAFile != "" {
		p.http = caClient(t, opts.CAFile)
	}
	for attempt := 0; ; attempt++ {
		err := p.start()
		if err == nil {
			break
		}
		if opts.Port != 0 || attempt == 2 || !strings.Contains(p.Logs(), "address already in use") {
			t.Fatalf("start lsnode: %v\n%s", err, p.Logs())
		}
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("stop lsnode: %v\n%s", err, p.Logs())
		}
	})
	return p
}

// startLsnodes starts one node per options at the same moment: every
// process is exec'd before any is waited for. Each options must name its
// Port (the nodes usually point at each other's addresses). It returns
// the processes, with the moment the first was exec'd, once all answer
// /healthz, or the first error (every process started is killed then).
// The test's cleanup stops them.
func startLsnodes(t testing.TB, all []nodeOptions) ([]*lsnodeProc, time.Time, error) {
	t.Helper()
	procs := make([]*lsnodeProc, len(all))
	dones := make([]chan struct{}, len(all))
	for i, opts := range all {
		if opts.Port == 0 {
			t.Fatal("startLsnodes: every node needs its Port")
		}
		if opts.DataDir == "" {
			opts.DataDir = t.TempDir()
		}
		procs[i] = &lsnodeProc{t: t, opts: opts, logs: &lockedBuffer{}, http: &http.Client{Timeout: requestTimeout}}
	}
	killAll := func() {
		for _, p := range procs {
			if p.cmd != nil {
				p.Kill()
			}
		}
	}
	started := time.Now()
	for i, p := range procs {
		done, err := p.exec()
		if err != nil {
			killAll()
			return nil, started, err
		}
		dones[i] = done
	}
	for i, p := range procs {
		if err := p.waitHealthy(dones[i]); err != nil {
			killAll()
			return nil, started, fmt.Errorf("node %d: %w\n%s", i, err, p.Logs())
		}
	}
	t.Cleanup(func() {
		for _, p := range procs {
			if err := p.Stop(); err != nil {
				t.Errorf("stop lsnode: %v\n%s", err, p.Logs())
			}
		}
	})
	return procs, started, nil
}

// start execs the binary and waits for health.
func (p *lsnodeProc) start() error {
	done, err := p.exec()
	if err != nil {
		return err
	}
	return p.waitHealthy(done)
}

// exec starts the binary without waiting for it; done is closed when the
// process exits.
func (p *lsnodeProc) exec() (chan struct{}, error) {
	port := p.opts.Port
	if port == 0 {
		port = freePort(p.t)
	}
	host := p.opts.Host
	if host == "" {
		host = "127.0.0.1"
	}
	hostPort := net.JoinHostPort(host, strconv.Itoa(port))
	args := []string{"serve", "--data", p.opts.DataDir, "--http", hostPort}
	if p.opts.Token != "" {
		args = append(args, "--token-file", writeToken(p.t, p.opts.Token))
	}
	cmd := exec.Command(lsnodeBin(p.t), append(args, p.opts.Args...)...)
	if p.opts.Netns != "" {
		// ip execs the binary after entering the namespace: same pid, so
		// signals reach lsnode itself.
		cmd = exec.Command("ip", append([]string{"netns", "exec", p.opts.Netns, cmd.Path}, cmd.Args[1:]...)...)
	}
	cmd.Env = append(cleanEnv(), p.opts.Env...)
	cmd.Stdout, cmd.Stderr = p.logs, p.logs // one log across restarts
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	p.mu.Lock()
	scheme := "http://"
	if p.opts.CAFile != "" {
		scheme = "https://"
	}
	p.cmd, p.done, p.URL = cmd, done, scheme+hostPort
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	return done, nil
}

func (p *lsnodeProc) waitHealthy(done chan struct{}) error {
	exited := false
	ended, _ := testwait.Poll(startTimeout, func() (bool, string) {
		select {
		case <-done:
			exited = true
			return true, ""
		default:
		}
		resp, err := p.http.Get(p.URL + "/healthz")
		if err != nil {
			return false, ""
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, ""
	})
	switch {
	case exited:
		return fmt.Errorf("lsnode exited during start: %v", p.exitErr())
	case !ended:
		p.Kill()
		return fmt.Errorf("no healthy /healthz within %v", startTimeout)
	}
	return nil
}

// Stop sends SIGTERM and waits for the exit; a clean shutdown is nil. It
// is a no-op on a stopped process.
func (p *lsnodeProc) Stop() error {
	return p.signalAndWait(syscall.SIGTERM)
}

// Kill ends the process with SIGKILL (no shutdown) and waits for it.
func (p *lsnodeProc) Kill() {
	_ = p.signalAndWait(syscall.SIGKILL)
}

func (p *lsnodeProc) signalAndWait(sig syscall.Signal) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	select {
	case <-done:
		return nil // already stopped (and reported by whoever stopped it)
	default:
	}
	if err := cmd.Process.Signal(sig); err != nil {
		return err
	}
	select {
	case <-done:
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("lsnode did not exit within %v of %v", stopTimeout, sig)
	}
	if sig == syscall.SIGKILL {
		return nil
	}
	return p.exitErr()
}

func (p *lsnodeProc) exitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Restart stops the node and starts it again on the same port and data
// dir.
func (p *lsnodeProc) Restart() {
	p.t.Helper()
	if err := p.Stop(); err != nil {
		p.t.Fatalf("stop for restart: %v\n%s", err, p.Logs())
	}
	port, _ := strconv.Atoi(p.URL[strings.LastIndexByte(p.URL, ':')+1:])
	p.opts.Port = port
	if err := p.start(); err != nil {
		p.t.Fatalf("restart: %v\n%s", err, p.Logs())
	}
}

// Logs is what the process wrote so far, every run (slog text).
func (p *lsnodeProc) Logs() string { return p.logs.String() }

// CLI runs `lsnode <args>` against this node (LSNODE_ADDR) with its
// token (LSNODE_TOKEN) and returns the exit code and outputs.
func (p *lsnodeProc) CLI(args ...string) (int, string, string) {
	p.t.Helper()
	env := []string{"LSNODE_ADDR=" + p.URL}
	if p.opts.Token != "" {
		env = append(env, "LSNODE_TOKEN="+p.opts.Token)
	}
	if p.opts.CAFile != "" {
		env = append(env, "LSNODE_TLS_CA="+p.opts.CAFile)
	}
	return runCLI(p.t, env, args...)
}

// runCLI runs the binary with args and extra environment.
func runCLI(t testing.TB, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, lsnodeBin(t), args...)
	cmd.Env = append(cleanEnv(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("run lsnode %s: %v", strings.Join(args, " "), err)
	return 0, "", ""
}

// cleanEnv is the test's environment without lsnode or hub settings, so a
// developer's shell cannot change what a test runs.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LSNODE_") && !strings.HasPrefix(kv, "MEMPALACE_") {
			env = append(env, kv)
		}
	}
	return env
}

// caClient is a client trusting the certificates of caFile.
func caClient(t testing.TB, caFile string) *http.Client {
	t.Helper()
	raw, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(raw) {
		t.Fatalf("%s holds no certificate", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}
	return &http.Client{Timeout: requestTimeout, Transport: tr}
}

// handedOut holds every port freePort has returned in this test binary.
// The kernel may give the same ephemeral port to two listens in a row once
// the first is closed, so two ports meant for one node (--http and --grpc)
// could otherwise be one.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePort returns a loopback port that was free a moment ago and that
// freePort has not returned before in this test binary.
func freePort(t testing.TB) int {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !handedOut.ports[port] {
			handedOut.ports[port] = true
			return port
		}
	}
}

// writeToken writes a token file (0600) in a temp dir.
func writeToken(t testing.TB, token string) string {
	t.Helper()
	f := t.TempDir() + "/token"
	if err := os.WriteFile(f, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// lockedBuffer is a bytes.Buffer written by a process and read by tests.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
