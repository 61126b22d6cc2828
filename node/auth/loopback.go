package auth

import (
	"net"
	"strings"
)

// IsLoopbackHost reports whether a bind host reaches only this machine:
// "localhost" or a loopback IP literal (brackets allowed). "" binds every
// interface and is not loopback. A loopback bind may run without a token;
// any other needs one.
func IsLoopbackHost(host string) bool {
	h := strings.Trim(strings.ToLower(strings.TrimSpace(host)), "[]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
