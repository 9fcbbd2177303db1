//go:build !unix

package outfile

import "io/fs"

// fileID has no portable form here: outputs are told apart by path.
func fileID(fs.FileInfo) (string, bool) { return "", false }
