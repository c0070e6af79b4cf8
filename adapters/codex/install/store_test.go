package install

import (
	"strings"
	"testing"
)

// install --store writes the URL into every hook command without its password
// and says where the password goes.
func TestInstallStoreWithoutPassword(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	plan, err := planInstall(planOptions{Destination: dir, CodexHome: home, Binary: "/usr/bin/true",
		Store: "postgres://team:s3cret@db.example:5432/loops?sslmode=require"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range plan.OurCommands {
		if !strings.Contains(c, " --store 'postgres://team@db.example:5432/loops?sslmode=require'") || strings.Contains(c, "s3cret") {
			t.Fatalf("hook command %q: want --store with the URL and without the password", c)
		}
	}
	for _, ch := range plan.Changes {
		if strings.Contains(string(ch.After), "s3cret") {
			t.Fatalf("%s would hold the password", ch.Path)
		}
	}
	notes := strings.Join(plan.Notes, "\n")
	if !strings.Contains(notes, "PGPASSWORD") || !strings.Contains(notes, ".pgpass") || strings.Contains(notes, "s3cret") {
		t.Fatalf("notes %q should say where the password goes", notes)
	}
	if _, err := planInstall(planOptions{Destination: dir, CodexHome: home, Binary: "/usr/bin/true", Store: "mysql://x@h/db"}); err == nil {
		t.Fatal("a non-postgres --store was accepted")
	}
}
