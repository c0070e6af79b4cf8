package setup

import "testing"

func TestTrustRuleLongestWins(t *testing.T) {
	rules := map[string]string{
		"/home/u/work":         "TRUST_FOLDER",
		"/home/u/work/secret":  "DO_NOT_TRUST",
		"/home/u/other/marker": "TRUST_PARENT",
	}
	for dir, want := range map[string]string{
		"/home/u/work/app":      "TRUST_FOLDER",
		"/home/u/work/secret/x": "DO_NOT_TRUST", // the inner rule, not the trusted parent
		"/home/u/other/sib":     "TRUST_PARENT",
		"/home/u/elsewhere":     "",
		"/home/u/workshop":      "", // a prefix of the name is not a parent
	} {
		if got := TrustRule(rules, dir); got != want {
			t.Errorf("TrustRule(%s) = %q, want %q", dir, got, want)
		}
	}
}
