package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ldanalyze/ldanalyze/pkg/prom"
	"github.com/urfave/cli/v2"
)

// promClientFlags are the flags of every command that talks to a live
// Prometheus: where, how to authenticate (secrets from files or the
// environment, never from a flag value) and the bounds.
func promClientFlags() []cli.Flag {
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

// promClientOptions reads the client flags. secrets are the credential
// strings to scrub from any message.
func promClientOptions(c *cli.Context, cmd string) (opt prom.ClientOptions, secrets []string, err error) {
	opt = prom.ClientOptions{URL: c.String("url"), Timeout: c.Duration("timeout"), MaxResponseBytes: c.Int64("max-response-bytes"), Retries: c.Int("retries")}
	if opt.Retries == 0 {
		opt.Retries = -1
	}
	if opt.Timeout <= 0 {
		return opt, nil, usageError{fmt.Errorf("%s: --timeout must be positive", cmd)}
	}
	if pw := urlPassword(opt.URL); pw != "" {
		secrets = append(secrets, pw)
	}
	readSecret := func(flagEnv, flagFile, what string) (string, error) {
		env, file := c.String(flagEnv), c.String(flagFile)
		switch {
		case env != "" && file != "":
			return "", usageError{fmt.Errorf("%s: give --%s or --%s, not both", cmd, flagEnv, flagFile)}
		case env != "":
			v := strings.TrimSpace(os.Getenv(env))
			if v == "" {
				return "", usageError{fmt.Errorf("%s: --%s %s: the variable is empty or unset", cmd, flagEnv, env)}
			}
			return v, nil
		case file != "":
			b, err := os.ReadFile(file)
			if err != nil {
				return "", usageError{fmt.Errorf("%s: --%s: %w", cmd, flagFile, err)}
			}
			v := strings.TrimSpace(string(b))
			if v == "" {
				return "", usageError{fmt.Errorf("%s: --%s %s is empty", cmd, flagFile, file)}
			}
			return v, nil
		}
		return "", nil
	}
	if opt.BearerToken, err = readSecret("token-env", "token-file", "token"); err != nil {
		return opt, nil, err
	}
	if opt.Password, err = readSecret("password-env", "password-file", "password"); err != nil {
		return opt, nil, err
	}
	opt.Username = c.String("user")
	if opt.Password != "" && opt.Username == "" {
		return opt, nil, usageError{fmt.Errorf("%s: a password without --user", cmd)}
	}
	if opt.BearerToken != "" && opt.Username != "" {
		return opt, nil, usageError{fmt.Errorf("%s: give a bearer token or basic auth, not both", cmd)}
	}
	secrets = append(secrets, opt.BearerToken, opt.Password)
	return opt, secrets, nil
}

// urlPassword is the password in a URL's user info, "" if none.
func urlPassword(u string) string {
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

// scrubbed is err with every secret replaced by "xxxxx", keeping a usage
// error a usage error.
func scrubbed(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if len(s) > 0 && strings.Contains(msg, s) {
			msg, changed = strings.ReplaceAll(msg, s, "xxxxx"), true
		}
	}
	if !changed {
		return err
	}
	var ue usageError
	if errors.As(err, &ue) {
		return usageError{errors.New(msg)}
	}
	return errors.New(msg)
}
