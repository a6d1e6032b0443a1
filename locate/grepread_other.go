//go:build !unix

package locate

import (
	"io"
	"os"
)

// readFileInto reads the file at abs into buf (reused, grown as needed).
func readFileInto(abs string, buf []byte, maxSize int64) ([]byte, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errNotRegular
	}
	if st.Size() > maxSize {
		return nil, errTooLarge
	}
	if int64(cap(buf)) < st.Size()+1 {
		buf = make([]byte, 0, st.Size()+st.Size()/4+1)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > maxSize {
				return nil, errTooLarge
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
