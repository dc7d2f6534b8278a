package interp

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// Precision selects how the interpreter computes floating values.
type Precision int

const (
	// Native computes every op in float64 and rounds to the graph's own
	// dtype after it: gcdbg's eager result.
	Native Precision = iota
	// Float64 runs the graph with every floating input and every floating
	// dtype argument promoted to float64: the accuracy verdict's reference.
	Float64
	// Float64Noise is Float64 with a random perturbation of float32's
	// unit roundoff (2^-24, times √K for an op that sums K terms) applied
	// to every op's fresh floating result, relative to the result — or,
	// for sums of terms (sum, mean, matmuls, convolutions), to the larger
	// of the result and the terms' 2-norm, so a sum that cancels keeps
	// float32's noise; results that select an input element (max, sorts)
	// stay exact. Monte Carlo arithmetic: an estimate of how far a plain
	// float32 computation of this graph strays from Float64 through
	// rounding alone.
	Float64Noise
)

// Options tune a run.
type Options struct {
	Precision Precision
	// Seed makes Float64Noise reproducible.
	Seed uint64
	// Flip inverts, in a Float64 or Float64Noise run, the listed flat
	// elements of these nodes' bool results: comparisons whose input sits
	// within rounding of the threshold, decided the other way (the
	// verdict's flipped reference, runner/flips.go).
	Flip map[*ir.Node][]int
	// Pin gives, in a Float64 or Float64Noise run, the values these nodes take instead of their
	// own (a value of another shape or dtype is ignored): the simulated
	// run decides the joint graph's comparisons as F does, so that its
	// distance from F is rounding, not a ReLU mask its overestimated noise
	// flipped (runner/flips.go).
	Pin map[*ir.Node]ir.Value
	// Keep lists nodes whose values RunWith also stores in Kept (filled in
	// place; RunWith otherwise drops every value but the outputs).
	Keep map[*ir.Node]bool
	Kept map[*ir.Node]ir.Value
}

// unitRoundoff is float32's: half an ulp of 1.
const unitRoundoff = 1.0 / (1 << 24)

// precision is a run's state for the float64 modes; nil is Native.
type precision struct {
	flip  map[*ir.Node][]int
	pin   map[*ir.Node]ir.Value
	noise bool
	rng   *rand.Rand
	// src is rng's generator (perturbFlat moves it ahead).
	src *rand.PCG
}

func newPrecision(opt Options) *precision {
	switch opt.Precision {
	case Float64:
		return &precision{flip: opt.Flip}
	case Float64Noise:
		src := rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15)
		return &precision{flip: opt.Flip, noise: true, rng: rand.New(src), src: src}
	}
	return nil
}

// input is a copy of a graph input (in-place ops in the graph never
// change the trace's data), promoted to float64 in the float64 modes: one
// copy, the promotion's, where there is one.
func (p *precision) input(t *tensor.Tensor) *tensor.Tensor {
	if p == nil || !t.DType.IsFloat() || t.DType == tensor.Float64 {
		return t.Clone()
	}
	return t.To(tensor.Float64) // a fresh tensor, not wrapped (as a clone's)
}

// arg promotes floating dtype arguments (x.to(torch.float32), sum(dtype=...)).
func (p *precision) arg(v ir.Value) ir.Value {
	if p == nil {
		return v
	}
	switch x := v.(type) {
	case tensor.DType:
		if x.IsFloat() {
			return tensor.Float64
		}
	case ir.Tuple:
		out := make(ir.Tuple, len(x))
		for i := range x {
			out[i] = p.arg(x[i])
		}
		return out
	case ir.List:
		out := make(ir.List, len(x))
		for i := range x {
			out[i] = p.arg(x[i])
		}
		return out
	}
	return v
}

// result perturbs an op's fresh floating results under Float64Noise.
func (p *precision) result(d *ir.OpDef, args []ir.Value, out ir.Value) ir.Value {
	if p == nil || !p.noise || selects(d) || copies(d, args) {
		return out
	}
	var ins []*tensor.Tensor
	for _, a := range args {
		collectTensors(a, &ins)
	}
	var outs []*tensor.Tensor
	collectTensors(out, &outs)
	mags := termNorms(d, args, len(outs))
	for k, t := range outs {
		if !t.DType.IsFloat() || shares(t, ins) {
			continue
		}
		var mag *tensor.Tensor
		if mags != nil && slices.Equal(mags[k].Shape, t.Shape) {
			mag = mags[k]
		}
		terms := termsPerResult(d, ins, t)
		if lt, ce, ok := lossTerms(d, args); ok {
			terms = lt
			if ce && mag == nil { // the log-sum-exp's error is absolute: of the size of 1, not of the loss
				mag, _ = tensor.Ones(t.Shape, tensor.Float64)
			}
		}
		if k == 1 && d.Name == "aten.batch_norm_functional" {
			if m, kk := bnMeanNorm(args, t); m != nil {
				mag, terms = m, kk
			}
		}
		scale := unitRoundoff * math.Sqrt(math.Max(1, terms))
		// One rounding per element (no sum of terms): a result that float32
		// holds exactly is what float32 computes, and stays exact.
		keepExact := mag == nil && terms <= 1
		if p.perturbFlat(t, mag, scale, keepExact) {
			continue
		}
		n := t.Numel()
		get, set := flatAccess(t)
		var magAt func(int) float64
		if mag != nil {
			magAt, _ = flatAccess(mag)
		}
		for i := 0; i < n; i++ {
			v := get(i)
			if math.IsNaN(v) || math.IsInf(v, 0) || (keepExact && isFloat32(v)) {
				continue
			}
			// The rounding error of a sum is relative to its terms, not to
			// its result: where the terms cancel (a gradient that is zero in
			// exact arithmetic) float32 leaves noise of the size of the
			// terms' 2-norm (a random walk of partial sums); where they do
			// not, |result| >= that norm and the perturbation is relative.
			size := math.Abs(v)
			if mag != nil {
				if m := math.Abs(magAt(i)); m > size && !math.IsInf(m, 0) {
					size = m
				}
			}
			if size == 0 {
				continue
			}
			set(i, v+size*scale*(2*p.rng.Float64()-1))
		}
	}
	return out
}

// serialNoise makes result perturb every tensor through the element by
// element loop (tests compare it with perturbFlat).
var serialNoise bool

// perturbFlat is result's loop over a contiguous t (and mag, when there is
// one), straight on the storage: the same perturbation of the same
// elements from the same random numbers. Split into chunks across the
// cores (tensor.Chunks), each chunk draws from its own copy of the
// generator moved ahead past the draws of the chunks before it (a first
// pass counts them): element i gets the draw the one loop gives it. false,
// t untouched, where the element by element loop must run.
func (p *precision) perturbFlat(t, mag *tensor.Tensor, scale float64, keepExact bool) bool {
	if serialNoise || t.S.F == nil || !t.IsContiguous() || (mag != nil && (mag.S.F == nil || !mag.IsContiguous())) {
		return false
	}
	n := t.Numel()
	d, dt := t.S.F[t.Offset:t.Offset+n], t.DType
	var m []float64
	if mag != nil {
		m = mag.S.F[mag.Offset : mag.Offset+n]
	}
	apply := func(rng *rand.Rand, lo, hi int) {
		for i := lo; i < hi; i++ {
			if size := noiseSize(d, m, i, keepExact); size != 0 {
				d[i] = tensor.Round(dt, d[i]+size*scale*(2*rng.Float64()-1))
			}
		}
	}
	parts := tensor.Chunks(n)
	if parts == 1 {
		apply(p.rng, 0, n)
		return true
	}
	draws := make([]uint64, parts+1) // draws[c+1]: chunk c's
	tensor.EachChunk(n, parts, func(c, lo, hi int) {
		k := uint64(0)
		for i := lo; i < hi; i++ {
			if noiseSize(d, m, i, keepExact) != 0 {
				k++
			}
		}
		draws[c+1] = k
	})
	for c := 1; c <= parts; c++ {
		draws[c] += draws[c-1]
	}
	tensor.EachChunk(n, parts, func(c, lo, hi int) {
		src := *p.src
		pcgAdvance(&src, draws[c])
		apply(rand.New(&src), lo, hi)
	})
	pcgAdvance(p.src, draws[parts])
	return true
}

// noiseSize is what result scales element i's perturbation by: the larger
// of |d[i]| and |m[i]| (m nil: |d[i]|; an infinite m[i] ignored); 0 where
// the element stays as it is (NaN, ±Inf, or a zero size): no draw.
func noiseSize(d, m []float64, i int, keepExact bool) float64 {
	v := d[i]
	if math.IsNaN(v) || math.IsInf(v, 0) || (keepExact && isFloat32(v)) {
		return 0
	}
	size := math.Abs(v)
	if m != nil {
		if mm := math.Abs(m[i]); mm > size && !math.IsInf(mm, 0) {
			size = mm
		}
	}
	return size
}

// isFloat32 reports whether v is a float32 value exactly. An op rounded
// once (pointwise: add, mul, a conversion, ...) whose exact result float32
// can hold gives that result in float32 too, so Float64Noise leaves it
// unperturbed: the HF attention mask (1.0 - mask.float()) * finfo.min is
// exactly 0 on the kept keys in float32, and the perturbed 1.0 made it
// +-6e-8 * 3.4e38 = +-2e31 there (runner/testdata/mask_min_attn: a
// baseline of 43 on an error of 4e-8, so any error passed). Values that
// derive from perturbed data are float32 numbers only by rare chance.
func isFloat32(v float64) bool {
	return float64(float32(v)) == v
}

// pcgAdvance moves src delta draws ahead: the state delta calls of its
// Uint64 leave (math/rand/v2's PCG: a 128-bit linear congruential state
// x -> mul·x + inc; jumped in log2(delta) steps by composing the map with
// itself, Brown's method, as pcg-cpp's advance does).
func pcgAdvance(src *rand.PCG, delta uint64) {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	b, _ := src.MarshalBinary() // "pcg:", hi, lo big-endian
	x := u128{binary.BigEndian.Uint64(b[4:]), binary.BigEndian.Uint64(b[12:])}
	accMul, accAdd := u128{0, 1}, u128{}
	curMul, curAdd := u128{mulHi, mulLo}, u128{incHi, incLo}
	for ; delta > 0; delta >>= 1 {
		if delta&1 == 1 {
			accMul = accMul.mul(curMul)
			accAdd = accAdd.mul(curMul).add(curAdd)
		}
		curAdd = curMul.add(u128{0, 1}).mul(curAdd)
		curMul = curMul.mul(curMul)
	}
	x = accMul.mul(x).add(accAdd)
	src.Seed(x.hi, x.lo)
}

// u128 is an unsigned 128-bit integer, arithmetic modulo 2^128.
type u128 struct{ hi, lo uint64 }

func (a u128) mul(b u128) u128 {
	hi, lo := bits.Mul64(a.lo, b.lo)
	return u128{hi + a.hi*b.lo + a.lo*b.hi, lo}
}

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

// flatAccess is t.Flat and t.SetFlat, reading and writing a contiguous
// floating tensor's storage directly (the same elements in the same
// order, without the strided index computation per element).
func flatAccess(t *tensor.Tensor) (get func(int) float64, set func(int, float64)) {
	if t.S.F == nil || !t.IsContiguous() {
		return t.Flat, t.SetFlat
	}
	d, dt := t.S.F[t.Offset:t.Offset+t.Numel()], t.DType
	return func(i int) float64 { return d[i] },
		func(i int, v float64) { d[i] = tensor.Round(dt, v) }
}

// selects reports whether d's floating results are elements of its inputs
// (max, min, sorts, max pooling): float32 computes them exactly, and
// perturbing them would break the equality masks built from them (the
// derivative of amax in a stable log_softmax: eq(x, amax(x))).
func selects(d *ir.OpDef) bool {
	if d.Kind == ir.KindSort {
		return true
	}
	switch d.Name {
	case "aten.amax", "aten.amin", "aten.max", "aten.min", "aten.maximum", "aten.minimum",
		"aten.max_pool1d", "aten.max_pool2d", "aten.max_pool3d":
		return true
	}
	return false
}

// copies reports whether d's result only copies elements of its inputs
// (gathers, scatters that overwrite, index copies): float32 copies them
// exactly, so the result keeps its inputs' simulated rounding and adds none.
// termsPerResult would count a gather from a large table as a sum of
// table/output terms: an Embedding(30000, D) lookup of 64 ids had its
// values perturbed by about 22 units of roundoff.
func copies(d *ir.OpDef, args []ir.Value) bool {
	switch d.Name {
	case "aten.index_select", "aten.gather", "aten.index", "aten.take_along_dim", "aten.index_copy",
		"aten.slice_scatter", "aten.select_scatter", "aten.masked_scatter", "aten.getitem":
		return true
	case "aten.embedding": // max_norm renormalizes the rows it reads
		return len(args) < 4 || args[3] == nil
	case "aten.index_put": // accumulate adds
		acc, ok := argAt(args, 3).(bool)
		return len(args) < 4 || args[3] == nil || ok && !acc
	case "aten.scatter": // reduce='add'/'multiply' computes
		return len(args) < 6 || args[5] == nil
	}
	return false
}

func argAt(args []ir.Value, i int) ir.Value {
	if i < len(args) {
		return args[i]
	}
	return nil
}

// lossTerms is, for nll_loss and cross_entropy, how many rounded terms
// one result sums, and whether it is cross_entropy's. nll_loss picks one
// input element per target element and sums those picks (reduction 'mean'
// or 'sum'; 'none' is one rounding). cross_entropy adds each row's
// log-sum-exp over its C classes, whose rounding error is absolute (a
// relative error of the sum of exponentials, each at most 1, becomes an
// absolute one through the log): result sets its size to at least 1, so a
// small loss keeps it. The rule of the other reductions (input elements
// per result) counted every logit: a mean loss over 2,048 tokens and a
// 6,000-word vocabulary as a sum of 12 million terms, a simulated rounding
// of 2e-4 of the loss, thousands of times float32's own error
// (nlp_mlm_tied's loss: baseline 0.0049 on an error of 1.5e-6).
func lossTerms(d *ir.OpDef, args []ir.Value) (terms float64, ce, ok bool) {
	ce = d.Name == "aten.cross_entropy"
	if !ce && d.Name != "aten.nll_loss" {
		return 0, false, false
	}
	x, _ := argAt(args, 0).(*tensor.Tensor)
	tg, _ := argAt(args, 1).(*tensor.Tensor)
	if x == nil || tg == nil || len(x.Shape) == 0 {
		return 0, false, false
	}
	c := x.Shape[0] // an unbatched row of logits
	if len(x.Shape) >= 2 {
		c = x.Shape[1]
	}
	red, _ := argAt(args, 6).(string)
	terms = 1
	if red != "none" {
		terms = float64(tg.Numel())
		if tg.DType.IsFloat() && c > 0 { // class probabilities: a row of C per target row
			terms /= float64(c)
		}
	}
	if ce {
		terms += float64(c)
	}
	return math.Max(1, terms), ce, true
}

// termNorms is, for an op whose result element is a sum of terms (sum,
// mean, matmuls, convolutions), the 2-norm of those terms per result
// element: the op on the squares of its floating arguments (and of float
// scalars such as addmm's alpha and beta), square-rooted; for mean, the
// terms are x/K. Nil for other ops, whose rounding is relative to their
// result, and when the op refuses the squared arguments.
func termNorms(d *ir.OpDef, args []ir.Value, nOut int) []*tensor.Tensor {
	switch {
	case d.Kind == ir.KindMatmul, d.Kind == ir.KindConv, d.Name == "aten.sum", d.Name == "aten.mean":
	default:
		return nil
	}
	sq := make([]ir.Value, len(args))
	for i, a := range args {
		sq[i] = squareArg(a)
	}
	out, err := ir.Call(d, sq)
	if err != nil {
		return nil
	}
	var norms []*tensor.Tensor
	collectTensors(out, &norms)
	if len(norms) != nOut {
		return nil
	}
	for _, t := range norms {
		if !t.DType.IsFloat() {
			return nil
		}
		k := 1.0
		if x := sqTensor(args); d.Name == "aten.mean" && x != nil {
			k = math.Max(1, termsPerResult(d, []*tensor.Tensor{x}, t))
		}
		if !serialNoise && t.S.F != nil && t.IsContiguous() && t.DType == tensor.Float64 {
			d := t.S.F[t.Offset : t.Offset+t.Numel()]
			tensor.ParallelElems(len(d), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					d[i] = math.Sqrt(math.Abs(d[i]) / k)
				}
			})
			continue
		}
		get, set := flatAccess(t)
		for i := 0; i < t.Numel(); i++ {
			set(i, math.Sqrt(math.Abs(get(i))/k))
		}
	}
	return norms
}

// sqTensor is the first tensor argument (mean's input).
func sqTensor(args []ir.Value) *tensor.Tensor {
	var ts []*tensor.Tensor
	for _, a := range args {
		collectTensors(a, &ts)
	}
	if len(ts) == 0 {
		return nil
	}
	return ts[0]
}

// squareArg is a with its floating tensors and float scalars squared;
// integers (dims, strides) and everything else stay.
func squareArg(a ir.Value) ir.Value {
	switch x := a.(type) {
	case *tensor.Tensor:
		if !x.DType.IsFloat() {
			return x
		}
		if t, err := tensor.Unary("square", x); err == nil {
			return t
		}
		return x
	case float64:
		return x * x
	case ir.Tuple:
		out := make(ir.Tuple, len(x))
		for i := range x {
			out[i] = squareArg(x[i])
		}
		return out
	case ir.List:
		out := make(ir.List, len(x))
		for i := range x {
			out[i] = squareArg(x[i])
		}
		return out
	}
	return a
}

// termsPerResult estimates how many rounded terms one result element sums:
// inputs' elements per output element for reductions and norms, the inner
// dimension for matmuls and convolutions (√(|A|·|B|/|out|) of the two
// largest inputs), 1 for pointwise ops.
func termsPerResult(d *ir.OpDef, ins []*tensor.Tensor, out *tensor.Tensor) float64 {
	on := float64(out.Numel())
	if on == 0 {
		return 1
	}
	var a, b float64
	for _, t := range ins {
		n := float64(t.Numel())
		if n > a {
			a, b = n, a
		} else if n > b {
			b = n
		}
	}
	switch d.Kind {
	case ir.KindMatmul, ir.KindConv:
		return math.Sqrt(a * b / on)
	case ir.KindPointwise, ir.KindView, ir.KindCreation:
		return 1
	}
	return a / on
}

func collectTensors(v ir.Value, out *[]*tensor.Tensor) {
	switch x := v.(type) {
	case *tensor.Tensor:
		*out = append(*out, x)
	case ir.Tuple:
		for _, e := range x {
			collectTensors(e, out)
		}
	case ir.List:
		for _, e := range x {
			collectTensors(e, out)
		}
	}
}

// shares reports whether t views the storage of one of ins (an in-place
// op or a view): only fresh results are perturbed.
func shares(t *tensor.Tensor, ins []*tensor.Tensor) bool {
	for _, in := range ins {
		if in.S == t.S {
			return true
		}
	}
	return false
}

// flipped is v with the elements idx of its bool tensor inverted (a copy);
// v itself where it is no bool tensor or an index is out of range.
func flipped(v ir.Value, idx []int) ir.Value {
	t, ok := v.(*tensor.Tensor)
	if !ok || t.DType != tensor.Bool {
		return v
	}
	c := t.Clone()
	n := c.Numel()
	for _, i := range idx {
		if i >= 0 && i < n {
			if c.Flat(i) != 0 {
				c.SetFlat(i, 0)
			} else {
				c.SetFlat(i, 1)
			}
		}
	}
	return c
}

// pinned is pin where it is a tensor of v's dtype and shape, v otherwise.
func pinned(v, pin ir.Value) ir.Value {
	t, ok1 := v.(*tensor.Tensor)
	q, ok2 := pin.(*tensor.Tensor)
	if !ok1 || !ok2 || t.DType != q.DType || !slices.Equal(t.Shape, q.Shape) {
		return v
	}
	return q
}

// bnMeanNorm is, for batch_norm_functional's updated running_mean (rm of
// shape [C]), the terms' 2-norm of its batch-mean part per channel,
// momentum * ||x_c||_2 / K, and K (the elements per channel): the batch
// mean is a sum of x/K, and where it cancels (a BatchNorm after a linear
// map of a zero-mean map, MobileNetV2's 1x1 expansion after a BatchNorm:
// exactly 0 in F) float32 leaves u*sqrt(K) times that norm, not noise
// relative to the ~0 running_mean. Perturbed relative to its value only,
// the simulated running_mean was 10x below every float32 run's
// (examples/review7 finding 2). nil where the arguments are not as
// expected.
func bnMeanNorm(args []ir.Value, rm *tensor.Tensor) (*tensor.Tensor, float64) {
	x, ok := argAt(args, 0).(*tensor.Tensor)
	if !ok || len(x.Shape) < 2 || len(rm.Shape) != 1 || rm.Shape[0] != x.Shape[1] || x.Numel() == 0 {
		return nil, 0
	}
	mom := 0.1
	if v, ok := argAt(args, 5).(float64); ok {
		mom = v
	}
	c := x.Shape[1]
	kk := x.Numel() / c
	inner := 1
	for _, s := range x.Shape[2:] {
		inner *= s
	}
	ss := make([]float64, c)
	add := func(i int, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ss[(i/inner)%c] += v * v
		}
	}
	if x.S.F != nil && x.IsContiguous() { // the float64 runs' case: straight on the storage
		for i, v := range x.S.F[x.Offset : x.Offset+x.Numel()] {
			add(i, v)
		}
	} else {
		for i := 0; i < x.Numel(); i++ {
			add(i, x.Flat(i))
		}
	}
	out, err := tensor.Zeros(rm.Shape, tensor.Float64)
	if err != nil {
		return nil, 0
	}
	for j := range ss {
		out.SetFlat(j, math.Abs(mom)*math.Sqrt(ss[j])/float64(kk))
	}
	return out, float64(kk)
}
