package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
)

// runArtifact dispatches `lsnode artifact put|get`.
func runArtifact(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "artifact", artifactCommands(), args, stdout, stderr)
}

func artifactCommands() []command {
	return []command{
		{name: "put", help: "store an artifact and print its record (mempalace_artifact_put)", run: artifactPut},
		{name: "get", args: "ID", help: "print an artifact's content, or its record (mempalace_artifact_get)", run: artifactGet},
	}
}

// artifactRecord is the put and get record of an artifact.
type artifactRecord struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"`
	SHA256    string   `json:"sha256"`
	SizeBytes int64    `json:"size_bytes"`
	Content   string   `json:"content"`
	CreatedBy string   `json:"created_by"`
	CreatedAt string   `json:"created_at"`
	Origin    *string  `json:"origin_replica"`
	Warnings  []string `json:"warnings"`
}

func (a artifactRecord) rows() [][2]string {
	return [][2]string{{"id", a.ID}, {"kind", a.Kind}, {"sha256", a.SHA256},
		{"size_bytes", strconv.FormatInt(a.SizeBytes, 10)}, {"created_by", a.CreatedBy},
		{"created_at", a.CreatedAt}, {"origin_replica", orDash(a.Origin)}}
}

func artifactPut(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("artifact put", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	kind := fs.String("kind", "", "patch, file, log, json or note (required)")
	by := fs.String("created-by", "", "your agent name (required)")
	content := fs.String("content", "", "the content")
	file := fs.String("file", "", "read the content from a file, byte-exact ('-' for stdin)")
	meta := fs.String("metadata", "", "metadata as a JSON object")
	key := fs.String("idempotency-key", "", "retry key")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if *kind == "" || *by == "" {
		return usageErrorf("--kind and --created-by are required")
	}
	text, ok, err := readBody(*content, *file, "content")
	if err != nil {
		return err
	}
	if !ok {
		return usageErrorf("give --content or --file")
	}
	call := map[string]any{"kind": *kind, "content": text, "created_by": *by}
	if *meta != "" {
		if call["metadata"], err = metadataArg(*meta); err != nil {
			return err
		}
	}
	if *key != "" {
		call["idempotency_key"] = *key
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	raw, err := c.callTool(ctx, "mempalace_artifact_put", call)
	if err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	a, err := decodeArtifactResult(raw)
	if err != nil {
		return err
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return printKV(stdout, a.rows())
}

// decodeArtifactResult reads the "artifact" record of a put or get result.
func decodeArtifactResult(raw []byte) (artifactRecord, error) {
	var res struct {
		Artifact artifactRecord `json:"artifact"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return artifactRecord{}, fmt.Errorf("decode result: %w", err)
	}
	return res.Artifact, nil
}

func artifactGet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("artifact get", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	out := fs.String("out", "", "write the content to this file instead of stdout")
	meta := fs.Bool("info", false, "print the record (id, kind, sha256, ...) instead of the content")
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("give one artifact id")
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	raw, err := c.callTool(ctx, "mempalace_artifact_get", map[string]any{"artifact_id": fs.Arg(0)})
	if err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	a, err := decodeArtifactResult(raw)
	if err != nil {
		return err
	}
	switch {
	case *meta:
		return printKV(stdout, a.rows())
	case *out != "":
		return os.WriteFile(*out, []byte(a.Content), 0o644)
	}
	_, err = io.WriteString(stdout, a.Content)
	return err
}
