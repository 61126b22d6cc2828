package datadir

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperEnv switches the test binary into TestHelperHolder, the child
// process that holds a lock; its value is the data dir.
const helperEnv = "LSNODE_DATADIR_HELPER_DIR"

// refused acquires dir expecting the refusal, and returns who it names.
func refused(t *testing.T, dir string) Holder {
	t.Helper()
	l, err := Acquire(dir)
	if err == nil {
		l.Release()
		t.Fatalf("a second Acquire of %s succeeded while the first holds it", dir)
	}
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second Acquire: %v, want a *LockedError", err)
	}
	return le.Holder
}

func TestLock_CreatesTheDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "data")
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v, want 0700", fi.Mode().Perm())
	}
	if l.Dir() != dir {
		t.Errorf("Dir() = %s, want %s", l.Dir(), dir)
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0].Name() != LockFile {
		t.Errorf("a fresh locked dir holds %v, want only %s", names, LockFile)
	}
}

// TestLock_TwoHoldersInOneProcess: two Acquires in one process are two
// open file descriptions of the lock file, and the second is refused
// with the record the first wrote; once released, the dir can be taken
// again.
func TestLock_TwoHoldersInOneProcess(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h := refused(t, dir); h != (Holder{PID: os.Getpid()}) {
		t.Errorf("refusal names %+v, want this process's pid and no address yet", h)
	}
	if err := first.SetHTTP("http://127.0.0.1:8765"); err != nil {
		t.Fatal(err)
	}
	if h := refused(t, dir); h != (Holder{PID: os.Getpid(), HTTP: "http://127.0.0.1:8765"}) {
		t.Errorf("refusal names %+v, want this process's pid and http://127.0.0.1:8765", h)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	again.Release()
}

func TestLock_RefusalNamesDirPidAndAddress(t *testing.T) {
	err := &LockedError{Dir: "/var/lib/lsnode", Holder: Holder{PID: 4242, HTTP: "http://127.0.0.1:8765"}}
	for _, want := range []string{"/var/lib/lsnode", "4242", "http://127.0.0.1:8765"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err.Error(), want)
		}
	}
	if msg := (&LockedError{Dir: "/d"}).Error(); !strings.Contains(msg, "/d") || !strings.Contains(msg, "another process") {
		t.Errorf("refusal without a record: %q", msg)
	}
}

// TestLock_StaleRecordDoesNotBlock: a lock file left by a process that is
// gone (here: any record, no lock held) is taken over and rewritten.
func TestLock_StaleRecordDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	if err := os.WriteFile(path, []byte(`{"pid":1,"http":"http://127.0.0.1:1"}`+"\n"+strings.Repeat("x", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("stale lock file blocks: %v", err)
	}
	defer l.Release()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"pid":` + strconv.Itoa(os.Getpid()) + "}\n"; string(b) != want {
		t.Errorf("lock file holds %q, want %q", b, want)
	}
}

func TestLock_UnreadableRecord(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	// Not a record (a writer cut short, a foreign file): the refusal
	// still comes, naming no one.
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte("{\"pid\":"), 0o600); err != nil {
		t.Fatal(err)
	}
	if h := refused(t, dir); h != (Holder{}) {
		t.Errorf("refusal names %+v from a partial record, want nobody", h)
	}
}

func TestLock_DirIsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := Acquire(file); err == nil {
		l.Release()
		t.Fatal("Acquire of a regular file succeeded")
	}
}

// TestLock_ChildProcess: a lock held by another process refuses this one
// with the child's pid and address; once the child is killed with
// SIGKILL, the kernel has released the lock and Acquire succeeds at once,
// its stale record notwithstanding.
func TestLock_ChildProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHolder$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe() // held open: the child waits on it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child printed %q (%v), want locked\n%s", line, err, stderr.String())
	}
	if h := refused(t, dir); h != (Holder{PID: cmd.Process.Pid, HTTP: "http://127.0.0.1:9"}) {
		t.Errorf("refusal names %+v, want the child's pid %d and http://127.0.0.1:9", h, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after the holder was killed: %v", err)
	}
	l.Release()
}

// TestHelperHolder is not a test: run by TestLock_ChildProcess as a child
// process, it locks the dir of helperEnv, records an address, prints
// "locked" and waits to be killed (its stdin, which the parent holds
// open, ends only if the parent goes first).
func TestHelperHolder(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process for TestLock_ChildProcess")
	}
	l, err := Acquire(dir)
	if err == nil {
		err = l.SetHTTP("http://127.0.0.1:9")
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
	t.Fatal("stdin closed before the kill")
}
