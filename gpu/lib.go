// Package gpu runs the renderer's CUDA and OpenCL programs. Both runtimes
// are reached through purego (dlopen + a C call per function): no cgo, no
// link-time dependency, so gcdbg builds everywhere and says at run time
// which library is missing.
package gpu

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// lib is a dlopened C library and the functions taken from it.
type lib struct {
	name string
	h    uintptr
	fns  map[string]uintptr
}

// openLib tries each path in turn; the error names them all.
func openLib(what string, paths ...string) (*lib, error) {
	var last error
	for _, p := range paths {
		h, err := purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return &lib{name: p, h: h, fns: map[string]uintptr{}}, nil
		}
		last = err
	}
	return nil, fmt.Errorf("no %s found (%s): %v", what, paths[0], last)
}

// need resolves every symbol up front, so that a library too old for one
// call fails at start-up, by name, rather than mid-run.
func (l *lib) need(names ...string) error {
	for _, n := range names {
		s, err := purego.Dlsym(l.h, n)
		if err != nil {
			return fmt.Errorf("%s has no %s: %v", l.name, n, err)
		}
		l.fns[n] = s
	}
	return nil
}

// call invokes a C function resolved by need. Pointer arguments are
// written uintptr(unsafe.Pointer(&x)) in the call itself: uintptrescapes
// keeps what they point to alive and in place for the call.
//
//go:uintptrescapes
func (l *lib) call(name string, args ...uintptr) uintptr {
	fn := l.fns[name]
	if fn == 0 {
		panic("gpu: " + name + " was not resolved") // a bug in this package, not bad input
	}
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// cstr is a NUL-terminated copy of s (kept alive by the caller's use).
func cstr(s string) *byte {
	b := append([]byte(s), 0)
	return &b[0]
}

// gostr reads a NUL-terminated C string of at most n bytes.
func gostr(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// cString copies a static C string (an error name owned by the library,
// never freed) of at most 256 bytes.
func cString(p uintptr) string {
	base := *(*unsafe.Pointer)(unsafe.Pointer(&p))
	var b []byte
	for i := 0; i < 256; i++ {
		c := *(*byte)(unsafe.Add(base, i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}
