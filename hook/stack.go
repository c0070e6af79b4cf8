package hook

import "runtime"

// GrowStack grows the calling goroutine's stack to 64 KiB in one step, to be
// called first thing in main. A hook runs deep once (decoding, the shell
// parser, the loop parser) and its goroutine starts with 8 KiB: grown by
// doubling, every step copies the stack and decodes the stack map of every
// frame on it, in a process whose pages are all still cold. One step while the
// stack is two frames deep costs less than those (docs/bench.md).
//
//go:noinline
func GrowStack() {
	// A frame of 32 KiB does not fit in 32 KiB with its caller's frames, so
	// the runtime doubles the stack to 64 KiB, the most a hook was seen to use.
	var frame [32 << 10]byte
	runtime.KeepAlive(&frame)
}
