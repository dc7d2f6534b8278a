package stages

// Source spellings of the loss and misc torch.nn.functional ops
// (ir/ops_loss.go) and of torch-level names of aten ops that OpInfo calls
// directly (torch.constant_pad_nd, torch.split_with_sizes, F._threshold).
func init() {
	for k, v := range map[string]alias{
		"torch.constant_pad_nd":          {Op: "pad", Schema: "constant_pad_nd(input, pad, value=0, mode='constant')"},
		"torch.split_with_sizes":         {Op: "split", Schema: "split_with_sizes(input, split_sizes, dim=0)", Rename: map[string]string{"split_sizes": "split_size_or_sections"}},
		"torch.nn.functional.unfold":     {Op: "im2col", Schema: "unfold(input, kernel_size, dilation=1, padding=0, stride=1)"},
		"torch.nn.functional._threshold": {Op: "threshold", Schema: "_threshold(input, threshold, value, inplace=False)"},
	} {
		aliases[k] = v
	}
}
