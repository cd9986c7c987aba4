// Package benchgen writes realistic manifest repositories for benchmarks:
// workloads of every kind with tolerations, node selectors, affinity and
// requests, a few percent of them wrong, and a node inventory of N nodes
// drawn from P pools. Output is a pure function of the Spec, seed included,
// so figures can be compared before and after a change.
package benchgen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Spec sizes a corpus.
type Spec struct {
	Docs  int    // documents across all workload files
	Files int    // workload files
	Nodes int    // nodes in the inventory
	Pools int    // node pools the nodes are drawn from
	Seed  uint64 // same seed, same bytes
	// BadPercent is the share of workloads with a deliberate mistake.
	BadPercent int
	// Realistic makes documents and nodes look like a real repository's
	// (realistic.go): about 2 KB a document with probes, env, volumes and
	// sidecars, Services beside the workloads, and pools spread over
	// three zones and several instance types, so about six node groups a
	// pool. Without it the corpus is the easy one of issue 7: about 830
	// bytes a document and one node group a pool.
	Realistic bool
}

// Sizes named by the performance targets: realistic corpora, the ones the
// targets are measured on.
var (
	Small  = Spec{Docs: 100, Files: 20, Nodes: 50, Pools: 5, Seed: 1, BadPercent: 3, Realistic: true}
	Medium = Spec{Docs: 10_000, Files: 2_000, Nodes: 1_000, Pools: 20, Seed: 1, BadPercent: 3, Realistic: true}
	Large  = Spec{Docs: 100_000, Files: 20_000, Nodes: 5_000, Pools: 25, Seed: 1, BadPercent: 3, Realistic: true}
)

// Easy returns s as the easy corpus of issue 7 (short documents, a node
// group a pool), kept as a secondary figure and for comparisons with
// earlier measurements.
func Easy(s Spec) Spec {
	s.Realistic = false
	if s.Docs == Large.Docs {
		s.Pools = 50
	}
	return s
}

// pool is one node pool.
type pool struct {
	name    string
	taint   string // "key=value:Effect" or ""
	gpu     bool
	cpu     int
	memGi   int
	zoneIdx int
}

func pools(n int) []pool {
	ps := make([]pool, n)
	for i := range ps {
		p := pool{name: fmt.Sprintf("pool-%02d", i), cpu: 8 << (i % 3), memGi: 32 << (i % 3), zoneIdx: i % 3}
		switch i % 5 {
		case 1:
			p.taint = fmt.Sprintf("dedicated=%s:NoSchedule", p.name)
		case 2:
			p.taint = "nvidia.com/gpu=present:NoSchedule"
			p.gpu = true
		case 3:
			p.taint = "cloud.example.com/spot=true:PreferNoSchedule"
		}
		ps[i] = p
	}
	return ps
}

// Write generates the corpus under dir: cluster/nodes.yaml (a v1 List of
// Nodes) and apps/team-NNN/file-NNNNN.yaml workload files.
func Write(dir string, s Spec) error {
	if s.Files < 1 || s.Pools < 1 {
		return fmt.Errorf("benchgen: need at least one file and one pool")
	}
	ps := pools(s.Pools)
	if err := os.MkdirAll(filepath.Join(dir, "cluster"), 0o755); err != nil {
		return err
	}
	nodes := Nodes(s, ps)
	if s.Realistic {
		nodes = realisticNodes(s, ps)
	}
	if err := os.WriteFile(filepath.Join(dir, "cluster", "nodes.yaml"), nodes, 0o644); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))
	perFile := s.Docs / s.Files
	extra := s.Docs % s.Files
	doc := 0
	for f := 0; f < s.Files; f++ {
		n := perFile
		if f < extra {
			n++
		}
		var b bytes.Buffer
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString("---\n")
			}
			if s.Realistic {
				writeRealisticDoc(&b, r, ps, s, doc)
			} else {
				writeDoc(&b, r, ps, s, doc)
			}
			doc++
		}
		sub := filepath.Join(dir, "apps", fmt.Sprintf("team-%03d", f%100))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file-%05d.yaml", f)), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Nodes renders the inventory as kubectl get nodes -o yaml would.
func Nodes(s Spec, ps []pool) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := 0; i < s.Nodes; i++ {
		p := ps[i%len(ps)]
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: %[1]s-node-%05[2]d\n    labels:\n      kubernetes.io/hostname: %[1]s-node-%05[2]d\n      kubernetes.io/os: linux\n      pool: %[1]s\n      topology.kubernetes.io/zone: zone-%[3]c\n", p.name, i, 'a'+p.zoneIdx)
		if p.taint != "" {
			key, value, effect := splitTaint(p.taint)
			fmt.Fprintf(&b, "  spec:\n    taints:\n    - key: %s\n      value: %q\n      effect: %s\n", key, value, effect)
		}
		fmt.Fprintf(&b, "  status:\n    allocatable:\n      cpu: \"%d\"\n      memory: %dGi\n      pods: \"110\"\n", p.cpu, p.memGi)
		if p.gpu {
			b.WriteString("      nvidia.com/gpu: \"8\"\n")
		}
	}
	return b.Bytes()
}

func splitTaint(t string) (key, value, effect string) {
	kv, effect, _ := cut(t, ':')
	key, value, _ = cut(kv, '=')
	return
}

func cut(s string, c byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

var kinds = []string{"Deployment", "Deployment", "Deployment", "Deployment", "StatefulSet", "Job", "CronJob", "DaemonSet", "Pod", "ConfigMap"}

// writeDoc writes document number i of the easy corpus.
func writeDoc(b *bytes.Buffer, r *rand.Rand, ps []pool, s Spec, i int) {
	kind := kinds[r.IntN(len(kinds))]
	name := fmt.Sprintf("app-%06d", i)
	ns := fmt.Sprintf("team-%03d", i%100)
	if kind == "ConfigMap" {
		fmt.Fprintf(b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  config.yaml: |\n    level: info\n    replicas: %d\n", name, ns, r.IntN(5)+1)
		return
	}
	p, mistake := pick(r, ps, s)
	indent := writeHeader(b, r, kind, name, ns, "")
	writeSelector(b, r, p, kind, indent, mistake)
	cpu, mem := requests(r, p, mistake)
	fmt.Fprintf(b, "%scontainers:\n%s- name: main\n%s  image: registry.example.com/%s:1.%d\n%s  resources:\n%s    requests: {cpu: %dm, memory: %dMi}\n",
		indent, indent, indent, name, r.IntN(20), indent, indent, cpu, mem)
	if p.gpu {
		fmt.Fprintf(b, "%s    limits: {nvidia.com/gpu: \"1\"}\n", indent)
	}
	writeTolerations(b, r, p, indent, mistake)
}

// pick draws the pool a workload is meant for and its mistake (-1: none).
func pick(r *rand.Rand, ps []pool, s Spec) (pool, int) {
	p := ps[r.IntN(len(ps))]
	mistake := -1
	if r.IntN(100) < s.BadPercent {
		mistake = r.IntN(6)
	}
	return p, mistake
}

// writeHeader writes a workload's lines down to its pod spec's first field
// (podMeta, if any, goes into the pod template's metadata) and returns the
// pod spec's indentation.
func writeHeader(b *bytes.Buffer, r *rand.Rand, kind, name, ns, podMeta string) string {
	switch kind {
	case "Pod":
		fmt.Fprintf(b, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: %s\n  labels: {app: %s}\n%sspec:\n", name, ns, name, indentLines(podMeta, "  "))
		return "  "
	case "CronJob":
		fmt.Fprintf(b, "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  schedule: \"%d * * * *\"\n  jobTemplate:\n    spec:\n      template:\n        metadata:\n          labels: {app: %s}\n%s        spec:\n          restartPolicy: OnFailure\n", name, ns, r.IntN(60), name, indentLines(podMeta, "          "))
		return "          "
	case "Job":
		fmt.Fprintf(b, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  template:\n    metadata:\n      labels: {app: %s}\n%s    spec:\n      restartPolicy: Never\n", name, ns, name, indentLines(podMeta, "      "))
		return "      "
	default:
		fmt.Fprintf(b, "apiVersion: apps/v1\nkind: %s\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  selector:\n    matchLabels: {app: %s}\n  template:\n    metadata:\n      labels: {app: %s}\n%s    spec:\n", kind, name, ns, name, name, indentLines(podMeta, "      "))
		return "      "
	}
}

// indentLines prefixes every line of s with indent.
func indentLines(s, indent string) string {
	if s == "" {
		return ""
	}
	var b bytes.Buffer
	for _, line := range bytes.SplitAfter([]byte(s), []byte("\n")) {
		if len(line) > 0 {
			b.WriteString(indent)
			b.Write(line)
		}
	}
	return b.String()
}

// writeSelector writes how a workload picks its pool: hostNetwork for half
// the DaemonSets, otherwise a nodeSelector or required node affinity (the
// first mistake selects a pool that does not exist).
func writeSelector(b *bytes.Buffer, r *rand.Rand, p pool, kind, indent string, mistake int) {
	if kind == "DaemonSet" {
		if r.IntN(2) == 0 {
			fmt.Fprintf(b, "%shostNetwork: true\n", indent)
		}
	} else if r.IntN(3) > 0 {
		selPool := p.name
		if mistake == 0 {
			selPool = p.name + "-retired"
		}
		fmt.Fprintf(b, "%snodeSelector:\n%s  pool: %s\n", indent, indent, selPool)
	} else {
		fmt.Fprintf(b, "%saffinity:\n%s  nodeAffinity:\n%s    requiredDuringSchedulingIgnoredDuringExecution:\n%s      nodeSelectorTerms:\n%s      - matchExpressions:\n%s        - {key: pool, operator: In, values: [%s]}\n",
			indent, indent, indent, indent, indent, indent, p.name)
	}
}

// requests draws the main container's cpu (millicores) and memory (Mi);
// the second mistake asks for more cpu than the pool's nodes have.
func requests(r *rand.Rand, p pool, mistake int) (cpu, mem int) {
	cpu = 100 * (r.IntN(8) + 1)
	mem = 128 * (r.IntN(8) + 1)
	if mistake == 1 {
		cpu = 1000 * (p.cpu + 4)
	}
	return cpu, mem
}

// writeTolerations writes the tolerations for the pool's taint (mistakes
// 2 to 4 get it wrong) and, for some workloads, an unreachable toleration
// (mistake 5 gives it tolerationSeconds without NoExecute).
func writeTolerations(b *bytes.Buffer, r *rand.Rand, p pool, indent string, mistake int) {
	var tols []string
	if p.taint != "" {
		key, value, effect := splitTaint(p.taint)
		switch mistake {
		case 2:
			value += "x" // a near miss: the pool's taint stays untolerated
		case 3:
			effect = "noschedule"
		}
		if mistake == 4 {
			tols = append(tols, fmt.Sprintf("{key: %s, operator: Exists, value: %q, effect: %s}", key, value, effect))
		} else {
			tols = append(tols, fmt.Sprintf("{key: %s, operator: Equal, value: %q, effect: %s}", key, value, effect))
		}
	}
	switch {
	case mistake == 5:
		tols = append(tols, "{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoSchedule, tolerationSeconds: 60}")
	case r.IntN(4) == 0:
		tols = append(tols, "{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 60}")
	}
	if len(tols) > 0 {
		fmt.Fprintf(b, "%stolerations:\n", indent)
		for _, t := range tols {
			fmt.Fprintf(b, "%s- %s\n", indent, t)
		}
	}
}
