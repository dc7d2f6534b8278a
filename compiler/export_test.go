package compiler

// SetLoadForTest makes LoadAverage report load (ok) until the returned
// function restores the real reading.
func SetLoadForTest(load float64, ok bool) (restore func()) {
	old := loadNow
	loadNow = func() (float64, bool) { return load, ok }
	return func() { loadNow = old }
}
