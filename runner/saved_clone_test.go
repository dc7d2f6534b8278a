package runner

import "testing"

// A forward output that is a copy of an input (a buffer's clone the
// partition saves for the backward) and is also read by a later kernel of
// the forward (testdata/models/saved_clone_bmm.py, exported from PyTorch:
// MoCo's logits against `self.queue.clone()`). render/alias.go made the
// output the input's slot and dropped the copy, and the bmm reading the
// clone failed to render ("bmm mat2 (einsum_view_1) has no buffer in
// memory"). Eager and compiled match PyTorch.
func TestSavedCloneReadByGEMM(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/saved_clone_bmm.json", 1, 2)
}
