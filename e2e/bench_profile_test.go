//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// selfCPU is the test process's user and system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profileNodes fetches a CPU profile of d from every node's /debug/pprof/
// after waiting delay, into dir/node<i>.cpu.pprof, and the allocations of
// the same span into dir/node<i>.allocs.pprof, when dir is not "".
// The returned wait joins the fetches and reports their errors; a failed
// profile does not fail the benchmark.
func profileNodes(t *testing.T, dir string, nodes []*lsnodeProc, delay, d time.Duration) (wait func()) {
	t.Helper()
	if dir == "" {
		return func() {}
	}
	var wg sync.WaitGroup
	kinds := []struct{ route, file string }{{"profile", "cpu"}, {"allocs", "allocs"}}
	errs := make([]error, len(nodes)*len(kinds))
	for i, p := range nodes {
		for k, kind := range kinds {
			wg.Go(func() {
				time.Sleep(delay)
				path := filepath.Join(dir, fmt.Sprintf("node%d.%s.pprof", i, kind.file))
				errs[i*len(kinds)+k] = fetchProfile(p, kind.route, d, path)
			})
		}
	}
	return func() {
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Logf("%s profile of node %d: %v", kinds[i%len(kinds)].route, i/len(kinds), err)
			}
		}
		t.Logf("CPU and allocation profiles of %v in %s (go tool pprof -top bin/lsnode %s/node0.cpu.pprof)", d, dir, dir)
	}
}

// fetchProfile saves /debug/pprof/<kind> over d (a CPU profile, or the
// difference of a cumulative one such as allocs) to path.
func fetchProfile(p *lsnodeProc, kind string, d time.Duration, path string) error {
	req, err := http.NewRequest("GET", fmt.Sprintf("%s/debug/pprof/%s?seconds=%d", p.URL, kind, int(d.Seconds())), nil)
	if err != nil {
		return err
	}
	if p.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.Token)
	}
	resp, err := (&http.Client{Timeout: d + time.Minute}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
