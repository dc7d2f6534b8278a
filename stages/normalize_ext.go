package stages

import "gcdbg/ir"

// Source spellings of the op families in ir/ops_ext.go whose Python
// signature differs from the canonical schema (inplace flags, the
// deprecated size_average/reduce of the losses, aten's argument order).
func init() {
	inplace := func(op, params string) alias {
		return alias{Op: op, Schema: op + "(input" + params + ", inplace=False)"}
	}
	for _, fn := range []string{"sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "tanh", "fabs", "erf", "atan", "floor", "ceil"} {
		aliases["math."+fn] = alias{Op: "pymath", Schema: "math_" + fn + "(x, fn='" + fn + "')"}
	}
	aliases["math.pow"] = alias{Op: "pymath", Schema: "math_pow(x, y, fn='pow')"}
	for k, v := range map[string]alias{
		"torch.nn.functional.hardswish":   inplace("hardswish", ""),
		"torch.nn.functional.hardsigmoid": inplace("hardsigmoid", ""),
		"torch.nn.functional.mish":        inplace("mish", ""),
		"torch.nn.functional.selu":        inplace("selu", ""),
		"torch.nn.functional.elu":         inplace("elu", ", alpha=1.0"),
		"torch.nn.functional.celu":        inplace("celu", ", alpha=1.0"),
		"torch.nn.functional.leaky_relu":  inplace("leaky_relu", ", negative_slope=0.01"),
		"torch.nn.functional.logsigmoid":  {Op: "log_sigmoid"},
		"aten:hardtanh":                   {Op: "clamp", Schema: "hardtanh(self, min_val=-1.0, max_val=1.0)", Rename: map[string]string{"min_val": "min", "max_val": "max"}},
		"torch.nn.functional.mse_loss":    {Op: "mse_loss", Schema: "mse_loss(input, target, size_average=None, reduce=None, reduction='mean')"},
		"torch.nn.functional.l1_loss":     {Op: "l1_loss", Schema: "l1_loss(input, target, size_average=None, reduce=None, reduction='mean')"},
		"torch.nn.functional.smooth_l1_loss": {Op: "smooth_l1_loss",
			Schema: "smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0)"},
		"torch.nn.functional.binary_cross_entropy": {Op: "binary_cross_entropy",
			Schema: "binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction='mean')"},
		"torch.nn.functional.binary_cross_entropy_with_logits": {Op: "binary_cross_entropy_with_logits",
			Schema: "binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction='mean', pos_weight=None)"},
		"aten:binary_cross_entropy_with_logits": {Op: "binary_cross_entropy_with_logits",
			Schema: "binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=1)"},
		"torch.nn.functional.kl_div": {Op: "kl_div",
			Schema: "kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False)"},
		"torch.nn.functional.soft_margin_loss": {Op: "soft_margin_loss",
			Schema: "soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean')"},
		"torch.linalg.vector_norm":            {Op: "linalg_vector_norm"},
		"torch._C._linalg.linalg_vector_norm": {Op: "linalg_vector_norm"},
		"torch.norm":                          {Op: "norm", Schema: "norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)"},
		"torch.functional.einsum":             {Op: "einsum"},
		"torch.functional.norm":               {Op: "norm", Schema: "norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)"},
		"torch.functional.cdist":              {Op: "cdist"},
		"torch.functional.split":              {Op: "split"},
		"aten:_adaptive_avg_pool2d":           {Op: "adaptive_avg_pool2d", Schema: "_adaptive_avg_pool2d(self, output_size)"},
		"aten:_adaptive_avg_pool2d_backward":  {Op: "adaptive_avg_pool2d_backward"},
		"aten:split_with_sizes":               {Op: "split", Schema: "split_with_sizes(self, split_sizes, dim=0)", Rename: map[string]string{"split_sizes": "split_size_or_sections"}},
		"torch.split_with_sizes":              {Op: "split", Schema: "split_with_sizes(self, split_sizes, dim=0)", Rename: map[string]string{"split_sizes": "split_size_or_sections"}},
		"method:split_with_sizes":             {Op: "split", Schema: "split_with_sizes(self, split_sizes, dim=0)", Rename: map[string]string{"split_sizes": "split_size_or_sections"}},
		"aten:sym_numel":                      {Op: "numel"},
		"aten:sym_size":                       {Op: "size"},
		"aten:_cdist_forward":                 {Op: "cdist", Schema: "_cdist_forward(x1, x2, p, compute_mode)"},
		"aten:constant_pad_nd":                {Op: "pad", Schema: "constant_pad_nd(self, pad, value=0, mode='constant')"},
		"aten:reflection_pad1d":               padAlias("reflection_pad1d", "reflect"),
		"aten:reflection_pad2d":               padAlias("reflection_pad2d", "reflect"),
		"aten:reflection_pad3d":               padAlias("reflection_pad3d", "reflect"),
		"aten:replication_pad1d":              padAlias("replication_pad1d", "replicate"),
		"aten:replication_pad2d":              padAlias("replication_pad2d", "replicate"),
		"aten:replication_pad3d":              padAlias("replication_pad3d", "replicate"),
		"aten:upsample_nearest2d": {Op: "interpolate", Schema: "upsample_nearest2d(input, output_size, scale_factors, mode='nearest')",
			Rename: map[string]string{"output_size": "size", "scale_factors": "scale_factor"}},
		"aten:upsample_bilinear2d": {Op: "interpolate", Schema: "upsample_bilinear2d(input, output_size, align_corners, scale_factors, mode='bilinear')",
			Rename: map[string]string{"output_size": "size", "scale_factors": "scale_factor"}},
		"torch.nn.functional.upsample":        {Op: "interpolate"},
		"torch.pixel_shuffle":                 {Op: "pixel_shuffle", Schema: "pixel_shuffle(input, upscale_factor)", Rename: map[string]string{"upscale_factor": "factor"}},
		"torch.nn.functional.pixel_shuffle":   {Op: "pixel_shuffle", Schema: "pixel_shuffle(input, upscale_factor)", Rename: map[string]string{"upscale_factor": "factor"}},
		"torch.pixel_unshuffle":               {Op: "pixel_unshuffle", Schema: "pixel_unshuffle(input, downscale_factor)", Rename: map[string]string{"downscale_factor": "factor"}},
		"torch.nn.functional.pixel_unshuffle": {Op: "pixel_unshuffle", Schema: "pixel_unshuffle(input, downscale_factor)", Rename: map[string]string{"downscale_factor": "factor"}},
		"torch.nn.functional.embedding_bag": {Op: "embedding_bag",
			Schema: "embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None)"},
		"torch.nn.functional.threshold": {Op: "threshold", Schema: "threshold(input, threshold, value, inplace=False)"},
		"torch.nn.functional.softmin":   {Op: "softmin"},
		"torch.ger":                     {Op: "outer"},
		"torch.nn.functional.one_hot":   {Op: "one_hot", Schema: "one_hot(tensor, num_classes=-1)", Rename: map[string]string{"tensor": "self"}},
		"torch.nn.functional.margin_ranking_loss": {Op: "margin_ranking_loss",
			Schema: "margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean')"},
		"torch.nn.functional.hinge_embedding_loss": {Op: "hinge_embedding_loss",
			Schema: "hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction='mean')"},
		"torch.nn.functional.poisson_nll_loss": {Op: "poisson_nll_loss",
			Schema: "poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-08, reduce=None, reduction='mean')"},
		"torch.nn.functional.triplet_margin_loss": {Op: "triplet_margin_loss",
			Schema: "triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, size_average=None, reduce=None, reduction='mean')"},
		"aten:_adaptive_avg_pool3d": {Op: "adaptive_avg_pool3d", Schema: "_adaptive_avg_pool3d(self, output_size)"},
		"torch.arcsin":              {Op: "asin"},
		"torch.arccos":              {Op: "acos"},
		"torch.arctan":              {Op: "atan"},
		"torch.arcsinh":             {Op: "asinh"},
		"torch.arccosh":             {Op: "acosh"},
		"torch.arctanh":             {Op: "atanh"},
		"torch.arctan2":             {Op: "atan2"},
		"torch.special.erfinv":      {Op: "erfinv"},
		"torch.special.logsumexp":   {Op: "logsumexp"},
	} {
		aliases[k] = v
	}
}

func padAlias(name, mode string) alias {
	return alias{Op: "pad", Schema: name + "(self, padding, mode='" + mode + "')", Rename: map[string]string{"padding": "pad"}}
}

// roundHasDecimals reports whether a round call passes decimals.
func roundHasDecimals(n *ir.Node) bool {
	_, kw := n.Kwarg("decimals")
	return len(n.Args) > 1 || kw
}
