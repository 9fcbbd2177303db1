package cliapp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ldanalyze/ldanalyze/internal/readcap"
	"github.com/ldanalyze/ldanalyze/pkg/ingest"
	"github.com/ldanalyze/ldanalyze/pkg/pipeline"
	"github.com/ldanalyze/ldanalyze/pkg/prom"
)

// MaxSecretBytes caps a --token-file or --password-file, 1 MiB.
const MaxSecretBytes = 1 << 20

// PromClientFlags are the flags of every command that talks to a live
// Prometheus: where, how to authenticate (secrets from files or the
// environment, never from a flag value) and the bounds. PromClientOptions
// reads them.
func PromClientFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "url", Required: true, Usage: "Prometheus base `URL`, e.g. http://prometheus:9090 (a user:password in it is used as basic auth and never printed; prefer --user/--password-file)"},
		&cli.StringFlag{Name: "token-env", Usage: "name of the environment `VAR` holding a bearer token"},
		&cli.StringFlag{Name: "token-file", Usage: "`FILE` holding a bearer token"},
		&cli.StringFlag{Name: "user", Usage: "basic-auth `USER`"},
		&cli.StringFlag{Name: "password-file", Usage: "`FILE` holding the basic-auth password"},
		&cli.StringFlag{Name: "password-env", Usage: "name of the environment `VAR` holding the basic-auth password"},
		&cli.DurationFlag{Name: "timeout", Value: prom.DefaultTimeout, Usage: "bound on each request, the whole answer included"},
		&cli.DurationFlag{Name: "deadline", Value: 30 * time.Minute, Usage: "bound on the whole command's traffic"},
		&cli.Int64Flag{Name: "max-response-bytes", Value: prom.DefaultMaxResponseBytes, Usage: "cap on one response body, bytes"},
		&cli.IntFlag{Name: "retries", Value: prom.DefaultRetries, Usage: "retries of a 5xx or 429 answer (exponential backoff); 0 for none"},
	}
}

// PromClientOptions reads the flags of PromClientFlags for the command cmd
// (named in messages), taking environment variables from getenv
// (os.Getenv) and secret files through a MaxSecretBytes cap, both trimmed
// of surrounding white space. secrets are the credential strings (the
// token, the password, a password in the URL) to Scrub from any message.
// Errors name the flag: a token and basic auth together, a password
// without --user, both the -env and the -file form of one secret, an
// empty or unset variable, an empty or unreadable file, a timeout that is
// not positive.
func PromClientOptions(c *cli.Context, cmd string, getenv func(string) string) (opt prom.ClientOptions, secrets []string, err error) {
	opt = prom.ClientOptions{URL: c.String("url"), Timeout: c.Duration("timeout"), MaxResponseBytes: c.Int64("max-response-bytes"), Retries: c.Int("retries")}
	if opt.Retries == 0 {
		opt.Retries = -1
	}
	if opt.Timeout <= 0 {
		return opt, nil, fmt.Errorf("%s: --timeout must be positive", cmd)
	}
	if pw := URLPassword(opt.URL); pw != "" {
		secrets = append(secrets, pw)
	}
	readSecret := func(flagEnv, flagFile string) (string, error) {
		env, file := c.String(flagEnv), c.String(flagFile)
		switch {
		case env != "" && file != "":
			return "", fmt.Errorf("%s: give --%s or --%s, not both", cmd, flagEnv, flagFile)
		case env != "":
			v := strings.TrimSpace(getenv(env))
			if v == "" {
				return "", fmt.Errorf("%s: --%s %s: the variable is empty or unset", cmd, flagEnv, env)
			}
			return v, nil
		case file != "":
			b, err := readcap.ReadFile(file, MaxSecretBytes, "a secret file")
			if err != nil {
				return "", fmt.Errorf("%s: --%s: %w", cmd, flagFile, err)
			}
			v := strings.TrimSpace(string(b))
			if v == "" {
				return "", fmt.Errorf("%s: --%s %s is empty", cmd, flagFile, file)
			}
			return v, nil
		}
		return "", nil
	}
	if opt.BearerToken, err = readSecret("token-env", "token-file"); err != nil {
		return opt, nil, err
	}
	if opt.Password, err = readSecret("password-env", "password-file"); err != nil {
		return opt, nil, err
	}
	opt.Username = c.String("user")
	if opt.Password != "" && opt.Username == "" {
		return opt, nil, fmt.Errorf("%s: a password without --user", cmd)
	}
	if opt.BearerToken != "" && opt.Username != "" {
		return opt, nil, fmt.Errorf("%s: give a bearer token or basic auth, not both", cmd)
	}
	secrets = append(secrets, opt.BearerToken, opt.Password)
	return opt, secrets, nil
}

// URLPassword is the password in a URL's user info
// (scheme://user:password@host/…), "" if none.
func URLPassword(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	rest := u[i+3:]
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	if slash := strings.IndexAny(rest, "/?#"); slash >= 0 && slash < at {
		return ""
	}
	if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
		return pw
	}
	return ""
}

// Scrub is err with every non-empty secret in its message replaced by
// "xxxxx" (a secret of one or two characters only where a URL holds it,
// ":secret@"); err itself when its message holds none (nil for nil).
func Scrub(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if len(s) > 0 && len(s) < 3 {
			// A one- or two-character secret everywhere would eat the
			// message ("prom pull" with the password "p" became "xxxxxrom
			// xxxxxull"): only where a URL holds it, user:secret@.
			s = ":" + s + "@"
			if strings.Contains(msg, s) {
				msg, changed = strings.ReplaceAll(msg, s, ":xxxxx@"), true
			}
			continue
		}
		if len(s) > 0 && strings.Contains(msg, s) {
			msg, changed = strings.ReplaceAll(msg, s, "xxxxx"), true
		}
	}
	if !changed {
		return err
	}
	return errors.New(msg)
}

// ParseTime reads the value s of the time flag --flag (named in the
// error): RFC 3339 (2026-11-30T02:07:09Z, fractions allowed) or Unix
// seconds (fractions allowed, from 0 to 10^11 s), as UTC.
func ParseTime(flag, s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	// From the epoch to 10^11 s (year 5138): no k6 run is older, and an
	// earlier year (before year 1) has no RFC 3339 form; NaN and Inf are
	// not times.
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f <= 1e11 {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("--%s %q: want RFC 3339 (2026-11-30T02:07:09Z) or Unix seconds from 0 to 1e11", flag, s)
}

// K6Options reads the flags that choose a k6 run in Prometheus: --match
// (a label selector), --start and --end (ParseTime; unset: found from the
// data) and --step (0: k6's push interval found in the data). cmd names
// the command in errors.
func K6Options(c *cli.Context, cmd string) (prom.K6Options, error) {
	opt := prom.K6Options{Step: c.Duration("step")}
	var err error
	if opt.Selector, err = prom.ParseSelector(c.String("match")); err != nil {
		return opt, fmt.Errorf("%s: --match: %w", cmd, err)
	}
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{{"start", &opt.Start}, {"end", &opt.End}} {
		if c.IsSet(f.name) {
			if *f.dst, err = ParseTime(f.name, c.String(f.name)); err != nil {
				return opt, err
			}
		}
	}
	return opt, nil
}

// PullOptions reads the flags of `prom pull` into prom.PullOptions with
// the client copt: --step and --rate-window (at least 1 s), the range from
// --start and --end (ParseTime) or from the k6 run of --run (read with
// pipeline.PullRange, stdin for "-"; what was read is returned), widened
// by --pad on both sides, and the custom queries of --queries. Errors name
// the flag.
func PullOptions(c *cli.Context, copt prom.ClientOptions, stdin io.Reader) (prom.PullOptions, ingest.Stats, error) {
	opt := prom.PullOptions{Client: copt, Step: c.Duration("step"), RateWindow: c.Duration("rate-window")}
	var st ingest.Stats
	if opt.Step < time.Second || opt.RateWindow < time.Second {
		return opt, st, fmt.Errorf("prom pull: --step and --rate-window must be at least 1s")
	}
	runs := c.StringSlice("run")
	var err error
	switch {
	case len(runs) > 0 && (c.IsSet("start") || c.IsSet("end")):
		return opt, st, fmt.Errorf("prom pull: give --run or --start/--end, not both")
	case len(runs) > 0:
		if opt.Start, opt.End, st, err = pipeline.PullRange(runs, stdin, opt.Step); err != nil {
			return opt, st, fmt.Errorf("prom pull: --run %w", err)
		}
	case c.IsSet("start") && c.IsSet("end"):
		if opt.Start, err = ParseTime("start", c.String("start")); err != nil {
			return opt, st, err
		}
		if opt.End, err = ParseTime("end", c.String("end")); err != nil {
			return opt, st, err
		}
	default:
		return opt, st, fmt.Errorf("prom pull: give the range with --start and --end, or --run FILE")
	}
	pad := c.Duration("pad")
	opt.Start, opt.End = opt.Start.Add(-pad), opt.End.Add(pad)
	if !opt.End.After(opt.Start) {
		return opt, st, fmt.Errorf("prom pull: --end %s is not after --start %s", opt.End.Format(time.RFC3339), opt.Start.Format(time.RFC3339))
	}
	if f := c.String("queries"); f != "" {
		r, err := os.Open(f)
		if err != nil {
			return opt, st, err
		}
		opt.Queries, err = prom.ReadQueries(r, f)
		r.Close()
		if err != nil {
			return opt, st, err
		}
	}
	return opt, st, nil
}

// selectorLike matches an argument that reads as a PromQL selector rather
// than a file name: "{}", `{job="k6"}`, `up{instance=~"k6.*"}`.
var selectorLike = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)?\{.*\}$`)

// PromReadOpenError is err, the failure of `prom read` to open path,
// explained when no such file exists and path reads as a Prometheus
// selector: prom read takes exported files, and a selector belongs to the
// commands that query a server (prom k6 --url, --from-prom).
func PromReadOpenError(path string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) || !selectorLike.MatchString(strings.TrimSpace(path)) {
		return err
	}
	return fmt.Errorf("prom read: %q is not a file, and prom read takes no selector: give files exported from Prometheus (query_range API JSON, Grafana CSV, VictoriaMetrics JSON lines, Prometheus/OpenMetrics text); "+
		"to read a k6 run from a server, use ldanalyze prom k6 --url URL --match SELECTOR (or knee --from-prom URL --match SELECTOR), SELECTOR a PromQL label selector {label=\"value\", ...} (=, !=, =~ or !~) naming the run, e.g. '{testid=\"run-42\"}'", path)
}
