//go:build !windows && !plan9

package basedir

import "os"

func home() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	return "/"
}
