package importrules

// module is this repository's module path.
const module = "github.com/lsnode/lsnode"

// Reach says whose imports a rule checks.
type Reach int

const (
	// Direct checks the packages' own imports.
	Direct Reach = iota
	// Through also checks the imports of every non-standard package they
	// reach, outside the rule's Boundary.
	Through
)

// A Rule is one layout rule. Patterns are import paths; one ending in
// "/..." also matches every package below it.
type Rule struct {
	// Name says what the rule keeps; failures quote it.
	Name string
	// Packages are the packages the rule applies to, less Except. A rule
	// that matches no package fails: it would check nothing.
	Packages, Except []string
	// Forbid are the imports the packages must not make (Reach says
	// whose imports count).
	Forbid []string
	Reach  Reach
	// Boundary are packages that may be imported though their own
	// imports break the rule; the walk does not go through them. A
	// boundary the walk never meets fails the rule, so that none stays
	// after its reason is gone.
	Boundary []Boundary
	// Calls are functions, as "importpath.Name" (os.Getenv), that the
	// packages' own code must not call (or take as a value).
	Calls []string
	// NoGo: the packages' own code has no go statement.
	NoGo bool
}

// Boundary is a package pattern a rule's walk stops at, and why.
type Boundary struct {
	Package string
	Why     string
}

// Rules are the layout rules of the repository. To add one, add an entry.
var Rules = []Rule{
	{
		Name:     "the sync core does no network or file I/O",
		Packages: []string{module + "/sync"},
		Forbid:   []string{"net", "net/http/...", "os/..."},
		Reach:    Through,
		Boundary: []Boundary{
			{module + "/store", "the Log the core applies batches into: it is reached for its types and through the Log interface, and its data files are its own"},
			{"google.golang.org/protobuf/...", "the frame codec: it reads its own binary (internal/detrand) and two variables (reflect/protoregistry, internal/impl) through os and opens nothing else"},
		},
	},
	{
		Name:     "the sync core links no gRPC",
		Packages: []string{module + "/sync"},
		Forbid:   []string{"google.golang.org/grpc/..."},
		Reach:    Through,
	},
	{
		Name:     "the sync core reads no clock and starts no goroutine",
		Packages: []string{module + "/sync"},
		Calls: []string{"time.Now", "time.Since", "time.Until", "time.Sleep", "time.After", "time.AfterFunc",
			"time.Tick", "time.NewTimer", "time.NewTicker"},
		NoGo: true,
	},
	{
		Name:     "store imports no sync, node or proto",
		Packages: []string{module + "/store/..."},
		Forbid:   []string{module + "/sync/...", module + "/node/...", module + "/proto/..."},
		Reach:    Through,
	},
	{
		Name:     "internal/pyhub, the home of Python-hub compatibility, is a leaf: it imports no store, node, sync or proto",
		Packages: []string{module + "/internal/pyhub/..."},
		Forbid:   []string{module + "/store/...", module + "/node/...", module + "/sync/...", module + "/proto/..."},
		Reach:    Through,
	},
	{
		// The CLI turns flags, variables and files into node.Config; the
		// packages it configures take their settings from it alone.
		Name:     "nothing below cmd reads the environment",
		Packages: []string{module + "/..."},
		Except:   []string{module + "/cmd/..."},
		Calls:    []string{"os.Getenv", "os.LookupEnv", "os.Environ"},
	},
	{
		// The CLI configures and reads the store through node (node.Config,
		// the HTTP API); it reaches the store through node, which is
		// allowed, never by importing it.
		Name:     "cmd imports no store",
		Packages: []string{module + "/cmd/..."},
		Forbid:   []string{module + "/store/..."},
		Reach:    Direct,
	},
}
