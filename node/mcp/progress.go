package mcp

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A long event_wait can outlast a client's own timeout of a tool call
// (often 60 s, which is also the wait's default). A client that sends a
// progressToken and accepts an event stream gets its answer as a stream
// (the SDK's SSE response) with progress notifications while the wait
// blocks, which keep clients that reset their timeout on progress
// waiting; the others get one JSON answer, and the tool's description
// tells them to pass a timeout_ms below their timeout.

// defaultProgressEvery is how often a streamed wait reports progress.
const defaultProgressEvery = 10 * time.Second

// progressKey carries, on a streamed call's context, how often to report
// progress.
type progressKey struct{}

func withProgress(ctx context.Context, every time.Duration) context.Context {
	return context.WithValue(ctx, progressKey{}, every)
}

// progressEvery is the interval of progress notifications for the call
// of ctx; 0 when its answer is not streamed.
func progressEvery(ctx context.Context) time.Duration {
	every, _ := ctx.Value(progressKey{}).(time.Duration)
	return every
}

// streamsProgress reports whether the request is an event_wait whose
// client asked for progress (params._meta.progressToken) and accepts an
// event stream (the request's own Accept, before the SDK's is set).
func streamsProgress(r *http.Request, req rpcRequest) bool {
	if req.tool != toolEventWait || !isObject(req.params.Get("_meta")) {
		return false
	}
	meta, err := jsonText.Members(req.params.Get("_meta")) // a member of a valid body
	if err != nil || isNull(meta.Get("progressToken")) {
		return false
	}
	for _, accept := range r.Header.Values("Accept") {
		for _, media := range strings.Split(accept, ",") {
			if t, _, err := mime.ParseMediaType(strings.TrimSpace(media)); err == nil && t == "text/event-stream" {
				return true
			}
		}
	}
	return false
}

// reportProgress sends session a progress notification for token every
// interval until the returned stop is called; stop waits for the sender
// to end. The progress is the seconds waited so far.
func reportProgress(ctx context.Context, session *gosdk.ServerSession, token any, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		start := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				waited := time.Since(start).Seconds()
				_ = session.NotifyProgress(ctx, &gosdk.ProgressNotificationParams{
					ProgressToken: token, Progress: waited,
					Message: fmt.Sprintf("waiting for a matching event (%.0f s)", waited),
				}) // a client that left is the wait's to notice
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
