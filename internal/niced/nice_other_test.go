//go:build !linux

package niced

import "testing"

func threadNice(*testing.T) int { return 0 }
