package membership

import (
	"bytes"
	"context"
	"log/slog"
)

// logBridge is an io.Writer for memberlist's *log.Logger: it turns each
// "[LEVEL] memberlist: text" line into a slog record at the matching level.
type logBridge struct{ log *slog.Logger }

func newLogBridge(l *slog.Logger) *logBridge { return &logBridge{log: l} }

// levels maps memberlist's prefixes to slog levels.
var levels = []struct {
	prefix []byte
	level  slog.Level
}{
	{[]byte("[DEBUG] "), slog.LevelDebug},
	{[]byte("[INFO] "), slog.LevelInfo},
	{[]byte("[WARN] "), slog.LevelWarn},
	{[]byte("[ERR] "), slog.LevelError},
	{[]byte("[ERROR] "), slog.LevelError},
}

func (b *logBridge) Write(p []byte) (int, error) {
	line := bytes.TrimRight(p, "\n")
	level := slog.LevelInfo
	for _, l := range levels {
		if rest, ok := bytes.CutPrefix(line, l.prefix); ok {
			line, level = rest, l.level
			break
		}
	}
	line = bytes.TrimPrefix(line, []byte("memberlist: "))
	if b.log.Enabled(context.Background(), level) {
		b.log.Log(context.Background(), level, string(line), "component", "memberlist")
	}
	return len(p), nil
}
