package queueing

import "fmt"

// errorf prefixes an error message with the package name.
func errorf(format string, args ...any) error {
	return fmt.Errorf("queueing: "+format, args...)
}
