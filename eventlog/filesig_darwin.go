package eventlog

import "syscall"

func sigOf(st *syscall.Stat_t) fileSig {
	return fileSig{uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtimespec, st.Ctimespec}
}
