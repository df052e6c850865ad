package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// This file fetches an MTEB retrieval task from the Hugging Face hub into a
// local directory that Load reads (the hub's own layout, file for file).
// It asks the hub's dataset API for the file list of one pinned revision
// (GET <hub>/api/datasets/<repo>/revision/<rev>?blobs=true), downloads the
// data files of the corpus, queries and qrels configs from
// <hub>/datasets/<repo>/resolve/<sha>/<path>, checks each against the
// sha256 the hub lists for it, and writes prepare.json saying what was
// fetched. It never reads anything but those files.

// DefaultHubEndpoint is the Hugging Face hub; CGRAPH_HF_ENDPOINT or
// HF_ENDPOINT replace it (a mirror, or a test server).
const DefaultHubEndpoint = "https://huggingface.co"

// HubEndpoint returns the hub to fetch from: flag, else $CGRAPH_HF_ENDPOINT,
// else $HF_ENDPOINT, else DefaultHubEndpoint.
func HubEndpoint(flag string) string {
	for _, v := range []string{flag, os.Getenv("CGRAPH_HF_ENDPOINT"), os.Getenv("HF_ENDPOINT")} {
		if v != "" {
			return strings.TrimRight(v, "/")
		}
	}
	return DefaultHubEndpoint
}

// MTEBTask is a retrieval task of MTEB: its dataset repository on the hub
// and the revision MTEB pins.
type MTEBTask struct {
	Name     string `json:"name"`
	Repo     string `json:"repo"`
	Revision string `json:"revision"`
}

// MTEBCodeTasks are MTEB's single-config code-retrieval tasks (CoIR), with
// the dataset revisions MTEB's task definitions pin.
var MTEBCodeTasks = []MTEBTask{
	{"AppsRetrieval", "CoIR-Retrieval/apps", "f22508f96b7a36c2415181ed8bb76f76e04ae2d5"},
	{"CosQA", "CoIR-Retrieval/cosqa", "bc5efb7e9d437246ce393ed19d772e08e4a79535"},
	{"StackOverflowQA", "CoIR-Retrieval/stackoverflow-qa", "db8f169f3894c14a00251061f957b2063eef2bd5"},
	{"CodeFeedbackST", "CoIR-Retrieval/codefeedback-st", "d213819e87aab9010628da8b73ab4eb337c89340"},
	{"SyntheticText2SQL", "CoIR-Retrieval/synthetic-text2sql", "686b87296c3a0191b5d9415a00526c62db9fce09"},
	{"CodeTransOceanContest", "CoIR-Retrieval/codetrans-contest", "20da4eb20a4b17300c0986ee148c90867a7f2a4d"},
}

// ResolveMTEBTask accepts a task name of MTEBCodeTasks (case-insensitive)
// or a hub dataset repository "owner/name", optionally "@revision" (default
// "main").
func ResolveMTEBTask(spec string) (MTEBTask, error) {
	for _, t := range MTEBCodeTasks {
		if strings.EqualFold(t.Name, spec) {
			return t, nil
		}
	}
	repo, rev, _ := strings.Cut(spec, "@")
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") || strings.ContainsAny(repo, " \t?#") {
		names := make([]string, len(MTEBCodeTasks))
		for i, t := range MTEBCodeTasks {
			names[i] = t.Name
		}
		return MTEBTask{}, fmt.Errorf("unknown MTEB task %q: give one of %s, or a hub dataset repository owner/name[@revision]", spec, strings.Join(names, ", "))
	}
	if rev == "" {
		rev = "main"
	}
	return MTEBTask{Name: name, Repo: repo, Revision: rev}, nil
}

// HubUnreachableError is returned when the hub cannot be reached at all (no
// connection, DNS failure, timeout), as opposed to an answer that refuses.
type HubUnreachableError struct {
	Endpoint string
	Task     MTEBTask
	Err      error
}

func (e *HubUnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the Hugging Face hub at %s (%v): bench prepare mteb:%s downloads %s from it; "+
		"set CGRAPH_HF_ENDPOINT (or --hub) to a reachable mirror, or download the dataset where the hub is reachable "+
		"(git clone %s/datasets/%s) and give its directory to bench run --data",
		e.Endpoint, e.Err, e.Task.Name, e.Task.Repo, DefaultHubEndpoint, e.Task.Repo)
}

func (e *HubUnreachableError) Unwrap() error { return e.Err }

// FetchOptions configures FetchMTEB.
type FetchOptions struct {
	Task     MTEBTask
	Out      string // directory to write into (created)
	Endpoint string // hub base URL; see HubEndpoint
	Client   *http.Client
	// Progress, if set, is called after each file with its hub path.
	Progress func(path string, done, total int)
}

// FetchedFile is one downloaded file.
type FetchedFile struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// FetchResult says what FetchMTEB wrote; it is also prepare.json.
type FetchResult struct {
	Source    string        `json:"source"` // hub URL of the dataset
	Task      MTEBTask      `json:"task"`
	Commit    string        `json:"commit"` // the revision's commit sha
	Files     []FetchedFile `json:"files"`
	FetchedAt time.Time     `json:"fetched_at"`
}

// hubSibling is one file of a hub dataset listing.
type hubSibling struct {
	Path string `json:"rfilename"`
	Size int64  `json:"size"`
	LFS  *struct {
		SHA256 string `json:"sha256"`
		Size   int64  `json:"size"`
	} `json:"lfs"`
}

// hubDatasetInfo is the part of the hub's dataset API answer FetchMTEB uses.
type hubDatasetInfo struct {
	SHA      string       `json:"sha"`
	Siblings []hubSibling `json:"siblings"`
}

// FetchMTEB downloads the corpus, queries and qrels files of o.Task's pinned
// revision into o.Out. An unreachable hub is a *HubUnreachableError.
func FetchMTEB(ctx context.Context, o FetchOptions) (*FetchResult, error) {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 30 * time.Minute}
	}
	ep := HubEndpoint(o.Endpoint)
	info, err := hubInfo(ctx, o.Client, ep, o.Task)
	if err != nil {
		return nil, err
	}
	files, err := mtebFiles(info.Siblings, o.Task)
	if err != nil {
		return nil, err
	}
	res := &FetchResult{Source: ep + "/datasets/" + o.Task.Repo, Task: o.Task, Commit: info.SHA, FetchedAt: time.Now().UTC()}
	for i, f := range files {
		ff, err := hubDownload(ctx, o.Client, ep, o.Task, info.SHA, f, o.Out)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, ff)
		if o.Progress != nil {
			o.Progress(f.Path, i+1, len(files))
		}
	}
	if err := writeFile(filepath.Join(o.Out, "prepare.json"), func(w io.Writer) error { return writeJSON(w, res) }); err != nil {
		return nil, err
	}
	return res, nil
}

// hubGet GETs a hub URL, telling an unreachable hub from a refusing one.
func hubGet(ctx context.Context, c *http.Client, ep string, task MTEBTask, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("hub request %s: %w", u, err)
	}
	resp, err := c.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("GET %s: %w", u, ctx.Err())
		}
		// Do fails only below HTTP (connection, DNS, TLS, timeout): the
		// hub was not reached.
		return nil, &HubUnreachableError{Endpoint: ep, Task: task, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close() // the status is the error
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return nil, fmt.Errorf("GET %s: %s: the dataset %s is gated or private; accept its terms on the hub and set a token, or download it yourself", u, resp.Status, task.Repo)
		case http.StatusNotFound:
			return nil, fmt.Errorf("GET %s: %s: no dataset %s at revision %s on %s", u, resp.Status, task.Repo, task.Revision, ep)
		}
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return resp, nil
}

// hubInfo asks the hub's dataset API for the file list of one revision.
func hubInfo(ctx context.Context, c *http.Client, ep string, task MTEBTask) (_ *hubDatasetInfo, err error) {
	u := fmt.Sprintf("%s/api/datasets/%s/revision/%s?blobs=true", ep, task.Repo, url.PathEscape(task.Revision))
	resp, err := hubGet(ctx, c, ep, task, u)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := resp.Body.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("GET %s: %w", u, cerr)
		}
	}()
	var info hubDatasetInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("GET %s: not a dataset listing: %w", u, err)
	}
	if info.SHA == "" || len(info.Siblings) == 0 {
		return nil, fmt.Errorf("GET %s: the listing names no commit or no file", u)
	}
	return &info, nil
}

// mtebFiles picks the data files Load reads: those of the MTEB layout's
// config directories, or of the BEIR layout, plus README.md (the configs).
func mtebFiles(siblings []hubSibling, task MTEBTask) ([]hubSibling, error) {
	var out []hubSibling
	have := map[string]bool{}
	for _, s := range siblings {
		dir, _, nested := strings.Cut(s.Path, "/")
		beir := s.Path == "corpus.jsonl" || s.Path == "corpus.jsonl.gz" || s.Path == "queries.jsonl" || s.Path == "queries.jsonl.gz"
		mteb := nested && dataExt(s.Path) != "" && (dir == "corpus" || dir == "queries" || dir == "data" || dir == "default" || dir == "qrels")
		if beir || mteb || s.Path == "README.md" {
			out = append(out, s)
			have[dir] = true
		}
	}
	if !have["corpus"] && !have["corpus.jsonl"] && !have["corpus.jsonl.gz"] {
		var names []string
		for _, s := range siblings {
			names = append(names, s.Path)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("dataset %s@%s is not in the MTEB retrieval layout (corpus/, queries/, data/) nor in BEIR's: it holds %s",
			task.Repo, task.Revision, strings.Join(names[:min(len(names), 20)], ", "))
	}
	return out, nil
}

// hubDownload fetches one file into out (through a temporary file and a
// rename) and checks its size and, for LFS files, its sha256.
func hubDownload(ctx context.Context, c *http.Client, ep string, task MTEBTask, sha string, f hubSibling, out string) (FetchedFile, error) {
	clean := path.Clean(f.Path)
	if clean != f.Path || path.IsAbs(clean) || strings.HasPrefix(clean, "../") || clean == ".." {
		return FetchedFile{}, fmt.Errorf("hub listing names an unsafe path %q", f.Path)
	}
	segs := strings.Split(clean, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("%s/datasets/%s/resolve/%s/%s", ep, task.Repo, sha, strings.Join(segs, "/"))
	dst := filepath.Join(out, filepath.FromSlash(clean))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return FetchedFile{}, fmt.Errorf("create %s: %w", filepath.Dir(dst), err)
	}
	h := sha256.New()
	var n int64
	err := writeFile(dst, func(w io.Writer) error {
		resp, err := hubGet(ctx, c, ep, task, u)
		if err != nil {
			return err
		}
		n, err = io.Copy(io.MultiWriter(w, h), resp.Body)
		if cerr := resp.Body.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("download %s: %w", u, err)
		}
		return checkDownload(f, n, hex.EncodeToString(h.Sum(nil)))
	})
	if err != nil {
		return FetchedFile{}, err
	}
	return FetchedFile{Path: clean, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// checkDownload compares a downloaded file with what the listing said.
func checkDownload(f hubSibling, n int64, sum string) error {
	want := f.Size
	if f.LFS != nil && f.LFS.Size > 0 {
		want = f.LFS.Size
	}
	if want > 0 && n != want {
		return fmt.Errorf("%s: downloaded %d bytes, the hub lists %d", f.Path, n, want)
	}
	if f.LFS != nil && f.LFS.SHA256 != "" && !strings.EqualFold(f.LFS.SHA256, sum) {
		return fmt.Errorf("%s: sha256 %s, the hub lists %s: the download is corrupt, run bench prepare again", f.Path, sum, f.LFS.SHA256)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
