package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

func configCommands() []command {
	return []command{
		{name: "check", args: "FILE [serve flags]", help: "check FILE's keys, types and values as `serve --config FILE [flags]` reads them, without the environment", run: configCheck},
	}
}

func runConfig(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "config", configCommands(), args, stdout, stderr)
}

// configCheck checks FILE as `serve --config FILE [flags]` would, with no
// variable set, and prints one line: how many settings the file makes, by
// group. What it refuses exits 1. The flags are those a deployment passes
// beside the file (a --token-file on a unit's command line, say). It reads
// no file the configuration names: a token file stands for a token, and
// the TLS and gossip key files are read by serve when it starts.
func configCheck(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("config check", stdout, stderr)
	if slices.ContainsFunc(args, isHelp) {
		return parseFlags(fs, []string{"-h"}, true) // the help, without serve's flags
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		// FILE comes first: a flag before it is not one of check's.
		if err := parseFlags(fs, args, true); err != nil {
			return err
		}
		return usageErrorf("give FILE, then any serve flags")
	}
	path := args[0]
	file, err := readConfigFile(path)
	if err != nil {
		return err
	}
	serve := newFlagSet("config check", stdout, stderr)
	f := addServeFlags(serve.FlagSet, noEnv, file)
	if err := parseFlags(serve, args[1:], false); err != nil {
		return err
	}
	if err := checkServeFlags(f); err != nil {
		return failure(err)
	}
	fmt.Fprintf(stdout, "%s: ok: %s\n", path, settingsSummary(file.count()))
	return nil
}

// checkServeFlags checks serve's flags as serve does before it starts.
func checkServeFlags(f *serveFlags) error {
	if err := f.checkValues(); err != nil {
		return err
	}
	if _, err := parseLevel(*f.logLevel); err != nil {
		return err
	}
	if _, err := f.memory.limit(); err != nil {
		return err
	}
	var token string
	if *f.tokenFile != "" {
		token = "(the token file's)" // only whether there is one matters to Validate
	}
	cfg, err := f.nodeConfig(token, nil)
	if err != nil {
		return err
	}
	return cfg.Validate()
}

// settingsSummary is "3 settings: http 2, storage 1", groups in the order
// of serve's help.
func settingsSummary(byGroup map[string]int) string {
	var parts []string
	total := 0
	for _, g := range serveFlagGroups {
		if n := byGroup[groupKey(g)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", groupKey(g), n))
			total += n
		}
	}
	switch total {
	case 0:
		return "no settings; serve runs on its defaults"
	case 1:
		return "1 setting: " + parts[0]
	}
	return fmt.Sprintf("%d settings: %s", total, strings.Join(parts, ", "))
}

// failure is err as a failure (exit 1), usage error or not: the file is
// what config check judges.
func failure(err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue.err
	}
	return err
}
