package pools_test

import (
	"testing"

	"github.com/taintlint/taintlint/internal/pools"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// TestToleratedWorldMatchesEveryOperator: in world Tolerated a pool of
// unknown taints has, for each toleration of the run, a taint that
// toleration tolerates, as the scheduler's matching (comparison
// operators enabled) judges it; Gt and Lt included.
func TestToleratedWorldMatchesEveryOperator(t *testing.T) {
	tols := []v1.Toleration{
		{Key: "a", Operator: v1.TolerationOpEqual, Value: "x", Effect: v1.TaintEffectNoSchedule},
		{Key: "b", Operator: v1.TolerationOpExists},
		{Key: "c", Operator: v1.TolerationOpGt, Value: "5", Effect: v1.TaintEffectNoSchedule},
		{Key: "d", Operator: v1.TolerationOpLt, Value: "-3", Effect: v1.TaintEffectNoExecute},
	}
	p := (&pools.Pool{Unknown: &pools.Unknown{Taints: "taints (var.taints has no value)"}}).Variant(pools.Tolerated, tols)
	for _, tol := range tols {
		tolerated := false
		for _, tt := range p.Taints {
			tolerated = tolerated || corev1helpers.TolerationsTolerateTaint(klog.Background(), []v1.Toleration{tol}, &tt.Taint, true)
		}
		if !tolerated {
			t.Errorf("no taint of world Tolerated is tolerated by %+v (taints %+v)", tol, p.Taints)
		}
	}
}
