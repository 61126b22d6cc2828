package auth

import (
	"crypto/tls"
	"fmt"
	"log/slog"
)

// ServerTLS returns the HTTPS configuration of a key pair (TLS 1.2 or
// later), or nil without one (certFile ""). The key pair is read again
// when its files change.
func ServerTLS(certFile, keyFile string, log *slog.Logger) (*tls.Config, error) {
	if certFile == "" {
		return nil, nil
	}
	pair, err := newReloading("HTTPS key pair", log, func() (*tls.Certificate, error) {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("load TLS key pair: %w", err)
		}
		return &cert, nil
	}, certFile, keyFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return pair.current(), nil
		},
	}, nil
}
