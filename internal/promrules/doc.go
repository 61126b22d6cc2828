// Package promrules reads Prometheus alerting rule files and the series
// selectors of their expressions, for the tests that hold
// deploy/prometheus/rules.yml to what the node exports: the metric names
// its collectors declare (deploy's tests) and the series a running node
// serves at /metrics from its start (e2e).
//
// The selector reading covers what rule expressions here write: a metric
// name, optionally with {label op "value"} matchers (=, !=, =~, !~). It is
// not a PromQL parser.
package promrules
