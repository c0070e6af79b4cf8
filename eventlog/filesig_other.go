//go:build !linux && !darwin

package eventlog

import "os"

// fileSig is empty where file times are not read: a Cache then keeps nothing.
type fileSig struct{}

func fileSigOf(os.FileInfo) (fileSig, bool) { return fileSig{}, false }
func lstatSig(string) (fileSig, bool)       { return fileSig{}, false }
