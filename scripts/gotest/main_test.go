package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	cases := []struct {
		name       string
		events     string // go test -json lines
		wantOutput string
		want       counts
	}{
		{
			name: "passing and skipped tests print only the package line",
			events: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: noise\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA/sub","Output":"--- PASS: TestA/sub (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestA/sub"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Output":"PASS\n"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.01s\n"}
{"Action":"pass","Package":"p"}
{"Action":"output","Package":"q","Output":"?   \tq\t[no test files]\n"}
{"Action":"skip","Package":"q"}
`,
			wantOutput: "ok  \tp\t0.01s\n?   \tq\t[no test files]\n",
			want:       counts{passed: 1, skipped: 1},
		},
		{
			name: "a failing subtest prints its parent's output once",
			events: `{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA/sub","Output":"    a_test.go:9: boom\n"}
{"Action":"output","Package":"p","Test":"TestA/sub","Output":"    --- FAIL: TestA/sub (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestA/sub"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Output":"FAIL\n"}
{"Action":"fail","Package":"p"}
`,
			wantOutput: "    a_test.go:9: boom\n    --- FAIL: TestA/sub (0.00s)\n--- FAIL: TestA (0.00s)\nFAIL\n",
			want:       counts{failed: 1},
		},
		{
			name: "a build failure counts as one failure",
			events: `{"ImportPath":"p [p.test]","Action":"build-output","Output":"p/a.go:1:1: syntax error\n"}
{"ImportPath":"p [p.test]","Action":"build-fail"}
{"Action":"output","Package":"p","Output":"FAIL\tp [build failed]\n"}
{"Action":"fail","Package":"p","FailedBuild":"p [p.test]"}
`,
			wantOutput: "p/a.go:1:1: syntax error\nFAIL\tp [build failed]\n",
			want:       counts{failed: 1},
		},
		{
			name: "a test cut off by a panic shows its output",
			events: `{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"panic: oops\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}
{"Action":"fail","Package":"p"}
not json
`,
			wantOutput: "FAIL\tp\t0.01s\npanic: oops\nnot json\n",
			want:       counts{failed: 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			r := newReport(&out)
			if err := r.read(strings.NewReader(tc.events)); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.wantOutput {
				t.Errorf("output:\n%q\nwant:\n%q", out.String(), tc.wantOutput)
			}
			if r.counts != tc.want {
				t.Errorf("counts = %+v, want %+v", r.counts, tc.want)
			}
		})
	}
}
