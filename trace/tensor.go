package trace

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"gcdbg/ir"
	"gcdbg/tensor"
)

const (
	// maxElements bounds the element count of any shape (a larger count
	// is reported as an overflow).
	maxElements = int64(1) << 40
	// maxDims bounds the rank of a shape.
	maxDims = 64
)

// maxInitElements bounds the total number of elements that `init` tensors
// of one load may generate (each element takes 8 bytes in memory). A var so
// that the fuzz tests can lower it.
var maxInitElements = int64(1) << 27

// traceDTypes are the nine dtypes a TENSOR may have.
var traceDTypes = map[string]tensor.DType{
	"float32": tensor.Float32, "float64": tensor.Float64, "float16": tensor.Float16,
	"bfloat16": tensor.BFloat16, "int64": tensor.Int64, "int32": tensor.Int32,
	"int8": tensor.Int8, "uint8": tensor.Uint8, "bool": tensor.Bool,
}

// checkShape decodes a JSON array of non-negative ints whose element count
// stays within maxElements.
func checkShape(v any) ([]int, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("shape is %s, want an array of ints", kind(v))
	}
	if len(arr) > maxDims {
		return nil, fmt.Errorf("shape has %d dimensions, more than %d", len(arr), maxDims)
	}
	shape := make([]int, len(arr))
	prod := int64(1)
	for i, x := range arr {
		num, ok := x.(json.Number)
		if !ok {
			return nil, fmt.Errorf("dimension %d is %s, want an int", i, kind(x))
		}
		nv, err := number(num)
		if err != nil {
			return nil, fmt.Errorf("dimension %d: %v", i, err)
		}
		d, ok := nv.(int64)
		if !ok {
			return nil, fmt.Errorf("dimension %d is a float (%s), want an int", i, num)
		}
		if d < 0 {
			return nil, fmt.Errorf("dimension %d is negative (%d)", i, d)
		}
		if d > maxElements {
			return nil, fmt.Errorf("element count overflows: dimension %d is %d (more than 2^40 elements)", i, d)
		}
		if d > 0 {
			if prod > maxElements/d {
				return nil, fmt.Errorf("element count of shape %s overflows (more than 2^40 elements)", shapeText(arr))
			}
			prod *= d
		}
		shape[i] = int(d)
	}
	return shape, nil
}

func shapeText(arr []any) string {
	parts := make([]string, len(arr))
	for i, x := range arr {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// tensorEntry is one TENSOR of a tensors map, decoded on first use.
type tensorEntry struct {
	raw   any
	field string // e.g. tensors["x"] or graphs[0].tensors["x"]... as shown in errors
	graph string // the graph owning a graph-local map; "" for the trace's map
	done  bool
	td    *ir.TensorData
	err   *Error
}

// tensor decodes a TENSOR object. field is its path, for errors.
func (d *decoder) tensor(v any, field string) (*ir.TensorData, *Error) {
	o, ok := v.(*object)
	if !ok {
		return nil, d.errf(field, "tensor is %s, want an object", kind(v))
	}
	ds, ok := o.vals["dtype"].(string)
	if !ok {
		return nil, d.errf(field+".dtype", "missing or not a string")
	}
	dt, ok := traceDTypes[ds]
	if !ok {
		return nil, d.errf(field+".dtype", "unknown dtype %q (want float32, float64, float16, bfloat16, int64, int32, int8, uint8 or bool)", ds)
	}
	sv, ok := o.vals["shape"]
	if !ok {
		return nil, d.errf(field+".shape", "missing")
	}
	shape, err := checkShape(sv)
	if err != nil {
		return nil, d.errf(field+".shape", "%v", err)
	}
	rg, e := d.optBool(o, "requires_grad", field+".requires_grad")
	if e != nil {
		return nil, e
	}
	var sources []string
	for _, k := range []string{"data", "file", "init"} {
		if _, ok := o.vals[k]; ok {
			sources = append(sources, k)
		}
	}
	if len(sources) != 1 {
		if len(sources) == 0 {
			return nil, d.errf(field, "tensor has none of data, file, init (want exactly one)")
		}
		return nil, d.errf(field, "tensor has %s (want exactly one of data, file, init)", strings.Join(sources, " and "))
	}
	numel := int64(tensor.Numel(shape))
	want := numel * int64(dt.Size())
	td := &ir.TensorData{RequiresGrad: rg}
	switch sources[0] {
	case "data":
		s, ok := o.vals["data"].(string)
		if !ok {
			return nil, d.errf(field+".data", "data is %s, want a base64 string", kind(o.vals["data"]))
		}
		if int64(len(s)) > 4*((want+2)/3)+4 { // refuse before decoding a string far too long
			return nil, d.errf(field+".data", "about %d bytes of data for %s%v, want %d (%d elements × %d bytes)",
				base64.StdEncoding.DecodedLen(len(s)), dt, shape, want, numel, dt.Size())
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, d.errf(field+".data", "invalid base64: %v", err)
		}
		if int64(len(b)) != want {
			return nil, d.errf(field+".data", "%d bytes of data for %s%v, want %d (%d elements × %d bytes)", len(b), dt, shape, want, numel, dt.Size())
		}
		t, err := decodeBytes(dt, shape, b)
		if err != nil {
			return nil, d.errf(field+".data", "%v", err)
		}
		td.T, td.Origin = t, "data"
	case "file":
		file, ok := o.vals["file"].(string)
		if !ok {
			return nil, d.errf(field+".file", "file is %s, want a string", kind(o.vals["file"]))
		}
		k, ok := o.vals["key"].(string)
		if !ok {
			return nil, d.errf(field+".key", "missing or not a string (a file tensor needs its key)")
		}
		sf, e := d.sidecar(file, field+".file")
		if e != nil {
			return nil, e
		}
		ent, ok := sf.entries[k]
		if !ok {
			return nil, d.errf(field+".key", "no tensor %q in %s", k, file)
		}
		if ent.dtype != dt || !sameShape(ent.shape, shape) {
			return nil, d.errf(field+".key", "%s holds %q as %s%v, but the trace says %s%v", file, k, ent.dtype, ent.shape, dt, shape)
		}
		t, err := sf.tensor(k)
		if err != nil {
			return nil, d.errf(field+".key", "%s: %v", file, err)
		}
		td.T, td.Origin = t, "file:"+k
	case "init":
		t, dist, e := d.initTensor(o.vals["init"], field+".init", dt, shape, numel)
		if e != nil {
			return nil, e
		}
		td.T, td.Origin = t, "init:"+dist
	}
	return td, nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// initTensor generates an `init` tensor. Values come from Go's math/rand/v2
// PCG generator seeded with (seed, 0): deterministic across runs and
// platforms, but not the values PyTorch's generator would give for the
// same seed.
func (d *decoder) initTensor(v any, field string, dt tensor.DType, shape []int, numel int64) (*tensor.Tensor, string, *Error) {
	o, ok := v.(*object)
	if !ok {
		return nil, "", d.errf(field, "init is %s, want an object", kind(v))
	}
	dist, ok := o.vals["dist"].(string)
	if !ok {
		return nil, "", d.errf(field+".dist", "missing or not a string")
	}
	if numel > d.initBudget {
		return nil, "", d.errf(field, "init of %d elements exceeds what one trace may generate (%d elements left)", numel, d.initBudget)
	}
	seed, e := d.optInt(o, "seed", field+".seed", 0)
	if e != nil {
		return nil, "", e
	}
	param := func(name string, def float64) (float64, *Error) {
		return d.optFloat(o, name, field+"."+name, def)
	}
	var gen func(i int) float64
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	switch dist {
	case "normal":
		mean, e := param("mean", 0)
		if e != nil {
			return nil, "", e
		}
		std, e := param("std", 1)
		if e != nil {
			return nil, "", e
		}
		gen = func(int) float64 { return mean + std*r.NormFloat64() }
	case "uniform":
		lo, e := param("low", 0)
		if e != nil {
			return nil, "", e
		}
		hi, e := param("high", 1)
		if e != nil {
			return nil, "", e
		}
		gen = func(int) float64 { return lo + (hi-lo)*r.Float64() }
	case "zeros":
		gen = func(int) float64 { return 0 }
	case "ones":
		gen = func(int) float64 { return 1 }
	case "arange":
		gen = func(i int) float64 { return float64(i) }
	default:
		return nil, "", d.errf(field+".dist", "unknown distribution %q (want normal, uniform, zeros, ones or arange)", dist)
	}
	d.initBudget -= numel
	t := tensor.New(dt, shape...)
	n := int(numel)
	for i := 0; i < n; i++ {
		t.SetFlat(i, gen(i))
	}
	return t, dist, nil
}

// sidecar opens (once per load) a safetensors file named by a TENSOR's
// `file`, refusing any path that leaves the trace's folder.
func (d *decoder) sidecar(file, field string) (*stFile, *Error) {
	if f, ok := d.sidecars[file]; ok {
		return f, nil
	}
	if e, ok := d.sidecarErrs[file]; ok {
		return nil, d.errf(field, "%s", e)
	}
	f, msg := d.openSidecar(file)
	if msg != "" {
		d.sidecarErrs[file] = msg
		return nil, d.errf(field, "%s", msg)
	}
	d.sidecars[file] = f
	return f, nil
}

func (d *decoder) openSidecar(file string) (*stFile, string) {
	if file == "" {
		return nil, "file is empty"
	}
	if filepath.IsAbs(file) || strings.HasPrefix(file, "/") || strings.HasPrefix(file, `\`) || filepath.VolumeName(file) != "" {
		return nil, fmt.Sprintf("file %q is an absolute path; it must be relative to the trace's folder", file)
	}
	for _, part := range strings.FieldsFunc(file, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return nil, fmt.Sprintf("file %q leaves the trace's folder (a \"..\" component)", file)
		}
	}
	if strings.ContainsRune(file, 0) {
		return nil, fmt.Sprintf("file %q contains a NUL byte", file)
	}
	dir := d.dir
	if dir == "" {
		dir = "."
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Sprintf("cannot resolve the trace's folder: %v", err)
	}
	realDir, err = filepath.Abs(realDir)
	if err != nil {
		return nil, err.Error()
	}
	realPath, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Sprintf("file %q does not exist beside the trace", file)
		}
		return nil, fmt.Sprintf("file %q: %v", file, err)
	}
	realPath, err = filepath.Abs(realPath)
	if err != nil {
		return nil, err.Error()
	}
	rel, err := filepath.Rel(realDir, realPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, fmt.Sprintf("file %q resolves to %s, outside the trace's folder", file, realPath)
	}
	st, err := os.Stat(realPath)
	if err != nil {
		return nil, fmt.Sprintf("file %q: %v", file, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Sprintf("file %q is not a regular file", file)
	}
	data, err := os.ReadFile(realPath)
	if err != nil {
		return nil, fmt.Sprintf("file %q: %v", file, err)
	}
	f, err := parseST(data)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", file, err)
	}
	return f, ""
}
