package membership

import "errors"

// Errors returned by this package. Each is defined once; callers compare
// with errors.Is.
var (
	// ErrInvalidConfig wraps every problem Validate reports.
	ErrInvalidConfig = errors.New("membership: invalid config")
	// ErrInvalidKey is a gossip key that is not valid base64 or not 16, 24
	// or 32 bytes long (AES-128, -192, -256).
	ErrInvalidKey = errors.New("membership: invalid gossip key")
	// ErrMetaTooLarge is node metadata whose encoding exceeds
	// memberlist.MetaMaxSize. It is reported before memberlist sees it.
	ErrMetaTooLarge = errors.New("membership: node metadata too large")
	// ErrMetaInvalid is metadata that cannot be decoded: empty (not an
	// lsnode node), an unknown format version, truncated or malformed.
	ErrMetaInvalid = errors.New("membership: invalid node metadata")
	// ErrClusterMismatch is a node that announces another cluster id.
	ErrClusterMismatch = errors.New("membership: node belongs to another cluster")
	// ErrNotEncrypted refuses a keyring operation on a Membership created
	// without a Keyring: there is no keyring to change, and encryption
	// cannot be turned on while running.
	ErrNotEncrypted = errors.New("membership: gossip is not encrypted (no gossip key file), so there is no keyring to change")
	// ErrPrimaryKey refuses to remove the key that encrypts gossip.
	ErrPrimaryKey = errors.New("membership: the key is the primary key; make another key primary (keys use) before removing it")
	// ErrKeyNotInstalled refuses to make primary, or remove, a key this
	// node does not hold.
	ErrKeyNotInstalled = errors.New("membership: the key is not in the keyring (keys install it first)")
	// ErrShutdown is returned by calls on a Membership that was shut down.
	ErrShutdown = errors.New("membership: shut down")
)
