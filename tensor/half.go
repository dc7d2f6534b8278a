package tensor

import "math"

// FloatToHalf converts to IEEE 754 binary16 bits, rounding to nearest even.
func FloatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b >> 23) & 0xff)
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15: // overflow
		return sign | 0x7c00
	case exp-127 >= -14: // normal
		e := uint32(exp-127+15) << 10
		m := mant >> 13
		h := uint32(sign) | e | m
		rest := mant & 0x1fff
		if rest > 0x1000 || (rest == 0x1000 && m&1 == 1) {
			h++ // may carry into the exponent, which is the correct rounding
		}
		return uint16(h)
	case exp-127 >= -25: // subnormal
		m := mant | 0x800000
		shift := uint32(-14 - (exp - 127) + 13)
		h := m >> shift
		rest := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	return sign
}

// HalfToFloat converts IEEE 754 binary16 bits to float32.
func HalfToFloat(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(mant) / 1024 / 16384
		if sign != 0 {
			return -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// BF16ToFloat converts bfloat16 bits to float32.
func BF16ToFloat(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// FloatToBF16 converts float32 to bfloat16 bits, rounding to nearest even.
func FloatToBF16(f float32) uint16 {
	return uint16(math.Float32bits(float32(roundBF16(float64(f)))) >> 16)
}
