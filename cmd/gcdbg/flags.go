package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses flags that may come before or after the positional
// TRACE argument (gcdbg run mlp.json --json and gcdbg run --json mlp.json).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if strings.HasPrefix(args[0], "-") && args[0] != "-" {
			continue
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) > 1 {
		return nil, fmt.Errorf("expected at most one TRACE, got %d: %s", len(pos), strings.Join(pos, " "))
	}
	return pos, nil
}
