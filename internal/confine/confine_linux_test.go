package confine

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// no_new_privs is a thread's: the child sets it on the main thread, whose
// status /proc/PID/status shows, and reads it there.
func init() {
	if os.Getenv("CONFINE_TEST_CHILD") != "" {
		runtime.LockOSThread()
	}
}

// A child of the test binary that sets no_new_privs, then prints its
// confinement as Self reads it.
func TestMain(m *testing.M) {
	if os.Getenv("CONFINE_TEST_CHILD") == "nnp" {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			os.Exit(3)
		}
		c := Self()
		os.Stdout.WriteString(strings.Join([]string{c.NoNewPrivs, c.Seccomp, strconv.FormatBool(c.OK)}, " "))
		// Wait for the parent to read /proc/PID/status.
		var b [1]byte
		os.Stdin.Read(b[:])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Self (prctl) says what Read("self") (the status file) says.
func TestSelfIsReadOfSelf(t *testing.T) {
	self, read := Self(), Read("self")
	if !self.OK || !read.OK {
		t.Fatalf("Self %+v, Read %+v", self, read)
	}
	read.TracerPid = ""
	if self != read {
		t.Errorf("Self %+v, Read(self) %+v", self, read)
	}
	if self.Mnt == "" || !strings.HasPrefix(self.Mnt, "mnt:[") {
		t.Errorf("mount namespace %q", self.Mnt)
	}
}

// A process that set no_new_privs reads so itself and to others; it is
// neither Same nor Alike to this one, and more confined.
func TestNoNewPrivsIsOtherConfinement(t *testing.T) {
	self := Self()
	if self.NoNewPrivs != "0" {
		t.Skip("this test runs with no_new_privs already")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CONFINE_TEST_CHILD=nnp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	pid := Pid(int32(cmd.Process.Pid))
	var peer Of
	for range 200 {
		if out.Len() > 0 {
			peer = Read(pid)
			break
		}
		if p := Read(pid); p.OK && p.NoNewPrivs == "1" {
			peer = p
			break
		}
		exec.Command("sleep", "0.01").Run()
	}
	if !peer.OK || peer.NoNewPrivs != "1" || peer.TracerPid != "0" {
		t.Fatalf("child %+v", peer)
	}
	if Same(peer, self) || Alike(peer, self) || !MoreConfined(peer, self) {
		t.Errorf("no_new_privs child: Same %v Alike %v MoreConfined %v", Same(peer, self), Alike(peer, self), MoreConfined(peer, self))
	}
	stdin.Close()
	cmd.Wait()
	if got := out.String(); got != "1 0 true" && got != "1 2 true" {
		t.Errorf("the child's Self: %q", got)
	}
}

// Same and Alike: every field counts; Alike also wants no tracer; an
// unreadable side is never alike.
func TestSameAndAlike(t *testing.T) {
	base := Of{NoNewPrivs: "0", Seccomp: "0", TracerPid: "0", Mnt: "mnt:[1]", User: "user:[2]", PID: "pid:[3]", OK: true}
	if !Same(base, base) || !Alike(base, base) {
		t.Fatal("a process is not alike to itself")
	}
	traced := base
	traced.TracerPid = "42"
	if !Same(traced, base) || Alike(traced, base) {
		t.Error("a tracer: Same must hold, Alike not")
	}
	for name, edit := range map[string]func(*Of){
		"nnp": func(o *Of) { o.NoNewPrivs = "1" }, "seccomp": func(o *Of) { o.Seccomp = "2" },
		"mnt": func(o *Of) { o.Mnt = "mnt:[9]" }, "user": func(o *Of) { o.User = "user:[9]" },
		"pid": func(o *Of) { o.PID = "pid:[9]" }, "unread": func(o *Of) { *o = Of{} },
	} {
		other := base
		edit(&other)
		if Same(other, base) || Same(base, other) || Alike(other, base) {
			t.Errorf("%s: still the same confinement", name)
		}
	}
}

// The status file's fields are read from whole lines only: a read that ends
// inside "Seccomp:\t2" must not yield "Seccomp: " (no filter).
func TestStatusFieldsWholeLinesOnly(t *testing.T) {
	full := "Name:\tx\nTracerPid:\t0\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n"
	cut := full[:strings.Index(full, "Seccomp:")+len("Seccomp:")]
	if c, ok := statusFields([]byte(cut)); ok {
		t.Errorf("a cut line read as %+v", c)
	}
	c, ok := statusFields([]byte(full))
	if !ok || c.NoNewPrivs != "1" || c.Seccomp != "2" || c.TracerPid != "0" {
		t.Errorf("whole file: %+v %v", c, ok)
	}
}

// Read's reads go through the descriptor of the process's /proc directory:
// once that process has ended, they fail rather than describe whatever
// process has its pid by then.
func TestReadsOfAnEndedProcessFail(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("sleep: %v", err)
	}
	dir, err := openat(unix.AT_FDCWD, "/proc/"+Pid(int32(cmd.Process.Pid)), unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFD(dir)
	if _, ok := status(dir); !ok {
		t.Fatal("the running process's status does not read")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if c, ok := status(dir); ok {
		t.Errorf("status of an ended process: %+v", c)
	}
	if c := (Of{OK: true}).withNamespaces(dir); c.OK {
		t.Errorf("namespaces of an ended process: %+v", c)
	}
}
