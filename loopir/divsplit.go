package loopir

// Division and modulo by a constant through a divisor of it. An index
// unravelled over one view and read over another often divides a flat
// offset whose low part is bounded below a divisor g of the constant:
// InstanceNorm's backward reads its [N, C, H, W] input at
// (36864*x0 + 9216*r0 + 96*r1 + r2) // 294912 inside a reduction over
// (r0, r1, r2) = [4, 96, 96], where 294912 = 36864 * 8 and
// 9216*r0 + 96*r1 + r2 < 36864, so the quotient is x0 // 8. split's rule
// (terms divisible by the constant itself) leaves it whole, and the C
// kept a 64-bit division per element in the vector loop (sr_resnet's
// five InstanceNorm weight-gradient kernels at 8 GB/s).
//
// For a = g*A + R with R proven in [0, g) and g dividing b (b > 0):
//
//	a // b = A // (b/g)        (write A = m*q + s, 0 <= s < m = b/g:
//	a %  b = g*(A % (b/g)) + R  a = g*m*q + (g*s + R), 0 <= g*s + R < b)
//
// exact for any integer A, so the rewritten index reads the same element.

// divSplit finds the largest divisor g of b (1 < g < b) among the gcds of
// b with a's coefficients such that the terms of a whose coefficients g
// divides, over g, are A and the rest R (with a's constant split the same
// way) lies in [0, g). ok false when there is none.
func divSplit(a Expr, b int64) (A, R Expr, g int64, ok bool) {
	if b <= 1 {
		return nil, nil, 0, false
	}
	pa := toPoly(a)
	if len(pa.terms) < 2 {
		return nil, nil, 0, false
	}
	for _, t := range pa.terms {
		c := gcd64(abs64(t.K), b)
		if c <= 1 || c >= b || c <= g { // c, a gcd with b, divides b
			continue
		}
		qp := &poly{terms: map[string]*Term{}}
		rp := &poly{terms: map[string]*Term{}}
		for _, u := range pa.terms {
			if u.K%c == 0 {
				qp.add(u.K/c, u.Factors)
			} else {
				rp.add(u.K, u.Factors)
			}
		}
		if len(qp.terms) == 0 || len(rp.terms) == 0 {
			continue
		}
		qp.c, rp.c = floorDiv(pa.c, c), pyMod(pa.c, c)
		r := rp.expr()
		if !inRange(r, Const{c}) {
			continue
		}
		A, R, g, ok = qp.expr(), r, c, true
	}
	return A, R, g, ok
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
