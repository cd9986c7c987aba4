package config_test

import (
	"strings"
	"testing"

	"github.com/taintlint/taintlint/internal/config"
)

func TestAdmission(t *testing.T) {
	f, err := config.Parse("c.yaml", []byte(`admission:
  podNodeSelector: {clusterDefaultNodeSelector: "env=prod,zone=a"}
  podTolerationRestriction:
    default: [{key: team, operator: Equal, value: ml, effect: NoSchedule}]
    whitelist: [{operator: Exists}]
  extendedResourceToleration: true
  defaultNotReadyTolerationSeconds: 60
`))
	if err != nil {
		t.Fatal(err)
	}
	adm, err := f.Admission.K8s(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !adm.PodNodeSelector || adm.ClusterDefaultNodeSelector["zone"] != "a" || !adm.PodTolerationRestriction ||
		len(adm.DefaultTolerations) != 1 || adm.DefaultTolerations[0].Value != "ml" || len(adm.TolerationWhitelist) != 1 ||
		!adm.ExtendedResourceToleration || adm.DefaultNotReadySeconds != 60 || adm.DefaultUnreachableSeconds != 0 {
		t.Errorf("admission = %+v", adm)
	}

	none, err := (*config.Admission)(nil).K8s("c.yaml")
	if err != nil || none.PodNodeSelector || none.PodTolerationRestriction || none.ExtendedResourceToleration {
		t.Errorf("no admission section: %+v, %v", none, err)
	}

	for _, tc := range []struct{ yaml, err string }{
		{"admission:\n  podNodeSelectr: {}\n", `c.yaml:2:3: admission: unknown key "podNodeSelectr" (did you mean podNodeSelector?)`},
		{"admission:\n  podTolerationRestriction:\n    default: [{key: a, valu: b}]\n", `c.yaml:3:24: admission.podTolerationRestriction.default[0]: unknown key "valu" (did you mean value?)`},
	} {
		_, err := config.Parse("c.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.err)
		}
	}
	f, err = config.Parse("c.yaml", []byte("admission:\n  podNodeSelector: {clusterDefaultNodeSelector: \"a b\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Admission.K8s(f.Path); err == nil || !strings.Contains(err.Error(), "c.yaml: admission.podNodeSelector.clusterDefaultNodeSelector") {
		t.Errorf("bad selector: err = %v", err)
	}
}
