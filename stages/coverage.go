package stages

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"gcdbg/ir"
	"gcdbg/loopir"
)

// Coverage of PyTorch 2.6's core ATen opset (core_aten_2_6.txt, a copy of
// the list of ops tagged torch.Tag.core): for each op, the canonical op a
// captured call of it (torch.ops.aten.X.overload, as TORCH_TRACE logs and
// aten-level graphs spell it) becomes, and how gcdbg runs that op; or why
// it is out of scope. `gcdbg ops --coverage` prints it.

//go:embed core_aten_2_6.txt
var coreATen string

// CoverageRow is one op of the core ATen list.
type CoverageRow struct {
	Name      string   // aten name, e.g. "_softmax"
	Overloads []string // e.g. ["default"]
	Status    string   // "supported" or "out of scope"
	Op        string   // the canonical op it becomes (supported)
	How       string   // compiled / decomposed / eager fallback (supported), or the reason (out of scope)
}

// Coverage statuses.
const (
	CoverageSupported  = "supported"
	CoverageOutOfScope = "out of scope"
	CoverageMissing    = "MISSING"
)

// outOfScope lists the core ATen ops gcdbg does not take, each with why.
var outOfScope = map[string]string{
	"_embedding_bag":                       "EmbeddingBag's aten form (offsets, per-sample weights, max mode indices) is not modeled",
	"_local_scalar_dense":                  "Tensor.item(): a data-dependent Python scalar; Dynamo breaks the graph there",
	"_native_batch_norm_legit":             "aten-level batch norm returning (out, save_mean, save_rstd) for AOTAutograd; torch-level batch_norm is supported",
	"_native_batch_norm_legit_no_training": "aten-level batch norm tuple form: read as batch_norm (eval) when only its output is used (normalize_pt2.go); its saved statistics are not",
	"as_strided":                           "arbitrary views of storage: gcdbg's views are shape ops; as_strided appears only in functionalized aten graphs",
	"col2im":                               "F.fold is not modeled",
	"convolution_backward":                 "a backward op: gcdbg derives convolution gradients itself (conv2d_backward_input/weight)",
	"embedding_dense_backward":             "a backward op: gcdbg derives embedding's gradient itself (scatter_add)",
	"grid_sampler_2d":                      "the aten-level form (integer mode and padding codes) is not modeled; torch-level F.grid_sample is (aten.grid_sample, 4-D, bilinear and nearest)",
	"max_pool2d_with_indices_backward":     "a backward op: gcdbg derives pooling gradients itself (max_pool2d_backward, adaptive_max_pool3d_backward)",
	"native_group_norm":                    "aten-level group norm returning (out, mean, rstd) for AOTAutograd is not modeled",
	"native_group_norm_backward":           "a backward op: gcdbg derives gradients itself",
	"native_layer_norm_backward":           "a backward op: gcdbg derives gradients itself",
	"nonzero":                              "its output shape depends on the data; Dynamo breaks the graph there",
	"sym_storage_offset":                   "a layout query of symbolic shapes: gcdbg specializes strides and offsets",
	"sym_stride":                           "a layout query of symbolic shapes: gcdbg specializes strides and offsets",
}

// Coverage computes the table.
func Coverage() []CoverageRow {
	var rows []CoverageRow
	for _, line := range strings.Split(coreATen, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, ovs, _ := strings.Cut(line, ":")
		r := CoverageRow{Name: strings.TrimSpace(name), Overloads: strings.Fields(ovs)}
		if why, ok := outOfScope[r.Name]; ok {
			r.Status, r.How = CoverageOutOfScope, why
			rows = append(rows, r)
			continue
		}
		d := coverageOp(r.Name, r.Overloads)
		if d == nil {
			r.Status, r.How = CoverageMissing, "neither supported nor marked out of scope"
			rows = append(rows, r)
			continue
		}
		r.Status, r.Op = CoverageSupported, d.Name
		op := strings.TrimPrefix(d.Name, "aten.")
		switch {
		case d.Kind == ir.KindMeta:
			r.How = "folded at compile time (a Python value)"
		case ir.IsCore(d.Name) && loopir.Compiles(op):
			r.How = "core op, compiled"
		case ir.IsCore(d.Name) && loopir.CompilesPartly(op) != "":
			r.How = "core op, compiled " + loopir.CompilesPartly(op)
		case ir.IsCore(d.Name):
			r.How = "core op, runs as an eager fallback inside compiled code"
		default:
			r.How = "decomposed into core ops (docs/core-ops.md)"
		}
		rows = append(rows, r)
	}
	return rows
}

// coverageOp is the canonical op a call torch.ops.aten.<name>.<overload> normalizes to.
func coverageOp(name string, overloads []string) *ir.OpDef {
	ov := "default"
	if len(overloads) > 0 {
		ov = overloads[0]
	}
	n := &ir.Node{Name: "x", Op: ir.CallFunction, Target: "torch.ops.aten." + name + "." + ov}
	d, _, ok := canonicalFor(n)
	if !ok {
		return nil
	}
	return d
}

// CoverageTable renders the table as text.
func CoverageTable(rows []CoverageRow) string {
	var sb strings.Builder
	count := map[string]int{}
	fmt.Fprintf(&sb, "%-36s %-28s %-13s %-28s %s\n", "core ATen op (PyTorch 2.6)", "overloads", "status", "gcdbg op", "how / why")
	for _, r := range rows {
		count[r.Status]++
		fmt.Fprintf(&sb, "%-36s %-28s %-13s %-28s %s\n", r.Name, strings.Join(r.Overloads, " "), r.Status, r.Op, r.How)
	}
	var keys []string
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
	}
	fmt.Fprintf(&sb, "\n%d ops: %s\n", len(rows), strings.Join(parts, ", "))
	return sb.String()
}

// outOfScopeFunctional lists torch.nn.functional ops outside the core ATen
// list that gcdbg does not take, each with why; `gcdbg ops --coverage`
// prints them after the core ATen table (the conformance table reads both).
var outOfScopeFunctional = map[string]string{
	"triplet_margin_with_distance_loss": "with a distance_function: a Python callable (an nn.PairwiseDistance module in every OpInfo sample) cannot be an argument of a torch.fx trace, so the exporter cannot capture the call; Dynamo inlines the callable, so a captured graph holds pairwise_distance, clamp_min and mean, which gcdbg takes. The default distance (distance_function=None) is supported: it is triplet_margin_loss",
	"fractional_max_pool2d":             "random draws: F.fractional_max_pool2d draws its window offsets (_random_samples) with torch.rand inside the call; the exporter does not record them and gcdbg never guesses a draw",
	"squeeze_":                          "on a graph input (or a view of one): x.squeeze_() changes the caller's tensor's shape and strides (an input metadata mutation), which gcdbg's compiled graph cannot hand back; on a tensor the graph computes it is supported (the name is rebound to the view)",
	"unsqueeze_":                        "on a graph input (or a view of one): x.unsqueeze_(d) changes the caller's tensor's shape and strides (an input metadata mutation), which gcdbg's compiled graph cannot hand back; on a tensor the graph computes it is supported (the name is rebound to the view)",
	"fractional_max_pool3d":             "random draws: F.fractional_max_pool3d draws its window offsets (_random_samples) with torch.rand inside the call; the exporter does not record them and gcdbg never guesses a draw",
}

// FunctionalOutOfScope is outOfScopeFunctional as rows, by name.
func FunctionalOutOfScope() []CoverageRow {
	var rows []CoverageRow
	for name, why := range outOfScopeFunctional {
		rows = append(rows, CoverageRow{Name: name, Status: CoverageOutOfScope, How: why})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
	return rows
}

// FunctionalOutOfScopeTable renders those rows in CoverageTable's columns.
func FunctionalOutOfScopeTable() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-36s %-28s %-13s %-28s %s\n", "torch.nn.functional op (not core ATen)", "", "status", "", "why")
	for _, r := range FunctionalOutOfScope() {
		fmt.Fprintf(&sb, "%-36s %-28s %-13s %-28s %s\n", r.Name, "", r.Status, "", r.How)
	}
	return sb.String()
}

// outOfScopeArguments lists argument values of ops gcdbg takes that it does
// not take, each with why, by the op's name; `gcdbg ops --coverage` prints
// them after the functional ops, and the conformance table reads them as it
// reads out-of-scope ops, so an OpInfo whose other samples pass names the
// reason for the ones refused.
var outOfScopeArguments = map[string]string{
	"conv1d":  convNarrowInts,
	"conv2d":  convNarrowInts,
	"conv3d":  convNarrowInts,
	"empty":   "its values (empty and empty(out=)): torch.empty returns uninitialized memory, so PyTorch's values are unspecified and not comparable (PyTorch's OpInfo tests skip comparing them too); gcdbg's empty is zeros, one valid content. Its shape and dtype are defined, but the conformance exporter leaves a torch.empty of Python sizes frozen into a constant (no graph node), so no sample tests them",
	"one_hot": "num_classes=-1 (the default) only: the number of classes is then max(input) + 1, so the result's shape depends on the data, as nonzero's does; one_hot with num_classes given is supported",
}

// convNarrowInts is why conv1d/2d/3d refuse the narrower integer dtypes.
const convNarrowInts = "int32, int8 and uint8 tensors: PyTorch 1.13's CPU kernels compute them (im2col and a gemm in the integer type, whose sums wrap), gcdbg's convolutions take floating and int64 tensors (tensor.nnConvDTypes); their OpInfos list no such dtype, so no conformance sample has one. Transposed convolutions of those dtypes PyTorch refuses too"

// ArgumentOutOfScopeTable renders outOfScopeArguments in CoverageTable's columns.
func ArgumentOutOfScopeTable() string {
	names := make([]string, 0, len(outOfScopeArguments))
	for n := range outOfScopeArguments {
		names = append(names, n)
	}
	sort.Strings(names)
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-36s %-28s %-13s %-28s %s\n", "op: argument values gcdbg refuses", "", "status", "", "why")
	for _, n := range names {
		fmt.Fprintf(&sb, "%-36s %-28s %-13s %-28s %s\n", n, "", CoverageOutOfScope, "", outOfScopeArguments[n])
	}
	return sb.String()
}
