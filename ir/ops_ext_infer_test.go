package ir_test

// The ops of ops_ext*.go that keep inference by example: losses (rare,
// small), and the ops whose probe would trip their own size checks.
func init() {
	for _, n := range []string{"binary_cross_entropy", "binary_cross_entropy_with_logits", "huber_loss", "kl_div",
		"l1_loss", "mse_loss", "smooth_l1_loss", "soft_margin_loss", "glu", "prelu", "var_mean", "std_mean"} {
		fallbackOps["aten."+n] = true
	}
}
