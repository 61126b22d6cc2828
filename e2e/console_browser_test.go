//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/lsnode/lsnode/internal/testwait"
)

// The console's browser tests drive headless Chromium (Debian's
// chromium package, which scripts/tools.sh installs) with chromedp
// against real `lsnode serve` processes. They skip only when no
// Chromium binary is found.

var consoleShots = flag.String("console.shots", "", "directory the console browser tests write their screenshots to (default: a temp dir, logged)")

// chromiumNames are the binaries looked for on PATH, in order.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"}

// browser is one headless Chromium for a test; each tab is a context of
// it.
type browser struct {
	t     *testing.T
	ctx   context.Context
	shots string
}

// newBrowser starts Chromium, or skips the test when there is none.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	var bin string
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		const why = "no Chromium binary on PATH (looked for %v): install Debian's chromium package (apt-get install chromium; scripts/tools.sh does) to run the console's browser tests"
		if os.Getenv("CI") == "true" {
			t.Fatalf(why+" (CI=true: in CI they must run, not skip)", chromiumNames)
		}
		t.Skipf(why, chromiumNames)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1400, 900), chromedp.Flag("hide-scrollbars", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		cancel()
		cancelAlloc()
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	shots := *consoleShots
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("console screenshots in %s", shots)
	return &browser{t: t, ctx: ctx, shots: shots}
}

// tab is one browser tab.
type tab struct {
	t   *testing.T
	b   *browser
	ctx context.Context
}

// watchProblems runs in every document of a tab before its scripts: it
// keeps each content security policy violation and uncaught error, which
// tab.shot fails on.
const watchProblems = `window.__problems = [];
document.addEventListener("securitypolicyviolation", (e) => window.__problems.push("CSP " + e.violatedDirective + " " + e.blockedURI));
window.addEventListener("error", (e) => window.__problems.push("error " + e.message));
window.addEventListener("unhandledrejection", (e) => window.__problems.push("unhandled rejection " + e.reason));`

// tab opens a new tab, closed when the test ends.
func (b *browser) tab() *tab {
	ctx, cancel := chromedp.NewContext(b.ctx)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watchProblems})
		return err
	}))
	if err != nil {
		b.t.Fatalf("open tab: %v", err)
	}
	b.t.Cleanup(cancel)
	return &tab{t: b.t, b: b, ctx: ctx}
}

// do runs actions with a deadline, failing the test on an error.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// open loads url in the tab.
func (tb *tab) open(url string) {
	tb.t.Helper()
	tb.do("open "+url, chromedp.Navigate(url))
}

// waitTrue polls a JavaScript expression until it is truthy.
func (tb *tab) waitTrue(within time.Duration, what, expr string) {
	tb.t.Helper()
	if err := tb.pollTrue(within, expr); err != nil {
		tb.t.Fatalf("waiting for %s (%s): %v\npage text: %s", what, expr, err, tb.text())
	}
}

// pollTrue polls a JavaScript expression every 50 ms until it is truthy,
// for at most within; an error when it never was.
func (tb *tab) pollTrue(within time.Duration, expr string) error {
	ctx, cancel := context.WithTimeout(tb.ctx, within+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(within),
		chromedp.WithPollingInterval(50*time.Millisecond)))
	return err
}

// waitPage waits until the console drew page name with its data.
func (tb *tab) waitPage(name string) {
	tb.t.Helper()
	tb.waitTrue(15*time.Second, "page "+name, fmt.Sprintf(`document.body.dataset.page === %q && document.body.dataset.ready === "1"`, name))
}

// eval evaluates a JavaScript expression into v's type.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// text is the page's visible text, for failure messages.
func (tb *tab) text() string {
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return s
}

// go switches the console to a page by its address's fragment.
func (tb *tab) goTo(hash, page string) {
	tb.t.Helper()
	tb.do("go to "+hash, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = %q`, hash)))
	tb.waitPage(page)
}

// signIn types token into the sign-in form and sends it.
func (tb *tab) signIn(token string) {
	tb.t.Helper()
	tb.waitPage("signin")
	tb.do("sign in", chromedp.SendKeys(chromedp.CSS("#token"), token), chromedp.Click(chromedp.CSS("#signin")))
}

// signOut presses the bar's sign-out button.
func (tb *tab) signOut() {
	tb.t.Helper()
	tb.do("sign out", chromedp.Click(chromedp.CSS("#signout")))
	tb.waitPage("signin")
}

// setField types value into the form field id, replacing what it held.
func (tb *tab) setField(id, value string) {
	tb.t.Helper()
	v, _ := json.Marshal(value)
	tb.do("set "+id, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(() => { const el = document.getElementById(%q); el.value = %s; el.dispatchEvent(new Event("input")); })()`, id, v)))
}

// shot fails the test on a problem the page met so far (watchProblems),
// then writes a screenshot of the whole page to the shots dir as
// name.png and returns its path.
func (tb *tab) shot(name string) string {
	tb.t.Helper()
	if problems := eval[[]string](tb, `window.__problems || []`); len(problems) > 0 {
		tb.t.Fatalf("the page met problems before %s: %v", name, problems)
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(tb.b.shots, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	return p
}

// click clicks the element sel matches.
func (tb *tab) click(sel string) {
	tb.t.Helper()
	tb.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// clear empties the input sel matches.
func (tb *tab) clear(sel string) {
	tb.t.Helper()
	tb.do("clear "+sel, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = ""`, sel)))
}

// untilShown draws the page of hash again and again until expr holds on
// it: a page shows what the node held when it was drawn, and what it
// waits for is still replicating.
func (tb *tab) untilShown(within time.Duration, hash, page, what, expr string) {
	tb.t.Helper()
	draw := 0
	testwait.For(tb.t, within, func() (bool, string) {
		tb.goTo(fmt.Sprintf("%s?draw=%d", hash, draw), page)
		draw++
		if eval[bool](tb, expr) {
			return true, ""
		}
		return false, fmt.Sprintf("%s not shown (%s)\npage text: %s", what, expr, tb.text())
	}, testwait.Every(200*time.Millisecond))
}
