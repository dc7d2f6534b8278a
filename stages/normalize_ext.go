package stages

import "gcdbg/ir"

// Source spellings of the op families in ir/ops_ext.go whose Python
// signature differs from the canonical schema (inplace flags, the
// deprecated size_average/reduce of the losses, aten's argument order).
func init() {
	inplace := func(op, params string) alias {
		return alias{Op: op, Schema: op + "(input" + params + ", inplace=False)"}
	}
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
		"torch.arcsin":                        {Op: "asin"},
		"torch.arccos":                        {Op: "acos"},
		"torch.arctan":                        {Op: "atan"},
		"torch.arcsinh":                       {Op: "asinh"},
		"torch.arccosh":                       {Op: "acosh"},
		"torch.arctanh":                       {Op: "atanh"},
		"torch.arctan2":                       {Op: "atan2"},
		"torch.special.erfinv":                {Op: "erfinv"},
		"torch.special.logsumexp":             {Op: "logsumexp"},
	} {
		aliases[k] = v
	}
}

// roundHasDecimals reports whether a round call passes decimals.
func roundHasDecimals(n *ir.Node) bool {
	_, kw := n.Kwarg("decimals")
	return len(n.Args) > 1 || kw
}
