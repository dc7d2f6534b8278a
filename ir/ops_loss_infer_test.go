package ir_test

// The ops of ops_loss.go that keep inference by example (small probes;
// multi_margin_loss and multilabel_margin_loss have their own Infer: an example target of ones can be
// out of range).
func init() {
	for _, n := range []string{"gaussian_nll_loss", "im2col", "bilinear", "cosine_embedding_loss", "pdist",
		"native_layer_norm", "group_norm", "multilabel_soft_margin_loss"} {
		fallbackOps["aten."+n] = true
	}
}
