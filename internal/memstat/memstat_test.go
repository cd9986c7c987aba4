package memstat

import "testing"

func TestReader(t *testing.T) {
	if n := Reader("/memory/classes/total:bytes")(); n <= 0 {
		t.Errorf("total memory %d", n)
	}
	if n := Reader("/no/such:bytes")(); n != 0 {
		t.Errorf("an unknown metric reads %d", n)
	}
}
