package store

import "net/url"

// Redact is spec as messages may show it: a URL's password replaced by
// "xxxxx"; anything that is not a URL with a user is returned as is.
func Redact(spec string) string {
	u, err := url.Parse(spec)
	if err != nil || u.User == nil {
		return spec
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
