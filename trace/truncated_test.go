package trace

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// A trace cut short anywhere (a copy that stopped, a full disk) says the
// file ends early and looks truncated, with the byte offset, instead of
// the decoder's bare "EOF"; an empty file says it is empty.
func TestTruncatedTraceSaysSo(t *testing.T) {
	data, err := os.ReadFile("../fixtures/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 40, 79, 80, len(data) / 3, len(data) / 2, len(data) - 3} {
		_, err := Parse(data[:n], t.TempDir(), "mlp.json")
		want := fmt.Sprintf("ends early, at byte offset %d", n)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("cut at %d: %v, want %q and 'truncated'", n, err, want)
		}
	}
	for _, empty := range []string{"", "  \n"} {
		if _, err := Parse([]byte(empty), t.TempDir(), "e.json"); err == nil || !strings.Contains(err.Error(), "the file is empty") {
			t.Errorf("empty file %q: %v", empty, err)
		}
	}
	// a syntax error is still reported as one
	if _, err := Parse([]byte(`{"format":]`), t.TempDir(), "s.json"); err == nil || strings.Contains(err.Error(), "truncated") {
		t.Errorf("syntax error: %v", err)
	}
}
