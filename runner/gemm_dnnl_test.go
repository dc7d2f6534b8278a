package runner

import (
	"path/filepath"
	"strings"
	"testing"
)

// oneDNN's sgemm on the team (choice 8) cuts a large GEMM into one slice
// of the larger of M and N per thread, each a sequential oneDNN call
// (render/gemm_dnnl.go): the feed-forward layers of
// testdata/models/gelu_ffn_train.py (exported from PyTorch; GEMMs of
// 264x1001x20 and the like, above the 2^22 multiply-adds where it slices,
// the slices not multiples of 16), run with every GEMM on that candidate,
// still match PyTorch and the eager interpreter in every output and
// gradient.
func TestDNNLTeamSlicesMatch(t *testing.T) {
	t.Setenv("GCDBG_AUTOTUNE", "0")
	t.Setenv("GCDBG_CHOICE", "8")
	tr, units := loadCompiledUnits(t, filepath.Join("testdata", "gelu_ffn_train.json"))
	bwd := backwardProgram(t, units[0])
	if bwd.Source == nil || !strings.Contains(bwd.Source.Code, "#pragma omp parallel num_threads(team) reduction(|:bad)") {
		t.Fatal("the oneDNN GEMM does not slice its product over the team")
	}
	res := runCompiledMatches(t, tr, units)
	dnnl := 0
	for _, g := range res.Graphs {
		for _, k := range g.Kernels {
			if kr, ok := k.(KernelResult); ok && kr.Choice != nil && strings.HasPrefix(kr.Choice.Label, "oneDNN sgemm, all threads") {
				dnnl++
			}
		}
	}
	if dnnl < 6 {
		t.Errorf("%d kernels ran oneDNN's sgemm on the team, want the forward's and backward's GEMMs", dnnl)
	}
}
