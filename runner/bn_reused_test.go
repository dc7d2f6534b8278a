package runner

import "testing"

// A BatchNorm called three times in one training step (testdata/models/
// bn_reused_train.py, exported from PyTorch: a GAN discriminator's or a
// siamese tower's pattern, BatchNorm2d and a momentum=None BatchNorm1d)
// updates its running stats once per call, each from the previous
// result. Each call read its own copy of the buffers, so only one update
// survived (num_batches_tracked 1 instead of 3: a wrong buffer verdict in
// eager and compiled runs alike). Eager and compiled match PyTorch,
// outputs, grads and the six buffers.
func TestReusedBatchNormChainsRunningStats(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/bn_reused_train.json", 2, 8)
}
