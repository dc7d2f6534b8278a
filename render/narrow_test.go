package render

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gcdbg/tensor"
)

// The generated C's float16/bfloat16 conversions (narrow.go) give
// PyTorch's bits: every float32 of testdata/narrow_ref.bin (random bit
// patterns, ties, subnormal and overflow edges, NaN and Inf) narrowed by
// torch .half() and .bfloat16(), and 16-bit words widened by .float()
// (testdata/narrow_gen.py, PyTorch 1.13). The eager interpreter's
// tensor.FloatToHalf / FloatToBF16 are held to the same bits.
func TestNarrowConversionsMatchPyTorch(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	ref, err := os.ReadFile("testdata/narrow_ref.bin")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	n := int(le.Uint32(ref))
	xs, h, bf := ref[4:4+4*n], ref[4+4*n:4+6*n], ref[4+6*n:4+8*n]
	rest := ref[4+8*n:]
	m := int(le.Uint32(rest))
	hw, hf, bw, bff := rest[4:4+2*m], rest[4+2*m:4+6*m], rest[4+6*m:4+8*m], rest[4+8*m:4+12*m]
	if len(rest) != 4+12*m || n < 1000 || m < 1000 {
		t.Fatalf("narrow_ref.bin: %d floats, %d words, %d bytes left", n, m, len(rest))
	}
	sameNaN := func(a, b uint16, exp uint16) bool { // any NaN is PyTorch's NaN
		return a == b || (a&exp == exp && a&^(exp|0x8000) != 0 && b&exp == exp && b&^(exp|0x8000) != 0)
	}
	// Go (the interpreter) first.
	for i := 0; i < n; i++ {
		x := math.Float32frombits(le.Uint32(xs[4*i:]))
		if got, want := tensor.FloatToHalf(x), le.Uint16(h[2*i:]); !sameNaN(got, want, 0x7c00) {
			t.Errorf("tensor.FloatToHalf(%#08x) = %#04x, PyTorch %#04x", le.Uint32(xs[4*i:]), got, want)
		}
		if got, want := tensor.FloatToBF16(x), le.Uint16(bf[2*i:]); !sameNaN(got, want, 0x7f80) {
			t.Errorf("tensor.FloatToBF16(%#08x) = %#04x, PyTorch %#04x", le.Uint32(xs[4*i:]), got, want)
		}
	}
	// The C helpers: a program reads the reference on stdin and prints
	// its own results, one line per value.
	prog := "#include <stdio.h>\n#include <stdint.h>\n#include <string.h>\n" + narrowPreludeC + `
int main(void) {
  uint32_t n, m;
  if (fread(&n, 4, 1, stdin) != 1) return 1;
  for (uint32_t i = 0; i < n; i++) {
    float x; if (fread(&x, 4, 1, stdin) != 1) return 1;
    printf("%u %u %08x %08x\n", gcdbg_f16_store(x), gcdbg_bf16_store(x),
           gcdbg_float_bits(gcdbg_f16_round(x)), gcdbg_float_bits(gcdbg_bf16_round(x)));
  }
  uint16_t skip[2]; for (uint32_t i = 0; i < 2 * n; i++) if (fread(skip, 2, 1, stdin) != 1) return 1;
  if (fread(&m, 4, 1, stdin) != 1) return 1;
  uint16_t w;
  for (uint32_t i = 0; i < m; i++) { if (fread(&w, 2, 1, stdin) != 1) return 1; printf("%08x\n", gcdbg_float_bits(gcdbg_f16_load(w))); }
  float f; for (uint32_t i = 0; i < m; i++) if (fread(&f, 4, 1, stdin) != 1) return 1;
  for (uint32_t i = 0; i < m; i++) { if (fread(&w, 2, 1, stdin) != 1) return 1; printf("%08x\n", gcdbg_float_bits(gcdbg_bf16_load(w))); }
  return 0;
}
`
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "narrow.c"), filepath.Join(dir, "narrow")
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	// The flags of the compiled kernels (compiler.baseFlags), contraction included.
	if out, err := exec.Command(cc, "-O3", "-march=native", "-fno-math-errno", "-std=gnu11", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(string(ref))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != n+2*m {
		t.Fatalf("%d lines, want %d", len(lines), n+2*m)
	}
	var bad int
	for i := 0; i < n; i++ {
		var gh, gb uint16
		var rh, rb uint32
		if _, err := fmtSscan(lines[i], &gh, &gb, &rh, &rb); err != nil {
			t.Fatal(err)
		}
		wh, wb := le.Uint16(h[2*i:]), le.Uint16(bf[2*i:])
		// round(x) is the narrow value widened: PyTorch's .half().float()
		widen := func(u uint16, bfl bool) uint32 {
			if bfl {
				return uint32(u) << 16
			}
			return math.Float32bits(tensor.HalfToFloat(u))
		}
		if !sameNaN(gh, wh, 0x7c00) || !sameNaN(gb, wb, 0x7f80) ||
			(!math.IsNaN(float64(math.Float32frombits(rh))) && rh != widen(wh, false)) ||
			(!math.IsNaN(float64(math.Float32frombits(rb))) && rb != widen(wb, true)) {
			if bad++; bad < 10 {
				t.Errorf("x = %#08x: C float16 %#04x bfloat16 %#04x (rounded %#08x %#08x), PyTorch %#04x %#04x",
					le.Uint32(xs[4*i:]), gh, gb, rh, rb, wh, wb)
			}
		}
	}
	for j := 0; j < 2*m; j++ {
		ws, fs := hw, hf
		if j >= m {
			ws, fs = bw, bff
		}
		i := j % m
		var got uint32
		if _, err := fmtSscanHex(lines[n+j], &got); err != nil {
			t.Fatal(err)
		}
		want := le.Uint32(fs[4*i:])
		if got != want && !(math.IsNaN(float64(math.Float32frombits(got))) && math.IsNaN(float64(math.Float32frombits(want)))) {
			if bad++; bad < 10 {
				t.Errorf("word %#04x (bfloat16 %v): C %#08x, PyTorch %#08x", le.Uint16(ws[2*i:]), j >= m, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d conversions differ from PyTorch's", bad)
	}
}

func fmtSscan(s string, gh, gb *uint16, rh, rb *uint32) (int, error) {
	return fmt.Sscanf(s, "%d %d %x %x", gh, gb, rh, rb)
}

func fmtSscanHex(s string, v *uint32) (int, error) { return fmt.Sscanf(s, "%x", v) }
