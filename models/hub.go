package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// hubURL is the download URL of path in a hub source:
// <endpoint>/<owner/name>/resolve/<revision>/<path>.
func (in *Installer) hubURL(src Source, path string) string {
	ep := in.HubEndpoint
	if ep == "" {
		ep = in.Manifest.HubEndpoint
	}
	rev := src.Revision
	if rev == "" {
		rev = "main"
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.TrimRight(ep, "/") + "/" + src.Package + "/resolve/" + url.PathEscape(rev) + "/" + strings.Join(segs, "/")
}

// downloadHub GETs rawURL into part. When part already holds n bytes it asks
// for the rest with a Range request and appends; a server that ignores the
// range (200) restarts the file from zero. The caller checks the sha256.
func (r *pullRun) downloadHub(ctx context.Context, m *Model, f File, rawURL, part string) error {
	client := r.in.HTTPClient
	if client == nil {
		client = defaultHTTPClient()
	}
	have := int64(0)
	if fi, err := os.Stat(part); err == nil {
		have = fi.Size()
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stat partial download: %w", err)
	}
	if f.Pinned() && have > f.Size {
		have = 0 // longer than the pinned file: not a prefix of it
	}
	if f.Pinned() && have == f.Size {
		return nil // complete already; the caller hashes it
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("GET: %w", err)
	}
	defer resp.Body.Close() // read-only body; a close error changes nothing written

	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, err := contentRangeStart(resp.Header.Get("Content-Range"))
		if err != nil || start != have {
			return fmt.Errorf("GET: server answered range %q to a request from byte %d", resp.Header.Get("Content-Range"), have)
		}
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		have = 0
		flags |= os.O_TRUNC
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// The server has no bytes past ours; the caller's hash check decides.
		return nil
	default:
		return fmt.Errorf("GET: %s", resp.Status)
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return fmt.Errorf("open partial download: %w", err)
	}
	total := f.Size
	if total == 0 && resp.ContentLength > 0 {
		total = have + resp.ContentLength
	}
	pw := &progressWriter{w: out, done: have, total: total, emit: func(done, total int64) {
		r.emit(Event{Model: m.ID, File: f.Name, Source: rawURL, Phase: PhaseDownload, Done: done, Total: total})
	}}
	_, copyErr := io.Copy(pw, resp.Body)
	closeErr := out.Close()
	if copyErr != nil {
		return fmt.Errorf("download interrupted after %d bytes (rerun to resume): %w", pw.done, copyErr)
	}
	if closeErr != nil {
		return fmt.Errorf("write partial download: %w", closeErr)
	}
	return nil
}

// contentRangeStart parses the first byte of "bytes START-END/TOTAL".
func contentRangeStart(h string) (int64, error) {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, fmt.Errorf("content-range %q: want bytes START-END/TOTAL", h)
	}
	start, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, fmt.Errorf("content-range %q: want bytes START-END/TOTAL", h)
	}
	return strconv.ParseInt(start, 10, 64)
}

// progressWriter counts bytes written and reports them about every MiB.
type progressWriter struct {
	w           io.Writer
	done, total int64
	last        int64
	emit        func(done, total int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.done-p.last >= 1<<20 || (p.total > 0 && p.done == p.total) {
		p.last = p.done
		p.emit(p.done, p.total)
	}
	return n, err
}
