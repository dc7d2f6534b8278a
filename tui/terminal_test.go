package tui

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Without a terminal the explorer says so in words.
func TestCheckTerminalExplains(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, out := range []any{f, &bytes.Buffer{}} {
		err := CheckTerminal(os.Stdin, out)
		if err == nil || !strings.Contains(err.Error(), "stdout is not a terminal") || !strings.Contains(err.Error(), "gcdbg dump") {
			t.Errorf("CheckTerminal(%T) = %v", out, err)
		}
	}
}
