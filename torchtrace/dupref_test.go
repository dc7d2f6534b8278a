package torchtrace

import (
	"fmt"
	"strings"
	"testing"
)

// dupArtifacts is a log of n artifact events of one name in one compile:
// the FuzzReadLog input that stalled (naming the n-th repeat tried every
// suffix from 2, n²/2 in all: 2 minutes for 20,000 lines).
func dupArtifacts(n int) string {
	const prefix = "V1206 15:18:20.599000 1500233 torch/_dynamo/x.py:1] "
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(prefix + `{"artifact": {"name": "a", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}` + "\n")
	}
	// A name that looks like a repeat's is still kept apart.
	b.WriteString(prefix + `{"artifact": {"name": "a (3)", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}` + "\n")
	return b.String()
}

func TestDuplicateArtifactNames(t *testing.T) {
	l, err := Read(strings.NewReader(dupArtifacts(300)))
	if err != nil {
		t.Fatal(err)
	}
	cs := Group(l)
	if len(cs) != 1 {
		t.Fatalf("%d compiles", len(cs))
	}
	c := cs[0]
	if len(c.RefOrder) != 301 || len(c.Reference) != 301 {
		t.Fatalf("%d keys in order, %d references; want 301", len(c.RefOrder), len(c.Reference))
	}
	if c.RefOrder[0] != "a" || c.RefOrder[1] != "a (2)" || c.RefOrder[299] != "a (300)" {
		t.Fatalf("keys %q %q ... %q", c.RefOrder[0], c.RefOrder[1], c.RefOrder[299])
	}
	// "a (3)" was taken by the third repeat: the literal one gets the next free key.
	if last := c.RefOrder[300]; last != "a (3) (2)" {
		t.Fatalf("the literal \"a (3)\" artifact is keyed %q", last)
	}
	seen := map[string]bool{}
	for _, k := range c.RefOrder {
		if seen[k] {
			t.Fatalf("key %q twice", k)
		}
		seen[k] = true
	}
}

// BenchmarkDuplicateArtifacts: linear in the log (was quadratic).
func BenchmarkDuplicateArtifacts(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		log := dupArtifacts(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				l, err := Read(strings.NewReader(log))
				if err != nil {
					b.Fatal(err)
				}
				Group(l)
			}
		})
	}
}
