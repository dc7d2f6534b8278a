package stages

import (
	"fmt"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// alias says how a captured target maps onto a canonical op. Schema is the
// source's own signature when it differs from the canonical one; its
// arguments are matched to the canonical parameters by name. Params in
// Ignore may carry any value (they do not change the result, e.g.
// _stacklevel); every other source-only parameter must be at its default.
type alias struct {
	Op     string
	Schema string
	Ignore []string
	Rename map[string]string // source param -> canonical param
}

// aliases lists targets whose name does not already say the canonical op.
// Everything else resolves by rule: torch.X, torch.nn.functional.X,
// torch._C._nn.X, torch.Tensor.X, the method X and torch.ops.aten.X.overload
// map to aten.X when the canonical set has it.
var aliases = map[string]alias{
	"operator.add":                    {Op: "add"},
	"operator.sub":                    {Op: "sub"},
	"operator.mul":                    {Op: "mul"},
	"operator.truediv":                {Op: "div"},
	"operator.floordiv":               {Op: "floor_divide"},
	"operator.mod":                    {Op: "remainder"},
	"operator.pow":                    {Op: "pow"},
	"operator.neg":                    {Op: "neg"},
	"operator.abs":                    {Op: "abs"},
	"operator.invert":                 {Op: "bitwise_not"},
	"operator.matmul":                 {Op: "matmul"},
	"operator.eq":                     {Op: "eq"},
	"operator.ne":                     {Op: "ne"},
	"operator.lt":                     {Op: "lt"},
	"operator.le":                     {Op: "le"},
	"operator.gt":                     {Op: "gt"},
	"operator.ge":                     {Op: "ge"},
	"operator.and_":                   {Op: "bitwise_and"},
	"operator.or_":                    {Op: "bitwise_or"},
	"operator.xor":                    {Op: "bitwise_xor"},
	"operator.getitem":                {Op: "getitem"},
	"operator.setitem":                {Op: "setitem"},
	"operator.iadd":                   {Op: "add_"},
	"operator.isub":                   {Op: "sub_"},
	"operator.imul":                   {Op: "mul_"},
	"operator.itruediv":               {Op: "div_"},
	"torch.multiply":                  {Op: "mul"},
	"torch.subtract":                  {Op: "sub"},
	"torch.divide":                    {Op: "div"},
	"torch.true_divide":               {Op: "div"},
	"torch.clip":                      {Op: "clamp"},
	"torch.greater":                   {Op: "gt"},
	"torch.greater_equal":             {Op: "ge"},
	"torch.less":                      {Op: "lt"},
	"torch.less_equal":                {Op: "le"},
	"torch.not_equal":                 {Op: "ne"},
	"torch.concat":                    {Op: "cat"},
	"torch.concatenate":               {Op: "cat"},
	"torch.negative":                  {Op: "neg"},
	"torch.absolute":                  {Op: "abs"},
	"torch.special.erf":               {Op: "erf"},
	"torch.special.expit":             {Op: "sigmoid"},
	"torch.nn.functional.softmax":     {Op: "softmax", Schema: "softmax(input, dim=None, _stacklevel=3, dtype=None)", Ignore: []string{"_stacklevel"}},
	"torch.nn.functional.log_softmax": {Op: "log_softmax", Schema: "log_softmax(input, dim=None, _stacklevel=3, dtype=None)", Ignore: []string{"_stacklevel"}},
	"torch.nn.functional.relu":        {Op: "relu", Schema: "relu(input, inplace=False)"},
	"torch.nn.functional.silu":        {Op: "silu", Schema: "silu(input, inplace=False)"},
	"torch.nn.functional.embedding":   {Op: "embedding", Schema: "embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False)"},
	"torch.embedding":                 {Op: "embedding", Schema: "embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)", Rename: map[string]string{"indices": "input"}},
	"torch.flatten":                   {Op: "flatten"},
	"torch.nn.functional.dropout":     {Op: "dropout"},
	"torch.dropout":                   {Op: "dropout", Schema: "dropout(input, p, train)", Rename: map[string]string{"train": "training"}},
	"torch.nn.functional.batch_norm":  {Op: "batch_norm"},
	"torch.nn.functional.max_pool2d":  {Op: "max_pool2d"},
	"torch.nn.functional.avg_pool2d":  {Op: "avg_pool2d"},
	"torch.nn.functional.hardtanh":    {Op: "clamp", Schema: "hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False)", Rename: map[string]string{"min_val": "min", "max_val": "max"}},
	"torch.nn.functional.relu6":       {Op: "clamp", Schema: "relu6(input, min=0.0, max=6.0, inplace=False)"},
	"torch.nn.functional.sigmoid":     {Op: "sigmoid"},
	"torch.nn.functional.tanh":        {Op: "tanh"},
	"torch.sigmoid":                   {Op: "sigmoid"},
	"method:sub":                      {Op: "sub"},
	"method:float":                    {Op: "to_dtype", Schema: "float(self, dtype=torch.float32)"},
	"method:double":                   {Op: "to_dtype", Schema: "double(self, dtype=torch.float64)"},
	"method:half":                     {Op: "to_dtype", Schema: "half(self, dtype=torch.float16)"},
	"method:bfloat16":                 {Op: "to_dtype", Schema: "bfloat16(self, dtype=torch.bfloat16)"},
	"method:long":                     {Op: "to_dtype", Schema: "long(self, dtype=torch.int64)"},
	"method:int":                      {Op: "to_dtype", Schema: "int(self, dtype=torch.int32)"},
	"method:bool":                     {Op: "to_dtype", Schema: "bool(self, dtype=torch.bool)"},
	"method:masked_fill_":             {Op: "masked_fill_"},
	"method:__getitem__":              {Op: "getitem"},
	"method:__setitem__":              {Op: "setitem"},
	"aten:_softmax":                   {Op: "softmax", Schema: "_softmax(self, dim, half_to_float)", Ignore: []string{"half_to_float"}},
	"aten:_log_softmax":               {Op: "log_softmax", Schema: "_log_softmax(self, dim, half_to_float)", Ignore: []string{"half_to_float"}},
	"aten:_to_copy":                   {Op: "to_dtype", Schema: "_to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None)", Ignore: []string{"layout", "device", "pin_memory", "non_blocking", "memory_format"}},
	"aten:embedding":                  {Op: "embedding", Schema: "embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)", Rename: map[string]string{"indices": "input"}},
	"aten:native_dropout":             {Op: "dropout", Schema: "native_dropout(input, p, train)", Rename: map[string]string{"train": "training"}},
	"aten:scalar_tensor":              {Op: "scalar_tensor"},
	"aten:lift_fresh_copy":            {Op: "clone"},
	// functionalization's copy(self, src): src broadcast to self's shape, in
	// self's dtype; a different dtype fails the meta check of the node.
	"aten:copy": {Op: "expand_as", Schema: "copy(self, src, non_blocking=False)", Rename: map[string]string{"self": "other", "src": "self"}, Ignore: []string{"non_blocking"}},
	// the factory draws torch.rand(2, 3) / torch.rand((2, 3)): the canonical
	// ops take the size as one tuple (ir/ops_train_factory.go)
	"torch.rand":  {Op: "rand", Schema: "rand(*size, generator=None, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)"},
	"torch.randn": {Op: "randn", Schema: "randn(*size, generator=None, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)"},
	// torch.scalar_tensor takes requires_grad= as every Python factory does
	// (the exporter's tracer records it: gcdbg_export.py _FACTORY_CALLS)
	"torch.scalar_tensor": {Op: "scalar_tensor", Schema: "scalar_tensor(s, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False)"},
}

// The method forms that take varargs sizes (x.view(2, 3)) share the
// canonical variadic schema; nothing to list for them.

// canonicalFor resolves a node's target to its canonical op and the schema
// its args were written against.
func canonicalFor(n *ir.Node) (*ir.OpDef, alias, bool) {
	var key, base string
	switch n.Op {
	case ir.CallMethod:
		key, base = "method:"+n.Target, n.Target
	case ir.CallFunction:
		key = n.Target
		switch {
		case strings.HasPrefix(n.Target, "torch.ops.aten."):
			rest := strings.TrimPrefix(n.Target, "torch.ops.aten.")
			if i := strings.IndexByte(rest, '.'); i >= 0 {
				rest = rest[:i]
			}
			key, base = "aten:"+rest, rest
		case strings.HasPrefix(n.Target, "aten."):
			rest := strings.TrimPrefix(n.Target, "aten.")
			if i := strings.IndexByte(rest, '.'); i >= 0 {
				rest = rest[:i]
			}
			key, base = "aten:"+rest, rest
		default:
			for _, p := range []string{"torch.nn.functional.", "torch._C._nn.", "torch.Tensor.", "torch.special.", "torch."} {
				if strings.HasPrefix(n.Target, p) {
					base = strings.TrimPrefix(n.Target, p)
					break
				}
			}
		}
	}
	// aten.X without an overload is gcdbg's canonical op X when there is
	// one: what the Readable printer (gcdbg dump) writes, so that its text
	// reads back as the same graph. PyTorch's own aten op is spelled
	// torch.ops.aten.X.overload (or aten.X.overload); the two differ where
	// the canonical schema follows torch.nn.functional (embedding).
	if n.Op == ir.CallFunction && strings.HasPrefix(n.Target, "aten.") && !strings.Contains(n.Target[len("aten."):], ".") {
		if d := ir.Lookup(n.Target); d != nil {
			return d, alias{Op: base}, true
		}
	}
	if al, ok := aliases[key]; ok {
		if d := ir.Lookup("aten." + al.Op); d != nil {
			return d, al, true
		}
	}
	// torch._C._nn.X and torch.Tensor.X share their torch.nn.functional / method aliases.
	for _, p := range []string{"torch._C._nn.", "torch.Tensor."} {
		if strings.HasPrefix(n.Target, p) {
			alt := "torch.nn.functional." + strings.TrimPrefix(n.Target, p)
			if p == "torch.Tensor." {
				alt = "method:" + strings.TrimPrefix(n.Target, p)
			}
			if al, ok := aliases[alt]; ok {
				if d := ir.Lookup("aten." + al.Op); d != nil {
					return d, al, true
				}
			}
		}
	}
	if base != "" {
		if d := ir.Lookup("aten." + base); d != nil {
			return d, alias{Op: base}, true
		}
	}
	return nil, alias{}, false
}

// normalizer rewrites one captured graph into the canonical op set.
type normalizer struct {
	src   *ir.Graph
	out   *ir.Graph
	names map[string]bool
	// draws are the random nodes trainingPass found (Unit.RandomDraws).
	draws []RandomDraw
	// mapped is the canonical node (or constant) each captured node became.
	mapped map[*ir.Node]ir.Arg
	// metas are the inferred values (TensorMeta, Python values) per new node.
	metas map[*ir.Node]ir.Value
	// masked: the boolean-mask selection regions (normalize_masked_sel.go).
	masked *maskedSels
	// statNodes: the one get_attr node of each BatchNorm running-stat buffer
	// (modules.go paramNode), shared by every call of the module.
	statNodes map[string]*ir.Node
}

func normalize(u *Unit) (err error) {
	g := u.Captured
	var cur *ir.Node
	defer CatchPanic(&err, func() string { // a panic names the node being normalized
		if cur != nil {
			return cur.Name
		}
		return ""
	})
	nz := &normalizer{
		src:    g,
		out:    &ir.Graph{Name: g.Name, Break: g.Break, Guards: g.Guards, Tensors: g.Tensors, Expected: g.Expected, Timing: g.Timing},
		names:  map[string]bool{},
		mapped: map[*ir.Node]ir.Arg{},
		metas:  map[*ir.Node]ir.Value{},
	}
	for _, n := range g.Nodes {
		nz.names[n.Name] = true
	}
	for _, n := range g.Nodes {
		cur = n
		if err := nz.node(n); err != nil {
			return fmt.Errorf("graph %q: node %q: %w", g.Name, n.Name, err)
		}
	}
	cur = nil
	if err := nz.trainingPass(); err != nil { // training.go: BatchNorm stats, random draws
		return err
	}
	if err := nz.out.Validate(); err != nil {
		return err
	}
	u.Normalized = nz.out
	u.random = nz.draws
	return nil
}

func (nz *normalizer) fresh(base string) string {
	base = strings.NewReplacer(".", "_", "-", "_").Replace(base)
	if base != "" && base[0] >= '0' && base[0] <= '9' {
		base = "_" + base // a Python identifier, as torch.fx names nn.Sequential's "0.weight"
	}
	name := base
	for i := 1; nz.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	nz.names[name] = true
	return name
}

func (nz *normalizer) mapArg(a ir.Arg) ir.Arg {
	return ir.MapArg(a, func(n *ir.Node) ir.Arg { return nz.mapped[n] })
}

// add appends a node to the new graph after inferring its value.
func (nz *normalizer) add(n *ir.Node, origin *ir.Node) error {
	n.From = []string{origin.Name}
	if n.Meta.Stack == nil {
		n.Meta.Stack = origin.Meta.Stack
	}
	if n.Op == ir.CallFunction {
		d := ir.Lookup(n.Target)
		bound, err := d.Schema.Bind(n.Args, nil)
		if err != nil {
			return err
		}
		vals := make([]ir.Value, len(bound))
		for i, b := range bound {
			vals[i] = nz.metaArg(b)
		}
		v, err := ir.InferMeta(d, vals)
		if err != nil {
			return fmt.Errorf("shape inference: %w", err)
		}
		nz.setMeta(n, v)
	}
	nz.out.Nodes = append(nz.out.Nodes, n)
	return nil
}

func (nz *normalizer) setMeta(n *ir.Node, v ir.Value) {
	nz.metas[n] = v
	switch x := v.(type) {
	case *ir.TensorMeta:
		n.Meta.Tensor = x
	case ir.Tuple:
		allTensors := len(x) > 0
		for _, it := range x {
			if _, ok := it.(*ir.TensorMeta); !ok {
				allTensors = false
			}
		}
		if allTensors {
			n.Meta.Items = make([]*ir.TensorMeta, len(x))
			for i, it := range x {
				n.Meta.Items[i] = it.(*ir.TensorMeta)
			}
		} else {
			n.Meta.Value, n.Meta.HasValue = x, true
		}
	default:
		n.Meta.Value, n.Meta.HasValue = v, true
	}
}

// metaArg replaces node references by their inferred values.
func (nz *normalizer) metaArg(a ir.Arg) ir.Value {
	return ir.MapArg(a, func(n *ir.Node) ir.Arg { return nz.metas[n] })
}

func (nz *normalizer) node(n *ir.Node) error {
	switch n.Op {
	case ir.Placeholder, ir.GetAttr:
		c := &ir.Node{Name: n.Name, Op: n.Op, Target: n.Target, Meta: n.Meta, From: []string{n.Name}}
		if n.Op == ir.Placeholder && n.Meta.HasValue && n.Meta.Tensor == nil {
			nz.metas[c] = n.Meta.Value
		} else {
			td := nz.src.Tensors[n.Target]
			if td == nil {
				return fmt.Errorf("target: %q has no tensor", n.Target)
			}
			tm := &ir.TensorMeta{DType: td.T.DType, Shape: ir.ShapeOf(td.T.Shape), Stride: td.T.Strides, RequiresGrad: td.RequiresGrad}
			if n.Op == ir.Placeholder && n.Meta.Tensor != nil {
				tm.RequiresGrad = n.Meta.Tensor.RequiresGrad || td.RequiresGrad
			}
			c.Meta.Tensor = tm
			nz.metas[c] = tm
			if err := checkMeta(n, tm); err != nil {
				return err
			}
		}
		nz.out.Nodes = append(nz.out.Nodes, c)
		nz.mapped[n] = c
		return nil
	case ir.Output:
		c := &ir.Node{Name: n.Name, Op: ir.Output, Target: "output", From: []string{n.Name}}
		if len(n.Args) > 0 {
			a, err := nz.flattenOutputs(nz.mapArg(n.Args[0]))
			if err != nil {
				return err
			}
			c.Args = []ir.Arg{a}
		}
		nz.out.Nodes = append(nz.out.Nodes, c)
		nz.mapped[n] = c
		return nil
	case ir.CallModule:
		return nz.module(n)
	case ir.CallFunction, ir.CallMethod:
		return nz.call(n)
	}
	return fmt.Errorf("op: unknown op kind %q", n.Op)
}

// call rewrites a call_function or call_method node.
func (nz *normalizer) call(n *ir.Node) error {
	if handled, err := nz.maskedSel(n); handled { // normalize_masked_sel.go: x[mask].sum(), F.cross_entropy(x[m], t[m])
		return err
	}
	if handled, err := nz.composedCall(n); handled { // normalize_composed.go: F.dropout3d, F.instance_norm, x.unsqueeze_, ...
		return err
	}
	if handled, err := nz.outVariant(n); handled { // functionalize_out.go: op(..., out=buf)
		return err
	}
	if handled, err := nz.nativeTupleCall(n); handled { // normalize_pt2.go: native_layer_norm, ...
		return err
	}
	if n.Op == ir.CallFunction && n.Target == "builtins.getattr" {
		return nz.getattr(n)
	}
	if n.Op == ir.CallFunction && strings.HasPrefix(n.Target, "math.") {
		return nz.pyMath(n) // normalize_pymath.go: folded to its Python value
	}
	if n.Op == ir.CallMethod && n.Target == "to" {
		return nz.to(n)
	}
	if n.Op == ir.CallMethod && n.Target == "type" {
		return nz.typeMethod(n) // normalize_newtensor.go
	}
	if n.Op == ir.CallMethod && n.Target == "new_tensor" {
		return nz.newTensor(n)
	}
	d, al, ok := canonicalFor(n)
	if !ok {
		return unsupported(n)
	}
	if d.Name == "aten.round" && roundHasDecimals(n) { // torch.round(x, decimals=d)
		d, al = ir.Lookup("aten.round_decimals"), alias{Op: "round_decimals"}
	}
	d, args, err := bindAlias(unbiasedOverload(n, d), d, al) // normalize_overloads.go: var(x, True)
	if err != nil {
		return err
	}
	atenIndices(n, d, args) // normalize_index.go: index_put's list of optional tensors
	if d.Name == "aten.batch_norm" {
		if handled, err := nz.emptyBatchNorm(n, args); handled { // normalize_bn_empty.go
			return err
		}
	}
	intHardtanhBounds(al, args)
	d = floatHardtanh(al, d, args) // normalize_overloads.go
	return nz.emit(n, d, args)
}

// emit adds the canonical call for captured node n with bound canonical args.
func (nz *normalizer) emit(n *ir.Node, d *ir.OpDef, bound []ir.Arg) error {
	for i := range bound {
		bound[i] = nz.mapArg(bound[i])
	}
	adaptiveNone(d.Name, bound) // normalize_pool.go
	c := &ir.Node{Name: n.Name, Op: ir.CallFunction, Target: d.Name, Args: d.Schema.Trim(bound), Meta: ir.Meta{Stack: n.Meta.Stack}}
	if err := nz.add(c, n); err != nil {
		return err
	}
	nz.mapped[n] = c
	if n.Meta.Tensor != nil && c.Meta.Tensor != nil {
		return checkMeta(n, c.Meta.Tensor)
	}
	return nil
}

func unsupported(n *ir.Node) error {
	kind := "function"
	if n.Op == ir.CallMethod {
		kind = "Tensor method"
	}
	return fmt.Errorf("target: unsupported %s %q%s: it is not in gcdbg's canonical op set, so gcdbg cannot run it, not even through its eager fallback (see `gcdbg ops`)", kind, n.Target, sourceLine(n))
}

// bindAlias binds n's args against the source schema and maps them onto the
// canonical op's parameters. inplace=True selects the op's in-place form.
func bindAlias(n *ir.Node, d *ir.OpDef, al alias) (*ir.OpDef, []ir.Arg, error) {
	if al.Schema == "" {
		args, err := d.Schema.Bind(n.Args, n.Kwargs)
		return d, args, err
	}
	src := sourceSchema(al.Schema)
	vals, err := src.Bind(n.Args, n.Kwargs)
	if err != nil {
		return nil, nil, err
	}
	target := d
	out := make([]ir.Arg, len(d.Schema.Params))
	set := make([]bool, len(out))
	for i, p := range src.Params {
		name := p.Name
		if r, ok := al.Rename[name]; ok {
			name = r
		}
		if name == "inplace" {
			if b, _ := vals[i].(bool); b {
				if ip := ir.Lookup(d.Name + "_"); ip != nil {
					target = ip
					continue
				}
				return nil, nil, fmt.Errorf("kwargs.inplace: %s has no in-place form in gcdbg", d.Name)
			}
			continue
		}
		idx := paramIndex(d.Schema, name, i == 0)
		if idx < 0 {
			if contains(al.Ignore, p.Name) || (p.HasDefault && ir.ArgEqual(vals[i], p.Default)) {
				continue
			}
			return nil, nil, fmt.Errorf("args: %s=%s is not supported by gcdbg", p.Name, ir.FormatArg(vals[i], func(n *ir.Node) string { return n.Name }))
		}
		out[idx], set[idx] = vals[i], true
	}
	for i, p := range d.Schema.Params {
		if !set[i] {
			if !p.HasDefault {
				return nil, nil, fmt.Errorf("args: missing %q", p.Name)
			}
			out[i] = p.Default
		}
	}
	// torch.embedding spells "no padding" as -1, F.embedding as None.
	if d.Name == "aten.embedding" && ir.ArgEqual(out[2], int64(-1)) {
		out[2] = nil
	}
	return target, out, nil
}

func paramIndex(sc ir.Schema, name string, first bool) int {
	for i, p := range sc.Params {
		if p.Name == name {
			return i
		}
	}
	if first && len(sc.Params) > 0 && (name == "input" || name == "self") {
		return 0
	}
	return -1
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// sourceSchema parses an alias schema, turning "torch.X" defaults into dtypes.
func sourceSchema(s string) ir.Schema {
	var dts []tensor.DType
	for _, name := range []string{"float32", "float64", "float16", "bfloat16", "int64", "int32", "bool"} {
		if strings.Contains(s, "torch."+name) {
			dt, _ := tensor.ParseDType(name)
			dts = append(dts, dt)
			s = strings.ReplaceAll(s, "torch."+name, "'torch."+name+"'")
		}
	}
	sc := ir.ParseSchema(s)
	for i, p := range sc.Params {
		if str, ok := p.Default.(string); ok && strings.HasPrefix(str, "torch.") {
			dt, _ := tensor.ParseDType(str)
			sc.Params[i].Default = dt
		}
	}
	return sc
}

// getattr handles builtins.getattr(x, "shape" | "dtype" | "device" | "T" | "ndim").
func (nz *normalizer) getattr(n *ir.Node) error {
	if len(n.Args) != 2 {
		return fmt.Errorf("args: getattr takes 2 arguments, got %d", len(n.Args))
	}
	attr, _ := n.Args[1].(string)
	// The named tuples of sort, topk, max(dim), min(dim), var_mean: .values, .indices.
	if i, ok := map[string]int64{"values": 0, "indices": 1}[attr]; ok {
		return nz.emit(n, ir.Lookup("aten.getitem"), []ir.Arg{n.Args[0], i})
	}
	// x.device (nanoGPT's torch.arange(0, t, device=idx.device)) is the
	// device the trace recorded (cpu where none is, e.g. graph text): a
	// constant, which every factory and Tensor.to take and gcdbg's
	// device-less tensors ignore.
	if attr == "device" {
		if _, ok := n.Args[0].(*ir.Node); !ok {
			return fmt.Errorf("args[0]: getattr(device) of %s, not a tensor", ir.FormatArg(n.Args[0], func(m *ir.Node) string { return m.Name }))
		}
		dev, ok := n.Meta.Value.(ir.Device)
		if !ok {
			dev = "cpu"
		}
		nz.mapped[n] = dev
		return nil
	}
	op := map[string]string{"shape": "size", "dtype": "dtype", "T": "numpy_T", "mT": "", "ndim": "dim"}[attr]
	if op == "" {
		return fmt.Errorf("args[1]: getattr(%q) is not supported (shape, dtype, device, T, ndim are)", attr)
	}
	return nz.emit(n, ir.Lookup("aten."+op), []ir.Arg{n.Args[0]})
}

// to handles Tensor.to(...): a dtype anywhere in args or kwargs converts;
// device-only moves are no-ops for the CPU reference.
func (nz *normalizer) to(n *ir.Node) error {
	dt, _ := n.Kwarg("dtype")
	return nz.toWith(n, n.Args, dt)
}

// toWith is Tensor.to of captured node n with positional args (self
// first) and dtype= kw (nil: none).
func (nz *normalizer) toWith(n *ir.Node, args []ir.Arg, kw ir.Arg) error {
	var dt ir.Arg
	if len(args) == 0 {
		return fmt.Errorf("args: Tensor.to needs self")
	}
	for _, a := range args[1:] {
		if d, ok := a.(tensor.DType); ok {
			dt = d
		}
		if other, ok := a.(*ir.Node); ok {
			if _, dev := nz.mapped[other].(ir.Device); dev { // x.to(y.device): a move
				continue
			}
			// x.to(y.dtype): getattr(y, "dtype") is aten.dtype(y), a
			// dtype, not a tensor: the conversion is type_as(x, y).
			if other.Target == "aten.dtype" && len(other.Args) == 1 ||
				other.Target == "builtins.getattr" && len(other.Args) == 2 && other.Args[1] == "dtype" {
				other, _ = other.Args[0].(*ir.Node)
			}
			if other == nil {
				return fmt.Errorf("args: Tensor.to of a dtype that is not a tensor's")
			}
			return nz.emit(n, ir.Lookup("aten.type_as"), []ir.Arg{args[0], other})
		}
	}
	if kw != nil {
		dt = kw
	}
	if dt == nil {
		return nz.emit(n, ir.Lookup("aten.alias"), []ir.Arg{args[0]})
	}
	return nz.emit(n, ir.Lookup("aten.to_dtype"), []ir.Arg{args[0], dt})
}

// checkMeta compares inferred metadata with what the trace recorded.
func checkMeta(n *ir.Node, got *ir.TensorMeta) error {
	want := n.Meta.Tensor
	if want == nil {
		return nil
	}
	if want.DType != got.DType {
		return fmt.Errorf("meta.dtype: gcdbg infers %s but the trace says %s", got.DType, want.DType)
	}
	if !want.Shape.Equal(got.Shape) {
		if mask := boolMaskIndex(n); mask != "" {
			return maskShapeError(n, mask, want.Shape, "") // normalize_masked_sel.go
		}
		return fmt.Errorf("meta.shape: gcdbg infers %s but the trace says %s", got.Shape, want.Shape)
	}
	return nil
}

// boolMaskIndex names the boolean tensor that indexes n (x[mask],
// x[:, mask]), or "".
func boolMaskIndex(n *ir.Node) string {
	if n.Target != "operator.getitem" && n.Target != "aten.getitem" && n.Target != "aten.index" {
		return ""
	}
	var find func(a ir.Arg) string
	find = func(a ir.Arg) string {
		switch v := a.(type) {
		case *ir.Node:
			if m := v.Meta.Tensor; m != nil && (m.DType == tensor.Bool || m.DType == tensor.Uint8) {
				return v.Name
			}
		case ir.Tuple:
			for _, x := range v {
				if s := find(x); s != "" {
					return s
				}
			}
		case ir.List:
			for _, x := range v {
				if s := find(x); s != "" {
					return s
				}
			}
		}
		return ""
	}
	for _, a := range n.Args[min(1, len(n.Args)):] {
		if s := find(a); s != "" {
			return s
		}
	}
	return ""
}
