package wire

import (
	"errors"
	"io"
	"syscall"
	"time"
)

// Conn is one connection of the protocol, spoken with plain system calls on
// a blocking descriptor: one request and one answer do not pay for the
// runtime's poller (registering the descriptor and removing it again,
// deadline timers), which both ends would otherwise set up for them alone.
type Conn struct {
	fd   int
	wait time.Duration // SO_RCVTIMEO, for Read's error
}

// NewConn takes over the connected unix stream socket fd: Close closes it.
func NewConn(fd int) *Conn { return &Conn{fd: fd} }

// FD is the descriptor (-1 once closed).
func (c *Conn) FD() int { return c.fd }

// SetReadTimeout bounds each Read (SO_RCVTIMEO); a Read that waits longer
// fails with an error that names d.
func (c *Conn) SetReadTimeout(d time.Duration) error {
	c.wait = d
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
}

// SetSendTimeout bounds each Send (SO_SNDTIMEO): only a message larger than
// the socket's buffer can wait on the other end.
func (c *Conn) SetSendTimeout(d time.Duration) error {
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
}

// ErrTimeout is what a Read that waited past SetReadTimeout's bound wraps.
var ErrTimeout = errors.New("no answer")

type timeoutError struct{ wait time.Duration }

func (e timeoutError) Error() string { return "no answer within " + e.wait.String() }
func (timeoutError) Unwrap() error   { return ErrTimeout }

func (c *Conn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, timeoutError{c.wait}
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// StopReading closes this end for reading and returns the first byte the
// peer had sent by then, if any: from then on the peer's writes fail
// (EPIPE). A client that gives up waiting for Started does this, so that
// the server cannot start the hook unseen — either Started was already
// here, or the server's write of it fails and it runs nothing.
func (c *Conn) StopReading() (first byte, ok bool) {
	if err := syscall.Shutdown(c.fd, syscall.SHUT_RD); err != nil {
		return 0, false
	}
	var b [1]byte
	for {
		n, _, err := syscall.Recvfrom(c.fd, b[:], syscall.MSG_DONTWAIT)
		if err == syscall.EINTR {
			continue
		}
		return b[0], err == nil && n == 1
	}
}

// Send writes all of b. A peer that has gone fails it with EPIPE, and
// raises no SIGPIPE.
func (c *Conn) Send(b []byte) error {
	for len(b) > 0 {
		n, err := syscall.SendmsgN(c.fd, b, nil, nil, syscall.MSG_NOSIGNAL)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// Close closes the connection; later calls do nothing, so that a closed
// descriptor's number, which the process may have reused since, is never
// closed again.
func (c *Conn) Close() error {
	if c.fd < 0 {
		return nil
	}
	err := syscall.Close(c.fd)
	c.fd = -1
	return err
}
