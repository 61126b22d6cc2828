// Package niced runs bulk work (a backup's copy, hashing and streaming)
// at the lowest CPU priority, so that on a machine with few cores the
// kernel gives the node's writer and request handlers a core first.
package niced
