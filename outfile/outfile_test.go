package outfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRefusesPlantedSymlink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(outside, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(dir, "index.html", []byte("<html>"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "index.html") {
		t.Fatalf("want a refusal naming the link, got %v", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep me" {
		t.Fatalf("the link's target was written: %q", b)
	}
	// A dangling link is refused too (O_CREAT would have created its target).
	dangling := filepath.Join(t.TempDir(), "new.txt")
	if err := os.Symlink(dangling, filepath.Join(dir, "a.json")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dir, "a.json", []byte("{}"), 0o644); err == nil {
		t.Fatal("a dangling link was written through")
	}
	if _, err := os.Stat(dangling); !os.IsNotExist(err) {
		t.Fatalf("the dangling link's target was created")
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("leftover %s", e.Name())
		}
	}
}

func TestWritesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"one", "two"} {
		if err := WriteFile(dir, "f.txt", []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "f.txt"))
		if err != nil || string(b) != s {
			t.Fatalf("got %q, %v; want %q", b, err, s)
		}
	}
	fi, _ := os.Stat(filepath.Join(dir, "f.txt"))
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", fi.Mode().Perm())
	}
	if err := WriteFile(dir, "../x", nil, 0o644); err == nil {
		t.Fatal("a name with a directory part was accepted")
	}
}
