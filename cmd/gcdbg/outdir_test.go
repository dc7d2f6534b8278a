package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report -o DIR and compile -o DIR refuse to write through a symbolic link
// planted in DIR, saying so; the link's target is untouched.
func TestOutputDirSymlinksRefused(t *testing.T) {
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cmd, file string }{{"report", "index.html"}, {"compile", "index.json"}} {
		dir := t.TempDir()
		if err := os.Symlink(victim, filepath.Join(dir, c.file)); err != nil {
			t.Fatal(err)
		}
		code, out, errs := run(c.cmd, "../../fixtures/sin_cos.json", "-o", dir)
		if code == 0 {
			t.Fatalf("%s: exit 0 with a link planted at %s\n%s", c.cmd, c.file, out)
		}
		if !strings.Contains(errs, "symbolic link") || !strings.Contains(errs, c.file) {
			t.Errorf("%s: the refusal does not name the link: %s", c.cmd, errs)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep" {
			t.Fatalf("%s wrote through the link: the target now holds %q", c.cmd, b)
		}
	}
	// Without a link both write their files.
	dir := t.TempDir()
	if code, _, errs := run("report", "../../fixtures/sin_cos.json", "-o", dir); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
}

// gcdbg cache shows the cache and clears it.
func TestCacheCommand(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GCDBG_CACHE_DIR", cache)
	if code, _, errs := run("compile", "../../fixtures/sin_cos.json", "-o", t.TempDir()); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, errs)
	}
	code, out, errs := run("cache")
	if code != 0 || !strings.Contains(out, cache) || !strings.Contains(out, "1 compiled programs") {
		t.Fatalf("cache: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run("cache", "clear")
	if code != 0 || !strings.Contains(out, "cleared") {
		t.Fatalf("cache clear: exit %d\n%s%s", code, out, errs)
	}
	_, out, _ = run("cache")
	if !strings.Contains(out, "0 compiled programs, 0 kernel objects") {
		t.Fatalf("after clear:\n%s", out)
	}
}
