package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"gcdbg/trace"
)

// loaded returns a model of fixtures/NAME with the pipeline run, sized
// w×h, without a running program (Update is called directly).
func loaded(t testing.TB, name string, w, h int) Model {
	t.Helper()
	tr, err := trace.Load("../fixtures/" + name)
	if err != nil {
		t.Fatal(err)
	}
	m := New(tr, Options{Runs: 1})
	m = send(m, tea.WindowSizeMsg{Width: w, Height: h})
	msg := load(tr)
	if msg.err != nil {
		t.Fatalf("pipeline: %v", msg.err)
	}
	return send(m, msg)
}

func send(m Model, msg tea.Msg) Model {
	nm, _ := m.Update(msg)
	return nm.(Model)
}

// press sends keys: single characters, or names like "tab", "enter".
func press(m Model, keys ...string) Model {
	for _, k := range keys {
		m = send(m, keyMsg(k))
	}
	return m
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is the rendered view without colours.
func screen(m Model) string { return xansi.Strip(m.View().Content) }
