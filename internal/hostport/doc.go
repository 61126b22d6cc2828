// Package hostport checks host:port addresses before anything is bound or
// dialled, so that a node refuses a configuration with an impossible
// address before it touches its data dir.
//
// It checks the form only: SplitHostPort, and a port that a socket can
// have (a number or a service name of the system's services file). What
// only a bind can tell, a port already in use or a host that is not an
// address of this machine, is left to the bind, which reports it as it
// happens; two addresses of one configuration that claim the same port
// are caught here (Overlaps).
package hostport
