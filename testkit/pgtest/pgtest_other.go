//go:build !unix

package pgtest

import "testing"

// Server is a throwaway cluster; there is none off Unix.
type Server struct{}

// Options tune the cluster.
type Options struct{ Fsync bool }

// Start skips: the cluster runs as another user through runuser, Unix only.
func Start(t testing.TB, _ Options) *Server {
	t.Skip("PostgreSQL test clusters run on Unix only")
	return nil
}

func (*Server) URL() string       { return "" }
func (*Server) SocketURL() string { return "" }
func (*Server) Port() int         { return 0 }
func (*Server) Restart()          {}
func (*Server) Stop()             {}
