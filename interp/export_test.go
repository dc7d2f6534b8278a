package interp

// SetSerialNoise makes the simulated float32 rounding perturb every
// tensor element by element (the loop before perturbFlat) and returns the
// previous setting.
func SetSerialNoise(on bool) bool {
	was := serialNoise
	serialNoise = on
	return was
}
