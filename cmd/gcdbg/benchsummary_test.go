package main

import (
	"bytes"
	"strings"
	"testing"
)

// bench's summary never prints NaN: with no pointwise/reduction-only trace
// its gmean is "none"; with some, it is their geometric mean.
func TestBenchGmeanWithoutChainsIsNone(t *testing.T) {
	var b bytes.Buffer
	writeGmeans(&b, []benchRow{{trace: "conv", compiledMS: 2, torchMS: 4}, {trace: "ffn", compiledMS: 1, torchMS: 1}})
	out := b.String()
	if strings.Contains(out, "NaN") || !strings.Contains(out, "chains only: none") || !strings.Contains(out, "1.41x (2 traces; lowest 1.00x, ffn)") {
		t.Errorf("no chain traces:\n%s", out)
	}
	b.Reset()
	writeGmeans(&b, []benchRow{{trace: "softmax", compiledMS: 1, torchMS: 4, chain: true}, {trace: "ffn", compiledMS: 1, torchMS: 1}})
	if out := b.String(); !strings.Contains(out, "chains only: 4.00x (1 traces)") {
		t.Errorf("one chain trace:\n%s", out)
	}
}

// A fraction of a roof above 100% is marked, and the mark remembered so
// that the table explains it; at or below 100% it is a plain percentage.
func TestBenchAboveTheTriadIsMarked(t *testing.T) {
	var a aboveRoof
	if got := a.pct(30, 40); got != "75%" || a.any {
		t.Errorf("75%%: %q, any %v", got, a.any)
	}
	if got := a.pctOf(56, 0); got != "-" || a.any {
		t.Errorf("no roof: %q, any %v", got, a.any)
	}
	if got := a.pctOf(56, 40); got != "140%*" || !a.any {
		t.Errorf("140%%: %q, any %v", got, a.any)
	}
}

// A trace with PyTorch's recorded time stays out of the means when others
// were measured live (an LSTM whose module bench_eager.py could not
// rebuild read 87x on a time taken at export), and is named.
func TestBenchGmeanLeavesOutRecordedTimes(t *testing.T) {
	var b bytes.Buffer
	writeGmeans(&b, []benchRow{
		{trace: "ffn", compiledMS: 1, torchMS: 2, torchHow: "measured"},
		{trace: "lstm", compiledMS: 1, torchMS: 87, torchHow: "recorded"},
	})
	out := b.String()
	if !strings.Contains(out, "over PyTorch eager: 2.00x (1 traces; lowest 2.00x, ffn)") || !strings.Contains(out, "left out of the means: lstm") {
		t.Errorf("recorded row in the mean:\n%s", out)
	}
	b.Reset()
	writeGmeans(&b, []benchRow{{trace: "lstm", compiledMS: 1, torchMS: 4, torchHow: "recorded"}})
	if out := b.String(); !strings.Contains(out, "recorded times (none measured live): 4.00x") {
		t.Errorf("only recorded rows:\n%s", out)
	}
}
