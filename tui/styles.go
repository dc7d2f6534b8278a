package tui

import (
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
)

// styles are declared once; every view draws with them.
var styles = struct {
	title, dim, status, focusHead, head, cursor, related, mark, panel, panelTitle, ok, bad, match lipgloss.Style
}{
	title:      lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12")),
	dim:        lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
	status:     lipgloss.NewStyle().Foreground(lipgloss.Color("15")).Background(lipgloss.Color("238")),
	focusHead:  lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(lipgloss.Color("12")),
	head:       lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("15")).Background(lipgloss.Color("240")),
	cursor:     lipgloss.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("11")),
	related:    lipgloss.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("10")),
	mark:       lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("10")),
	panel:      lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("12")).Padding(0, 1),
	panelTitle: lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12")),
	ok:         lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("10")),
	bad:        lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9")),
	match:      lipgloss.NewStyle().Underline(true),
}

// Syntax colouring is done one visible line at a time and cached per
// stage document: a 10k-node graph is never highlighted as a whole.
var (
	chromaMu    sync.Mutex
	chromaStyle = chromastyles.Get("monokai")
	chromaFmt   = formatters.Get("terminal256")
)

func colorLine(d *stageDoc, i int) string {
	line := d.lines[i]
	if d.lexer == "" || strings.TrimSpace(line) == "" {
		return line
	}
	chromaMu.Lock()
	defer chromaMu.Unlock()
	if c, ok := d.colored[i]; ok {
		return c
	}
	lexer := lexers.Get(d.lexer)
	if lexer == nil {
		return line
	}
	lexer = chroma.Coalesce(lexer)
	it, err := lexer.Tokenise(nil, line)
	if err != nil {
		return line
	}
	var sb strings.Builder
	if err := chromaFmt.Format(&sb, chromaStyle, it); err != nil {
		return line
	}
	out := strings.TrimRight(sb.String(), "\n")
	if d.colored == nil {
		d.colored = map[int]string{}
	}
	d.colored[i] = out
	return out
}
