package dsl

// Exported for the external tests of this directory (compat_test.go).
var (
	ReferenceFiles      = referenceFiles
	DescribeDiagnostics = describeDiagnostics
)
