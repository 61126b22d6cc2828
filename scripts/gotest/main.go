// Command gotest runs `go test -json` and prints what plain `go test` would:
// package result lines, build errors and the output of failing tests, without
// the output of tests that passed. It ends with one line
//
//	LABEL: N passed, N failed, N skipped
//
// counting top-level tests; a package that fails outside any test (build
// error, panic at init, time-out) counts as one failure. With -counts it also
// appends "LABEL N N N" to that file, so that `make test` can add up several
// runs. It exits with go test's exit status.
//
// usage: go run ./scripts/gotest [-label L] [-counts FILE] -- [go test flags] [packages]
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func main() {
	label := flag.String("label", "tests", "name printed before the counts")
	countsFile := flag.String("counts", "", "append the counts to this file")
	flag.Parse()

	cmd := exec.Command("go", append([]string{"test", "-json"}, flag.Args()...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	r := newReport(os.Stdout)
	if err := r.read(stdout); err != nil {
		fatal(err)
	}
	waitErr := cmd.Wait()
	c := r.counts
	fmt.Printf("%s: %d passed, %d failed, %d skipped\n", *label, c.passed, c.failed, c.skipped)
	if *countsFile != "" {
		if err := appendCounts(*countsFile, *label, c); err != nil {
			fatal(err)
		}
	}
	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit):
		os.Exit(exit.ExitCode())
	case waitErr != nil:
		fatal(waitErr)
	case c.failed > 0:
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "gotest:", err)
	os.Exit(1)
}

func appendCounts(path, label string, c counts) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s %d %d %d\n", label, c.passed, c.failed, c.skipped)
	return errors.Join(err, f.Close())
}

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type counts struct{ passed, failed, skipped int }

// report turns events into plain go test output and counts.
type report struct {
	w      io.Writer
	counts counts
	// held is the output of each running top-level test and its subtests,
	// by package and test, printed only if the test fails.
	held map[string]map[string][]string
	// testFailed records packages in which a test failed.
	testFailed map[string]bool
}

func newReport(w io.Writer) *report {
	return &report{w: w, held: map[string]map[string][]string{}, testFailed: map[string]bool{}}
}

func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event (go test -json can be preceded by plain lines).
			fmt.Fprintln(r.w, sc.Text())
			continue
		}
		r.handle(e)
	}
	return sc.Err()
}

func (r *report) handle(e event) {
	if e.Action == "build-output" {
		fmt.Fprint(r.w, e.Output)
		return
	}
	if e.Test == "" {
		r.handlePackage(e)
		return
	}
	root, _, sub := strings.Cut(e.Test, "/")
	switch e.Action {
	case "output":
		if !isChatter(e.Output) {
			r.hold(e.Package, root, e.Output)
		}
	case "pass", "skip", "fail":
		if sub {
			return
		}
		r.finishTest(e.Package, root, e.Action)
	}
}

func (r *report) handlePackage(e event) {
	switch e.Action {
	case "output":
		if e.Output != "PASS\n" && !isChatter(e.Output) {
			fmt.Fprint(r.w, e.Output)
		}
	case "fail":
		// Tests still running when the package failed (panic, time-out)
		// show what they printed.
		for test := range r.held[e.Package] {
			r.finishTest(e.Package, test, "fail")
		}
		if !r.testFailed[e.Package] {
			r.counts.failed++
		}
	}
}

func (r *report) hold(pkg, test, line string) {
	if r.held[pkg] == nil {
		r.held[pkg] = map[string][]string{}
	}
	r.held[pkg][test] = append(r.held[pkg][test], line)
}

func (r *report) finishTest(pkg, test, action string) {
	lines := r.held[pkg][test]
	delete(r.held[pkg], test)
	switch action {
	case "pass":
		r.counts.passed++
	case "skip":
		r.counts.skipped++
	case "fail":
		r.counts.failed++
		r.testFailed[pkg] = true
		for _, l := range lines {
			fmt.Fprint(r.w, l)
		}
	}
}

// isChatter reports the lines that only -v prints.
func isChatter(line string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}
