package tui

import (
	"errors"

	"github.com/charmbracelet/x/term"
)

// CheckTerminal says in words why the explorer cannot draw on out or read
// keys from in, before Bubble Tea fails with a system call's error: the
// explorer is a full-screen view and needs a terminal on both.
func CheckTerminal(in, out any) error {
	isTerm := func(f any) bool {
		fd, ok := f.(interface{ Fd() uintptr })
		return ok && term.IsTerminal(fd.Fd())
	}
	switch {
	case !isTerm(out):
		return errors.New("stdout is not a terminal: the explorer draws a full-screen view. Run it in a terminal (or tmux), or use gcdbg dump, report or run for text output")
	case !isTerm(in):
		return errors.New("stdin is not a terminal: the explorer reads keys. Run it in a terminal (or tmux)")
	}
	return nil
}
