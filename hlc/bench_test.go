package hlc

import "testing"

func BenchmarkTick(b *testing.B) {
	c := NewClock(SystemClock{}, localRep, 0)
	b.ReportAllocs()
	for b.Loop() {
		c.Tick()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ticks/s")
}

func BenchmarkTick_Parallel(b *testing.B) {
	c := NewClock(SystemClock{}, localRep, 0)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Tick()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ticks/s")
}

func BenchmarkTimestampString(b *testing.B) {
	ts := stamp(1783038849123, 0xabc, "rep_0123456789abcdef0123456789abcdef")
	b.ReportAllocs()
	for b.Loop() {
		_ = ts.String()
	}
}

func BenchmarkParse(b *testing.B) {
	const s = "1783038849123-000abc-rep_0123456789abcdef0123456789abcdef"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}
