package scheduling

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestFormatQuantity(t *testing.T) {
	for _, tc := range []struct {
		name v1.ResourceName
		v    int64
		want string
	}{
		{v1.ResourceCPU, 500, "500m"},
		{v1.ResourceCPU, 2500, "2500m"},
		{v1.ResourceCPU, 24000, "24"},
		{v1.ResourceCPU, 15890, "15.89"},
		{v1.ResourceCPU, 8110, "8110m"},
		{v1.ResourceMemory, 16 << 30, "16Gi"},
		{v1.ResourceMemory, 10460488 << 10, "9.98Gi"},
		{v1.ResourceMemory, 1536 << 20, "1536Mi"},
		{v1.ResourceMemory, 123456789, "117.74Mi"},
		{"hugepages-2Mi", 2 << 30, "2Gi"},
		{"example.com/foo", 2, "2"},
		{"example.com/foo", 1234567, "1.23M"},
	} {
		if got := formatQuantity(tc.name, tc.v); got != tc.want {
			t.Errorf("formatQuantity(%s, %d) = %q, want %q", tc.name, tc.v, got, tc.want)
		}
	}
}
