package trace

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"gcdbg/tensor"
)

// safetensors dtype codes for the nine trace dtypes.
var stDTypes = map[string]tensor.DType{
	"F64": tensor.Float64, "F32": tensor.Float32, "F16": tensor.Float16, "BF16": tensor.BFloat16,
	"I64": tensor.Int64, "I32": tensor.Int32, "I8": tensor.Int8, "U8": tensor.Uint8, "BOOL": tensor.Bool,
}

type stEntry struct {
	dtype      tensor.DType
	shape      []int
	begin, end int
}

// stFile is a parsed safetensors file: its data buffer and checked header.
type stFile struct {
	buf     []byte
	entries map[string]stEntry
	keys    []string // in header order
}

func (f *stFile) tensor(k string) (*tensor.Tensor, error) {
	e, ok := f.entries[k]
	if !ok {
		return nil, fmt.Errorf("no tensor %q in the file", k)
	}
	return decodeBytes(e.dtype, e.shape, f.buf[e.begin:e.end])
}

// parseST checks a safetensors file completely (header length, header
// JSON, dtypes, shapes, offsets in range, no overlap, the buffer covered
// exactly) without decoding any tensor. Errors carry a Field, no File.
func parseST(data []byte) (*stFile, error) {
	bad := func(field, format string, a ...any) *Error {
		return &Error{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if len(data) < 8 {
		return nil, bad("", "safetensors file of %d bytes is too short for its 8-byte header length", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > uint64(len(data)-8) {
		return nil, bad("header", "header length %d is larger than the %d bytes that follow it", n, len(data)-8)
	}
	hdr := data[8 : 8+int(n)]
	buf := data[8+int(n):]
	tree, err := parseJSON(hdr)
	if err != nil {
		return nil, bad("header", "%v", err)
	}
	o, ok := tree.(*object)
	if !ok {
		return nil, bad("header", "header is %s, want a JSON object", kind(tree))
	}
	f := &stFile{buf: buf, entries: map[string]stEntry{}}
	var order []stEntry
	var names []string
	for _, k := range o.keys {
		if k == "__metadata__" {
			continue
		}
		field := "header" + key(k)
		eo, ok := o.vals[k].(*object)
		if !ok {
			return nil, bad(field, "entry is %s, want an object", kind(o.vals[k]))
		}
		ds, _ := eo.vals["dtype"].(string)
		dt, ok := stDTypes[ds]
		if !ok {
			return nil, bad(field+".dtype", "unsupported safetensors dtype %q (want one of F64, F32, F16, BF16, I64, I32, I8, U8, BOOL)", ds)
		}
		shape, err := checkShape(eo.vals["shape"])
		if err != nil {
			return nil, bad(field+".shape", "%v", err)
		}
		offs, ok := eo.vals["data_offsets"].([]any)
		if !ok || len(offs) != 2 {
			return nil, bad(field+".data_offsets", "want [begin, end]")
		}
		var be [2]int64
		for i, x := range offs {
			num, ok := x.(json.Number)
			v, err := number(num)
			iv, isInt := v.(int64)
			if !ok || err != nil || !isInt || iv < 0 {
				return nil, bad(field+".data_offsets", "offsets must be non-negative integers")
			}
			be[i] = iv
		}
		if be[0] > be[1] || be[1] > int64(len(buf)) {
			return nil, bad(field+".data_offsets", "offsets [%d, %d] are out of range of the %d-byte data buffer", be[0], be[1], len(buf))
		}
		want := int64(tensor.Numel(shape)) * int64(dt.Size())
		if be[1]-be[0] != want {
			return nil, bad(field+".data_offsets", "%d bytes for %s%v, want %d", be[1]-be[0], dt, shape, want)
		}
		e := stEntry{dtype: dt, shape: shape, begin: int(be[0]), end: int(be[1])}
		f.entries[k] = e
		f.keys = append(f.keys, k)
		order = append(order, e)
		names = append(names, k)
	}
	idxs := make([]int, len(order))
	for i := range idxs {
		idxs[i] = i
	}
	sort.SliceStable(idxs, func(a, b int) bool {
		ea, eb := order[idxs[a]], order[idxs[b]]
		if ea.begin != eb.begin {
			return ea.begin < eb.begin
		}
		return ea.end < eb.end
	})
	pos := 0
	for _, i := range idxs {
		e := order[i]
		if e.begin < pos {
			return nil, bad("header"+key(names[i])+".data_offsets", "bytes [%d, %d] overlap another tensor", e.begin, e.end)
		}
		if e.begin > pos {
			return nil, bad("header"+key(names[i])+".data_offsets", "bytes [%d, %d) belong to no tensor", pos, e.begin)
		}
		pos = e.end
	}
	if pos != len(buf) {
		return nil, bad("header", "bytes [%d, %d) of the data buffer belong to no tensor", pos, len(buf))
	}
	return f, nil
}

// ParseSafetensors decodes every tensor of a safetensors file held in data.
// Hostile input (a header length past the end, a header that is not JSON,
// offsets out of range, overlapping or leaving gaps, an unknown dtype, an
// element count that overflows) is an error; nothing is allocated beyond
// what the data itself accounts for.
func ParseSafetensors(data []byte) (map[string]*tensor.Tensor, error) {
	f, err := parseST(data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*tensor.Tensor, len(f.keys))
	for _, k := range f.keys {
		t, err := f.tensor(k)
		if err != nil {
			return nil, &Error{Field: "header" + key(k), Msg: err.Error()}
		}
		out[k] = t
	}
	return out, nil
}

// LoadSafetensors reads and decodes a safetensors file.
func LoadSafetensors(path string) (map[string]*tensor.Tensor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: filepath.Base(path), Msg: err.Error()}
	}
	m, err := ParseSafetensors(data)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.File = filepath.Base(path)
		}
		return nil, err
	}
	return m, nil
}
