package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// keysReply is the answer of /lsnode/keys: the operation's result on
// each member and the keys the members that answered hold.
type keysReply struct {
	Op        string `json:"op"`
	Members   int    `json:"members"`
	Succeeded int    `json:"succeeded"`
	Results   []struct {
		Name  string `json:"name"`
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	} `json:"results"`
	Keys []struct {
		Key     string `json:"key"`
		Members int    `json:"members"`
		Primary int    `json:"primary"`
	} `json:"keys"`
}

// keysVerbs says what each operation did, for "3/3 members installed key".
var keysVerbs = map[string]string{"install": "installed", "use": "switched to", "remove": "removed"}

const keysUsage = "want: list | install KEY | use KEY | remove KEY (KEY is base64: head -c 32 /dev/urandom | base64)"

// runKeys manages the gossip encryption keyring of a running mesh, as
// serf and consul do: rotate by install (every member decrypts the new
// key), use (every member encrypts with it), remove (the old key).
func runKeys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	subs := keysCommands()
	if len(args) > 0 && isHelp(args[0]) {
		return printSubcommands(stdout, "keys", subs)
	}
	if len(args) == 0 {
		return usageErrorf("%s", keysUsage)
	}
	sub, ok := find(subs, args[0])
	if !ok {
		return usageErrorf("%s%s", keysUsage, didYouMean(args[0], subs))
	}
	return sub.run(ctx, args[1:], stdout, stderr)
}

func keysCommands() []command {
	op := func(name string) func(context.Context, []string, io.Writer, io.Writer) error {
		return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runKeyOp(ctx, name, args, stdout, stderr)
		}
	}
	return []command{
		{name: "list", help: "list the keys each member holds", run: op("list")},
		{name: "install", args: "KEY", help: "give every member KEY (base64: head -c 32 /dev/urandom | base64) to decrypt with", run: op("install")},
		{name: "use", args: "KEY", help: "make an installed KEY the one every member encrypts with", run: op("use")},
		{name: "remove", args: "KEY", help: "take KEY, no longer used, from every member", run: op("remove")},
	}
}

// runKeyOp runs one keyring operation on every member through the node.
func runKeyOp(ctx context.Context, op string, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("keys "+op, stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	if err := parseFlags(fs, args, op != "list"); err != nil {
		return err
	}
	if op != "list" && fs.NArg() != 1 {
		return usageErrorf("keys %s takes one base64 KEY", op)
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if op == "list" {
		err = c.getJSON(ctx, "/lsnode/keys", &raw)
	} else {
		err = c.postJSON(ctx, "/lsnode/keys", map[string]string{"op": op, "key": fs.Arg(0)}, &raw)
	}
	if err != nil {
		return err
	}
	var reply keysReply
	if err := json.Unmarshal(raw, &reply); err != nil {
		return fmt.Errorf("decode /lsnode/keys: %w", err)
	}
	if *cf.asJSON {
		if err := printRaw(stdout, raw); err != nil {
			return err
		}
	} else if err := renderKeys(stdout, reply); err != nil {
		return err
	}
	if reply.Succeeded < reply.Members {
		return fmt.Errorf("%d of %d members did not %s: see above", reply.Members-reply.Succeeded, reply.Members, keysFailedVerb(op))
	}
	return nil
}

func keysFailedVerb(op string) string {
	if op == "list" {
		return "answer"
	}
	return op + " the key"
}

// renderKeys prints the per-member outcome, then the keys.
func renderKeys(w io.Writer, r keysReply) error {
	if verb := keysVerbs[r.Op]; verb != "" {
		fmt.Fprintf(w, "%d/%d members %s key\n", r.Succeeded, r.Members, verb)
	} else {
		fmt.Fprintf(w, "%d/%d members answered\n", r.Succeeded, r.Members)
	}
	for _, m := range r.Results {
		if !m.OK {
			fmt.Fprintf(w, "  %s: %s\n", m.Name, m.Error)
		}
	}
	var t table
	t.row("KEY", "MEMBERS", "PRIMARY")
	for _, k := range r.Keys {
		primary := fmt.Sprintf("%d/%d", k.Primary, r.Succeeded)
		if k.Primary == 0 {
			primary = "-"
		}
		t.row(k.Key, fmt.Sprintf("%d/%d", k.Members, r.Succeeded), primary)
	}
	return t.write(w)
}

// postJSON POSTs body as JSON to path and decodes a 200 JSON answer into v.
func (c *nodeClient) postJSON(ctx context.Context, path string, body, v any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read answer of %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return refusal(resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("answer of %s is not JSON: %w", path, err)
	}
	return nil
}
