package hostport

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// Addr is a parsed host:port.
type Addr struct {
	Host string // without brackets; "" is every interface
	Port int
}

// Bind parses a listen address: host:port with a port of 0..65535, 0
// picking a free port.
func Bind(addr string) (Addr, error) {
	return parse(addr)
}

// Dial parses an address to connect to: host:port with a port of
// 1..65535.
func Dial(addr string) (Addr, error) {
	a, err := parse(addr)
	if err == nil && a.Port == 0 {
		err = errors.New("port 0 cannot be connected to")
	}
	return a, err
}

func parse(addr string) (Addr, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return Addr{}, err
	}
	// LookupPort reads a number (and refuses one out of range) without a
	// lookup; a name is looked up in the services file.
	p, err := net.LookupPort("tcp", port)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) && ae.Err == "invalid port" {
			return Addr{}, fmt.Errorf("port %s is not in 0..65535", port)
		}
		return Addr{}, fmt.Errorf("port %q is neither a number nor a known service", port)
	}
	return Addr{Host: host, Port: p}, nil
}

// Overlaps reports whether two listen addresses claim the same port: the
// same non-zero port on the same host, or on every interface on either
// side.
func (a Addr) Overlaps(b Addr) bool {
	if a.Port == 0 || a.Port != b.Port {
		return false
	}
	return a.wildcard() || b.wildcard() || strings.EqualFold(a.Host, b.Host)
}

func (a Addr) wildcard() bool {
	switch a.Host {
	case "", "0.0.0.0", "::":
		return true
	}
	return false
}
