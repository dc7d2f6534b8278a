package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMap is every key the explorer understands. The help overlay and the
// status line's hints are generated from it, so they cannot drift from
// what Update does.
type keyMap struct {
	Down, Up, PageDown, PageUp, Top, Bottom, Left, Right key.Binding
	Focus, PrevStage, NextStage, PrevGraph, NextGraph    key.Binding
	OtherNext, OtherPrev                                 key.Binding
	Jump, Search, Next, Prev, Goto                       key.Binding
	Explain, Tour, TourNext, TourPrev, Run, Device, View key.Binding
	Diff, PanelUp, PanelDown, Zoom, List                 key.Binding
	Help, Close, Quit                                    key.Binding
}

func b(keys []string, help, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

var keys = keyMap{
	Down:      b([]string{"j", "down"}, "j/↓", "next node (line) in the focused pane"),
	Up:        b([]string{"k", "up"}, "k/↑", "previous node (line)"),
	PageDown:  b([]string{"pgdown", "ctrl+d"}, "pgdn/ctrl+d", "page down"),
	PageUp:    b([]string{"pgup", "ctrl+u"}, "pgup/ctrl+u", "page up"),
	Top:       b([]string{"home"}, "home", "first line"),
	Bottom:    b([]string{"end"}, "end", "last line"),
	Left:      b([]string{"left", "h"}, "h/←", "scroll left"),
	Right:     b([]string{"right", "l"}, "l/→", "scroll right"),
	Focus:     b([]string{"tab", "shift+tab"}, "tab", "switch the focused pane"),
	PrevStage: b([]string{"["}, "[", "previous stage in the focused pane"),
	NextStage: b([]string{"]"}, "]", "next stage in the focused pane"),
	OtherNext: b([]string{"o"}, "o", "other pane: next line the selection lights (wraps)"),
	OtherPrev: b([]string{"O"}, "O", "other pane: previous lit line"),
	PrevGraph: b([]string{"<"}, "<", "previous captured graph (graph breaks)"),
	NextGraph: b([]string{">"}, ">", "next captured graph"),
	Jump:      b([]string{"enter"}, "enter", "show the selection's original nodes (captured) and user source"),
	Search:    b([]string{"/"}, "/", "search the focused pane (incremental)"),
	Next:      b([]string{"n"}, "n", "next search match"),
	Prev:      b([]string{"N"}, "N", "previous search match"),
	Goto:      b([]string{"g"}, "g", "go to a node by name"),
	Explain:   b([]string{"e"}, "e", "explain the focused stage"),
	Tour:      b([]string{"t"}, "t", "guided tour of the pipeline"),
	TourNext:  b([]string{"space"}, "space", "tour: next step"),
	TourPrev:  b([]string{"backspace"}, "backspace", "tour: previous step"),
	Run:       b([]string{"r"}, "r", "run: compile, run, compare outputs and grads with PyTorch (again: rerun)"),
	Device:    b([]string{"d"}, "d", "run panel: switch device (cpu, opencl, cuda, eager) and rerun"),
	Diff:      b([]string{"D"}, "D", "diff: what each stage added (+) and changed (~) vs the one before (= unchanged); again: vs the previous watch compile"),
	PanelUp:   b([]string{"{"}, "{", "scroll the box under the panes up (run, error, source)"),
	PanelDown: b([]string{"}"}, "}", "scroll the box under the panes down"),
	Zoom:      b([]string{"z"}, "z", "the focused pane alone, full width (again: both panes)"),
	List:      b([]string{"\\"}, "\\", "hide or show the stage list"),
	View:      b([]string{"v"}, "v", "toggle graph drawing / text (graph stages)"),
	Help:      b([]string{"?"}, "?", "this help"),
	Close:     b([]string{"esc"}, "esc", "close the help, source, run, explanation or tour"),
	Quit:      b([]string{"q", "ctrl+c"}, "q", "quit"),
}

// groups orders the bindings for the help overlay.
func (k keyMap) groups() [][]key.Binding {
	return [][]key.Binding{
		{k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom, k.Left, k.Right},
		{k.Focus, k.PrevStage, k.NextStage, k.OtherNext, k.OtherPrev, k.PrevGraph, k.NextGraph, k.View, k.Diff, k.Zoom, k.List},
		{k.Jump, k.Search, k.Next, k.Prev, k.Goto},
		{k.Explain, k.Tour, k.TourNext, k.TourPrev, k.Run, k.Device, k.PanelUp, k.PanelDown, k.Help, k.Close, k.Quit},
	}
}

// hints is the status line's short list: each binding's help key with a
// one-word name.
func (k keyMap) hints() string {
	short := []struct {
		b    []key.Binding
		word string
	}{
		{[]key.Binding{k.Help}, "help"}, {[]key.Binding{k.Focus}, "pane"},
		{[]key.Binding{k.PrevStage, k.NextStage}, "stage"}, {[]key.Binding{k.Down, k.Up}, "node"},
		{[]key.Binding{k.Jump}, "source"}, {[]key.Binding{k.Search}, "search"},
		{[]key.Binding{k.Run}, "run"}, {[]key.Binding{k.Tour}, "tour"}, {[]key.Binding{k.Quit}, "quit"},
	}
	var parts []string
	for _, s := range short {
		var ks []string
		for _, kb := range s.b {
			ks = append(ks, kb.Help().Key)
		}
		parts = append(parts, strings.Join(ks, " ")+" "+s.word)
	}
	return strings.Join(parts, " · ")
}
