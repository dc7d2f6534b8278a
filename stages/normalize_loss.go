package stages

// Source spellings of the loss and misc torch.nn.functional ops
// (ir/ops_loss.go) and of torch-level names of aten ops that OpInfo calls
// directly (torch.constant_pad_nd, torch.split_with_sizes, F._threshold).
func init() {
	for k, v := range map[string]alias{
		"torch.constant_pad_nd":      {Op: "pad", Schema: "constant_pad_nd(input, pad, value=0, mode='constant')"},
		"torch.split_with_sizes":     {Op: "split", Schema: "split_with_sizes(input, split_sizes, dim=0)", Rename: map[string]string{"split_sizes": "split_size_or_sections"}},
		"torch.nn.functional.unfold": {Op: "im2col", Schema: "unfold(input, kernel_size, dilation=1, padding=0, stride=1)"},
		"torch.nn.functional.cosine_embedding_loss": {Op: "cosine_embedding_loss",
			Schema: "cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean')"},
		"torch.nn.functional.multi_margin_loss": {Op: "multi_margin_loss",
			Schema: "multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction='mean')"},
		"torch.nn.functional.multilabel_soft_margin_loss": {Op: "multilabel_soft_margin_loss",
			Schema: "multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction='mean')"},
		"aten:_pdist_forward": {Op: "pdist", Schema: "_pdist_forward(self, p=2)"},
		"torch.nn.functional.multilabel_margin_loss": {Op: "multilabel_margin_loss",
			Schema: "multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean')"},
		"torch.nn.functional._threshold": {Op: "threshold", Schema: "_threshold(input, threshold, value, inplace=False)"},
		"torch.nn.functional.ctc_loss":   {Op: "ctc_loss"},
		"torch.ctc_loss":                 {Op: "ctc_loss"},
	} {
		aliases[k] = v
	}
}
