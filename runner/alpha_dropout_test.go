package runner

import "testing"

// nn.AlphaDropout, F.alpha_dropout and nn.FeatureAlphaDropout in training
// (testdata/models/alpha_dropout_train.py, exported from PyTorch with the
// keep masks it drew; SELU networks' dropout) were refused: the modules
// were unsupported, F.alpha_dropout not in the op set, and the exporter did
// not record their draws. They replay PyTorch's masks through
// alpha_dropout_masked; a frozen (eval) AlphaDropout is the identity.
// Eager and compiled match PyTorch, outputs and every gradient.
func TestAlphaDropoutMatchesPyTorch(t *testing.T) {
	checkEagerAndCompiled(t, "testdata/alpha_dropout_train.json", 2, 6)
}
