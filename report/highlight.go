package report

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// The report tokenises each stage's text with chroma and writes the HTML
// itself rather than using chroma's formatter, because names of nodes must
// become clickable spans in the middle of the highlighted code. Colours
// come from chroma's stylesheet for the same token classes.

const chromaStyle = "github"

// chromaCSS is the stylesheet for the token classes used by code().
var chromaCSS = sync.OnceValue(func() string {
	var b strings.Builder
	f := chromahtml.New(chromahtml.WithClasses(true))
	if err := f.WriteCSS(&b, styles.Get(chromaStyle)); err != nil {
		return ""
	}
	return b.String()
})

// styled are the token classes the stylesheet colours. Tokens of other
// classes (punctuation, plain names) are written bare: a third of a big
// page's bytes were spans that changed nothing.
var styled = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, sm := range regexp.MustCompile(`\.chroma \.([a-z0-9]+) \{`).FindAllStringSubmatch(chromaCSS(), -1) {
		m[sm[1]] = true
	}
	// Punctuation and plain names are drawn in the text colour anyway.
	delete(m, "p")
	delete(m, "n")
	return m
})

// tokenClass is chroma's class for a token type (its own or its nearest
// parent's), as chroma's HTML formatter names it.
func tokenClass(t chroma.TokenType) string {
	for t != 0 {
		if cls, ok := chroma.StandardTypes[t]; ok {
			return cls
		}
		t = t.Parent()
	}
	return chroma.StandardTypes[t]
}

// linker resolves the names in a stage's text to provenance ids.
type linker interface {
	// comment sees every comment: "## backward graph" switches program.
	comment(text string)
	// name returns the id of a name token, if it names a node.
	name(tok string) (int, bool)
}

// code writes text highlighted in language lang ("python", "c", or "log":
// prose such as the fusion log, lexed as Python for its names and numbers
// but with its English words, "with" and "not", left uncoloured) as a
// <pre>, with every name lk resolves wrapped in a span carrying data-node.
func code(text, lang string, lk linker) string {
	prose := lang == "log"
	if prose {
		lang = "python"
	}
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	var b strings.Builder
	b.WriteString(`<pre class="chroma">`)
	writeTokens(&b, chroma.Coalesce(lexer), text, lk, prose)
	b.WriteString("</pre>")
	return b.String()
}

// writeTokens highlights text into b.
func writeTokens(b *strings.Builder, lexer chroma.Lexer, text string, lk linker, prose bool) {
	it, err := lexer.Tokenise(nil, text)
	if err != nil {
		// Unhighlighted but still escaped: the text is never lost.
		b.WriteString(html.EscapeString(text))
		return
	}
	prev, prev2 := "", "" // the last two tokens that are not blank
	for _, tok := range it.Tokens() {
		val := html.EscapeString(tok.Value)
		cls := tokenClass(tok.Type)
		if prose && (tok.Type.InCategory(chroma.Keyword) || tok.Type == chroma.OperatorWord || tok.Type.InCategory(chroma.NameBuiltin)) {
			cls = ""
		}
		if tok.Type.InCategory(chroma.Comment) {
			// torch.fx's graph form writes "%x : f32[8] [#users=2] = ...":
			// to Python the rest of the line is a comment, but it is
			// code, with node names to link.
			if rest, ok := strings.CutPrefix(tok.Value, "#users="); ok {
				if i := strings.IndexByte(rest, ']'); i >= 0 {
					b.WriteString(html.EscapeString("#users=" + rest[:i+1]))
					writeTokens(b, lexer, rest[i+1:], lk, prose)
					prev, prev2 = "]", ""
					continue
				}
			}
			if lk != nil {
				lk.comment(tok.Value)
			}
		}
		// A name right after "." is an attribute or op (aten.view), and
		// after "target=" a module's or op's name: neither is the node
		// that happens to share its name.
		if tok.Type.InCategory(chroma.Name) && lk != nil && prev != "." && (prev != "=" || prev2 != "target") {
			if id, ok := lk.name(tok.Value); ok {
				gn := "gn"
				if styled()[cls] {
					gn += " " + cls
				}
				fmt.Fprintf(b, `<span class="%s" data-node="%d">%s</span>`, gn, id, val)
				prev, prev2 = tok.Value, prev
				continue
			}
		}
		if styled()[cls] {
			fmt.Fprintf(b, `<span class="%s">%s</span>`, cls, val)
		} else {
			b.WriteString(val)
		}
		if v := strings.TrimSpace(tok.Value); v != "" {
			prev, prev2 = v, prev
		}
	}
}

// graphLinker links the node names of one graph stage.
type graphLinker struct {
	p     *provenance
	unit  int
	stage string
}

func (l graphLinker) comment(string) {}

func (l graphLinker) name(tok string) (int, bool) {
	return l.p.lookup(l.unit, l.stage, tok)
}

// loopLinker links buffers, loop nodes, fused groups and kernels of the
// loop stages; printPrograms heads each program with "## ROLE graph" when
// there are several.
type loopLinker struct {
	p     *provenance
	unit  int
	graph string
	role  string
}

func (l *loopLinker) comment(text string) {
	if rest, ok := strings.CutPrefix(strings.TrimSpace(text), "## "); ok {
		if role, ok := strings.CutSuffix(rest, " graph"); ok {
			l.role = role
		}
	}
}

func (l *loopLinker) name(tok string) (int, bool) {
	if l.role == "" {
		return 0, false
	}
	return l.p.group(l.unit, loopScope(l.role), tok, l.graph)
}
