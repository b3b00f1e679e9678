package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// fileMode is the mode of the database file and its -wal and -shm files:
// they hold sealed keys, prompts and tool output, so only Keygate's user
// may read them, as only it may enter the data directory.
const fileMode = 0o600

// restrictFile creates the database file with fileMode before SQLite opens
// it (SQLite would create it 0644, less the umask) and narrows a file made
// by an older Keygate, with its -wal and -shm files, to fileMode. SQLite
// creates the -wal and -shm files with the database file's permissions, so
// new ones follow.
func restrictFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return fmt.Errorf("create database file: %w", err)
	}
	err = f.Chmod(fileMode)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("restrict database file: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Chmod(path+suffix, fileMode); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restrict database file: %w", err)
		}
	}
	return nil
}
