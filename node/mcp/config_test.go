package mcp

import (
	"strings"
	"testing"
)

func TestConfig_Validate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	for _, n := range []int64{0, -1} {
		c := DefaultConfig()
		c.MaxRequestBytes = n
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "MaxRequestBytes must be positive") {
			t.Errorf("MaxRequestBytes %d: %v", n, err)
		}
	}
}
