//go:build unix

package outfile

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileID is the device and inode of fi, the identity os.SameFile uses.
func fileID(fi fs.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("inode:%d:%d", st.Dev, st.Ino), true
}
