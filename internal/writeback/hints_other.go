//go:build !linux

package writeback

import (
	"errors"
	"os"
)

// errNoHints: this system has no call to start a range's writeback.
var errNoHints = errors.New("no writeback hints on this system")

func startWriteback(*os.File, int64, int64) error { return errNoHints }

func awaitWriteback(*os.File, int64, int64) error { return errNoHints }

func unsupported(err error) bool { return errors.Is(err, errNoHints) }
