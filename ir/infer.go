package ir

import (
	"fmt"

	"gcdbg/tensor"
)

// Hand-written shape inference. Inference by example (InferMeta's
// fallback) runs the op on full-size tensors of ones: exact, but a
// 512×784 matmul per node made the pipeline spend most of its time
// multiplying ones. The functions here compute shapes and strides from
// metadata alone. Dtypes come from a probe: the op evaluated on tensors of
// the same rank and dtypes with every dimension shrunk to at most 1, which
// reproduces the reference's promotion rules and dtype errors exactly
// (rank and dtype are all promotion looks at) for the price of one element.
// infer_test.go checks every op against inference by example on the graphs
// of every fixture.

// inferFor picks the hand-written inference of a canonical op, or nil when
// the op keeps inference by example (see fallbackOps in infer_test.go).
func inferFor(d *OpDef) EvalFunc {
	name := d.Schema.Name
	if f, ok := inferByName[name]; ok {
		return f
	}
	for _, n := range unaryOps {
		if n == name {
			return inferPointwise
		}
	}
	for _, n := range binaryOps {
		if n == name {
			return inferPointwise
		}
	}
	return nil
}

// inferByName maps schema names to their inference. It is a package
// variable, so Go initialises it before any init function registers an op
// (Register attaches each op's Infer through inferFor).
var inferByName = buildInferTable()

func buildInferTable() map[string]EvalFunc {
	m := map[string]EvalFunc{}
	for _, n := range []string{"add", "sub", "rsub", "div", "pow", "gelu", "where", "clamp", "clamp_min",
		"clamp_max", "masked_fill", "dropout", "triu", "tril", "clone", "to_dtype"} {
		m[n] = inferPointwise
	}
	m["type_as"] = inferTypeAs
	m["copy_"] = inferInplace
	m["fill_"] = inferInplace
	m["setitem"] = inferSetitem
	for _, n := range []string{"sum", "mean", "prod"} {
		m[n] = inferReduce(1, 2)
	}
	for _, n := range []string{"amax", "amin", "any", "all"} {
		m[n] = inferReduce(1, 2)
	}
	m["var"] = inferReduce(1, 3)
	m["std"] = inferReduce(1, 3)
	m["argmax"] = inferArgReduce
	m["argmin"] = inferArgReduce
	m["max"] = inferMaxMin
	m["min"] = inferMaxMin
	m["softmax"] = inferSameShape
	m["log_softmax"] = inferSameShape
	m["layer_norm"] = inferLayerNorm
	m["batch_norm"] = inferBatchNorm
	m["mm"] = inferMatmul
	m["bmm"] = inferMatmul
	m["matmul"] = inferMatmul
	m["linear"] = inferMatmul
	m["addmm"] = inferMatmul
	m["baddbmm"] = inferMatmul
	for n, spec := range batchOps {
		m[n] = inferBatched(spec)
	}
	m["embedding"] = inferEmbedding
	m["contiguous"] = inferContiguous
	for _, n := range []string{"size", "dim", "numel", "dtype"} {
		m[n] = inferMetaOp
	}
	m["getitem"] = inferGetitem
	m["cat"] = inferCat
	m["stack"] = inferCat
	m["split"] = inferSplit
	m["chunk"] = inferSplit
	m["sort"] = inferSort
	m["topk"] = inferSort
	m["index_select"] = inferIndexSelect
	m["gather"] = inferGather
	m["slice_scatter"] = inferScatterLike
	m["select_scatter"] = inferScatterLike
	m["full"] = inferCreation
	m["zeros"] = inferCreation
	m["ones"] = inferCreation
	m["scalar_tensor"] = inferCreation
	m["zeros_like"] = inferCreation
	m["empty_like"] = inferCreation
	m["ones_like"] = inferCreation
	m["full_like"] = inferCreation
	for n, f := range viewInfers {
		m[n] = f
	}
	return m
}

// meta returns argument i as tensor metadata.
func (a Args) meta(i int) (*TensorMeta, error) {
	if m, ok := a.V[i].(*TensorMeta); ok {
		return m, nil
	}
	if a.V[i] == nil {
		return nil, a.errf(i, "expected a tensor, got None")
	}
	return nil, a.errf(i, "expected a tensor, got %s", typeName(a.V[i]))
}

// strides are m's strides, contiguous ones when unknown.
func (m *TensorMeta) strides() []int {
	if m.Stride != nil && len(m.Stride) == len(m.Shape) {
		return m.Stride
	}
	return tensor.ContiguousStrides(m.Shape.Sizes())
}

// contig is the metadata of a fresh row-major result.
func contig(dt tensor.DType, sizes []int) *TensorMeta {
	return &TensorMeta{DType: dt, Shape: ShapeOf(sizes), Stride: tensor.ContiguousStrides(sizes)}
}

// alias is the metadata of a result that is its input itself.
func alias(m *TensorMeta) *TensorMeta {
	return &TensorMeta{DType: m.DType, Shape: ShapeOf(m.Shape.Sizes()), Stride: append([]int{}, m.strides()...)}
}

// viewMeta is the metadata of a view of m with new sizes and strides.
func viewMeta(m *TensorMeta, sizes, strides []int) *TensorMeta {
	return &TensorMeta{DType: m.DType, Shape: ShapeOf(sizes), Stride: strides}
}

func holdsMeta(v Value) bool {
	switch x := v.(type) {
	case *TensorMeta:
		return true
	case Tuple:
		for _, it := range x {
			if holdsMeta(it) {
				return true
			}
		}
	case List:
		for _, it := range x {
			if holdsMeta(it) {
				return true
			}
		}
	}
	return false
}

// shrinkFunc gives the probe's sizes for argument i (nil: every dim → ≤1).
type shrinkFunc func(i int, m *TensorMeta) []int

func shrinkAll(m *TensorMeta) []int {
	s := m.Shape.Sizes()
	for k := range s {
		s[k] = min(s[k], 1)
	}
	return s
}

// probe evaluates the op on small tensors of ones standing for the
// argument metadata; ins are the probe arguments (to detect a result that
// aliases an input).
func probe(a Args, shrink shrinkFunc) (Value, []Value, error) {
	ins := make([]Value, len(a.V))
	for i, v := range a.V {
		p, err := probeValue(i, v, shrink)
		if err != nil {
			return nil, nil, a.errf(i, "%v", err)
		}
		ins[i] = p
	}
	out, err := Call(a.Op, ins)
	return out, ins, err
}

func probeValue(i int, v Value, shrink shrinkFunc) (Value, error) {
	switch x := v.(type) {
	case *TensorMeta:
		var sizes []int
		if shrink != nil {
			sizes = shrink(i, x)
		}
		if sizes == nil {
			sizes = shrinkAll(x)
		}
		return exampleOf(&TensorMeta{DType: x.DType, Shape: ShapeOf(sizes)})
	case Tuple:
		out := make(Tuple, len(x))
		for k, it := range x {
			p, err := probeValue(i, it, shrink)
			if err != nil {
				return nil, err
			}
			out[k] = p
		}
		return out, nil
	case List:
		out := make(List, len(x))
		for k, it := range x {
			p, err := probeValue(i, it, shrink)
			if err != nil {
				return nil, err
			}
			out[k] = p
		}
		return out, nil
	}
	return v, nil
}

// probeDTypes returns the dtype of each tensor in the probe's result (one
// for a tensor, one per item for a tuple), and the index of the argument
// the result aliases (-1 when none).
func probeDTypes(a Args, shrink shrinkFunc) ([]tensor.DType, int, error) {
	out, ins, err := probe(a, shrink)
	if err != nil {
		return nil, -1, err
	}
	switch x := out.(type) {
	case *tensor.Tensor:
		for i, in := range ins {
			if t, ok := in.(*tensor.Tensor); ok && t == x {
				return []tensor.DType{x.DType}, i, nil
			}
		}
		return []tensor.DType{x.DType}, -1, nil
	case Tuple:
		dts := make([]tensor.DType, len(x))
		for k, it := range x {
			t, ok := it.(*tensor.Tensor)
			if !ok {
				return nil, -1, fmt.Errorf("%s: shape inference: result item %d is %s, not a tensor", a.Op.Name, k, typeName(it))
			}
			dts[k] = t.DType
		}
		return dts, -1, nil
	}
	return nil, -1, fmt.Errorf("%s: shape inference: result is %s, not a tensor", a.Op.Name, typeName(out))
}

// inferPointwise: broadcast shapes, probed dtype, a fresh contiguous
// result (or the input itself where the reference returns it: to_dtype to
// the same dtype, dropout in eval mode). Python numbers only: evaluate.
func inferPointwise(a Args) (Value, error) {
	if !holdsMeta(Tuple(a.V)) {
		return Call(a.Op, a.V)
	}
	var shapes [][]int
	for _, v := range a.V {
		if m, ok := v.(*TensorMeta); ok {
			shapes = append(shapes, m.Shape.Sizes())
		}
	}
	out, err := tensor.BroadcastShapes(shapes...)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	dts, al, err := probeDTypes(a, nil)
	if err != nil {
		return nil, err
	}
	if al >= 0 {
		return alias(a.V[al].(*TensorMeta)), nil
	}
	return contig(dts[0], out), nil
}

// inferInplace: the result is self; the other operands must broadcast to
// self's shape, and the probe runs the op's own cast check.
func inferInplace(a Args) (Value, error) {
	self, err := a.meta(0)
	if err != nil {
		return nil, a.errf(0, "in-place op needs a tensor, got %s", typeName(a.V[0]))
	}
	shapes := [][]int{self.Shape.Sizes()}
	for _, v := range a.V[1:] {
		if m, ok := v.(*TensorMeta); ok {
			shapes = append(shapes, m.Shape.Sizes())
		}
	}
	out, err := tensor.BroadcastShapes(shapes...)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
	}
	if !ShapeOf(out).Equal(ShapeOf(self.Shape.Sizes())) {
		return nil, fmt.Errorf("%s: output with shape %v doesn't match the broadcast shape %v", a.Op.Name, self.Shape.Sizes(), out)
	}
	if _, _, err := probeDTypes(a, nil); err != nil {
		return nil, err
	}
	return alias(self), nil
}

// inferSetitem: x[idx] = v returns x. The index's validity depends on data
// the metadata lacks (as it does for the eager op).
func inferSetitem(a Args) (Value, error) {
	self, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	return alias(self), nil
}

// reduceMask is tensor.reduceDims: dims nil or empty reduce everything.
func reduceMask(nd int, dims []int) ([]bool, error) {
	mask := make([]bool, nd)
	if len(dims) == 0 {
		for i := range mask {
			mask[i] = true
		}
		return mask, nil
	}
	seen := make([]bool, max(nd, 1))
	for _, d := range dims {
		n, err := tensor.NormDim(d, nd)
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, fmt.Errorf("dim %d appears multiple times in the list of dims", n)
		}
		seen[n] = true
		if nd > 0 {
			mask[n] = true
		}
	}
	return mask, nil
}

func reducedSizes(sizes []int, mask []bool, keep bool) []int {
	out := []int{}
	for i, s := range sizes {
		switch {
		case !mask[i]:
			out = append(out, s)
		case keep:
			out = append(out, 1)
		}
	}
	return out
}

// inferReduce: reductions taking a dim list at argument di and keepdim at ki.
func inferReduce(di, ki int) EvalFunc {
	return func(a Args) (Value, error) {
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		dims, err := a.OptInts(di)
		if err != nil {
			return nil, err
		}
		keep, err := a.Bool(ki)
		if err != nil {
			return nil, err
		}
		mask, err := reduceMask(len(x.Shape), dims)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
		dts, _, err := probeDTypes(a, nil)
		if err != nil {
			return nil, err
		}
		return contig(dts[0], reducedSizes(x.Shape.Sizes(), mask, keep)), nil
	}
}

// argShape is the result shape of argmax/argmin and of max/min along dim.
func argShape(x *TensorMeta, dim *int, keep bool) ([]int, error) {
	sizes := x.Shape.Sizes()
	if dim == nil {
		if tensor.Numel(sizes) == 0 {
			return nil, fmt.Errorf("Expected reduction dim to be specified for input.numel() == 0.")
		}
		if !keep {
			return []int{}, nil
		}
		mask, _ := reduceMask(len(sizes), nil)
		return reducedSizes(sizes, mask, true), nil
	}
	d, err := tensor.NormDim(*dim, len(sizes))
	if err != nil {
		return nil, err
	}
	mask := make([]bool, len(sizes))
	if len(sizes) > 0 {
		mask[d] = true
		if sizes[d] == 0 {
			return nil, fmt.Errorf("Expected reduction dim %d to have non-zero size.", d)
		}
	}
	return reducedSizes(sizes, mask, keep), nil
}

func inferArgReduce(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	d, err := a.OptInt(1)
	if err != nil {
		return nil, err
	}
	keep, err := a.Bool(2)
	if err != nil {
		return nil, err
	}
	sizes, err := argShape(x, d, keep)
	if err != nil {
		return nil, fmt.Errorf("%s(): %v", a.Op.Schema.Name, err)
	}
	dts, _, err := probeDTypes(a, nil)
	if err != nil {
		return nil, err
	}
	return contig(dts[0], sizes), nil
}

// inferMaxMin: max(x) a value, max(x, dim) (values, indices), max(x, y) maximum.
func inferMaxMin(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	if _, ok := a.V[1].(*TensorMeta); ok {
		return inferPointwise(a)
	}
	var sizes []int
	if a.V[1] == nil {
		sizes = []int{}
	} else {
		d, err := a.Int(1)
		if err != nil {
			return nil, err
		}
		keep, err := a.Bool(2)
		if err != nil {
			return nil, err
		}
		if sizes, err = argShape(x, &d, keep); err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
	}
	dts, _, err := probeDTypes(a, nil)
	if err != nil {
		return nil, err
	}
	if len(dts) == 1 {
		return contig(dts[0], sizes), nil
	}
	return Tuple{contig(dts[0], sizes), contig(dts[1], sizes)}, nil
}

// inferSameShape: a fresh result of the input's shape (softmax, log_softmax).
func inferSameShape(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	dts, _, err := probeDTypes(a, nil)
	if err != nil {
		return nil, err
	}
	return contig(dts[0], x.Shape.Sizes()), nil
}

// inferTypeAs: x.type_as(o) (and x.to(o.dtype)) has x's shape and o's
// dtype, whatever o's shape: no broadcasting (x [16,96,1] converted to the
// dtype of a [16,96,256] tensor stays [16,96,1]); x itself when the dtypes
// agree.
func inferTypeAs(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	dts, al, err := probeDTypes(a, nil)
	if err != nil {
		return nil, err
	}
	if al == 0 {
		return alias(x), nil
	}
	return contig(dts[0], x.Shape.Sizes()), nil
}

// inferLayerNorm probes with the leading (batch) dims shrunk: the
// normalized dims, weight and bias keep their sizes so their checks run.
func inferLayerNorm(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	ns, err := a.Ints(1)
	if err != nil {
		return nil, err
	}
	lead := len(x.Shape) - len(ns)
	dts, _, err := probeDTypes(a, func(i int, m *TensorMeta) []int {
		s := m.Shape.Sizes()
		if i == 0 {
			for k := 0; k < lead && k < len(s); k++ {
				s[k] = min(s[k], 1)
			}
		}
		return s
	})
	if err != nil {
		return nil, err
	}
	return contig(dts[0], x.Shape.Sizes()), nil
}

// inferBatchNorm probes with every input dim but the channel dim shrunk.
func inferBatchNorm(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	dts, _, err := probeDTypes(a, func(i int, m *TensorMeta) []int {
		s := m.Shape.Sizes()
		if i == 0 {
			for k := range s {
				if k != 1 {
					s[k] = min(s[k], 1)
				}
			}
		}
		return s
	})
	if err != nil {
		return nil, err
	}
	return contig(dts[0], x.Shape.Sizes()), nil
}

// inferContiguous: the input itself when already contiguous, else a copy.
func inferContiguous(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	if isContiguous(x.Shape.Sizes(), x.strides()) {
		return alias(x), nil
	}
	return contig(x.DType, x.Shape.Sizes()), nil
}

// isContiguous is tensor.(*Tensor).IsContiguous on sizes and strides.
func isContiguous(sizes, strides []int) bool {
	s := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		if sizes[i] == 1 {
			continue
		}
		if strides[i] != s {
			return false
		}
		s *= sizes[i]
	}
	return true
}

// inferMetaOp: size, dim, numel and dtype read only metadata; evaluate
// them on a data-less stand-in built from the shape.
func inferMetaOp(a Args) (Value, error) {
	x, err := a.meta(0)
	if err != nil {
		return nil, err
	}
	sizes := x.Shape.Sizes()
	switch a.Op.Schema.Name {
	case "dim":
		return int64(len(sizes)), nil
	case "numel":
		return int64(tensor.Numel(sizes)), nil
	case "dtype":
		return x.DType, nil
	}
	if a.V[1] == nil {
		t := make(Tuple, len(sizes))
		for i, s := range sizes {
			t[i] = int64(s)
		}
		return t, nil
	}
	d, err := a.Int(1)
	if err != nil {
		return nil, err
	}
	if d, err = tensor.NormDim(d, len(sizes)); err != nil {
		return nil, err
	}
	if len(sizes) == 0 {
		return nil, a.errf(1, "dimension specified as %d but tensor has no dimensions", d)
	}
	return int64(sizes[d]), nil
}

// inferGetitem: indexing a tuple of results reads no data (evaluate);
// indexing a tensor keeps inference by example.
func inferGetitem(a Args) (Value, error) {
	switch a.V[0].(type) {
	case Tuple, List:
		return Call(a.Op, a.V)
	}
	return inferByExample(a.Op, a.V)
}

// inferCreation: full, zeros, ones, scalar_tensor and the *_like ops make
// a fresh contiguous tensor; the probe (of size ≤1) settles the dtype.
func inferCreation(a Args) (Value, error) {
	var sizes []int
	switch a.Op.Schema.Name {
	case "scalar_tensor":
		sizes = []int{}
	case "zeros_like", "ones_like", "empty_like", "full_like":
		x, err := a.meta(0)
		if err != nil {
			return nil, err
		}
		sizes = x.Shape.Sizes()
	default:
		s, err := a.Ints(0)
		if err != nil {
			return nil, err
		}
		if err := tensor.CheckSizes(s); err != nil {
			return nil, fmt.Errorf("%s: %v", a.Op.Name, err)
		}
		sizes = s
	}
	small := append([]Value{}, a.V...)
	switch a.Op.Schema.Name {
	case "full", "zeros", "ones":
		ones := make(Tuple, len(sizes))
		for i, s := range sizes {
			ones[i] = int64(min(s, 1))
		}
		small[0] = ones
	}
	dts, _, err := probeDTypes(Args{Op: a.Op, V: small}, nil)
	if err != nil {
		return nil, err
	}
	return contig(dts[0], sizes), nil
}
