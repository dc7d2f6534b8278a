package termsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"linear_1", "linear_1"},
		{"héllo→ü", "héllo→ü"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"x\u009b31mred", `x\u009b31mred`},
		{"line\nbreak\ttab\r", `line\nbreak\ttab\r`},
		{"del\x7f", `del\x7f`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"abc\u202edcb", `abc\u202edcb`},
	}
	for _, c := range cases {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsAny(String(c.in), "\x1b\x07\x7f\u009b\r\n") {
			t.Errorf("String(%q) still holds a control character", c.in)
		}
	}
	if got := Text("a\nb\tc\x1bd"); got != "a\nb\tc\\x1bd" {
		t.Errorf("Text kept or escaped the wrong characters: %q", got)
	}
}

func TestWriterSplitsAndJSON(t *testing.T) {
	var out bytes.Buffer
	w := Writer(&out)
	msg := "é\x1b[31mü\u009bz\n"
	// Write one byte at a time: multi-byte runes arrive split.
	for i := 0; i < len(msg); i++ {
		if _, err := w.Write([]byte{msg[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := out.String(), "é\\x1b[31mü\\u009bz\n"; got != want {
		t.Fatalf("byte-wise writes: got %q, want %q", got, want)
	}

	// JSON through the writer decodes to the same value: the encoder
	// escapes C0 and the writer's \u escapes are JSON escapes.
	name := "n\x1b]0;t\x07\u009b\u202ex"
	var js bytes.Buffer
	enc := json.NewEncoder(Writer(&js))
	if err := enc.Encode(map[string]string{"name": name}); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(js.Bytes(), "\x1b\x07") || strings.Contains(js.String(), "\u009b") || strings.Contains(js.String(), "\u202e") {
		t.Fatalf("raw control character in JSON output: %q", js.String())
	}
	var back map[string]string
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("sanitised JSON does not parse: %v (%q)", err, js.String())
	}
	if back["name"] != name {
		t.Fatalf("JSON round trip: got %q, want %q", back["name"], name)
	}
}

// Whatever the input, the output is valid UTF-8 with no control character
// a terminal would act on (Text keeps only \n and \t), and safe text is
// returned unchanged.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "abc", "\x1b[2J", "\x9b", "\xc2\x9b", "é\u202e", "\xff\xfe", "a\nb\tc\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"String": String(s), "Text": Text(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q is not UTF-8", name, s, out)
			}
			for _, r := range out {
				if unsafeRune(r, name == "Text") {
					t.Fatalf("%s(%q) = %q keeps %U", name, s, out, r)
				}
			}
		}
		if !needs(s, false) && String(s) != s {
			t.Fatalf("safe %q changed", s)
		}
	})
}
