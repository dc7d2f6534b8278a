package ir_test

// _scaled_dot_product_attention infers by hand since its draw (dropout_p > 0)
// does not change its metas (ops_train_sdpa.go); sdpa_dropout_masked, which
// only the normalized stage makes, keeps inference by example.
func init() {
	delete(fallbackOps, "aten._scaled_dot_product_attention")
	fallbackOps["aten.sdpa_dropout_masked"] = true
}
