package graphtext

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gcdbg/interp"
	"gcdbg/stages"
)

// samplesDir holds real TORCH_TRACE logs (tlparse's test inputs), outside
// the module; GCDBG_SAMPLES overrides it.
func samplesDir() string {
	if d := os.Getenv("GCDBG_SAMPLES"); d != "" {
		return d
	}
	return "../../shared/samples/torch_trace"
}

// sampleGraph is one readable graph found in a log.
type sampleGraph struct {
	name  string // log:line envelope
	text  string
	sizes map[string][]int // the dynamo_output_graph envelope's sizes, by node name
}

// graphEnvelopes are the TORCH_TRACE records whose payload is a readable graph.
var graphEnvelopes = regexp.MustCompile(`^\{"(dynamo_output_graph|aot_[a-z_]*graph|inductor_(pre|post)_grad_graph)"`)

// sampleGraphs extracts the graphs of every log: a record is a glog line
// (V1206 15:18:20.253000 pid file:line] {json}) followed by its payload,
// one tab-indented line per payload line.
func sampleGraphs(t testing.TB) []sampleGraph {
	logs, _ := filepath.Glob(filepath.Join(samplesDir(), "*.log"))
	if len(logs) == 0 {
		t.Skipf("no TORCH_TRACE samples in %s", samplesDir())
	}
	sort.Strings(logs)
	var out []sampleGraph
	for _, p := range logs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var cur *sampleGraph
		var body []string
		flush := func() {
			if cur != nil && strings.Contains(strings.Join(body, "\n"), "def forward") {
				cur.text = strings.Join(body, "\n") + "\n"
				out = append(out, *cur)
			}
			cur, body = nil, nil
		}
		line := 0
		for sc.Scan() {
			line++
			s := sc.Text()
			if strings.HasPrefix(s, "\t") {
				if cur != nil {
					body = append(body, s[1:])
				}
				continue
			}
			flush()
			i := strings.Index(s, "] {")
			if i < 0 || !graphEnvelopes.MatchString(s[i+2:]) {
				continue
			}
			cur = &sampleGraph{name: fmt.Sprintf("%s:%d", filepath.Base(p), line)}
			var env struct {
				D struct {
					Sizes map[string][]int `json:"sizes"`
				} `json:"dynamo_output_graph"`
			}
			if json.Unmarshal([]byte(s[i+2:]), &env) == nil {
				cur.sizes = env.D.Sizes
			}
		}
		flush()
		f.Close()
	}
	return out
}

// withSizes adds `# gcdbg: input` directives for the inputs Dynamo printed
// without a shape (L_x_ : torch.Tensor), from the envelope's sizes (keyed
// by the lower-cased local name, l_x_). Dynamo graphs are float32 here.
var untyped = regexp.MustCompile(`(\w+) ?: torch\.Tensor`)

func withSizes(g sampleGraph) string {
	var extra strings.Builder
	for _, m := range untyped.FindAllStringSubmatch(g.text, -1) {
		if sz, ok := g.sizes[strings.ToLower(m[1])]; ok {
			dims := make([]string, len(sz))
			for i, d := range sz {
				dims[i] = fmt.Sprint(d)
			}
			fmt.Fprintf(&extra, "# gcdbg: input %s f32[%s]\n", m[1], strings.Join(dims, ", "))
		}
	}
	return extra.String() + g.text
}

var unsupportedRE = regexp.MustCompile(`unsupported function "([^"]+)"`)

// Every readable graph of the sample logs parses; those whose ops are all
// in gcdbg's canonical set normalize and run under the eager interpreter.
func TestSampleGraphs(t *testing.T) {
	graphs := sampleGraphs(t)
	if len(graphs) < 10 {
		t.Fatalf("found only %d graphs in the samples", len(graphs))
	}
	ran := 0
	missing := map[string][]string{}
	for _, sg := range graphs {
		src := withSizes(sg)
		tr, err := Parse([]byte(src), t.TempDir(), "sample.py")
		if err != nil {
			t.Errorf("%s: %v\n%s", sg.name, err, src)
			continue
		}
		units, err := stages.Run(tr, "normalized")
		if err != nil {
			why := err.Error()
			if m := unsupportedRE.FindStringSubmatch(why); m != nil {
				why = m[1]
			} else if i := strings.Index(why, "node "); i >= 0 {
				why = why[i:]
			}
			missing[why] = append(missing[why], sg.name)
			continue
		}
		ok := true
		for _, u := range units {
			if _, err := interp.Run(u.Normalized, nil); err != nil {
				t.Errorf("%s: interp: %v", sg.name, err)
				ok = false
			}
		}
		if ok {
			ran++
		}
	}
	t.Logf("%d sample graphs parsed, %d normalized and ran", len(graphs), ran)
	for op, where := range missing {
		t.Logf("not run: %s (%s)", op, strings.Join(where, ", "))
	}
	if ran < 9 {
		t.Errorf("only %d sample graphs ran, want at least 9", ran)
	}
}
