package cliapp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// promOptions runs a command with PromClientFlags on args and returns what
// PromClientOptions made of them, with the environment env.
func promOptions(t *testing.T, env map[string]string, args ...string) (prom.ClientOptions, []string, error) {
	t.Helper()
	var opt prom.ClientOptions
	var secrets []string
	var err error
	app := &cli.App{Name: "x", Flags: PromClientFlags(), Writer: &strings.Builder{}, ErrWriter: &strings.Builder{},
		Action: func(c *cli.Context) error {
			opt, secrets, err = PromClientOptions(c, "prom pull", func(k string) string { return env[k] })
			return nil
		}}
	if rerr := app.Run(append([]string{"x"}, args...)); rerr != nil {
		t.Fatalf("%v: %v", args, rerr)
	}
	return opt, secrets, err
}

// TestPromClientOptions: credentials come from the environment or files,
// trimmed; every secret is listed for Scrub; the bad combinations are
// refused with messages naming the flags (exact strings).
func TestPromClientOptions(t *testing.T) {
	dir := t.TempDir()
	tok, empty := filepath.Join(dir, "token"), filepath.Join(dir, "empty")
	if err := os.WriteFile(tok, []byte("  s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PW": " hunter2 ", "BLANK": " "}
	opt, secrets, err := promOptions(t, env, "--url", "http://a:urlpw@prom:9090", "--token-file", tok, "--retries", "0")
	if err != nil || opt.BearerToken != "s3cret-token" || opt.Retries != -1 || opt.Timeout != prom.DefaultTimeout {
		t.Errorf("token file: %+v, %v", opt, err)
	}
	if strings.Join(secrets, ",") != "urlpw,s3cret-token," {
		t.Errorf("secrets %q", secrets)
	}
	opt, _, err = promOptions(t, env, "--url", "http://prom:9090", "--user", "alice", "--password-env", "PW")
	if err != nil || opt.Username != "alice" || opt.Password != "hunter2" {
		t.Errorf("password env: %+v, %v", opt, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--token-env", "T", "--token-file", tok}, "prom pull: give --token-env or --token-file, not both"},
		{[]string{"--token-env", "BLANK"}, "prom pull: --token-env BLANK: the variable is empty or unset"},
		{[]string{"--token-file", empty}, "prom pull: --token-file " + empty + " is empty"},
		{[]string{"--password-env", "PW"}, "prom pull: a password without --user"},
		{[]string{"--user", "alice", "--password-env", "PW", "--token-file", tok}, "prom pull: give a bearer token or basic auth, not both"},
		{[]string{"--timeout", "0s"}, "prom pull: --timeout must be positive"},
	} {
		_, _, err := promOptions(t, env, append([]string{"--url", "http://prom:9090"}, c.args...)...)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if _, _, err := promOptions(t, env, "--url", "http://prom:9090", "--token-file", filepath.Join(dir, "none")); err == nil || !strings.HasPrefix(err.Error(), "prom pull: --token-file: ") {
		t.Errorf("missing token file: %v", err)
	}
}

// TestURLPassword: the password of the user info only, not an @ in the
// path or query.
func TestURLPassword(t *testing.T) {
	for in, want := range map[string]string{
		"http://alice:pw@prom:9090":         "pw",
		"https://alice:p:w@x@prom/api":      "p:w@x",
		"http://alice@prom:9090":            "",
		"http://prom:9090/api?q=a:b@c":      "",
		"prom:9090":                         "",
		"http://prom:9090/x#frag:with@sign": "",
	} {
		if got := URLPassword(in); got != want {
			t.Errorf("URLPassword(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestScrub: every secret is masked; an error without one is returned as
// it was; empty secrets mask nothing.
func TestScrub(t *testing.T) {
	err := errors.New("GET http://alice:pw1@prom: 401 token tok2 refused")
	if got := Scrub(err, []string{"pw1", "", "tok2"}).Error(); got != "GET http://alice:xxxxx@prom: 401 token xxxxx refused" {
		t.Errorf("got %q", got)
	}
	if got := Scrub(err, []string{"other", ""}); got != err {
		t.Errorf("unchanged error replaced: %v", got)
	}
	if Scrub(nil, []string{"x"}) != nil {
		t.Error("nil error")
	}
	// A one-character password is masked in its URL, not in every word.
	short := errors.New("prom pull: query pod_cpu_cores: http://u:p@h:1: dial tcp: lookup h: no such host")
	if got, want := Scrub(short, []string{"p"}).Error(), "prom pull: query pod_cpu_cores: http://u:xxxxx@h:1: dial tcp: lookup h: no such host"; got != want {
		t.Errorf("short secret: got %q, want %q", got, want)
	}
}

// TestK6Options: --match, --start (RFC 3339), --end (Unix seconds) and
// --step reach prom.K6Options; unset times stay zero; a bad selector names
// the command and the flag.
func TestK6Options(t *testing.T) {
	run := func(args ...string) (prom.K6Options, error) {
		var opt prom.K6Options
		var err error
		app := &cli.App{Name: "x", Writer: &strings.Builder{}, ErrWriter: &strings.Builder{}, Flags: []cli.Flag{
			&cli.StringFlag{Name: "match"}, &cli.StringFlag{Name: "start"}, &cli.StringFlag{Name: "end"}, &cli.DurationFlag{Name: "step"},
		}, Action: func(c *cli.Context) error { opt, err = K6Options(c, "knee"); return nil }}
		if rerr := app.Run(append([]string{"x"}, args...)); rerr != nil {
			t.Fatal(rerr)
		}
		return opt, err
	}
	opt, err := run("--match", `{testid="run-42"}`, "--start", "2026-11-30T02:07:09Z", "--end", "1796004559", "--step", "5s")
	if err != nil || opt.Start.Unix() != 1796004429 || opt.End.Unix() != 1796004559 || opt.Step != 5e9 || opt.Selector == nil {
		t.Errorf("%+v, %v", opt, err)
	}
	if opt, err := run(); err != nil || !opt.Start.IsZero() || !opt.End.IsZero() || opt.Step != 0 {
		t.Errorf("no flags: %+v, %v", opt, err)
	}
	if _, err := run("--match", "{bad"); err == nil || !strings.HasPrefix(err.Error(), "knee: --match: ") {
		t.Errorf("bad selector: %v", err)
	}
}
