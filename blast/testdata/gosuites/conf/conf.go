// Package conf is checked by a check.v1 (gocheck) suite.
package conf

import "errors"

// Remote is a remote's configuration.
type Remote struct{ Name, URL string }

// Validate says what is missing.
func (r *Remote) Validate() error {
	if r.Name == "" {
		return errors.New("remote has no name")
	}
	if r.URL == "" {
		return errors.New("remote has no URL")
	}
	return nil
}

// Normalize trims a URL's trailing slash.
func Normalize(url string) string {
	for len(url) > 0 && url[len(url)-1] == '/' {
		url = url[:len(url)-1]
	}
	return url
}
