package compiler

// SetLoadForTest makes LoadAverage report load (ok) until the returned
// function restores the real reading.
func SetLoadForTest(load float64, ok bool) (restore func()) {
	old := loadNow
	loadNow = func() (float64, bool) { return load, ok }
	return func() { loadNow = old }
}

// UnitsForTest is the number of translation units (kernel groups and the
// entry points) p is built from on a miss, 0 when it is built whole.
func UnitsForTest(p Program) int {
	parts, _ := splitProgram(p)
	return len(parts)
}
