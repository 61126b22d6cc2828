package main

import (
	"flag"
	"strings"
	"time"

	"github.com/lsnode/lsnode/node"
)

// consoleFlags turn the web console at /ui/ on or off and set its
// sessions' idle timeout; each falls back to its LSNODE_* variable.
type consoleFlags struct {
	on   *bool
	idle *time.Duration
}

func addConsoleFlags(fs *flag.FlagSet, env *serveEnv) *consoleFlags {
	def := node.DefaultConfig()
	return &consoleFlags{
		on: fs.Bool("console", envSwitch(def.Console, "LSNODE_CONSOLE"),
			"serve the web console at /ui/; --console=false turns it off (env LSNODE_CONSOLE)"),
		idle: durationFlag(fs, "console-idle-timeout", env.duration(def.ConsoleIdleTimeout, "LSNODE_CONSOLE_IDLE_TIMEOUT"),
			"a console session whose user made no request for this long is signed out (env LSNODE_CONSOLE_IDLE_TIMEOUT)"),
	}
}

// envSwitch reads a switch that is on by default: 0, false, no and off
// (any case) turn it off, anything else set turns it on.
func envSwitch(def bool, name string) bool {
	switch strings.ToLower(envOr("", name)) {
	case "":
		return def
	case "0", "false", "no", "off":
		return false
	}
	return true
}

func (f *consoleFlags) apply(cfg *node.Config) {
	cfg.Console, cfg.ConsoleIdleTimeout = *f.on, *f.idle
}
