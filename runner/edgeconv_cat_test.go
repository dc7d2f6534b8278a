package runner

import "testing"

// DGCNN's EdgeConv (testdata/models/edgeconv_cat.py, exported from
// PyTorch): torch.cat((feature - x, x), 3) with x the centre repeated k
// times. render/copy_reads.go redirected the cat's load of the repeat's
// copy to its source and dropped the copy's memory, but a lone cat kernel
// is rendered as one copy loop per part, by the part's buffer
// (cat_copy.go): "buffer "buf17" is read but has no storage and no
// producer in this kernel". Eager and compiled match PyTorch.
func TestEdgeConvCatOfRepeatCompiles(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/edgeconv_cat.json", 1, 11)
}
