package interp

import (
	"math/rand/v2"
	"testing"
)

// pcgAdvance(k) leaves math/rand/v2's PCG where k calls of Uint64 leave it
// (perturbFlat's chunks draw from copies moved ahead this way).
func TestPCGAdvanceMatchesDrawing(t *testing.T) {
	for _, k := range []uint64{0, 1, 2, 3, 7, 64, 1000, 12345} {
		a := rand.NewPCG(NoiseSeed, 0x9e3779b97f4a7c15)
		b := *a
		for i := uint64(0); i < k; i++ {
			a.Uint64()
		}
		pcgAdvance(&b, k)
		for i := 0; i < 3; i++ {
			if x, y := a.Uint64(), b.Uint64(); x != y {
				t.Fatalf("advance %d: draw %d after it is %#x, after %d draws %#x", k, i, y, k, x)
			}
		}
	}
}
