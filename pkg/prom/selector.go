package prom

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Matcher is one label matcher of a PromQL selector: Name Op "Value",
// Op one of =, !=, =~, !~ (regular expressions are anchored, as in
// PromQL: model/labels/regexp.go).
type Matcher struct {
	Name, Op, Value string
	re              *regexp.Regexp
}

// Selector is a list of label matchers, `{a="1", b=~"x|y"}`.
type Selector []Matcher

// ParseSelector reads a PromQL label selector such as
// `{testid="run-42", instance=~"k6-.*"}` (the braces may be left out; an
// empty string is the empty selector). Values are double-quoted Go-style
// strings.
func ParseSelector(s string) (Selector, error) {
	in := strings.TrimSpace(s)
	if strings.HasPrefix(in, "{") {
		if !strings.HasSuffix(in, "}") {
			return nil, fmt.Errorf("selector %q: want {name=\"value\", ...}", s)
		}
		in = in[1 : len(in)-1]
	}
	var out Selector
	for {
		in = strings.TrimLeft(in, " \t,")
		if in == "" {
			return out, nil
		}
		i := 0
		for i < len(in) && (in[i] == '_' || in[i] >= 'a' && in[i] <= 'z' || in[i] >= 'A' && in[i] <= 'Z' || i > 0 && in[i] >= '0' && in[i] <= '9') {
			i++
		}
		if i == 0 {
			return nil, fmt.Errorf("selector %q: want a label name at %q", s, in)
		}
		m := Matcher{Name: in[:i]}
		in = strings.TrimLeft(in[i:], " \t")
		for _, op := range []string{"=~", "!~", "!=", "="} {
			if strings.HasPrefix(in, op) {
				m.Op = op
				break
			}
		}
		if m.Op == "" {
			return nil, fmt.Errorf("selector %q: after %s want =, !=, =~ or !~", s, m.Name)
		}
		in = strings.TrimLeft(in[len(m.Op):], " \t")
		q, err := strconv.QuotedPrefix(in)
		if err != nil || !strings.HasPrefix(q, `"`) {
			return nil, fmt.Errorf("selector %q: the value of %s must be a double-quoted string", s, m.Name)
		}
		m.Value, _ = strconv.Unquote(q)
		in = in[len(q):]
		if m.Op == "=~" || m.Op == "!~" {
			if m.re, err = regexp.Compile("^(?:" + m.Value + ")$"); err != nil {
				return nil, fmt.Errorf("selector %q: %s: %w", s, m.Name, err)
			}
		}
		out = append(out, m)
	}
}

// With is s plus the matchers name="value" (in name order), a new
// selector.
func (s Selector) With(eq map[string]string) Selector {
	out := append(Selector(nil), s...)
	names := make([]string, 0, len(eq))
	for k := range eq {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out = append(out, Matcher{Name: k, Op: "=", Value: eq[k]})
	}
	return out
}

// Matches reports whether the label set satisfies every matcher (a
// missing label is the empty string, as in PromQL).
func (s Selector) Matches(ls map[string]string) bool {
	for _, m := range s {
		v := ls[m.Name]
		var ok bool
		switch m.Op {
		case "=":
			ok = v == m.Value
		case "!=":
			ok = v != m.Value
		case "=~":
			ok = m.re.MatchString(v)
		case "!~":
			ok = !m.re.MatchString(v)
		}
		if !ok {
			return false
		}
	}
	return true
}

// PromQL is the selector of metric name with s, `name{a="1",b=~"x"}`.
func (s Selector) PromQL(name string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	for i, m := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m.Name)
		b.WriteString(m.Op)
		b.WriteString(strconv.Quote(m.Value))
	}
	b.WriteByte('}')
	return b.String()
}
