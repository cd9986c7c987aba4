// Package karpenteroracle holds taintlint's reading of Karpenter NodePools
// to Karpenter's own code: random NodePools and pods are judged by
// sigs.k8s.io/karpenter (with the AWS provider's well-known labels, which
// importing its apis package registers) and by the taintlint binary built
// from this repository, and every verdict must agree.
//
// It is a module of its own so that taintlint's go.mod does not take
// Karpenter's dependencies, and it runs taintlint as a program rather than
// importing it: Karpenter v1.14 builds against k8s.io/client-go v0.35 and
// controller-runtime v0.23, which do not build with taintlint's v0.37, and
// the program is what users run, pool reading included.
package karpenteroracle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/multierr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	_ "github.com/aws/karpenter-provider-aws/pkg/apis/v1" // registers the AWS well-known labels and restricted domain
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	provisioning "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

var (
	cases = flag.Int("cases", 5000, "random cases (-short: 1000)")
	seed  = flag.Uint64("seed", 1, "random seed")
	batch = flag.Int("batch", 100, "cases per taintlint run")
)

// caseLabel pairs pod i with pool i: both carry it with value i, so in a
// run over many pools each pod can only go to its own pool, and
// pod-unschedulable on pod i is taintlint's verdict on pool i. The pool
// defines it and the pod asks for that value, so it changes no verdict;
// Karpenter judges the pool and pod with it too.
const caseLabel = "oracle.taintlint.io/case"

// keys are every label key the cases use: custom ones, Karpenter's and
// the AWS provider's well-known ones, their deprecated aliases, the
// template labels (node class, registered, initialized), restricted keys.
var keys = []string{
	"team", "example.com/gpu",
	"karpenter.sh/capacity-type", "karpenter.sh/nodepool", "kubernetes.io/arch", "kubernetes.io/os",
	"topology.kubernetes.io/zone", "topology.kubernetes.io/region", "node.kubernetes.io/instance-type", "node.kubernetes.io/windows-build",
	"beta.kubernetes.io/arch", "failure-domain.beta.kubernetes.io/zone", "beta.kubernetes.io/instance-type",
	"karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-category",
	"karpenter.k8s.aws/instance-tenancy", "topology.k8s.aws/zone-id", "karpenter.k8s.aws/ec2nodeclass", "karpenter.k8s.aws/instance-foo",
	"karpenter.sh/registered", "karpenter.sh/initialized", "karpenter.sh/other", "kubernetes.io/hostname",
}

var (
	values      = []string{"1", "2", "4", "8", "16", "a", "b", "true", "spot", "on-demand", "amd64", "arm64", "default", "dedicated"}
	taintKeys   = []string{"dedicated", "example.com/gpu", "team"}
	taintVals   = []string{"", "a", "b"}
	effects     = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute, corev1.TaintEffectPreferNoSchedule}
	podOps      = []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt}
	poolOps     = append(podOps[:len(podOps):len(podOps)], karpv1.NodeSelectorOpGte, karpv1.NodeSelectorOpLte)
	nodeClasses = []string{"default", "gpu"}
)

type gen struct{ r *rand.Rand }

func (g gen) pick(n int) int { return g.r.IntN(n) }

func (g gen) requirement(ops []corev1.NodeSelectorOperator, negative bool) corev1.NodeSelectorRequirement {
	q := corev1.NodeSelectorRequirement{Key: keys[g.pick(len(keys))], Operator: ops[g.pick(len(ops))]}
	switch q.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		for n := 1 + g.pick(3); len(q.Values) < n; {
			q.Values = append(q.Values, values[g.pick(len(values))])
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, karpv1.NodeSelectorOpGte, karpv1.NodeSelectorOpLte:
		n := g.pick(18)
		if negative && g.pick(20) == 0 {
			n = -n - 1
		}
		q.Values = []string{strconv.Itoa(n)}
	}
	return q
}

func (g gen) taints() []corev1.Taint {
	var ts []corev1.Taint
	seen := map[string]bool{}
	for n := g.pick(3); len(ts) < n; {
		t := corev1.Taint{Key: taintKeys[g.pick(len(taintKeys))], Value: taintVals[g.pick(len(taintVals))], Effect: effects[g.pick(len(effects))]}
		if seen[t.Key+string(t.Effect)] {
			continue
		}
		seen[t.Key+string(t.Effect)] = true
		ts = append(ts, t)
	}
	return ts
}

// nodePool is a random NodePool the API server and Karpenter accept
// (RuntimeValidate, and the CRD's CEL rules on requirement keys).
func (g gen) nodePool(name string) *karpv1.NodePool {
	for {
		np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
		tmpl := &np.Spec.Template
		tmpl.Labels = map[string]string{caseLabel: strings.TrimPrefix(name, "c")}
		for n := g.pick(3); n > 0; n-- {
			tmpl.Labels[keys[g.pick(len(keys))]] = values[g.pick(len(values))]
		}
		tmpl.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: nodeClasses[g.pick(len(nodeClasses))]}
		for n := g.pick(4); n > 0; n-- {
			q := g.requirement(poolOps, false)
			tmpl.Spec.Requirements = append(tmpl.Spec.Requirements, karpv1.NodeSelectorRequirementWithMinValues{Key: q.Key, Operator: q.Operator, Values: q.Values})
		}
		tmpl.Spec.Taints = g.taints()
		if np.RuntimeValidate(context.Background()) != nil || !celValid(np) {
			continue
		}
		return np
	}
}

// celValid is the NodePool CRD's CEL rules on keys
// (pkg/apis/crds/karpenter.sh_nodepools.yaml): no karpenter.sh domain but
// capacity-type, no nodepool or hostname, in labels and requirements.
func celValid(np *karpv1.NodePool) bool {
	ok := func(k string) bool {
		domain, _, _ := strings.Cut(k, "/")
		return (k == karpv1.CapacityTypeLabelKey || !strings.HasSuffix(domain, "karpenter.sh")) && k != karpv1.NodePoolLabelKey && k != corev1.LabelHostname
	}
	for k := range np.Spec.Template.Labels {
		if !ok(k) {
			return false
		}
	}
	for _, q := range np.Spec.Template.Spec.Requirements {
		if !ok(q.Key) {
			return false
		}
	}
	return true
}

// pod is a random pod the API server accepts: a nodeSelector, required
// terms (In, NotIn, Exists, DoesNotExist, Gt, Lt), sometimes a preferred
// term, and tolerations.
func (g gen) pod(name string) *corev1.Pod {
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "oracle"}}
	p.Spec.Containers = []corev1.Container{{Name: "c", Image: "c"}}
	p.Spec.NodeSelector = map[string]string{caseLabel: strings.TrimPrefix(name, "c")}
	for n := g.pick(3); n > 0; n-- {
		p.Spec.NodeSelector[keys[g.pick(len(keys))]] = values[g.pick(len(values))]
	}
	na := &corev1.NodeAffinity{}
	if n := g.pick(3); n > 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
		for ; n > 0; n-- {
			var term corev1.NodeSelectorTerm
			for m := 1 + g.pick(3); m > 0; m-- {
				term.MatchExpressions = append(term.MatchExpressions, g.requirement(podOps, true))
			}
			na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, term)
		}
	}
	if g.pick(4) == 0 {
		na.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.PreferredSchedulingTerm{{Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{g.requirement(podOps[:4], false)}}}}
	}
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil || na.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: na}
	}
	for n := g.pick(3); n > 0; n-- {
		t := corev1.Toleration{Key: taintKeys[g.pick(len(taintKeys))], Operator: corev1.TolerationOpEqual, Value: taintVals[g.pick(len(taintVals))]}
		switch g.pick(4) {
		case 0:
			t.Operator, t.Value = corev1.TolerationOpExists, ""
		case 1:
			t = corev1.Toleration{Operator: corev1.TolerationOpExists}
		}
		if g.pick(2) == 0 {
			t.Effect = effects[g.pick(len(effects))]
		}
		p.Spec.Tolerations = append(p.Spec.Tolerations, t)
	}
	return p
}

// validatePod is Karpenter's Provisioner.Validate
// (pkg/controllers/provisioning/provisioner.go), whose parts are not
// exported, written with the exported ValidateRequirement it calls: a pod
// that asks for karpenter.sh/nodepool DoesNotExist, or whose nodeSelector
// or any required term holds a requirement Karpenter refuses, is never
// provisioned for. (Its volume topology check needs a cluster; the pods
// here have no volumes.)
func validatePod(p *corev1.Pod) error {
	for _, req := range scheduling.NewPodRequirements(p) {
		if req.Key == karpv1.NodePoolLabelKey && req.Operator() == corev1.NodeSelectorOpDoesNotExist {
			return errors.New("configured to not run on a Karpenter provisioned node")
		}
	}
	var errs error
	for k, v := range p.Spec.NodeSelector {
		errs = multierr.Append(errs, karpv1.ValidateRequirement(context.Background(), karpv1.NodeSelectorRequirementWithMinValues{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{v}}))
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, q := range term.MatchExpressions {
				errs = multierr.Append(errs, karpv1.ValidateRequirement(context.Background(), karpv1.NodeSelectorRequirementWithMinValues{Key: q.Key, Operator: q.Operator, Values: q.Values}))
			}
		}
	}
	return errs
}

// karpenter is Karpenter's verdict: whether the pool makes a node for the
// pod, and if not why. The pool's template is NewNodeClaimTemplate's
// (written requirements, template labels, the nodepool and node class
// labels, registered and initialized); the pod's requirements are
// NewStrictPodRequirements with each required term in turn (Karpenter
// relaxes them one by one, and preferred terms away); taints are
// Taints.Tolerates with the PreferNoSchedule toleration preference
// relaxation adds (pkg/controllers/provisioning/scheduling/preferences.go).
func karpenter(np *karpv1.NodePool, p *corev1.Pod) (bool, string) {
	if err := validatePod(p); err != nil {
		return false, "refused: " + err.Error()
	}
	nct := provisioning.NewNodeClaimTemplate(np)
	var terms []corev1.NodeSelectorTerm
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	var why error
	compatible := false
	for i := 0; i < max(1, len(terms)); i++ {
		q := p.DeepCopy()
		q.Spec.Affinity = nil
		if len(terms) > 0 {
			q.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{terms[i]}}}}
		}
		err := nct.Requirements.Compatible(scheduling.NewStrictPodRequirements(q), scheduling.AllowUndefinedWellKnownLabels)
		if err == nil {
			compatible = true
			break
		}
		if why == nil {
			why = err
		}
	}
	if !compatible {
		return false, "incompatible: " + why.Error()
	}
	tols := append(p.Spec.Tolerations[:len(p.Spec.Tolerations):len(p.Spec.Tolerations)], corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule})
	if err := scheduling.Taints(nct.Spec.Taints).Tolerates(tols); err != nil {
		return false, "taints: " + err.Error()
	}
	return true, ""
}

// nodePoolYAML writes the NodePool as a user would (karpenter.sh/v1).
func nodePoolYAML(np *karpv1.NodePool) ([]byte, error) {
	np.APIVersion, np.Kind = "karpenter.sh/v1", "NodePool"
	return yaml.Marshal(np)
}

// taintlint runs the binary on pools and pods and returns the names of
// the pods it reports pod-unschedulable.
func taintlint(t *testing.T, bin, dir string, pools, pods [][]byte) map[string]bool {
	t.Helper()
	poolFile, podFile := filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "pods.yaml")
	if err := os.WriteFile(poolFile, bytes.Join(pools, []byte("---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(podFile, bytes.Join(pods, []byte("---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "check", "--config", filepath.Join(dir, "empty.yaml"), "--nodes", poolFile, "--format", "json", "--fail-on", "never", podFile)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("taintlint: %v", err)
	}
	var report struct {
		Findings []struct {
			Rule   string `json:"rule"`
			Object struct {
				Name string `json:"name"`
			} `json:"object"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("taintlint output: %v", err)
	}
	unplaced := map[string]bool{}
	for _, f := range report.Findings {
		if f.Rule == "pod-unschedulable" {
			unplaced[f.Object.Name] = true
		}
	}
	return unplaced
}

// binary builds taintlint from this repository (or takes $TAINTLINT).
func binary(t *testing.T) string {
	if b := os.Getenv("TAINTLINT"); b != "" {
		return b
	}
	bin := filepath.Join(t.TempDir(), "taintlint")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/taintlint")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build taintlint: %v\n%s", err, out)
	}
	return bin
}

// TestAgreement: on random NodePools and pods over every key above and
// every operator, taintlint's verdict (the pod placed or pod-unschedulable)
// is Karpenter's, every time.
func TestAgreement(t *testing.T) {
	n := *cases
	if testing.Short() && n > 1000 {
		n = 1000
	}
	bin := binary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "empty.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g := gen{rand.New(rand.NewPCG(*seed, 28))}
	agree, fits := 0, 0
	disagreements := map[string]int{}
	var examples []string
	for start := 0; start < n; start += *batch {
		end := min(n, start+*batch)
		var pools, pods [][]byte
		want := map[string]string{} // pod name -> "" fits, else Karpenter's reason
		shown := map[string]string{}
		for i := start; i < end; i++ {
			name := fmt.Sprintf("c%d", i)
			np, p := g.nodePool(name), g.pod(name)
			ok, why := karpenter(np, p)
			if ok {
				fits++
			}
			want[name] = why
			y, err := nodePoolYAML(np)
			if err != nil {
				t.Fatal(err)
			}
			pools = append(pools, y)
			py, err := yaml.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			pods = append(pods, py)
			shown[name] = string(y) + "---\n" + string(py)
		}
		unplaced := taintlint(t, bin, dir, pools, pods)
		names := make([]string, 0, len(want))
		for name := range want {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			why := want[name]
			if (why == "") != unplaced[name] {
				agree++
				continue
			}
			kind := strings.SplitN(why, ":", 2)[0]
			if why == "" {
				kind = "karpenter places, taintlint does not"
			}
			disagreements[kind]++
			if len(examples) < 5 {
				examples = append(examples, fmt.Sprintf("%s: Karpenter %q\n%s", name, why, shown[name]))
			}
		}
	}
	t.Logf("agreement with Karpenter: %d of %d cases (%d placed by Karpenter)", agree, n, fits)
	if agree != n {
		t.Errorf("disagreements by Karpenter's verdict: %v\nfirst cases:\n%s", disagreements, strings.Join(examples, "\n=====\n"))
	}
	if fits == 0 || fits == n {
		t.Errorf("%d of %d cases fit: the generator tests one verdict only", fits, n)
	}
}
