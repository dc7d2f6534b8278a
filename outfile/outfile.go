// Package outfile writes files into an output directory the user named
// (`gcdbg report -o DIR`, `gcdbg compile -o DIR`) without following a
// symbolic link planted in it: a link at the file's name is refused with a
// message naming it, and the file is written to a fresh temporary name in
// DIR (O_EXCL: never an existing file or link) and renamed into place, which
// replaces a name, never the target of a link that appeared since.
package outfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Refuse reports whether dir/name may be written: nil when it does not exist
// or is a regular file, an error naming it when it is a symbolic link (or
// anything else that is not a regular file).
func Refuse(dir, name string) error {
	p := filepath.Join(dir, name)
	fi, err := os.Lstat(p)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		return fmt.Errorf("refusing to write %s: it is a symbolic link (to %s), not a file gcdbg made; remove it or choose another directory", p, target)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("refusing to write %s: it exists and is not a regular file (%v)", p, fi.Mode().Type())
	}
	return nil
}

// WriteFile writes data to dir/name with mode perm (see the package doc).
func WriteFile(dir, name string, data []byte, perm os.FileMode) error {
	_, err := Write(dir, name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	return err
}

// Write makes dir/name from what fill writes (see the package doc) and
// returns its path.
func Write(dir, name string, perm os.FileMode, fill func(io.Writer) error) (string, error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("outfile: %q is not a file name", name)
	}
	if err := Refuse(dir, name); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := fill(f); err != nil {
		return "", err
	}
	if err := f.Chmod(perm); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	// Checked again just before the rename: a link planted while the file
	// was written is refused too (the rename itself would replace it).
	if err := Refuse(dir, name); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	if err := os.Rename(tmp, dst); err != nil {
		return "", err
	}
	ok = true
	return dst, nil
}
