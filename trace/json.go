package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxJSONDepth bounds the nesting of the JSON document itself.
const maxJSONDepth = 256

// object is a JSON object that keeps its keys in file order.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// parseJSON decodes data into a tree of *object, []any, json.Number,
// string, bool and nil. Duplicate keys and trailing data are errors.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if errors.Is(err, errTruncated) {
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, fmt.Errorf("invalid JSON: the file is empty")
		}
		return nil, fmt.Errorf("invalid JSON: the file ends early, at byte offset %d, inside an unfinished value (it looks truncated: was it written completely?)", len(data))
	}
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid JSON: data after the top-level value (offset %d)", dec.InputOffset())
	}
	return v, nil
}

// errTruncated marks input that ends inside a value; parseJSON says where.
var errTruncated = errors.New("truncated")

// jsonErr is a decoder error as the loader reports it: the end of the data
// inside a value (io.EOF or io.ErrUnexpectedEOF from the decoder) is
// errTruncated, anything else a syntax error as the decoder words it.
func jsonErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errTruncated
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

func parseValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(err)
	}
	return parseFrom(dec, tok, depth)
}

func parseFrom(dec *json.Decoder, tok json.Token, depth int) (any, error) {
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool, nil
	}
	if depth >= maxJSONDepth {
		return nil, fmt.Errorf("invalid JSON: nested deeper than %d levels (offset %d)", maxJSONDepth, dec.InputOffset())
	}
	switch d {
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, jsonErr(err)
		}
		return arr, nil
	case '{':
		o := &object{vals: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, jsonErr(err)
			}
			k, ok := kt.(string)
			if !ok {
				return nil, fmt.Errorf("invalid JSON: object key is not a string (offset %d)", dec.InputOffset())
			}
			if _, dup := o.vals[k]; dup {
				return nil, fmt.Errorf("invalid JSON: duplicate object key %q (offset %d)", k, dec.InputOffset())
			}
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, k)
			o.vals[k] = v
		}
		if _, err := dec.Token(); err != nil {
			return nil, jsonErr(err)
		}
		return o, nil
	}
	return nil, fmt.Errorf("invalid JSON: unexpected %q (offset %d)", d, dec.InputOffset())
}

// number converts a JSON number as the spec says: written with '.', 'e' or
// 'E' it is a float64, otherwise an int64 (overflow is an error).
func number(n json.Number) (any, error) {
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("number %s is out of range for a float64", s)
		}
		return f, nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("integer %s overflows int64", s)
	}
	return i, nil
}

// plain converts a tree to map[string]any / []any / int64 / float64 values.
func plain(v any) (any, error) {
	switch x := v.(type) {
	case *object:
		m := make(map[string]any, len(x.keys))
		for _, k := range x.keys {
			p, err := plain(x.vals[k])
			if err != nil {
				return nil, err
			}
			m[k] = p
		}
		return m, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			p, err := plain(e)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	case json.Number:
		return number(x)
	}
	return v, nil
}

// kind names a JSON value's type for error messages.
func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a bool"
	case string:
		return "a string"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "a float"
		}
		return "an int"
	case []any:
		return "an array"
	case *object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
