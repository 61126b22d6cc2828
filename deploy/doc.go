// Package deploy holds no code: it is the home of lsnode's deployment files
// and of the offline tests that keep them honest.
//
// The files (deploy/README.md tells how to use each):
//
//   - Dockerfile, docker/rootfs: the image, FROM scratch with the static
//     bin/lsnode, running as uid 65532 with its volume at /data.
//   - compose.yaml, compose/: a three-node cluster and a Prometheus server,
//     built locally (no image is pulled); compose/lsnode.yaml is the
//     configuration file the nodes share.
//   - prometheus/: the scrape configurations, the alert rules and their
//     promtool unit tests, and the Prometheus image's Dockerfile.
//   - k8s/: a StatefulSet with its ConfigMap (the configuration file the
//     pods share), headless and client Services and a PodDisruptionBudget.
//   - systemd/: a hardened unit and an example of its configuration file.
//
// The tests run with `go test ./deploy/` and need no network and no
// container engine. They check the alert rules with `promtool check rules`
// and `promtool test rules`, the scrape configurations with `promtool check
// config`, and the unit with `systemd-analyze verify` and `systemd-analyze
// security`; each skips, saying why, when its tool is missing
// (scripts/tools.sh installs them). They decode the Kubernetes manifests and
// the compose file strictly and assert the contract between them, the
// Dockerfile and the node: ports, probes, the data volume, environment, the
// serve settings of command lines and configuration files together,
// selectors, and that every metric the rules and the README name is one the
// node exports. cmd/lsnode's tests run `lsnode config check` on the
// configuration files. The container tier itself (images built, cluster run,
// Prometheus queried) is e2e/docker_cluster_test.go.
package deploy
