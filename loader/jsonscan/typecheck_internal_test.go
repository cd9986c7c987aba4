package jsonscan

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPlainTime holds the type check's fast path for timestamps to
// metav1.Time's UnmarshalJSON: whatever it accepts, UnmarshalJSON accepts.
func TestPlainTime(t *testing.T) {
	accepted := 0
	for _, s := range []string{
		`"2026-11-27T00:00:00Z"`, `"2026-11-27T23:59:59+01:00"`, `"2026-11-27T00:00:00.123Z"`,
		`"2026-11-27 00:00:00Z"`, `"2026-11-27"`, `""`, `null`, `1`, `"2026-13-27T00:00:00Z"`,
		`"2026-11-27T00:00:00\u005a"`, `"2026-11-27T00:00:00Z\n"`, `"2026-11-27T00:00:00Zé"`, `"`, `"2026-02-30T00:00:00Z"`,
	} {
		var tm metav1.Time
		err := tm.UnmarshalJSON([]byte(s))
		if plainTime([]byte(s)) {
			accepted++
			if err != nil {
				t.Errorf("%s: plainTime accepts what UnmarshalJSON refuses: %v", s, err)
			}
		}
	}
	if accepted != 3 {
		t.Errorf("plainTime accepted %d, want the 3 plain RFC 3339 times", accepted)
	}
}
