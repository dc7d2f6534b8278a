package ir

import (
	"reflect"
	"strings"
	"testing"
)

// aten.add / aten.mul / aten.sub on Python sequences follow Python (values
// and TypeErrors as /usr/bin/python3 prints them: (16,)+(1,)*3 ==
// (16, 1, 1, 1), (1,)*0 == (1,)*-2 == (), [2]*2+[3] == [2, 2, 3],
// (2,)*True == (2,)).
func TestPySequenceArithmetic(t *testing.T) {
	call := func(op string, x, y Value) (Value, error) {
		vals := []Value{x, y}
		if op != "aten.mul" {
			vals = append(vals, int64(1))
		}
		return Call(Lookup(op), vals)
	}
	rep, err := call("aten.mul", Tuple{int64(1)}, int64(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op   string
		x, y Value
		want Value
	}{
		{"aten.add", Tuple{int64(16)}, rep, Tuple{int64(16), int64(1), int64(1), int64(1)}},
		{"aten.mul", Tuple{int64(1)}, int64(0), Tuple{}},
		{"aten.mul", int64(-2), Tuple{int64(1)}, Tuple{}},
		{"aten.mul", Tuple{int64(2)}, true, Tuple{int64(2)}},
		{"aten.add", List{int64(2), int64(2)}, List{int64(3)}, List{int64(2), int64(2), int64(3)}},
	} {
		got, err := call(c.op, c.x, c.y)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s(%v, %v) = %#v, %v; want %#v", c.op, c.x, c.y, got, err, c.want)
		}
	}
	for _, c := range []struct {
		op   string
		x, y Value
		want string
	}{
		{"aten.add", Tuple{int64(1)}, List{int64(2)}, `can only concatenate tuple (not list) to tuple`},
		{"aten.mul", Tuple{int64(1)}, 2.0, `can't multiply sequence by non-int of type 'float'`},
		{"aten.sub", Tuple{int64(1)}, Tuple{int64(1)}, `unsupported operand type(s) for sub: 'tuple' and 'tuple'`},
	} {
		if _, err := call(c.op, c.x, c.y); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s(%v, %v): error %v, want %q", c.op, c.x, c.y, err, c.want)
		}
	}
}
