package nodetest

import (
	"testing"
	"time"
)

// CPUMeter reports the process's CPU time per op (client, server and
// store together, as all run in the benchmark process): a figure that
// moves less with other processes' load than a rate does.
type CPUMeter struct {
	start time.Duration
	ok    bool
}

// StartCPU starts measuring.
func StartCPU() CPUMeter {
	start, ok := processCPU()
	return CPUMeter{start, ok}
}

// Report reports cpu-us/op since StartCPU, where the platform measures it.
func (m CPUMeter) Report(b *testing.B) {
	if end, ok := processCPU(); ok && m.ok {
		b.ReportMetric(float64((end-m.start)/time.Microsecond)/float64(b.N), "cpu-us/op")
	}
}
