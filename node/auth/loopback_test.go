package auth

import "testing"

func TestIsLoopbackHost(t *testing.T) {
	for _, h := range []string{"127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"} {
		if !IsLoopbackHost(h) {
			t.Errorf("%s is loopback", h)
		}
	}
	for _, h := range []string{"", "0.0.0.0", "::", "10.0.0.1", "example.com"} {
		if IsLoopbackHost(h) {
			t.Errorf("%s is not loopback", h)
		}
	}
}
