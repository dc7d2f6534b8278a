package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The build cache: one directory per content hash, under a root that only
// the current user can write (a shared /tmp path would let another user
// plant a library we then load).

// contentHash is sha256 of the source, the compiler's path and version,
// and every flag: a different compiler or flag is a different entry.
func contentHash(code string, t *toolchain, flags, libs []string) string {
	h := sha256.New()
	for _, part := range []string{"gcdbg.compiled/1", code, t.path, t.version, strings.Join(flags, " "), strings.Join(libs, " ")} {
		fmt.Fprintf(h, "%d:%s\x00", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CacheRoot is the cache directory Build uses for dir ("" = the default:
// $GCDBG_CACHE_DIR, else os.UserCacheDir()/gcdbg), created 0700 and checked.
func CacheRoot(dir string) (string, error) { return cacheRoot(dir) }

func cacheRoot(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv("GCDBG_CACHE_DIR")
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("compiler: no cache directory (set GCDBG_CACHE_DIR): %w", err)
		}
		dir = filepath.Join(base, "gcdbg")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("compiler: cache directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("compiler: cache directory %s: %w", dir, err)
	}
	if err := checkPrivate(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// checkPrivate refuses a cache root that another user owns or that group
// or others may write: its libraries are loaded into this process.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("compiler: cache directory %s: %w", dir, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if fi, err = os.Stat(dir); err != nil {
			return fmt.Errorf("compiler: cache directory %s: %w", dir, err)
		}
	}
	if !fi.IsDir() {
		return fmt.Errorf("compiler: cache directory %s is not a directory", dir)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("compiler: refusing cache directory %s: it is writable by group or others (mode %v); chmod 700 it or set GCDBG_CACHE_DIR", dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("compiler: refusing cache directory %s: owned by uid %d, not the current user (uid %d); set GCDBG_CACHE_DIR", dir, st.Uid, os.Getuid())
	}
	return nil
}
