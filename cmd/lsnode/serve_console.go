package main

import (
	"strings"
	"time"

	"github.com/lsnode/lsnode/node"
)

// consoleFlags turn the web console at /ui/ on or off and set its
// sessions' idle timeout; each takes its default from its LSNODE_*
// variable, the configuration file and node.DefaultConfig (serveEnv).
type consoleFlags struct {
	on   *bool
	idle *time.Duration
}

func addConsoleFlags(e *serveEnv) *consoleFlags {
	def := node.DefaultConfig()
	return &consoleFlags{
		on: e.fs.Bool("console", e.switchOn(e.file.boolOr("console", def.HTTP.Console), "LSNODE_CONSOLE"),
			"serve the web console at /ui/; --console=false turns it off (env LSNODE_CONSOLE)"),
		idle: e.Duration("console-idle-timeout", def.HTTP.ConsoleIdleTimeout,
			"a console session whose user made no request for this long is signed out (env LSNODE_CONSOLE_IDLE_TIMEOUT)",
			"LSNODE_CONSOLE_IDLE_TIMEOUT"),
	}
}

// switchOn reads a switch that may be on by default: 0, false, no and off
// (any case) turn it off, anything else set turns it on, unset is def.
func (e *serveEnv) switchOn(def bool, name string) bool {
	_, v := e.env.first(name)
	switch strings.ToLower(v) {
	case "":
		return def
	case "0", "false", "no", "off":
		return false
	}
	return true
}

func (f *consoleFlags) apply(cfg *node.Config) {
	cfg.HTTP.Console, cfg.HTTP.ConsoleIdleTimeout = *f.on, *f.idle
}
