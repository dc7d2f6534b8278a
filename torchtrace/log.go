// Package torchtrace imports PyTorch structured trace logs (TORCH_TRACE,
// the files tlparse reads) so gcdbg can take the graphs Dynamo captured
// through its own pipeline and show PyTorch's own artifacts beside it.
//
// A log is a sequence of glog lines
//
//	V1206 15:18:20.599000 1500233 torch/_dynamo/output_graph.py:1336] {"dynamo_output_graph": {...}, "frame_id": 0, ..., "has_payload": "<md5>"}
//
// each carrying one JSON envelope, optionally followed by payload lines
// that start with a tab. The payload is those lines without their tab,
// joined by "\n"; has_payload is its md5 (as tlparse checks it).
//
// A damaged line never stops the import: it is skipped and counted in
// Log.Skipped with its line number and reason, as tlparse counts
// fail_glog / fail_json / fail_payload_md5.
package torchtrace

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Skip reasons, as counted in Log.SkipCounts.
const (
	SkipNoPrefix   = "no glog prefix"          // a line that is neither an envelope nor a payload line
	SkipBadJSON    = "envelope is not JSON"    // the text after the prefix does not decode
	SkipNoKind     = "envelope names no event" // a JSON object without an event key
	SkipBadMD5     = "payload md5 mismatch"    // has_payload does not match the payload read
	SkipOrphan     = "payload line without envelope"
	SkipTooLong    = "line too long"
	SkipBadCompile = "bad compile id" // frame_id / frame_compile_id / attempt not a small non-negative integer
)

// maxLine bounds one line; longer lines are skipped (a corrupt log could
// otherwise make the reader hold a file-sized line).
const maxLine = 64 << 20

// glogPrefix matches the prefix PyTorch's structured logger writes:
// level, MMDD, time, thread id, source file:line, "] ".
var glogPrefix = regexp.MustCompile(`^([VIWEC])(\d{4}) (\d{2}:\d{2}:\d{2}\.\d+) +(\d+) ([^:\]]+):(\d+)\] `)

// Envelope is one structured event.
type Envelope struct {
	Line   int    // 1-based line number of the envelope in the log
	Source string // the logging call site, "torch/_dynamo/output_graph.py:1336"
	Time   string // "1206 15:18:20.599000" (MMDD and wall time, as glog writes it)
	// Kind is the event name: the envelope's one key that is not a compile
	// id or bookkeeping field ("dynamo_output_graph", "artifact", "str", ...).
	Kind string
	// Meta is the value under Kind (the event's own metadata) as raw JSON.
	Meta json.RawMessage
	// CompileID is nil for events outside any compilation ("str", most
	// chromium_event lines).
	CompileID *CompileID
	Rank      *int
	// Payload is the payload text (tab stripped, lines joined by "\n");
	// HasPayload says whether the envelope announced one.
	Payload    string
	HasPayload bool
	hash       string // has_payload's value
}

// CompileID identifies one compilation attempt as tlparse does.
type CompileID struct {
	CompiledAutograd *int // nil unless compiled autograd was active
	Frame            *int // nil when the envelope has no frame_id
	CompileIndex     *int // frame_compile_id
	Attempt          int
}

// String formats the id as tlparse shows it: "[0/0]", "[0/1_1]", and
// "[!0/0/0]" under compiled autograd; a missing part prints as "-".
func (c CompileID) String() string {
	var b strings.Builder
	b.WriteByte('[')
	if c.CompiledAutograd != nil {
		fmt.Fprintf(&b, "!%d/", *c.CompiledAutograd)
	}
	b.WriteString(optInt(c.Frame))
	b.WriteByte('/')
	b.WriteString(optInt(c.CompileIndex))
	if c.Attempt != 0 {
		fmt.Fprintf(&b, "_%d", c.Attempt)
	}
	b.WriteByte(']')
	return b.String()
}

func optInt(p *int) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// Skip is one line the reader could not use.
type Skip struct {
	Line   int
	Reason string
	Detail string // the decoder's message, the md5 pair, ...
}

// Log is a read structured trace log.
type Log struct {
	Lines     int // lines read, payload lines included
	Envelopes []*Envelope
	Skipped   []Skip
	// Strings is the interning table the "str" events build: stack frames
	// name their file by index into it.
	Strings map[int]string
}

// SkipCounts counts the skipped lines by reason.
func (l *Log) SkipCounts() map[string]int {
	m := map[string]int{}
	for _, s := range l.Skipped {
		m[s.Reason]++
	}
	return m
}

// SkipSummary is SkipCounts as one line ("2 payload md5 mismatch, 1 ...").
func (l *Log) SkipSummary() string {
	counts := l.SkipCounts()
	reasons := make([]string, 0, len(counts))
	for r := range counts {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", counts[r], r)
	}
	return strings.Join(parts, ", ")
}

// ReadFile reads the log at path.
func ReadFile(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := Read(f)
	if err != nil {
		return l, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// Read reads a log. Only an I/O error is returned; damaged lines are
// skipped and recorded in Log.Skipped.
func Read(r io.Reader) (*Log, error) {
	rd := &reader{br: bufio.NewReaderSize(r, 1<<16), log: &Log{Strings: map[int]string{}}}
	return rd.log, rd.run()
}

type reader struct {
	br  *bufio.Reader
	log *Log
	// cur is the envelope whose payload lines are being read; nil when the
	// previous envelope line was skipped (its payload is skipped with it).
	cur     *Envelope
	payload []string
	// inSkipped is set while the payload lines of a skipped envelope follow.
	inSkipped bool
}

func (rd *reader) skip(line int, reason, detail string) {
	rd.log.Skipped = append(rd.log.Skipped, Skip{Line: line, Reason: reason, Detail: detail})
}

func (rd *reader) run() error {
	for {
		line, tooLong, err := rd.readLine()
		if len(line) > 0 || tooLong || err == nil {
			rd.log.Lines++
			rd.handle(line, tooLong)
		}
		if err == io.EOF {
			rd.finish()
			return nil
		}
		if err != nil {
			rd.finish()
			return err
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n" (a final line
// without one included). A line over maxLine is drained and reported as tooLong.
func (rd *reader) readLine() (string, bool, error) {
	var buf []byte
	for {
		chunk, err := rd.br.ReadSlice('\n')
		if len(buf)+len(chunk) <= maxLine {
			buf = append(buf, chunk...)
		} else {
			buf = buf[:0:0]
			for err == bufio.ErrBufferFull {
				_, err = rd.br.ReadSlice('\n')
			}
			return "", true, err
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		// A log whose line endings became CRLF (an editor, git's autocrlf,
		// a Windows copy) reads like the LF original: tlparse hashes the
		// payload's lines joined by "\n", without the "\r".
		s := strings.TrimSuffix(string(buf), "\n")
		s = strings.TrimSuffix(s, "\r")
		return s, false, err
	}
}

func (rd *reader) handle(line string, tooLong bool) {
	n := rd.log.Lines
	if tooLong {
		rd.finish()
		rd.skip(n, SkipTooLong, fmt.Sprintf("over %d bytes", maxLine))
		rd.inSkipped = true
		return
	}
	if strings.HasPrefix(line, "\t") {
		switch {
		case rd.cur != nil:
			rd.payload = append(rd.payload, line[1:])
		case !rd.inSkipped:
			rd.skip(n, SkipOrphan, "")
			rd.inSkipped = true // count a run of orphan lines once
		}
		return
	}
	rd.finish()
	rd.inSkipped = false
	if line == "" {
		return // a blank line between events carries nothing
	}
	e, reason, detail := parseEnvelope(line)
	if e == nil {
		rd.skip(n, reason, detail)
		rd.inSkipped = true
		return
	}
	e.Line = n
	rd.cur = e
}

// finish closes the current envelope: checks its payload and keeps it.
func (rd *reader) finish() {
	e := rd.cur
	if e == nil {
		return
	}
	rd.cur = nil
	e.Payload = strings.Join(rd.payload, "\n")
	rd.payload = rd.payload[:0]
	if e.HasPayload {
		if want, ok := e.md5(); ok {
			sum := md5.Sum([]byte(e.Payload))
			if got := hex.EncodeToString(sum[:]); got != want {
				rd.skip(e.Line, SkipBadMD5, fmt.Sprintf("%s: has_payload %s, payload hashes to %s", e.Kind, want, got))
				return
			}
		}
	}
	if e.Kind == "str" {
		rd.intern(e)
	}
	rd.log.Envelopes = append(rd.log.Envelopes, e)
}

// intern records a "str" event: ["/path/file.py", index].
func (rd *reader) intern(e *Envelope) {
	var pair []json.RawMessage
	if json.Unmarshal(e.Meta, &pair) != nil || len(pair) != 2 {
		return
	}
	var s string
	var i int
	if json.Unmarshal(pair[0], &s) == nil && json.Unmarshal(pair[1], &i) == nil {
		rd.log.Strings[i] = s
	}
}

// bookkeeping are the envelope keys that are not the event itself.
var bookkeeping = map[string]bool{
	"frame_id": true, "frame_compile_id": true, "attempt": true, "compiled_autograd_id": true,
	"has_payload": true, "rank": true,
}

// parseEnvelope decodes one envelope line, or says why it cannot.
func parseEnvelope(line string) (*Envelope, string, string) {
	m := glogPrefix.FindStringSubmatchIndex(line)
	if m == nil {
		return nil, SkipNoPrefix, clip(line)
	}
	e := &Envelope{
		Time:   line[m[4]:m[5]] + " " + line[m[6]:m[7]],
		Source: line[m[10]:m[11]] + ":" + line[m[12]:m[13]],
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line[m[1]:]), &fields); err != nil {
		return nil, SkipBadJSON, err.Error()
	}
	var kinds []string
	for k := range fields {
		if !bookkeeping[k] {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return nil, SkipNoKind, clip(line[m[1]:])
	}
	// An envelope has one event key; should a newer PyTorch add more,
	// the first in name order is the event, so the choice is stable.
	sort.Strings(kinds)
	e.Kind = kinds[0]
	e.Meta = fields[e.Kind]
	id, err := compileID(fields)
	if err != nil {
		return nil, SkipBadCompile, err.Error()
	}
	e.CompileID = id
	if raw, ok := fields["rank"]; ok {
		if r, err := smallInt(raw); err == nil && r != nil {
			e.Rank = r
		}
	}
	if raw, ok := fields["has_payload"]; ok {
		e.HasPayload = true
		var h string
		if json.Unmarshal(raw, &h) == nil {
			e.hash = h
		}
	}
	return e, "", ""
}

// compileID reads the id fields; nil when the envelope has none.
func compileID(fields map[string]json.RawMessage) (*CompileID, error) {
	var id CompileID
	found := false
	for _, f := range []struct {
		key string
		dst **int
	}{{"compiled_autograd_id", &id.CompiledAutograd}, {"frame_id", &id.Frame}, {"frame_compile_id", &id.CompileIndex}} {
		raw, ok := fields[f.key]
		if !ok {
			continue
		}
		v, err := smallInt(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.key, err)
		}
		*f.dst = v
		found = found || (v != nil && f.key != "compiled_autograd_id")
	}
	if raw, ok := fields["attempt"]; ok {
		v, err := smallInt(raw)
		if err != nil {
			return nil, fmt.Errorf("attempt: %v", err)
		}
		if v != nil {
			id.Attempt = *v
		}
	}
	if !found && id.CompiledAutograd == nil {
		return nil, nil
	}
	return &id, nil
}

// smallInt decodes a JSON null (nil) or a non-negative integer below 2^31.
func smallInt(raw json.RawMessage) (*int, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("%s is not a number", clip(string(raw)))
	}
	v, err := n.Int64()
	if err != nil || v < 0 || v >= 1<<31 {
		return nil, errors.New(string(raw) + " is not a small non-negative integer")
	}
	i := int(v)
	return &i, nil
}

// md5 is the expected payload hash, when the envelope gave a valid one
// (tlparse too checks only a hash it can decode).
func (e *Envelope) md5() (string, bool) {
	if len(e.hash) != 32 {
		return "", false
	}
	if _, err := hex.DecodeString(e.hash); err != nil {
		return "", false
	}
	return strings.ToLower(e.hash), true
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
