package taintlint_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/taintlint/taintlint/internal/cli"
)

// snippetRE finds a README snippet: a marker comment naming the file the
// fenced block below it must equal.
var snippetRE = regexp.MustCompile("(?s)<!-- snippet: ([^ ]+) -->\n```[a-z]*\n(.*?)```\n")

// TestREADMESnippets checks that every marked README snippet is, byte for
// byte, the file the other tests run, so what users copy is what was tested.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, m := range snippetRE.FindAllSubmatch(readme, -1) {
		name := string(m[1])
		seen = append(seen, name)
		want, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Errorf("README snippet %s: %v", name, err)
			continue
		}
		if !bytes.Equal(m[2], want) {
			t.Errorf("README snippet %s differs from the file:\nREADME:\n%s\nfile:\n%s", name, m[2], want)
		}
	}
	for _, name := range []string{"testdata/integrations/pre-commit-config.yaml", "testdata/integrations/workflow.yml", "testdata/integrations/install.sh"} {
		if !slices.Contains(seen, name) {
			t.Errorf("README has no snippet marked %q", name)
		}
	}
	if n := strings.Count(string(readme), "<!-- snippet:"); n != len(seen) {
		t.Errorf("README has %d snippet markers but %d are followed by a fenced block", n, len(seen))
	}
}

// goreleaserFile is the part of .goreleaser.yaml the tests read.
type goreleaserFile struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		NameTemplate    string   `yaml:"name_template"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
	} `yaml:"checksum"`
}

func readGoreleaser(t *testing.T) *goreleaserFile {
	t.Helper()
	data, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaserFile
	if err := yaml.Unmarshal(data, &g); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(g.Builds) != 1 || len(g.Archives) != 1 {
		t.Fatalf(".goreleaser.yaml: %d builds and %d archives, want one of each", len(g.Builds), len(g.Archives))
	}
	return &g
}

// archiveName renders the archive name template for one target, knowing
// only the fields it uses.
func archiveName(t *testing.T, g *goreleaserFile, version, goos, goarch string) string {
	t.Helper()
	fields := map[string]string{".ProjectName": g.ProjectName, ".Version": version, ".Os": goos, ".Arch": goarch}
	name := regexp.MustCompile(`\{\{\s*([^}]*?)\s*\}\}`).ReplaceAllStringFunc(g.Archives[0].NameTemplate, func(m string) string {
		f := strings.Trim(m, "{} ")
		v, ok := fields[f]
		if !ok {
			t.Fatalf("archive name_template uses %s, which the test does not know", m)
		}
		return v
	})
	format := g.Archives[0].Formats[0]
	for _, o := range g.Archives[0].FormatOverrides {
		if o.Goos == goos {
			format = o.Formats[0]
		}
	}
	return name + "." + format
}

// TestGoreleaserConfig checks the release matrix and that the version comes
// from build info, and runs `goreleaser check` when goreleaser is installed.
func TestGoreleaserConfig(t *testing.T) {
	g := readGoreleaser(t)
	b := g.Builds[0]
	if g.Version != 2 || g.ProjectName != "taintlint" || b.Main != "./cmd/taintlint" || b.Binary != "taintlint" {
		t.Errorf("version %d, project %q, main %q, binary %q", g.Version, g.ProjectName, b.Main, b.Binary)
	}
	if !slices.Equal(b.Goos, []string{"linux", "darwin", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
		t.Errorf("targets %v × %v, want linux, darwin, windows × amd64, arm64", b.Goos, b.Goarch)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Error("builds need CGO_ENABLED=0 to cross-compile static binaries")
	}
	for _, f := range b.Ldflags {
		if strings.Contains(f, "-X") {
			t.Errorf("ldflags %q: the version comes from build info, not -X", f)
		}
	}
	if got := archiveName(t, g, "0.1.0", "windows", "arm64"); got != "taintlint_0.1.0_windows_arm64.zip" {
		t.Errorf("windows archive %q, want a zip", got)
	}

	goreleaser := lookTool(t, "goreleaser", "go install github.com/goreleaser/goreleaser/v2@latest to run goreleaser check")
	out, code := run(t, ".", toolEnv(t), goreleaser, "check", "--config", ".goreleaser.yaml")
	if code != 0 {
		t.Errorf("goreleaser check: exit %d\n%s", code, out)
	}
}

// TestInstallSnippet runs the README's install snippet against a fake
// release made the way .goreleaser.yaml names and lays out archives: curl
// serves files from a directory, sudo installs into a temporary prefix.
func TestInstallSnippet(t *testing.T) {
	// The tests that build or run taintlint overlap: most of their time
	// is spent waiting on the linker and the disk, not on a core.
	t.Parallel()
	if testing.Short() {
		t.Skip("builds taintlint; skipped with -short")
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the snippet is for Linux and macOS")
	}
	bash := lookTool(t, "bash", "install bash")
	lookTool(t, "shasum", "install shasum (Debian: perl)")
	lookTool(t, "tar", "install tar")
	g := readGoreleaser(t)
	binary, err := os.ReadFile(filepath.Join(buildTaintlint(t), "taintlint"))
	if err != nil {
		t.Fatal(err)
	}

	release := t.TempDir()
	archive := archiveName(t, g, "0.1.0", runtime.GOOS, runtime.GOARCH)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"README.md", 0o644, []byte("readme\n")}, {"taintlint", 0o755, binary}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	for name, data := range map[string][]byte{
		archive:                    buf.Bytes(),
		g.Checksum.NameTemplate:    fmt.Appendf(nil, "%x  %s\n%x  other.tar.gz\n", sum, archive, sha256.Sum256(nil)),
		"taintlint_0.1.0_x.tar.gz": []byte("decoy"),
	} {
		if err := os.WriteFile(filepath.Join(release, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	fakes, prefix, work := t.TempDir(), t.TempDir(), t.TempDir()
	scripts := map[string]string{
		// curl -sSfLO URL: copy the file the URL names from the release.
		"curl": "#!/usr/bin/env bash\nfor a in \"$@\"; do url=$a; done\ncase \"$url\" in https://github.com/taintlint/taintlint/releases/download/v0.1.0/*) ;; *) echo \"unexpected URL $url\" >&2; exit 22;; esac\ncp \"$RELEASE/${url##*/}\" . || exit 22\n",
		// sudo install FILE /usr/local/bin/: install into the prefix.
		"sudo": "#!/usr/bin/env bash\nargs=()\nfor a in \"$@\"; do [ \"$a\" = /usr/local/bin/ ] && a=$PREFIX/; args+=(\"$a\"); done\nexec \"${args[@]}\"\n",
	}
	for name, s := range scripts {
		if err := os.WriteFile(filepath.Join(fakes, name), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := toolEnv(t, "RELEASE="+release, "PREFIX="+prefix,
		"PATH="+fakes+string(os.PathListSeparator)+prefix+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, code := run(t, work, env, bash, "-e", filepath.Join(mustAbs(t, "testdata"), "integrations", "install.sh"))
	if code != 0 {
		t.Fatalf("install snippet: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "taintlint ") || !strings.Contains(out, archive+": OK") {
		t.Errorf("install snippet did not verify %s and print the version:\n%s", archive, out)
	}
	if _, err := os.Stat(filepath.Join(prefix, "taintlint")); err != nil {
		t.Errorf("taintlint not installed: %v", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestDockerfile checks what can be checked without a Docker daemon: the
// build stage's Go is go.mod's, the final stage copies from a stage that
// exists, and the entrypoint is the taintlint binary in exec form, which the
// taintlint-docker hook replaces with its entry.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	goVersion := string(m[1])

	stages := map[string]bool{}
	var from []string
	var entrypoint string
	var copyFrom []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "FROM":
			from = append(from, f[1])
			if len(f) == 4 && strings.EqualFold(f[2], "AS") {
				stages[f[3]] = true
			}
		case "COPY":
			for _, a := range f[1:] {
				if s, ok := strings.CutPrefix(a, "--from="); ok {
					copyFrom = append(copyFrom, s)
				}
			}
		case "ENTRYPOINT":
			entrypoint = strings.TrimSpace(strings.TrimPrefix(line, f[0]))
		case "RUN", "WORKDIR", "CMD", "ENV", "ARG", "LABEL", "USER":
		default:
			t.Errorf("Dockerfile: unexpected instruction %q", f[0])
		}
	}
	if len(from) != 2 || !strings.HasPrefix(from[0], "golang:"+goVersion) || !strings.HasPrefix(from[1], "gcr.io/distroless/static") {
		t.Errorf("stages %v: want golang:%s, then distroless/static", from, goVersion)
	}
	for _, s := range copyFrom {
		if !stages[s] {
			t.Errorf("COPY --from=%s: no such stage", s)
		}
	}
	var ep []string
	if err := json.Unmarshal([]byte(entrypoint), &ep); err != nil || len(ep) != 1 || filepath.Base(ep[0]) != "taintlint" {
		t.Errorf("ENTRYPOINT %s: want the taintlint binary alone, in exec form (%v)", entrypoint, err)
	}
}

// TestVersionFromTag checks what the release relies on instead of -X
// ldflags: built from a tagged checkout, taintlint reports the tag.
func TestVersionFromTag(t *testing.T) {
	// The tests that build or run taintlint overlap: most of their time
	// is spent waiting on the linker and the disk, not on a core.
	t.Parallel()
	if testing.Short() {
		t.Skip("builds taintlint; skipped with -short")
	}
	goTool := lookTool(t, "go", "install Go")
	gitTool := lookTool(t, "git", "install git")
	env := toolEnv(t)
	dir, _ := snapshotRepo(t, env)
	mustRun(t, dir, env, gitTool, "tag", "v0.1.0")
	bin := filepath.Join(t.TempDir(), "taintlint"+exeSuffix())
	mustRun(t, dir, env, goTool, "build", "-buildvcs=true", "-o", bin, "./cmd/taintlint")
	out := mustRun(t, dir, env, bin, "version")
	if !strings.HasPrefix(out, "taintlint v0.1.0 ") {
		t.Errorf("taintlint version = %q, want the tag v0.1.0", out)
	}
}

// TestREADMEFlags checks that the README's table of check flags lists every
// flag of taintlint check --help, and nothing it does not have.
func TestREADMEFlags(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "### Flags of `check`")
	if !ok {
		t.Fatal("README has no \"Flags of `check`\" section")
	}
	table, _, _ = strings.Cut(table, "\n#")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(?:-[a-z], )?--([a-z-]+)").FindAllStringSubmatch(table, -1) {
		documented[m[1]] = true
	}
	var out, errOut bytes.Buffer
	cli.Run(context.Background(), []string{"check", "--help"}, cli.Env{Stdout: &out, Stderr: &errOut})
	have := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-[a-z], )?--([a-z-]+)`).FindAllStringSubmatch(out.String(), -1) {
		if m[1] != "help" {
			have[m[1]] = true
		}
	}
	if len(have) == 0 {
		t.Fatalf("no flags in check --help:\n%s%s", out.String(), errOut.String())
	}
	for f := range have {
		if !documented[f] {
			t.Errorf("flag --%s of check is missing from the README table", f)
		}
	}
	for f := range documented {
		if !have[f] {
			t.Errorf("README documents --%s, which check does not have", f)
		}
	}
}
