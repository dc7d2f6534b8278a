package render

import (
	"strconv"
	"strings"

	"gcdbg/loopir"
)

// smallPow spells a float pow by a constant (Python scalar) exponent as
// PyTorch's CPU kernel computes it (pow_tensor_scalar_optimized_kernel):
// 1 as a copy, 2, 3, -1, -2 with multiplications (base * base, base * base * base,
// 1 / base, 1 / (base * base)) instead of a call to powf per element
// (GroupNorm-and-SiLU's .pow(2) ran a libm call in its hot loop), 0.5 and
// -0.5 as sqrt and 1 / sqrt: x.pow(0.5) of -inf is NaN and of -0 is -0 in
// PyTorch, where powf gives +inf and +0 (tensor.Binary's pow does the same).
func (g *kernelGen) smallPow(s loopir.Stmt, args []value) (value, bool) {
	if s.Op != "pow" || !s.DType.IsFloat() || len(args) != 2 {
		return value{}, false
	}
	lit := strings.TrimSuffix(strings.TrimSuffix(strings.Trim(args[1].c, "()"), "f"), "F")
	e, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return value{}, false
	}
	x := g.cast(args[0], s.DType).c
	one := "1"
	var expr string
	switch e {
	case 1: // ATen's pow_out copies base for exponent 1 (and fills 1 for 0: powf(x, 0) is 1 too, NaN included)
		return g.decl(s.DType, x), true
	case 2:
		expr = x + " * " + x
	case 3:
		expr = x + " * " + x + " * " + x
	case -1:
		expr = one + " / " + x
	case -2:
		expr = one + " / (" + x + " * " + x + ")"
	case 0.5, -0.5:
		sqrt := g.r.d.Math["sqrt"][s.DType]
		if sqrt == "" {
			return value{}, false
		}
		expr = sqrt + "(" + x + ")"
		if e < 0 {
			expr = one + " / " + expr
		}
	default:
		return value{}, false
	}
	return g.decl(s.DType, "("+expr+")"), true
}
