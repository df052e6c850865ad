package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Hosts decides which names a request may reach the server under: the Host
// header of every request and the Origin header when a browser sends one.
// It is the server's defence against DNS rebinding: a web page on
// evil.example whose name was rebound to 127.0.0.1 reaches a loopback
// server with "Host: evil.example", and a same-origin request from that page
// passes every cross-origin check, so only the name tells it apart.
//
// Allowed are the loopback names (localhost and *.localhost, 127.0.0.0/8,
// ::1), the host of the address the server listens on, and the names given
// explicitly (--allowed-hosts). A server listening on every interface
// (0.0.0.0, ::) also takes any IP address as Host: a rebound page always
// carries a name, never an address. A Hosts is immutable and safe for
// concurrent use.
type Hosts struct {
	names   map[string]bool // lower-case names and canonical IP strings
	anyIP   bool
	listens string
}

// NewHosts is the policy of a server listening on listen (host:port) with
// the extra names allowed (each a host name or IP, without a port; "" is
// skipped). A name with a scheme, port, path or wildcard is refused with
// how to write it.
func NewHosts(listen string, allowed []string) (*Hosts, error) {
	h := &Hosts{names: map[string]bool{}, listens: listen}
	if listen != "" {
		host, _, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("listen address %q: %w", listen, err)
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() || host == "" {
			h.anyIP = true
		} else {
			h.names[canonHost(host)] = true
		}
	}
	for _, a := range allowed {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if strings.ContainsAny(a, "/:*@ ") && net.ParseIP(a) == nil {
			return nil, fmt.Errorf("allowed host %q: give a bare host name or IP address, e.g. memory.internal or 192.168.1.5 (no scheme, port, path or wildcard)", a)
		}
		h.names[canonHost(a)] = true
	}
	return h, nil
}

// canonHost is a host name in lower case without a trailing dot, or an IP
// address in its canonical form.
func canonHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip := net.ParseIP(host); ip != nil {
		return ip.String()
	}
	return host
}

// Allow reports whether a request may name hostport (a Host header or an
// Origin's host, with or without a port).
func (h *Hosts) Allow(hostport string) bool {
	host := hostport
	if hs, _, err := net.SplitHostPort(hostport); err == nil {
		host = hs
	}
	host = canonHost(host)
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() || h.anyIP {
			return true
		}
	}
	return h.names[host]
}

// check is the reason a request must be refused, or "".
func (h *Hosts) check(r *http.Request) string {
	if !h.Allow(r.Host) {
		return fmt.Sprintf("Host %q is not a name of this server: a web page may be trying to reach it through DNS rebinding. Call it as 127.0.0.1 or localhost, or start cgraph serve with --allowed-hosts NAME for another name", r.Host)
	}
	origin := r.Header.Get("Origin")
	if origin == "" { // programs send none; every browser request that could do harm does
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || !h.Allow(u.Host) {
		return fmt.Sprintf("Origin %q is not this server: a web page may not call the API. Call it from a program, or start cgraph serve with --allowed-hosts NAME for a page you trust", origin)
	}
	return ""
}

// Guard refuses, with 403, every request whose Host or Origin is not
// allowed, before next sees it.
func (h *Hosts) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := h.check(r); why != "" {
			WriteError(w, http.StatusForbidden, "forbidden", why)
			return
		}
		next.ServeHTTP(w, r)
	})
}
