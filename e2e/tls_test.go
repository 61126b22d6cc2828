//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testpki"
	"github.com/lsnode/lsnode/internal/testwait"
)

// Mutual TLS between real `lsnode serve` processes: a mesh whose
// nodes hold certificates from one CA replicates over it and serves HTTPS;
// a node with a certificate from another CA, or speaking plaintext, is
// refused, and both sides say why.

const tlsCluster = "e2e-tls"

// tlsNode starts a node with --tls-cert/--tls-key from certCA (named
// name) trusting trustCA through --tls-ca, on the given gRPC address with
// static peers.
func tlsNode(t *testing.T, name string, certCA, trustCA *testpki.CA, grpc string, peers ...string) *lsnodeProc {
	t.Helper()
	cert, key := certCA.Issue(t, name)
	args := []string{"--cluster-id", tlsCluster, "--name", name, "--grpc", grpc,
		"--tls-cert", cert, "--tls-key", key, "--tls-ca", trustCA.CertFile}
	for _, p := range peers {
		args = append(args, "--peer", p)
	}
	// The HTTPS certificate is the same pair: the harness trusts the CA
	// that signed it.
	return startLsnode(t, nodeOptions{Args: args, CAFile: certCA.CertFile})
}

func grpcAddrs(t *testing.T, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	}
	return out
}

// TestTLS_ReplicationOverMutualTLS: three nodes with certificates of one
// CA, each a static peer of the others, converge on concurrent writes,
// over HTTPS for the clients and mutual TLS between them.
func TestTLS_ReplicationOverMutualTLS(t *testing.T) {
	lsnodeBin(t)
	ca := testpki.NewCA(t, "mesh-ca")
	grpc := grpcAddrs(t, 3)
	nodes := make([]*lsnodeProc, 3)
	for i := range nodes {
		var peers []string
		for j := range grpc {
			if j != i {
				peers = append(peers, grpc[j])
			}
		}
		nodes[i] = tlsNode(t, fmt.Sprintf("m%d", i), ca, ca, grpc[i], peers...)
		if !strings.HasPrefix(nodes[i].URL, "https://") {
			t.Fatalf("node %d serves %s, want https", i, nodes[i].URL)
		}
	}
	ids := rpConcurrentAppends(t, nodes, 30, 3)
	rpConverged(t, rpConvergeLimit, ids, nodes...)
	for _, p := range nodes {
		if strings.Contains(p.Logs(), "TLS handshake failed") || strings.Contains(p.Logs(), "replication peer refused") {
			t.Fatalf("a CA-signed peer was refused:\n%s", p.Logs())
		}
		rpLogsContain(t, 5*time.Second, p, "mutual_tls=true")
	}
	// The CLI reaches an HTTPS node through LSNODE_TLS_CA.
	if code, out, errOut := nodes[0].CLI("status"); code != 0 {
		t.Fatalf("lsnode status over https: exit %d\n%s%s", code, out, errOut)
	}
}

// TestTLS_PeerWithoutCACertificateIsRefused: a node whose certificate
// another CA signed dials a mesh node and is refused; the mesh node logs
// the peer and the certificate it refused, the stranger logs the refusal
// and lists the peer as refused; nothing it writes crosses. A plaintext
// node is refused too.
func TestTLS_PeerWithoutCACertificateIsRefused(t *testing.T) {
	lsnodeBin(t)
	ca, other := testpki.NewCA(t, "mesh-ca"), testpki.NewCA(t, "stranger-ca")
	grpc := grpcAddrs(t, 3)
	mesh := tlsNode(t, "m0", ca, ca, grpc[0])
	// The stranger trusts the mesh's CA, so only the mesh can refuse it.
	stranger := tlsNode(t, "stranger", other, ca, grpc[1], grpc[0])
	startLsnode(t, nodeOptions{Args: []string{"--cluster-id", tlsCluster, "--name", "plain",
		"--grpc", grpc[2], "--peer", grpc[0]}})

	// Written before any dial; it must never cross.
	id := rpMustAppend(t, stranger, "stranger-agent", 1)[0]

	rpLogsContain(t, 30*time.Second, mesh, "replication peer refused: TLS handshake failed",
		`peer certificate \"CN=stranger\" issued by \"CN=stranger-ca\" is not accepted by --tls-ca`)
	rpLogsContain(t, 30*time.Second, mesh, "first record does not look like a TLS handshake")
	rpLogsContain(t, 30*time.Second, stranger, "replication peer refused", "peer="+grpc[0], "remote error: tls: bad certificate")

	// The stranger lists its peer as refused, with the reason.
	testwait.Until(t, 30*time.Second, "the stranger to list its peer as refused", func() bool {
		code, out, _ := stranger.CLI("peers")
		return code == 0 && strings.Contains(out, grpc[0]+" refused: ") && strings.Contains(out, "bad certificate")
	})

	have, err := rpOpIDs(mesh)
	if err != nil {
		t.Fatal(err)
	}
	if have[id] {
		t.Fatal("an op of the refused stranger reached the mesh")
	}
	if metrics := rpMetrics(t, mesh); !strings.Contains(metrics, `lsnode_replication_tls_failures_total{side="server"}`) {
		t.Fatalf("no server-side TLS failure counted:\n%s", metrics)
	}
}

// rpMetrics is p's /metrics text.
func rpMetrics(t *testing.T, p *lsnodeProc) string {
	t.Helper()
	resp, err := p.http.Get(p.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
